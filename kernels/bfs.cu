// bfs.cu — breadth-first search depths in the ACC model (voting).
//   meta0  uint32 depth[|V|]: 0 at the source, 0xFFFFFFFF while unvisited.
//   iteration  the depth of the current frontier.
#include "lib/schedulers.cuh"

#define WG_UNVISITED 0xFFFFFFFFu

struct bfs_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  static const int reduce_atomic = WG_ATOMIC_MIN;
  uint32_t *depth;
  uint32_t level;
  __device__ bfs_acc(wg_meta m) : depth((uint32_t *)m.buf[0]), level(m.iteration) {}
  __device__ bool active(uint32_t v) const { return depth[v] == level; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t, uint32_t *update) const {
    *update = level + 1;
    return depth[src] == level; // in pull, only frontier vertices propose
  }
  // The plain read skips hopeless claims; the CAS decides the one winner.
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    return depth[dst] == WG_UNVISITED && atomicCAS(&depth[dst], WG_UNVISITED, update) == WG_UNVISITED;
  }
  __device__ bool wants_pull(uint32_t dst) const { return depth[dst] == WG_UNVISITED; }
  __device__ uint32_t identity() const { return WG_UNVISITED; }
  __device__ uint32_t reduce(uint32_t a, uint32_t b) const { return wg_min(a, b); }
  __device__ bool pull_done(uint32_t acc) const { return acc != WG_UNVISITED; }
  __device__ bool combine_pull(uint32_t dst, uint32_t acc) const {
    if (acc == WG_UNVISITED)
      return false;
    depth[dst] = acc;
    return true;
  }
};

WG_ACC_ENTRIES(bfs, bfs_acc)
// One device of a partitioned graph (the multi-GPU driver).
WG_MGPU_ENTRIES(bfs, bfs_acc)

// Speculative BFS (Atos): one dynamic frontier, no barrier between levels;
// a vertex reached first by a longer path is lowered (atomicMin) and queued
// again when a shorter one arrives.
struct bfs_speculative_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  uint32_t *depth;
  __device__ bfs_speculative_acc(wg_meta m) : depth((uint32_t *)m.buf[0]) {}
  __device__ bool active(uint32_t v) const { return depth[v] != WG_UNVISITED; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t, uint32_t *update) const {
    *update = depth[src] + 1;
    return depth[src] != WG_UNVISITED;
  }
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    return update < depth[dst] && atomicMin(&depth[dst], update) > update;
  }
};

WG_ATOS_ENTRIES(bfs, bfs_speculative_acc)

// Across the devices of a system: Atos's warp workers with remote pushes.
#include "lib/atos_peers.cuh"
WG_ATOS_PEER_ENTRIES(bfs, bfs_speculative_acc)
