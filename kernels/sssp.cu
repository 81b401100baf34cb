// sssp.cu — single-source shortest paths in the ACC model (voting: a
// vertex needs its one smallest distance). Unweighted graphs weigh 1.
// Delta-stepping (the host-driven bsp and simdx loops): a vertex whose
// distance improves to the bucket's bound or beyond waits (far) instead of
// joining the frontier; when the frontier empties the host raises the
// bound by delta and an admission pass (active) brings the waiting vertices
// below it back. Every other scheduler leaves the bound at 0xFFFFFFFF:
// frontier Bellman-Ford.
//   meta0  uint32 dist[|V|]: 0 at the source, 0xFFFFFFFF while unreached.
//   meta1  uint32 far[|V|]: 1 while the vertex waits for a later bucket.
//   meta2  uint32 bucket[2]: the bound, and the least distance of a vertex
//          an admission pass left waiting (the host resets it to
//          0xFFFFFFFF before the pass; it skips empty buckets).
#include "lib/schedulers.cuh"

#define WG_UNREACHED 0xFFFFFFFFu

struct sssp_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  static const int reduce_atomic = WG_ATOMIC_MIN;
  uint32_t *dist, *far, *bucket;
  uint32_t bound;
  __device__ sssp_acc(wg_meta m)
      : dist((uint32_t *)m.buf[0]), far((uint32_t *)m.buf[1]), bucket((uint32_t *)m.buf[2]), bound(bucket[0]) {}
  // active is delta-stepping's admission pass: a waiting vertex the raised
  // bound now covers joins the frontier; the others report their least
  // distance.
  __device__ bool active(uint32_t v) {
    if (far[v] == 0)
      return false;
    uint32_t d = dist[v];
    if (d < bound) {
      far[v] = 0;
      return true;
    }
    if (d < wg_load_volatile(&bucket[1]))
      atomicMin(&bucket[1], d);
    return false;
  }
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
    bool improved = update < dist[dst] && atomicMin(&dist[dst], update) > update;
    if (improved && update >= bound)
      far[dst] = 1; // beyond the bucket: wait for the admission pass
    return improved && update < bound;
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
// One device of a partitioned graph (the multi-GPU driver).
WG_MGPU_ENTRIES(sssp, sssp_acc)

// Asynchronous under Atos as it is: compute reads the source's current value.
// Delta-stepping's buckets run there too: the workers drain a bucket, the
// admission entry starts the next.
WG_ATOS_ENTRIES(sssp, sssp_acc)
WG_ATOS_BUCKET_ENTRIES(sssp, sssp_acc)

// Across the devices of a system: Atos's warp workers with remote pushes.
#include "lib/atos_peers.cuh"
WG_ATOS_PEER_ENTRIES(sssp, sssp_acc)
