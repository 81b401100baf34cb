// barrier.cuh — grid barriers for fused (persistent) kernels, each under the
// spin protocol (kernels/README.md: a spin budget and an abort flag).
//
// A fused kernel (SIMD-X's push-pull or all fusion) runs every phase of
// every iteration in one launch and separates them with a barrier across
// the whole grid. Such a barrier completes only when every CTA of the grid
// is resident at once: with one CTA more, the resident ones spin while the
// missing one waits for an SM (SIMD-X's deadlock; the host sizes the grid
// with scheduler.CoResidentGrid). So every wait polls through
// wg_spin_give_up: a wait that runs out of budget raises *abort_flag, every
// other waiter leaves at its next poll, and wg_grid_sync returns false so
// the kernel can return cleanly; the host then reports a SpinBudgetError
// (scheduler.LaunchSpinning).
//
// ---- the kinds (one template instance each, chosen at compile time) -----
//
//   WG_BARRIER_MONITOR  SIMD-X / b40c: thread 0 of every worker CTA (1..G-1)
//                       sets its arrival flag (one word per CTA) and spins
//                       on the generation word; the monitor CTA (CTA 0)
//                       polls the flags with all its threads in parallel
//                       (thread t polls flags 1+t, 1+t+blockDim, ...),
//                       clears each one it saw, and its thread 0 releases
//                       by writing the next generation.
//   WG_BARRIER_COUNTER  one atomic arrival counter with sense reversal:
//                       thread 0 of each CTA adds 1; the last arriver
//                       resets the counter and flips the generation word,
//                       which the others spin on.
//   WG_BARRIER_TREE     a combining tree of counters of fan-in
//                       WG_BARRIER_TREE_FANIN (8), log-depth: the last of
//                       each node's children climbs to the parent (resetting
//                       the node); the last at the root writes the
//                       generation word, which every other CTA spins on.
//   WG_BARRIER_COOP     the barrier of a cooperative launch (the host sets
//                       LaunchConfig.Cooperative, so the driver refuses a
//                       grid that cannot be co-resident): one arrival word
//                       whose bit 31 is the sense. CTA 0 adds
//                       0x80000000 - (G-1), every other CTA adds 1, so bit
//                       31 flips exactly when the last CTA arrives, and each
//                       CTA waits until the word's bit 31 differs from the
//                       value its own atomic returned. The algorithm of
//                       CUDA's cooperative-groups grid sync, written here
//                       (this project has no cooperative-groups header).
//
// ---- the state buffer (uint32 words; the host allocates and zeroes it) --
//
// scheduler.BarrierStateWords(kind, grid) gives its size. Word 0 is the
// generation: how many barriers have completed since the buffer was zeroed
// (monitor, counter, tree; it stays 0 under coop). Words 1..63 are zero
// padding, so the polled generation word and the words that CTAs update
// with atomics lie 256 bytes apart: on different lines, and on different L2
// slices where addresses interleave over slices every 256 bytes (the
// simulated H100: with the two words on one slice, 2112 CTAs polling the
// generation starve the counter's atomics and a counter round takes 8x as
// long). Then, from word WG_BARRIER_HEADER_WORDS (64):
//
//   monitor  G words: the arrival flags, word 64+b for CTA b (CTA 0's is
//            unused). 1 = arrived; the monitor clears it to 0.
//            Size 64 + G.
//   counter  1 word: the arrival count. Size 65.
//   tree     the nodes, level by level from the leaves, each node's counter
//            at the start of its own WG_BARRIER_TREE_STRIDE (8) words (one
//            32-byte sector): level 0 has ceil(G/8) nodes (CTA b arrives at
//            node b/8), level l+1 has ceil(n_l/8), up to one root.
//            Size 64 + 8 * (total nodes).
//   coop     1 word: the arrival word (bit 31 the sense). Size 65.
//
// A launch that completes leaves the state ready for the next launch of
// the same grid size (counters back at 0, flags clear, the generation word
// read afresh by wg_grid_sync_begin), so a fused scheduler zeroes it once.
// After an aborted launch the state is meaningless: zero it again.
//
// ---- how a fused kernel uses it ----------------------------------------
//
//   extern "C" __global__ void x_fused(..., uint32_t *barrier_state,
//                                       uint32_t spin_budget, int *abort_flag) {
//     wg_grid_barrier<WG_BARRIER_COUNTER> bar(barrier_state, spin_budget, abort_flag);
//     for (...) {
//       phase_a(...);
//       if (!bar.sync()) return;     // every thread of every CTA calls it
//       phase_b(...);
//       if (!bar.sync()) return;
//     }
//   }
//
// or, without the struct, `uint32_t gen = wg_grid_sync_begin(state);` once
// at the start, then `wg_grid_sync<KIND>(state, &gen, spin_budget,
// abort_flag)` at every barrier. Rules:
//   - Every thread of every CTA calls it, the same number of times, from
//     CTA-uniform control flow (it contains __syncthreads).
//   - On false, leave the kernel (all threads of the CTA see the same
//     answer) and never call it again in this launch.
//   - The grid is one-dimensional; the block any size.
//   - It orders memory like __syncthreads does for a CTA, for the whole
//     grid: everything written before the barrier by any thread is visible
//     to every thread after it. Thread 0 fences (__threadfence) before it
//     arrives and after its wait, and __syncthreads joins the rest of the
//     CTA on both sides: the PTX memory model's release and acquire
//     patterns, so plain loads after the barrier see other CTAs' writes
//     from before it on hardware. The simulator's timing model (coherence
//     l1) invalidates L1 only between launches, not at fences: there a
//     plain load after the barrier may return a line its SM cached before
//     it. Until it does, read data that other CTAs wrote in an earlier
//     phase of the same launch with wg_load_volatile where the timing
//     simulation must be exact (functional mode is coherent).
//   - All polls use wg_load_volatile (strong loads, which bypass L1 on
//     hardware and in the simulator); releases use __threadfence and then
//     a volatile store or an atomic.
#ifndef WARPGRAPH_LIB_BARRIER_CUH
#define WARPGRAPH_LIB_BARRIER_CUH

#include "../warpgraph.h"

#define WG_BARRIER_MONITOR 0
#define WG_BARRIER_COUNTER 1
#define WG_BARRIER_TREE 2
#define WG_BARRIER_COOP 3

// The state buffer's header: word 0 the generation, then padding to 256
// bytes.
#define WG_BARRIER_HEADER_WORDS 64u
// The tree's fan-in and the words each node occupies.
#define WG_BARRIER_TREE_FANIN 8u
#define WG_BARRIER_TREE_STRIDE 8u

WG_DEV uint32_t wg_barrier_min(uint32_t a, uint32_t b) { return a < b ? a : b; }

// wg_wait_generation spins until *generation reaches target; false when the
// wait gave up (its budget ran out, or another wait raised the abort flag).
WG_DEV bool wg_wait_generation(const uint32_t *generation, uint32_t target,
                               uint32_t spin_budget, int *abort_flag) {
  uint32_t polls = 0;
  while (wg_load_volatile(generation) != target)
    if (wg_spin_give_up(&polls, spin_budget, abort_flag))
      return false;
  return true;
}

// wg_monitor_sync_serial is the SIMD-X monitor barrier as one thread per CTA
// crosses it (global_barrier.cu's form): thread 0 of each CTA calls it for
// generation gen (1, 2, ...) while the rest of the CTA waits at a
// __syncthreads that follows. Workers (blockIdx.x > 0) raise arrive[b] and
// wait for *release to reach gen; the monitor (CTA 0) waits for every
// worker's flag in turn, clears them all, then publishes gen. arrive holds
// gridDim.x words, *release one. Returns false when the caller must abort.
WG_DEV bool wg_monitor_sync_serial(uint32_t *arrive, uint32_t *release, uint32_t gen,
                                   uint32_t spin_budget, int *abort_flag) {
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

// wg_monitor_collect is the monitor CTA's side of WG_BARRIER_MONITOR, run by
// every thread of CTA 0: thread t waits for flags 1+t, 1+t+blockDim.x, ...,
// clearing each as it sees it; after a __syncthreads thread 0 releases
// generation target unless a wait gave up. Only thread 0's answer counts.
WG_DEV bool wg_monitor_collect(uint32_t *arrive, uint32_t *generation, uint32_t target,
                               uint32_t spin_budget, int *abort_flag) {
  uint32_t ctas = gridDim.x;
  for (uint32_t i = 1 + threadIdx.x; i < ctas; i += blockDim.x) {
    uint32_t polls = 0;
    bool gave_up = false;
    while (wg_load_volatile(&arrive[i]) == 0)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag)) {
        gave_up = true;
        break;
      }
    if (gave_up)
      break; // the abort flag is raised: thread 0 sees it below
    wg_store_volatile(&arrive[i], 0u);
  }
  __syncthreads(); // every flag seen and cleared, or a wait gave up
  if (threadIdx.x != 0)
    return true;
  if (wg_load_volatile(abort_flag) != 0)
    return false;
  __threadfence(); // the CTAs' work and the cleared flags before the release
  wg_store_volatile(generation, target);
  return true;
}

// wg_counter_arrive is WG_BARRIER_COUNTER for thread 0 of a CTA.
WG_DEV bool wg_counter_arrive(uint32_t *state, uint32_t target, uint32_t spin_budget,
                              int *abort_flag) {
  uint32_t *count = &state[WG_BARRIER_HEADER_WORDS];
  __threadfence(); // this CTA's work before its arrival
  if (atomicAdd(count, 1u) == gridDim.x - 1) {
    atomicExch(count, 0u); // no CTA arrives again before the release below
    __threadfence();
    wg_store_volatile(&state[0], target);
    return true;
  }
  return wg_wait_generation(&state[0], target, spin_budget, abort_flag);
}

// wg_tree_arrive is WG_BARRIER_TREE for thread 0 of a CTA: it climbs while
// it is the last child to arrive at a node.
WG_DEV bool wg_tree_arrive(uint32_t *state, uint32_t target, uint32_t spin_budget,
                           int *abort_flag) {
  uint32_t n = gridDim.x;  // members at this level
  uint32_t idx = blockIdx.x; // this CTA's member index at this level
  uint32_t *level = &state[WG_BARRIER_HEADER_WORDS];
  for (;;) {
    uint32_t nodes = (n + WG_BARRIER_TREE_FANIN - 1) / WG_BARRIER_TREE_FANIN;
    uint32_t node = idx / WG_BARRIER_TREE_FANIN;
    uint32_t children = wg_barrier_min(WG_BARRIER_TREE_FANIN, n - node * WG_BARRIER_TREE_FANIN);
    uint32_t *count = &level[node * WG_BARRIER_TREE_STRIDE];
    __threadfence(); // everything this CTA (and the subtree it stands for) saw
    if (atomicAdd(count, 1u) != children - 1)
      break; // not the last here: wait for the release
    atomicExch(count, 0u);
    if (nodes == 1) { // the last arrival at the root
      __threadfence();
      wg_store_volatile(&state[0], target);
      return true;
    }
    idx = node;
    level += nodes * WG_BARRIER_TREE_STRIDE;
    n = nodes;
  }
  return wg_wait_generation(&state[0], target, spin_budget, abort_flag);
}

// wg_coop_arrive is WG_BARRIER_COOP for thread 0 of a CTA.
WG_DEV bool wg_coop_arrive(uint32_t *state, uint32_t spin_budget, int *abort_flag) {
  uint32_t *word = &state[WG_BARRIER_HEADER_WORDS];
  uint32_t add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
  __threadfence();
  uint32_t old = atomicAdd(word, add);
  uint32_t polls = 0;
  while (((old ^ wg_load_volatile(word)) & 0x80000000u) == 0)
    if (wg_spin_give_up(&polls, spin_budget, abort_flag))
      return false;
  return true;
}

// wg_grid_sync_begin returns the generation to start a launch's count of
// barriers from (read once per thread, before the first wg_grid_sync: it
// cannot change before this CTA arrives).
WG_DEV uint32_t wg_grid_sync_begin(const uint32_t *state) { return wg_load_volatile(&state[0]); }

// wg_grid_sync crosses a grid barrier of kind KIND. Every thread of every
// CTA calls it with its own copy of the generation (*generation_local,
// from wg_grid_sync_begin, advanced here). It returns true for every thread
// once every CTA has arrived, and false for every thread of the CTA when a
// wait gave up (the kernel must then return). spin_budget 0 = unbounded
// (simulator only).
template <int KIND>
WG_DEV bool wg_grid_sync(uint32_t *state, uint32_t *generation_local, uint32_t spin_budget,
                         int *abort_flag) {
  static_assert(KIND >= WG_BARRIER_MONITOR && KIND <= WG_BARRIER_COOP, "unknown barrier kind");
  // Thread 0's verdict, written between this call's two __syncthreads and
  // read after the second: the first __syncthreads of the next call keeps
  // the next write from racing with this call's reads.
  __shared__ uint32_t aborted;
  uint32_t target = *generation_local + 1;
  *generation_local = target;
  __syncthreads(); // the CTA's work of this phase is done
  bool ok = true;
  if (KIND == WG_BARRIER_MONITOR && blockIdx.x == 0) {
    ok = wg_monitor_collect(&state[WG_BARRIER_HEADER_WORDS], &state[0], target, spin_budget,
                            abort_flag);
  } else if (threadIdx.x == 0) {
    if (KIND == WG_BARRIER_MONITOR) {
      __threadfence();
      wg_store_volatile(&state[WG_BARRIER_HEADER_WORDS + blockIdx.x], 1u);
      ok = wg_wait_generation(&state[0], target, spin_budget, abort_flag);
    } else if (KIND == WG_BARRIER_COUNTER) {
      ok = wg_counter_arrive(state, target, spin_budget, abort_flag);
    } else if (KIND == WG_BARRIER_TREE) {
      ok = wg_tree_arrive(state, target, spin_budget, abort_flag);
    } else {
      ok = wg_coop_arrive(state, spin_budget, abort_flag);
    }
  }
  if (threadIdx.x == 0) {
    if (ok)
      __threadfence(); // nothing of the next phase is read before the release
    aborted = ok ? 0u : 1u;
  }
  __syncthreads();
  return aborted == 0;
}

// wg_grid_barrier bundles a barrier's arguments and the thread's
// generation: construct it at the top of the kernel (every thread), then
// `if (!bar.sync()) return;` at every barrier.
template <int KIND> struct wg_grid_barrier {
  uint32_t *state;
  uint32_t generation;
  uint32_t spin_budget;
  int *abort_flag;
  __device__ wg_grid_barrier(uint32_t *state_, uint32_t spin_budget_, int *abort_flag_)
      : state(state_), generation(wg_grid_sync_begin(state_)), spin_budget(spin_budget_),
        abort_flag(abort_flag_) {}
  __device__ bool sync() { return wg_grid_sync<KIND>(state, &generation, spin_budget, abort_flag); }
};

#endif // WARPGRAPH_LIB_BARRIER_CUH
