// edge.cuh — the edge-centric scheduler (WolfGraph): every iteration
// sweeps the whole edge list, one CTA per edge block and one thread per
// edge, and combines each destination's updates with the algorithm's pull
// members (identity / reduce / combine_pull), so every ACC algorithm with a
// pull form runs under it unchanged.
//
// The edge list is the in-edge CSR read as a COO sorted by destination:
// edge e has source col_indices[e] and weight edge_weights[e] (both read
// coalesced, thread i of a block reading edge begin+i). The host cuts it
// into edge blocks (scheduler/edge.go), each a run of at most blockDim
// edges whose destinations form one contiguous vertex range; every vertex
// belongs to the range of at least one block, even without in-edges (its
// combine_pull must still run: PageRank's teleport share). A vertex whose
// in-edges do not fit one block is *split*: it is the last vertex of one
// block, the first of the next, possibly the only vertex of blocks in
// between. A block descriptor is WG_EDGE_DESC words:
//   [0] first edge  [1] end edge  [2] first vertex  [3] end vertex
//   [4] spill index of the first vertex, or WG_EDGE_OWNED
//   [5] spill index of the last vertex, or WG_EDGE_OWNED
//
// Variants (entries <algorithm>_edge_<cache>_<phase>):
//   shared  each CTA reduces its edges' updates into a vertex-value array
//           in shared memory, one slot per vertex of its range, through
//           the precomputed shared-index array edge_slot (edge_slot[e] is
//           the destination minus the block's first vertex); then, after
//           __syncthreads, the block writes its values back: owned vertices
//           through combine_pull (plain stores, no atomics), split vertices
//           by one global atomic reduce into the spill array, which the
//           apply phase combines once the whole sweep is done.
//   global  the baseline: every update is a global atomic reduce into an
//           accumulator per vertex, and the apply phase combines them all.
//
// Phases:
//   sweep   one CTA per edge block (above).
//   apply   grid-stride over a vertex list (or every vertex): combine_pull
//           of the accumulated value, which it resets to the identity.
//   clear   grid-stride: fill an accumulator array with the identity.
//   census  one CTA per edge block: counts, without changing any state, the
//           edges of each slot that propose an update now, and records the
//           largest count (the synchronisation degree: most threads of one
//           CTA hitting one address) and the number of proposals. It is a
//           measurement, launched before a sweep, not part of the sweep.
//
// Atomic reduce (wg_edge_reduce_atomic): the algorithm's native atomic
// where its reduce_atomic names one (atomicMin for BFS, SSSP and WCC,
// atomicMax for SSWP, a float atomicAdd for PageRank), as WolfGraph
// updates its cache; a min or max reads first and skips the atomic when it
// would not change the value, so voting algorithms issue fewer atomics
// than updates. An algorithm without one gets a compare-and-swap loop over
// reduce on the value's 32 bits, with the same read-first skip. The loop is
// lock-free, not a wait: a failed CAS means another thread's succeeded, so
// a contended address finishes after at most one round per contender and
// needs no spin budget.
#ifndef WARPGRAPH_LIB_EDGE_CUH
#define WARPGRAPH_LIB_EDGE_CUH

#include "acc.cuh"

// WG_EDGE_SLOTS bounds a block's vertex range (the shared array's length,
// 4 KiB of 32-bit values); scheduler/edge.go's edgeMaxSlots must match.
#define WG_EDGE_SLOTS 1024
#define WG_EDGE_DESC 6
#define WG_EDGE_OWNED 0xFFFFFFFFu

template <typename ALG>
WG_DEV void wg_edge_reduce_atomic(const ALG &alg, typename ALG::value_t *p, typename ALG::value_t update) {
  typedef typename ALG::value_t V;
  static_assert(sizeof(V) == sizeof(uint32_t), "edge.cuh reduces 32-bit values");
  if constexpr (ALG::reduce_atomic == WG_ATOMIC_MIN) {
    if (update < wg_load_volatile(p))
      atomicMin(p, update);
  } else if constexpr (ALG::reduce_atomic == WG_ATOMIC_MAX) {
    if (update > wg_load_volatile(p))
      atomicMax(p, update);
  } else if constexpr (ALG::reduce_atomic == WG_ATOMIC_ADD) {
    atomicAdd(p, update);
  } else {
    uint32_t *word = (uint32_t *)p;
    uint32_t seen = wg_load_volatile(word);
    for (;;) {
      uint32_t want = __builtin_bit_cast(uint32_t, alg.reduce(__builtin_bit_cast(V, seen), update));
      if (want == seen)
        return;
      uint32_t before = atomicCAS(word, seen, want);
      if (before == seen)
        return;
      seen = before;
    }
  }
}

// wg_edge_warp_count adds the warp's takers to *count with one atomic; all
// 32 lanes call it together.
WG_DEV void wg_edge_warp_count(bool take, uint32_t *count) {
  uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
  if (takers != 0 && wg_lane_id() == 0)
    atomicAdd(count, (uint32_t)__popc(takers));
}

template <typename ALG>
WG_DEV void wg_edge_sweep_shared(WG_ACC_PARAMS, const uint32_t *edge_slot, const uint32_t *blocks, void *spill_,
                                 uint32_t *active_count) {
  typedef typename ALG::value_t V;
  __shared__ V cache[WG_EDGE_SLOTS];
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  V *spill = (V *)spill_;
  const uint32_t *desc = blocks + WG_EDGE_DESC * blockIdx.x;
  uint32_t edge_end = desc[1], first = desc[2], slots = desc[3] - desc[2];
  for (uint32_t s = threadIdx.x; s < slots; s += blockDim.x)
    cache[s] = alg.identity();
  __syncthreads();
  uint32_t e = desc[0] + threadIdx.x;
  if (e < edge_end) {
    uint32_t slot = edge_slot[e];
    V update;
    if (alg.compute(g.targets[e], first + slot, g.weight(e), &update))
      wg_edge_reduce_atomic(alg, &cache[slot], update);
  }
  __syncthreads();
  // Write-back: only the range's ends can be split; the loop bound is
  // uniform across a warp, so it stays converged for the count's ballot.
  for (uint32_t base = threadIdx.x - wg_lane_id(); base < slots; base += blockDim.x) {
    uint32_t s = base + wg_lane_id();
    bool take = false;
    if (s < slots) {
      uint32_t spilled = s == 0 ? desc[4] : WG_EDGE_OWNED;
      if (s == slots - 1 && desc[5] != WG_EDGE_OWNED)
        spilled = desc[5];
      if (spilled != WG_EDGE_OWNED)
        wg_edge_reduce_atomic(alg, &spill[spilled], cache[s]);
      else if (alg.wants_pull(first + s))
        take = alg.combine_pull(first + s, cache[s]);
    }
    wg_edge_warp_count(take, active_count);
  }
  alg.finish();
}

template <typename ALG>
WG_DEV void wg_edge_sweep_global(WG_ACC_PARAMS, const uint32_t *edge_dst, const uint32_t *blocks, void *acc_) {
  typedef typename ALG::value_t V;
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  V *acc = (V *)acc_;
  const uint32_t *desc = blocks + WG_EDGE_DESC * blockIdx.x;
  uint32_t e = desc[0] + threadIdx.x;
  if (e < desc[1]) {
    uint32_t dst = edge_dst[e];
    V update;
    if (alg.compute(g.targets[e], dst, g.weight(e), &update))
      wg_edge_reduce_atomic(alg, &acc[dst], update);
  }
}

// wg_edge_apply combines acc[i] into vertex vertices[i] (vertex i when
// vertices is null) for i < count, resetting acc[i] to the identity for the
// next sweep, and counts the vertices that stay active.
template <typename ALG>
WG_DEV void wg_edge_apply(WG_ACC_PARAMS, const uint32_t *vertices, uint32_t count, void *acc_,
                          uint32_t *active_count) {
  typedef typename ALG::value_t V;
  ALG alg(WG_ACC_META);
  V *acc = (V *)acc_;
  uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t base = wg_global_id() - wg_lane_id(); base < count; base += stride) {
    uint32_t i = base + wg_lane_id();
    bool take = false;
    if (i < count) {
      uint32_t v = vertices ? vertices[i] : i;
      V value = acc[i];
      acc[i] = alg.identity();
      if (alg.wants_pull(v))
        take = alg.combine_pull(v, value);
    }
    wg_edge_warp_count(take, active_count);
  }
  alg.finish();
}

template <typename ALG> WG_DEV void wg_edge_clear(WG_ACC_PARAMS, void *acc_, uint32_t count) {
  typedef typename ALG::value_t V;
  ALG alg(WG_ACC_META);
  V *acc = (V *)acc_;
  for (uint32_t i = wg_global_id(); i < count; i += gridDim.x * blockDim.x)
    acc[i] = alg.identity();
}

// wg_edge_census: census[0] gets the largest number of proposing edges of
// one block with one destination (atomicMax), census[1] the proposals.
template <typename ALG>
WG_DEV void wg_edge_census(WG_ACC_PARAMS, const uint32_t *edge_slot, const uint32_t *blocks, uint32_t *census) {
  __shared__ uint32_t proposals[WG_EDGE_SLOTS];
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  const uint32_t *desc = blocks + WG_EDGE_DESC * blockIdx.x;
  uint32_t first = desc[2], slots = desc[3] - desc[2];
  for (uint32_t s = threadIdx.x; s < slots; s += blockDim.x)
    proposals[s] = 0;
  __syncthreads();
  uint32_t e = desc[0] + threadIdx.x;
  bool proposes = false;
  if (e < desc[1]) {
    uint32_t slot = edge_slot[e];
    typename ALG::value_t update;
    proposes = alg.compute(g.targets[e], first + slot, g.weight(e), &update);
    if (proposes)
      atomicAdd(&proposals[slot], 1u);
  }
  wg_edge_warp_count(proposes, &census[1]);
  __syncthreads();
  uint32_t most = 0;
  for (uint32_t s = threadIdx.x; s < slots; s += blockDim.x)
    most = wg_max(most, proposals[s]);
  if (most != 0)
    atomicMax(&census[0], most);
}

#define WG_EDGE_COMMON_ENTRIES(NAME, ALG, CACHE)                                                   \
  extern "C" __global__ void NAME##_edge_##CACHE##_apply(WG_ACC_PARAMS, const uint32_t *vertices,  \
                                                         uint32_t count, void *acc,                 \
                                                         uint32_t *active_count) {                  \
    wg_edge_apply<ALG>(WG_ACC_ARGS, vertices, count, acc, active_count);                           \
  }                                                                                                 \
  extern "C" __global__ void NAME##_edge_##CACHE##_clear(WG_ACC_PARAMS, void *acc, uint32_t count) { \
    wg_edge_clear<ALG>(WG_ACC_ARGS, acc, count);                                                   \
  }                                                                                                 \
  extern "C" __global__ void NAME##_edge_##CACHE##_census(WG_ACC_PARAMS, const uint32_t *edge_slot, \
                                                          const uint32_t *blocks, uint32_t *census) { \
    wg_edge_census<ALG>(WG_ACC_ARGS, edge_slot, blocks, census);                                    \
  }

#define WG_EDGE_ENTRIES(NAME, ALG)                                                                 \
  extern "C" __global__ void NAME##_edge_shared_sweep(WG_ACC_PARAMS, const uint32_t *edge_slot,     \
                                                      const uint32_t *blocks, void *spill,          \
                                                      uint32_t *active_count) {                     \
    wg_edge_sweep_shared<ALG>(WG_ACC_ARGS, edge_slot, blocks, spill, active_count);               \
  }                                                                                                 \
  extern "C" __global__ void NAME##_edge_global_sweep(WG_ACC_PARAMS, const uint32_t *edge_dst,      \
                                                      const uint32_t *blocks, void *acc) {          \
    wg_edge_sweep_global<ALG>(WG_ACC_ARGS, edge_dst, blocks, acc);                                 \
  }                                                                                                 \
  WG_EDGE_COMMON_ENTRIES(NAME, ALG, shared)                                                        \
  WG_EDGE_COMMON_ENTRIES(NAME, ALG, global)

#endif // WARPGRAPH_LIB_EDGE_CUH
