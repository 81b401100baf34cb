extern "C" __global__ void grid_barrier_monitor(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag)
extern "C" __global__ void grid_barrier_counter(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag)
extern "C" __global__ void grid_barrier_tree(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag)
extern "C" __global__ void grid_barrier_coop(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag)
