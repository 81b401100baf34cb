// kcore.cu — k-core membership by peeling in the ACC model (voting). The
// host runs it on the symmetrised graph without self-loops.
//   meta0  uint32 degree[|V|]: the vertex's degree, decremented as
//          neighbours leave the core; below k the vertex has left.
//   param_u32  k.
// Decrements stop once a vertex is below k (SIMD-X's rule), so a vertex
// leaves exactly once: when its degree falls from k to k-1.
#include "lib/schedulers.cuh"

struct kcore_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  uint32_t *degree;
  uint32_t k;
  __device__ kcore_acc(wg_meta m) : degree((uint32_t *)m.buf[0]), k(m.param_u32) {}
  __device__ bool active(uint32_t v) const { return degree[v] < k; } // left the core
  __device__ bool compute(uint32_t src, uint32_t dst, uint32_t, uint32_t *update) const {
    *update = 1;
    return src != dst;
  }
  __device__ bool combine_push(uint32_t dst, uint32_t) const {
    return degree[dst] >= k && atomicSub(&degree[dst], 1u) == k;
  }
};

WG_ACC_ENTRIES(kcore, kcore_acc)
