// Package micro owns the microbenchmark drivers (stream, atomic contention
// and spread, polls on an atomic's line, shared-memory adds, bank strides,
// global barriers, launch overhead, load and partition latency, round trips
// under load, divide and modulo): each launches its kernel through
// kernels.Device, checks the final memory contents against a value computed
// on the host, and returns a table of measurements. Default registers each
// driver as a Benchmark with its per-target defaults and how it runs, for
// the command line, which knows none of them by name.
package micro
