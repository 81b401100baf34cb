// sssp.cu — single-source shortest paths in the ACC model (voting: a
// vertex needs its one smallest distance). Unweighted graphs weigh 1.
//   meta0  uint32 dist[|V|]: 0 at the source, 0xFFFFFFFF while unreached.
#include "lib/schedulers.cuh"

#define WG_UNREACHED 0xFFFFFFFFu

struct sssp_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  uint32_t *dist;
  __device__ sssp_acc(wg_meta m) : dist((uint32_t *)m.buf[0]) {}
  __device__ bool active(uint32_t v) const { return dist[v] != WG_UNREACHED; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t weight, uint32_t *update) const {
    // Branch-free: the early-return form of this test made the simulator's
    // reconvergence stack lose lanes at the atos CTA worker's ballot (a
    // simulator defect, recorded for the reconvergence work; the GPU is
    // unaffected).
    uint32_t d = dist[src];
    uint32_t sum = d + weight;
    *update = sum < d ? WG_UNREACHED - 1 : sum; // saturate, never wrap
    return d != WG_UNREACHED;
  }
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    return update < dist[dst] && atomicMin(&dist[dst], update) > update;
  }
  __device__ bool wants_pull(uint32_t) const { return true; }
  __device__ uint32_t identity() const { return WG_UNREACHED; }
  __device__ uint32_t reduce(uint32_t a, uint32_t b) const { return wg_min(a, b); }
  __device__ bool combine_pull(uint32_t dst, uint32_t acc) const {
    if (acc >= dist[dst])
      return false;
    dist[dst] = acc;
    return true;
  }
};

WG_ACC_ENTRIES(sssp, sssp_acc)

// Asynchronous under Atos as it is: compute reads the source's current value.
WG_ATOS_ENTRIES(sssp, sssp_acc)
