extern "C" __global__ void load_latency(const uint32_t* chain, uint32_t steps, uint32_t strong, unsigned long long* out)
extern "C" __global__ void sync_latency(uint32_t* word, uint32_t steps, uint32_t kind, unsigned long long* out)
extern "C" __global__ void partition_latency(uint32_t* words, uint32_t count, uint32_t stride, uint32_t steps, uint32_t sm, uint32_t* claim, unsigned long long* out)
extern "C" __global__ void loaded_latency(uint32_t* chain, uint32_t lines, uint32_t steps, uint32_t kind, unsigned long long* out)
