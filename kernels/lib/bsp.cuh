// bsp.cuh — the bulk-synchronous scheduler: one launch per phase per
// iteration, the host reading the new frontier's size in between. It is
// the baseline every other scheduler is measured against.
//
// Phases (entries <algorithm>_bsp_base_<phase>):
//   filter  scan every vertex, queue the active ones (the initial frontier
//           of algorithms that start from a predicate, e.g. k-core).
//   push    thread per frontier vertex; each warp walks its 32 vertices'
//           out-edges in lock step, applying updates with combine_push and
//           queueing newly active vertices once (wg_claim_once).
//   pull    thread per vertex (grid-stride); each gathers over its in-edges
//           with reduce, applies combine_pull, and queues the vertex when
//           it stays active (aggregation: the count decides convergence).
#ifndef WARPGRAPH_LIB_BSP_CUH
#define WARPGRAPH_LIB_BSP_CUH

#include "acc.cuh"
#include "frontier.cuh"

template <typename ALG>
WG_DEV void wg_bsp_filter(WG_ACC_PARAMS, uint32_t *frontier_out, uint32_t *frontier_out_len,
                          uint32_t *queued) {
  ALG alg(WG_ACC_META);
  uint32_t stride = gridDim.x * blockDim.x;
  // The loop bound is uniform across the warp, so it stays converged for
  // the append's ballot.
  for (uint32_t base = wg_global_id() - wg_lane_id(); base < num_vertices; base += stride) {
    uint32_t v = base + wg_lane_id();
    bool take = v < num_vertices && alg.active(v);
    if (take)
      queued[v] = iteration + 1;
    wg_warp_append(take, v, frontier_out, frontier_out_len);
  }
}

template <typename ALG>
WG_DEV void wg_bsp_push(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                        uint32_t *frontier_out, uint32_t *frontier_out_len, uint32_t *queued) {
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  uint32_t i = wg_global_id();
  uint32_t v = 0, begin = 0, degree = 0;
  if (i < frontier_len) {
    v = frontier_in[i];
    begin = g.begin(v);
    degree = g.end(v) - begin;
  }
  uint32_t stamp = iteration + 2; // the filter stamped iteration + 1
  for (uint32_t j = 0; __any_sync(WG_FULL_MASK, j < degree); ++j) {
    uint32_t u = 0;
    bool queue = false;
    if (j < degree) {
      uint32_t e = begin + j;
      u = g.targets[e];
      typename ALG::value_t update;
      queue = alg.compute(v, u, g.weight(e), &update) && alg.combine_push(u, update) &&
              wg_claim_once(queued, u, stamp);
    }
    wg_warp_append(queue, u, frontier_out, frontier_out_len);
  }
}

template <typename ALG>
WG_DEV void wg_bsp_pull(WG_ACC_PARAMS, uint32_t *frontier_out, uint32_t *frontier_out_len) {
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t base = wg_global_id() - wg_lane_id(); base < num_vertices; base += stride) {
    uint32_t dst = base + wg_lane_id();
    bool take = false;
    if (dst < num_vertices && alg.wants_pull(dst)) {
      typename ALG::value_t acc = alg.identity();
      for (uint32_t e = g.begin(dst); e < g.end(dst); ++e) {
        typename ALG::value_t update;
        if (alg.compute(g.targets[e], dst, g.weight(e), &update)) {
          acc = alg.reduce(acc, update);
          if (ALG::kind == WG_VOTING && alg.pull_done(acc))
            break;
        }
      }
      take = alg.combine_pull(dst, acc);
    }
    wg_warp_append(take, dst, frontier_out, frontier_out_len);
  }
  alg.finish();
}

#define WG_BSP_ENTRIES(NAME, ALG)                                                                  \
  extern "C" __global__ void NAME##_bsp_base_filter(WG_ACC_PARAMS, uint32_t *frontier_out,          \
                                                    uint32_t *frontier_out_len, uint32_t *queued) { \
    wg_bsp_filter<ALG>(WG_ACC_ARGS, frontier_out, frontier_out_len, queued);                       \
  }                                                                                                 \
  extern "C" __global__ void NAME##_bsp_base_push(                                                  \
      WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len, uint32_t *frontier_out,    \
      uint32_t *frontier_out_len, uint32_t *queued) {                                               \
    wg_bsp_push<ALG>(WG_ACC_ARGS, frontier_in, frontier_len, frontier_out, frontier_out_len,       \
                     queued);                                                                       \
  }                                                                                                 \
  extern "C" __global__ void NAME##_bsp_base_pull(WG_ACC_PARAMS, uint32_t *frontier_out,            \
                                                  uint32_t *frontier_out_len) {                     \
    wg_bsp_pull<ALG>(WG_ACC_ARGS, frontier_out, frontier_out_len);                                 \
  }

#endif // WARPGRAPH_LIB_BSP_CUH
