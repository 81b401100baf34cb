// Package micro owns the microbenchmark drivers (stream, atomic contention,
// bank strides, global barrier): each launches its kernel through
// kernels.Device, checks the final memory contents against a value computed
// on the host, and returns a table of measurements.
package micro
