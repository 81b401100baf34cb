// grid_barrier.cu — the grid barriers of lib/barrier.cuh (monitor, counter,
// tree, coop), each crossed `rounds` times with a checkable counter per
// round: the microbenchmark of their cost and of their deadlock boundary.
#include "lib/barrier.cuh"

// grid_barrier_rounds crosses barrier KIND rounds times. In round r
// (0 <= r < rounds) the last thread of CTA b adds b+1 to counters[r]
// (atomically), then the whole grid crosses the barrier, then that thread
// reads counters[r] back: with a correct barrier every CTA has added by
// then, so it must equal G(G+1)/2 (mod 2^32) for a grid of G CTAs; each
// CTA that sees another value adds 1 to *mismatches. The adding and
// checking thread is not thread 0, which runs the barrier's protocol (in
// blocks of more than one thread): the barrier must order the whole CTA.
// One atomic per CTA per round, as in global_barrier, so that the round's
// cost is the barrier's.
template <int KIND>
WG_DEV void grid_barrier_rounds(uint32_t *state, uint32_t *counters, uint32_t *mismatches,
                                uint32_t rounds, uint32_t spin_budget, int *abort_flag) {
  wg_grid_barrier<KIND> bar(state, spin_budget, abort_flag);
  uint32_t ctas = gridDim.x;
  uint32_t expected = ctas * (ctas + 1) / 2;
  bool checker = threadIdx.x == blockDim.x - 1;
  for (uint32_t r = 0; r < rounds; ++r) {
    if (checker)
      atomicAdd(&counters[r], blockIdx.x + 1);
    if (!bar.sync())
      return;
    if (checker && wg_load_volatile(&counters[r]) != expected)
      atomicAdd(mismatches, 1u);
  }
}

// grid_barrier_<kind> runs grid_barrier_rounds with that barrier.
//
// Parameters:
//   state        the barrier's state (layout in lib/barrier.cuh; size
//                scheduler.BarrierStateWords(kind, G) uint32 words); zero
//                before the first launch. A launch that completes leaves it
//                ready for the next launch with the same G (generation word
//                = barriers crossed so far, except under coop).
//   counters     rounds uint32 words; zero before launch.
//   mismatches   1 uint32; zero before launch.
//   rounds       barrier crossings.
//   spin_budget  polls each wait may make before it gives up and raises
//                *abort_flag; 0 = unbounded (simulator only: on hardware a
//                grid larger than what is co-resident would hang forever).
//   abort_flag   1 int; zero before launch. Set to 1 by the first wait that
//                runs out of budget; every wait then leaves promptly.
// Launch: a one-dimensional grid and block (any sizes). It completes only
// when all G CTAs are co-resident; otherwise a finite budget makes it abort
// instead of hanging. grid_barrier_coop is meant for a cooperative launch
// (LaunchConfig.Cooperative), which the driver refuses when the grid cannot
// be co-resident; the others are launched normally.
// Driver checks, in this order: *abort_flag == 0 (else report a
// SpinBudgetError: the barrier deadlocked and the other results are
// meaningless); *mismatches == 0; counters[r] == G(G+1)/2 for every r;
// the state as scheduler.CheckBarrierState describes it after `rounds`
// crossings more.
// Not idempotent (the counters accumulate): the driver zeroes the counters
// and mismatches before every launch.
extern "C" __global__ void grid_barrier_monitor(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag) {
  grid_barrier_rounds<WG_BARRIER_MONITOR>(state, counters, mismatches, rounds, spin_budget, abort_flag);
}

extern "C" __global__ void grid_barrier_counter(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag) {
  grid_barrier_rounds<WG_BARRIER_COUNTER>(state, counters, mismatches, rounds, spin_budget, abort_flag);
}

extern "C" __global__ void grid_barrier_tree(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag) {
  grid_barrier_rounds<WG_BARRIER_TREE>(state, counters, mismatches, rounds, spin_budget, abort_flag);
}

extern "C" __global__ void grid_barrier_coop(uint32_t *state, uint32_t *counters, uint32_t *mismatches, uint32_t rounds, uint32_t spin_budget, int *abort_flag) {
  grid_barrier_rounds<WG_BARRIER_COOP>(state, counters, mismatches, rounds, spin_budget, abort_flag);
}
