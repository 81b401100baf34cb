// peer.cu — a kernel that reaches another device's memory, for the
// co-launch tests (sim/colaunch_test.go): one-sided pushes into a peer
// device's queue, the communication of Atos's workers across GPUs. It runs
// as a co-launch (kernels.PeerSystem), the same kernel on every device at
// once, each device with its own arguments.
//
// Regenerate peer.ptx from the repository root (colaunch_test.go's
// TestPeerTestdataFresh runs the same command when clang++-16 is present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/testdata/peer.cu -o sim/testdata/peer.ptx
#include "../../kernels/warpgraph.h"

// peer_push: thread i < count pushes values[i] into the destination
// device's queue: each warp reserves slots for its pushing lanes with one
// atomicAdd on *dst_tail, as a queue's producers do, and its lanes store
// their values at dst_items[slot]. dst_tail and dst_items are another
// device's pointers (or this device's own). With expected > 0, thread 0 of
// every CTA then waits until this device's queue has received expected
// pushes in all (*my_tail, which the other devices' pushes raise), so the
// kernel finishes only when the devices that push to it have run: it needs
// a co-launch.
//
// Parameters:
//   values, count          this device's values to push.
//   dst_tail, dst_items    the destination device's queue.
//   my_tail                this device's queue tail.
//   expected               pushes this device receives in all (0: no wait).
//   spin_budget            polls before a waiter gives up (0: unbounded,
//                          simulator only).
//   abort_flag             raised by a waiter that gave up; 0 after a
//                          correct run.
// Driver checks: *dst_tail rises by count; dst_items holds this device's
// values once each; *abort_flag = 0.
extern "C" __global__ void peer_push(const uint32_t *values, uint32_t count, uint32_t *dst_tail, uint32_t *dst_items,
                                     const uint32_t *my_tail, uint32_t expected, uint32_t spin_budget,
                                     int *abort_flag) {
  uint32_t threads = gridDim.x * blockDim.x;
  uint32_t bound = (count + warpSize - 1) / warpSize * warpSize;
  for (uint32_t i = wg_global_id(); i < bound; i += threads) {
    bool pushes = i < count;
    uint32_t lanes = __ballot_sync(WG_FULL_MASK, pushes);
    if (lanes == 0)
      continue;
    uint32_t leader = __ffs(lanes) - 1, base = 0;
    if (wg_lane_id() == leader)
      base = atomicAdd(dst_tail, (uint32_t)__popc(lanes));
    base = __shfl_sync(WG_FULL_MASK, base, leader);
    if (pushes)
      dst_items[base + __popc(lanes & wg_lanemask_lt())] = values[i];
  }
  if (expected == 0 || threadIdx.x != 0)
    return;
  uint32_t polls = 0;
  while (wg_load_volatile(my_tail) < expected)
    if (wg_spin_give_up(&polls, spin_budget, abort_flag))
      return;
}
