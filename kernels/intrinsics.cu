// intrinsics.cu — one call of every warpgraph.h primitive, with known
// results: the conformance corpus on which the simulator and the hardware
// must agree (integer results exactly, approximate math within PTX's bounds).
#include "warpgraph.h"

#define WG_INTR_U32 16 // u32 results per thread
#define WG_INTR_F32 8  // f32 results per thread
#define WG_INTR_COUNTERS 26

// intrinsics writes, for thread g (global index) with lane l = g mod 32 and
// input x = in[g], the per-thread results
//
//   u32[16g + k], k =
//     0  wg_lane_id()                           l
//     1  wg_warp_id()                           threadIdx.x / 32
//     2  wg_lanemask_lt()                       (1 << l) - 1
//     3  __ballot_sync(full, l % 3 == 0)        0x49249249
//     4  __any_sync(full, l == 5)               1
//     5  __all_sync(full, l < 31)               0
//     6  __shfl_sync(full, 7g, (l+3) % 32)      7 (g - l + (l+3) % 32)
//     7  __shfl_up_sync(full, g, 1)             l >= 1 ? g-1 : g
//     8  __shfl_down_sync(full, g, 2)           l < 30 ? g+2 : g
//     9  __shfl_xor_sync(full, g, 5)            g ^ 5
//    10  __shfl_sync(full, g, 0, 8)             g - l % 8
//    11  __shfl_down_sync(full, g, 4, 8)        l % 8 < 4 ? g+4 : g
//    12  __popc(g * 0x9E3779B9)                 (32-bit product)
//    13  __clz(g)                               32 for g = 0
//    14  __ffs(g << 4)                          0 for g = 0, else 5 + (trailing zeros of g)
//    15  __popcll(g * 0x9E3779B97F4A7C15)       (64-bit product)
//
//   f32[8g + k], k =
//     0  __shfl_sync(full, x, (l+1) % 32)       in[g - l + (l+1) % 32], exact
//     1  wg_exp2_approx(x)                      2^x    (ex2.approx.f32)
//     2  wg_log2_approx(x)                      log2 x (lg2.approx.f32)
//     3  __frcp_rn(x)                           1/x, correctly rounded
//     4  __fsqrt_rn(x)                          sqrt x, correctly rounded
//     5  __expf(x)                              ex2.approx(x * 1.44269504f)
//     6  __logf(x)                              lg2.approx(x) * 0.693147182f
//     7  x * 3 + 0.25f                          one fma.rn (rounded once)
//
// and, over the whole grid of T threads in C CTAs of B threads, the atomic
// totals in counters (all zero before launch; as uint32 unless noted):
//     0  atomicAdd(+1)                          T
//     1  atomicSub(2)                           -2T mod 2^32
//     2  atomicMax(unsigned g)                  T-1
//     3  atomicMin(int -g)                      -(T-1)  (int32)
//     4  atomicMax(int g - 1000)                max(0, T-1001)  (int32: signed)
//     5  atomicOr(1 << l)                       0xFFFFFFFF (T >= 32)
//     6  atomicAnd(~(1 << l))                   0
//     7  atomicExch(int 7)                      7
//     8  atomicCAS(0 -> 5)                      5
//     9  +1 by each thread whose CAS saw 0      1
//   10-11  atomicAdd(u64 2^32 + 1)              T (2^32 + 1)   (uint64)
//   12-13  atomicMax(u64 g << 33)               (T-1) << 33    (uint64)
//   14-15  atomicMin(s64 -g)                    -(T-1)         (int64)
//   16-17  atomicExch(u64 2^40 + 3)             2^40 + 3       (uint64)
//   18-19  atomicCAS(u64 0 -> 9)                9              (uint64)
//     20  atomicAdd(float 1.0)                  float T (exact below 2^24)
//     21  +1 by each thread whose u64 CAS saw 0  1
//   Shared-memory atomics, one array per CTA, whose four results each CTA's
//   first four threads then add into the counters:
//     22  sum over CTAs of (shared atomicAdd(+1))                     T
//     23  sum over CTAs of (shared atomicMax(unsigned threadIdx.x))   C (B-1)
//     24  sum over CTAs of (shared atomicMin(int -threadIdx.x))       -C (B-1) (int32)
//     25  sum over CTAs of (shared atomicOr(1 << l))                  C * 0xFFFFFFFF mod 2^32
//
// Parameters:
//   in        T floats (read); positive values keep log2 and sqrt finite.
//   u32       16 T words (written).
//   f32       8 T floats (written).
//   counters  26 words, 8-byte aligned (read and written); zero before launch.
// Launch: a one-dimensional grid; block a multiple of 32.
// Driver checks: every u32 result and counter against the formulas; the
// rounded f32 results (0, 3, 4, 7) exactly; the approximate ones within
// the PTX ISA's error bounds, and the simulator against the hardware.
// Not idempotent (counters accumulate): zero counters before each launch.
extern "C" __global__ void intrinsics(const float* in, uint32_t* u32, float* f32, uint32_t* counters) {
  __shared__ uint32_t shared_u[4];
  uint32_t g = wg_global_id();
  uint32_t l = wg_lane_id();
  uint32_t t = threadIdx.x;
  if (t < 4)
    shared_u[t] = t == 2 ? 0x7FFFFFFFu : 0;
  __syncthreads();

  uint32_t* u = u32 + WG_INTR_U32 * g;
  u[0] = l;
  u[1] = wg_warp_id();
  u[2] = wg_lanemask_lt();
  u[3] = __ballot_sync(WG_FULL_MASK, l % 3 == 0);
  u[4] = __any_sync(WG_FULL_MASK, l == 5);
  u[5] = __all_sync(WG_FULL_MASK, l < 31);
  u[6] = __shfl_sync(WG_FULL_MASK, 7 * g, (int)((l + 3) % 32));
  u[7] = __shfl_up_sync(WG_FULL_MASK, g, 1u);
  u[8] = __shfl_down_sync(WG_FULL_MASK, g, 2u);
  u[9] = __shfl_xor_sync(WG_FULL_MASK, g, 5);
  u[10] = __shfl_sync(WG_FULL_MASK, g, 0, 8);
  u[11] = __shfl_down_sync(WG_FULL_MASK, g, 4u, 8);
  u[12] = __popc(g * 0x9E3779B9u);
  u[13] = __clz(g);
  u[14] = __ffs(g << 4);
  u[15] = __popcll((uint64_t)g * 0x9E3779B97F4A7C15ull);

  float x = in[g];
  float* f = f32 + WG_INTR_F32 * g;
  f[0] = __shfl_sync(WG_FULL_MASK, x, (int)((l + 1) % 32));
  f[1] = wg_exp2_approx(x);
  f[2] = wg_log2_approx(x);
  f[3] = __frcp_rn(x);
  f[4] = __fsqrt_rn(x);
  f[5] = __expf(x);
  f[6] = __logf(x);
  f[7] = x * 3.0f + 0.25f;

  atomicAdd(&counters[0], 1u);
  atomicSub(&counters[1], 2u);
  atomicMax(&counters[2], g);
  atomicMin((int*)&counters[3], -(int)g);
  atomicMax((int*)&counters[4], (int)g - 1000);
  atomicOr(&counters[5], 1u << l);
  atomicAnd(&counters[6], ~(1u << l));
  atomicExch((int*)&counters[7], 7);
  if (atomicCAS(&counters[8], 0u, 5u) == 0)
    atomicAdd(&counters[9], 1u);
  unsigned long long* c64 = (unsigned long long*)counters;
  atomicAdd(&c64[5], (1ull << 32) + 1);
  atomicMax(&c64[6], (unsigned long long)g << 33);
  atomicMin((long long*)&c64[7], -(long long)g);
  atomicExch(&c64[8], (1ull << 40) + 3);
  if (atomicCAS(&c64[9], 0ull, 9ull) == 0)
    atomicAdd(&counters[21], 1u);
  atomicAdd((float*)&counters[20], 1.0f);

  atomicAdd(&shared_u[0], 1u);
  atomicMax(&shared_u[1], t);
  atomicMin((int*)&shared_u[2], -(int)t);
  atomicOr(&shared_u[3], 1u << l);
  __threadfence_block();
  __syncthreads();
  if (t < 4)
    atomicAdd(&counters[22 + t], shared_u[t]);
}
