// sm80.cu — kernels for PTX the simulator supports beyond what the
// project's sm_70 target emits (sim/coverage_test.go): redux.sync, which
// clang-16 emits only for sm_80 with PTX >= 7.0, match with a predicate
// destination, .f16 conversions and directed rounding on div. Compiled for
// sm_80 (the H100 runs sm_80 PTX too).
//
// Regenerate sm80.ptx from the repository root (coverage_test.go's
// TestSM80TestdataFresh runs the same command when clang++-16 is present):
//
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib
//     --cuda-gpu-arch=sm_80 -Xclang -target-feature -Xclang +ptx70 -O3 -S
//     -gline-directives-only -ffile-prefix-map=$PWD=.
//     sim/testdata/sm80.cu -o sim/testdata/sm80.ptx
#include "../../kernels/warpgraph.h"

// warp_reserve: the lanes of each warp with lane < active reserve
// counts[tid] slots of a queue in one atomic per warp (a warp-aggregated
// reservation: __reduce_add_sync gives the warp's total), and record the
// warp's reductions of counts (add, min, max, and, or, xor) and of
// signed[tid] (min, max): out[warp*8 + k].
extern "C" __global__ void warp_reserve(unsigned* tail, const unsigned* counts, const int* signed_vals,
                                        unsigned* base_out, unsigned* out, int active) {
  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned lane = tid % 32, warp = tid / 32;
  unsigned mask = __ballot_sync(WG_FULL_MASK, lane < (unsigned)active);
  if (lane >= (unsigned)active)
    return;
  unsigned c = counts[tid];
  unsigned total = __nvvm_redux_sync_add(c, mask);
  unsigned base = 0;
  if (lane == 0)
    base = atomicAdd(tail, total);
  base_out[tid] = __shfl_sync(mask, base, 0);
  unsigned* o = out + warp * 8;
  unsigned mn = __nvvm_redux_sync_umin(c, mask), mx = __nvvm_redux_sync_umax(c, mask);
  unsigned a = __nvvm_redux_sync_and(c, mask), r = __nvvm_redux_sync_or(c, mask);
  unsigned x = __nvvm_redux_sync_xor(c, mask);
  int smin = __nvvm_redux_sync_min(signed_vals[tid], mask);
  int smax = __nvvm_redux_sync_max(signed_vals[tid], mask);
  if (lane == 0) {
    o[0] = total, o[1] = mn, o[2] = mx, o[3] = a, o[4] = r, o[5] = x;
    o[6] = (unsigned)smin, o[7] = (unsigned)smax;
  }
}

// match_groups: per thread, the lanes holding the same key (match.any) and
// match.all's mask and predicate over the whole warp.
extern "C" __global__ void match_groups(const unsigned* keys, unsigned* any_out, unsigned* all_out,
                                        int* all_pred) {
  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;
  int pred;
  any_out[tid] = __nvvm_match_any_sync_i32(WG_FULL_MASK, keys[tid]);
  all_out[tid] = __nvvm_match_all_sync_i32p(WG_FULL_MASK, keys[tid], &pred);
  all_pred[tid] = pred;
}

// to_half: f32 and f64 to f16 (round to nearest even) and back.
extern "C" __global__ void to_half(const float* in, const double* din, unsigned short* bits, float* back,
                                   float* dback) {
  unsigned i = threadIdx.x;
  bits[i] = __nvvm_f2h_rn(in[i]);
  __fp16 h = (__fp16)in[i];
  back[i] = (float)h;
  __fp16 dh = (__fp16)din[i];
  dback[i] = (float)dh;
}

// div_directed: a/b with each rounding: out[4i..4i+3] = rn, rz, rm, rp.
extern "C" __global__ void div_directed(const float* a, const float* b, float* out, const double* da,
                                        const double* db, double* dout) {
  unsigned i = threadIdx.x;
  out[4 * i + 0] = __nvvm_div_rn_f(a[i], b[i]);
  out[4 * i + 1] = __nvvm_div_rz_f(a[i], b[i]);
  out[4 * i + 2] = __nvvm_div_rm_f(a[i], b[i]);
  out[4 * i + 3] = __nvvm_div_rp_f(a[i], b[i]);
  dout[4 * i + 0] = __nvvm_div_rn_d(da[i], db[i]);
  dout[4 * i + 1] = __nvvm_div_rz_d(da[i], db[i]);
  dout[4 * i + 2] = __nvvm_div_rm_d(da[i], db[i]);
  dout[4 * i + 3] = __nvvm_div_rp_d(da[i], db[i]);
}
