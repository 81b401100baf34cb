// Package kernels owns the CUDA C++ kernel sources, their portability
// header, the generated PTX (embedded), the catalog of kernel entries with
// their parameter signatures, and the Device interface that both executors
// (the simulator in sim/ and the CUDA backend in hw/) implement. It imports
// nothing of warpgraph's own.
package kernels
