extern "C" __global__ void atomic_poll(uint32_t* ctl, uint32_t done_word, uint32_t pollers, uint32_t reps, uint32_t zero_mask, uint32_t spin_budget, int* abort_flag, uint32_t* starts)
