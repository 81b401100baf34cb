// coherence.cu — kernels for the timing model's non-coherent L1
// (memory.coherence: l1) and the fences that invalidate it
// (sim/coherence_test.go).
//
// Regenerate coherence.ptx from the repository root (coherence_test.go's
// TestCoherenceTestdataFresh runs the same command when clang++-16 is
// present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/testdata/coherence.cu -o sim/testdata/coherence.ptx
#include "../../kernels/warpgraph.h"

// The pattern of a fused kernel crossing a grid barrier: CTA 0 (the
// writer) publishes data behind a flag, CTA 1 (the reader, on another SM)
// reads the data with plain loads before and after waiting for the flag.
// Thread 0 of each CTA acts; launch 2 CTAs of 32 threads.
//
//   reader: out[0] = data[0]        (a weak load: the line is now in its L1)
//           *ready = out[0] + 1     (volatile; depends on the load, so the
//                                    line is in L1 before the writer goes on)
//   writer: waits for *ready        (volatile)
//           data[0] = 42            (a plain store)
//           __threadfence()         (release)
//           *flag = 1               (volatile)
//   reader: waits for *flag         (volatile)
//           Fence: __threadfence(), __threadfence_block() or none
//           out[1] = data[again]    (a weak load; again == 0, a parameter so
//                                    that the compiler cannot reuse out[0])
//   both:   out[2 + blockIdx.x] = %smid
//
// On NVIDIA hardware the reader's second load finds the line in its L1:
// without a GPU-scope fence it may return the stale 0 (the L1 is not
// coherent; nothing evicted the line), while __threadfence() invalidates
// the L1, so the load reads L2 and returns 42. __threadfence_block() orders
// only within the CTA and leaves the L1 alone.
template <int Fence>
__device__ void publish_and_read(unsigned* data, unsigned* flag, unsigned* ready, unsigned* out,
                                 int again) {
  if (threadIdx.x != 0)
    return;
  out[2 + blockIdx.x] = __nvvm_read_ptx_sreg_smid();
  if (blockIdx.x == 0) {
    while (wg_load_volatile(ready) == 0) {
    }
    data[0] = 42u;
    __threadfence();
    wg_store_volatile(flag, 1u);
    return;
  }
  unsigned first = data[0];
  out[0] = first;
  wg_store_volatile(ready, first + 1u);
  while (wg_load_volatile(flag) == 0) {
  }
  if (Fence == 2)
    __threadfence();
  else if (Fence == 1)
    __threadfence_block();
  out[1] = data[again];
}

extern "C" __global__ void read_after_threadfence(unsigned* data, unsigned* flag, unsigned* ready,
                                                  unsigned* out, int again) {
  publish_and_read<2>(data, flag, ready, out, again);
}

extern "C" __global__ void read_after_threadfence_block(unsigned* data, unsigned* flag,
                                                        unsigned* ready, unsigned* out, int again) {
  publish_and_read<1>(data, flag, ready, out, again);
}

extern "C" __global__ void read_without_fence(unsigned* data, unsigned* flag, unsigned* ready,
                                              unsigned* out, int again) {
  publish_and_read<0>(data, flag, ready, out, again);
}

// spin_on_plain_load: a wait that forgot volatile. CTA 1 reads *flag with
// a plain load (inline PTX, so that the load stays inside the loop rather
// than being hoisted out of it by the compiler) until it is non-zero; CTA 0
// sets it after CTA 1's first read brought the line into its L1 (the
// handshake on *ready as above). On NVIDIA hardware the poll keeps hitting
// the stale line in L1 and never ends (the spin budget ends it); with
// memory.coherence: l1 the simulator livelocks alike, and the deadlock
// detector names the load. out[0] = 1 when CTA 1 gets through.
__device__ unsigned load_weak(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

extern "C" __global__ void spin_on_plain_load(unsigned* flag, unsigned* ready, unsigned* out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    while (wg_load_volatile(ready) == 0) {
    }
    __threadfence();
    wg_store_volatile(flag, 1u);
    return;
  }
  unsigned v = load_weak(flag);
  wg_store_volatile(ready, v + 1u);
  while (load_weak(flag) == 0) {
  }
  out[0] = 1u;
}

// ---- bounded variants, for the GPU -------------------------------------
//
// The same two experiments with every wait polling through
// wg_spin_give_up, so that a wait that never ends on the GPU ends by its
// spin budget (and raises *abort_flag) instead of hanging it. The
// simulator runs them too (sim/coherence_test.go), and
// sim/testdata/h100checks runs them on both.
//
// publish_and_read_bounded: as publish_and_read; out[4] = 1 when the
// reader got through its wait, out[5] = 1 when the writer got through.
template <int Fence>
__device__ void publish_and_read_bounded(unsigned* data, unsigned* flag, unsigned* ready,
                                         unsigned* out, int again, uint32_t spin_budget,
                                         int* abort_flag) {
  if (threadIdx.x != 0)
    return;
  out[2 + blockIdx.x] = __nvvm_read_ptx_sreg_smid();
  uint32_t polls = 0;
  if (blockIdx.x == 0) {
    while (wg_load_volatile(ready) == 0)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return;
    data[0] = 42u;
    __threadfence();
    wg_store_volatile(flag, 1u);
    out[5] = 1u;
    return;
  }
  unsigned first = data[0];
  out[0] = first;
  wg_store_volatile(ready, first + 1u);
  while (wg_load_volatile(flag) == 0)
    if (wg_spin_give_up(&polls, spin_budget, abort_flag))
      return;
  if (Fence == 2)
    __threadfence();
  else if (Fence == 1)
    __threadfence_block();
  out[1] = data[again];
  out[4] = 1u;
}

extern "C" __global__ void read_after_threadfence_bounded(unsigned* data, unsigned* flag,
                                                          unsigned* ready, unsigned* out,
                                                          int again, uint32_t spin_budget,
                                                          int* abort_flag) {
  publish_and_read_bounded<2>(data, flag, ready, out, again, spin_budget, abort_flag);
}

extern "C" __global__ void read_after_threadfence_block_bounded(unsigned* data, unsigned* flag,
                                                                unsigned* ready, unsigned* out,
                                                                int again, uint32_t spin_budget,
                                                                int* abort_flag) {
  publish_and_read_bounded<1>(data, flag, ready, out, again, spin_budget, abort_flag);
}

extern "C" __global__ void read_without_fence_bounded(unsigned* data, unsigned* flag,
                                                      unsigned* ready, unsigned* out, int again,
                                                      uint32_t spin_budget, int* abort_flag) {
  publish_and_read_bounded<0>(data, flag, ready, out, again, spin_budget, abort_flag);
}

// spin_on_load_bounded: the missing-volatile wait of spin_on_plain_load
// (Volatile == 0) and the correct one (Volatile == 1), bounded. out[0] = 1
// when the reader saw the flag, out[1] = the reader's polls after its
// first read (the budget when it gave up), out[2] = 1 when the writer set
// the flag.
template <int Volatile>
__device__ void spin_on_load_bounded(unsigned* flag, unsigned* ready, unsigned* out,
                                     uint32_t spin_budget, int* abort_flag) {
  if (threadIdx.x != 0)
    return;
  uint32_t polls = 0;
  if (blockIdx.x == 0) {
    while (wg_load_volatile(ready) == 0)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return;
    __threadfence();
    wg_store_volatile(flag, 1u);
    out[2] = 1u;
    return;
  }
  unsigned v = load_weak(flag);
  wg_store_volatile(ready, v + 1u);
  while ((Volatile ? wg_load_volatile(flag) : load_weak(flag)) == 0)
    if (wg_spin_give_up(&polls, spin_budget, abort_flag)) {
      out[1] = polls;
      return;
    }
  out[0] = 1u;
  out[1] = polls;
}

extern "C" __global__ void spin_on_plain_load_bounded(unsigned* flag, unsigned* ready,
                                                      unsigned* out, uint32_t spin_budget,
                                                      int* abort_flag) {
  spin_on_load_bounded<0>(flag, ready, out, spin_budget, abort_flag);
}

extern "C" __global__ void spin_on_volatile_load_bounded(unsigned* flag, unsigned* ready,
                                                         unsigned* out, uint32_t spin_budget,
                                                         int* abort_flag) {
  spin_on_load_bounded<1>(flag, ready, out, spin_budget, abort_flag);
}
