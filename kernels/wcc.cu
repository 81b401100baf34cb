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
// One device of a partitioned graph (the multi-GPU driver).
WG_MGPU_ENTRIES(wcc, wcc_acc)

// Asynchronous under Atos as it is: compute reads the source's current value.
WG_ATOS_ENTRIES(wcc, wcc_acc)

// ---- the forest form: entries wcc_afforest_* (scheduler/forest.go) -------
// meta0 holds each vertex's parent; a root is its own parent (the labels
// start as the vertices' ids). Linking puts the larger of two roots under
// the smaller, so a tree's root is its smallest vertex and, once every
// edge is linked and the trees are compressed, every vertex's parent is
// its component's smallest id: the propagation form's label. Parents are
// read with volatile loads: other SMs change them, and an L1 copy may be
// stale.

WG_DEV uint32_t wcc_parent(const uint32_t *parent, uint32_t v) { return wg_load_volatile(parent + v); }

// wcc_link joins the trees of u and v: it hooks the larger root under the
// smaller with a compare-and-swap, climbing again when another thread
// hooked first. The climb reads parents with weak loads, which the L1 may
// answer with a stale value (the roots of a large tree are read by many
// threads at once); a stale parent is still an ancestor, and a stale root
// only fails its compare-and-swap, whose answer is the current parent,
// smaller than the root it replaces, so every retry climbs.
WG_DEV void wcc_link(uint32_t *parent, uint32_t u, uint32_t v) {
  uint32_t p1 = parent[u], p2 = parent[v];
  while (p1 != p2) {
    uint32_t high = p1 > p2 ? p1 : p2, low = p1 > p2 ? p2 : p1;
    uint32_t ph = parent[high];
    if (ph == low)
      return;
    if (ph == high) {
      uint32_t was = atomicCAS(&parent[high], high, low);
      if (was == high)
        return;
      ph = was;
    }
    p1 = parent[ph];
    p2 = parent[low];
  }
}

// link_round: a thread per vertex links it to its neighbour number
// `iteration` (in CSR order), if it has one.
extern "C" __global__ void wcc_afforest_link_round(WG_ACC_PARAMS) {
  wg_graph g = WG_ACC_GRAPH;
  uint32_t *parent = (uint32_t *)meta0;
  uint32_t v = wg_global_id();
  if (v < num_vertices && g.begin(v) + iteration < g.end(v))
    wcc_link(parent, v, g.targets[g.begin(v) + iteration]);
}

// compress: a thread per vertex points it at its root by pointer jumping,
// writing each step, so that the threads of the vertices below it climb
// the shorter path. No link runs meanwhile, so roots stand still.
extern "C" __global__ void wcc_afforest_compress(WG_ACC_PARAMS) {
  uint32_t *parent = (uint32_t *)meta0;
  uint32_t v = wg_global_id();
  if (v >= num_vertices)
    return;
  uint32_t p = wcc_parent(parent, v), pp = wcc_parent(parent, p);
  while (p != pp) {
    wg_store_volatile(parent + v, pp);
    p = pp;
    pp = wcc_parent(parent, p);
  }
}

// sample: thread i writes the root of a pseudo-random vertex (a
// multiplicative hash of i), after compress, for the host to find the
// largest component's root.
extern "C" __global__ void wcc_afforest_sample(WG_ACC_PARAMS, uint32_t *roots, uint32_t samples) {
  const uint32_t *parent = (const uint32_t *)meta0;
  uint32_t i = wg_global_id();
  if (i < samples)
    roots[i] = parent[(uint32_t)(((unsigned long long)i * 2654435761ull) % num_vertices)];
}

// link_rest: a warp per vertex outside the component rooted at skip (all
// of them when skip is none, 0xFFFFFFFF) links it to its neighbours from
// number `iteration` on, the lanes striding over them. A vertex of the
// skipped component is joined to every other through the other's side of
// their edge (the graph is symmetric).
extern "C" __global__ void wcc_afforest_link_rest(WG_ACC_PARAMS, uint32_t skip) {
  wg_graph g = WG_ACC_GRAPH;
  uint32_t *parent = (uint32_t *)meta0;
  uint32_t v = wg_global_id() / 32;
  if (v >= num_vertices || wcc_parent(parent, v) == skip)
    return;
  for (uint32_t e = g.begin(v) + iteration + wg_lane_id(); e < g.end(v); e += 32)
    wcc_link(parent, v, g.targets[e]);
}

// Across the devices of a system: Atos's warp workers with remote pushes.
#include "lib/atos_peers.cuh"
WG_ATOS_PEER_ENTRIES(wcc, wcc_acc)
