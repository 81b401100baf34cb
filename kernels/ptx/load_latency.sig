extern "C" __global__ void load_latency(const uint32_t* chain, uint32_t steps, uint32_t strong, unsigned long long* out)
extern "C" __global__ void sync_latency(uint32_t* word, uint32_t steps, uint32_t kind, unsigned long long* out)
