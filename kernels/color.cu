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

// ---- the bulk-synchronous form: entries color_bsp_base_{assign,detect} --

// assign: a thread per frontier vertex gives it a colour.
extern "C" __global__ void color_bsp_base_assign(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len) {
  wg_graph g = WG_ACC_GRAPH;
  uint32_t *colour = (uint32_t *)meta0;
  uint32_t i = wg_global_id();
  if (i < frontier_len) {
    uint32_t v = frontier_in[i];
    colour[v] = wg_pick_colour(g, colour, v);
  }
}

// detect: after the barrier every colour is final for this round, so one
// side of each clash suffices: v recolours when a smaller neighbour holds
// its colour, and is queued for the next round.
extern "C" __global__ void color_bsp_base_detect(WG_ACC_PARAMS, const uint32_t *frontier_in, uint32_t frontier_len,
                                                 uint32_t *frontier_out, uint32_t *frontier_out_len) {
  wg_graph g = WG_ACC_GRAPH;
  const uint32_t *colour = (const uint32_t *)meta0;
  uint32_t i = wg_global_id();
  bool clash = false;
  uint32_t v = 0;
  if (i < frontier_len) {
    v = frontier_in[i];
    uint32_t c = colour[v];
    for (uint32_t e = g.begin(v); e < g.end(v) && !clash; ++e) {
      uint32_t u = g.targets[e];
      clash = u < v && colour[u] == c;
    }
  }
  wg_warp_append(clash, v, frontier_out, frontier_out_len);
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
struct color_tasks {
  // check and assign tasks of one vertex differ: colouring deduplicates its
  // recolourings itself (queued, meta1), not the queue's way
  static const bool deduplicates = false;
  wg_graph g;
  uint32_t *colour, *queued;

  __device__ bool claim(uint32_t v) const { return wg_load_volatile(&queued[v]) == 0 && atomicExch(&queued[v], 1u) == 0; }

  __device__ uint32_t lanes(const wg_queue &q, bool has, uint32_t task) {
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
    for (uint32_t j = 0; __any_sync(WG_FULL_MASK, j < degree); ++j) {
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
    q.push_warp(recolour_self && claim(v), v);
    return wg_warp_sum(degree);
  }

  // A CTA worker gives each of its threads one task (colouring's work per
  // task is a scan of the neighbourhood, not a set of independent edges).
  __device__ uint32_t chunk(const wg_queue &q, uint32_t count, uint32_t task) {
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

WG_ATOS_WORKERS(color, color_tasks, (color_tasks{WG_ACC_GRAPH, (uint32_t *)meta0, (uint32_t *)meta1}))
