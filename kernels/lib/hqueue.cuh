// hqueue.cuh — hierarchical privatised frontier queues (ECE 508, lecture 7,
// "Privatization for Graph Search"): the next frontier of a push is
// collected in three levels,
//   w-queues  W warp-level queues in shared memory; a thread inserts into
//             queue threadIdx.x % W, so the lanes of a warp spread their
//             inserts over W counters (fewer SIMD collisions on one atomic)
//             while warps share them (shared-memory atomics);
//   b-queue   one block queue in shared memory, where w-queue overflows
//             go and where the single-CTA kernel consolidates the
//             w-queues (a multi-CTA flush copies them straight to the
//             g-queue, as the lecture suggests trying);
//   g-queue   the global frontier: a CTA reserves room for everything it
//             holds with one atomicAdd and copies it with coalesced stores;
//             entries that overflow the b-queue go there one by one.
// Nothing is ever dropped: an insert that finds its w-queue full falls to
// the b-queue, one that finds the b-queue full to the g-queue.
//
// Variants (template parameters, one entry set each; scheduler/hq.go):
//   QUEUE  WG_HQ_G    every insert is its own global atomicAdd (the
//                     lecture's "global queue is too slow" baseline);
//          WG_HQ_BG   b-queue + g-queue;
//          WG_HQ_WBG  w-queues + b-queue + g-queue.
//   LAYOUT (w-queues only) WG_HQ_NAIVE: queue q owns slots
//          [q*cap, (q+1)*cap); WG_HQ_INTERLEAVED: slot i of queue q is
//          word i*W + q ("swap dimensions"). Lanes of a warp insert into
//          different queues at about the same position i at once; with the
//          naive layout and a power-of-two capacity those words are
//          cap apart, a multiple of the 32 banks, so they all hit one
//          bank; interleaved, the W queues' slot i are W consecutive
//          words, in W different banks.
// W (1..32) is a run-time parameter: every w-queue holds
// WG_HQ_W_ENTRIES / W entries.
//
// Kernels (the lecture's hierarchical kernel arrangement):
//   push   one launch per level over many CTAs, each CTA expanding a
//          chunk of blockDim frontier vertices with its edges spread over
//          its threads (wg_hq_expand; in rounds when the grid is smaller
//          than the frontier, the queues flushed after each round).
//   local  one CTA runs level after level alone, __syncthreads() between
//          them, with the frontier in shared memory: it uses only the
//          w-queues and the b-queue, and stops when a level's output does
//          not fit the b-queue or exceeds local_max vertices (then that
//          output is flushed to the g-queue and the host goes back to push
//          launches), when the frontier empties, or at the iteration
//          limit. Never spins: no other CTA is waited for.
//   filter the first frontier of algorithms without a start list (bsp's
//          scan of active(v)).
// Duplicates are kept out by the stamps of wg_claim_once (stamp
// iteration + 2, as bsp's push).
#ifndef WARPGRAPH_LIB_HQUEUE_CUH
#define WARPGRAPH_LIB_HQUEUE_CUH

#include "acc.cuh"
#include "bsp.cuh"
#include "frontier.cuh"

#define WG_HQ_G 0
#define WG_HQ_BG 1
#define WG_HQ_WBG 2
#define WG_HQ_NAIVE 0
#define WG_HQ_INTERLEAVED 1

// Shared-memory capacities (entries): all w-queues together, and the
// b-queue. 2048 + 2048 words are 16 KB per CTA, plus 4 KB for the degree
// prefix sum of the chunk being expanded (the local kernel adds its 8 KB frontier), so several
// CTAs still fit an SM.
#define WG_HQ_W_ENTRIES 2048u
#define WG_HQ_B_ENTRIES 2048u
#define WG_HQ_MAX_W 32u

// The per-level record the local kernel logs and the push kernel's
// counters: [0] frontier in, [1] frontier out, [2] inserts that overflowed
// a w-queue, [3] inserts that overflowed the b-queue (went to the g-queue
// one by one, or were consolidated past its end).
#define WG_HQ_LOG_WORDS 4u

// The local kernel's result words (control): [0] the next iteration, [1]
// the outcome: 0 converged (frontier empty), 1 the next frontier is in
// frontier_out (b-queue overflow, or the log filled), 2 iteration limit;
// [2] levels run.
#define WG_HQ_CONVERGED 0u
#define WG_HQ_HANDED_BACK 1u
#define WG_HQ_LIMIT 2u
#define WG_HQ_REFUSED 3u // a frontier larger than the b-queue: nothing ran

struct wg_hq_shared {
  uint32_t wq[WG_HQ_W_ENTRIES];
  uint32_t b[WG_HQ_B_ENTRIES];
  uint32_t wlen[WG_HQ_MAX_W];  // inserts attempted per w-queue (may exceed cap)
  uint32_t wbase[WG_HQ_MAX_W]; // where queue q's entries go in the flush order
  uint32_t blen;               // inserts attempted into the b-queue
  uint32_t total;              // entries held in shared memory at a flush
  uint32_t gbase;              // the CTA's reservation in the g-queue
  uint32_t bheld;              // entries held in the b-queue before consolidation
  uint32_t spilled;            // some insert went straight to the g-queue
};

template <int QUEUE, int LAYOUT> struct wg_hq_queues {
  wg_hq_shared &s;
  uint32_t *g, *g_len;
  uint32_t w, wcap, mine;
  uint32_t w_overflow, b_overflow; // counted by thread 0 at flushes

  __device__ wg_hq_queues(wg_hq_shared &shared, uint32_t *g_queue, uint32_t *g_queue_len, uint32_t queues)
      : s(shared), g(g_queue), g_len(g_queue_len), w(queues), wcap(WG_HQ_W_ENTRIES / queues),
        mine(threadIdx.x % queues), w_overflow(0), b_overflow(0) {}

  __device__ uint32_t slot(uint32_t q, uint32_t i) const {
    return LAYOUT == WG_HQ_INTERLEAVED ? i * w + q : q * wcap + i;
  }

  // reset empties the shared queues; a __syncthreads must follow.
  __device__ void reset() {
    if (QUEUE == WG_HQ_G)
      return;
    if (threadIdx.x < WG_HQ_MAX_W)
      s.wlen[threadIdx.x] = 0;
    if (threadIdx.x == 0)
      s.blen = 0, s.spilled = 0;
  }

  __device__ void push(uint32_t v) {
    if (QUEUE == WG_HQ_WBG) {
      uint32_t at = atomicAdd(&s.wlen[mine], 1u);
      if (at < wcap) {
        s.wq[slot(mine, at)] = v;
        return;
      }
    }
    if (QUEUE != WG_HQ_G) {
      uint32_t at = atomicAdd(&s.blen, 1u);
      if (at < WG_HQ_B_ENTRIES) {
        s.b[at] = v;
        return;
      }
      s.spilled = 1;
    }
    g[atomicAdd(g_len, 1u)] = v;
  }

  // plan runs in warp 0 after a __syncthreads: it places the w-queues
  // after the b-queue's entries in one order (s.wbase), counts overflows,
  // and, when reserve says so, reserves the whole in the g-queue with one
  // atomic. A __syncthreads must follow.
  __device__ void plan(bool reserve) {
    if (threadIdx.x >= warpSize)
      return;
    uint32_t lane = threadIdx.x;
    uint32_t held = 0;
    if (QUEUE == WG_HQ_WBG && lane < w) {
      uint32_t tried = s.wlen[lane];
      held = tried < wcap ? tried : wcap;
    }
    uint32_t inclusive = held;
    for (uint32_t d = 1; d < warpSize; d <<= 1) {
      uint32_t y = __shfl_up_sync(WG_FULL_MASK, inclusive, d);
      if (lane >= d)
        inclusive += y;
    }
    uint32_t tried_b = s.blen;
    uint32_t held_b = tried_b < WG_HQ_B_ENTRIES ? tried_b : WG_HQ_B_ENTRIES;
    if (lane < WG_HQ_MAX_W)
      s.wbase[lane] = held_b + inclusive - held;
    uint32_t wtried = lane < w && QUEUE == WG_HQ_WBG ? s.wlen[lane] : 0;
    uint32_t woverflow = wg_warp_sum(wtried > held ? wtried - held : 0u);
    uint32_t total = held_b + __shfl_sync(WG_FULL_MASK, inclusive, 31);
    if (lane == 0) {
      s.total = total;
      s.bheld = held_b;
      w_overflow += woverflow;
      // A multi-CTA flush (reserve) sends the w-queues straight to the
      // g-queue: only a single CTA's consolidation can overfill the b-queue.
      b_overflow += (tried_b - held_b) + (!reserve && total > WG_HQ_B_ENTRIES ? total - WG_HQ_B_ENTRIES : 0u);
      if (reserve)
        s.gbase = total > 0 ? atomicAdd(g_len, total) : 0u;
    }
  }

  // consolidate moves the w-queues to their planned places: into the
  // b-queue (the single CTA's next frontier), entries placed past its end
  // straight to their g-queue slot (only when the plan reserved one); or,
  // with to_global, every entry straight to its g-queue slot (multi-CTA
  // flushes: the lecture's "why not copy w-queue directly to g-queue?").
  // Threads read the w-queue words in memory order, so the reads never
  // conflict; the interleaved layout's entries land in W separate runs, so
  // its b-queue writes would conflict where the global stores do not
  // (with every entry through the b-queue, rmat16 at W=4 and 8 counted more
  // conflicts interleaved than naive in all).
  __device__ void consolidate(bool to_global) {
    if (QUEUE != WG_HQ_WBG)
      return;
    for (uint32_t k = threadIdx.x; k < w * wcap; k += blockDim.x) {
      uint32_t q, i;
      if (LAYOUT == WG_HQ_INTERLEAVED)
        q = k % w, i = k / w;
      else
        q = k / wcap, i = k % wcap;
      if (i >= s.wlen[q])
        continue;
      uint32_t at = s.wbase[q] + i;
      if (!to_global && at < WG_HQ_B_ENTRIES)
        s.b[at] = s.wq[k];
      else
        g[s.gbase + at] = s.wq[k];
    }
  }

  // copy_out writes the b-queue's first `held` entries to the CTA's
  // g-queue reservation, coalesced.
  __device__ void copy_out(uint32_t held) {
    for (uint32_t i = threadIdx.x; i < held; i += blockDim.x)
      g[s.gbase + i] = s.b[i];
  }

  // flush empties the shared queues into the g-queue: every thread of the
  // CTA calls it, converged.
  __device__ void flush() {
    if (QUEUE == WG_HQ_G)
      return;
    __syncthreads(); // every insert of the round is done
    plan(true);
    __syncthreads();
    consolidate(true);
    copy_out(s.bheld);
    __syncthreads(); // the queues are read before the next round refills them
    reset();
    __syncthreads();
  }
};

// The most threads a CTA may have (CUDA's limit): the chunk a CTA expands
// at once holds one frontier vertex per thread.
#define WG_HQ_MAX_BLOCK 1024u

// wg_hq_chunk is the shared memory of a CTA's edge-balanced expansion.
struct wg_hq_chunk {
  uint32_t prefix[WG_HQ_MAX_BLOCK + 1]; // exclusive prefix sum of out-degrees
  uint32_t warp_sums[32];
};

// wg_hq_expand pushes the out-edges of count (<= blockDim.x) frontier
// vertices, list[0..count), with every thread of the CTA: a block scan of
// the degrees, then thread t takes edges t, t + blockDim, ... of the chunk
// and finds its vertex by binary search. (The lecture gives a thread a
// vertex; on rmat:scale=16 that left the hub's 9596 edges to one thread,
// 8.3 of the 9.4 simulated ms.) Each activated target this thread is the
// first to claim this level goes into the queues. Every thread calls it,
// converged; it begins and ends with __syncthreads.
template <typename ALG, typename Q>
WG_DEV void wg_hq_expand(ALG &alg, const wg_graph &g, const uint32_t *list, uint32_t count,
                         uint32_t *queued, uint32_t stamp, Q &queues, wg_hq_chunk &c) {
  uint32_t tid = threadIdx.x, lane = wg_lane_id(), warp = wg_warp_id();
  uint32_t v = 0, degree = 0;
  if (tid < count) {
    v = list[tid];
    degree = g.end(v) - g.begin(v);
  }
  uint32_t inclusive = degree;
  for (uint32_t d = 1; d < warpSize; d <<= 1) {
    uint32_t y = __shfl_up_sync(WG_FULL_MASK, inclusive, d);
    if (lane >= d)
      inclusive += y;
  }
  __syncthreads(); // the previous chunk's readers are done with c
  if (lane == warpSize - 1)
    c.warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    uint32_t warps = blockDim.x / warpSize;
    uint32_t x = lane < warps ? c.warp_sums[lane] : 0u, scan = x;
    for (uint32_t d = 1; d < warpSize; d <<= 1) {
      uint32_t y = __shfl_up_sync(WG_FULL_MASK, scan, d);
      if (lane >= d)
        scan += y;
    }
    c.warp_sums[lane] = scan - x; // exclusive prefix of the warps
  }
  __syncthreads();
  uint32_t before = c.warp_sums[warp] + inclusive - degree;
  if (tid < count)
    c.prefix[tid] = before;
  if (tid == count - 1)
    c.prefix[count] = before + degree;
  __syncthreads();
  uint32_t total = count > 0 ? c.prefix[count] : 0u;
  for (uint32_t k = tid; k < total; k += blockDim.x) {
    uint32_t lo = 0, hi = count; // the last vertex whose prefix is <= k
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      if (c.prefix[mid] <= k)
        lo = mid;
      else
        hi = mid;
    }
    uint32_t src = list[lo], e = g.begin(src) + (k - c.prefix[lo]), u = g.targets[e];
    typename ALG::value_t update;
    if (alg.compute(src, u, g.weight(e), &update) && alg.combine_push(u, update) &&
        wg_claim_once(queued, u, stamp))
      queues.push(u);
  }
  __syncthreads();
}

// The push kernel: one level over many CTAs. counters gets the level's
// overflow counts (words 2 and 3 of a log record), one atomic per CTA.
template <typename ALG, int QUEUE, int LAYOUT>
WG_DEV void wg_hq_push(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                       uint32_t *frontier_out, uint32_t *frontier_out_len, uint32_t *queued,
                       uint32_t w_queues, uint32_t *counters) {
  __shared__ wg_hq_shared shared;
  __shared__ wg_hq_chunk chunk;
  ALG alg(WG_ACC_META);
  wg_graph g = WG_ACC_GRAPH;
  wg_hq_queues<QUEUE, LAYOUT> q(shared, frontier_out, frontier_out_len, w_queues);
  uint32_t stamp = iteration + 2;
  q.reset();
  __syncthreads();
  // The bound is uniform across the CTA, so every thread reaches each flush.
  for (uint32_t base = blockIdx.x * blockDim.x; base < frontier_len; base += gridDim.x * blockDim.x) {
    uint32_t count = frontier_len - base < blockDim.x ? frontier_len - base : blockDim.x;
    wg_hq_expand(alg, g, frontier_in + base, count, queued, stamp, q, chunk);
    q.flush();
  }
  if (threadIdx.x == 0) {
    if (q.w_overflow)
      atomicAdd(&counters[2], q.w_overflow);
    if (q.b_overflow)
      atomicAdd(&counters[3], q.b_overflow);
  }
}

// The local kernel: launched with one CTA on a frontier of at most
// WG_HQ_B_ENTRIES vertices; runs levels from `iteration` on. log gets a
// record per level (up to max_log), control the result words.
template <typename ALG, int QUEUE, int LAYOUT>
WG_DEV void wg_hq_local(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                        uint32_t *frontier_out, uint32_t *frontier_out_len, uint32_t *queued,
                        uint32_t w_queues, uint32_t local_max, uint32_t max_iterations,
                        uint32_t *control, uint32_t *log,
                        uint32_t max_log) {
  __shared__ wg_hq_shared shared;
  __shared__ uint32_t cur[WG_HQ_B_ENTRIES];
  __shared__ uint32_t cur_len;
  __shared__ wg_hq_chunk chunk;
  wg_graph g = WG_ACC_GRAPH;
  wg_hq_queues<QUEUE, LAYOUT> q(shared, frontier_out, frontier_out_len, w_queues);
  uint32_t tid = threadIdx.x;
  if (frontier_len > WG_HQ_B_ENTRIES) { // the host never asks: hand it back untouched
    if (tid == 0)
      control[0] = iteration, control[1] = WG_HQ_REFUSED, control[2] = 0;
    return;
  }
  for (uint32_t i = tid; i < frontier_len; i += blockDim.x)
    cur[i] = frontier_in[i];
  if (tid == 0)
    cur_len = frontier_len;
  q.reset();
  __syncthreads();
  uint32_t iter = iteration, levels = 0, outcome = WG_HQ_CONVERGED;
  for (;;) {
    uint32_t size = cur_len;
    if (size == 0) {
      outcome = WG_HQ_CONVERGED;
      break;
    }
    if (iter >= max_iterations) {
      outcome = WG_HQ_LIMIT;
      break;
    }
    if (levels >= max_log) { // the log is full: the host takes the frontier and relaunches
      for (uint32_t i = tid; i < size; i += blockDim.x)
        frontier_out[i] = cur[i];
      if (tid == 0)
        *frontier_out_len = size;
      outcome = WG_HQ_HANDED_BACK;
      break;
    }
    wg_meta m = WG_ACC_META;
    m.iteration = iter;
    ALG alg(m);
    uint32_t stamp = iter + 2;
    uint32_t w_before = q.w_overflow, b_before = q.b_overflow;
    for (uint32_t base = 0; base < size; base += blockDim.x)
      wg_hq_expand(alg, g, cur + base, size - base < blockDim.x ? size - base : blockDim.x, queued,
                   stamp, q, chunk);
    q.plan(false);
    __syncthreads();
    // The CTA goes on alone while the output fits the b-queue (nothing
    // spilled, the w-queues fit behind the b-queue's entries) and holds at
    // most local_max vertices; otherwise all of it goes to the g-queue.
    // behind the b-queue's entries; otherwise all of it goes to the g-queue.
    bool fits = shared.spilled == 0 && shared.total <= WG_HQ_B_ENTRIES && shared.total <= local_max;
    if (!fits && tid == 0)
      shared.gbase = atomicAdd(frontier_out_len, shared.total);
    __syncthreads();
    q.consolidate(false);
    __syncthreads();
    uint32_t produced = shared.total;
    if (!fits) {
      q.copy_out(produced < WG_HQ_B_ENTRIES ? produced : WG_HQ_B_ENTRIES);
    } else {
      for (uint32_t i = tid; i < produced; i += blockDim.x)
        cur[i] = shared.b[i];
    }
    if (tid == 0) {
      if (levels < max_log) {
        uint32_t *rec = log + WG_HQ_LOG_WORDS * levels;
        uint32_t spilled = shared.blen > WG_HQ_B_ENTRIES ? shared.blen - WG_HQ_B_ENTRIES : 0u;
        rec[0] = size, rec[1] = produced + spilled;
        rec[2] = q.w_overflow - w_before, rec[3] = q.b_overflow - b_before;
      }
      cur_len = produced;
    }
    ++iter, ++levels;
    __syncthreads(); // cur and the queues are read before they are reset
    q.reset();
    __syncthreads();
    if (!fits) {
      outcome = WG_HQ_HANDED_BACK;
      break;
    }
  }
  if (tid == 0)
    control[0] = iter, control[1] = outcome, control[2] = levels;
}

#define WG_HQ_VARIANT_ENTRIES(NAME, ALG, LABEL, QUEUE, LAYOUT)                                     \
  extern "C" __global__ void NAME##_hq_##LABEL##_push(                                             \
      WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len, uint32_t *frontier_out,   \
      uint32_t *frontier_out_len, uint32_t *queued, uint32_t w_queues, uint32_t *counters) {        \
    wg_hq_push<ALG, QUEUE, LAYOUT>(WG_ACC_ARGS, frontier_in, frontier_len, frontier_out,           \
                                   frontier_out_len, queued, w_queues, counters);                  \
  }                                                                                                \
  extern "C" __global__ void NAME##_hq_##LABEL##_filter(                                           \
      WG_ACC_PARAMS, uint32_t *frontier_out, uint32_t *frontier_out_len, uint32_t *queued) {       \
    wg_bsp_filter<ALG>(WG_ACC_ARGS, frontier_out, frontier_out_len, queued);                       \
  }

#define WG_HQ_LOCAL_ENTRY(NAME, ALG, LABEL, QUEUE, LAYOUT)                                         \
  extern "C" __global__ void NAME##_hq_##LABEL##_local(                                            \
      WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len, uint32_t *frontier_out,   \
      uint32_t *frontier_out_len, uint32_t *queued, uint32_t w_queues, uint32_t local_max,         \
      uint32_t max_iterations, uint32_t *control, uint32_t *log, uint32_t max_log) {               \
    wg_hq_local<ALG, QUEUE, LAYOUT>(WG_ACC_ARGS, frontier_in, frontier_len, frontier_out,          \
                                    frontier_out_len, queued, w_queues, local_max, max_iterations, \
                                    control, log, max_log);                                        \
  }

// Entries <alg>_hq_<label>_<phase>: labels g, bg, wbg_naive,
// wbg_interleaved; the local kernel needs a b-queue, so g has none.
#define WG_HQ_ENTRIES(NAME, ALG)                                                                   \
  WG_HQ_VARIANT_ENTRIES(NAME, ALG, g, WG_HQ_G, WG_HQ_NAIVE)                                        \
  WG_HQ_VARIANT_ENTRIES(NAME, ALG, bg, WG_HQ_BG, WG_HQ_NAIVE)                                      \
  WG_HQ_LOCAL_ENTRY(NAME, ALG, bg, WG_HQ_BG, WG_HQ_NAIVE)                                          \
  WG_HQ_VARIANT_ENTRIES(NAME, ALG, wbg_naive, WG_HQ_WBG, WG_HQ_NAIVE)                              \
  WG_HQ_LOCAL_ENTRY(NAME, ALG, wbg_naive, WG_HQ_WBG, WG_HQ_NAIVE)                                  \
  WG_HQ_VARIANT_ENTRIES(NAME, ALG, wbg_interleaved, WG_HQ_WBG, WG_HQ_INTERLEAVED)                  \
  WG_HQ_LOCAL_ENTRY(NAME, ALG, wbg_interleaved, WG_HQ_WBG, WG_HQ_INTERLEAVED)

#endif // WARPGRAPH_LIB_HQUEUE_CUH
