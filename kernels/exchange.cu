// exchange.cu — the multi-GPU driver's exchange of vertex values between
// devices (scheduler/mgpu.go): a sender packs values into a send buffer,
// the buffer is copied to the receiver, the receiver applies it. Values are
// 32-bit words (a uint32 or a float's bits), each written only by the
// device that owns its vertex, so applying is a plain store.
#include "warpgraph.h"

// exchange_pack packs the values of list[0..count) into out. With
// out_count null it packs every entry, densely, in list order (the
// receiver knows the list): out[i] = values[list[i]]. Otherwise it packs
// the pairs (v, values[v]) of the entries changed in this sweep
// (stamps[v] == stamp), in any order, reserving slots with one atomicAdd
// per warp on *out_count.
extern "C" __global__ void exchange_pack(const uint32_t *values, const uint32_t *list, uint32_t count,
                                         const uint32_t *stamps, uint32_t stamp, uint32_t *out,
                                         uint32_t *out_count) {
  uint32_t threads = gridDim.x * blockDim.x;
  // The bound is rounded up to whole warps: the ballot needs all 32 lanes.
  uint32_t bound = (count + warpSize - 1) / warpSize * warpSize;
  for (uint32_t i = wg_global_id(); i < bound; i += threads) {
    bool in = i < count;
    uint32_t v = in ? list[i] : 0u;
    if (out_count == nullptr) {
      if (in)
        out[i] = values[v];
      continue;
    }
    bool sends = in && stamps[v] == stamp;
    uint32_t lanes = __ballot_sync(WG_FULL_MASK, sends);
    if (lanes == 0)
      continue;
    uint32_t leader = __ffs(lanes) - 1, base = 0;
    if (wg_lane_id() == leader)
      base = atomicAdd(out_count, (uint32_t)__popc(lanes));
    base = __shfl_sync(WG_FULL_MASK, base, leader);
    if (sends) {
      uint32_t slot = base + __popc(lanes & wg_lanemask_lt());
      out[2 * slot] = v;
      out[2 * slot + 1] = values[v];
    }
  }
}

// exchange_apply stores count received values: entry i is vertex
// ids[i*stride] with value vals[i*stride] (stride 1: a dense buffer and
// the list it follows; stride 2: pairs). An entry that changes the
// receiver's copy of a vertex the receiver reads (reads[v] != 0) is a
// useful update, counted into *useful with one atomicAdd per warp.
extern "C" __global__ void exchange_apply(uint32_t *values, const uint32_t *ids, const uint32_t *vals, uint32_t stride,
                                          uint32_t count, const uint32_t *reads, uint32_t *useful) {
  uint32_t threads = gridDim.x * blockDim.x;
  uint32_t bound = (count + warpSize - 1) / warpSize * warpSize;
  uint32_t mine = 0;
  for (uint32_t i = wg_global_id(); i < bound; i += threads) {
    bool changes = false;
    if (i < count) {
      uint32_t v = ids[(unsigned long long)i * stride], x = vals[(unsigned long long)i * stride];
      if (values[v] != x) {
        values[v] = x;
        changes = reads[v] != 0;
      }
    }
    mine += __popc(__ballot_sync(WG_FULL_MASK, changes));
  }
  if (wg_lane_id() == 0 && mine > 0)
    atomicAdd(useful, mine);
}
