extern "C" __global__ void load_latency(const uint32_t* chain, uint32_t steps, uint32_t strong, unsigned long long* out)
