// gather.cu — random gathers: the inner loop of a pull (PageRank, SpMV),
// table[idx[i]] summed over a streamed index array, at a table size that
// fits L1, L2 or only DRAM.
#include "warpgraph.h"

// random_gather adds table[idx[i]] for every i < n into per-thread sums:
// thread t (global id) takes i = t, t + stride, t + 2 stride, ... (stride:
// the grid's threads), so the index array streams coalesced while the table
// reads land wherever the indices point. Four gathers are in flight before
// the first is added, as in the framework's pulls (wg_gather_sum).
//
// Parameters:
//   idx    n word indices into table (read once, in order).
//   table  the gathered words (read).
//   sums   one word per thread of the grid: the sum of its gathers, mod 2^32.
//   n      the gathers.
// Launch: any one-dimensional grid; the driver uses the co-resident grid.
// Driver checks: every thread's sum equals the host's, mod 2^32.
// Idempotent: it may be repeated for timing.
extern "C" __global__ void random_gather(const uint32_t* idx, const uint32_t* table, uint32_t* sums, uint32_t n) {
  uint32_t stride = gridDim.x * blockDim.x, i = wg_global_id();
  uint32_t sum = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint32_t a = idx[i], b = idx[i + stride], c = idx[i + 2 * stride], d = idx[i + 3 * stride];
    uint32_t ta = table[a], tb = table[b], tc = table[c], td = table[d];
    sum += ta + tb + tc + td;
  }
  for (; i < n; i += stride)
    sum += table[idx[i]];
  sums[wg_global_id()] = sum;
}
