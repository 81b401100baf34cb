// Package ptx is the simulator's front end: it parses the PTX that clang-16
// emits for warpgraph's kernels, lowers it once into a fixed-shape,
// pre-resolved instruction form (ir.go) and analyses it (control-flow graph,
// immediate post-dominators for SIMT reconvergence, register liveness and an
// estimate of registers per thread).
//
// The package owns only the PTX language: it knows nothing about warps,
// memories, timing or devices, and it never imports akita. The executor in
// sim/ consumes Module and Function as they are and needs no strings at
// execution time: registers, branch targets, call targets and symbols are
// already indexes.
package ptx
