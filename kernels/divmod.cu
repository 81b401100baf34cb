// divmod.cu — integer division and remainder at the edges PTX leaves
// machine-specific (division by zero, and the most negative value divided
// by -1), so the simulator can be made to agree with the hardware.
#include "warpgraph.h"

// divmod_probe computes, for every i < n,
//
//   q32u[i] = a32[i] / b32[i]   r32u[i] = a32[i] % b32[i]     (uint32)
//   q32s[i] = (int)a32[i] / (int)b32[i], r32s likewise        (int32)
//   q64u[i] = a64[i] / b64[i]   r64u[i] = a64[i] % b64[i]     (uint64)
//   q64s[i], r64s[i]: the same as int64
//
// Parameters: a32, b32 (n uint32), a64, b64 (n uint64) read; q32u, r32u,
// q32s, r32s (n uint32) and q64u, r64u, q64s, r64s (n uint64) written; n.
// Launch: one thread per input pair, any grid. Idempotent.
// Driver checks: kernels.DivModByZero documents the answers the simulator
// gives; the hardware test compares the two.
extern "C" __global__ void divmod_probe(const uint32_t* a32, const uint32_t* b32, const uint64_t* a64, const uint64_t* b64, uint32_t* q32u, uint32_t* r32u, uint32_t* q32s, uint32_t* r32s, uint64_t* q64u, uint64_t* r64u, uint64_t* q64s, uint64_t* r64s, uint32_t n) {
  uint32_t i = wg_global_id();
  if (i >= n)
    return;
  uint32_t a = a32[i], b = b32[i];
  q32u[i] = a / b;
  r32u[i] = a % b;
  q32s[i] = (uint32_t)((int32_t)a / (int32_t)b);
  r32s[i] = (uint32_t)((int32_t)a % (int32_t)b);
  uint64_t c = a64[i], d = b64[i];
  q64u[i] = c / d;
  r64u[i] = c % d;
  q64s[i] = (uint64_t)((int64_t)c / (int64_t)d);
  r64s[i] = (uint64_t)((int64_t)c % (int64_t)d);
}
