package main

import (
	"os"
	"runtime/debug"

	"github.com/warpgraph/warpgraph/graph"
)

// gcAllowance is about how much garbage a run lets the heap gather between
// collections beside its graph's arrays.
const gcAllowance = 256 << 20

// paceGC sets the collector's percentage for a run on g, unless GOGC is
// set. Go's default of 100 lets garbage grow to the size of the live heap
// before it collects. Most of a large run's live heap is the host graph
// and the simulator's copy of it, arrays without pointers that the
// collector marks without scanning, so that default doubles the process's
// footprint for nothing. The percentage keeps the garbage between
// collections near gcAllowance instead, and the collections about as
// frequent as on a graph without those arrays. Only wall time depends on
// it, never a result or a simulated figure.
func paceGC(g *graph.Graph) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcPercent(graphBytes(g)))
}

// gcPercent is the collector's percentage for a run whose graph arrays
// take graph bytes on the host (twice that with the device's copy).
func gcPercent(graph int) int {
	return max(10, 100*gcAllowance/(gcAllowance+2*graph))
}

// graphBytes is the size of g's CSR arrays.
func graphBytes(g *graph.Graph) int {
	return 4 * (len(g.Offsets) + len(g.Targets) + len(g.Weights))
}
