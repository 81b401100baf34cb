#include "wg_test.h"

// Divergence, nested divergence and a loop with an early exit.
extern "C" __global__ void divergence(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = i;
  if (i & 1) {
    v = v * 3;
    if (i & 2) v += 7;
    else v -= 5;
  } else {
    v = v / 3;
  }
  out[i] = v;
}

extern "C" __global__ void loop_early_exit(const int *in, int *out, int n, int key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int found = -1;
  for (int j = i; j < n; j += 7) {
    if (in[j] == key) { found = j; break; }
  }
  out[i] = found;
}

__device__ __noinline__ int helper(int a, int b) {
  int s = 0;
  for (int k = 0; k < b; k++) s += a ^ k;
  return s;
}

extern "C" __global__ void calls(int *out) {
  int i = threadIdx.x;
  out[i] = helper(i, i & 15) + helper(i + 1, 3);
}
