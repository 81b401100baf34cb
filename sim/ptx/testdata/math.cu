#include "wg_test.h"

extern "C" __global__ void int_math(long long *out, const long long *in, unsigned n, int d) {
  int i = threadIdx.x;
  long long a = in[i];
  unsigned long long u = (unsigned long long)a;
  long long r = a / d + a % 7 + (long long)(u >> 3) + (a << 5);
  r += (long long)((unsigned)i * n) * 3 + __builtin_clz(n) + (i > 3 ? 11 : 22);
  unsigned q = n / (unsigned)(i + 1) + n % 13u;
  r ^= (long long)q | ((long long)i << 40);
  out[i] = r + __nvvm_mulhi_ui(n, (unsigned)i) + __nvvm_mulhi_i(d, i);
}

extern "C" __global__ void float_math(float *out, const float *in, double *dout, int n) {
  int i = threadIdx.x;
  float x = in[i];
  float y = __builtin_fmaf(x, 2.5f, 1.0f);
  y = y / (x + 1.0f);
  y += __nvvm_ex2_approx_f(x) + __nvvm_lg2_approx_f(x + 2.0f) + __nvvm_sqrt_rn_f(x * x);
  y = y < 0.0f ? -y : y;
  y = __builtin_fmaxf(y, 0.5f);
  int k = (int)y;
  unsigned uk = __nvvm_f2ui_rn(y);
  double dx = (double)x * 3.0 + (double)n;
  dout[i] = __builtin_fma(dx, dx, 1.0) + (double)k + uk;
  out[i] = y + (float)i + __nvvm_rcp_approx_ftz_d(dx);
}

__device__ int pred_data[4];

extern "C" __global__ void predicated(int *out, int a, int b) {
  int i = threadIdx.x;
  int x = i < a ? i : b;
  if (i == b) pred_data[0] = x;
  out[i] = x;
}
