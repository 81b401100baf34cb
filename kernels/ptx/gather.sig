extern "C" __global__ void random_gather(const uint32_t* idx, const uint32_t* table, uint32_t* sums, uint32_t n)
