#include "wg_test.h"

__shared__ int tile[256];
__device__ int counter;

// Shared memory through generic pointers, atomics on global and shared,
// barriers, ballot and shuffles.
extern "C" __global__ void shared_atomics(int *out, int *hist) {
  int t = threadIdx.x;
  int *p = &tile[t];
  *p = 0;
  __syncthreads();
  atomic_add(&tile[t & 15], 1);
  __syncthreads();
  int v = tile[t];
  unsigned b = ballot(v > 0);
  int s = v;
  for (int d = 16; d > 0; d >>= 1) s += shfl_down(s, d);
  s = shfl_idx(s, 0) + shfl_xor(s, 1);
  if ((t & 31) == 0) atomic_add(&counter, s);
  atomic_min(&hist[t & 7], v);
  atomic_cas(&hist[8], 0, t);
  out[t] = s + __builtin_popcount(b);
}

struct __attribute__((aligned(16))) int4_ { int x, y, z, w; };
struct __attribute__((aligned(8))) float2_ { float x, y; };

extern "C" __global__ void vectors(const int4_ *in, int4_ *out, const float2_ *fin, float2_ *fout) {
  int i = threadIdx.x;
  int4_ a = in[i];
  int4_ r = {a.w, a.z + 1, a.y, a.x};
  out[i] = r;
  float2_ f = fin[i];
  fout[i] = float2_{f.y, f.x * 2.0f};
}
