extern "C" __global__ void bank_stride(uint32_t* out, uint32_t stride, uint32_t reps)
extern "C" __global__ void bank_stride_padded(uint32_t* out, uint32_t stride, uint32_t reps)
