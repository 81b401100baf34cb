// progress.cu — kernels for the deadlock detector's definition of progress
// (sim/progress_test.go): spins that never change memory, which both
// execution modes must diagnose, beside loops that look alike but make
// progress, which they must run to completion.
//
// Regenerate progress.ptx from the repository root (progress_test.go's
// TestProgressTestdataFresh runs the same command when clang++-16 is
// present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/testdata/progress.cu -o sim/testdata/progress.ptx
#include "../../kernels/warpgraph.h"

// spin_atomic_read: thread 0 of every CTA but CTA 0 polls *flag with
// atomicAdd(flag, zero), an atomic that never changes memory, until it is
// non-zero (zero is 0: a literal 0 would let clang turn the add into
// atom.or, which the detector treats alike). Thread 0 of CTA 0 first makes work atomic increments of
// *counter (each changes memory), then sets *flag when set != 0. With
// set == 0 nobody sets the flag: a deadlock. Each waiting CTA writes 1 to
// out[blockIdx.x] when released.
extern "C" __global__ void spin_atomic_read(unsigned* flag, unsigned* counter, unsigned* out,
                                            int work, int set, unsigned zero) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    for (int i = 0; i < work; i++)
      atomicAdd(counter, 1u);
    if (set)
      atomicExch(flag, 1u);
    return;
  }
  while (atomicAdd(flag, zero) == 0) {
  }
  out[blockIdx.x] = 1;
}

// spin_lock: thread 0 of every CTA takes the lock *lock with atomicCAS(lock,
// 0, 1), adds 1 to *count inside the critical section, and releases the
// lock. Waiting CTAs' CASes fail (and change nothing) while the holder
// works. With *lock == 1 before the launch nobody ever releases it: every
// CAS fails, a deadlock.
extern "C" __global__ void spin_lock(unsigned* lock, unsigned* count) {
  if (threadIdx.x != 0)
    return;
  while (atomicCAS(lock, 0u, 1u) != 0) {
  }
  __threadfence();
  wg_store_volatile(count, wg_load_volatile(count) + 1u);
  __threadfence();
  atomicExch(lock, 0u);
}

// spin_clock: thread 0 of every CTA polls *flag, which nobody sets, and
// reads %clock64 on each poll: its registers never repeat, yet it makes no
// progress. out[blockIdx.x] would get the last clock read.
extern "C" __global__ void spin_clock(unsigned* flag, long long* out) {
  if (threadIdx.x != 0)
    return;
  long long t;
  do {
    t = __nvvm_read_ptx_sreg_clock64();
  } while (wg_load_volatile(flag) == 0);
  out[blockIdx.x] = t;
}

// spin_clock32: thread 0 of every CTA reads the 32-bit %clock until it
// goes backwards by more than 2^31 (never, within a launch the detector
// watches), touching no memory in the loop; out[blockIdx.x] would get the
// last value read.
extern "C" __global__ void spin_clock32(unsigned* out) {
  if (threadIdx.x != 0)
    return;
  unsigned last = __nvvm_read_ptx_sreg_clock();
  for (;;) {
    unsigned t = __nvvm_read_ptx_sreg_clock();
    if (last - t < 0x80000000u && last != t)
      break;
    last = t;
  }
  out[blockIdx.x] = last;
}

// clock_delay: every thread waits until %clock64 has advanced by delay,
// then writes 1 to out[global id]: a legitimate wait on the clock that ends.
extern "C" __global__ void clock_delay(unsigned* out, long long delay) {
  long long t0 = __nvvm_read_ptx_sreg_clock64();
  while (__nvvm_read_ptx_sreg_clock64() - t0 < delay) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// spin_store_same: thread 0 of every CTA polls *flag, which nobody sets,
// and on each poll stores 1 to mark[blockIdx.x], which already holds 1
// after the first: stores that change nothing are not progress.
extern "C" __global__ void spin_store_same(unsigned* flag, unsigned* mark) {
  if (threadIdx.x != 0)
    return;
  while (wg_load_volatile(flag) == 0)
    wg_store_volatile(&mark[blockIdx.x], 1u);
}

// spin_barrier: every warp of every CTA polls *flag, which nobody sets,
// between two __syncthreads: barrier releases are not progress.
extern "C" __global__ void spin_barrier(unsigned* flag, unsigned* out) {
  __shared__ unsigned seen;
  do {
    __syncthreads();
    if (threadIdx.x == 0)
      seen = wg_load_volatile(flag);
    __syncthreads();
  } while (seen == 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}
