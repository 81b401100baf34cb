// Package memsys is the timing model of a GPU's global memory system on
// akita/v3 (per-SM L1s, sliced L2 caches, a DRAM channel and an atomic unit
// per slice, and the interconnect between them): it charges latency,
// bandwidth and contention to the requests SM components send and counts
// statistics, while functional values stay in the executor's memory image.
// It imports akita and the standard library only, never sim/exec, sim/ptx or
// any other warpgraph package. README.md says how an SM talks to it and
// follows each kind of request through it.
package memsys
