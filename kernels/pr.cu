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
  static const int reduce_atomic = WG_ATOMIC_ADD;
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

// PageRank, pull-then-push (SIMD-X): the residual form of the task-parallel
// PageRank below (the leaky system x = (1-d)/n + d P^T x, normalised to sum
// 1 at the end), with signed residuals so that it can start from the
// uniform guess x = 1/n rather than from 0 (from 0 a residual shrinks by d
// per step everywhere; from 1/n most of the graph starts near its answer).
// Invariant: x* = x + (I - d P^T)^-1 r. A pull moves every vertex's
// residual at once (Jacobi: x += r, r = the gathered carries); a push moves
// the frontier's (|r| >= eps) with atomics. The host pulls while the
// frontier's out-edges exceed the pull fraction and pushes from then on,
// until no residual reaches eps: then |x - x*| <= eps/((1-d)/n) of x*.
//   meta0  float rank[|V|]: x, 1/n at the start.
//   meta1  float residual[|V|]: r; the first pull computes it from x.
//   meta2  [4|V|] words: the push share d/outdeg (float, 0 for a dangling
//          vertex); two carry arrays (float, a vertex's r x share): pull i
//          gathers carry (i+1)%2 and writes carry i%2, take and push use
//          carry (i+1)%2, and the host sets carry 1 to the start's,
//          share/n; admitted (uint32): the iteration+1 in which a push last
//          admitted the vertex to the next frontier, so that it is listed
//          once.
//   meta3  double sum[1]: the finishing pass's total rank
//          (pr_atos_base_normsum and pr_atos_base_normscale).
//   param_f32  eps.
struct pr_pullpush_acc : wg_acc_defaults<float> {
  static const int kind = WG_AGGREGATION;
  float *rank, *residual, *carry_out, *carry_in, *share;
  uint32_t *admitted, stamp;
  float eps, start_residual;
  bool first;
  __device__ pr_pullpush_acc(wg_meta m)
      : rank((float *)m.buf[0]), residual((float *)m.buf[1]),
        carry_out((float *)m.buf[2] + m.num_vertices * (1 + m.iteration % 2)),
        carry_in((float *)m.buf[2] + m.num_vertices * (1 + (m.iteration + 1) % 2)), share((float *)m.buf[2]),
        admitted((uint32_t *)m.buf[2] + 3 * m.num_vertices), stamp(m.iteration + 1), eps(m.param_f32),
        start_residual((0.15f - 1.0f) * __frcp_rn((float)m.num_vertices)), first(m.iteration == 0) {}
  __device__ bool active(uint32_t) const { return true; }
  __device__ bool compute(uint32_t src, uint32_t, uint32_t, float *update) const {
    *update = carry_in[src];
    return true;
  }
  __device__ bool wants_pull(uint32_t) const { return true; }
  __device__ float identity() const { return 0.0f; }
  __device__ float reduce(float a, float b) const { return a + b; }
  // The first pull finds the start's residual, (1-d)/n - 1/n + the gather;
  // later pulls settle r and gather the next.
  __device__ bool combine_pull(uint32_t dst, float acc) {
    float r = first ? acc + start_residual : acc;
    if (!first)
      rank[dst] += residual[dst];
    residual[dst] = r;
    carry_out[dst] = r * share[dst];
    return wg_fabs(r) >= eps;
  }
  __device__ bool take(uint32_t v, float *carry) {
    float r = residual[v];
    residual[v] = 0.0f;
    rank[v] += r;
    carry_in[v] = *carry = r * share[v];
    return true;
  }
  // combine_push admits dst once per iteration, when an update lifts its
  // residual to eps (a residual that crosses back and forth is admitted by
  // the first crossing only).
  __device__ bool combine_push(uint32_t dst, float update) const {
    float before = atomicAdd(&residual[dst], update);
    return wg_fabs(before) < eps && wg_fabs(before + update) >= eps && atomicExch(&admitted[dst], stamp) != stamp;
  }
};

// SIMD-X runs PageRank as pull-then-push (pr_pullpush_acc); every other
// scheduler sweeps pr_acc.
WG_ACC_PULL_THEN_PUSH_ENTRIES(pr, pr_acc, pr_pullpush_acc)
// One device of a partitioned graph (the multi-GPU driver): each device
// adds its own vertices' dangling rank into the slot, and the driver sums
// the slots across devices after every sweep.
WG_MGPU_ENTRIES(pr, pr_acc)

// Asynchronous PageRank (Atos): residual push, one task per vertex whose
// residual's magnitude reached eps. It solves the "leaky" system
// x = (1-d)/n + d P^T x, in which a dangling vertex's rank flows nowhere:
// with a uniform teleport and dangling rank spread uniformly (graph/ref's
// definition), the PageRank vector is exactly that solution scaled to sum
// 1, so the finishing entries below normalise it on the device. It starts,
// as the pull-then-push form does, from x = 1/n with signed residuals, and
// its prelude is that form's pulls (pr_simdx_none_pull) while the active
// vertices hold more than the pull fraction of the edges; the tasks are
// the vertices the last pull left active (pr_atos_base_seed).
//   meta0  float rank[|V|]: 1/n at the start; a task adds the residual it took.
//   meta1  float residual[|V|]: the last pull's.
//   meta2  [5|V|] words: the first 4|V| laid out as pr_pullpush_acc's (push
//          share d/outdeg first, 0 for a dangling vertex), then float
//          low[|V|]: what rounding dropped from the rank's atomic adds (a
//          hub takes thousands of residuals near eps, each below half an
//          ulp of its rank); pr_atos_base_fold adds it back at the end.
//   meta3  double sum[1]: the finishing pass's total rank.
//   param_f32  eps: the residual magnitude at which a vertex becomes a task.
struct pr_residual_acc : wg_acc_defaults<float> {
  static const int kind = WG_AGGREGATION;
  static const bool carries = true;
  float *rank, *residual, *low;
  const float *push;
  float eps;
  __device__ pr_residual_acc(wg_meta m)
      : rank((float *)m.buf[0]), residual((float *)m.buf[1]), low((float *)m.buf[2] + 4 * m.num_vertices),
        push((const float *)m.buf[2]), eps(m.param_f32) {}
  __device__ bool active(uint32_t v) const { return wg_fabs(residual[v]) >= eps; }
  // take moves v's residual into its rank (atomically: v may have two
  // tasks in flight) and carries the share each out-neighbour receives.
  __device__ bool take(uint32_t v, float *carry) {
    float r = __builtin_bit_cast(float, atomicExch((unsigned *)&residual[v], 0u));
    if (r == 0.0f)
      return false;
    float old = atomicAdd(&rank[v], r), sum = old + r, part = sum - old; // Knuth's two-sum: the add's exact error
    float error = (old - (sum - part)) + (r - part);
    if (error != 0.0f)
      atomicAdd(&low[v], error);
    *carry = r * push[v];
    return *carry != 0.0f;
  }
  __device__ bool compute_carried(uint32_t, float carry, uint32_t, uint32_t, float *update) const {
    *update = carry;
    return true;
  }
  // combine_push queues dst when this update lifts its residual's
  // magnitude to eps.
  __device__ bool combine_push(uint32_t dst, float update) const {
    float before = atomicAdd(&residual[dst], update);
    return wg_fabs(before) < eps && wg_fabs(before + update) >= eps;
  }
};

WG_ATOS_ENTRIES(pr, pr_residual_acc)

// pr_atos_base_seed queues the vertices the prelude's last pull stamped
// (scheduler/atos.go, atosPrelude).
extern "C" __global__ void pr_atos_base_seed(uint32_t *items, uint32_t capacity, uint32_t *ctl, const uint32_t *stamps,
                                             uint32_t stamp, uint32_t num_vertices) {
  wg_atos_seed_stamped(items, capacity, ctl, stamps, stamp, num_vertices);
}

// pr_atos_base_fold adds the residual form's low parts into the ranks.
extern "C" __global__ void pr_atos_base_fold(WG_ACC_PARAMS) {
  float *rank = (float *)meta0;
  const float *low = (const float *)meta2 + 4 * num_vertices;
  for (uint32_t v = wg_global_id(); v < num_vertices; v += gridDim.x * blockDim.x)
    rank[v] += low[v];
}

// The finishing pass of the residual form: pr_atos_base_normsum adds every
// rank into sum[0] (per-warp float sums, one double atomic per warp), then
// pr_atos_base_normscale divides every rank by it.
extern "C" __global__ void pr_atos_base_normsum(WG_ACC_PARAMS) {
  const float *rank = (const float *)meta0;
  float sum = 0.0f;
  uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t base = wg_global_id() - wg_lane_id(); base < num_vertices; base += stride) {
    uint32_t v = base + wg_lane_id();
    if (v < num_vertices)
      sum += rank[v];
  }
  sum = wg_warp_sum(sum);
  if (wg_lane_id() == 0 && sum != 0.0f)
    atomicAdd((double *)meta3, (double)sum);
}

extern "C" __global__ void pr_atos_base_normscale(WG_ACC_PARAMS) {
  float *rank = (float *)meta0;
  float inv = (float)(1.0 / *(const double *)meta3);
  for (uint32_t v = wg_global_id(); v < num_vertices; v += gridDim.x * blockDim.x)
    rank[v] *= inv;
}

// Across the devices of a system: the residual push's warp workers with
// remote pushes; scheduler/alg_pr_residual.go gives their start (x = 0,
// every vertex a task) and finishing pass across devices.
#include "lib/atos_peers.cuh"
WG_ATOS_PEER_ENTRIES(pr, pr_residual_acc)
