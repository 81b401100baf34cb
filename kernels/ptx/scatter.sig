extern "C" __global__ void random_atomic_min(const uint32_t* idx, uint32_t* table, uint32_t* sums, uint32_t n)
