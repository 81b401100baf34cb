// atos_peers.cuh — Atos's persistent warp workers across the GPUs of a
// system (scheduler/atos_peers.go): the vertices are split over the
// devices; device d holds the out-edges of the vertices it owns (rows
// indexed by global ids, empty for the others), a copy of every metadata
// buffer in which only its own vertices' entries are kept current, and a
// task queue for its own vertices. A warp pops tasks from its device's
// queue as wg_atos_warp_persist does; an edge's update is applied on the
// destination's owner (the algorithm's combine_push on that device's
// metadata, an atomic across the link when it is another device), and the
// destination, when improved, goes to its owner's queue by a one-sided
// put of NVSHMEM's kind, batched in the warp's outbox (one atomicAdd on
// the owner's tail per owner and batch, below). It runs as a co-launch
// (kernels.PeerSystem): the same kernel on every device at once.
//
// The queues are atos.cuh's, with PENDING kept once for the whole system,
// in device 0's control block: tasks pushed and not finished on any device.
// The worker whose finish brings it to 0 raises WG_PEER_DONE in every
// device's control block, and a push past a queue's capacity raises
// OVERFLOW in every device's, so idle workers poll only their own device's
// words, never another device's across the link. The other words (HEAD,
// TAIL, the statistics) are each device's own. Fences are system-wide
// (wg_fence_system): an update and the push that announces it may go to
// different devices.
//
// The peer table (the host writes one on every device): for each device,
// WG_PEER_WORDS 64-bit words: its meta0..meta3, its queue's items and
// control block, and its deduplication flags (0: none, atos:dedup=off).
#ifndef WARPGRAPH_LIB_ATOS_PEERS_CUH
#define WARPGRAPH_LIB_ATOS_PEERS_CUH

#include "atos.cuh"

#define WG_PEER_WORDS 7
// WG_PEER_DONE: raised on every device when no task is pending anywhere
// (the word of discrete mode's first ticket counter, unused here).
#define WG_PEER_DONE WG_Q_TICKET0

// wg_fence_system orders this thread's memory operations for every device
// of the system (membar.sys).
WG_DEV void wg_fence_system() { __nvvm_membar_sys(); }

struct wg_peer {
  void *meta[4];
  uint32_t *items;
  uint32_t *ctl;
  uint32_t *queued;
};

// wg_peer_raise sets word `at` of every device's control block to 1.
WG_DEV void wg_peer_raise(const wg_peer *peers, uint32_t devices, uint32_t at) {
  for (uint32_t d = 0; d < devices; ++d)
    atomicExch(&peers[d].ctl[at], 1u);
}

// wg_peer_push queues task on device `to` for every lane whose take is set;
// all 32 lanes call it. The lanes' owners may differ: the warp reserves
// slots owner by owner, one atomic on PENDING and one on the owner's tail
// per owner.
WG_DEV void wg_peer_push(const wg_peer *peers, uint32_t devices, uint32_t capacity, bool take, uint32_t task,
                         uint32_t to) {
  if (__ballot_sync(WG_FULL_MASK, take) == 0)
    return;
  wg_fence_system(); // the updates that created the tasks come first
  if (take && peers[to].queued != nullptr) {
    uint32_t *queued = peers[to].queued;
    take = wg_load_volatile(&queued[task]) == 0 && atomicExch(&queued[task], 1u) == 0;
  }
  uint32_t left = __ballot_sync(WG_FULL_MASK, take);
  while (left != 0) {
    uint32_t leader = __ffs(left) - 1;
    uint32_t owner = __shfl_sync(WG_FULL_MASK, to, leader);
    uint32_t group = __ballot_sync(WG_FULL_MASK, take && to == owner);
    uint32_t first = 0;
    if (wg_lane_id() == leader) {
      uint32_t n = __popc(group);
      atomicAdd(&peers[0].ctl[WG_Q_PENDING], n);
      wg_fence_system(); // the tasks are pending before their slots exist
      first = atomicAdd(&peers[owner].ctl[WG_Q_TAIL], n);
      if (first + n > capacity)
        wg_peer_raise(peers, devices, WG_Q_OVERFLOW);
    }
    first = __shfl_sync(WG_FULL_MASK, first, leader);
    uint32_t slot = first + __popc(group & wg_lanemask_lt());
    if (take && to == owner && slot < capacity)
      wg_store_volatile(&peers[owner].items[slot], task);
    left &= ~group;
  }
}

// A warp holds the tasks it creates in an outbox in shared memory, up to
// WG_PEER_OUTBOX of them, and sends them 32 at a time (wg_peer_push) when
// it fills and before the worker's tasks end: one fence, and one
// reservation per owner, for a batch rather than for every step of the
// edge walk, whose remote pushes would each wait on round trips across
// the link. The held tasks are not yet pending, but the worker's own
// tasks are until it has sent them, so no count reads 0 meanwhile.
#define WG_PEER_OUTBOX 64

struct wg_peer_outbox {
  uint32_t *task, *to;
  uint32_t count; // the same in every lane
};

// wg_peer_send pushes the outbox's tasks to their owners and empties it;
// all 32 lanes call it.
WG_DEV void wg_peer_send(wg_peer_outbox &box, const wg_peer *peers, uint32_t devices, uint32_t capacity) {
  __nvvm_bar_warp_sync(WG_FULL_MASK); // bar.warp.sync: the lanes' outbox entries are seen
  for (uint32_t i = 0; i < box.count; i += 32) {
    bool take = i + wg_lane_id() < box.count;
    uint32_t task = take ? box.task[i + wg_lane_id()] : 0, to = take ? box.to[i + wg_lane_id()] : 0;
    wg_peer_push(peers, devices, capacity, take, task, to);
  }
  box.count = 0;
  __nvvm_bar_warp_sync(WG_FULL_MASK); // bar.warp.sync: the lanes' outbox entries are seen
}

// wg_peer_hold adds task for device `to` to the outbox for every lane
// whose take is set, sending the outbox first when they would not fit;
// all 32 lanes call it.
WG_DEV void wg_peer_hold(wg_peer_outbox &box, const wg_peer *peers, uint32_t devices, uint32_t capacity, bool take,
                         uint32_t task, uint32_t to) {
  uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
  if (takers == 0)
    return;
  if (box.count + __popc(takers) > WG_PEER_OUTBOX)
    wg_peer_send(box, peers, devices, capacity);
  if (take) {
    uint32_t at = box.count + __popc(takers & wg_lanemask_lt());
    box.task[at] = task;
    box.to[at] = to;
  }
  box.count += __popc(takers);
}

// wg_peer_draw is wg_atos_draw on this device's control block, where the
// end is WG_PEER_DONE or OVERFLOW rather than a pending count of 0.
WG_DEV uint32_t wg_peer_draw(uint32_t *ctl, uint32_t capacity, uint32_t *cur, uint32_t *end, uint32_t fetch,
                             uint32_t backoff, uint32_t spin_budget, int *abort_flag) {
  if (*cur == *end) {
    *cur = atomicAdd(&ctl[WG_Q_HEAD], fetch);
    *end = *cur + fetch;
  }
  const uint32_t first_sleep = backoff & ((1u << WG_ATOS_BACKOFF_SHIFT) - 1u);
  const uint32_t longest_sleep = first_sleep << (backoff >> WG_ATOS_BACKOFF_SHIFT);
  uint32_t polls = 0, seen_tail = 0xFFFFFFFFu, sleep = first_sleep;
  bool failed = false;
  for (;;) {
    uint32_t tail = wg_load_volatile(&ctl[WG_Q_TAIL]);
    uint32_t limit = wg_min(wg_min(tail, capacity), *end);
    if (limit > *cur)
      return limit - *cur;
    if (wg_load_volatile(&ctl[WG_PEER_DONE]) != 0 || wg_load_volatile(&ctl[WG_Q_OVERFLOW]) != 0)
      return 0;
    if (!failed) {
      failed = true;
      atomicAdd(&ctl[WG_Q_FAILED], 1u);
    }
    if (tail != seen_tail) {
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

// wg_peer_alg is the algorithm on device `at`'s metadata (m's scalars).
template <typename ALG> WG_DEV ALG wg_peer_alg(const wg_peer *peers, uint32_t at, wg_meta m) {
  for (int i = 0; i < 4; ++i)
    m.buf[i] = peers[at].meta[i];
  return ALG(m);
}

// wg_peer_walk walks the out-edges of the warp's tasks (lane l's: v from
// begin, degree of them, with its carry), the edges spread over the lanes:
// step s gives lane l the edge s*32+l of the tasks' edges laid end to end,
// so that a hub's edges, whose remote updates each wait on a round trip
// across the link, take 32 lanes at a time rather than one. Returns the
// edges walked; all 32 lanes call it.
template <typename ALG>
WG_DEV uint32_t wg_peer_walk(ALG &alg, const wg_graph &g, wg_peer_outbox &box, const wg_peer *peers, uint32_t self,
                             uint32_t devices, const uint32_t *owner, uint32_t capacity, wg_meta meta, uint32_t v,
                             typename ALG::value_t carry, uint32_t begin, uint32_t degree) {
  uint32_t lane = wg_lane_id(), end = degree; // end: the inclusive sum of the lanes' degrees
  for (uint32_t d = 1; d < 32; d *= 2) {
    uint32_t y = __shfl_up_sync(WG_FULL_MASK, end, d);
    if (lane >= d)
      end += y;
  }
  uint32_t first = end - degree, total = __shfl_sync(WG_FULL_MASK, end, 31);
  for (uint32_t base = 0; base < total; base += 32) {
    uint32_t k = base + lane, from = 0; // from: the last lane whose edges start at or before k
    for (uint32_t step = 16; step > 0; step /= 2) {
      uint32_t starts = __shfl_sync(WG_FULL_MASK, first, from + step);
      if (starts <= k)
        from += step;
    }
    uint32_t src = __shfl_sync(WG_FULL_MASK, v, from);
    uint32_t e = __shfl_sync(WG_FULL_MASK, begin, from) + k - __shfl_sync(WG_FULL_MASK, first, from);
    typename ALG::value_t update, carried = __shfl_sync(WG_FULL_MASK, carry, from);
    bool push = false;
    uint32_t u = 0, to = 0;
    if (k < total) {
      u = g.targets[e];
      to = owner[u];
      if (wg_task_compute(alg, src, carried, u, g.weight(e), &update))
        push = to == self ? alg.combine_push(u, update) : wg_peer_alg<ALG>(peers, to, meta).combine_push(u, update);
    }
    wg_peer_hold(box, peers, devices, capacity, push, u, to);
  }
  return total;
}

// wg_atos_peer_persist: every warp of every device's grid is a worker
// until no task is pending anywhere. owner[v] is v's device.
template <typename ALG>
WG_DEV void wg_atos_peer_persist(wg_meta meta, const wg_graph &g, const wg_peer *peers, uint32_t self, uint32_t devices,
                                 const uint32_t *owner, uint32_t capacity, uint32_t fetch, uint32_t backoff,
                                 uint32_t spin_budget, int *abort_flag) {
  ALG alg(meta);
  uint32_t *items = peers[self].items, *ctl = peers[self].ctl, *queued = peers[self].queued;
  uint32_t *global = peers[0].ctl;
  __shared__ uint32_t s_outbox[32][2 * WG_PEER_OUTBOX];
  wg_peer_outbox box{s_outbox[wg_warp_id()], s_outbox[wg_warp_id()] + WG_PEER_OUTBOX, 0};
  uint32_t cur = 0, end = 0, lane = wg_lane_id();
  for (;;) {
    uint32_t avail = 0;
    if (lane == 0)
      avail = wg_peer_draw(ctl, capacity, &cur, &end, fetch, backoff, spin_budget, abort_flag);
    avail = __shfl_sync(WG_FULL_MASK, avail, 0);
    cur = __shfl_sync(WG_FULL_MASK, cur, 0);
    end = __shfl_sync(WG_FULL_MASK, end, 0);
    if (avail == 0)
      return;
    uint32_t edges = 0;
    for (uint32_t i = 0; i < avail; i += 32) {
      bool has = i + lane < avail;
      uint32_t v = 0;
      if (has) {
        uint32_t polls = 0;
        for (;;) {
          v = wg_load_volatile(&items[cur + i + lane]);
          if (v != WG_TASK_EMPTY || wg_spin_give_up(&polls, spin_budget, abort_flag))
            break;
        }
      }
      if (__any_sync(WG_FULL_MASK, has && v == WG_TASK_EMPTY))
        return; // a wait gave up: the abort flag is raised
      if (has && queued != nullptr)
        atomicExch(&queued[v], 0u);
      wg_fence_system(); // acquire: the pushes' updates are visible
      typename ALG::value_t carry = typename ALG::value_t();
      bool go = has;
      if (ALG::carries && go)
        go = alg.take(v, &carry); // v is this device's: its state is local
      uint32_t begin = 0, degree = 0;
      if (go) {
        begin = g.begin(v);
        degree = g.end(v) - begin;
      }
      edges += wg_peer_walk(alg, g, box, peers, self, devices, owner, capacity, meta, v, carry, begin, degree);
    }
    wg_peer_send(box, peers, devices, capacity);
    cur += avail;
    if (lane == 0) {
      atomicAdd(&ctl[WG_Q_POPS], avail);
      atomicAdd(&ctl[WG_Q_EDGES], edges);
      wg_fence_system(); // this worker's pushes are counted before its tasks end
      if (atomicSub(&global[WG_Q_PENDING], avail) == avail)
        wg_peer_raise(peers, devices, WG_PEER_DONE); // nothing pending anywhere: every worker leaves
    }
  }
}

// WG_ATOS_PEER_ENTRIES(name, struct): <name>_atos_peer_persist, an ACC
// algorithm's workers across devices (a struct whose compute, or take and
// compute_carried, read only the source's state and whose combine_push
// updates only the destination's).
#define WG_ATOS_PEER_ENTRIES(NAME, ALG)                                                            \
  extern "C" __global__ void NAME##_atos_peer_persist(WG_ACC_PARAMS, void *peers, uint32_t self,   \
                                                      uint32_t devices,                            \
                                                      const uint32_t *owner, uint32_t capacity,    \
                                                      uint32_t fetch, uint32_t backoff,            \
                                                      uint32_t spin_budget, int *abort_flag) {     \
    wg_atos_peer_persist<ALG>(WG_ACC_META, WG_ACC_GRAPH, (const wg_peer *)peers, self, devices,   \
                              owner, capacity, fetch, backoff, spin_budget, abort_flag);           \
  }

#endif
