// bank_stride.cu — shared-memory bank conflicts as a function of the stride.
#include "warpgraph.h"

// Lane l of every warp reads, in repetition r, the logical word
//
//   i(l, r) = (l * stride + 32 * r) mod 1024
//
// of a 1024-word shared array. Word w lives in bank w mod 32, so in the plain
// layout a warp's read has conflict degree gcd(stride, 32) (1, 2, 4, ..., 32
// for stride = 1, 2, 4, ..., 32); the 32*r shift changes the words but not
// the banks, so every repetition has the same degree. In the padded layout
// logical word i is stored at physical word i + i/32 (one pad word per 32),
// which makes every power-of-two stride conflict-free (degree 1).
//
// The CTA first fills the array so that logical word i holds the value i,
// then each thread sums what it read:
//
//   out[g] = sum over r < reps of ((l * stride + 32 * r) mod 1024)   (mod 2^32)
//
// where g is the thread's global index and l = g mod 32. Both variants store
// the same sums, and the sum keeps the compiler from dropping the loads.
//
// Parameters:
//   out     one uint32 per thread of the grid (written).
//   stride  words between consecutive lanes (any value; 0 is a broadcast).
//   reps    reads per thread.
// Launch: any one-dimensional grid; block a multiple of 32 (at most 1024).
// Driver checks: every out word against the formula above.
// Idempotent: it may be repeated for timing.

#define WG_BANK_WORDS 1024
#define WG_BANK_PADDED_WORDS (WG_BANK_WORDS + WG_BANK_WORDS / 32)

template <bool Padded> WG_DEV uint32_t bank_physical(uint32_t i) {
  return Padded ? i + i / 32 : i;
}

template <bool Padded> WG_DEV void bank_stride_body(uint32_t* out, uint32_t stride, uint32_t reps) {
  __shared__ uint32_t words[Padded ? WG_BANK_PADDED_WORDS : WG_BANK_WORDS];
  for (uint32_t i = threadIdx.x; i < WG_BANK_WORDS; i += blockDim.x)
    words[bank_physical<Padded>(i)] = i;
  __syncthreads();
  uint32_t first = wg_lane_id() * stride;
  uint32_t sum = 0;
  for (uint32_t r = 0; r < reps; ++r) {
    uint32_t i = (first + 32 * r) % WG_BANK_WORDS;
    sum += words[bank_physical<Padded>(i)];
  }
  out[wg_global_id()] = sum;
}

// bank_stride reads the plain layout: conflict degree gcd(stride, 32).
extern "C" __global__ void bank_stride(uint32_t* out, uint32_t stride, uint32_t reps) {
  bank_stride_body<false>(out, stride, reps);
}

// bank_stride_padded reads the padded layout: conflict degree 1 for every
// power-of-two stride.
extern "C" __global__ void bank_stride_padded(uint32_t* out, uint32_t stride, uint32_t reps) {
  bank_stride_body<true>(out, stride, reps);
}
