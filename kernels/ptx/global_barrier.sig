extern "C" __global__ void global_barrier(uint32_t* arrive, uint32_t* release, uint32_t* counters, uint32_t* mismatches, uint32_t reps, uint32_t spin_budget, int* abort_flag)
