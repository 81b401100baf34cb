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

// How a thread waits for a word to become non-zero: unbounded_wait polls
// until it does (the simulator's deadlock detector ends a wait that never
// does); budgeted_wait polls through wg_spin_give_up and returns false when
// its budget ran out or another thread aborted, so that the GPU never hangs
// (the bounded kernels below, which sim/testdata/h100checks runs on it).
// polls is the last wait's count of polls that found 0.
struct unbounded_wait {
  uint32_t polls = 0;
  template <class Load> __device__ bool operator()(Load load) {
    while (load() == 0) {
    }
    return true;
  }
};

struct budgeted_wait {
  uint32_t spin_budget;
  int* abort_flag;
  uint32_t polls = 0;
  template <class Load> __device__ bool operator()(Load load) {
    polls = 0;
    while (load() == 0)
      if (wg_spin_give_up(&polls, spin_budget, abort_flag))
        return false;
    return true;
  }
};

// done (null for the unbounded kernels): done[0] = 1 when the reader got
// through its wait, done[1] = 1 when the writer did.
template <int Fence, class Wait>
__device__ void publish_and_read(unsigned* data, unsigned* flag, unsigned* ready, unsigned* out,
                                 int again, Wait wait, unsigned* done) {
  if (threadIdx.x != 0)
    return;
  out[2 + blockIdx.x] = __nvvm_read_ptx_sreg_smid();
  if (blockIdx.x == 0) {
    if (!wait([&] { return wg_load_volatile(ready); }))
      return;
    data[0] = 42u;
    __threadfence();
    wg_store_volatile(flag, 1u);
    if (done)
      done[1] = 1u;
    return;
  }
  unsigned first = data[0];
  out[0] = first;
  wg_store_volatile(ready, first + 1u);
  if (!wait([&] { return wg_load_volatile(flag); }))
    return;
  if (Fence == 2)
    __threadfence();
  else if (Fence == 1)
    __threadfence_block();
  out[1] = data[again];
  if (done)
    done[0] = 1u;
}

extern "C" __global__ void read_after_threadfence(unsigned* data, unsigned* flag, unsigned* ready,
                                                  unsigned* out, int again) {
  publish_and_read<2>(data, flag, ready, out, again, unbounded_wait{}, nullptr);
}

extern "C" __global__ void read_after_threadfence_block(unsigned* data, unsigned* flag,
                                                        unsigned* ready, unsigned* out, int again) {
  publish_and_read<1>(data, flag, ready, out, again, unbounded_wait{}, nullptr);
}

extern "C" __global__ void read_without_fence(unsigned* data, unsigned* flag, unsigned* ready,
                                              unsigned* out, int again) {
  publish_and_read<0>(data, flag, ready, out, again, unbounded_wait{}, nullptr);
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

// Volatile == 1 is the correct wait. extra (null for the unbounded
// kernel): extra[0] = the reader's polls that found 0 (the budget when it
// gave up), extra[1] = 1 when the writer set the flag.
template <int Volatile, class Wait>
__device__ void spin_on_load(unsigned* flag, unsigned* ready, unsigned* out, Wait wait,
                             unsigned* extra) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    if (!wait([&] { return wg_load_volatile(ready); }))
      return;
    __threadfence();
    wg_store_volatile(flag, 1u);
    if (extra)
      extra[1] = 1u;
    return;
  }
  unsigned v = load_weak(flag);
  wg_store_volatile(ready, v + 1u);
  bool saw = wait([&] { return Volatile ? wg_load_volatile(flag) : load_weak(flag); });
  if (extra)
    extra[0] = wait.polls;
  if (saw)
    out[0] = 1u;
}

extern "C" __global__ void spin_on_plain_load(unsigned* flag, unsigned* ready, unsigned* out) {
  spin_on_load<0>(flag, ready, out, unbounded_wait{}, nullptr);
}

// ---- bounded variants, for the GPU -------------------------------------
//
// The same kernels with every wait bounded (budgeted_wait), so that a wait
// that never ends on the GPU ends by its spin budget (and raises
// *abort_flag) instead of hanging it. The simulator runs them too
// (sim/coherence_test.go).
//
// publish_and_read's bounded kernels: out[4] = 1 when the reader got
// through its wait, out[5] = 1 when the writer did.
#define PUBLISH_AND_READ_BOUNDED(name, fence)                                                    \
  extern "C" __global__ void name(unsigned* data, unsigned* flag, unsigned* ready, unsigned* out,  \
                                  int again, uint32_t spin_budget, int* abort_flag) {             \
    publish_and_read<fence>(data, flag, ready, out, again,                                        \
                            budgeted_wait{spin_budget, abort_flag}, out + 4);                     \
  }
PUBLISH_AND_READ_BOUNDED(read_after_threadfence_bounded, 2)
PUBLISH_AND_READ_BOUNDED(read_after_threadfence_block_bounded, 1)
PUBLISH_AND_READ_BOUNDED(read_without_fence_bounded, 0)

// spin_on_load's bounded kernels, the missing-volatile wait and the
// correct one: out[0] = 1 when the reader saw the flag, out[1] = its polls
// that found 0 (the budget when it gave up), out[2] = 1 when the writer
// set the flag.
extern "C" __global__ void spin_on_plain_load_bounded(unsigned* flag, unsigned* ready,
                                                      unsigned* out, uint32_t spin_budget,
                                                      int* abort_flag) {
  spin_on_load<0>(flag, ready, out, budgeted_wait{spin_budget, abort_flag}, out + 1);
}

extern "C" __global__ void spin_on_volatile_load_bounded(unsigned* flag, unsigned* ready,
                                                         unsigned* out, uint32_t spin_budget,
                                                         int* abort_flag) {
  spin_on_load<1>(flag, ready, out, budgeted_wait{spin_budget, abort_flag}, out + 1);
}
