extern "C" __global__ void intrinsics(const float* in, uint32_t* u32, float* f32, uint32_t* counters)
