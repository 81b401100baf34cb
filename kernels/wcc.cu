// wcc.cu — weakly connected components by minimum-label propagation in the
// ACC model (voting). The host runs it on the symmetrised graph.
//   meta0  uint32 label[|V|]: starts at the vertex's own id.
#include "lib/schedulers.cuh"

struct wcc_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  static const int reduce_atomic = WG_ATOMIC_MIN;
  uint32_t *label;
  __device__ wcc_acc(wg_meta m) : label((uint32_t *)m.buf[0]) {}
  __device__ bool active(uint32_t) const { return true; } // every vertex starts active
  __device__ bool compute(uint32_t src, uint32_t, uint32_t, uint32_t *update) const {
    *update = label[src];
    return true;
  }
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    return update < label[dst] && atomicMin(&label[dst], update) > update;
  }
  __device__ bool wants_pull(uint32_t) const { return true; }
  __device__ uint32_t identity() const { return 0xFFFFFFFFu; }
  __device__ uint32_t reduce(uint32_t a, uint32_t b) const { return wg_min(a, b); }
  __device__ bool combine_pull(uint32_t dst, uint32_t acc) const {
    if (acc >= label[dst])
      return false;
    label[dst] = acc;
    return true;
  }
};

WG_ACC_ENTRIES(wcc, wcc_acc)

// Asynchronous under Atos as it is: compute reads the source's current value.
WG_ATOS_ENTRIES(wcc, wcc_acc)
