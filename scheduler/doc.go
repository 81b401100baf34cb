// Package scheduler owns the host side of the algorithm framework: the
// registry of algorithms and schedulers, each algorithm's problem
// (buffers, initial state, result, validation against graph/ref), the
// schedulers' strategies (which entries launch each iteration, grid
// sizing, direction and filter decisions) and the enactor that drives a
// run and collects per-iteration statistics.
//
// Everything is written once against kernels.Device, so the same code runs
// on the simulator and on hardware; scheduler imports kernels, graph and
// graph/ref, never sim or hw. The device side of the contract is
// kernels/lib/acc.cuh: an algorithm's kernels are its ACC struct
// instantiated under every scheduler by WG_ACC_ENTRIES, with entries named
// <algorithm>_<scheduler>_<variant>_<phase>.
package scheduler
