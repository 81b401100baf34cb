// simdx.cu — SIMD-X's frontier filters that do not depend on the algorithm
// (kernels/lib/simdx.cuh documents the lists, the length record and each
// filter). Launch every phase of one iteration with the same grid and block
// as its compute phase: the online bins and the scan chunks are per thread
// and per CTA.
#include "lib/simdx.cuh"

// simdx_gather concatenates the online filter's thread bins into the three
// lists. out_len[0..3] must be zero before launch.
extern "C" __global__ void simdx_gather(const uint32_t *row_offsets, uint32_t num_vertices,
                                        const uint32_t *bins, const uint32_t *bin_count,
                                        uint32_t bin_size, uint32_t *out_lists, uint32_t *out_len,
                                        uint32_t medium_from, uint32_t large_from) {
  wg_simdx_gather(row_offsets, num_vertices, bins, bin_count, bin_size, out_lists, out_len,
                  medium_from, large_from);
}

// simdx_scan_count counts, per CTA and list, the vertices stamped `stamp`
// into cta_counts[3*CTA + list].
extern "C" __global__ void simdx_scan_count(const uint32_t *row_offsets, uint32_t num_vertices,
                                            const uint32_t *queued, uint32_t stamp,
                                            uint32_t *cta_counts, uint32_t scan_mode,
                                            uint32_t medium_from, uint32_t large_from) {
  wg_simdx_scan_count(row_offsets, num_vertices, queued, stamp, cta_counts, scan_mode, medium_from,
                      large_from);
}

// simdx_scan_write writes the stamped vertices into the three lists at each
// CTA's prefix of cta_counts, and the lengths and total out-degree into
// out_len[0..3] (out_len[3] must be zero before launch).
extern "C" __global__ void simdx_scan_write(const uint32_t *row_offsets, uint32_t num_vertices,
                                            const uint32_t *queued, uint32_t stamp,
                                            const uint32_t *cta_counts, uint32_t scan_mode,
                                            uint32_t *out_lists, uint32_t *out_len,
                                            uint32_t medium_from, uint32_t large_from) {
  wg_simdx_scan_write(row_offsets, num_vertices, queued, stamp, cta_counts, scan_mode, out_lists,
                      out_len, medium_from, large_from);
}
