// its.cu — kernels for independent thread scheduling (sim/its_test.go):
// Volta and later (compute capability >= 7.0) schedule a warp's threads
// independently, so threads of one warp may wait on each other; the
// pre-Volta reconvergence stack (gtx780ti) deadlocks on the same code.
//
// Regenerate its.ptx from the repository root (its_test.go's
// TestITSTestdataFresh runs the same command when clang++-16 is present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/testdata/its.cu -o sim/testdata/its.ptx
#include "../../kernels/warpgraph.h"

// lock_intra_warp: every thread takes one global spin lock in turn, the
// lanes of a warp included, and adds 1 to *count with a plain read and
// write under it; order[tid] gets the count it wrote. On Volta and later
// the lane holding the lock runs past the loop while its warp's other
// lanes spin; on Kepler the holder waits at the loop's exit for lanes that
// can never leave it.
extern "C" __global__ void lock_intra_warp(unsigned* lock, unsigned* count, unsigned* order) {
  while (atomicCAS(lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  unsigned c = wg_load_volatile(count) + 1u;
  wg_store_volatile(count, c);
  __threadfence();
  atomicExch(lock, 0u);
  order[threadIdx.x + blockIdx.x * blockDim.x] = c;
}

// ballot_after_lock: as lock_intra_warp, then the whole warp votes on the
// parity of the counts its lanes wrote: __ballot_sync waits for every lane
// of the warp, which leave the lock one by one.
extern "C" __global__ void ballot_after_lock(unsigned* lock, unsigned* count, unsigned* order,
                                             unsigned* ballot) {
  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;
  while (atomicCAS(lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  unsigned c = wg_load_volatile(count) + 1u;
  wg_store_volatile(count, c);
  __threadfence();
  atomicExch(lock, 0u);
  order[tid] = c;
  ballot[tid] = __ballot_sync(WG_FULL_MASK, c & 1u);
}

// ballot_never: the low half of each warp votes with the whole warp while
// the high half waits at __syncthreads for it: neither wait can end.
extern "C" __global__ void ballot_never(unsigned* out) {
  unsigned lane = threadIdx.x % 32;
  if (lane < 16)
    out[threadIdx.x] = __ballot_sync(WG_FULL_MASK, 1);
  __syncthreads();
  out[threadIdx.x] += 1;
}

// ballot_outside_mask: each lane votes with a mask that names only its
// neighbour, never itself.
extern "C" __global__ void ballot_outside_mask(unsigned* out) {
  unsigned lane = threadIdx.x % 32;
  out[threadIdx.x] = __ballot_sync(1u << ((lane + 1) % 32), 1);
}

// handshake: each even lane sets its flag, then waits for its odd
// neighbour's, which sets it only after seeing the even lane's: a
// handshake across the two sides of an if. Whichever side the stack runs
// first waits for the other forever; independent thread scheduling
// completes it. out[t] gets the neighbour's flag.
extern "C" __global__ void handshake(unsigned* flags, unsigned* out) {
  unsigned t = threadIdx.x;
  if (t & 1) {
    while (wg_load_volatile(&flags[t - 1]) == 0) {
    }
    out[t] = wg_load_volatile(&flags[t - 1]);
    wg_store_volatile(&flags[t], t + 1);
  } else {
    wg_store_volatile(&flags[t], t + 1);
    while (wg_load_volatile(&flags[t + 1]) == 0) {
    }
    out[t] = wg_load_volatile(&flags[t + 1]);
  }
}

// divergent_loops: lane l loops l times, then the warp shuffles. Nothing
// waits on another lane, so independent thread scheduling must run it as
// the stack does, instruction for instruction.
extern "C" __global__ void divergent_loops(unsigned* out) {
  unsigned t = threadIdx.x, s = 0;
  for (unsigned i = 0; i <= t % 32; i++)
    s = s * 1664525u + (i ^ t); // a recurrence clang cannot fold
  out[t] = s + __shfl_sync(WG_FULL_MASK, s, 0);
}

// locked_increment takes the lock, adds 1 to *count under it and returns
// the count it wrote; not inlined, so lanes part inside a call.
static __device__ __noinline__ unsigned locked_increment(unsigned* lock, unsigned* count) {
  while (atomicCAS(lock, 0u, 1u) != 0u) {
  }
  __threadfence();
  unsigned c = wg_load_volatile(count) + 1u;
  wg_store_volatile(count, c);
  __threadfence();
  atomicExch(lock, 0u);
  return c;
}

// lock_in_call: the lanes of a warp leave the call one by one, meet again
// at __syncwarp and sum their counts with shuffles: sum[tid] is the warp's
// total.
extern "C" __global__ void lock_in_call(unsigned* lock, unsigned* count, unsigned* order, unsigned* sum) {
  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned c = locked_increment(lock, count);
  order[tid] = c;
  __nvvm_bar_warp_sync(WG_FULL_MASK);
  unsigned s = c;
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_xor_sync(WG_FULL_MASK, s, o);
  sum[tid] = s;
}
