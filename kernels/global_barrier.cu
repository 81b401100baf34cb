// global_barrier.cu — SIMD-X's software global barrier, crossed reps times.
#include "lib/barrier.cuh"

// The barrier is the library's serial form of the monitor barrier,
// wg_monitor_sync_serial: thread 0 of each CTA crosses it while the rest
// of the CTA waits at the __syncthreads that follows; the monitor (CTA 0)
// polls the workers' flags one after another from its thread 0. (The
// library's WG_BARRIER_MONITOR, in grid_barrier.cu, polls them with every
// thread of CTA 0 and is called by whole CTAs.)

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
      if (!wg_monitor_sync_serial(arrive, release, r + 1, spin_budget, abort_flag))
        aborted = 1;
    }
    __syncthreads();
    if (aborted)
      return;
    if (threadIdx.x == 0 && wg_load_volatile(&counters[r]) != expected)
      atomicAdd(mismatches, 1u);
  }
}
