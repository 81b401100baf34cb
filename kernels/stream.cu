// stream.cu — the simulator speed benchmark: 2 loads + 1 store per thread.
#include "warpgraph.h"

// stream computes c[i] = a[i] + b[i] for every i < n, one element per
// thread (no grid-stride loop), so the launch has exactly as many work-items
// as the MGPUSim speed anchor (results/sim-speed).
//
// Parameters:
//   a, b  n floats each (read).
//   c     n floats (written); may not alias a or b.
//   n     element count.
// Launch: a one-dimensional grid of at least n threads, e.g.
// grid = ceil(n / block); threads with index >= n do nothing.
// Driver checks: c[i] == a[i] + b[i] exactly (one IEEE add, round to
// nearest) for every i < n, and nothing past c[n-1] was written.
// Idempotent: it may be repeated for timing.
extern "C" __global__ void stream(const float* a, const float* b, float* c, uint32_t n) {
  uint32_t i = wg_global_id();
  if (i < n)
    c[i] = a[i] + b[i];
}
