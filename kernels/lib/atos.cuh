// atos.cuh — the task-parallel scheduler of Atos (docs/sources.md): one task queue
// in global memory; workers (a warp or a CTA) pop FETCH tasks with one
// atomic, process them and push the tasks they create with warp-aggregated
// appends. Persistent mode is one launch of a co-resident grid that runs
// until the queue drains; discrete mode is one launch per queue generation
// (the tasks pushed by the previous launch), the host reading the tail in
// between. The barrier between BFS levels (or PageRank sweeps) is gone:
// a task may run on values another worker is still improving, so a vertex
// may be processed more than once (overwork, which the host measures).
//
// ---- the queue ----------------------------------------------------------
//
// items[capacity] (uint32 tasks; the host fills every slot with
// WG_TASK_EMPTY, then uploads the first tasks at 0..k-1) and ctl[WG_Q_WORDS]
// (zeroed, then TAIL = PENDING = k). The queue is linear: slot s is written
// once per run, by the push that reserved it, and read once, by the worker
// that drew ticket s. A worker may draw a ticket for a slot no one has
// reserved yet; it then waits for a push to reserve it, or for the end.
//
//   HEAD     persistent: tickets drawn (one atomicAdd of FETCH per pop).
//   TAIL     slots reserved by pushes; a push past capacity raises OVERFLOW
//            (its tasks are lost; the host fails the run or retries with a
//            larger queue, never reports it valid).
//   PENDING  tasks pushed and not yet finished. A push adds before it
//            reserves and a worker subtracts only after its own pushes, so
//            PENDING == 0 means no task is queued or running and none can
//            appear: persistent workers leave (termination detection).
//   TICKET0/1 discrete: the tickets of even / odd generations (each launch
//            clears the other one, which the previous launch used).
//   STATS    pops (tasks processed), failed pops (a worker found none of its
//            tickets filled), max occupancy (largest PENDING a push saw),
//            edges (edges walked by processed tasks), one word the
//            algorithm may count in (colour assignments), and the tasks CTA
//            workers kept and ran themselves (pops include them; pushes,
//            the tail, do not).
// Each counter the workers hammer has its own 128-byte line, so polls of
// one do not queue behind atomics on another.
//
// Waiting is under the spin protocol (warpgraph.h, wg_spin_give_up): a
// persistent worker polls TAIL / PENDING with a budget, and a slot that was
// reserved but not yet written is polled with the same budget.
//
// ---- the algorithm's side ----------------------------------------------
//
// A task is a vertex. Processing it walks its out-edges with the ACC
// struct's compute and combine_push; every destination combine_push
// activates becomes a task. Voting algorithms whose compute reads the
// source's current value (SSSP, SSWP, WCC, speculative BFS) need nothing
// more. An algorithm whose task consumes state when it starts (PageRank's
// residual) sets `carries` and provides take(v, &carry) — called once per
// popped task, false to skip it — and compute_carried(src, carry, dst, w,
// &update) in place of compute (acc.cuh, wg_acc_defaults).
//
// ---- the workers --------------------------------------------------------
//
//   warp  a warp pops FETCH tasks; each lane takes one task and walks its
//         edges (the warp in lock step): task parallelism only, as the
//         paper's persist-warp.
//   cta   a CTA pops FETCH tasks; in chunks of WG_ATOS_CHUNK tasks it scans
//         their degrees in shared memory and spreads the chunk's edges over
//         all its threads, each thread finding its task by binary search
//         over the scan (load-balancing search), as the paper's persist-CTA.
//         (A chunk is at most the CTA size: one task per thread.)
#ifndef WARPGRAPH_LIB_ATOS_CUH
#define WARPGRAPH_LIB_ATOS_CUH

#include "acc.cuh"

#define WG_TASK_EMPTY 0xFFFFFFFFu
#define WG_Q_HEAD 0
#define WG_Q_TAIL 32
#define WG_Q_PENDING 64
#define WG_Q_TICKET0 96
#define WG_Q_TICKET1 128
#define WG_Q_OVERFLOW 160
#define WG_Q_STATS 192
#define WG_Q_POPS (WG_Q_STATS + 0)
#define WG_Q_FAILED (WG_Q_STATS + 1)
#define WG_Q_MAX_OCCUPANCY (WG_Q_STATS + 2)
#define WG_Q_EDGES (WG_Q_STATS + 3)
#define WG_Q_COUNTED (WG_Q_STATS + 4)
#define WG_Q_LOCAL (WG_Q_STATS + 5)
#define WG_Q_WORDS 224
#define WG_ATOS_CHUNK 256

// wg_queue_slot reserves a slot at the queue's tail for every lane in
// takers, with one atomic per counter for the warp (all 32 lanes call it),
// and returns the calling lane's. The tasks count as pending before their
// slots exist, so PENDING never reads 0 while they wait; the largest
// pending count is recorded, and a reservation past the capacity flags the
// overflow (the lanes whose slot is past it write nothing).
WG_DEV uint32_t wg_queue_slot(uint32_t *ctl, uint32_t capacity, uint32_t takers) {
  uint32_t first = 0;
  if (wg_lane_id() == 0) {
    uint32_t n = __popc(takers);
    uint32_t pending = atomicAdd(&ctl[WG_Q_PENDING], n) + n;
    if (pending > wg_load_volatile(&ctl[WG_Q_MAX_OCCUPANCY]))
      atomicMax(&ctl[WG_Q_MAX_OCCUPANCY], pending);
    first = atomicAdd(&ctl[WG_Q_TAIL], n);
    if (first + n > capacity)
      atomicExch(&ctl[WG_Q_OVERFLOW], 1u);
  }
  first = __shfl_sync(WG_FULL_MASK, first, 0);
  return first + __popc(takers & wg_lanemask_lt());
}

struct wg_queue {
  uint32_t *items;
  uint32_t capacity;
  uint32_t *ctl;
  // queued[v] is 1 while a task of v is queued and not yet popped (null:
  // no deduplication). A vertex improved again while its task waits is
  // not queued twice: the waiting task reads the newer value when it runs.
  uint32_t *queued;
  // local (CTA workers of persistent mode): a queue in shared memory that
  // the worker drains itself before it retires its popped tasks, so a task
  // it creates runs without a round trip through the global queue (on a
  // high-diameter graph each level is such a hop). local_len may run past
  // local_cap; entries past it went to the global queue.
  uint32_t *local = nullptr, *local_len = nullptr;
  uint32_t local_cap = 0;
  // unfenced_local: a task kept in the local list skips push_warp's fence.
  // Set where deduplication is switched off for a work that deduplicates
  // (atos:dedup=off): no claim has to be ordered after the update, and the
  // CTA runs the task after a barrier in a chunk that fences before it
  // reads values. Spilled tasks are fenced as always.
  bool unfenced_local = false;
  // local_round: the chunk being run comes from this CTA's local list. With
  // unfenced_local it needs no acquire fence: the tasks' updates were made
  // by this CTA's own threads before the barrier that ends the last round
  // (CTA-scope order; an SM's own stores and atomics keep its L1 current).
  bool local_round = false;

  // acquire fences before a chunk reads values, unless the chunk is a
  // local round of an unfenced local list.
  __device__ void acquire() const {
    if (!(local_round && unfenced_local))
      __threadfence();
  }

  // keep_local puts the lanes' tasks that fit into the local list and
  // returns take for the lanes whose task did not fit; all 32 lanes call it.
  __device__ bool keep_local(bool take, uint32_t task) const {
    uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
    if (takers == 0)
      return false;
    uint32_t first = 0;
    if (wg_lane_id() == 0)
      first = atomicAdd(local_len, (uint32_t)__popc(takers));
    first = __shfl_sync(WG_FULL_MASK, first, 0);
    uint32_t at = first + __popc(takers & wg_lanemask_lt());
    if (take && at < local_cap) {
      local[at] = task;
      return false; // kept
    }
    return take;
  }

  // push_warp queues task for every lane whose take is set; all 32 lanes
  // call it together. The fence orders the updates that created the tasks
  // before the tasks (and before the claims on queued[]), so the worker
  // that pops one sees them.
  // claim: false for tasks claimed already (a local task spilled).
  __device__ void push_warp(bool take, uint32_t task, bool claim = true) const {
    if (__ballot_sync(WG_FULL_MASK, take) == 0)
      return;
    if (local != nullptr && unfenced_local) {
      take = keep_local(take, task);
      if (__ballot_sync(WG_FULL_MASK, take) == 0)
        return;
    }
    __threadfence();
    if (queued != nullptr && take && claim)
      take = wg_load_volatile(&queued[task]) == 0 && atomicExch(&queued[task], 1u) == 0;
    uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
    if (takers == 0)
      return;
    if (local != nullptr && !unfenced_local) {
      take = keep_local(take, task);
      takers = __ballot_sync(WG_FULL_MASK, take);
      if (takers == 0)
        return;
    }
    uint32_t slot = wg_queue_slot(ctl, capacity, takers);
    if (take && slot < capacity)
      wg_store_volatile(&items[slot], task);
  }

  // popped marks v's task as running (a later improvement queues v again);
  // the caller fences before reading v's value.
  __device__ void popped(uint32_t v) const {
    if (queued != nullptr)
      atomicExch(&queued[v], 0u);
  }

  // wait_item returns the task in a reserved slot, polling until its push
  // has written it; WG_TASK_EMPTY when the wait gave up.
  __device__ uint32_t wait_item(uint32_t slot, uint32_t spin_budget, int *abort_flag) const {
    uint32_t polls = 0;
    for (;;) {
      uint32_t t = wg_load_volatile(&items[slot]);
      if (t != WG_TASK_EMPTY)
        return t;
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return WG_TASK_EMPTY;
    }
  }
};

// wg_atos_draw is the persistent pop, by one thread for its worker: with
// tickets [*cur, *end) left it waits until some are reserved, drawing FETCH
// new tickets when they are used up. Returns how many tasks from *cur are
// reserved (they may still be being written), or 0 when the worker must
// leave: the queue drained, it overflowed, or the wait gave up. After each
// poll that finds nothing the thread sleeps, so idle workers do not take
// issue slots and L2 requests from busy ones: backoff's low 24 bits are the
// first sleep in ns (0: it polls again at once), its high 8 how many times
// the sleep doubles while the queue stands still (WG_ATOS_BACKOFF_SHIFT);
// a move of the queue's tail or pending count starts it over.
#define WG_ATOS_BACKOFF_SHIFT 24
WG_DEV uint32_t wg_atos_draw(const wg_queue &q, uint32_t *cur, uint32_t *end, uint32_t fetch,
                             uint32_t backoff, uint32_t spin_budget, int *abort_flag) {
  if (*cur == *end) {
    *cur = atomicAdd(&q.ctl[WG_Q_HEAD], fetch);
    *end = *cur + fetch;
  }
  const uint32_t first_sleep = backoff & ((1u << WG_ATOS_BACKOFF_SHIFT) - 1u);
  const uint32_t longest_sleep = first_sleep << (backoff >> WG_ATOS_BACKOFF_SHIFT);
  // The budget counts polls in which the queue did not move: a worker may
  // wait as long as other workers' long tasks take, so long as the pending
  // count or the tail changes; a queue that stands still is what hangs.
  uint32_t polls = 0, seen_pending = 0xFFFFFFFFu, seen_tail = 0xFFFFFFFFu, sleep = first_sleep;
  bool failed = false;
  for (;;) {
    uint32_t tail = wg_load_volatile(&q.ctl[WG_Q_TAIL]);
    uint32_t limit = wg_min(wg_min(tail, q.capacity), *end);
    if (limit > *cur)
      return limit - *cur;
    uint32_t pending = wg_load_volatile(&q.ctl[WG_Q_PENDING]);
    if (pending == 0 || wg_load_volatile(&q.ctl[WG_Q_OVERFLOW]) != 0)
      return 0;
    if (!failed) {
      failed = true;
      atomicAdd(&q.ctl[WG_Q_FAILED], 1u);
    }
    if (pending != seen_pending || tail != seen_tail) {
      seen_pending = pending;
      seen_tail = tail;
      polls = 0;
      sleep = first_sleep;
    }
    if (wg_spin_give_up(&polls, spin_budget, abort_flag))
      return 0;
    wg_backoff(sleep);
    sleep = wg_min(2u * sleep, longest_sleep);
  }
}

// wg_task_compute is the update one edge of a task proposes: from the
// carried value when the algorithm carries one, else from the source's
// (a specialisation per case, so a struct need not have both members).
template <bool CARRIES> struct wg_task_edge {
  template <typename ALG, typename V>
  static __device__ bool compute(ALG &alg, uint32_t src, V, uint32_t dst, uint32_t weight, V *update) {
    return alg.compute(src, dst, weight, update);
  }
};
template <> struct wg_task_edge<true> {
  template <typename ALG, typename V>
  static __device__ bool compute(ALG &alg, uint32_t src, V carry, uint32_t dst, uint32_t weight, V *update) {
    return alg.compute_carried(src, carry, dst, weight, update);
  }
};

template <typename ALG>
WG_DEV bool wg_task_compute(ALG &alg, uint32_t src, typename ALG::value_t carry, uint32_t dst, uint32_t weight,
                            typename ALG::value_t *update) {
  return wg_task_edge<ALG::carries>::compute(alg, src, carry, dst, weight, update);
}

// wg_atos_lanes processes up to 32 tasks, one per lane (task valid where
// `has`); the warp walks the edges in lock step. Returns the edges walked.
template <typename ALG>
WG_DEV uint32_t wg_atos_lanes(ALG &alg, const wg_graph &g, const wg_queue &q, bool has, uint32_t v) {
  typename ALG::value_t carry = typename ALG::value_t();
  bool go = has;
  if (has)
    q.popped(v);
  q.acquire(); // the updates before the push, and since
  if (ALG::carries && go)
    go = alg.take(v, &carry);
  uint32_t begin = 0, degree = 0;
  if (go) {
    begin = g.begin(v);
    degree = g.end(v) - begin;
  }
  for (uint32_t j = 0; __any_sync(WG_FULL_MASK, j < degree); ++j) {
    bool push = false;
    uint32_t u = 0;
    if (j < degree) {
      uint32_t e = begin + j;
      u = g.targets[e];
      typename ALG::value_t update;
      bool proposes = wg_task_compute(alg, v, carry, u, g.weight(e), &update);
      push = proposes && alg.combine_push(u, update);
    }
    q.push_warp(push, u);
  }
  return wg_warp_sum(degree);
}

// wg_block_exclusive_scan returns the sum of x over the CTA's threads below
// the caller and sets *total; every thread calls it. scratch holds 33 words.
WG_DEV uint32_t wg_block_exclusive_scan(uint32_t x, uint32_t *scratch, uint32_t *total) {
  uint32_t lane = wg_lane_id(), warp = wg_warp_id(), warps = (blockDim.x + 31) / 32;
  uint32_t inclusive = x;
  for (uint32_t d = 1; d < 32; d *= 2) {
    uint32_t y = __shfl_up_sync(WG_FULL_MASK, inclusive, d);
    if (lane >= d)
      inclusive += y;
  }
  if (lane == 31)
    scratch[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    uint32_t w = lane < warps ? scratch[lane] : 0, acc = w;
    for (uint32_t d = 1; d < 32; d *= 2) {
      uint32_t y = __shfl_up_sync(WG_FULL_MASK, acc, d);
      if (lane >= d)
        acc += y;
    }
    scratch[lane] = acc - w; // exclusive over warps
    if (lane == 31)
      scratch[32] = acc;
  }
  __syncthreads();
  uint32_t out = scratch[warp] + inclusive - x;
  *total = scratch[32];
  __syncthreads(); // scratch is reused by the next call
  return out;
}

// wg_atos_chunk processes count (<= WG_ATOS_CHUNK) tasks with the whole
// CTA (load-balancing search); thread t < count holds task v. Returns the
// edges walked (the same value in every thread).
template <typename ALG>
WG_DEV uint32_t wg_atos_chunk(ALG &alg, const wg_graph &g, const wg_queue &q, uint32_t count, uint32_t v) {
  typedef typename ALG::value_t value_t;
  __shared__ uint32_t s_task[WG_ATOS_CHUNK], s_begin[WG_ATOS_CHUNK], s_start[WG_ATOS_CHUNK];
  __shared__ value_t s_carry[WG_ATOS_CHUNK];
  __shared__ uint32_t s_scratch[33];
  uint32_t t = threadIdx.x, degree = 0;
  if (t < count)
    q.popped(v);
  q.acquire(); // the updates before the push, and since
  if (t < count) {
    value_t carry = value_t();
    bool go = true;
    if (ALG::carries)
      go = alg.take(v, &carry);
    s_task[t] = v;
    s_carry[t] = carry;
    if (go) {
      s_begin[t] = g.begin(v);
      degree = g.end(v) - s_begin[t];
    }
  }
  uint32_t total;
  uint32_t start = wg_block_exclusive_scan(degree, s_scratch, &total);
  if (t < count)
    s_start[t] = start;
  __syncthreads();
  for (uint32_t base = 0; base < total; base += blockDim.x) {
    uint32_t k = base + t;
    bool push = false;
    uint32_t u = 0;
    if (k < total) {
      // the last task whose first edge is at or before k (tasks without
      // edges share their start with the next task and are skipped)
      uint32_t lo = 0, hi = count;
      while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (s_start[mid] <= k)
          lo = mid;
        else
          hi = mid;
      }
      uint32_t src = s_task[lo], e = s_begin[lo] + (k - s_start[lo]);
      u = g.targets[e];
      value_t update;
      bool proposes = wg_task_compute(alg, src, s_carry[lo], u, g.weight(e), &update);
      push = proposes && alg.combine_push(u, update);
    }
    q.push_warp(push, u);
  }
  __syncthreads(); // the shared arrays are refilled by the next chunk
  return total;
}

// wg_acc_tasks is the work of an ACC algorithm's task: walk the vertex's
// out-edges (the workers below are templates over such a work type: a
// custom problem, e.g. colouring, brings its own with the same two
// members).
template <typename ALG> struct wg_acc_tasks {
  // a vertex improved while its task waits is not queued again
  static const bool deduplicates = true;
  ALG alg;
  wg_graph g;
  // lanes: up to 32 tasks, one per lane (has: the lane holds one); the
  // whole warp calls it. Returns the edges walked, the same in every lane.
  __device__ uint32_t lanes(const wg_queue &q, bool has, uint32_t task) {
    return wg_atos_lanes(alg, g, q, has, task);
  }
  // chunk: count (<= blockDim) tasks, thread t < count holding one; the
  // whole CTA calls it. Returns the edges walked, the same in every thread.
  __device__ uint32_t chunk(const wg_queue &q, uint32_t count, uint32_t task) {
    return wg_atos_chunk(alg, g, q, count, task);
  }
};

// wg_atos_warp_persist: every warp of the grid is a worker until the queue
// drains.
template <typename WORK>
WG_DEV void wg_atos_warp_persist(WORK &work, uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t *queued,
                                 uint32_t fetch, uint32_t, uint32_t backoff, uint32_t spin_budget,
                                 int *abort_flag) {
  wg_queue q{items, capacity, ctl, WORK::deduplicates ? queued : nullptr};
  uint32_t cur = 0, end = 0, lane = wg_lane_id();
  for (;;) {
    uint32_t avail = 0;
    if (lane == 0)
      avail = wg_atos_draw(q, &cur, &end, fetch, backoff, spin_budget, abort_flag);
    avail = __shfl_sync(WG_FULL_MASK, avail, 0);
    cur = __shfl_sync(WG_FULL_MASK, cur, 0);
    end = __shfl_sync(WG_FULL_MASK, end, 0);
    if (avail == 0)
      return;
    uint32_t edges = 0;
    for (uint32_t i = 0; i < avail; i += 32) {
      bool has = i + lane < avail;
      uint32_t v = has ? q.wait_item(cur + i + lane, spin_budget, abort_flag) : 0;
      if (__any_sync(WG_FULL_MASK, has && v == WG_TASK_EMPTY))
        return; // a wait gave up: the abort flag is raised
      __threadfence(); // acquire: the pushes' updates are visible
      edges += work.lanes(q, has, v);
    }
    cur += avail;
    if (lane == 0) {
      atomicAdd(&ctl[WG_Q_POPS], avail);
      atomicAdd(&ctl[WG_Q_EDGES], edges);
      __threadfence(); // this worker's pushes are counted before its tasks end
      atomicSub(&ctl[WG_Q_PENDING], avail);
    }
  }
}

// wg_atos_cta_persist: every CTA of the grid is a worker until the queue
// drains.
template <typename WORK>
WG_DEV void wg_atos_cta_persist(WORK &work, uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t *queued,
                                uint32_t fetch, uint32_t local_rounds, uint32_t backoff, uint32_t spin_budget,
                                int *abort_flag) {
  wg_queue q{items, capacity, ctl, WORK::deduplicates ? queued : nullptr};
  __shared__ uint32_t s_cur, s_end, s_avail, s_gave_up, s_local_len;
  __shared__ uint32_t s_local[WG_ATOS_CHUNK];
  uint32_t chunk = wg_min(WG_ATOS_CHUNK, blockDim.x);
  if (threadIdx.x == 0)
    s_cur = s_end = 0;
  for (;;) {
    __syncthreads();
    if (threadIdx.x == 0) {
      uint32_t cur = s_cur, end = s_end;
      s_avail = wg_atos_draw(q, &cur, &end, fetch, backoff, spin_budget, abort_flag);
      s_cur = cur;
      s_end = end;
      s_gave_up = 0;
      s_local_len = 0;
    }
    __syncthreads();
    uint32_t avail = s_avail, cur = s_cur, edges = 0, local_tasks = 0;
    if (avail == 0)
      return;
    if (local_rounds != 0) {
      q.local = s_local;
      q.local_len = &s_local_len;
      q.local_cap = chunk;
      q.unfenced_local = WORK::deduplicates && queued == nullptr;
    }
    for (uint32_t i = 0; i < avail; i += chunk) {
      uint32_t count = wg_min(chunk, avail - i), v = 0;
      if (threadIdx.x < count) {
        v = q.wait_item(cur + i + threadIdx.x, spin_budget, abort_flag);
        if (v == WG_TASK_EMPTY)
          s_gave_up = 1;
      }
      __syncthreads();
      if (s_gave_up)
        return; // every thread read it after the barrier
      __threadfence(); // acquire: the pushes' updates are visible
      edges += work.chunk(q, count, v);
    }
    // Run the tasks this worker created, round by round; what is left
    // after local_rounds goes to the global queue (so that one worker
    // cannot keep a frontier others could share).
    for (uint32_t round = 0;; ++round) {
      uint32_t count = wg_min(s_local_len, chunk);
      if (count == 0)
        break;
      uint32_t v = threadIdx.x < count ? s_local[threadIdx.x] : 0;
      __syncthreads(); // every thread has its task before the list refills
      if (threadIdx.x == 0)
        s_local_len = 0;
      __syncthreads();
      if (round == local_rounds) {
        q.local = nullptr;
        q.push_warp(threadIdx.x < count, v, false); // claimed when kept
        break;
      }
      local_tasks += count;
      q.local_round = true;
      edges += work.chunk(q, count, v);
      q.local_round = false;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      s_cur = cur + avail;
      atomicAdd(&ctl[WG_Q_POPS], avail + local_tasks);
      if (local_tasks != 0)
        atomicAdd(&ctl[WG_Q_LOCAL], local_tasks);
      atomicAdd(&ctl[WG_Q_EDGES], edges);
      __threadfence();
      atomicSub(&ctl[WG_Q_PENDING], avail);
    }
  }
}

// wg_atos_ticket draws a discrete-mode ticket: the generation's tasks are
// slots [gen_begin, gen_end), all written by the previous launch.
WG_DEV uint32_t wg_atos_ticket(uint32_t *ctl, uint32_t generation, uint32_t gen_begin, uint32_t fetch) {
  return gen_begin + atomicAdd(&ctl[(generation & 1) ? WG_Q_TICKET1 : WG_Q_TICKET0], fetch);
}

// wg_atos_discrete_start clears the ticket counter of the next generation
// (the previous launch's); one thread of the grid calls it.
WG_DEV void wg_atos_discrete_start(uint32_t *ctl, uint32_t generation) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    ctl[(generation & 1) ? WG_Q_TICKET0 : WG_Q_TICKET1] = 0;
}

template <typename WORK>
WG_DEV void wg_atos_warp_discrete(WORK &work, uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t *queued,
                                  uint32_t fetch, uint32_t, uint32_t generation, uint32_t gen_begin, uint32_t gen_end) {
  wg_queue q{items, capacity, ctl, WORK::deduplicates ? queued : nullptr};
  uint32_t lane = wg_lane_id();
  wg_atos_discrete_start(ctl, generation);
  for (;;) {
    uint32_t cur = 0;
    if (lane == 0)
      cur = wg_atos_ticket(ctl, generation, gen_begin, fetch);
    cur = __shfl_sync(WG_FULL_MASK, cur, 0);
    if (cur >= gen_end)
      return;
    uint32_t avail = wg_min(fetch, gen_end - cur), edges = 0;
    for (uint32_t i = 0; i < avail; i += 32) {
      bool has = i + lane < avail;
      uint32_t v = has ? items[cur + i + lane] : 0;
      edges += work.lanes(q, has, v);
    }
    if (lane == 0) {
      atomicAdd(&ctl[WG_Q_POPS], avail);
      atomicAdd(&ctl[WG_Q_EDGES], edges);
    }
  }
}

template <typename WORK>
WG_DEV void wg_atos_cta_discrete(WORK &work, uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t *queued,
                                 uint32_t fetch, uint32_t, uint32_t generation, uint32_t gen_begin, uint32_t gen_end) {
  wg_queue q{items, capacity, ctl, WORK::deduplicates ? queued : nullptr};
  __shared__ uint32_t s_cur;
  wg_atos_discrete_start(ctl, generation);
  for (;;) {
    if (threadIdx.x == 0)
      s_cur = wg_atos_ticket(ctl, generation, gen_begin, fetch);
    __syncthreads();
    uint32_t cur = s_cur;
    __syncthreads(); // s_cur is rewritten by the next draw
    if (cur >= gen_end)
      return;
    uint32_t avail = wg_min(fetch, gen_end - cur), edges = 0, chunk = wg_min(WG_ATOS_CHUNK, blockDim.x);
    for (uint32_t i = 0; i < avail; i += chunk) {
      uint32_t count = wg_min(chunk, avail - i);
      uint32_t v = threadIdx.x < count ? items[cur + i + threadIdx.x] : 0;
      edges += work.chunk(q, count, v);
    }
    if (threadIdx.x == 0) {
      atomicAdd(&ctl[WG_Q_POPS], avail);
      atomicAdd(&ctl[WG_Q_EDGES], edges);
    }
  }
}

#define WG_ATOS_QUEUE_PARAMS uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t *queued, uint32_t fetch, uint32_t local_rounds
#define WG_ATOS_QUEUE_ARGS items, capacity, ctl, queued, fetch, local_rounds

// WG_ATOS_WORKERS(name, work type, how to make it): the four entries
// <name>_atos_<warp|cta>_<persist|discrete> over a work type, built in
// each entry by MAKE from WG_ACC_PARAMS.
#define WG_ATOS_WORKERS(NAME, WORK, MAKE)                                                          \
  extern "C" __global__ void NAME##_atos_warp_persist(WG_ACC_PARAMS, WG_ATOS_QUEUE_PARAMS,         \
                                                      uint32_t backoff, uint32_t spin_budget,      \
                                                      int *abort_flag) {                           \
    WORK work = MAKE;                                                                               \
    wg_atos_warp_persist(work, WG_ATOS_QUEUE_ARGS, backoff, spin_budget, abort_flag);              \
  }                                                                                                 \
  extern "C" __global__ void NAME##_atos_cta_persist(WG_ACC_PARAMS, WG_ATOS_QUEUE_PARAMS,          \
                                                     uint32_t backoff, uint32_t spin_budget,       \
                                                     int *abort_flag) {                            \
    WORK work = MAKE;                                                                               \
    wg_atos_cta_persist(work, WG_ATOS_QUEUE_ARGS, backoff, spin_budget, abort_flag);               \
  }                                                                                                 \
  extern "C" __global__ void NAME##_atos_warp_discrete(WG_ACC_PARAMS, WG_ATOS_QUEUE_PARAMS,        \
                                                       uint32_t generation, uint32_t gen_begin,    \
                                                       uint32_t gen_end) {                         \
    WORK work = MAKE;                                                                               \
    wg_atos_warp_discrete(work, WG_ATOS_QUEUE_ARGS, generation, gen_begin, gen_end);               \
  }                                                                                                 \
  extern "C" __global__ void NAME##_atos_cta_discrete(WG_ACC_PARAMS, WG_ATOS_QUEUE_PARAMS,         \
                                                      uint32_t generation, uint32_t gen_begin,     \
                                                      uint32_t gen_end) {                          \
    WORK work = MAKE;                                                                               \
    wg_atos_cta_discrete(work, WG_ATOS_QUEUE_ARGS, generation, gen_begin, gen_end);                \
  }

// WG_ATOS_ENTRIES(name, struct): an ACC algorithm opts in with this line
// beside WG_ACC_ENTRIES (its struct must suit asynchronous processing: see
// above).
#define WG_ATOS_ENTRIES(NAME, ALG)                                                                 \
  WG_ATOS_WORKERS(NAME, wg_acc_tasks<ALG>, (wg_acc_tasks<ALG>{ALG(WG_ACC_META), WG_ACC_GRAPH}))

// wg_atos_seed_warp queues v as a first task for every lane whose take is
// set; all 32 lanes call it. One reservation per warp, as a push's; no
// fence: the host starts the workers after the seeding launch ends.
WG_DEV void wg_atos_seed_warp(uint32_t *items, uint32_t capacity, uint32_t *ctl, bool take, uint32_t v) {
  uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
  if (takers == 0)
    return;
  uint32_t slot = wg_queue_slot(ctl, capacity, takers);
  if (take && slot < capacity)
    items[slot] = v;
}

// wg_atos_seed_stamped queues every vertex v < n with stamps[v] == stamp
// (a prelude's frontier) as a first task. Every thread of a warp runs the
// same iterations (blockDim is a multiple of 32).
WG_DEV void wg_atos_seed_stamped(uint32_t *items, uint32_t capacity, uint32_t *ctl, const uint32_t *stamps,
                                 uint32_t stamp, uint32_t n) {
  for (uint32_t base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    uint32_t v = base + threadIdx.x;
    wg_atos_seed_warp(items, capacity, ctl, v < n && stamps[v] == stamp, v);
  }
}

// wg_atos_admit is a bucket's admission pass under the task queue: every
// vertex the algorithm's active() admits (the host has raised the bound)
// becomes a task; the host then runs the workers from the slot where the
// pass's tasks start.
template <typename ALG>
WG_DEV void wg_atos_admit(ALG &alg, uint32_t *items, uint32_t capacity, uint32_t *ctl, uint32_t n) {
  for (uint32_t base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    uint32_t v = base + threadIdx.x;
    wg_atos_seed_warp(items, capacity, ctl, v < n && alg.active(v), v);
  }
}

// WG_ATOS_BUCKET_ENTRIES(name, struct): the admission entry
// (<name>_atos_base_admit) that lets an algorithm with buckets
// (delta-stepping, coreness's levels) run its bucket loop under the task
// queue; beside WG_ATOS_ENTRIES.
#define WG_ATOS_BUCKET_ENTRIES(NAME, ALG)                                                          \
  extern "C" __global__ void NAME##_atos_base_admit(WG_ACC_PARAMS, uint32_t *items, uint32_t capacity, \
                                                    uint32_t *ctl) {                               \
    ALG alg(WG_ACC_META);                                                                          \
    wg_atos_admit(alg, items, capacity, ctl, num_vertices);                                        \
  }

#endif // WARPGRAPH_LIB_ATOS_CUH
