// Package graph owns warpgraph's graphs: the CSR representation (out-edges,
// in-edges built on demand, optional uint32 weights), the file readers
// (Matrix Market, SNAP/plain edge lists, METIS, DIMACS .gr, and the binary
// CSR cache), the deterministic generators (R-MAT, grid, Erdős–Rényi), the
// transformations, graph specs and statistics, and partitions of the
// vertices over devices with their boundary statistics. It imports nothing of
// warpgraph's own but the shared worker pool (internal/parallel); CPU
// reference algorithms live in graph/ref.
package graph
