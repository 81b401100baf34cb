// pr.cu — PageRank (damping 0.85) in the ACC model (aggregation): sweeps in
// which each vertex gathers over its in-edges, as graph/ref defines it, but
// in place (Gauss-Seidel): a sweep reads the ranks already updated in it,
// which reaches graph/ref's fixed point in about half the sweeps of
// graph/ref's own (Jacobi) iteration.
//   meta0  float rank[|V|], read and written.
//   meta1  float share[|V|]: 1/outdeg, 0 for a dangling vertex.
//   meta2  double dangling[3]: the total rank of dangling vertices; sweep i
//          reads slot i%3, adds its output's into slot (i+1)%3 and clears
//          slot (i+2)%3, which no thread touches during sweep i. Each thread
//          sums its dangling vertices, each warp adds its sum with one
//          double atomic: float32 atomics one vertex at a time lose ~1e-3
//          of the mass on graphs with 10^5 dangling vertices.
//   param_f32  tolerance: a vertex stays active while |new-old| > tol*new.
// The host stops when a sweep leaves no vertex active.
#include "lib/schedulers.cuh"

struct pr_acc : wg_acc_defaults<float> {
  static const int kind = WG_AGGREGATION;
  const float *share;
  float *rank;
  double *dangling;
  uint32_t slot;
  float inv_n, tol, dangling_sum;
  __device__ pr_acc(wg_meta m)
      : share((const float *)m.buf[1]), rank((float *)m.buf[0]), dangling((double *)m.buf[2]), slot(m.iteration % 3),
        inv_n(__frcp_rn((float)m.num_vertices)), tol(m.param_f32), dangling_sum(0.0f) {}
  __device__ bool active(uint32_t) const { return true; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t, float *update) const {
    *update = rank[src] * share[src];
    return true;
  }
  __device__ bool wants_pull(uint32_t dst) const {
    if (dst == 0)
      dangling[(slot + 2) % 3] = 0.0;
    return true;
  }
  __device__ float identity() const { return 0.0f; }
  __device__ float reduce(float a, float b) const { return a + b; }
  __device__ bool combine_pull(uint32_t dst, float acc) {
    float r = (1.0f - 0.85f) * inv_n + 0.85f * (acc + (float)dangling[slot] * inv_n);
    float old = rank[dst];
    rank[dst] = r;
    if (share[dst] == 0.0f)
      dangling_sum += r;
    return wg_fabs(r - old) > tol * r;
  }
  __device__ void finish() {
    float sum = wg_warp_sum(dangling_sum);
    if (wg_lane_id() == 0 && sum != 0.0f)
      atomicAdd(&dangling[(slot + 1) % 3], (double)sum);
  }
};

WG_ACC_ENTRIES(pr, pr_acc)
