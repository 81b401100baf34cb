// Minimal CUDA qualifiers for clang without the CUDA SDK (test kernels of
// sim/ptx only; the real kernels use kernels/warpgraph.h).
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __noinline__ __attribute__((noinline))
#include <__clang_cuda_builtin_vars.h>

static __device__ inline unsigned ballot(bool p) { return __nvvm_vote_ballot_sync(0xffffffffu, p); }
static __device__ inline int shfl_idx(int v, int lane) { return __nvvm_shfl_sync_idx_i32(0xffffffffu, v, lane, 0x1f); }
static __device__ inline int shfl_down(int v, int d) { return __nvvm_shfl_sync_down_i32(0xffffffffu, v, d, 0x1f); }
static __device__ inline int shfl_xor(int v, int d) { return __nvvm_shfl_sync_bfly_i32(0xffffffffu, v, d, 0x1f); }
static __device__ inline int atomic_add(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ inline int atomic_min(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ inline int atomic_cas(int *p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
