// Package scheduler owns the host drivers of graph algorithms: the
// runtimes of the sources (SIMD-X, Atos, WolfGraph, warp segmentation,
// hierarchical queues), starting with a level-synchronous BFS. Drivers are
// written once against kernels.Device, so the same code runs on the
// simulator and on hardware; scheduler imports kernels and graph, never sim
// or hw.
package scheduler
