// global_barrier.cu — SIMD-X's software global barrier, crossed reps times.
#include "warpgraph.h"

// grid_barrier is one crossing of the barrier for generation gen (1, 2, ...).
// Thread 0 of each CTA calls it; the rest of the CTA waits at the
// __syncthreads that follows. Worker CTAs (blockIdx.x > 0) raise their
// arrival flag and wait for the release word to reach gen; the monitor CTA
// (blockIdx.x == 0) waits for every worker's flag, clears the flags and then
// publishes gen in the release word. Each wait polls through
// wg_spin_give_up. Returns false when the caller must abort.
WG_DEV bool grid_barrier(uint32_t* arrive, uint32_t* release, uint32_t gen,
                         uint32_t spin_budget, int* abort_flag) {
  uint32_t ctas = gridDim.x;
  __threadfence(); // this CTA's work of the round is visible before it arrives
  if (blockIdx.x == 0) {
    for (uint32_t i = 1; i < ctas; ++i) {
      uint32_t polls = 0;
      while (wg_load_volatile(&arrive[i]) == 0)
        if (wg_spin_give_up(&polls, spin_budget, abort_flag))
          return false;
    }
    for (uint32_t i = 1; i < ctas; ++i)
      wg_store_volatile(&arrive[i], 0u);
    __threadfence(); // the cleared flags are visible before the release
    wg_store_volatile(release, gen);
  } else {
    wg_store_volatile(&arrive[blockIdx.x], 1u);
    uint32_t polls = 0;
    while (wg_load_volatile(release) != gen)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return false;
  }
  __threadfence(); // nothing of the next round is read before the release
  return true;
}

// global_barrier crosses the barrier reps times. In round r (0 <= r < reps)
// thread 0 of CTA b first adds b+1 to counters[r] (atomically), then crosses
// the barrier, then reads counters[r] back: with a correct barrier every CTA
// has added by then, so it must equal G(G+1)/2 (mod 2^32) for a grid of G
// CTAs; each CTA that sees another value adds 1 to *mismatches.
//
// Parameters:
//   arrive       G uint32 arrival flags, one per CTA; zero before launch.
//   release      1 uint32, the release generation; zero before launch.
//   counters     reps uint32 words; zero before launch.
//   mismatches   1 uint32; zero before launch.
//   reps         barrier crossings.
//   spin_budget  polls each wait may make before it gives up and raises
//                *abort_flag; 0 = unbounded (simulator only: on hardware a
//                grid larger than what is co-resident would hang forever).
//   abort_flag   1 int; zero before launch. Set to 1 by the first wait that
//                runs out of budget; every wait then leaves promptly.
// Launch: any one-dimensional grid and block. It completes only when all G
// CTAs are co-resident (the deadlock SIMD-X sizes its grid to avoid);
// otherwise a finite budget makes it abort instead of hanging.
// Driver checks, in this order: *abort_flag == 0 (else report a
// SpinBudgetError: the barrier deadlocked and the other results are
// meaningless); *mismatches == 0; counters[r] == G(G+1)/2 for every r;
// *release == reps; every arrive flag is 0 again.
// Not idempotent: the driver must zero the buffers before every launch.
extern "C" __global__ void global_barrier(uint32_t* arrive, uint32_t* release,
                                          uint32_t* counters, uint32_t* mismatches,
                                          uint32_t reps, uint32_t spin_budget,
                                          int* abort_flag) {
  __shared__ uint32_t aborted; // set only by thread 0, only ever to 1
  uint32_t ctas = gridDim.x;
  uint32_t expected = ctas * (ctas + 1) / 2;
  if (threadIdx.x == 0)
    aborted = 0;
  __syncthreads();
  for (uint32_t r = 0; r < reps; ++r) {
    if (threadIdx.x == 0) {
      atomicAdd(&counters[r], blockIdx.x + 1);
      if (!grid_barrier(arrive, release, r + 1, spin_budget, abort_flag))
        aborted = 1;
    }
    __syncthreads();
    if (aborted)
      return;
    if (threadIdx.x == 0 && wg_load_volatile(&counters[r]) != expected)
      atomicAdd(mismatches, 1u);
  }
}
