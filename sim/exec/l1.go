package exec

import "github.com/warpgraph/warpgraph/sim/ptx"

// L1 is a timing model's view of its SMs' L1 data caches by value: with
// one set (Grid.SetL1), a weak global load may read a stale copy that its
// SM's L1 still holds rather than memory's current value, as on NVIDIA
// GPUs, whose L1 is not coherent across SMs. memsys.L1Values implements it
// (timing mode with memory.coherence: l1). Without one, which is what
// functional mode does, memory is coherent: every load reads the image.
//
// Addresses are global device addresses; n is 1, 2, 4 or 8 and the access
// is aligned. A vector access calls once per element.
type L1 interface {
	// HasStale reports whether SM sm's L1 may hold a value that differs
	// from memory; while it does not, LoadWeak is not called for sm.
	HasStale(sm int) bool
	// LoadWeak returns what a weak load of n bytes at a on SM sm reads,
	// memory holding mem there (zero-extended, unsigned).
	LoadWeak(sm int, a uint64, n int, mem uint64) uint64
	// Write is called before a store or atomic by a thread on SM sm
	// changes the n bytes at a from old to new (equal when it leaves them
	// as they were).
	Write(sm int, a uint64, n int, old, new uint64)
}

// SetL1 makes the grid's weak global loads read through l1 (see L1); nil
// restores coherent memory. Set it before the first Step.
func (g *Grid) SetL1(l1 L1) { g.l1 = l1 }

// weakLoad reports whether in is a load that may be served from a
// non-coherent L1: not ld.volatile, and not ld.relaxed or ld.acquire at a
// scope wider than the CTA (an omitted scope is .gpu). ld.global.nc and
// ldu are weak. timing.strongLoad is its complement, for the L1 bypass.
func weakLoad(in *ptx.Inst) bool {
	switch in.Order {
	case ptx.OrderVolatile:
		return false
	case ptx.OrderRelaxed, ptx.OrderAcquire:
		return in.Scope == ptx.ScopeCTA
	}
	return true
}

// globalAddr reports whether lane address a of x (in x's space) is global
// memory, resolving generic addresses as resolve does.
func globalAddr(x *xinst, a uint64) bool {
	switch x.space {
	case ptx.SpaceGlobal:
		return true
	case ptx.SpaceGeneric:
		return a-SharedWindow >= windowSize && a-LocalWindow >= windowSize
	}
	return false
}
