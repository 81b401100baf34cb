// coreness.cu — k-core decomposition (every vertex's core number) by
// peeling in rising levels, in the ACC model (voting) on the host-driven
// bucket loop (scheduler/delta.go) with buckets of width 1 (under Atos, a
// task queue drains each level), or in SIMD-X's fused kernel. The host
// runs it on the symmetrised graph without self-loops.
//   meta0  uint32 degree[|V|]: the vertex's degree, decremented as
//          neighbours leave; after the vertex has left it goes on falling
//          (and may wrap) unread.
//   meta1  uint32 core[|V|]: 0xFFFFFFFF while the vertex stays, then its
//          core number.
//   meta2  uint32 bucket[2]: the level k (the bound), and the least degree
//          of a vertex an admission pass left (the host resets it before
//          the pass and skips the levels at which no vertex leaves).
// At level k the vertices whose degree is below k leave with core number
// k - 1: the admission pass finds those whose degree was already k - 1,
// and each push lowers its neighbours' degrees, a neighbour leaving when
// its degree falls from k to k - 1 (so it leaves exactly once).
#include "lib/schedulers.cuh"

#define WG_STAYS 0xFFFFFFFFu

struct coreness_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  uint32_t *degree, *core, *bucket;
  uint32_t level;
  __device__ coreness_acc(wg_meta m)
      : degree((uint32_t *)m.buf[0]), core((uint32_t *)m.buf[1]), bucket((uint32_t *)m.buf[2]),
        level(bucket[0]) {}
  // active is the admission pass: a staying vertex whose degree is below
  // the level leaves at it; the others report their degree.
  __device__ bool active(uint32_t v) {
    if (core[v] != WG_STAYS)
      return false;
    uint32_t d = degree[v];
    if (d < level) {
      core[v] = level - 1;
      return true;
    }
    if (d < wg_load_volatile(&bucket[1]))
      atomicMin(&bucket[1], d);
    return false;
  }
  __device__ bool compute(uint32_t src, uint32_t dst, uint32_t, uint32_t *update) const {
    *update = 1;
    return src != dst;
  }
  // combine_push decrements without reading the degree first: the load
  // would add a round trip to each step of a peeling chain. A vertex that
  // has left is decremented at most its degree times more, so its word
  // never returns to a level (it would have to wrap through 2^32).
  __device__ bool combine_push(uint32_t dst, uint32_t) const {
    if (atomicSub(&degree[dst], 1u) != level)
      return false;
    core[dst] = level - 1;
    return true;
  }
};

WG_ACC_ENTRIES(coreness, coreness_acc)
// Under Atos a level's peeling runs without barriers: a vertex leaves once
// (its degree falls through the level once), whichever worker sees it.
WG_ATOS_ENTRIES(coreness, coreness_acc)
WG_ATOS_BUCKET_ENTRIES(coreness, coreness_acc)
