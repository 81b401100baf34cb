// frontier.cuh — frontier producers the schedulers share.
#ifndef WARPGRAPH_LIB_FRONTIER_CUH
#define WARPGRAPH_LIB_FRONTIER_CUH

#include "../warpgraph.h"

// wg_warp_append appends v to out for every lane whose `take` is set, with
// one atomicAdd on *out_len per warp: a ballot counts the takers, lane 0
// reserves that many slots, a shuffle broadcasts the base and each taker
// writes at base + (takers below it). All 32 lanes must call it together.
// Entries land in lane order within a warp, in no order across warps.
WG_DEV void wg_warp_append(bool take, uint32_t v, uint32_t *out, uint32_t *out_len) {
  uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
  if (takers == 0)
    return;
  uint32_t base = 0;
  if (wg_lane_id() == 0)
    base = atomicAdd(out_len, (uint32_t)__popc(takers));
  base = __shfl_sync(WG_FULL_MASK, base, 0);
  if (take)
    out[base + __popc(takers & wg_lanemask_lt())] = v;
}

// wg_warp_append_bounded is wg_warp_append into a list with room for
// capacity entries: a warp whose entries would not fit writes nothing and
// sets *overflow instead, so the caller can rebuild the list another way.
WG_DEV void wg_warp_append_bounded(bool take, uint32_t v, uint32_t *out, uint32_t *out_len,
                                   uint32_t capacity, uint32_t *overflow) {
  uint32_t takers = __ballot_sync(WG_FULL_MASK, take);
  if (takers == 0)
    return;
  uint32_t base = 0;
  if (wg_lane_id() == 0)
    base = atomicAdd(out_len, (uint32_t)__popc(takers));
  base = __shfl_sync(WG_FULL_MASK, base, 0);
  if (base + __popc(takers) > capacity) {
    if (wg_lane_id() == 0)
      *overflow = 1;
    return;
  }
  if (take)
    out[base + __popc(takers & wg_lanemask_lt())] = v;
}

// wg_claim_once reports whether the caller is the first, this iteration,
// to queue v: queued[v] holds the stamp of the last iteration that queued
// it (stamps start at 1; the host zeroes queued before a run), so a vertex
// activated by several edges enters the next frontier once.
WG_DEV bool wg_claim_once(uint32_t *queued, uint32_t v, uint32_t stamp) {
  return queued[v] != stamp && atomicExch(&queued[v], stamp) != stamp;
}

#endif // WARPGRAPH_LIB_FRONTIER_CUH
