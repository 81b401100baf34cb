extern "C" __global__ void stream(const float* a, const float* b, float* c, uint32_t n)
