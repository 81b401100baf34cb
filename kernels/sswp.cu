// sswp.cu — single-source widest paths in the ACC model (voting: a vertex
// needs its one widest bottleneck). Unweighted graphs weigh 1.
//   meta0  uint32 width[|V|]: 0xFFFFFFFF at the source, 0 while unreached.
#include "lib/schedulers.cuh"

struct sswp_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  static const int reduce_atomic = WG_ATOMIC_MAX;
  uint32_t *width;
  __device__ sswp_acc(wg_meta m) : width((uint32_t *)m.buf[0]) {}
  __device__ bool active(uint32_t v) const { return width[v] != 0; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t weight, uint32_t *update) const {
    *update = wg_min(width[src], weight);
    return *update != 0;
  }
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    return update > width[dst] && atomicMax(&width[dst], update) < update;
  }
  __device__ bool wants_pull(uint32_t) const { return true; }
  __device__ uint32_t identity() const { return 0; }
  __device__ uint32_t reduce(uint32_t a, uint32_t b) const { return wg_max(a, b); }
  __device__ bool combine_pull(uint32_t dst, uint32_t acc) const {
    if (acc <= width[dst])
      return false;
    width[dst] = acc;
    return true;
  }
};

WG_ACC_ENTRIES(sswp, sswp_acc)
// One device of a partitioned graph (the multi-GPU driver).
WG_MGPU_ENTRIES(sswp, sswp_acc)

// Asynchronous under Atos as it is: compute reads the source's current value.
WG_ATOS_ENTRIES(sswp, sswp_acc)

// Across the devices of a system: Atos's warp workers with remote pushes.
#include "lib/atos_peers.cuh"
WG_ATOS_PEER_ENTRIES(sswp, sswp_acc)
