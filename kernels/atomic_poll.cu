// atomic_poll.cu — how polling loads on a queue's control words slow the
// atomics on them: the shape of a persistent work queue (Atos: workers
// fetch tickets with atomicAdd on a head counter while idle workers poll
// the tail and the pending count with volatile loads, all in one line).
#include "warpgraph.h"

// atomic_poll: in every CTA, lane 0 of warp 0 is a worker: it fetches reps
// tickets from ctl[0] with atomicAdd, each fetch's address depending on the
// previous fetch's result (through zero_mask, 0 at run time), so that the
// fetches form a chain of round trips as a worker's do; then it counts
// itself done with atomicAdd on ctl[done_word]. Lane 0 of warps 1..pollers
// polls ctl[done_word] with volatile loads until every CTA is done. The
// counters only grow, so that launches may repeat on the same words: each
// CTA first takes a start number from *starts, whose launch-n numbers are
// n * gridDim.x ... (n + 1) * gridDim.x - 1 (a launch's CTAs start after
// the previous launch ended), and its pollers wait for the done count to
// reach (n + 1) * gridDim.x. With
// done_word 1 the polls hit the head's line; with done_word a few KB away
// they hit another line (and, through the L2's hashing, another slice).
//
// Parameters:
//   ctl          done_word + 1 uint32 words, zeroed by the driver.
//   done_word    index of the done counter (>= 1).
//   pollers      polling warps per CTA (< blockDim.x / 32).
//   reps         tickets each worker fetches.
//   zero_mask    0 (a run-time value the compiler cannot fold).
//   spin_budget  polls before a poller gives up (0: unbounded, simulator only).
//   abort_flag   raised by a poller that gave up; 0 after a correct run.
//   starts       one uint32, zeroed by the driver: CTAs started so far.
// Launch: every CTA resident at once (pollers wait for every CTA's worker),
// block >= 32 * (pollers + 1). Driver checks, after n launches:
// ctl[done_word] = *starts = n * gridDim.x, ctl[0] = reps * ctl[done_word],
// *abort_flag = 0.
extern "C" __global__ void atomic_poll(uint32_t* ctl, uint32_t done_word, uint32_t pollers, uint32_t reps,
                                       uint32_t zero_mask, uint32_t spin_budget, int* abort_flag, uint32_t* starts) {
  __shared__ uint32_t target;
  if (threadIdx.x == 0)
    target = (atomicAdd(starts, 1u) / gridDim.x + 1) * gridDim.x;
  __syncthreads();
  if (threadIdx.x % warpSize != 0)
    return;
  uint32_t warp = threadIdx.x / warpSize;
  if (warp == 0) {
    uint32_t ticket = 0;
    for (uint32_t r = 0; r < reps; ++r)
      ticket = atomicAdd(&ctl[ticket & zero_mask], 1u);
    __threadfence();
    atomicAdd(&ctl[done_word], 1u);
  } else if (warp <= pollers) {
    uint32_t polls = 0;
    while (wg_load_volatile(&ctl[done_word]) < target)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return;
  }
}
