// color.cu — speculative greedy graph colouring (Gebremedhin and Manne), as
// Atos studies it: the bulk-synchronous form (assign, barrier, detect
// conflicts, repeat; Atos's Algorithm 5) and the task-parallel uberkernel
// (Algorithm 6), in which the sign of a task selects assignment or check.
// The host runs both on the symmetrised graph.
//   meta0  uint32 colour[|V|]: WG_UNCOLOURED until assigned.
//   meta1  uint32 queued[|V|] (task-parallel form): 1 while an assignment
//          of v is queued and not yet started, so that clashes seen by
//          several checks queue v once (1 at the start: every vertex is
//          queued).
//
// Assignment gives v the smallest colour no neighbour holds, reading
// neighbours' colours that other threads may be changing (speculation).
// A check compares v's colour with its neighbours' and resolves a clash by
// vertex id: the larger of the two recolours.
#include "lib/atos.cuh"
#include "lib/frontier.cuh"

#define WG_UNCOLOURED 0xFFFFFFFFu
// A task with this bit set checks its vertex; without it, assigns it.
#define WG_CHECK_TASK 0x80000000u
// Colours are searched in windows of this many, one bit each in a local
// array (a vertex's colour is at most its degree).
#define WG_COLOUR_WINDOW 256

// wg_pick_colour is the smallest colour none of v's neighbours holds now.
WG_DEV uint32_t wg_pick_colour(const wg_graph &g, const uint32_t *colour, uint32_t v) {
  uint32_t begin = g.begin(v), end = g.end(v);
  for (uint32_t base = 0;; base += WG_COLOUR_WINDOW) {
    uint32_t used[WG_COLOUR_WINDOW / 32];
    for (int w = 0; w < WG_COLOUR_WINDOW / 32; ++w)
      used[w] = 0;
    for (uint32_t e = begin; e < end; ++e) {
      uint32_t u = g.targets[e];
      uint32_t c = wg_load_volatile(&colour[u]) - base; // uncoloured wraps out of the window
      if (u != v && c < WG_COLOUR_WINDOW)
        used[c / 32] |= 1u << (c % 32);
    }
    for (int w = 0; w < WG_COLOUR_WINDOW / 32; ++w)
      if (~used[w] != 0)
        return base + 32 * w + __ffs(~used[w]) - 1;
  }
}

// A task whose vertex has at least WG_COLOUR_WARP_DEGREE neighbours is run
// by its whole warp, and one with at least WG_COLOUR_CTA_DEGREE by the whole
// CTA of a CTA worker, the neighbours striding the lanes: a thread alone
// would scan a hub's neighbours one by one while the rest of its chunk
// waits for it.
#define WG_COLOUR_WARP_DEGREE 32
#define WG_COLOUR_CTA_DEGREE 256

// wg_warp_or ORs x over the 32 lanes of a converged warp.
WG_DEV uint32_t wg_warp_or(uint32_t x) {
  for (int offset = 16; offset > 0; offset >>= 1)
    x |= __shfl_xor_sync(WG_FULL_MASK, x, offset);
  return x;
}

// wg_colour_used_window marks, of the colours [base, base +
// WG_COLOUR_WINDOW), those v's neighbours from first in steps of stride
// hold, into used.
WG_DEV void wg_colour_used_window(const wg_graph &g, const uint32_t *colour, uint32_t v, uint32_t begin, uint32_t degree,
                                  uint32_t first, uint32_t stride, uint32_t base, uint32_t *used) {
  for (uint32_t j = first; j < degree; j += stride) {
    uint32_t u = g.targets[begin + j];
    uint32_t c = wg_load_volatile(&colour[u]) - base; // uncoloured wraps out of the window
    if (u != v && c < WG_COLOUR_WINDOW)
      used[c / 32] |= 1u << (c % 32);
  }
}

// wg_pick_colour_warp is wg_pick_colour by a whole warp (every lane calls
// it with the same v; every lane gets the colour): the lanes stride the
// neighbours and OR their used-colour bits across the warp.
WG_DEV uint32_t wg_pick_colour_warp(const wg_graph &g, const uint32_t *colour, uint32_t v) {
  uint32_t begin = g.begin(v), degree = g.end(v) - begin, pick = WG_UNCOLOURED;
  for (uint32_t base = 0; pick == WG_UNCOLOURED; base += WG_COLOUR_WINDOW) {
    uint32_t used[WG_COLOUR_WINDOW / 32];
    for (int w = 0; w < WG_COLOUR_WINDOW / 32; ++w)
      used[w] = 0;
    wg_colour_used_window(g, colour, v, begin, degree, wg_lane_id(), 32, base, used);
    for (int w = 0; w < WG_COLOUR_WINDOW / 32 && pick == WG_UNCOLOURED; ++w) {
      uint32_t all = wg_warp_or(used[w]);
      if (~all != 0)
        pick = base + 32 * w + __ffs(~all) - 1;
    }
  }
  return pick;
}

// ---- the bulk-synchronous form: entries color_bsp_base_{assign,detect} --
// (and color_flat_bsp_base_*: a thread per vertex, whatever its degree, for
// graphs whose degrees stay below WG_COLOUR_WARP_DEGREE). In the others a
// vertex with at least WG_COLOUR_WARP_DEGREE neighbours is taken by its
// whole warp after the warp's other vertices.

// assign: a thread per frontier vertex gives it a colour.
template <bool HUBS> WG_DEV void wg_colour_bsp_assign(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len) {
  wg_graph g = WG_ACC_GRAPH;
  uint32_t *colour = (uint32_t *)meta0;
  uint32_t i = wg_global_id();
  if (!HUBS) {
    if (i < frontier_len) {
      uint32_t v = frontier_in[i];
      colour[v] = wg_pick_colour(g, colour, v);
    }
    return;
  }
  uint32_t v = i < frontier_len ? frontier_in[i] : 0;
  bool has = i < frontier_len, grouped = has && g.end(v) - g.begin(v) >= WG_COLOUR_WARP_DEGREE;
  if (has && !grouped)
    colour[v] = wg_pick_colour(g, colour, v);
  for (uint32_t left = __ballot_sync(WG_FULL_MASK, grouped); left != 0; left &= left - 1) {
    uint32_t u = __shfl_sync(WG_FULL_MASK, v, __ffs(left) - 1), c = wg_pick_colour_warp(g, colour, u);
    if (wg_lane_id() == 0)
      colour[u] = c;
  }
}

// detect: after the barrier every colour is final for this round, so one
// side of each clash suffices: v recolours when a smaller neighbour holds
// its colour, and is queued for the next round.
template <bool HUBS>
WG_DEV void wg_colour_bsp_detect(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len, uint32_t *frontier_out,
                                 uint32_t *frontier_out_len) {
  wg_graph g = WG_ACC_GRAPH;
  const uint32_t *colour = (const uint32_t *)meta0;
  uint32_t i = wg_global_id();
  bool clash = false;
  uint32_t v = 0;
  if (!HUBS) {
    if (i < frontier_len) {
      v = frontier_in[i];
      uint32_t c = colour[v];
      for (uint32_t e = g.begin(v); e < g.end(v) && !clash; ++e) {
        uint32_t u = g.targets[e];
        clash = u < v && colour[u] == c;
      }
    }
    wg_warp_append(clash, v, frontier_out, frontier_out_len);
    return;
  }
  bool grouped = false;
  if (i < frontier_len) {
    v = frontier_in[i];
    grouped = g.end(v) - g.begin(v) >= WG_COLOUR_WARP_DEGREE;
    uint32_t c = colour[v];
    for (uint32_t e = g.begin(v); !grouped && e < g.end(v) && !clash; ++e) {
      uint32_t u = g.targets[e];
      clash = u < v && colour[u] == c;
    }
  }
  {
    for (uint32_t left = __ballot_sync(WG_FULL_MASK, grouped); left != 0; left &= left - 1) {
      uint32_t owner = __ffs(left) - 1, w = __shfl_sync(WG_FULL_MASK, v, owner), c = colour[w];
      bool seen = false;
      for (uint32_t e = g.begin(w) + wg_lane_id(); e < g.end(w) && !seen; e += 32) {
        uint32_t u = g.targets[e];
        seen = u < w && colour[u] == c;
      }
      if (__any_sync(WG_FULL_MASK, seen) && wg_lane_id() == owner)
        clash = true;
    }
  }
  wg_warp_append(clash, v, frontier_out, frontier_out_len);
}

extern "C" __global__ void color_bsp_base_assign(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len) {
  wg_colour_bsp_assign<true>(WG_ACC_ARGS, frontier_in, frontier_len);
}
extern "C" __global__ void color_bsp_base_detect(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                                                 uint32_t *frontier_out, uint32_t *frontier_out_len) {
  wg_colour_bsp_detect<true>(WG_ACC_ARGS, frontier_in, frontier_len, frontier_out, frontier_out_len);
}
extern "C" __global__ void color_flat_bsp_base_assign(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len) {
  wg_colour_bsp_assign<false>(WG_ACC_ARGS, frontier_in, frontier_len);
}
extern "C" __global__ void color_flat_bsp_base_detect(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                                                      uint32_t *frontier_out, uint32_t *frontier_out_len) {
  wg_colour_bsp_detect<false>(WG_ACC_ARGS, frontier_in, frontier_len, frontier_out, frontier_out_len);
}

// ---- the task-parallel uberkernel: entries color_atos_<worker>_<mode> ----

// color_tasks is the colouring work for the atos workers: a task v assigns
// v a colour and queues v's check; a check task (v | WG_CHECK_TASK) looks
// for a neighbour u with v's colour and queues the larger of u and v to
// recolour. Without a barrier a check may run before a neighbour's
// assignment lands; but v's check follows v's last assignment, u's check
// follows u's, and each store is fenced before the check is queued, so of
// two clashing final colours at least one check sees the other: no clash
// survives. A recolouring is queued only when none is queued already
// (queued[v], cleared when the assignment starts, so the assignment that
// follows reads the colours the clash was seen with). WG_Q_COUNTED counts
// assignments (the work; Atos's Table 4).
// HUBS: with the warp and CTA paths (the color_atos_* entries), or
// without (color_flat_atos_*: a lane per task, the fewer registers of the
// smaller kernel; the host picks them for graphs whose degrees never reach
// WG_COLOUR_WARP_DEGREE).
template <bool HUBS> struct color_tasks {
  // check and assign tasks of one vertex differ: colouring deduplicates its
  // recolourings itself (queued, meta1), not the queue's way
  static const bool deduplicates = false;
  wg_graph g;
  uint32_t *colour, *queued;

  __device__ bool claim(uint32_t v) const { return wg_load_volatile(&queued[v]) == 0 && atomicExch(&queued[v], 1u) == 0; }

  __device__ static uint32_t degree_of(const wg_graph &g, bool has, uint32_t task) {
    uint32_t v = task & ~WG_CHECK_TASK;
    return has ? g.end(v) - g.begin(v) : 0;
  }

  // lanes runs the warp's tasks: those of fewer than WG_COLOUR_WARP_DEGREE
  // neighbours a lane each, then the others one at a time with the whole
  // warp. It returns the edges the warp's checks walked.
  __device__ uint32_t lanes(const wg_queue &q, bool has, uint32_t task) {
    if (!HUBS)
      return wg_warp_sum(lane_tasks(q, has, task));
    bool grouped = degree_of(g, has, task) >= WG_COLOUR_WARP_DEGREE;
    uint32_t edges = wg_warp_sum(lane_tasks(q, has && !grouped, task));
    for (uint32_t left = __ballot_sync(WG_FULL_MASK, grouped); left != 0; left &= left - 1)
      edges += warp_task(q, __shfl_sync(WG_FULL_MASK, task, __ffs(left) - 1));
    return edges;
  }

  // lane_tasks: each lane whose has is set runs its own task; it returns
  // the edges the lane's check walked.
  __device__ uint32_t lane_tasks(const wg_queue &q, bool has, uint32_t task) {
    uint32_t v = task & ~WG_CHECK_TASK;
    bool assign = has && (task & WG_CHECK_TASK) == 0, check = has && !assign;
    if (assign) {
      atomicExch(&queued[v], 0u);
      wg_store_volatile(&colour[v], wg_pick_colour(g, colour, v));
    }
    uint32_t assigned = __popc(__ballot_sync(WG_FULL_MASK, assign));
    if (assigned != 0 && wg_lane_id() == 0)
      atomicAdd(&q.ctl[WG_Q_COUNTED], assigned);
    q.push_warp(assign, v | WG_CHECK_TASK); // fenced after the colour
    // Checks walk their neighbours in lock step; each clash with a larger
    // neighbour queues that neighbour, a clash with a smaller one v itself.
    uint32_t begin = 0, degree = 0, c = 0;
    if (check) {
      begin = g.begin(v);
      degree = g.end(v) - begin;
      c = wg_load_volatile(&colour[v]);
    }
    bool recolour_self = false;
    for (uint32_t j = 0; __any_sync(WG_FULL_MASK, j < degree); ++j)
      check_neighbour(q, v, c, begin, j, degree, recolour_self);
    q.push_warp(recolour_self && claim(v), v);
    return degree;
  }

  // check_neighbour checks v (colour c) against its j-th neighbour when j <
  // degree: a clash with a larger neighbour queues that neighbour (all 32
  // lanes call it together), one with a smaller sets recolour_self.
  __device__ void check_neighbour(const wg_queue &q, uint32_t v, uint32_t c, uint32_t begin, uint32_t j,
                                  uint32_t degree, bool &recolour_self) {
    bool recolour_other = false;
    uint32_t u = 0;
    if (j < degree) {
      u = g.targets[begin + j];
      bool clash = u != v && wg_load_volatile(&colour[u]) == c;
      recolour_self |= clash && u < v;
      recolour_other = clash && u > v && claim(u);
    }
    q.push_warp(recolour_other, u);
  }

  // check_stride runs part of a check of v (colour c): the lanes of a warp
  // take its neighbours from first in steps of stride, a warp's lanes in
  // lock step (first and stride are warp-uniform less the lane); each clash
  // with a larger neighbour queues that neighbour. It returns whether a
  // lane saw a clash with a smaller one.
  __device__ bool check_stride(const wg_queue &q, uint32_t v, uint32_t c, uint32_t begin, uint32_t degree,
                               uint32_t first, uint32_t stride) {
    bool recolour_self = false;
    for (uint32_t base = first - wg_lane_id(); base < degree; base += stride)
      check_neighbour(q, v, c, begin, base + wg_lane_id(), degree, recolour_self);
    return __any_sync(WG_FULL_MASK, recolour_self);
  }

  // warp_task runs one task with the whole warp; it returns the edges a
  // check walked (the edges counted are the checks', as lane_tasks').
  __device__ uint32_t warp_task(const wg_queue &q, uint32_t task) {
    uint32_t v = task & ~WG_CHECK_TASK, begin = g.begin(v), degree = g.end(v) - begin, lane = wg_lane_id();
    if ((task & WG_CHECK_TASK) == 0) {
      if (lane == 0)
        atomicExch(&queued[v], 0u);
      uint32_t pick = wg_pick_colour_warp(g, colour, v);
      if (lane == 0) {
        wg_store_volatile(&colour[v], pick);
        atomicAdd(&q.ctl[WG_Q_COUNTED], 1u);
      }
      q.push_warp(lane == 0, v | WG_CHECK_TASK); // fenced after the colour
    } else {
      uint32_t c = __shfl_sync(WG_FULL_MASK, lane == 0 ? wg_load_volatile(&colour[v]) : 0u, 0);
      bool recolour_self = check_stride(q, v, c, begin, degree, lane, 32);
      q.push_warp(lane == 0 && recolour_self && claim(v), v);
    }
    return (task & WG_CHECK_TASK) != 0 ? degree : 0;
  }

  // cta_task runs one task with the whole CTA (every thread calls it); it
  // returns the edges a check walked.
  __device__ uint32_t cta_task(const wg_queue &q, uint32_t task) {
    __shared__ uint32_t s_used[WG_COLOUR_WINDOW / 32];
    __shared__ uint32_t s_word, s_flag;
    uint32_t v = task & ~WG_CHECK_TASK, begin = g.begin(v), degree = g.end(v) - begin;
    if ((task & WG_CHECK_TASK) == 0) {
      if (threadIdx.x == 0)
        atomicExch(&queued[v], 0u);
      uint32_t pick = WG_UNCOLOURED;
      for (uint32_t base = 0; pick == WG_UNCOLOURED; base += WG_COLOUR_WINDOW) {
        if (threadIdx.x < WG_COLOUR_WINDOW / 32)
          s_used[threadIdx.x] = 0;
        __syncthreads();
        uint32_t used[WG_COLOUR_WINDOW / 32];
        for (int w = 0; w < WG_COLOUR_WINDOW / 32; ++w)
          used[w] = 0;
        wg_colour_used_window(g, colour, v, begin, degree, threadIdx.x, blockDim.x, base, used);
        for (int w = 0; w < WG_COLOUR_WINDOW / 32; ++w) {
          uint32_t all = wg_warp_or(used[w]);
          if (wg_lane_id() == 0 && all != 0)
            atomicOr(&s_used[w], all);
        }
        __syncthreads();
        for (int w = 0; w < WG_COLOUR_WINDOW / 32 && pick == WG_UNCOLOURED; ++w)
          if (~s_used[w] != 0)
            pick = base + 32 * w + __ffs(~s_used[w]) - 1;
        __syncthreads(); // every thread has read s_used before the next window clears it
      }
      if (threadIdx.x < 32) {
        if (threadIdx.x == 0) {
          wg_store_volatile(&colour[v], pick);
          atomicAdd(&q.ctl[WG_Q_COUNTED], 1u);
        }
        q.push_warp(threadIdx.x == 0, v | WG_CHECK_TASK); // fenced after the colour
      }
    } else {
      if (threadIdx.x == 0) {
        s_word = wg_load_volatile(&colour[v]);
        s_flag = 0;
      }
      __syncthreads();
      uint32_t c = s_word;
      if (check_stride(q, v, c, begin, degree, threadIdx.x, blockDim.x) && wg_lane_id() == 0)
        s_flag = 1;
      __syncthreads();
      if (threadIdx.x < 32)
        q.push_warp(threadIdx.x == 0 && s_flag != 0 && claim(v), v);
    }
    __syncthreads(); // the shared words are reused by the next task
    return (task & WG_CHECK_TASK) != 0 ? degree : 0;
  }

  // A CTA worker gives each of its threads one task (colouring's work per
  // task is a scan of the neighbourhood, not a set of independent edges);
  // the tasks of at least WG_COLOUR_CTA_DEGREE neighbours are then run one
  // at a time by the whole CTA.
  __device__ uint32_t chunk(const wg_queue &q, uint32_t count, uint32_t task) {
    if (!HUBS)
      return flat_chunk(q, count, task);
    __shared__ uint32_t s_edges, s_hubs;
    __shared__ uint32_t s_hub[WG_ATOS_CHUNK];
    bool has = threadIdx.x < count, hub = degree_of(g, has, task) >= WG_COLOUR_CTA_DEGREE;
    if (threadIdx.x == 0)
      s_edges = s_hubs = 0;
    __syncthreads();
    if (hub)
      s_hub[atomicAdd(&s_hubs, 1u)] = task;
    uint32_t edges = lanes(q, has && !hub, task);
    if (wg_lane_id() == 0)
      atomicAdd(&s_edges, edges);
    __syncthreads();
    uint32_t hubs = s_hubs, hub_edges = 0;
    for (uint32_t i = 0; i < hubs; ++i)
      hub_edges += cta_task(q, s_hub[i]);
    uint32_t total = s_edges + hub_edges;
    __syncthreads();
    return total;
  }

  __device__ uint32_t flat_chunk(const wg_queue &q, uint32_t count, uint32_t task) {
    uint32_t edges = lanes(q, threadIdx.x < count, task);
    __shared__ uint32_t s_edges;
    if (threadIdx.x == 0)
      s_edges = 0;
    __syncthreads();
    if (wg_lane_id() == 0)
      atomicAdd(&s_edges, edges);
    __syncthreads();
    uint32_t total = s_edges;
    __syncthreads();
    return total;
  }
};

WG_ATOS_WORKERS(color, color_tasks<true>, (color_tasks<true>{WG_ACC_GRAPH, (uint32_t *)meta0, (uint32_t *)meta1}))
WG_ATOS_WORKERS(color_flat, color_tasks<false>, (color_tasks<false>{WG_ACC_GRAPH, (uint32_t *)meta0, (uint32_t *)meta1}))
