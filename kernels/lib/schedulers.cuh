// schedulers.cuh — one line per algorithm instantiates every scheduler's
// entries: an algorithm's .cu ends with WG_ACC_ENTRIES(name, struct).
// Adding a scheduler adds its header and its entry macro here; algorithm
// sources do not change.
#ifndef WARPGRAPH_LIB_SCHEDULERS_CUH
#define WARPGRAPH_LIB_SCHEDULERS_CUH

#include "atos.cuh" // opt-in per algorithm: WG_ATOS_ENTRIES beside WG_ACC_ENTRIES
#include "bsp.cuh"
#include "edge.cuh"
#include "hqueue.cuh"
#include "simdx.cuh"
#include "wseg.cuh"

#define WG_ACC_ENTRIES(NAME, ALG)                                                  \
  WG_BSP_ENTRIES(NAME, ALG)                                                        \
  WG_EDGE_ENTRIES(NAME, ALG)                                                       \
  WG_HQ_ENTRIES(NAME, ALG)                                                         \
  WG_SIMDX_ENTRIES(NAME, ALG)                                                      \
  WG_WSEG_ENTRIES(NAME, ALG)

#endif // WARPGRAPH_LIB_SCHEDULERS_CUH
