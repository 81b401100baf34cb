// warpgraph.h — the portability header every kernel includes.
//
// Kernels are compiled by clang++-16 with -nocudainc -nocudalib: there is no
// CUDA SDK, no CUDA runtime header and no libdevice. This header supplies the
// small part of CUDA that warpgraph kernels use, each piece over a clang
// builtin, so that kernels read like ordinary CUDA and the PTX holds only
// what clang emits from plain code (inline asm only in wg_backoff). The simulator
// executes exactly that, and everything it runs comes from this file or C++.
//
// It also defines threadIdx, blockIdx, blockDim and gridDim itself (the same
// way clang's <__clang_cuda_builtin_vars.h> does) so that the PTX's .file
// table names only files of this repository, never clang's install path.
//
// Conventions (see kernels/README.md): every entry is extern "C"; templated
// kernels get named extern "C" wrappers; every spin loop takes a spin budget
// and an abort flag (wg_spin_give_up below).
#ifndef WARPGRAPH_H
#define WARPGRAPH_H

#if !defined(__CUDA__) || !defined(__CUDA_ARCH__)
#error "warpgraph.h is for device compilation only (clang -x cuda --cuda-device-only)"
#endif

// ---- attributes ---------------------------------------------------------

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

// WG_DEV marks the header's helpers: device-only, always inlined.
#define WG_DEV static __device__ __forceinline__

// ---- sized integers (the same types <stdint.h> would give) --------------

typedef __INT32_TYPE__ int32_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;

// ---- thread, block and grid indices -------------------------------------

#define WG_SREG(FIELD, BUILTIN)                                               \
  __declspec(property(get = wg_get_##FIELD)) unsigned int FIELD;             \
  static __device__ __forceinline__ unsigned int wg_get_##FIELD(void) {      \
    return BUILTIN;                                                           \
  }

struct wg_threadIdx_t {
  WG_SREG(x, __nvvm_read_ptx_sreg_tid_x())
  WG_SREG(y, __nvvm_read_ptx_sreg_tid_y())
  WG_SREG(z, __nvvm_read_ptx_sreg_tid_z())
};
struct wg_blockIdx_t {
  WG_SREG(x, __nvvm_read_ptx_sreg_ctaid_x())
  WG_SREG(y, __nvvm_read_ptx_sreg_ctaid_y())
  WG_SREG(z, __nvvm_read_ptx_sreg_ctaid_z())
};
struct wg_blockDim_t {
  WG_SREG(x, __nvvm_read_ptx_sreg_ntid_x())
  WG_SREG(y, __nvvm_read_ptx_sreg_ntid_y())
  WG_SREG(z, __nvvm_read_ptx_sreg_ntid_z())
};
struct wg_gridDim_t {
  WG_SREG(x, __nvvm_read_ptx_sreg_nctaid_x())
  WG_SREG(y, __nvvm_read_ptx_sreg_nctaid_y())
  WG_SREG(z, __nvvm_read_ptx_sreg_nctaid_z())
};
#undef WG_SREG

extern const __device__ __attribute__((weak)) wg_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) wg_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) wg_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) wg_gridDim_t gridDim;

// All NVIDIA targets to date have 32 lanes per warp.
#define warpSize 32
#define WG_FULL_MASK 0xffffffffu

// wg_lane_id is the thread's lane in its warp (%laneid).
WG_DEV uint32_t wg_lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
// wg_warp_id is the warp's index in a one-dimensional CTA.
WG_DEV uint32_t wg_warp_id() { return threadIdx.x / warpSize; }
// wg_lanemask_lt has a bit set for every lane below the caller's.
WG_DEV uint32_t wg_lanemask_lt() { return (1u << wg_lane_id()) - 1u; }
// wg_global_id is the thread's index in a one-dimensional grid.
WG_DEV uint32_t wg_global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

// ---- barriers and fences ------------------------------------------------
//
// __syncthreads() is a clang builtin (bar.sync 0).

WG_DEV void __threadfence_block() { __nvvm_membar_cta(); } // membar.cta
WG_DEV void __threadfence() { __nvvm_membar_gl(); }        // membar.gl

// ---- atomics ------------------------------------------------------------
//
// Generic-pointer builtins: clang emits atom.global.* or atom.shared.* when
// it can prove the state space, generic atom.* otherwise. All return the old
// value.

WG_DEV int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
WG_DEV unsigned atomicAdd(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v);
}
WG_DEV unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long*)p, (long long)v);
}
WG_DEV float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }

WG_DEV int atomicSub(int* p, int v) { return atomicAdd(p, -v); }
WG_DEV unsigned atomicSub(unsigned* p, unsigned v) { return atomicAdd(p, 0u - v); }

WG_DEV int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
WG_DEV unsigned atomicMin(unsigned* p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
WG_DEV long long atomicMin(long long* p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
WG_DEV unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_min_gen_ull(p, v);
}

WG_DEV int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
WG_DEV unsigned atomicMax(unsigned* p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
WG_DEV long long atomicMax(long long* p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
WG_DEV unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  return __nvvm_atom_max_gen_ull(p, v);
}

WG_DEV int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
WG_DEV unsigned atomicExch(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_xchg_gen_i((int*)p, (int)v);
}
WG_DEV unsigned long long atomicExch(unsigned long long* p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_xchg_gen_ll((long long*)p, (long long)v);
}

WG_DEV int atomicCAS(int* p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
WG_DEV unsigned atomicCAS(unsigned* p, unsigned cmp, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int*)p, (int)cmp, (int)v);
}
WG_DEV unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp,
                                    unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long*)p, (long long)cmp,
                                                    (long long)v);
}

WG_DEV int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
WG_DEV unsigned atomicAnd(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_and_gen_i((int*)p, (int)v);
}
WG_DEV int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }
WG_DEV unsigned atomicOr(unsigned* p, unsigned v) {
  return (unsigned)__nvvm_atom_or_gen_i((int*)p, (int)v);
}

// ---- volatile access, for polling flags written by other CTAs -----------
//
// A volatile access compiles to ld.volatile / st.volatile, which bypasses
// the non-coherent L1 on hardware.

template <typename T> WG_DEV T wg_load_volatile(const T* p) {
  return *(const volatile T*)p;
}
template <typename T> WG_DEV void wg_store_volatile(T* p, T v) { *(volatile T*)p = v; }

// ---- warp vote and shuffle ----------------------------------------------
//
// Every lane named in mask must execute the call together (kernels keep
// warps converged around them).

WG_DEV unsigned __ballot_sync(unsigned mask, int pred) {
  return __nvvm_vote_ballot_sync(mask, pred != 0);
}
WG_DEV int __any_sync(unsigned mask, int pred) { return __nvvm_vote_any_sync(mask, pred != 0); }
WG_DEV int __all_sync(unsigned mask, int pred) { return __nvvm_vote_all_sync(mask, pred != 0); }

// The shuffle's c operand packs the segment mask ((32-width)<<8) with the
// clamp value: 31 for idx/down/xor, 0 for up (as CUDA's headers do).
#define WG_SHFL(NAME, I32, F32, CLAMP, OFFSET_T)                               \
  WG_DEV int NAME(unsigned mask, int v, OFFSET_T o, int width = warpSize) {    \
    return I32(mask, v, o, ((warpSize - width) << 8) | (CLAMP));               \
  }                                                                            \
  WG_DEV unsigned NAME(unsigned mask, unsigned v, OFFSET_T o,                  \
                       int width = warpSize) {                                 \
    return (unsigned)I32(mask, (int)v, o, ((warpSize - width) << 8) | (CLAMP)); \
  }                                                                            \
  WG_DEV float NAME(unsigned mask, float v, OFFSET_T o, int width = warpSize) { \
    return F32(mask, v, o, ((warpSize - width) << 8) | (CLAMP));               \
  }
WG_SHFL(__shfl_sync, __nvvm_shfl_sync_idx_i32, __nvvm_shfl_sync_idx_f32, 0x1f, int)
WG_SHFL(__shfl_up_sync, __nvvm_shfl_sync_up_i32, __nvvm_shfl_sync_up_f32, 0, unsigned)
WG_SHFL(__shfl_down_sync, __nvvm_shfl_sync_down_i32, __nvvm_shfl_sync_down_f32, 0x1f, unsigned)
WG_SHFL(__shfl_xor_sync, __nvvm_shfl_sync_bfly_i32, __nvvm_shfl_sync_bfly_f32, 0x1f, int)
#undef WG_SHFL

// ---- bit operations -----------------------------------------------------

WG_DEV int __popc(unsigned x) { return __builtin_popcount(x); }            // popc.b32
WG_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); } // popc.b64
WG_DEV int __clz(unsigned x) { return x == 0 ? 32 : __builtin_clz(x); }     // clz.b32
// __ffs is the 1-based position of the lowest set bit, 0 when x is 0.
WG_DEV int __ffs(unsigned x) { return __builtin_ffs((int)x); }

// ---- approximate math (no libdevice: these are the whole float library) --

WG_DEV float wg_exp2_approx(float x) { return __nvvm_ex2_approx_f(x); } // ex2.approx.f32
WG_DEV float wg_log2_approx(float x) { return __nvvm_lg2_approx_f(x); } // lg2.approx.f32
WG_DEV float __frcp_rn(float x) { return __nvvm_rcp_rn_f(x); }          // rcp.rn.f32
WG_DEV float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }        // sqrt.rn.f32
// __expf and __logf as CUDA defines them: through base 2.
WG_DEV float __expf(float x) { return wg_exp2_approx(x * 1.4426950408889634f); }
WG_DEV float __logf(float x) { return wg_log2_approx(x) * 0.6931471805599453f; }

// ---- spin budget and abort flag -----------------------------------------
//
// Every spin loop polls through wg_spin_give_up, once per poll, with its own
// poll counter (start it at 0 for each wait):
//
//   uint32_t polls = 0;
//   while (wg_load_volatile(flag) != expected)
//     if (wg_spin_give_up(&polls, spin_budget, abort_flag)) { ...leave... }
//
// It returns true when the caller must stop waiting and leave the kernel:
// another thread has raised *abort_flag, or this wait has used up its
// spin_budget polls (then it raises *abort_flag itself, atomically, so every
// other spinner leaves too). A budget of 0 means unbounded: only the
// simulator, whose deadlock detector ends a hung launch, may pass 0.

WG_DEV bool wg_spin_give_up(uint32_t* polls, uint32_t spin_budget, int* abort_flag) {
  if (wg_load_volatile(abort_flag) != 0)
    return true;
  if (spin_budget != 0 && ++*polls >= spin_budget) {
    atomicExch(abort_flag, 1);
    return true;
  }
  return false;
}

// ---- the SM's cycle counter (kept last: earlier lines keep their numbers
// in every module's .loc directives) ----------------------------------------
//
// %clock64: cycles of the SM the thread runs on (the simulator's cycle in
// timing mode). Only differences taken on one SM mean anything.
WG_DEV unsigned long long wg_clock64() { return __nvvm_read_ptx_sreg_clock64(); }

// wg_backoff suspends the calling thread for about ns nanoseconds
// (nanosleep.u32: the hardware picks a delay in [0, 2*ns], at most 1 ms); 0
// does not sleep. A poller that backs off leaves its SM's issue slots to
// the warps that have work. The header's one inline asm: clang 16 has no
// builtin for nanosleep, and the instruction is the whole of it.
WG_DEV void wg_backoff(uint32_t ns) {
  if (ns != 0)
    asm volatile("nanosleep.u32 %0;" ::"r"(ns));
}

// __syncthreads_or is __syncthreads that also tells every thread whether
// any thread of the CTA passed a nonzero predicate (bar.red.or.pred).
WG_DEV int __syncthreads_or(int predicate) { return __nvvm_bar0_or(predicate); }

#endif // WARPGRAPH_H
