#include "wg_test.h"

extern __shared__ int dyn_smem[];

// A device function taking a generic pointer: the caller passes shared
// memory, so clang must emit cvta.shared and generic ld/st/atom.
__device__ __noinline__ int bump(int *p, int v) {
  int old = __nvvm_atom_add_gen_i(p, v);
  *p += 1;
  return old + *p;
}

// 64-bit shuffles (split into two 32-bit shuffles with mov.b64 pack and
// unpack), vote all/any, activemask, __syncwarp, __syncthreads_count,
// dynamic shared memory, fences and volatile accesses.
extern "C" __global__ void collectives(long long *out, volatile int *flag, unsigned *masks) {
  int t = threadIdx.x;
  dyn_smem[t] = t;
  __syncthreads();
  int r = bump(&dyn_smem[t ^ 1], 2);
  long long v = ((long long)t << 33) | (unsigned)r;
  int lo = (int)v, hi = (int)(v >> 32);
  lo = __nvvm_shfl_sync_up_i32(0xffffffffu, lo, 1, 0);
  hi = __nvvm_shfl_sync_up_i32(0xffffffffu, hi, 1, 0);
  v = ((long long)hi << 32) | (unsigned)lo;
  bool all = __nvvm_vote_all_sync(0xffffffffu, t < 100);
  bool any = __nvvm_vote_any_sync(0xffffffffu, t == 3);
  unsigned am;
  asm volatile("activemask.b32 %0;" : "=r"(am));
  __nvvm_bar_warp_sync(0xffffffffu);
  int cnt = __nvvm_bar0_popc(r > 4);
  if (t == 0) {
    __nvvm_membar_gl();
    *flag = 1;
    asm volatile("fence.sc.cta;" ::: "memory");
  }
  while (t == 1 && *flag == 0) {
  }
  masks[t] = am + (all ? 1 : 0) + (any ? 2 : 0);
  out[t] = v + cnt;
}

// Local memory: an array indexed dynamically stays in .local.
extern "C" __global__ void local_array(int *out, int k) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i * k + threadIdx.x;
  out[threadIdx.x] = a[(threadIdx.x + k) & 15];
}

// Bit manipulation and conversions.
extern "C" __global__ void bits_and_cvt(unsigned *out, const double *in, unsigned long long *wide) {
  unsigned t = threadIdx.x;
  unsigned x = out[t];
  unsigned rot = (x << 7) | (x >> 25);
  unsigned rev = __builtin_bitreverse32(x);
  unsigned field = (x >> 5) & 0x3f;
  unsigned long long w = wide[t];
  unsigned long long m = w < 12345678901ull ? w : 12345678901ull;
  unsigned long long q = w / (t + 3ull) + w % 10ull;
  float f = (float)in[t];
  int s = __nvvm_f2i_rz(f);
  double d = in[t] / (double)(t + 1);
  out[t] = rot + rev + field + __builtin_popcountll(w) + (unsigned)s + (unsigned)__nvvm_d2i_rn(d);
  wide[t] = m + q + __nvvm_atom_inc_gen_ui(&out[0], 100u) + __nvvm_atom_xchg_gen_i((int *)&out[1], 5);
}

// A double shuffled as two 32-bit halves: clang splits and rejoins it with
// mov.b64 {lo, hi} (unpack and pack).
extern "C" __global__ void shuffle_double(double *data) {
  double d = data[threadIdx.x];
  long long bits = __builtin_bit_cast(long long, d);
  int lo = __nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)bits, 1, 0x1f);
  int hi = __nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)(bits >> 32), 1, 0x1f);
  long long back = ((long long)hi << 32) | (unsigned)lo;
  data[threadIdx.x] = d + __builtin_bit_cast(double, back);
}
