// load_latency.cu — the round trip of one dependent global load, weak or
// strong: a single thread chases a pointer chain and reads %clock64.
#include "warpgraph.h"

// chain holds a cyclic permutation of word indices: chain[i] is the index
// of the next word to read. The driver places one word per 128-byte line,
// in a random order, so every step touches a new line and no access
// pattern can be predicted. Thread 0 of CTA 0 first walks the chain once
// untimed (the lines reach L2, and L1 if they fit and the loads are weak),
// then walks it `steps` more times with the chosen load and records the
// cycles that walk took.
//
// Parameters:
//   chain   the chain (read), one word per line used; its length is the
//           driver's, the kernel follows it for `steps` loads.
//   steps   dependent loads timed (and as many untimed before).
//   strong  0: weak loads (ld.global, may hit in L1); 1: volatile loads
//           (ld.volatile.global: the strong load spin loops use, which
//           bypasses L1).
//   out     out[0] = the timed walk's cycles (%clock64 difference),
//           out[1] = the index reached (so the loads cannot be dropped).
// Launch: one CTA of 32 threads (only thread 0 works).
// Driver checks: out[1] is where `2 * steps` hops from index 0 end.
// Idempotent.
extern "C" __global__ void load_latency(const uint32_t* chain, uint32_t steps, uint32_t strong, unsigned long long* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  uint32_t i = 0;
  for (uint32_t s = 0; s < steps; ++s)
    i = chain[i];
  unsigned long long start = wg_clock64();
  if (strong != 0) {
    for (uint32_t s = 0; s < steps; ++s)
      i = wg_load_volatile(&chain[i]);
  } else {
    for (uint32_t s = 0; s < steps; ++s)
      i = chain[i];
  }
  unsigned long long stop = wg_clock64();
  out[0] = stop - start;
  out[1] = i;
}

// sync_latency: the round trips a barrier is made of, from one thread:
// kind 0, a chain of dependent atomicAdd on one word (each adds 1 plus
// the previous result's top bit, always 0 here, so the next cannot start
// before the previous returns); kind 1, a volatile store followed by __threadfence()
// (membar.gl), the release half of every grid barrier here. steps of each
// are timed with %clock64 after one untimed step.
//
// Parameters:
//   word    two uint32 (read and written): word[0] for the atomics,
//           word[1] for the stores. Set to 0 first.
//   steps   timed iterations (>= 1).
//   kind    0 or 1, as above.
//   out     out[0] = cycles of the timed iterations.
// Launch: one CTA of 32 threads (only thread 0 works).
// Driver checks: kind 0: word[0] == steps + 1; kind 1: word[1] == steps.
// Not idempotent: reset word before each launch.
extern "C" __global__ void sync_latency(uint32_t* word, uint32_t steps, uint32_t kind, unsigned long long* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  uint32_t v = atomicAdd(&word[0], 0u);
  if (kind != 0)
    wg_store_volatile(&word[1], 0u);
  __threadfence();
  unsigned long long start = wg_clock64();
  if (kind == 0) {
    for (uint32_t s = 0; s < steps; ++s)
      v = atomicAdd(&word[0], 1u + (v >> 31)); // adds 1: the word stays far below 2^31
  } else {
    for (uint32_t s = 1; s <= steps; ++s) {
      wg_store_volatile(&word[1], s);
      __threadfence();
    }
  }
  unsigned long long stop = wg_clock64();
  out[0] = stop - start;
  if (kind == 0)
    atomicAdd(&word[0], 1u);
}

// partition_latency: the round trips from one SM to words spread over the
// L2. H100's L2 is two partitions, each nearer one half of the SMs; a
// line's home is in one of them. For each of `count` words, `stride` words
// apart, one thread of the first CTA to start on SM `sm` times a chain of
// `steps` dependent volatile loads (ld.volatile.global, after one untimed
// load brings the line to L2) and then of `steps` dependent atomicAdd
// (each address depends on the previous result), with %clock64.
//
// Parameters:
//   words   count × stride uint32 (read and written): word i × stride is
//           probed. Set to 0 first.
//   count   words probed; stride their spacing in words (≥ 1).
//   steps   timed operations of each kind per word (≥ 1).
//   sm      the SM whose CTA probes (the grid should give every SM one).
//   claim   one uint32, 0 first: the probing CTA sets it to 1, so only one
//           CTA on SM `sm` probes.
//   out     1 + 2 × count uint64: out[0] = sm + 1 (0: no CTA ran there),
//           out[1 + 2i] = the loads' cycles for word i, out[2 + 2i] = the
//           atomics'.
// Launch: CTAs of 32 threads, at least one per SM.
// Driver checks: out[0] == sm + 1; each probed word == steps; every other
// word 0.
// Not idempotent: reset words and claim before each launch.
WG_DEV uint32_t wg_smid() { return __nvvm_read_ptx_sreg_smid(); }

extern "C" __global__ void partition_latency(uint32_t* words, uint32_t count, uint32_t stride, uint32_t steps,
                                             uint32_t sm, uint32_t* claim, unsigned long long* out) {
  if (threadIdx.x != 0 || wg_smid() != sm || atomicCAS(claim, 0u, 1u) != 0u)
    return;
  out[0] = sm + 1;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t* w = words + (uint64_t)i * stride;
    uint32_t v = wg_load_volatile(w); // 0: the line is in L2 now
    unsigned long long start = wg_clock64();
    for (uint32_t s = 0; s < steps; ++s)
      v = wg_load_volatile(w + v); // the word holds 0: v stays 0
    unsigned long long mid = wg_clock64();
    for (uint32_t s = 0; s < steps; ++s)
      v = atomicAdd(w + (v >> 31), 1u); // v < 2^31: the same word, after the previous answer
    unsigned long long stop = wg_clock64();
    out[1 + 2 * i] = mid - start;
    out[2 + 2 * i] = stop - mid + (v >> 31); // v's use keeps the last atomic's answer awaited
  }
}

// loaded_latency: the round trips of load_latency and sync_latency under
// load. Lane 0 of every warp works on its own: kind 0 chases the chain (as
// load_latency's, one word per line) from a start of its own, `steps`
// volatile loads untimed (the path reaches L2) and the same path again
// timed; kind 1 times `steps` volatile stores to a word of its own line,
// each followed by __threadfence(); kind 2 `steps` dependent atomicAdd on
// that word. Every SM runs as many of these at once as the launch has warps
// per CTA. Kinds 3 and 4 are gathers: every lane of every warp chases the
// chain from a start of its own, so each warp-load asks for 32 lines at
// once, as a graph kernel's neighbour gather does: kind 3 with volatile
// loads (L2), kind 4 with weak ones (through L1; the path was walked with
// volatile loads first, so it is in L2 and not in L1).
//
// Parameters:
//   chain   kind 0: the chain (read): chain[w] is the word index of the
//           next hop. Kinds 1 and 2: one line per warp (written), 0 first.
//   lines   the chain's length in lines (words 32 apart); kinds 1 and 2:
//           at least the warps.
//   steps   timed operations per warp.
//   kind    0 to 5, as above.
//   out     3 per warp: out[3w] = the timed cycles (lane 0's), out[3w+1] =
//           kind 0: the word index the walk reached; kind 1: the last value
//           stored; kind 2: the last atomic's result; kinds 3 and 4: the
//           sum (mod 2^32) of the word indices the warp's 32 walks reached;
//           out[3w+2] = the SM's clock when the timed part began, so the
//           driver can take a CTA's span from its first start to its last
//           stop. Kind 5: warp 0 of each CTA as kind 1; the other warps
//           out[3w] = the hops each lane made, out[3w+1] = the sum (mod
//           2^32) of the word indices their 32 walks reached.
// Launch: any grid of whole warps; warp w (CTA-major) starts at line
// (w × 2654435761 mod 2^32) mod lines (kind 0) or works on line w; kinds
// 3 and 4 start thread t at line (t × 2654435761 mod 2^32) mod lines.
// Kind 5: chain is the chain followed by one line per warp (warp 0 of
// CTA b stores to line lines + b × warps per CTA).
// Driver checks: kinds 0, 3 and 4, and kind 5's other warps: every walk
// ends where the host's does (kind 5: after the hops it reports); kind 1
// and kind 5's warp 0:
// out[3w+1] == steps and the word holds steps; kind 2: out[3w+1] ==
// steps - 1 and the word holds steps. Kinds 1 and 2 are not idempotent:
// zero the lines before each launch.
extern "C" __global__ void loaded_latency(uint32_t* chain, uint32_t lines, uint32_t steps, uint32_t kind,
                                          unsigned long long* out) {
  uint32_t w = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (kind == 3 || kind == 4) {
    uint32_t first = ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u) % lines * 32;
    uint32_t i = first;
    // The untimed walk is volatile for both kinds: it brings the path into
    // L2 and not into L1, so the timed weak loads find L1 cold.
    for (uint32_t s = 0; s < steps; ++s)
      i = wg_load_volatile(&chain[i]);
    i = first + (i >> 31); // i < 2^31: back to the start, after the untimed walk
    unsigned long long start = wg_clock64();
    if (kind == 3)
      for (uint32_t s = 0; s < steps; ++s)
        i = wg_load_volatile(&chain[i]);
    else
      for (uint32_t s = 0; s < steps; ++s)
        i = chain[i];
    unsigned long long stop = wg_clock64();
    uint32_t sum = i;
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_xor_sync(WG_FULL_MASK, sum, offset);
    if ((threadIdx.x & 31) == 0) {
      out[3 * w] = stop - start;
      out[3 * w + 1] = sum;
      out[3 * w + 2] = start;
    }
    return;
  }
  if (kind == 5) {
    __shared__ uint32_t fenced; // warp 0 is done
    if (threadIdx.x == 0)
      fenced = 0;
    __syncthreads();
    if (threadIdx.x >= 32) {
      uint32_t first = ((blockIdx.x * blockDim.x + threadIdx.x) * 2654435761u) % lines * 32;
      uint32_t i = first, hops = 0;
      unsigned long long start = wg_clock64();
      // At least one hop; bounded: warp 0 takes steps fences, each far
      // shorter than 64 hops.
      do {
        i = atomicAdd(&chain[i], 0u);
        ++hops;
      } while (hops < 64 * steps && __any_sync(WG_FULL_MASK, *(volatile uint32_t *)&fenced == 0));
      uint32_t sum = i;
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(WG_FULL_MASK, sum, offset);
      if ((threadIdx.x & 31) == 0) {
        out[3 * w] = hops;
        out[3 * w + 1] = sum;
        out[3 * w + 2] = start;
      }
      return;
    }
    if (threadIdx.x != 0)
      return;
    uint32_t* word = &chain[(lines + w) * 32];
    unsigned long long start = wg_clock64();
    for (uint32_t s = 1; s <= steps; ++s) {
      wg_store_volatile(word, s);
      __threadfence();
    }
    unsigned long long stop = wg_clock64();
    *(volatile uint32_t *)&fenced = 1;
    out[3 * w] = stop - start;
    out[3 * w + 1] = steps;
    out[3 * w + 2] = start;
    return;
  }
  if ((threadIdx.x & 31) != 0)
    return;
  uint32_t i = 0;
  unsigned long long start, stop;
  if (kind == 0) {
    uint32_t first = (w * 2654435761u) % lines * 32;
    i = first;
    for (uint32_t s = 0; s < steps; ++s)
      i = wg_load_volatile(&chain[i]);
    i = first + (i >> 31); // i < 2^31: back to the start, after the untimed walk
    start = wg_clock64();
    for (uint32_t s = 0; s < steps; ++s)
      i = wg_load_volatile(&chain[i]);
    stop = wg_clock64();
  } else if (kind == 1) {
    uint32_t* word = &chain[w * 32];
    start = wg_clock64();
    for (uint32_t s = 1; s <= steps; ++s) {
      wg_store_volatile(word, s);
      __threadfence();
    }
    stop = wg_clock64();
    i = steps;
  } else {
    uint32_t* word = &chain[w * 32];
    start = wg_clock64();
    for (uint32_t s = 0; s < steps; ++s)
      i = atomicAdd(word + (i >> 31), 1u); // i < 2^31: the same word, after the previous answer
    stop = wg_clock64();
  }
  out[3 * w] = stop - start;
  out[3 * w + 1] = i;
  out[3 * w + 2] = start;
}
