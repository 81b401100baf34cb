extern "C" __global__ void atomic_contention_shared(uint32_t* out, uint32_t degree, uint32_t reps)
extern "C" __global__ void atomic_contention_global(uint32_t* out, uint32_t degree, uint32_t reps)
extern "C" __global__ void atomic_spread(uint32_t* out, uint32_t stride, uint32_t reps)
extern "C" __global__ void atomic_add_shared(uint32_t* out, uint32_t degree, uint32_t reps, uint32_t kind)
