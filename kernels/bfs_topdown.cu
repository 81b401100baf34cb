// bfs_topdown.cu — one level of level-synchronous top-down BFS.
#include "warpgraph.h"

#define WG_UNVISITED 0xFFFFFFFFu

// bfs_topdown expands one frontier: thread i takes frontier vertex
// frontier_in[i], scans its out-neighbours row_offsets[v] ..
// row_offsets[v+1]-1, and claims each unvisited neighbour u with
// atomicCAS(&depth[u], UNVISITED, level + 1). Exactly one thread wins each
// claim, and the winner appends u to frontier_out, so the output frontier
// holds every newly reached vertex exactly once (in no particular order).
//
// Appends are warp-aggregated: each warp walks the neighbour lists of its 32
// vertices in lock step (as many steps as its largest degree), and at each
// step one ballot counts the lanes that claimed a vertex, lane 0 reserves
// that many slots with one atomicAdd on *frontier_out_len, a shuffle
// broadcasts the base, and each claiming lane writes at base + (number of
// claiming lanes below it).
//
// Parameters:
//   row_offsets       |V|+1 uint32, CSR offsets (read).
//   col_indices       |E| uint32, CSR neighbours (read).
//   depth             |V| uint32 (read and written): the BFS level of each
//                     vertex, 0xFFFFFFFF while unvisited.
//   frontier_in       frontier_len vertex ids (read): the vertices at depth
//                     level.
//   frontier_len      entries in frontier_in (> 0).
//   frontier_out      room for |V| vertex ids (written).
//   frontier_out_len  1 uint32, zero before launch; the number of vertices
//                     appended.
//   level             depth of the input frontier.
// Launch: grid = ceil(frontier_len / block); block a multiple of 32 (the
// warp's vote and shuffle need all 32 lanes).
// Driver: depth = all 0xFFFFFFFF except depth[source] = 0, frontier_in =
// {source}, level = 0; after each launch read *frontier_out_len, stop when it
// is 0, otherwise swap the queues, zero the counter and launch level+1.
// Checks: the final depth equals graph/ref's BFS levels (0xFFFFFFFF for
// unreachable vertices); after each launch frontier_out holds, without
// duplicates, exactly the vertices whose depth became level+1.
extern "C" __global__ void bfs_topdown(const uint32_t* row_offsets, const uint32_t* col_indices,
                                       uint32_t* depth, const uint32_t* frontier_in,
                                       uint32_t frontier_len, uint32_t* frontier_out,
                                       uint32_t* frontier_out_len, uint32_t level) {
  uint32_t i = wg_global_id();
  uint32_t begin = 0, degree = 0;
  if (i < frontier_len) {
    uint32_t v = frontier_in[i];
    begin = row_offsets[v];
    degree = row_offsets[v + 1] - begin;
  }
  uint32_t next = level + 1;
  for (uint32_t j = 0; __any_sync(WG_FULL_MASK, j < degree); ++j) {
    uint32_t u = 0;
    bool claimed = false;
    if (j < degree) {
      u = col_indices[begin + j];
      // The plain read only skips hopeless claims; the CAS decides.
      claimed = depth[u] == WG_UNVISITED && atomicCAS(&depth[u], WG_UNVISITED, next) == WG_UNVISITED;
    }
    uint32_t claimers = __ballot_sync(WG_FULL_MASK, claimed);
    if (claimers == 0)
      continue;
    uint32_t base = 0;
    if (wg_lane_id() == 0)
      base = atomicAdd(frontier_out_len, (uint32_t)__popc(claimers));
    base = __shfl_sync(WG_FULL_MASK, base, 0);
    if (claimed)
      frontier_out[base + __popc(claimers & wg_lanemask_lt())] = u;
  }
}
