// acc.cuh — the ACC contract (SIMD-X's Active / Compute / Combine model):
// what an algorithm provides, and the one parameter list every
// framework entry takes.
//
// An algorithm is a small struct, constructed on the device from the
// metadata the host passes (wg_meta), with these members:
//
//   typedef ... value_t;                       the type of one update
//   static const int kind = WG_VOTING | WG_AGGREGATION;
//   bool active(v)                             is v active, from its metadata
//   bool compute(src, dst, weight, &update)    the update one edge proposes
//                                              (false: this edge proposes none)
//   bool combine_push(dst, update)             apply one update atomically;
//                                              true when dst became active
//   bool wants_pull(dst)                       does dst gather this round
//   value_t identity()                         the reduction's neutral value
//   value_t reduce(a, b)                       combine two updates (pull)
//   bool pull_done(acc)                        voting may stop gathering early
//   bool combine_pull(dst, acc)                apply the gathered value, no
//                                              atomics; true when dst is active
//   static const int reduce_atomic             the native atomic that is reduce
//                                              on a value in memory (WG_ATOMIC_*
//                                              below), for schedulers that
//                                              combine pulled updates with
//                                              atomics (edge.cuh)
//   void finish()                              called once per thread, by every
//                                              thread of a pull phase, converged,
//                                              after its last vertex: where an
//                                              algorithm flushes per-thread sums
//                                              (warp shuffles are allowed)
//
// Voting algorithms (BFS, SSSP, WCC, ...) need any one update per vertex;
// aggregation algorithms (PageRank, ...) need every update. The framework,
// not the algorithm, decides the threads, lists and atomics: the
// schedulers' headers (bsp.cuh, ...) are templates over the struct, and
// schedulers.cuh instantiates every scheduler's entries for an algorithm
// with one line, WG_ACC_ENTRIES(name, struct).
#ifndef WARPGRAPH_LIB_ACC_CUH
#define WARPGRAPH_LIB_ACC_CUH

#include "../warpgraph.h"

#define WG_VOTING 0
#define WG_AGGREGATION 1

// reduce_atomic: WG_ATOMIC_MIN / WG_ATOMIC_MAX (uint32_t min or max,
// atom.min/max.u32), WG_ATOMIC_ADD (float sum, atom.add.f32); with
// WG_ATOMIC_NONE, the default, reduce is applied by a compare-and-swap loop.
// The native form matters where many threads update one address: a CAS
// loop retries once per competitor (d lanes on one word take d(d+1)/2
// lane-operations when every update changes it, as float sums do), a native
// atomic is one operation per update, serialised at the memory.
#define WG_ATOMIC_NONE 0
#define WG_ATOMIC_MIN 1
#define WG_ATOMIC_MAX 2
#define WG_ATOMIC_ADD 3

// WG_ACC_PARAMS opens every framework entry's parameter list: the CSR the
// phase walks (out-edges in push, in-edges in pull; edge_weights may be
// null: every edge weighs 1), then the algorithm's metadata — four buffers
// whose meaning the algorithm defines, the iteration number and two
// parameters (e.g. k for k-core, a tolerance for PageRank). The host side
// (scheduler.Problem) fills them in the same order.
#define WG_ACC_PARAMS                                                          \
  const uint32_t *row_offsets, const uint32_t *col_indices,                    \
      const uint32_t *edge_weights, uint32_t num_vertices, void *meta0,        \
      void *meta1, void *meta2, void *meta3, uint32_t iteration,               \
      uint32_t param_u32, float param_f32
#define WG_ACC_ARGS                                                            \
  row_offsets, col_indices, edge_weights, num_vertices, meta0, meta1, meta2,   \
      meta3, iteration, param_u32, param_f32

// wg_meta is the algorithm's view of its metadata.
struct wg_meta {
  void *buf[4];
  uint32_t num_vertices;
  uint32_t iteration;
  uint32_t param_u32;
  float param_f32;
};

#define WG_ACC_META                                                            \
  wg_meta { {meta0, meta1, meta2, meta3}, num_vertices, iteration, param_u32, param_f32 }

// wg_graph is the CSR a phase walks.
struct wg_graph {
  const uint32_t *offsets;
  const uint32_t *targets;
  const uint32_t *weights;
  uint32_t n;
  __device__ uint32_t begin(uint32_t v) const { return offsets[v]; }
  __device__ uint32_t end(uint32_t v) const { return offsets[v + 1]; }
  __device__ uint32_t weight(uint32_t e) const { return weights ? weights[e] : 1u; }
};

#define WG_ACC_GRAPH                                                           \
  wg_graph { row_offsets, col_indices, edge_weights, num_vertices }

// wg_acc_defaults supplies the pull members for algorithms that only push
// (no vertex wants to pull, so the rest is never called) and a push that
// applies nothing for algorithms that only pull; a struct overrides what it
// uses.
template <typename V> struct wg_acc_defaults {
  typedef V value_t;
  __device__ bool combine_push(uint32_t, V) const { return false; }
  __device__ bool wants_pull(uint32_t) const { return false; }
  __device__ V identity() const { return V(); }
  __device__ V reduce(V a, V) const { return a; }
  __device__ bool pull_done(V) const { return false; }
  __device__ bool combine_pull(uint32_t, V) const { return false; }
  __device__ void finish() {}
  static const int reduce_atomic = WG_ATOMIC_NONE;
  // Task-parallel schedulers (atos.cuh): an algorithm whose task consumes
  // state when it starts sets carries, and take/compute_carried replace
  // compute; the rest compute from the source's current value.
  static const bool carries = false;
  __device__ bool take(uint32_t, V *) { return true; }
  __device__ bool compute_carried(uint32_t, V, uint32_t, uint32_t, V *) const { return false; }
};

// Double-precision atomic add (atom.add.f64, sm_60 and later), for sums
// that float32 cannot carry.
WG_DEV double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }

WG_DEV uint32_t wg_min(uint32_t a, uint32_t b) { return a < b ? a : b; }
WG_DEV uint32_t wg_max(uint32_t a, uint32_t b) { return a > b ? a : b; }
WG_DEV float wg_fabs(float x) { return x < 0.0f ? -x : x; }

// wg_warp_sum adds x over the 32 lanes of a converged warp.
WG_DEV float wg_warp_sum(float x) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    x += __shfl_xor_sync(WG_FULL_MASK, x, offset);
  return x;
}
WG_DEV uint32_t wg_warp_sum(uint32_t x) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    x += __shfl_xor_sync(WG_FULL_MASK, x, offset);
  return x;
}
// wg_warp_max is the largest x over the 32 lanes of a converged warp.
WG_DEV uint32_t wg_warp_max(uint32_t x) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    x = wg_max(x, (uint32_t)__shfl_xor_sync(WG_FULL_MASK, x, offset));
  return x;
}

#endif // WARPGRAPH_LIB_ACC_CUH
