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

// peer_bfs: breadth-first search over a graph split into ranges of chunk
// vertices, device d owning [d×chunk, (d+1)×chunk) with their out-edges
// (row: local offsets, col: global ids), by persistent warps with one task
// queue per device, as Atos's workers run across GPUs: a warp pops a
// vertex from its own device's queue, its lanes relax the vertex's edges
// with atomicMin on the depth the neighbour's owner holds, and push each
// improved neighbour into its owner's queue (a remote push: atomicAdd on
// the owner's tail, the id stored in the slot). *pending, on device 0,
// counts the pushed tasks not yet finished; when it reaches 0 every warp
// leaves. Queue slots start at 0xFFFFFFFF: a popped slot is waited on
// until its id lands.
//
// Parameters:
//   self, chunk           this device and the vertices per device.
//   row, col              this device's vertices' out-edges.
//   depths, items, tails  every device's depth array, queue and tail, by
//                         device (arrays of pointers in this device's
//                         memory).
//   head                  this device's queue head (pops so far).
//   pending               the tasks pushed and not finished (device 0's).
//   spin_budget, abort_flag  as every spinning kernel.
// Launch: a co-launch, every CTA resident; the host sets the source's
// depth to 0, pushes it into its owner's queue and *pending to 1.
extern "C" __global__ void peer_bfs(uint32_t self, uint32_t chunk, const uint32_t *row, const uint32_t *col,
                                    uint32_t *const *depths, uint32_t *const *items, uint32_t *const *tails,
                                    uint32_t *head, uint32_t *pending, uint32_t spin_budget, int *abort_flag) {
  uint32_t lane = wg_lane_id();
  uint32_t *mine = items[self];
  uint32_t *depth = depths[self];
  for (;;) {
    // Lane 0 takes a slot and waits for its task, or for the end.
    uint32_t v = 0xFFFFFFFFu;
    int leave = 0;
    if (lane == 0) {
      uint32_t slot = atomicAdd(head, 1u), polls = 0;
      for (;;) {
        v = wg_load_volatile(&mine[slot]);
        if (v != 0xFFFFFFFFu)
          break;
        if (wg_load_volatile(pending) == 0 || wg_spin_give_up(&polls, spin_budget, abort_flag)) {
          leave = 1;
          break;
        }
      }
    }
    if (__shfl_sync(WG_FULL_MASK, leave, 0))
      return;
    v = __shfl_sync(WG_FULL_MASK, v, 0);
    uint32_t local = v - self * chunk, d = wg_load_volatile(&depth[local]) + 1;
    for (uint32_t e = row[local] + lane; e < row[local + 1]; e += warpSize) {
      uint32_t u = col[e], owner = u / chunk;
      if (atomicMin(&depths[owner][u - owner * chunk], d) > d) {
        atomicAdd(pending, 1u);
        uint32_t slot = atomicAdd(tails[owner], 1u);
        wg_store_volatile(&items[owner][slot], u);
      }
    }
    // Every lane's pushes are counted before the task ends.
    __ballot_sync(WG_FULL_MASK, 1);
    __threadfence();
    if (lane == 0)
      atomicSub(pending, 1u);
  }
}
