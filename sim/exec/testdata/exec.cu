// exec.cu — kernels that exercise the executor: divergence, calls, local
// and dynamic shared memory, generic pointers, collectives, contended
// atomics, barriers, faults and hangs. sim/exec's tests check each result.
//
// Regenerate exec.ptx from the repository root (exec_test.go's
// TestTestdataFresh runs the same command when clang++-16 is present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_70 -Xclang -target-feature -Xclang +ptx64 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/exec/testdata/exec.cu -o sim/exec/testdata/exec.ptx
#include "../../../kernels/warpgraph.h"

// divergence: nested if/else on thread bits, a loop with continue and an
// early break, and an early return of some lanes (out stays as it was).
extern "C" __global__ void divergence(int* out, const int* in, int n) {
  int t = wg_global_id();
  int v = in[t];
  int acc;
  if (t & 1) {
    if (t & 2)
      acc = v * 3;
    else
      acc = v - 5;
    if (t & 4)
      for (int i = 0; i < (t & 7); ++i)
        acc += i;
  } else {
    acc = v / 3;
  }
  for (int j = 0; j < n; ++j) {
    if (in[j] == t) {
      acc += 1000;
      break;
    }
    if ((j + t) % 5 == 0)
      continue;
    acc ^= j;
  }
  if (t % 7 == 3)
    return;
  out[t] = acc;
}

__device__ __noinline__ int helper(int a, int b) {
  int s = 0;
  for (int k = 0; k < b; k++) {
    if (k & 1)
      s += a ^ k;
    else
      s -= k;
  }
  return s;
}

__device__ __noinline__ int bump(int* p, int v) { return atomicAdd(p, v); }

__device__ __noinline__ void early(int* out, int t) {
  if (t & 1)
    return;
  out[t] += 1;
}

// calls: device functions with a loop, called in converged and divergent
// code, one taking a generic pointer to shared memory, one returning early
// for some lanes.
extern "C" __global__ void calls(int* out) {
  __shared__ int sh[64];
  int t = threadIdx.x;
  sh[t] = t;
  __syncthreads();
  int r = helper(t, t & 15);
  if (t & 2)
    r += helper(t + 1, 3);
  int old = bump(&sh[t ^ 1], 100);
  __syncthreads();
  out[t] = r + old * 7 + sh[t];
  early(out, t);
}

__device__ __noinline__ int weighted_sum(const int* a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * (i + 1);
  return s;
}

// local_generic: a local array indexed dynamically and passed as a generic
// pointer to a device function.
extern "C" __global__ void local_generic(int* out, int k) {
  int a[8];
  for (int i = 0; i < 8; i++)
    a[i] = k * i + (int)threadIdx.x;
  a[threadIdx.x & 7] += 5;
  out[threadIdx.x] = weighted_sum(a, 8) + a[(threadIdx.x + k) & 7];
}

extern __shared__ int dyn[];

// dyn_shared: dynamic shared memory reversed across the CTA.
extern "C" __global__ void dyn_shared(int* out) {
  int t = threadIdx.x;
  int n = blockDim.x;
  dyn[t] = t * t + blockIdx.x;
  __syncthreads();
  out[blockIdx.x * n + t] = dyn[n - 1 - t];
}

// collectives: u[32 t + k] for thread t (lane l, warp w):
//   0 ballot(l is odd)           1 any(l == 7)       2 all(l < 40)
//   3 uni(w == 0 or l < 16)      4 shfl idx(t, 31-l) 5 shfl up(t, 3, width 16)
//   6 shfl down(t, 5, width 8)   7 shfl xor(t, 12)   8 match.any(l / 4)
//   9 activemask in a divergent branch (lanes with l < 10)
//   10 __syncthreads_count(l & 1)  11 __syncthreads_and(t < 1000)
//   12 __syncthreads_or(t == 17)   13 ballot inside divergent code (l >= 20)
extern "C" __global__ void collectives(unsigned* u) {
  unsigned t = threadIdx.x, l = wg_lane_id(), w = t / 32;
  unsigned* o = u + 32 * t;
  o[0] = __ballot_sync(WG_FULL_MASK, l & 1);
  o[1] = __any_sync(WG_FULL_MASK, l == 7);
  o[2] = __all_sync(WG_FULL_MASK, l < 40);
  o[3] = __nvvm_vote_uni_sync(WG_FULL_MASK, w == 0 || l < 16);
  o[4] = __shfl_sync(WG_FULL_MASK, t, 31 - l);
  o[5] = __shfl_up_sync(WG_FULL_MASK, t, 3u, 16);
  o[6] = __shfl_down_sync(WG_FULL_MASK, t, 5u, 8);
  o[7] = __shfl_xor_sync(WG_FULL_MASK, t, 12);
  o[8] = __nvvm_match_any_sync_i32(WG_FULL_MASK, l / 4);
  if (l < 10) {
    unsigned am;
    asm volatile("activemask.b32 %0;" : "=r"(am));
    o[9] = am;
  } else {
    o[9] = 0;
  }
  o[10] = __nvvm_bar0_popc(l & 1);
  o[11] = __nvvm_bar0_and(t < 1000);
  o[12] = __nvvm_bar0_or(t == 17);
  if (l >= 20)
    o[13] = __ballot_sync(0xFFF00000u, l & 2);
  else
    o[13] = 0;
}

// atomics: contended atomics on global and shared memory.
//   g[0] += 1                    g[1] inc wrapping at 100   g[2] dec from 0 wrapping at 50
//   g[3] ^= t                    g[4] += t by a CAS loop     g[5] exch chain: old[t]
//   g[6] max(t * 7 % 1000)       g[7] min over (1000 - t)    g[8] |= 1 << (t % 32)
//   g[9] &= ~(1 << (t % 31))
//   g64[0] += t by a 64-bit CAS loop; g64[1] max (t << 40)
//   gf[0] += 0.5f
//   s[0..3] shared versions of g[0], g[1], g[4], g[5]; CTA totals added to
//   g[10..12]; old values of the shared exch chain in sx[t].
extern "C" __global__ void atomics(unsigned* g, unsigned long long* g64, float* gf, unsigned* old, unsigned* sx) {
  __shared__ unsigned s[4];
  unsigned t = wg_global_id();
  unsigned tt = threadIdx.x;
  if (tt < 4)
    s[tt] = 0;
  __syncthreads();
  atomicAdd(&g[0], 1u);
  __nvvm_atom_inc_gen_ui(&g[1], 99u);
  __nvvm_atom_dec_gen_ui(&g[2], 49u);
  __nvvm_atom_xor_gen_i((int*)&g[3], (int)t);
  unsigned cur = g[4], seen;
  do {
    seen = cur;
    cur = atomicCAS(&g[4], seen, seen + t);
  } while (cur != seen);
  old[t] = atomicExch(&g[5], t);
  atomicMax(&g[6], t * 7 % 1000);
  atomicMin(&g[7], 1000 - t);
  atomicOr(&g[8], 1u << (t % 32));
  atomicAnd(&g[9], ~(1u << (t % 31)));
  unsigned long long c = g64[0], prev;
  do {
    prev = c;
    c = atomicCAS(&g64[0], prev, prev + t);
  } while (c != prev);
  atomicMax(&g64[1], (unsigned long long)t << 40);
  atomicAdd(&gf[0], 0.5f);
  atomicAdd(&s[0], 1u);
  __nvvm_atom_inc_gen_ui(&s[1], 9u);
  unsigned sc = s[2], ss;
  do {
    ss = sc;
    sc = atomicCAS(&s[2], ss, ss + tt);
  } while (sc != ss);
  sx[t] = atomicExch(&s[3], tt + 1);
  __syncthreads();
  if (tt < 3)
    atomicAdd(&g[10 + tt], s[tt]);
}

// barrier_exit: warps beyond the second leave before the barrier; the
// barrier still completes (exited warps count as arrived).
extern "C" __global__ void barrier_exit(int* out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  if (t >= 64)
    return;
  s[t] = t * 2;
  __syncthreads();
  out[t] = s[63 - t];
}

// barrier_loop: a barrier inside a loop, exchanging values between warps
// each round.
extern "C" __global__ void barrier_loop(int* out, int rounds) {
  __shared__ int s[128];
  int t = threadIdx.x, n = blockDim.x;
  int v = t;
  for (int r = 0; r < rounds; r++) {
    s[t] = v;
    __syncthreads();
    v = s[(t + 32) % n] + r;
    __syncthreads();
  }
  out[blockIdx.x * n + t] = v;
}

// named_barriers: warps 0-1 synchronise on barrier 1 with a count of 64
// threads while warps 2-3 use barrier 2 with 64.
extern "C" __global__ void named_barriers(int* out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = t + 1;
  if (t < 64) {
    __nvvm_barrier_sync_cnt(1, 64);
    out[t] = s[63 - t];
  } else {
    __nvvm_barrier_sync_cnt(2, 64);
    out[t] = s[191 - t];
  }
}

// barrier_deadlock: warp 0 waits at barrier 1, the others at barrier 0.
extern "C" __global__ void barrier_deadlock(int* out) {
  if (threadIdx.x < 32)
    __nvvm_barrier_sync(1);
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}

// spin_wait: CTA 1 waits for CTA 0's flag (set after some work); with
// never != 0 nobody sets it and the launch livelocks.
extern "C" __global__ void spin_wait(unsigned* flag, unsigned* out, int never) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == 0) {
    unsigned x = 1;
    for (int i = 0; i < 2000; i++)
      x = x * 3 + i;
    out[0] = x;
    if (!never) {
      __threadfence();
      wg_store_volatile(flag, 1u);
    }
  } else {
    while (wg_load_volatile(flag) == 0) {
    }
    out[1] = 7;
  }
}

// fault: stores one word at p + off (in words), or into shared memory at
// off when shared != 0, or misaligned by two bytes when misaligned != 0.
extern "C" __global__ void fault(int* p, int off, int shared, int misaligned) {
  __shared__ int s[16];
  if (threadIdx.x != 5 || blockIdx.x != 1)
    return;
  if (shared) {
    s[off] = 1;
    p[0] = s[off ^ 1];
  } else if (misaligned) {
    *(int*)((char*)p + 2) = 1;
  } else {
    p[off] = 1;
  }
}

// trap_kernel executes trap in thread 3.
extern "C" __global__ void trap_kernel(int* p) {
  if (threadIdx.x == 3)
    __builtin_trap();
  p[threadIdx.x] = 1;
}

