// schedulers.cuh — one line per algorithm instantiates every scheduler's
// entries: an algorithm's .cu ends with WG_ACC_ENTRIES(name, struct)
// (or, for an aggregation with a pull-then-push form of its own for SIMD-X,
// WG_ACC_PULL_THEN_PUSH_ENTRIES(name, struct, pull-then-push struct)).
// Adding a scheduler adds its header and its entry macro to
// WG_SCHEDULER_ENTRIES here; algorithm sources do not change.
#ifndef WARPGRAPH_LIB_SCHEDULERS_CUH
#define WARPGRAPH_LIB_SCHEDULERS_CUH

#include "atos.cuh" // opt-in per algorithm: WG_ATOS_ENTRIES beside WG_ACC_ENTRIES
#include "bsp.cuh"
#include "edge.cuh"
#include "hqueue.cuh"
#include "mgpu.cuh" // opt-in per algorithm: WG_MGPU_ENTRIES, the multi-GPU driver's
#include "simdx.cuh"
#include "wseg.cuh"

// WG_SCHEDULER_ENTRIES lists every scheduler's entries of ALG in one
// order, with SIMD-X's given as SIMDX: ALG's own, or those of a form of
// the algorithm that SIMD-X runs instead.
#define WG_SCHEDULER_ENTRIES(NAME, ALG, SIMDX)                                     \
  WG_BSP_ENTRIES(NAME, ALG)                                                        \
  WG_EDGE_ENTRIES(NAME, ALG)                                                       \
  WG_HQ_ENTRIES(NAME, ALG)                                                         \
  SIMDX                                                                            \
  WG_WSEG_ENTRIES(NAME, ALG)

#define WG_ACC_ENTRIES(NAME, ALG) WG_SCHEDULER_ENTRIES(NAME, ALG, WG_SIMDX_ENTRIES(NAME, ALG))

// An aggregation that SIMD-X runs in a pull-then-push form of its own
// (PageRank's residual form, whose push moves state): ALG under every
// other scheduler; under SIMD-X, PULLPUSH with its take phase and its
// one-CTA local entry (WG_SIMDX_AGGREGATION_ENTRIES).
#define WG_ACC_PULL_THEN_PUSH_ENTRIES(NAME, ALG, PULLPUSH)                         \
  WG_SCHEDULER_ENTRIES(NAME, ALG,                                                  \
                       WG_SIMDX_ENTRIES(NAME, PULLPUSH)                            \
                           WG_SIMDX_AGGREGATION_ENTRIES(NAME, PULLPUSH))

#endif // WARPGRAPH_LIB_SCHEDULERS_CUH
