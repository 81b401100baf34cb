// load_latency.cu — the round trip of one dependent global load, weak or
// strong: a single thread chases a pointer chain and reads %clock64.
#include "warpgraph.h"

// chain holds a cyclic permutation of word indices: chain[i] is the index
// of the next word to read. The driver places one word per 128-byte line,
// in a random order, so every step touches a new line and no access
// pattern can be predicted. Thread 0 of CTA 0 first walks the chain once
// untimed (the lines reach L2, and L1 if they fit and the loads are weak),
// then walks it `steps` more times with the chosen load and records the
// cycles that walk took.
//
// Parameters:
//   chain   the chain (read), one word per line used; its length is the
//           driver's, the kernel follows it for `steps` loads.
//   steps   dependent loads timed (and as many untimed before).
//   strong  0: weak loads (ld.global, may hit in L1); 1: volatile loads
//           (ld.volatile.global: the strong load spin loops use, which
//           bypasses L1).
//   out     out[0] = the timed walk's cycles (%clock64 difference),
//           out[1] = the index reached (so the loads cannot be dropped).
// Launch: one CTA of 32 threads (only thread 0 works).
// Driver checks: out[1] is where `2 * steps` hops from index 0 end.
// Idempotent.
extern "C" __global__ void load_latency(const uint32_t* chain, uint32_t steps, uint32_t strong, unsigned long long* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  uint32_t i = 0;
  for (uint32_t s = 0; s < steps; ++s)
    i = chain[i];
  unsigned long long start = wg_clock64();
  if (strong != 0) {
    for (uint32_t s = 0; s < steps; ++s)
      i = wg_load_volatile(&chain[i]);
  } else {
    for (uint32_t s = 0; s < steps; ++s)
      i = chain[i];
  }
  unsigned long long stop = wg_clock64();
  out[0] = stop - start;
  out[1] = i;
}
