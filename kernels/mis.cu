// mis.cu — maximal independent set in the ACC model (voting): the greedy
// set in priority order, v in the set exactly when no neighbour of higher
// priority is. The host runs it on the symmetrised graph; self-loops are
// never edges here (a vertex is not above itself).
//   meta0      uint32 state[|V|]: 0 when v is in the set; WG_MIS_OUT (bit
//              31) set when v is out; otherwise v is undecided and the
//              value counts v's edges from neighbours above it that have
//              not released v yet (the host counts them, with
//              multiplicity, so each of those edges' pushes is counted).
//   param_u32  the priority key (graph/ref's MISKey of the seed).
//
// Priorities: p(v) = fmix32(v * 0x9E3779B1 ^ key), a bijection of v (a
// multiplication by an odd constant, an xor and MurmurHash3's finaliser
// are each invertible), so distinct vertices never tie; the order is
// p(u) > p(v), then the smaller id, to make it total whatever the hash.
// graph/ref's MISPriority and MISAbove are the same functions.
//
// Push (the form every frontier scheduler runs): a vertex enters a
// frontier once, when it decides, and tells the neighbours below it:
// KILL from a member (they are out: atomicOr of the out bit, which only
// the first kill activates), RELEASE from a non-member (one fewer edge
// to wait for: atomicSub; the one that brings an undecided counter to 0
// makes the vertex a member and activates it). The first frontier is the
// vertices with no neighbour above (state 0 from the start); the host
// lists them (Problem.Start), so that a scheduler that would otherwise
// queue every vertex (atos) queues only decided ones: the task of an
// undecided vertex, run after the vertex decided, would push its decision
// a second time (and a second release breaks the counters).
//
// Why any schedule gives the same set. By induction down the priority
// order: when every neighbour above v has decided correctly, v's decision
// is correct, and it is final. v joins only when its counter reaches 0,
// i.e. every edge from above has released it, i.e. every neighbour above
// is out; v leaves only on a kill, i.e. some neighbour above is in. The
// two cannot both happen (a member above never releases v, so the counter
// stays positive), each decision activates v exactly once (the atomic's
// old value says which update made it), and so each vertex pushes its
// final decision exactly once: the counters are exact and the order in
// which pushes land — across warps, CTAs, levels, or with no levels at
// all (atos) — changes nothing, since a counter and an or are commutative.
// And every vertex decides: the highest undecided vertex has all its
// neighbours above decided, and their pushes arrive.
//
// Pull (identity / reduce / pull_done / combine_pull: sweeps over
// in-edges until no vertex decides, as bsp's pull, edge, wseg and vwc
// run them): an undecided vertex gathers, from each neighbour above, KILL
// (a member), WAIT (undecided) or RELEASE (out), reduced by max: any KILL
// makes it out (and stops the gather), all RELEASE (or none) makes it a
// member, a WAIT leaves it undecided. The same induction applies (what a
// sweep reads from above is final or undecided, never wrong), and a sweep
// decides at least the highest undecided vertex. A pull stores out
// without a counter, so pulls and pushes do not mix in one run: a vertex
// decided by a pull releases nobody's counter unless it is then pushed
// from, and a vertex decided in a pull followed by another pull never is.
// The algorithm is therefore not Pullable (scheduler/alg_mis.go), and a
// scheduler uses either form alone.
#include "lib/schedulers.cuh"

#define WG_MIS_OUT 0x80000000u
// The updates, ordered for reduce (max): what a neighbour above says.
#define WG_MIS_RELEASE 0u // it is out
#define WG_MIS_WAIT 1u    // it is undecided (pull only)
#define WG_MIS_KILL 2u    // it is in

// wg_mis_priority is v's priority under key.
WG_DEV uint32_t wg_mis_priority(uint32_t v, uint32_t key) {
  uint32_t h = (v * 0x9E3779B1u) ^ key;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

// wg_mis_above reports whether u comes before v in the greedy order.
WG_DEV bool wg_mis_above(uint32_t u, uint32_t v, uint32_t key) {
  uint32_t pu = wg_mis_priority(u, key), pv = wg_mis_priority(v, key);
  return pu > pv || (pu == pv && u < v);
}

// wg_mis_says is what a vertex in state s tells its neighbours below.
WG_DEV uint32_t wg_mis_says(uint32_t s) {
  return s == 0 ? WG_MIS_KILL : ((s & WG_MIS_OUT) ? WG_MIS_RELEASE : WG_MIS_WAIT);
}

struct mis_acc : wg_acc_defaults<uint32_t> {
  static const int kind = WG_VOTING;
  static const int reduce_atomic = WG_ATOMIC_MAX;
  // atos: a task reads its vertex's decision once, coherently, when it
  // starts (take), and its edges carry it; the other schedulers read it
  // in compute, after the barrier that ended the level that decided it.
  static const bool carries = true;
  uint32_t *state;
  uint32_t key;
  __device__ mis_acc(wg_meta m) : state((uint32_t *)m.buf[0]), key(m.param_u32) {}

  // The first frontier: the vertices no neighbour is above.
  __device__ bool active(uint32_t v) const { return state[v] == 0; }
  // An edge says something only downwards: src above dst.
  __device__ bool compute(uint32_t src, uint32_t dst, uint32_t, uint32_t *update) const {
    if (!wg_mis_above(src, dst, key))
      return false;
    *update = wg_mis_says(state[src]);
    return true;
  }
  // A push applies a decision; WAIT (a push from an undecided vertex,
  // which no scheduler makes) applies nothing. The plain reads skip
  // atomics on vertices already out (out is final, so a read that shows
  // it is never stale in the way that matters).
  __device__ bool combine_push(uint32_t dst, uint32_t update) const {
    if (update == WG_MIS_KILL)
      return (state[dst] & WG_MIS_OUT) == 0 && (atomicOr(&state[dst], WG_MIS_OUT) & WG_MIS_OUT) == 0;
    if (update == WG_MIS_RELEASE)
      return (state[dst] & WG_MIS_OUT) == 0 && atomicSub(&state[dst], 1u) == 1u;
    return false;
  }

  // atos's tasks: a task is a decided vertex (the start list and the
  // vertices combine_push activated); the volatile read sees the atomic
  // that decided it.
  __device__ bool take(uint32_t v, uint32_t *says) {
    *says = wg_mis_says(wg_load_volatile(&state[v]));
    return *says != WG_MIS_WAIT;
  }
  __device__ bool compute_carried(uint32_t src, uint32_t says, uint32_t dst, uint32_t, uint32_t *update) const {
    if (!wg_mis_above(src, dst, key))
      return false;
    *update = says;
    return true;
  }

  __device__ bool wants_pull(uint32_t dst) const {
    uint32_t s = state[dst];
    return s != 0 && (s & WG_MIS_OUT) == 0;
  }
  __device__ uint32_t identity() const { return WG_MIS_RELEASE; }
  __device__ uint32_t reduce(uint32_t a, uint32_t b) const { return wg_max(a, b); }
  __device__ bool pull_done(uint32_t acc) const { return acc == WG_MIS_KILL; }
  // true when dst decided in this sweep.
  __device__ bool combine_pull(uint32_t dst, uint32_t acc) const {
    if (acc == WG_MIS_WAIT)
      return false;
    state[dst] = acc == WG_MIS_KILL ? WG_MIS_OUT : 0u;
    return true;
  }
};

WG_ACC_ENTRIES(mis, mis_acc)

// Asynchronous under Atos as it is: each vertex is queued once, when it
// decides (see above).
WG_ATOS_ENTRIES(mis, mis_acc)
