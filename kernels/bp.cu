// bp.cu — loopy belief propagation (two states, graph/ref's definition) in
// log-odds. It is not an ACC algorithm (its state lives on edges), so it has
// its own entries, run by the bsp scheduler: per round, a field pass over
// vertices and a message pass over edges, double-buffered so that a round is
// synchronous. No libdevice: exp and log are the approximate intrinsics.
#include "warpgraph.h"

// bp_message is graph/ref's bpMessage in float32: the log-odds message an
// edge carries given the cavity log-odds h of its tail, for the potential
// [[0.9, 0.1], [0.1, 0.9]]: log((a + b t) / (b + a t)), t = exp(-|h|).
WG_DEV float bp_message(float h) {
  float t = __expf(-(h < 0.0f ? -h : h));
  float m = __logf((0.9f + 0.1f * t) / (0.1f + 0.9f * t));
  return h < 0.0f ? -m : m;
}

// bp_field: field[v] = log_prior[v] + the messages on v's in-edges.
//   in_offsets, in_edge  the reverse CSR of the graph, each in-edge given
//                        by its index in the forward CSR (self-loops left out).
// Launch: a thread per vertex (any 1-D grid covering num_vertices).
extern "C" __global__ void bp_field(const uint32_t* in_offsets, const uint32_t* in_edge,
                                    const float* messages, const float* log_prior, float* field,
                                    uint32_t num_vertices) {
  uint32_t v = wg_global_id();
  if (v >= num_vertices)
    return;
  float h = log_prior[v];
  uint32_t j = in_offsets[v], end = in_offsets[v + 1];
  // Eight in-edges a step, the index loads first and then the message
  // loads: the overlap ptxas gives this loop on the GPU, written out for
  // clang's PTX, which the simulator runs and which interleaves each index
  // load with the message load it feeds (a warp then waits one memory
  // latency per edge; sim/configs/README.md, "Load hoisting"). The sum
  // keeps the edges' order, so the result is bit-identical.
  for (; j + 8 <= end; j += 8) {
    uint32_t e[8];
    float m[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      e[i] = in_edge[j + i];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      m[i] = messages[e[i]];
#pragma unroll
    for (int i = 0; i < 8; ++i)
      h += m[i];
  }
  for (; j < end; ++j)
    h += messages[in_edge[j]];
  field[v] = h;
}

// bp_warp_sum adds x over the 32 lanes of a converged warp.
WG_DEV float bp_warp_sum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1)
    x += __shfl_xor_sync(WG_FULL_MASK, x, offset);
  return x;
}

// The classified form keeps a round's messages in in-slot order: slot s of
// the reverse CSR (in_offsets) holds the message on the s-th in-edge, so a
// vertex's field reads its messages contiguously and the only scattered
// read of a round is the message pass's read of each reverse message.

// bp_field_classified is bp_field over messages in in-slot order, with
// SIMD-X's task mapping (its JIT task management over a frontier of every
// vertex): the vertices come in three lists by in-degree, and the grid's
// blocks are dealt in that order:
//   small   a thread per vertex: blocks [0, small_blocks);
//   medium  a warp per vertex, its lanes striding the in-slots:
//           blocks [small_blocks, small_blocks + medium_blocks);
//   large   a CTA per vertex: the remaining blocks, one vertex each.
// A warp or CTA sums its lanes' partial sums in a tree, so the field of
// such a vertex differs from bp_field's by float rounding.
//   lists   small, then medium, then large vertices (num_small + num_medium
//           + num_large entries).
// Launch: small_blocks + medium_blocks + num_large CTAs of blockDim.x
// threads (a multiple of 32, at most 1024); small_blocks covers num_small
// threads, medium_blocks num_medium warps.
extern "C" __global__ void bp_field_classified(const uint32_t* in_offsets, const float* messages,
                                               const float* log_prior, float* field, const uint32_t* lists,
                                               uint32_t num_small, uint32_t num_medium,
                                               uint32_t small_blocks, uint32_t medium_blocks) {
  __shared__ float partial[32];
  uint32_t block = blockIdx.x;
  if (block < small_blocks) {
    uint32_t i = block * blockDim.x + threadIdx.x;
    if (i >= num_small)
      return;
    uint32_t v = lists[i];
    float h = log_prior[v];
    for (uint32_t j = in_offsets[v], end = in_offsets[v + 1]; j < end; ++j)
      h += messages[j];
    field[v] = h;
    return;
  }
  uint32_t lane = threadIdx.x & 31;
  block -= small_blocks;
  if (block < medium_blocks) {
    uint32_t i = block * (blockDim.x / 32) + threadIdx.x / 32;
    if (i >= num_medium)
      return; // the whole warp
    uint32_t v = lists[num_small + i];
    float h = 0.0f;
    for (uint32_t j = in_offsets[v] + lane, end = in_offsets[v + 1]; j < end; j += 32)
      h += messages[j];
    h = bp_warp_sum(h);
    if (lane == 0)
      field[v] = log_prior[v] + h;
    return;
  }
  uint32_t v = lists[num_small + num_medium + (block - medium_blocks)];
  float h = 0.0f;
  for (uint32_t j = in_offsets[v] + threadIdx.x, end = in_offsets[v + 1]; j < end; j += blockDim.x)
    h += messages[j];
  h = bp_warp_sum(h);
  if (lane == 0)
    partial[threadIdx.x / 32] = h;
  __syncthreads();
  if (threadIdx.x < 32) {
    h = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
    h = bp_warp_sum(h);
    if (threadIdx.x == 0)
      field[v] = log_prior[v] + h;
  }
}

// bp_messages_by_slot is bp_messages over messages in in-slot order: for
// every in-slot s, the edge u->v it holds (u = slot_source[s]) gets
// next[s] = message of field[u] minus the message in slot slot_reverse[s]
// (the paired reverse edge v->u's slot; none when it is 0xFFFFFFFF).
// Self-loops have no slot.
// Launch: a thread per slot.
extern "C" __global__ void bp_messages_by_slot(const uint32_t* slot_source, const uint32_t* slot_reverse,
                                               const float* field, const float* messages, float* next,
                                               uint32_t num_slots) {
  uint32_t s = wg_global_id();
  if (s >= num_slots)
    return;
  uint32_t r = slot_reverse[s];
  next[s] = bp_message(field[slot_source[s]] - (r == 0xFFFFFFFFu ? 0.0f : messages[r]));
}

// bp_messages: for every edge e = u->v (u != v), next[e] = message of
// field[u] minus the message on its paired reverse edge (none when reverse[e]
// is 0xFFFFFFFF); self-loops carry 0.
// Launch: a thread per edge.
extern "C" __global__ void bp_messages(const uint32_t* edge_source, const uint32_t* col_indices,
                                       const uint32_t* reverse, const float* field,
                                       const float* messages, float* next, uint32_t num_edges) {
  uint32_t e = wg_global_id();
  if (e >= num_edges)
    return;
  uint32_t u = edge_source[e];
  if (col_indices[e] == u) {
    next[e] = 0.0f;
    return;
  }
  uint32_t r = reverse[e];
  next[e] = bp_message(field[u] - (r == 0xFFFFFFFFu ? 0.0f : messages[r]));
}

// bp_beliefs: belief[v] = P(state 1) = 1 / (1 + exp(-field[v])).
extern "C" __global__ void bp_beliefs(const float* field, float* belief, uint32_t num_vertices) {
  uint32_t v = wg_global_id();
  if (v < num_vertices)
    belief[v] = 1.0f / (1.0f + __expf(-field[v]));
}
