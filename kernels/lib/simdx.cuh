// simdx.cuh — the SIMD-X runtime (Liu & Huang, ATC'19): work classified by
// degree, just-in-time frontier filters and push/pull switching, over the
// ACC contract. This header holds the host-driven form (fusion=none): each
// phase is one launch over a fixed grid, and the host reads a few words
// between iterations to choose the next filter and direction.
//
// Frontier lists. A frontier is three lists by out-degree in one buffer of
// 3|V| entries — small (< medium_from: a thread per vertex), medium (< large_from:
// a warp per vertex) and large (a CTA per vertex) at offsets 0, |V| and 2|V| —
// and a length record:
//   len[0..2]  entries in each list
//   len[3]     their total out-degree (the push workload, for the direction rule)
//   len[4]     1 when a thread bin overflowed (online filter)
//   len[5]     the most activations any thread recorded (the JIT's predictor)
//   len[6]     the vertices an aggregation sweep left active
//   len[7]     1 when duplicates from the bins overfilled a list in the gather
//              (its own word: a fused kernel reads len[4] after the compute
//              phase while other CTAs may already be gathering)
//
// Filters (how the next frontier is produced; emit_mode / scan_mode):
//   atomic   every activation claims its vertex (atomicExch on its stamp) and
//            appends it with its own atomicAdd: the baseline.
//   online   every thread records its activations in a private bin of
//            bin_size entries (bins[t*bin_size+i], global memory); the gather
//            phase concatenates the bins. Unsorted, may hold duplicates; a bin
//            that overflows sets len[4] and the host falls back to a scan.
//   ballot   activations only stamp their vertex (queued[v] = stamp); a scan
//            of the stamps in coalesced steps with warp ballots and a block
//            scan writes a sorted, duplicate-free list (two phases: count per
//            CTA, then write at the CTA's prefix).
//   batch    the same scan, each thread reading its own contiguous run of
//            vertices (sorted; uncoalesced reads).
//   strided  the same scan, thread t reading t, t+T, t+2T, ... (unsorted).
#ifndef WARPGRAPH_LIB_SIMDX_CUH
#define WARPGRAPH_LIB_SIMDX_CUH

#include "acc.cuh"
#include "barrier.cuh"
#include "frontier.cuh"

#define WG_EMIT_SCAN 0
#define WG_EMIT_ATOMIC 1
#define WG_EMIT_ONLINE 2
#define WG_EMIT_COUNT 3 // aggregation pulls: stamp and count the active vertices and their out-edges

#define WG_SCAN_BALLOT 0
#define WG_SCAN_BATCH 1
#define WG_SCAN_STRIDED 2

#define WG_LEN_EDGES 3
#define WG_LEN_OVERFLOW 4
#define WG_LEN_MAX_BIN 5
#define WG_LEN_ACTIVE 6
#define WG_LEN_GATHER_OVERFLOW 7

// wg_class returns a vertex's list: 0 small, 1 medium, 2 large.
WG_DEV uint32_t wg_class(uint32_t degree, uint32_t medium_from, uint32_t large_from) {
  return degree < medium_from ? 0u : (degree < large_from ? 1u : 2u);
}

// wg_emitter records the vertices a thread activates, as its filter says.
struct wg_emitter {
  const uint32_t *offsets;
  uint32_t *queued, *out_lists, *out_len, *bins;
  uint32_t n, stamp, bin_size, mode, medium_from, large_from;
  uint32_t count; // activations this thread recorded
  uint32_t edges; // count mode: their out-edges
  __device__ void emit(uint32_t v) {
    if (mode == WG_EMIT_COUNT) { // a pull emits each vertex once: no claim needed
      queued[v] = stamp;
      ++count;
      edges += offsets[v + 1] - offsets[v];
      return;
    }
    if (mode == WG_EMIT_ATOMIC) {
      if (!wg_claim_once(queued, v, stamp))
        return;
      uint32_t degree = offsets[v + 1] - offsets[v];
      uint32_t c = wg_class(degree, medium_from, large_from);
      out_lists[c * n + atomicAdd(&out_len[c], 1u)] = v;
      atomicAdd(&out_len[WG_LEN_EDGES], degree);
      return;
    }
    // Scan and online filters: a plain stamp, checked first so that most
    // repeated activations are not recorded twice (a race only duplicates).
    if (queued[v] == stamp)
      return;
    queued[v] = stamp;
    if (mode == WG_EMIT_ONLINE && count < bin_size)
      bins[wg_global_id() * bin_size + count] = v;
    ++count;
  }
  // finish publishes the thread's bin length and the overflow records; the
  // warp must be converged (a count sweep sums with shuffles).
  __device__ void finish(uint32_t *bin_count) const {
    if (mode == WG_EMIT_COUNT) {
      uint32_t total = wg_warp_sum(count), out_edges = wg_warp_sum(edges);
      if (wg_lane_id() == 0 && total > 0) {
        atomicAdd(&out_len[WG_LEN_ACTIVE], total);
        atomicAdd(&out_len[WG_LEN_EDGES], out_edges);
      }
      return;
    }
    if (mode == WG_EMIT_ONLINE) {
      bin_count[wg_global_id()] = count < bin_size ? count : bin_size;
      if (count > bin_size)
        out_len[WG_LEN_OVERFLOW] = 1;
    }
    // One atomic per warp: every thread's on one word would queue at the
    // L2 (hundreds of thousands on a large frontier).
    uint32_t most = wg_warp_max(count);
    if (wg_lane_id() == 0 && most > 0)
      atomicMax(&out_len[WG_LEN_MAX_BIN], most);
  }
};

#define WG_SIMDX_EMIT_PARAMS                                                                       \
  uint32_t *out_lists, uint32_t *out_len, uint32_t *bins, uint32_t *bin_count, uint32_t *queued,  \
      uint32_t stamp, uint32_t bin_size, uint32_t emit_mode, uint32_t medium_from,                 \
      uint32_t large_from
#define WG_SIMDX_EMITTER                                                                           \
  wg_emitter {                                                                                     \
    row_offsets, queued, out_lists, out_len, bins, num_vertices, stamp, bin_size, emit_mode,       \
        medium_from, large_from, 0, 0                                                              \
  }

// wg_push_edge applies one out-edge of v and emits its target if activated.
template <typename ALG>
WG_DEV void wg_push_edge(ALG &alg, const wg_graph &g, uint32_t v, uint32_t e, wg_emitter &out) {
  uint32_t u = g.targets[e];
  typename ALG::value_t update;
  if (alg.compute(v, u, g.weight(e), &update) && alg.combine_push(u, update))
    out.emit(u);
}

// Fewer large vertices than CTAs (a scale-free graph's hubs, early on):
// rather than a CTA each, the grid shares their edges evenly. Every CTA
// forms the prefix sum of their degrees in shared memory; CTA b walks the
// edges [b*E/G, (b+1)*E/G) of their concatenation, each thread finding
// the vertex of its edge from there on. Every thread of the CTA calls it.
#define WG_SIMDX_HUBS 1024
template <typename ALG>
WG_DEV void wg_simdx_push_hubs(ALG &alg, const wg_graph &g, const uint32_t *list, uint32_t count, wg_emitter &out) {
  __shared__ uint32_t s_end[WG_SIMDX_HUBS]; // s_end[i]: edges of list[0..i]
  if (threadIdx.x < warpSize) {
    uint32_t carry = 0, lane = threadIdx.x;
    for (uint32_t base = 0; base < count; base += warpSize) {
      uint32_t i = base + lane, x = i < count ? g.end(list[i]) - g.begin(list[i]) : 0u;
      for (uint32_t d = 1; d < warpSize; d <<= 1) { // inclusive warp scan
        uint32_t y = __shfl_up_sync(WG_FULL_MASK, x, d);
        if (lane >= d)
          x += y;
      }
      if (i < count)
        s_end[i] = carry + x;
      carry += __shfl_sync(WG_FULL_MASK, x, warpSize - 1);
    }
  }
  __syncthreads();
  uint64_t total = s_end[count - 1];
  uint32_t lo = (uint32_t)(total * blockIdx.x / gridDim.x), hi = (uint32_t)(total * (blockIdx.x + 1) / gridDim.x);
  uint32_t j = lo + threadIdx.x;
  if (j < hi) {
    uint32_t a = 0, b = count - 1; // the first vertex whose edges end past j
    while (a < b) {
      uint32_t mid = (a + b) / 2;
      if (s_end[mid] > j)
        b = mid;
      else
        a = mid + 1;
    }
    uint32_t v = list[a], first = s_end[a] - (g.end(v) - g.begin(v));
    for (; j < hi; j += blockDim.x) {
      while (s_end[a] <= j) {
        v = list[++a];
        first = s_end[a - 1];
      }
      wg_push_edge(alg, g, v, g.begin(v) + (j - first), out);
    }
  }
  __syncthreads(); // s_end is rewritten by the next call
}

// Push over the three lists: CTAs take large vertices, warps medium ones and
// threads small ones, each with a grid-stride loop.
template <typename ALG>
static __device__ __noinline__ void wg_simdx_push(WG_ACC_PARAMS, const uint32_t *in_lists, const uint32_t *in_len,
                          WG_SIMDX_EMIT_PARAMS) {
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  wg_emitter out = WG_SIMDX_EMITTER;
  uint32_t n = num_vertices;
  uint32_t large = in_len[2];
  if (large > 0 && large <= WG_SIMDX_HUBS && large < gridDim.x) {
    wg_simdx_push_hubs(alg, g, in_lists + 2 * n, large, out);
  } else {
    for (uint32_t i = blockIdx.x; i < large; i += gridDim.x) {
      uint32_t v = in_lists[2 * n + i];
      for (uint32_t e = g.begin(v) + threadIdx.x; e < g.end(v); e += blockDim.x)
        wg_push_edge(alg, g, v, e, out);
    }
  }
  uint32_t warps = gridDim.x * blockDim.x / warpSize;
  for (uint32_t i = wg_global_id() / warpSize; i < in_len[1]; i += warps) {
    uint32_t v = in_lists[n + i];
    for (uint32_t e = g.begin(v) + wg_lane_id(); e < g.end(v); e += warpSize)
      wg_push_edge(alg, g, v, e, out);
  }
  for (uint32_t i = wg_global_id(); i < in_len[0]; i += gridDim.x * blockDim.x) {
    uint32_t v = in_lists[i];
    for (uint32_t e = g.begin(v); e < g.end(v); ++e)
      wg_push_edge(alg, g, v, e, out);
  }
  out.finish(bin_count);
}

// wg_gather_edges reduces the updates of dst's in-edges [first, end),
// stopping at the update that settles a voting vertex.
template <typename ALG>
WG_DEV typename ALG::value_t wg_gather_edges(ALG &alg, const wg_graph &g, uint32_t dst, uint32_t first,
                                             uint32_t end) {
  typename ALG::value_t acc = alg.identity();
  for (uint32_t e = first; e < end; ++e) {
    typename ALG::value_t update;
    if (alg.compute(g.targets[e], dst, g.weight(e), &update)) {
      acc = alg.reduce(acc, update);
      if (ALG::kind == WG_VOTING && alg.pull_done(acc))
        break;
    }
  }
  return acc;
}

// wg_gather_sum reduces the updates of dst's in-edges first, first+step,
// ... below end, for aggregation (every update counts): four edges' loads
// are in flight before the first is added, where a loop that reduces as it
// goes waits out each gather's latency in turn.
template <typename ALG>
WG_DEV typename ALG::value_t wg_gather_sum(ALG &alg, const wg_graph &g, uint32_t dst, uint32_t first, uint32_t end,
                                           uint32_t step) {
  typedef typename ALG::value_t V;
  V acc = alg.identity();
  uint32_t e = first;
  for (; e + 3 * step < end; e += 4 * step) {
    uint32_t s0 = g.targets[e], s1 = g.targets[e + step], s2 = g.targets[e + 2 * step], s3 = g.targets[e + 3 * step];
    V u0, u1, u2, u3;
    bool k0 = alg.compute(s0, dst, g.weight(e), &u0), k1 = alg.compute(s1, dst, g.weight(e + step), &u1);
    bool k2 = alg.compute(s2, dst, g.weight(e + 2 * step), &u2), k3 = alg.compute(s3, dst, g.weight(e + 3 * step), &u3);
    if (k0)
      acc = alg.reduce(acc, u0);
    if (k1)
      acc = alg.reduce(acc, u1);
    if (k2)
      acc = alg.reduce(acc, u2);
    if (k3)
      acc = alg.reduce(acc, u3);
  }
  for (; e < end; e += step) {
    V u;
    if (alg.compute(g.targets[e], dst, g.weight(e), &u))
      acc = alg.reduce(acc, u);
  }
  return acc;
}

// wg_warp_reduce combines a value over the 32 lanes with the algorithm's
// reduction; every lane gets the result.
template <typename ALG>
WG_DEV typename ALG::value_t wg_warp_reduce(ALG &alg, typename ALG::value_t x) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    x = alg.reduce(x, __shfl_xor_sync(WG_FULL_MASK, x, offset));
  return x;
}

// wg_block_reduce combines one value per thread over the CTA with the
// algorithm's reduction; the result is valid in warp 0 (thread 0 uses it).
// Every thread calls it; partial holds 32 values of shared memory, which
// warp 0 has read when it returns (it may write partial[0] at once; others
// must wait for the caller's next __syncthreads).
template <typename ALG>
WG_DEV typename ALG::value_t wg_block_reduce(ALG &alg, typename ALG::value_t mine, typename ALG::value_t *partial) {
  uint32_t lane = wg_lane_id(), warp = wg_warp_id();
  mine = wg_warp_reduce(alg, mine);
  if (lane == 0)
    partial[warp] = mine;
  __syncthreads();
  typename ALG::value_t x = alg.identity();
  if (warp == 0)
    x = wg_warp_reduce(alg, lane < blockDim.x / warpSize ? partial[lane] : alg.identity());
  return x;
}

// Pull over the in-degree classes (g is the reverse CSR; pull_lists holds
// every vertex once, classified by in-degree, as the push lists are by
// out-degree): CTAs gather for large vertices, warps for medium ones,
// threads for small ones. Warps and CTAs gather in chunks of 32 or blockDim
// edges and stop after the first chunk that settles a voting vertex.
// out_offsets are the out-edge offsets, for classifying emitted vertices.
template <typename ALG>
static __device__ __noinline__ void wg_simdx_pull(WG_ACC_PARAMS, const uint32_t *out_offsets, const uint32_t *pull_lists,
                          const uint32_t *pull_len, WG_SIMDX_EMIT_PARAMS) {
  typedef typename ALG::value_t V;
  __shared__ V partial[32];
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  wg_emitter out = WG_SIMDX_EMITTER;
  out.offsets = out_offsets;
  uint32_t n = num_vertices, lane = wg_lane_id(), warp = wg_warp_id();
  for (uint32_t i = blockIdx.x; i < pull_len[2]; i += gridDim.x) {
    uint32_t dst = pull_lists[2 * n + i];
    if (!alg.wants_pull(dst)) // the same answer in every thread
      continue;
    V acc = alg.identity();
    if (ALG::kind == WG_AGGREGATION) { // no early exit: one reduction at the end
      V x = wg_block_reduce(alg, wg_gather_sum(alg, g, dst, g.begin(dst) + threadIdx.x, g.end(dst), blockDim.x), partial);
      if (threadIdx.x == 0 && alg.combine_pull(dst, x))
        out.emit(dst);
      __syncthreads(); // partial is rewritten by the next vertex
      continue;
    }
    for (uint32_t chunk = g.begin(dst); chunk < g.end(dst); chunk += blockDim.x) {
      uint32_t e = chunk + threadIdx.x, end = g.end(dst);
      V x = wg_block_reduce(alg, wg_gather_edges(alg, g, dst, e, e + 1 < end ? e + 1 : end), partial);
      if (threadIdx.x == 0)
        partial[0] = alg.reduce(acc, x);
      __syncthreads();
      acc = partial[0];
      __syncthreads(); // partial is rewritten by the next chunk
      if (ALG::kind == WG_VOTING && alg.pull_done(acc))
        break;
    }
    if (threadIdx.x == 0 && alg.combine_pull(dst, acc))
      out.emit(dst);
  }
  uint32_t warps = gridDim.x * blockDim.x / warpSize;
  for (uint32_t i = wg_global_id() / warpSize; i < pull_len[1]; i += warps) {
    uint32_t dst = pull_lists[n + i];
    if (!alg.wants_pull(dst))
      continue;
    V acc = alg.identity();
    if (ALG::kind == WG_AGGREGATION) {
      acc = wg_warp_reduce(alg, wg_gather_sum(alg, g, dst, g.begin(dst) + lane, g.end(dst), warpSize));
      if (lane == 0 && alg.combine_pull(dst, acc))
        out.emit(dst);
      continue;
    }
    for (uint32_t chunk = g.begin(dst); chunk < g.end(dst); chunk += warpSize) {
      uint32_t e = chunk + lane, end = g.end(dst);
      V mine = wg_gather_edges(alg, g, dst, e, e + 1 < end ? e + 1 : end);
      acc = alg.reduce(acc, wg_warp_reduce(alg, mine));
      if (ALG::kind == WG_VOTING && alg.pull_done(acc))
        break;
    }
    if (lane == 0 && alg.combine_pull(dst, acc))
      out.emit(dst);
  }
  for (uint32_t i = wg_global_id(); i < pull_len[0]; i += gridDim.x * blockDim.x) {
    uint32_t dst = pull_lists[i];
    if (!alg.wants_pull(dst))
      continue;
    V acc = ALG::kind == WG_AGGREGATION ? wg_gather_sum(alg, g, dst, g.begin(dst), g.end(dst), 1u)
                                        : wg_gather_edges(alg, g, dst, g.begin(dst), g.end(dst));
    if (alg.combine_pull(dst, acc))
      out.emit(dst);
  }
  alg.finish();
  out.finish(bin_count);
}

// wg_activate stamps every vertex the algorithm calls active: the first
// frontier of algorithms without a start list, found by a scan filter.
template <typename ALG> WG_DEV void wg_simdx_activate(WG_ACC_PARAMS, uint32_t *queued, uint32_t stamp) {
  ALG alg(WG_ACC_META);
  for (uint32_t v = wg_global_id(); v < num_vertices; v += gridDim.x * blockDim.x)
    if (alg.active(v))
      queued[v] = stamp;
}

// ---- scan filters: ballot, batch, strided ---------------------------------

// wg_block_exclusive3 turns each thread's three counts into its exclusive
// offsets within the CTA and returns the CTA's totals in totals[3]; every
// thread of the CTA must call it. scratch holds 3*32 words of shared memory.
WG_DEV void wg_block_exclusive3(uint32_t counts[3], uint32_t offsets[3], uint32_t totals[3],
                                uint32_t *scratch) {
  uint32_t lane = wg_lane_id(), warp = wg_warp_id(), warps = blockDim.x / warpSize;
  for (uint32_t k = 0; k < 3; ++k) {
    uint32_t x = counts[k];
    for (uint32_t d = 1; d < warpSize; d <<= 1) { // inclusive warp scan
      uint32_t y = __shfl_up_sync(WG_FULL_MASK, x, d);
      if (lane >= d)
        x += y;
    }
    offsets[k] = x - counts[k];
    if (lane == warpSize - 1)
      scratch[k * 32 + warp] = x;
  }
  __syncthreads();
  if (warp == 0) {
    for (uint32_t k = 0; k < 3; ++k) {
      uint32_t x = lane < warps ? scratch[k * 32 + lane] : 0;
      uint32_t inclusive = x;
      for (uint32_t d = 1; d < warpSize; d <<= 1) {
        uint32_t y = __shfl_up_sync(WG_FULL_MASK, inclusive, d);
        if (lane >= d)
          inclusive += y;
      }
      if (lane < warps)
        scratch[k * 32 + lane] = inclusive - x; // exclusive prefix of warps
      uint32_t total = __shfl_sync(WG_FULL_MASK, inclusive, 31);
      if (lane == 0)
        scratch[96 + k] = total;
    }
  }
  __syncthreads();
  for (uint32_t k = 0; k < 3; ++k) {
    offsets[k] += scratch[k * 32 + warp];
    totals[k] = scratch[96 + k];
  }
  __syncthreads(); // scratch is reused by the next call
}

// ---- online filter: concatenate the thread bins ---------------------------

// Each thread appends its own bin (the compute phase ran with the same grid
// and block, so thread t owns bins[t*bin_size ...]). A CTA counts its
// entries per list, reserves room with one atomic per list and writes them
// at its threads' offsets (atomics per warp step queued at the L2 on large
// frontiers). Duplicates can make a list exceed |V| entries: then len[7] is
// set and the frontier is rebuilt with a scan. Every thread of the CTA
// calls it.
static __device__ __noinline__ void wg_simdx_gather(const uint32_t *row_offsets, uint32_t n, const uint32_t *bins,
                            const uint32_t *bin_count, uint32_t bin_size, uint32_t *out_lists,
                            uint32_t *out_len, uint32_t medium_from, uint32_t large_from) {
  __shared__ uint32_t scratch[100];
  __shared__ uint32_t base[3];
  uint32_t t = wg_global_id();
  uint32_t count = bin_count[t];
  if (!__syncthreads_or(count != 0)) // most CTAs on a small frontier
    return;
  const uint32_t *bin = bins + t * bin_size;
  // classes keeps the first 16 entries' lists, 2 bits each, so the write
  // pass reads their degrees only once.
  uint32_t counts[3] = {0, 0, 0}, offsets[3], totals[3], edges = 0, classes = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t v = bin[i], degree = row_offsets[v + 1] - row_offsets[v];
    uint32_t c = wg_class(degree, medium_from, large_from);
    ++counts[c];
    edges += degree;
    if (i < 16)
      classes |= c << (2 * i);
  }
  wg_block_exclusive3(counts, offsets, totals, scratch);
  if (threadIdx.x < 3) {
    uint32_t k = threadIdx.x, at = totals[k] > 0 ? atomicAdd(&out_len[k], totals[k]) : 0u;
    if (at + totals[k] > n) { // duplicates overfilled the list
      out_len[WG_LEN_GATHER_OVERFLOW] = 1;
      at = n; // nothing written
    }
    base[k] = at;
  }
  __syncthreads();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t v = bin[i];
    uint32_t c = i < 16 ? (classes >> (2 * i)) & 3u : wg_class(row_offsets[v + 1] - row_offsets[v], medium_from, large_from);
    if (base[c] < n)
      out_lists[c * n + base[c] + offsets[c]++] = v;
  }
  edges = wg_warp_sum(edges); // one atomic per warp on the shared total
  if (wg_lane_id() == 0 && edges > 0)
    atomicAdd(&out_len[WG_LEN_EDGES], edges);
}

// The vertices a thread examines in a scan: ballot walks the CTA's chunk in
// coalesced steps of blockDim, batch gives each thread a contiguous run of
// the chunk, strided interleaves all threads over all vertices.
struct wg_scan_range {
  uint32_t first, step, end;
  __device__ wg_scan_range(uint32_t n, uint32_t mode) {
    uint32_t threads = gridDim.x * blockDim.x;
    if (mode == WG_SCAN_STRIDED) {
      first = wg_global_id(), step = threads, end = n;
      return;
    }
    uint32_t chunk = (n + gridDim.x - 1) / gridDim.x;
    uint32_t lo = blockIdx.x * chunk;
    uint32_t hi = lo + chunk < n ? lo + chunk : n;
    if (lo > hi)
      lo = hi;
    if (mode == WG_SCAN_BALLOT) {
      first = lo + threadIdx.x, step = blockDim.x, end = hi;
      return;
    }
    uint32_t run = (hi - lo + blockDim.x - 1) / blockDim.x;
    first = lo + threadIdx.x * run, step = 1;
    end = first + run < hi ? first + run : hi;
  }
};

// Count phase: per CTA, the stamped vertices of each list.
static __device__ __noinline__ void wg_simdx_scan_count(const uint32_t *row_offsets, uint32_t n, const uint32_t *queued,
                                uint32_t stamp, uint32_t *cta_counts, uint32_t scan_mode,
                                uint32_t medium_from, uint32_t large_from) {
  __shared__ uint32_t scratch[100];
  uint32_t counts[3] = {0, 0, 0}, offsets[3], totals[3];
  wg_scan_range r(n, scan_mode);
  for (uint32_t v = r.first; v < r.end; v += r.step)
    if (queued[v] == stamp)
      ++counts[wg_class(row_offsets[v + 1] - row_offsets[v], medium_from, large_from)];
  wg_block_exclusive3(counts, offsets, totals, scratch);
  if (threadIdx.x < 3)
    cta_counts[3 * blockIdx.x + threadIdx.x] = totals[threadIdx.x];
}

// Write phase: each CTA writes its stamped vertices at the sum of the
// earlier CTAs' counts plus its threads' offsets. In ballot mode a block
// scan per step keeps the chunk's order, so the lists come out sorted.
static __device__ __noinline__ void wg_simdx_scan_write(const uint32_t *row_offsets, uint32_t n, const uint32_t *queued,
                                uint32_t stamp, const uint32_t *cta_counts, uint32_t scan_mode,
                                uint32_t *out_lists, uint32_t *out_len, uint32_t medium_from,
                                uint32_t large_from) {
  __shared__ uint32_t scratch[100];
  __shared__ uint32_t base[3];
  uint32_t before[3] = {0, 0, 0}, offsets[3], totals[3];
  for (uint32_t c = threadIdx.x; c < blockIdx.x; c += blockDim.x)
    for (uint32_t k = 0; k < 3; ++k)
      before[k] += cta_counts[3 * c + k];
  wg_block_exclusive3(before, offsets, totals, scratch); // totals = CTA's base
  if (threadIdx.x < 3) {
    base[threadIdx.x] = totals[threadIdx.x];
    if (blockIdx.x == gridDim.x - 1) // the last CTA knows the lengths
      out_len[threadIdx.x] = totals[threadIdx.x] + cta_counts[3 * blockIdx.x + threadIdx.x];
  }
  __syncthreads();
  wg_scan_range r(n, scan_mode);
  uint32_t edges = 0;
  if (scan_mode == WG_SCAN_BALLOT) {
    // Every thread runs the same number of steps (the chunk's, rounded up).
    uint32_t lo = r.first - threadIdx.x;
    for (uint32_t s = lo; s < r.end; s += blockDim.x) {
      uint32_t v = s + threadIdx.x, counts[3] = {0, 0, 0}, c = 3, degree = 0;
      if (v < r.end && queued[v] == stamp) {
        degree = row_offsets[v + 1] - row_offsets[v];
        c = wg_class(degree, medium_from, large_from);
        counts[c] = 1;
      }
      wg_block_exclusive3(counts, offsets, totals, scratch);
      if (c < 3) {
        out_lists[c * n + base[c] + offsets[c]] = v;
        edges += degree;
      }
      __syncthreads();
      if (threadIdx.x < 3)
        base[threadIdx.x] += totals[threadIdx.x];
      __syncthreads();
    }
  } else {
    uint32_t counts[3] = {0, 0, 0};
    for (uint32_t v = r.first; v < r.end; v += r.step)
      if (queued[v] == stamp)
        ++counts[wg_class(row_offsets[v + 1] - row_offsets[v], medium_from, large_from)];
    wg_block_exclusive3(counts, offsets, totals, scratch);
    for (uint32_t v = r.first; v < r.end; v += r.step) {
      if (queued[v] != stamp)
        continue;
      uint32_t degree = row_offsets[v + 1] - row_offsets[v];
      uint32_t c = wg_class(degree, medium_from, large_from);
      out_lists[c * n + base[c] + offsets[c]++] = v;
      edges += degree;
    }
  }
  edges = wg_warp_sum(edges); // one atomic per warp on the shared total
  if (wg_lane_id() == 0 && edges > 0)
    atomicAdd(&out_len[WG_LEN_EDGES], edges);
}

// ---- small frontiers: one CTA runs levels alone --------------------------
//
// A high-diameter graph (a road network, a mesh) spends thousands of
// iterations on frontiers of a few hundred vertices, where a grid barrier
// costs more than the work (the small-frontier problem). When the frontier
// fits WG_LOCAL_MAX entries, CTA 0 runs the following push levels by
// itself: the frontier in shared memory, edges spread over the CTA's
// threads (each thread binary-searches the degree prefix sum for the
// vertex of its edge), __syncthreads between levels, duplicates kept out
// by the same stamps as the grid phases. The other CTAs wait at the next
// grid barrier. CTA 0 stops when the frontier empties, when a level has
// more out-edges than WG_LOCAL_EDGES (it hands the frontier back through
// the usual lists), or when the frontier outgrows the shared queue (the
// stamps rebuild it with a scan).

#define WG_LOCAL_MAX 1024
// The most out-edges a level may have for CTA 0 to run it alone.
#define WG_LOCAL_EDGES(local_max) (4 * (local_max))

// local result words, in control[5..7]: the iteration reached, the
// outcome (0 frontier empty, 1 handed back in the lists, 2 outgrew the
// queue: rebuild from the stamps of the last level), the stamp to rebuild.
#define WG_CTL_LOCAL_ITER 5
#define WG_CTL_LOCAL_OUTCOME 6
#define WG_CTL_LOCAL_STAMP 7

template <typename ALG>
static __device__ __noinline__ void
wg_simdx_local(WG_ACC_PARAMS, uint32_t *lists, uint32_t *len, uint32_t *queued, uint32_t *control,
               uint32_t *log, uint32_t max_log, uint32_t local_max, uint32_t max_iterations,
               uint32_t medium_from, uint32_t large_from) {
  __shared__ uint32_t queue[2][WG_LOCAL_MAX];
  __shared__ uint32_t prefix[WG_LOCAL_MAX + 1];
  __shared__ uint32_t count[2], scratch[100];
  wg_graph g = WG_ACC_GRAPH;
  uint32_t n = num_vertices, tid = threadIdx.x;
  if (tid == 0) {
    count[0] = 0;
    for (uint32_t c = 0; c < 3; ++c) // gather the three lists into one queue
      for (uint32_t i = 0; i < len[c]; ++i)
        queue[0][count[0]++] = lists[c * n + i];
  }
  __syncthreads();
  uint32_t cur = 0, iter = iteration, outcome = 0, stamp = 0;
  for (;;) {
    uint32_t size = count[cur];
    if (size == 0 || iter >= max_iterations) {
      outcome = 0;
      break;
    }
    // Degree prefix sum over the frontier: each thread sums a run of
    // entries, a block scan places the runs.
    uint32_t per = (size + blockDim.x - 1) / blockDim.x;
    uint32_t lo = tid * per < size ? tid * per : size, hi = lo + per < size ? lo + per : size;
    uint32_t sums[3] = {0, 0, 0}, offsets[3], totals[3];
    for (uint32_t i = lo; i < hi; ++i) {
      uint32_t v = queue[cur][i];
      sums[0] += g.end(v) - g.begin(v);
    }
    wg_block_exclusive3(sums, offsets, totals, scratch);
    uint32_t run = offsets[0];
    for (uint32_t i = lo; i < hi; ++i) {
      prefix[i] = run;
      uint32_t v = queue[cur][i];
      run += g.end(v) - g.begin(v);
    }
    uint32_t nxt = 1 - cur;
    if (tid == 0) {
      prefix[size] = totals[0];
      count[nxt] = 0;
    }
    __syncthreads();
    if (prefix[size] > WG_LOCAL_EDGES(local_max)) { // too much work for one CTA: the grid takes it
      outcome = 1;
      break;
    }
    stamp = iter + 2;
    wg_meta m = WG_ACC_META;
    m.iteration = iter;
    ALG alg(m);
    if (ALG::kind == WG_AGGREGATION) { // its push moves state: take it first
      for (uint32_t i = tid; i < size; i += blockDim.x) {
        typename ALG::value_t carry;
        alg.take(queue[cur][i], &carry);
      }
      __syncthreads();
    }
    for (uint32_t k = tid; k < prefix[size]; k += blockDim.x) {
      uint32_t a = 0, b = size; // the last entry whose prefix is <= k
      while (b - a > 1) {
        uint32_t mid = (a + b) / 2;
        if (prefix[mid] <= k)
          a = mid;
        else
          b = mid;
      }
      uint32_t v = queue[cur][a], e = g.begin(v) + (k - prefix[a]), u = g.targets[e];
      typename ALG::value_t update;
      if (alg.compute(v, u, g.weight(e), &update) && alg.combine_push(u, update) &&
          wg_claim_once(queued, u, stamp)) {
        uint32_t at = atomicAdd(&count[nxt], 1u);
        if (at < local_max)
          queue[nxt][at] = u;
      }
    }
    __syncthreads();
    uint32_t produced = count[nxt];
    if (tid == 0 && iter < max_log) {
      uint32_t *rec = log + 8 * iter;
      rec[0] = size, rec[1] = produced, rec[2] = 6, rec[3] = 0, rec[4] = 0, rec[5] = prefix[size];
    }
    ++iter;
    cur = nxt;
    if (produced > local_max) {
      outcome = 2;
      break;
    }
  }
  if (outcome == 0 && count[cur] > 0)
    outcome = 1;
  // Hand back: the lists of the record the grid reads next, classified.
  if (tid == 0) {
    for (uint32_t w = 0; w < 8; ++w)
      len[w] = 0;
    if (outcome == 1)
      for (uint32_t i = 0; i < count[cur]; ++i) {
        uint32_t v = queue[cur][i], degree = g.end(v) - g.begin(v);
        uint32_t c = wg_class(degree, medium_from, large_from);
        lists[c * n + len[c]++] = v;
        len[WG_LEN_EDGES] += degree;
      }
    control[WG_CTL_LOCAL_ITER] = iter;
    control[WG_CTL_LOCAL_OUTCOME] = outcome;
    control[WG_CTL_LOCAL_STAMP] = stamp;
  }
}

// ---- fusion: the whole loop in one persistent kernel ----------------------
//
// A fused kernel runs iteration after iteration inside one launch, crossing
// a grid barrier (barrier.cuh) between phases, and makes the filter and
// direction decisions on the device: every thread reads the same length
// record after a barrier and so decides the same. The grid must be
// co-resident (the host sizes it from occupancy); every wait is under the
// spin protocol.
//
// Entries per algorithm: <alg>_simdx_all_run (push and pull in one kernel:
// SIMD-X's all-fusion), and <alg>_simdx_pushpull_push / _pull (SIMD-X's
// push-pull fusion: one kernel per direction, each leaving when the
// direction changes, so the host relaunches the other).
//
// lists holds both frontiers (A at 0, B at 3|V|) and lens both length
// records (A at 0, B at 8). control is the loop's state across launches:
//   [0] iteration  [1] current frontier (0 A, 1 B)  [2] why the kernel left
//   (0 converged, 1 direction change, 2 iteration limit)  [3] the next
//   iteration's filter  [4] its direction (0 push, 1 pull).
// log gets 8 words per iteration (while iteration < max_log): frontier in,
// frontier out, filter, overflow, direction, the frontier's out-edges.
// filter codes: 0 online, 1 ballot, 2 batch, 3 strided, 4 atomic; filter_mode
// adds 5 = jit. direction_mode: 0 push only, 1 auto (pull above pull_edges).

#define WG_FILTER_ONLINE 0
#define WG_FILTER_ATOMIC 4
#define WG_FILTER_JIT 5

// wg_grid_sync_kind crosses a barrier of the kind chosen at run time (one
// kernel serves every kind; the switch costs a few instructions a barrier).
// Not inlined: one copy per module instead of four barriers at every call.
static __device__ __noinline__ bool wg_grid_sync_kind(uint32_t kind, uint32_t *state, uint32_t *generation,
                              uint32_t spin_budget, int *abort_flag) {
  switch (kind) {
  case WG_BARRIER_MONITOR:
    return wg_grid_sync<WG_BARRIER_MONITOR>(state, generation, spin_budget, abort_flag);
  case WG_BARRIER_COUNTER:
    return wg_grid_sync<WG_BARRIER_COUNTER>(state, generation, spin_budget, abort_flag);
  case WG_BARRIER_TREE:
    return wg_grid_sync<WG_BARRIER_TREE>(state, generation, spin_budget, abort_flag);
  default:
    return wg_grid_sync<WG_BARRIER_COOP>(state, generation, spin_budget, abort_flag);
  }
}

#define WG_SIMDX_FUSED_PARAMS                                                                      \
  WG_ACC_PARAMS, const uint32_t *in_offsets, const uint32_t *in_targets,                           \
      const uint32_t *in_weights, uint32_t *lists, uint32_t *lens, uint32_t *bins,                 \
      uint32_t *bin_count, uint32_t *cta_counts, uint32_t *queued, const uint32_t *pull_lists,     \
      const uint32_t *pull_len, uint32_t *control, uint32_t *log, uint32_t max_log,                \
      uint32_t bin_size, uint32_t medium_from, uint32_t large_from, uint32_t pull_edges,           \
      uint32_t filter_mode, uint32_t direction_mode, uint32_t max_iterations, uint32_t local_max,   \
      uint32_t *bucket_words, uint32_t bucket_delta, uint32_t *barrier_state, uint32_t barrier_kind, \
      uint32_t spin_budget, int *abort_flag
#define WG_SIMDX_FUSED_ARGS                                                                        \
  WG_ACC_ARGS, in_offsets, in_targets, in_weights, lists, lens, bins, bin_count, cta_counts,       \
      queued, pull_lists, pull_len, control, log, max_log, bin_size, medium_from, large_from,      \
      pull_edges, filter_mode, direction_mode, max_iterations, local_max, bucket_words,             \
      bucket_delta, barrier_state, barrier_kind, spin_budget, abort_flag

// wg_list_size is a length record's vertex count (its three lists).
WG_DEV uint32_t wg_list_size(const uint32_t *len) {
  uint32_t size = 0;
  for (uint32_t c = 0; c < 3; ++c)
    size += wg_load_volatile(&len[c]);
  return size;
}

// wg_simdx_fused_scan lists the vertices stamped stamp into lists and len
// with a scan of the given mode, across the grid barrier each of its two
// phases ends with; false when a barrier gave up (the kernel must return).
WG_DEV bool wg_simdx_fused_scan(const uint32_t *row_offsets, uint32_t n, uint32_t *queued, uint32_t stamp,
                                uint32_t *cta_counts, uint32_t mode, uint32_t *lists, uint32_t *len,
                                uint32_t medium_from, uint32_t large_from, uint32_t barrier_kind,
                                uint32_t *barrier_state, uint32_t *generation, uint32_t spin_budget,
                                int *abort_flag) {
  wg_simdx_scan_count(row_offsets, n, queued, stamp, cta_counts, mode, medium_from, large_from);
  if (!wg_grid_sync_kind(barrier_kind, barrier_state, generation, spin_budget, abort_flag))
    return false;
  wg_simdx_scan_write(row_offsets, n, queued, stamp, cta_counts, mode, lists, len, medium_from, large_from);
  return wg_grid_sync_kind(barrier_kind, barrier_state, generation, spin_budget, abort_flag);
}

template <typename ALG, bool PUSH, bool PULL> WG_DEV void wg_simdx_fused(WG_SIMDX_FUSED_PARAMS) {
  uint32_t n = num_vertices;
  uint32_t generation = wg_grid_sync_begin(barrier_state);
  bool leader = wg_global_id() == 0;
#define WG_SYNC()                                                                                  \
  if (!wg_grid_sync_kind(barrier_kind, barrier_state, &generation, spin_budget, abort_flag))       \
    return;
#define WG_SCAN(STAMP, MODE)                                                                       \
  if (!wg_simdx_fused_scan(row_offsets, n, queued, STAMP, cta_counts, MODE, nxt_lists, nxt_len,    \
                           medium_from, large_from, barrier_kind, barrier_state, &generation,      \
                           spin_budget, abort_flag))                                               \
    return;
  uint32_t iter = wg_load_volatile(&control[0]), cur = wg_load_volatile(&control[1]);
  uint32_t filter = wg_load_volatile(&control[3]), dir = wg_load_volatile(&control[4]);
  uint32_t size_in = wg_list_size(lens + 8 * cur);
  for (;;) {
    uint32_t nxt = 1 - cur, stamp = iter + 2;
    uint32_t *cur_lists = lists + 3 * n * cur, *nxt_lists = lists + 3 * n * nxt;
    uint32_t *cur_len = lens + 8 * cur, *nxt_len = lens + 8 * nxt;
    uint32_t emit = filter == WG_FILTER_ONLINE ? WG_EMIT_ONLINE
                                               : (filter == WG_FILTER_ATOMIC ? WG_EMIT_ATOMIC : WG_EMIT_SCAN);
    iteration = iter;
    if (PUSH && dir == 0)
      wg_simdx_push<ALG>(WG_ACC_ARGS, cur_lists, cur_len, nxt_lists, nxt_len, bins, bin_count,
                         queued, stamp, bin_size, emit, medium_from, large_from);
    if (PULL && dir == 1)
      wg_simdx_pull<ALG>(in_offsets, in_targets, in_weights, num_vertices, meta0, meta1, meta2,
                         meta3, iteration, param_u32, param_f32, row_offsets, pull_lists, pull_len,
                         nxt_lists, nxt_len, bins, bin_count, queued, stamp, bin_size, emit,
                         medium_from, large_from);
    WG_SYNC();
    if (leader) // the current record was last read by the compute phase
      for (uint32_t w = 0; w < 8; ++w)
        cur_len[w] = 0;
    bool overflow = wg_load_volatile(&nxt_len[WG_LEN_OVERFLOW]) != 0;
    bool scan = filter != WG_FILTER_ONLINE && filter != WG_FILTER_ATOMIC;
    if (filter == WG_FILTER_ONLINE && !overflow) {
      wg_simdx_gather(row_offsets, n, bins, bin_count, bin_size, nxt_lists, nxt_len, medium_from,
                      large_from);
      WG_SYNC();
      if (wg_load_volatile(&nxt_len[WG_LEN_GATHER_OVERFLOW]) != 0) { // duplicates overfilled a list
        overflow = true;
        if (leader)
          for (uint32_t w = 0; w <= WG_LEN_EDGES; ++w)
            nxt_len[w] = 0;
        WG_SYNC();
      }
    }
    if (scan || overflow) {
      WG_SCAN(stamp, filter == WG_FILTER_ONLINE ? WG_SCAN_BALLOT : filter - 1);
    }
    uint32_t size_out = wg_list_size(nxt_len);
    uint32_t edges = wg_load_volatile(&nxt_len[WG_LEN_EDGES]);
    bool would_overflow = wg_load_volatile(&nxt_len[WG_LEN_MAX_BIN]) > bin_size;
    if (leader && iter < max_log) {
      uint32_t *rec = log + 8 * iter;
      rec[0] = size_in, rec[1] = size_out, rec[2] = filter, rec[3] = overflow || would_overflow;
      rec[4] = dir, rec[5] = edges;
    }
    uint32_t next_filter = filter;
    if (filter_mode == WG_FILTER_JIT)
      next_filter = would_overflow || overflow ? 1u : (uint32_t)WG_FILTER_ONLINE;
    uint32_t next_dir = direction_mode == 1 && edges > pull_edges ? 1u : 0u;
    ++iter;
    uint32_t why = 3;
    if (size_out == 0)
      why = 0;
    else if (!(PUSH && PULL) && next_dir != dir)
      why = 1;
    else if (iter >= max_iterations)
      why = 2;
    if (why == 3 && PUSH && next_dir == 0 && size_out <= local_max &&
        edges <= WG_LOCAL_EDGES(local_max)) {
      // A small frontier: CTA 0 runs levels alone while the grid waits,
      // once every thread has read the lengths that it rewrites.
      WG_SYNC();
      if (blockIdx.x == 0)
        wg_simdx_local<ALG>(row_offsets, col_indices, edge_weights, num_vertices, meta0, meta1, meta2,
                            meta3, iter, param_u32, param_f32, nxt_lists, nxt_len, queued, control,
                            log, max_log, local_max, max_iterations, medium_from, large_from);
      WG_SYNC();
      iter = wg_load_volatile(&control[WG_CTL_LOCAL_ITER]);
      uint32_t outcome = wg_load_volatile(&control[WG_CTL_LOCAL_OUTCOME]);
      if (outcome == 2) { // the frontier outgrew the queue: the stamps rebuild it
        WG_SCAN(wg_load_volatile(&control[WG_CTL_LOCAL_STAMP]), WG_SCAN_BALLOT);
      }
      size_out = wg_list_size(nxt_len);
      edges = wg_load_volatile(&nxt_len[WG_LEN_EDGES]);
      next_dir = direction_mode == 1 && edges > pull_edges ? 1u : 0u;
      why = size_out == 0 ? 0 : (!(PUSH && PULL) && next_dir != dir ? 1 : (iter >= max_iterations ? 2 : 3));
    }
    if (why == 0 && bucket_delta != 0) {
      // Buckets (delta-stepping; coreness's levels): the frontier emptied,
      // so the bound rises by bucket_delta and an admission pass (active,
      // then a ballot scan) lists the vertices it now covers, as the
      // host-driven loop does (scheduler/delta.go); a bucket that admits
      // none is skipped past the least value the pass saw waiting. The
      // stamp is the emptied iteration's, which no vertex holds.
      // Only the leader computes the next bound: the others read it after
      // the barrier, so that every thread decides alike.
      uint32_t admit = iter + 1, next = 0;
      if (leader) {
        uint32_t bound = bucket_words[0];
        next = bound > 0xFFFFFFFFu - bucket_delta ? 0xFFFFFFFFu : bound + bucket_delta;
      }
      for (;;) {
        if (leader) {
          bucket_words[0] = next, bucket_words[1] = 0xFFFFFFFFu;
          for (uint32_t w = 0; w <= WG_LEN_EDGES; ++w)
            nxt_len[w] = 0;
        }
        WG_SYNC();
        uint32_t level = wg_load_volatile(&bucket_words[0]);
        wg_simdx_activate<ALG>(WG_ACC_ARGS, queued, admit);
        WG_SYNC();
        WG_SCAN(admit, WG_SCAN_BALLOT);
        size_out = wg_list_size(nxt_len);
        uint32_t least = wg_load_volatile(&bucket_words[1]);
        WG_SYNC(); // every thread has read the pass's words before the leader writes again
        if (size_out > 0 || least == 0xFFFFFFFFu || level == 0xFFFFFFFFu)
          break;
        if (leader) {
          next = least / bucket_delta * bucket_delta;
          next = next > 0xFFFFFFFFu - bucket_delta ? 0xFFFFFFFFu : next + bucket_delta;
        }
      }
      if (size_out > 0) {
        edges = wg_load_volatile(&nxt_len[WG_LEN_EDGES]);
        next_dir = direction_mode == 1 && edges > pull_edges ? 1u : 0u;
        why = !(PUSH && PULL) && next_dir != dir ? 1 : (iter >= max_iterations ? 2 : 3);
      }
    }
    if (why != 3) {
      if (leader) {
        control[0] = iter, control[1] = nxt, control[2] = why;
        control[3] = next_filter, control[4] = next_dir;
      }
      return;
    }
    cur = nxt, filter = next_filter, dir = next_dir, size_in = size_out;
  }
#undef WG_SCAN
#undef WG_SYNC
}


#define WG_SIMDX_ENTRIES(NAME, ALG)                                                                \
  extern "C" __global__ void NAME##_simdx_none_push(WG_ACC_PARAMS, const uint32_t *in_lists,       \
                                                    const uint32_t *in_len, WG_SIMDX_EMIT_PARAMS) { \
    wg_simdx_push<ALG>(WG_ACC_ARGS, in_lists, in_len, out_lists, out_len, bins, bin_count, queued,  \
                       stamp, bin_size, emit_mode, medium_from, large_from);                       \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_none_pull(                                                \
      WG_ACC_PARAMS, const uint32_t *out_offsets, const uint32_t *pull_lists,                       \
      const uint32_t *pull_len, WG_SIMDX_EMIT_PARAMS) {                                             \
    wg_simdx_pull<ALG>(WG_ACC_ARGS, out_offsets, pull_lists, pull_len, out_lists, out_len, bins,    \
                       bin_count, queued, stamp, bin_size, emit_mode, medium_from, large_from);    \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_none_activate(WG_ACC_PARAMS, uint32_t *queued,           \
                                                        uint32_t stamp) {                           \
    wg_simdx_activate<ALG>(WG_ACC_ARGS, queued, stamp);                                             \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_all_run(WG_SIMDX_FUSED_PARAMS) {                         \
    wg_simdx_fused<ALG, true, true>(WG_SIMDX_FUSED_ARGS);                                           \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_pushpull_push(WG_SIMDX_FUSED_PARAMS) {                   \
    wg_simdx_fused<ALG, true, false>(WG_SIMDX_FUSED_ARGS);                                          \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_pushpull_pull(WG_SIMDX_FUSED_PARAMS) {                   \
    wg_simdx_fused<ALG, false, true>(WG_SIMDX_FUSED_ARGS);                                          \
  }

// ---- aggregation that pushes: take before the push -------------------------
//
// An aggregation algorithm whose push moves state (PageRank's pull-then-push
// moves a vertex's residual) must take each frontier vertex's state once,
// before any of its edges reads it: a CTA pushing a large vertex reads it
// from many threads while pushes into it arrive. The take phase runs over
// the frontier lists (duplicate-free: the algorithm admits a vertex once per
// iteration) and calls take(v, &carry), which records what the push phase's
// compute reads.
template <typename ALG>
static __device__ __noinline__ void wg_simdx_take(WG_ACC_PARAMS, const uint32_t *in_lists, const uint32_t *in_len) {
  ALG alg(WG_ACC_META);
  uint32_t n = num_vertices, threads = gridDim.x * blockDim.x;
  for (uint32_t c = 0; c < 3; ++c)
    for (uint32_t i = wg_global_id(); i < in_len[c]; i += threads) {
      typename ALG::value_t carry;
      alg.take(in_lists[c * n + i], &carry);
    }
}

// Host-driven entries of an aggregation that pushes: the take phase, and
// CTA 0 running small push frontiers alone (wg_simdx_local, launched over
// one CTA; it hands the frontier back in lists/len, as in the fused loop).
#define WG_SIMDX_AGGREGATION_ENTRIES(NAME, ALG)                                                    \
  extern "C" __global__ void NAME##_simdx_none_take(WG_ACC_PARAMS, const uint32_t *in_lists,       \
                                                    const uint32_t *in_len) {                       \
    wg_simdx_take<ALG>(WG_ACC_ARGS, in_lists, in_len);                                              \
  }                                                                                                 \
  extern "C" __global__ void NAME##_simdx_none_local(                                               \
      WG_ACC_PARAMS, uint32_t *lists, uint32_t *len, uint32_t *queued, uint32_t *control,           \
      uint32_t *log, uint32_t max_log, uint32_t local_max, uint32_t max_iterations,                 \
      uint32_t medium_from, uint32_t large_from) {                                                  \
    if (blockIdx.x == 0)                                                                            \
      wg_simdx_local<ALG>(WG_ACC_ARGS, lists, len, queued, control, log, max_log, local_max,        \
                          max_iterations, medium_from, large_from);                                 \
  }

#endif // WARPGRAPH_LIB_SIMDX_CUH
