// scatter.cu — random returning atomics: the relaxation step of an
// asynchronous traversal (Atos's per-edge atomicMin whose old value decides
// whether the neighbour is pushed), at a table size that fits L1, L2 or
// only DRAM.
#include "warpgraph.h"

// scatter_key is the value thread work item i offers: a hash, so that a
// word's minimum depends on which items land on it.
WG_DEV uint32_t scatter_key(uint32_t i) { return (i * 2654435761u) ^ (i >> 7); }

// random_atomic_min offers scatter_key(i) to table[idx[i]] by atomicMin for
// every i < n and sums the old values it gets back per thread: thread t
// (global id) takes i = t, t + stride, t + 2 stride, ... (stride: the
// grid's threads), so the index array streams coalesced while the atomics
// land wherever the indices point. Four atomics are in flight before the
// first old value is used, as four gathers are in random_gather.
//
// Parameters:
//   idx    n word indices into table (read once, in order).
//   table  the words (read and written: each ends as the minimum of its
//          value before and the keys offered to it).
//   sums   one word per thread of the grid: the sum of the old values it
//          got back, mod 2^32 (depends on the order the atomics meet in;
//          not checked: it keeps each atomic a returning one).
//   n      the atomics.
// Launch: any one-dimensional grid; the driver uses the co-resident grid.
// Driver checks: every table word equals the host's minimum.
// Idempotent on table: it may be repeated for timing.
extern "C" __global__ void random_atomic_min(const uint32_t* idx, uint32_t* table, uint32_t* sums, uint32_t n) {
  uint32_t stride = gridDim.x * blockDim.x, i = wg_global_id();
  uint32_t sum = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint32_t a = idx[i], b = idx[i + stride], c = idx[i + 2 * stride], d = idx[i + 3 * stride];
    uint32_t oa = atomicMin(&table[a], scatter_key(i)), ob = atomicMin(&table[b], scatter_key(i + stride)),
             oc = atomicMin(&table[c], scatter_key(i + 2 * stride)), od = atomicMin(&table[d], scatter_key(i + 3 * stride));
    sum += oa + ob + oc + od;
  }
  for (; i < n; i += stride)
    sum += atomicMin(&table[idx[i]], scatter_key(i));
  sums[wg_global_id()] = sum;
}
