extern "C" __global__ void exchange_pack(const uint32_t *values, const uint32_t *list, uint32_t count, const uint32_t *stamps, uint32_t stamp, uint32_t *out, uint32_t *out_count)
extern "C" __global__ void exchange_apply(uint32_t *values, const uint32_t *ids, const uint32_t *vals, uint32_t stride, uint32_t count, const uint32_t *reads, uint32_t *useful)
