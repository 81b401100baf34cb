// atomic_contention.cu — WolfGraph's atomicMin mini-benchmark: shared versus
// global memory atomics as the synchronisation degree grows.
#include "warpgraph.h"

// Each thread t of a CTA of T threads (the benchmark uses T = 1024, one CTA)
// performs reps atomicMin operations on slot t / d of its CTA's slice, so d
// threads share each address (the synchronisation degree). The value of
// repetition r is
//
//   v(t, r) = t ^ (r * 0x9E3779B9)          (32-bit unsigned arithmetic)
//
// so every repetition proposes a different value and the final content is
//
//   out[b*S + a] = min { v(t, r) : a*d <= t < min((a+1)*d, T), 0 <= r < reps }
//
// for CTA b and slot a < S, where S = ceil(T / d) is the number of slots per
// CTA. (With reps = 0 every slot stays 0xFFFFFFFF.)
//
// Parameters:
//   out     gridDim.x * S uint32 words (written). The kernel initialises its
//           own slots, so the driver need not clear them.
//   degree  d, threads per address, 1..T (0 is treated as 1).
//   reps    atomicMin operations per thread, so timings are measurable.
// Launch: grid 1 (more CTAs each work on their own slice), block T <= 1024.
// Driver checks: every out word against the formula above.
// Idempotent: it may be repeated for timing.

#define WG_AC_MAX_THREADS 1024

WG_DEV uint32_t contention_value(uint32_t t, uint32_t r) { return t ^ (r * 0x9E3779B9u); }

// atomic_contention_shared: the atomics go to a shared-memory array; after
// a barrier the CTA copies the array to out.
extern "C" __global__ void atomic_contention_shared(uint32_t* out, uint32_t degree, uint32_t reps) {
  __shared__ uint32_t slots[WG_AC_MAX_THREADS];
  uint32_t t = threadIdx.x;
  uint32_t d = degree == 0 ? 1 : degree;
  uint32_t nslots = (blockDim.x + d - 1) / d;
  if (t < nslots)
    slots[t] = 0xFFFFFFFFu;
  __syncthreads();
  uint32_t* slot = &slots[t / d];
  for (uint32_t r = 0; r < reps; ++r)
    atomicMin(slot, contention_value(t, r));
  __syncthreads();
  if (t < nslots)
    out[blockIdx.x * nslots + t] = slots[t];
}

// atomic_contention_global: the atomics go straight to out in global memory.
extern "C" __global__ void atomic_contention_global(uint32_t* out, uint32_t degree, uint32_t reps) {
  uint32_t t = threadIdx.x;
  uint32_t d = degree == 0 ? 1 : degree;
  uint32_t nslots = (blockDim.x + d - 1) / d;
  uint32_t* base = out + blockIdx.x * nslots;
  if (t < nslots)
    base[t] = 0xFFFFFFFFu;
  __syncthreads(); // orders the initialising stores before the atomics
  uint32_t* slot = &base[t / d];
  for (uint32_t r = 0; r < reps; ++r)
    atomicMin(slot, contention_value(t, r));
}

// atomic_spread: every thread of CTA b performs reps atomicMin on one word,
// out[b * stride], so each CTA hammers its own address and the CTAs'
// addresses lie stride words apart. With the whole GPU busy, the time
// follows how many of those addresses share an L2 slice: it maps the
// GPU's address-to-slice hashing (a stride whose addresses pile onto few
// slices is slow). The final content is out[b * stride] = min { v(t, r) :
// 0 <= t < blockDim.x, 0 <= r < reps }, the same for every CTA; the words
// between are not touched.
//
// Parameters:
//   out     (gridDim.x - 1) * stride + 1 uint32 words; the kernel
//           initialises its own word, so the driver need not clear them.
//   stride  words between consecutive CTAs' addresses (>= 1).
//   reps    atomicMin operations per thread.
// Launch: any grid, block <= 1024. Driver checks: every CTA's word.
// Idempotent.
extern "C" __global__ void atomic_spread(uint32_t* out, uint32_t stride, uint32_t reps) {
  uint32_t* slot = out + (uint64_t)blockIdx.x * stride;
  if (threadIdx.x == 0)
    *slot = 0xFFFFFFFFu;
  __syncthreads(); // orders the initialising store before the atomics
  for (uint32_t r = 0; r < reps; ++r)
    atomicMin(slot, contention_value(threadIdx.x, r));
}

// atomic_add_shared: every thread t of a CTA adds 1, reps times, to slot
// t / d of a shared-memory array, as a 32-bit unsigned integer (kind 0) or
// as a float (kind 1); after a barrier the CTA copies its slots to out.
// Integer adds are one native shared atomic on every architecture since
// Maxwell; a float add into shared memory is what edge-centric PageRank's
// shared cache does (kernels/lib/edge.cuh), and the GPU may run it as a
// compare-and-swap loop, whose retries grow with the degree.
//
// Parameters:
//   out     gridDim.x * S words (written), S = ceil(T / d): slot a of CTA b
//           ends as min(d, T - a*d) * reps, as an integer (kind 0) or as
//           the float's bits (kind 1; exact below 2^24).
//   degree  d, threads per address, 1..T (0 is treated as 1).
//   reps    adds per thread.
//   kind    0 (uint32) or 1 (float).
// Launch: any grid of CTAs of T <= 1024 threads, each on its own slots.
// Driver checks: every out word. Idempotent.
extern "C" __global__ void atomic_add_shared(uint32_t* out, uint32_t degree, uint32_t reps, uint32_t kind) {
  __shared__ uint32_t slots[WG_AC_MAX_THREADS];
  uint32_t t = threadIdx.x;
  uint32_t d = degree == 0 ? 1 : degree;
  uint32_t nslots = (blockDim.x + d - 1) / d;
  if (t < nslots)
    slots[t] = 0; // 0.0f has the same bits
  __syncthreads();
  uint32_t* slot = &slots[t / d];
  if (kind == 0)
    for (uint32_t r = 0; r < reps; ++r)
      atomicAdd(slot, 1u);
  else
    for (uint32_t r = 0; r < reps; ++r)
      atomicAdd((float*)slot, 1.0f);
  __syncthreads();
  if (t < nslots)
    out[blockIdx.x * nslots + t] = slots[t];
}
