package graph

import (
	"fmt"
	"strings"
)

// Memory checks. A graph that does not fit would otherwise end the process
// in Go's fatal "out of memory" (a goroutine dump, no way to recover), so
// the generators, the readers and the transformations estimate what they
// are about to allocate and compare it with what the process can still
// get: the smallest headroom under the address-space limit (RLIMIT_AS,
// less what the process has mapped), its cgroup's memory limit (less what
// the cgroup uses) and the kernel's MemAvailable. A bound the system does
// not have is no bound; where none can be read nothing is checked.

// MemoryError reports a graph that needs more memory than the process can
// get; nothing was allocated for it. Commands exit with status 8 (out of
// memory) on it.
type MemoryError struct {
	// What names the work refused ("generating rmat:scale=25,...").
	What string
	// Need is the estimate, in bytes; Bounds what limits the process.
	Need   uint64
	Bounds []MemoryBound
}

// MemoryBound is one limit on the memory a process can get.
type MemoryBound struct {
	// Name is "RLIMIT_AS", "cgroup memory.max" (v1: "cgroup
	// memory.limit_in_bytes") or "MemAvailable".
	Name string
	// Limit is the bound in bytes; Used what already counts against it
	// (the process's mappings for RLIMIT_AS, the cgroup's usage), 0 for
	// MemAvailable, which counts what is free.
	Limit, Used uint64
}

// Free is what the bound leaves.
func (b MemoryBound) Free() uint64 {
	if b.Used >= b.Limit {
		return 0
	}
	return b.Limit - b.Used
}

func (b MemoryBound) String() string {
	if b.Used == 0 {
		return fmt.Sprintf("%s %s", b.Name, formatBytes(b.Limit))
	}
	return fmt.Sprintf("%s %s less %s in use", b.Name, formatBytes(b.Limit), formatBytes(b.Used))
}

// Available is the smallest headroom of the bounds.
func (e *MemoryError) Available() uint64 {
	avail := ^uint64(0)
	for _, b := range e.Bounds {
		avail = min(avail, b.Free())
	}
	return avail
}

func (e *MemoryError) Error() string {
	parts := make([]string, len(e.Bounds))
	for i, b := range e.Bounds {
		parts[i] = b.String()
	}
	return fmt.Sprintf("%s needs about %s of memory, more than the %s available (the smallest of: %s)",
		e.What, formatBytes(e.Need), formatBytes(e.Available()), strings.Join(parts, "; "))
}

// formatBytes writes a size in GiB, MiB below one GiB, KiB below one MiB.
func formatBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
}

// memoryBounds reads the process's memory bounds (memory_linux.go); tests
// replace it.
var memoryBounds = systemMemoryBounds

// memoryCheckFloor is the smallest need that is checked: reading the
// bounds costs a few files of /proc, and below it a graph is too small to
// matter.
var memoryCheckFloor uint64 = 16 << 20

// checkMemory refuses work that needs more than need bytes when the
// process cannot get them.
func checkMemory(what string, need uint64) error {
	if need < memoryCheckFloor {
		return nil
	}
	bounds := memoryBounds()
	for _, b := range bounds {
		if need > b.Free() {
			return &MemoryError{What: what, Need: need, Bounds: bounds}
		}
	}
	return nil
}

// withSlack adds what the garbage collector keeps beyond the live arrays
// while a graph is built (freed arrays not yet reused, heap growth ahead
// of use): measured at a quarter for R-MAT, ER and grid generation.
func withSlack(bytes int64) uint64 { return uint64(max(bytes, 0)) * 5 / 4 }

// buildSimpleNeed is the peak of buildSimple on m listed edges stored as
// s: the lists themselves, the in-edge CSR and its transpose, the offsets
// and cursors.
func buildSimpleNeed(n, m, s int64) int64 { return 8*m + 8*s + 20*n }

// csrNeed is what a CSR of n vertices and s stored edges holds.
func csrNeed(n, s int64, weighted bool) int64 {
	need := 4*(n+1) + 4*s
	if weighted {
		need += 4 * s
	}
	return need
}

// memoryNeed estimates the peak of generating the graph.
func (p RMAT) memoryNeed() uint64 {
	n, m := int64(1)<<p.Scale, int64(p.EdgeFactor)<<p.Scale
	return withSlack(buildSimpleNeed(n, m, p.storedBound()))
}

// memoryNeed estimates the peak of generating the graph: the draws, the
// deduplicating build of each round, then the final build.
func (p ER) memoryNeed() uint64 {
	n, m := int64(p.N), int64(p.M)
	s := m
	if !p.Directed {
		s *= 2
	}
	return withSlack(8*m + buildSimpleNeed(n, m, s))
}

// memoryNeed is the CSR the generator writes directly.
func (p Grid) memoryNeed() uint64 {
	return withSlack(csrNeed(int64(p.Width)*int64(p.Height), p.storedEdges(), p.Weights.Weighted()))
}

// memoryNeed is the CSR the generator writes directly.
func (p Regular) memoryNeed() uint64 {
	return withSlack(csrNeed(int64(p.N), int64(p.N)*int64(p.D), p.Weights.Weighted()))
}

// memoryNeed estimates the peak of applying t to g: what the new arrays
// hold while g's are still alive.
func (t Transform) memoryNeed(g *Graph) uint64 {
	n, s := int64(g.NumVertices()), int64(g.NumEdges())
	switch t.Op {
	case OpSymmetrize:
		// An edge list of every edge, then a CSR of both directions.
		return withSlack(12*s + csrNeed(n, 2*s, g.Weights != nil) + 12*n)
	case OpSimple, OpPermute:
		return withSlack(csrNeed(n, s, g.Weights != nil))
	case OpDegreeOrder: // the CSR, the order and the sorted ids
		return withSlack(csrNeed(n, s, g.Weights != nil) + 8*n)
	case OpRandomWeights:
		return withSlack(4 * s)
	}
	return 0
}
