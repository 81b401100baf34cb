// mgpu.cuh — one device's sweep of a partitioned graph, for the multi-GPU
// driver (scheduler/mgpu.go): the device's rows are its own vertices, with
// their in-edges (wg_part_sweep in wseg.cuh); meta0 holds every vertex's
// value.
//
// Hubs. Warp segmentation and virtual warps give all of a vertex's in-edges
// to one warp, so a sweep lasts at least as long as one warp takes to walk
// the largest vertex's edges, however the vertices are split. A device's
// rows from hub_first on are its hubs (vertices with many in-edges, listed
// last by the host); the sweep proper covers the rows before them, and
// three more entries split the hubs' edges over many warps:
//   hub_init    acc[h] = identity, a thread per hub.
//   hub_gather  a warp per chunk of WG_HUB_CHUNK edges of one hub
//               (chunk_start[h] is hub h's first chunk, chunk_start[hubs]
//               the total): compute and reduce over the chunk, then fold
//               the warp's value into acc[h] with the algorithm's native
//               atomic (edge.cuh's wg_edge_reduce_atomic).
//   hub_apply   a thread per hub: combine_pull(v, acc[h]), counting and
//               recording the change as the sweep does.
// Voting algorithms do not stop a hub's gather early here: each chunk
// walks all its edges.
#ifndef WARPGRAPH_LIB_MGPU_CUH
#define WARPGRAPH_LIB_MGPU_CUH

#include "edge.cuh"
#include "wseg.cuh"

#define WG_HUB_CHUNK 1024u

template <typename ALG>
WG_DEV void wg_hub_init(WG_ACC_PARAMS, uint32_t hubs, typename ALG::value_t *acc) {
  ALG alg(WG_ACC_META);
  for (uint32_t h = wg_global_id(); h < hubs; h += gridDim.x * blockDim.x)
    acc[h] = alg.identity();
}

template <typename ALG>
WG_DEV void wg_hub_gather(WG_ACC_PARAMS, const uint32_t *owned, uint32_t hub_first, uint32_t hubs,
                          const uint32_t *chunk_start, typename ALG::value_t *acc) {
  typedef typename ALG::value_t V;
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  uint32_t lane = wg_lane_id();
  uint32_t warps = gridDim.x * blockDim.x / warpSize;
  uint32_t chunks = hubs > 0 ? chunk_start[hubs] : 0u;
  for (uint32_t c = wg_global_id() / warpSize; c < chunks; c += warps) {
    // The chunk's hub: the last h with chunk_start[h] <= c (uniform).
    uint32_t lo = 0, hi = hubs;
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      if (chunk_start[mid] <= c)
        lo = mid;
      else
        hi = mid;
    }
    uint32_t row = hub_first + lo, v = owned[row];
    if (!alg.wants_pull(v))
      continue;
    uint32_t begin = g.offsets[row] + (c - chunk_start[lo]) * WG_HUB_CHUNK;
    uint32_t end = wg_min(begin + WG_HUB_CHUNK, g.offsets[row + 1]);
    V x = alg.identity();
    for (uint32_t e = begin + lane; e < end; e += warpSize) {
      V update;
      if (alg.compute(g.targets[e], v, g.weight(e), &update))
        x = alg.reduce(x, update);
    }
    for (uint32_t offset = warpSize / 2; offset > 0; offset /= 2)
      x = alg.reduce(x, __shfl_xor_sync(WG_FULL_MASK, x, (int)offset));
    if (lane == 0)
      wg_edge_reduce_atomic(alg, &acc[lo], x);
  }
}

template <typename ALG>
WG_DEV void wg_hub_apply(WG_ACC_PARAMS, uint32_t *active_count, wg_part_sweep span, uint32_t hub_first,
                         const typename ALG::value_t *acc) {
  ALG alg(WG_ACC_META);
  uint32_t threads = gridDim.x * blockDim.x;
  uint32_t hubs = span.rows - hub_first;
  // Whole warps: changed() ballots.
  uint32_t bound = (hubs + warpSize - 1) / warpSize * warpSize;
  uint32_t active = 0;
  for (uint32_t h = wg_global_id(); h < bound; h += threads) {
    uint32_t row = hub_first + h;
    bool owns = h < hubs;
    uint32_t v = span.vertex_if(row, owns);
    bool take = owns && alg.wants_pull(v) && alg.combine_pull(v, acc[h]);
    active += __popc(__ballot_sync(WG_FULL_MASK, take));
    span.changed(row, v, take);
  }
  alg.finish();
  if (wg_lane_id() == 0 && active > 0)
    atomicAdd(active_count, active);
}

// WG_MGPU_ENTRIES: the partitioned sweep by warp segmentation and by
// virtual warps of 8 lanes, and the hubs' three entries; the multi-GPU
// driver launches them on every device and exchanges meta0.
#define WG_MGPU_PARAMS                                                                             \
  WG_ACC_PARAMS, uint32_t *active_count, uint32_t rows, const uint32_t *owned, uint32_t *stamps,    \
      uint32_t stamp, const uint32_t *send_mask, uint32_t *outbox_count, uint32_t *outbox,            \
      uint32_t capacity, uint32_t parts
#define WG_MGPU_SPAN                                                                               \
  wg_part_sweep {                                                                                  \
    rows, owned, (const uint32_t *)meta0, stamps, stamp, send_mask, outbox_count, outbox, capacity, parts \
  }
#define WG_MGPU_ENTRIES(NAME, ALG)                                                                 \
  extern "C" __global__ void NAME##_mgpu_wseg_pull(WG_MGPU_PARAMS) {                               \
    wg_wseg_pull<ALG>(WG_ACC_ARGS, active_count, WG_MGPU_SPAN);                                    \
  }                                                                                                \
  extern "C" __global__ void NAME##_mgpu_vwc8_pull(WG_MGPU_PARAMS) {                               \
    wg_vwc_pull<ALG, 8>(WG_ACC_ARGS, active_count, WG_MGPU_SPAN);                                  \
  }                                                                                                \
  extern "C" __global__ void NAME##_mgpu_hub_init(WG_ACC_PARAMS, uint32_t hubs, void *acc) {       \
    wg_hub_init<ALG>(WG_ACC_ARGS, hubs, (typename ALG::value_t *)acc);                             \
  }                                                                                                \
  extern "C" __global__ void NAME##_mgpu_hub_gather(WG_ACC_PARAMS, const uint32_t *owned, uint32_t hub_first, \
                                                    uint32_t hubs, const uint32_t *chunk_start, void *acc) { \
    wg_hub_gather<ALG>(WG_ACC_ARGS, owned, hub_first, hubs, chunk_start, (typename ALG::value_t *)acc); \
  }                                                                                                \
  extern "C" __global__ void NAME##_mgpu_hub_apply(WG_MGPU_PARAMS, uint32_t hub_first, const void *acc) { \
    wg_hub_apply<ALG>(WG_ACC_ARGS, active_count, WG_MGPU_SPAN, hub_first,                          \
                      (const typename ALG::value_t *)acc);                                         \
  }

#endif // WARPGRAPH_LIB_MGPU_CUH
