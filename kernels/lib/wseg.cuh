// wseg.cuh — two work mappings for the pull over in-edges (CuSha authors'
// warp segmentation, and the virtual-warp-centric baseline it is measured
// against), over the ACC contract's pull members. Every sweep visits every
// vertex; the host repeats sweeps until no vertex stays active.
//
// Warp segmentation (entries <algorithm>_wseg_base_pull). A warp takes a
// group of 32 consecutive vertices — lane j owns vertex 32*group + j — and
// walks the group's in-edges, which are contiguous in the CSR, 32 at a time
// (a "round"), so every lane of a round holds one edge whoever owns it:
//   1. search: each lane finds the owner of its edge with a binary search
//      over the group's row offsets. The offsets sit in the lanes' registers
//      (lane j holds vertex j's first edge), so the five search steps are
//      shuffles, not memory reads.
//   2. segmented reduction: the lanes of one owner form a contiguous
//      segment; an inclusive scan with __shfl_up_sync, each lane adding only
//      what lies inside its own segment (its index inside the segment bounds
//      the offsets), leaves the segment's total in its last lane. No shared
//      memory, no atomics.
//   3. each owner lane reads its segment's total from that lane (one
//      __shfl_sync) and folds it into its accumulator: a vertex with more
//      in-edges than a warp spans several rounds and is folded once per
//      round; a vertex without in-edges owns no lane of any round and
//      applies the identity.
// Rounds skip edges nobody needs: edges of vertices that do not pull this
// sweep, and, for voting algorithms, edges of vertices already settled
// (pull_done), so a warp stops as soon as each of its vertices is settled
// or out of edges. Groups are dealt to warps grid-stride; a group holding a
// hub takes as many rounds as the hub has in-edges / 32 — the mapping
// balances lanes inside a warp, not work across warps.
//
// Virtual warps (entries <algorithm>_vwc_k<K>_pull, K = 2 ... 32): a warp
// is 32/K virtual warps of K lanes, each owning one vertex; its lanes stride
// over the vertex's in-edges and reduce with __shfl_xor_sync inside the K
// lanes. A warp runs as long as its longest vertex needs, so lanes idle
// when degrees differ within a warp (too many lanes for small vertices, too
// few for large ones): the baseline's inefficiency. Voting lanes stop on
// their own once their partial value settles the vertex.
//
// Both count the vertices left active (combine_pull's answer) into
// *active_count with one atomic per warp, and call finish() once per
// thread, converged, after the thread's last vertex.
#ifndef WARPGRAPH_LIB_WSEG_CUH
#define WARPGRAPH_LIB_WSEG_CUH

#include "acc.cuh"

// A sweep's span: the rows of the CSR it walks and the vertex each row is.
// wg_whole_graph is the single-GPU sweep (row v is vertex v, nothing to
// report); wg_part_sweep is one device's part of a partitioned graph
// (below). changed(row, v, take) is called by all 32 lanes of a warp
// after each step, take saying whether the lane's vertex changed.
struct wg_whole_graph {
  uint32_t rows;
  __device__ uint32_t vertex(uint32_t row) const { return row; }
  __device__ uint32_t vertex_if(uint32_t row, bool) const { return row; }
  __device__ void changed(uint32_t, uint32_t, bool) const {}
};

// wg_part_sweep: the device holds the in-edges of the vertices it owns, a
// CSR with one row per owned vertex (owned[row] is its vertex id), and
// every vertex's value (meta0, 32-bit) — its own and the copies of the
// others'. What it records of a changed vertex, for the exchange methods
// (scheduler/mgpu.go):
//   stamps (vr-offline), when not null: stamps[v] = stamp.
//   outbox (vr-online), when not null: a changed vertex whose send mask
//   (send_mask[row], bit j: part j reads it) names part j is appended to
//   part j's outbox as the pair (v, value): per part, the warp ballots the
//   lanes that send, one lane reserves their slots with one atomicAdd on
//   outbox_count[j], and each lane writes at the reserved base plus its
//   rank among them. Part j's pairs start at outbox + 2*j*capacity; a
//   part's capacity is the number of vertices that may send to it, which
//   a sweep never exceeds (each row changes once per sweep).
struct wg_part_sweep {
  uint32_t rows;
  const uint32_t *owned;
  const uint32_t *values;
  uint32_t *stamps;
  uint32_t stamp;
  const uint32_t *send_mask;
  uint32_t *outbox_count;
  uint32_t *outbox;
  uint32_t capacity;
  uint32_t parts;
  __device__ uint32_t vertex(uint32_t row) const { return owned[row]; }
  // vertex_if is the row's vertex where the row exists (owns), anything else
  // otherwise: the callers use it only where owns holds.
  __device__ uint32_t vertex_if(uint32_t row, bool owns) const { return owns ? owned[row] : 0u; }
  __device__ void changed(uint32_t row, uint32_t v, bool take) const {
    if (stamps != nullptr && take)
      stamps[v] = stamp;
    if (outbox == nullptr)
      return;
    uint32_t mask = take ? send_mask[row] : 0u;
    if (__ballot_sync(WG_FULL_MASK, mask != 0) == 0)
      return;
    uint32_t lane = wg_lane_id();
    for (uint32_t j = 0; j < parts; ++j) {
      bool sends = mask >> j & 1u;
      uint32_t lanes = __ballot_sync(WG_FULL_MASK, sends);
      if (lanes == 0)
        continue;
      uint32_t leader = __ffs(lanes) - 1, base = 0;
      if (lane == leader)
        base = atomicAdd(&outbox_count[j], (uint32_t)__popc(lanes));
      base = __shfl_sync(WG_FULL_MASK, base, leader);
      uint32_t slot = base + __popc(lanes & wg_lanemask_lt());
      if (sends && slot < capacity) {
        uint32_t *pair = outbox + 2 * ((unsigned long long)j * capacity + slot);
        pair[0] = v;
        pair[1] = values[v];
      }
    }
  }
};

// wg_wseg_gather reduces the in-edges of the warp's group of 32 vertices
// into acc, in the lane that owns each vertex. start and end are the owned
// vertex's edge range (empty for lanes past the last vertex), gathering has
// bit j set for lane j's vertex when it pulls and has in-edges.
template <typename ALG, typename SPAN>
WG_DEV typename ALG::value_t wg_wseg_gather(ALG &alg, const wg_graph &g, const SPAN &span, uint32_t group_base,
                                            uint32_t start, uint32_t end, uint32_t gathering) {
  typedef typename ALG::value_t V;
  uint32_t lane = wg_lane_id();
  V acc = alg.identity();
  if (gathering == 0)
    return acc;
  // The first round starts at the first edge of the first vertex that
  // gathers (uniform: every lane reads the same lane's start).
  uint32_t round = __shfl_sync(WG_FULL_MASK, start, __ffs(gathering) - 1);
  uint32_t group_end = __shfl_sync(WG_FULL_MASK, end, warpSize - 1);
  for (;;) {
    uint32_t round_end;
    // A round that lies inside one vertex's edges needs no search and no
    // segments: the warp strides over all of that vertex's full rounds,
    // each lane summing privately, and reduces once (the hub's path).
    uint32_t inside = __ballot_sync(WG_FULL_MASK, (gathering >> lane & 1u) && start <= round && end >= round + warpSize);
    if (inside != 0) {
      uint32_t owner = __ffs(inside) - 1;
      uint32_t owner_end = __shfl_sync(WG_FULL_MASK, end, owner);
      round_end = round + (owner_end - round) / warpSize * warpSize;
      V x = alg.identity();
      // Every lane makes the same number of trips, so the warp can vote
      // to stop once any lane's partial settles the vertex.
      for (uint32_t e = round + lane; e < round_end; e += warpSize) {
        V update;
        if (alg.compute(g.targets[e], span.vertex(group_base + owner), g.weight(e), &update))
          x = alg.reduce(x, update);
        if (ALG::kind == WG_VOTING && __any_sync(WG_FULL_MASK, alg.pull_done(x)))
          break;
      }
      for (uint32_t offset = warpSize / 2; offset > 0; offset /= 2)
        x = alg.reduce(x, __shfl_xor_sync(WG_FULL_MASK, x, (int)offset));
      if (lane == owner)
        acc = alg.reduce(acc, x);
    } else {
      round_end = round + warpSize;
      uint32_t e = round + lane;
      // The owner of edge e: the last lane whose first edge is at or
      // before e. Lanes past the group's edges find some lane too and are
      // masked.
      uint32_t owner = 0;
      for (uint32_t step = warpSize / 2; step > 0; step /= 2) {
        uint32_t first = __shfl_sync(WG_FULL_MASK, start, owner + step);
        if (first <= e)
          owner += step;
      }
      uint32_t owner_start = __shfl_sync(WG_FULL_MASK, start, owner);
      V x = alg.identity();
      if (e < group_end && (gathering >> owner & 1u)) {
        V update;
        if (alg.compute(g.targets[e], span.vertex(group_base + owner), g.weight(e), &update))
          x = update;
      }
      // Index inside the segment: how many lanes of this round precede
      // this one with the same owner.
      uint32_t index = lane - (owner_start > round ? owner_start - round : 0u);
      for (uint32_t offset = 1; offset < warpSize; offset *= 2) {
        V below = __shfl_up_sync(WG_FULL_MASK, x, offset);
        if (index >= offset)
          x = alg.reduce(x, below);
      }
      // Each owner with edges in this round reads its segment's last lane.
      bool mine = (gathering >> lane & 1u) && start < round_end && end > round;
      uint32_t last = mine ? (end < round_end ? end : round_end) - 1u - round : lane;
      V total = __shfl_sync(WG_FULL_MASK, x, last);
      if (mine)
        acc = alg.reduce(acc, total);
    }
    bool more = (gathering >> lane & 1u) && end > round_end && !(ALG::kind == WG_VOTING && alg.pull_done(acc));
    gathering = __ballot_sync(WG_FULL_MASK, more);
    if (gathering == 0)
      return acc;
    // Skip to the next edge someone still needs.
    uint32_t next = __shfl_sync(WG_FULL_MASK, start, __ffs(gathering) - 1);
    round = next > round_end ? next : round_end;
  }
}

template <typename ALG, typename SPAN>
WG_DEV void wg_wseg_pull(WG_ACC_PARAMS, uint32_t *active_count, SPAN span) {
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  uint32_t lane = wg_lane_id();
  uint32_t warps = gridDim.x * blockDim.x / warpSize;
  uint32_t rows = span.rows;
  uint32_t groups = (rows + warpSize - 1) / warpSize;
  uint32_t active = 0;
  // The loop bound is uniform across the warp: the gather's shuffles and
  // the count's ballot need all 32 lanes.
  for (uint32_t group = wg_global_id() / warpSize; group < groups; group += warps) {
    uint32_t group_base = group * warpSize;
    uint32_t row = group_base + lane;
    bool owns = row < rows;
    uint32_t v = span.vertex_if(row, owns);
    // Lanes past the last row hold an empty range at the edges' end,
    // keeping the starts sorted for the search.
    uint32_t start = g.offsets[owns ? row : rows];
    uint32_t end = owns ? g.offsets[row + 1] : start;
    bool pulls = owns && alg.wants_pull(v);
    uint32_t gathering = __ballot_sync(WG_FULL_MASK, pulls && end > start);
    typename ALG::value_t acc = wg_wseg_gather(alg, g, span, group_base, start, end, gathering);
    bool take = pulls && alg.combine_pull(v, acc);
    active += __popc(__ballot_sync(WG_FULL_MASK, take));
    span.changed(row, v, take);
  }
  alg.finish();
  if (lane == 0 && active > 0)
    atomicAdd(active_count, active);
}

template <typename ALG, uint32_t K, typename SPAN>
WG_DEV void wg_vwc_pull(WG_ACC_PARAMS, uint32_t *active_count, SPAN span) {
  typedef typename ALG::value_t V;
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  uint32_t lane = wg_lane_id(), sub = lane % K;
  const uint32_t per_warp = warpSize / K;
  uint32_t warps = gridDim.x * blockDim.x / warpSize;
  uint32_t active = 0;
  for (uint32_t base = wg_global_id() / warpSize * per_warp; base < span.rows; base += warps * per_warp) {
    uint32_t row = base + lane / K;
    bool owns = row < span.rows;
    uint32_t v = span.vertex_if(row, owns);
    bool pulls = owns && alg.wants_pull(v);
    V acc = alg.identity();
    if (pulls) {
      uint32_t e = g.begin(row) + sub, end = g.end(row);
      bool done = false;
      // Four edges a step: their index loads, then their value loads, then
      // the reduction. That is the schedule ptxas gives the one-edge loop
      // on the GPU (it unrolls it and issues the loads early); it is
      // written out because the simulator runs clang's PTX, where a warp
      // would wait out each edge's two dependent loads in turn and the
      // warp holding a hub, which every launch waits for, took ~2.5x the
      // H100's time (sim/configs/README.md, "Load hoisting").
      for (; !done && e + 3 * K < end; e += 4 * K) {
        uint32_t src[4], weight[4];
        V update[4];
        bool proposes[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          src[i] = g.targets[e + i * K];
          weight[i] = g.weight(e + i * K);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
          proposes[i] = alg.compute(src[i], v, weight[i], &update[i]);
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (proposes[i])
            acc = alg.reduce(acc, update[i]);
        done = ALG::kind == WG_VOTING && alg.pull_done(acc);
      }
      for (; !done && e < end; e += K) {
        V update;
        if (alg.compute(g.targets[e], v, g.weight(e), &update)) {
          acc = alg.reduce(acc, update);
          if (ALG::kind == WG_VOTING && alg.pull_done(acc))
            break;
        }
      }
    }
    // The xor offsets below K keep each exchange inside its virtual warp.
    for (uint32_t offset = K / 2; offset > 0; offset /= 2)
      acc = alg.reduce(acc, __shfl_xor_sync(WG_FULL_MASK, acc, (int)offset));
    bool take = pulls && sub == 0 && alg.combine_pull(v, acc);
    active += __popc(__ballot_sync(WG_FULL_MASK, take));
    span.changed(row, v, take);
  }
  alg.finish();
  if (lane == 0 && active > 0)
    atomicAdd(active_count, active);
}

#define WG_VWC_ENTRY(NAME, ALG, K)                                                                 \
  extern "C" __global__ void NAME##_vwc_k##K##_pull(WG_ACC_PARAMS, uint32_t *active_count) {       \
    wg_vwc_pull<ALG, K>(WG_ACC_ARGS, active_count, wg_whole_graph{num_vertices});                                                \
  }

#define WG_WSEG_ENTRIES(NAME, ALG)                                                                 \
  extern "C" __global__ void NAME##_wseg_base_pull(WG_ACC_PARAMS, uint32_t *active_count) {        \
    wg_wseg_pull<ALG>(WG_ACC_ARGS, active_count, wg_whole_graph{num_vertices});                                                  \
  }                                                                                                \
  WG_VWC_ENTRY(NAME, ALG, 2)                                                                       \
  WG_VWC_ENTRY(NAME, ALG, 4)                                                                       \
  WG_VWC_ENTRY(NAME, ALG, 8)                                                                       \
  WG_VWC_ENTRY(NAME, ALG, 16)                                                                      \
  WG_VWC_ENTRY(NAME, ALG, 32)

#endif // WARPGRAPH_LIB_WSEG_CUH
