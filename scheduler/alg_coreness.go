package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// k-core decomposition (kernels/coreness.cu): every vertex's core number,
// by peeling in rising levels on the bucket loop of the schedulers that
// offer Buckets. Level k is a bucket of width 1: the vertices whose degree
// falls below k leave with core number k - 1; the loop skips the levels at
// which none leaves.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "coreness", About: "k-core decomposition: every vertex's core number, by peeling level by level",
		Kernel: "coreness", Combine: Voting, Setups: map[Form]Setup{ACC: setupCoreness}, CPU: cpuCoreness,
		Requires: []Capability{Buckets}})
}

// corenessStays is a vertex's core word while it has not left.
const corenessStays = ^uint32(0)

func cpuCoreness(g *graph.Graph, _ Params) CPUResult {
	sym, notes, err := undirected(g)
	if err != nil {
		return CPUResult{Validation: ref.Report{Algorithm: "core numbers", Fault: err.Error()}}
	}
	cores := ref.KCore(sym)
	return CPUResult{Validation: ref.CertifyCoreNumbers(sym, cores), Method: "certificate", Checked: true,
		Summary: corenessSummary(cores), Values: corenessValues(cores), Notes: notes}
}

func setupCoreness(g *graph.Graph, _ Params) (*Problem, error) {
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	n := sym.NumVertices()
	degree := make([]uint32, n)
	for v := range degree {
		for _, u := range sym.Neighbors(uint32(v)) {
			if u != uint32(v) {
				degree[v]++
			}
		}
	}
	stays := make([]uint32, n)
	for v := range stays {
		stays[v] = corenessStays
	}
	core := Uint32s("core", stays)
	bound := Uint32s("level", []uint32{ref.Unreached, ref.Unreached})
	// Each level runs at least an admission pass, and a vertex leaves once.
	return &Problem{Graph: sym, Meta: []*Array{Uint32s("degree", degree), core, bound},
		Buckets: &DeltaBuckets{Delta: 1, Bound: bound, Note: "peeling level by level on the bucket loop: a level at which no vertex leaves is skipped"}, MaxIterations: 2*n + 2, Notes: notes,
		Values: func() Values { return corenessValues(core.Uint32s()) },
		Check: func(int) (ref.Report, []Field) {
			cores := core.Uint32s()
			return ref.ValidateKCore(sym, cores), corenessSummary(cores)
		}}, nil
}

// corenessSummary gives the largest core number (the degeneracy) and how
// many vertices reach it.
func corenessSummary(cores []uint32) []Field {
	top, at := uint32(0), 0
	for _, c := range cores {
		switch {
		case c == corenessStays:
		case c > top:
			top, at = c, 1
		case c == top:
			at++
		}
	}
	return []Field{figure("max_core", "max core number", float64(top), fmt.Sprint(top)),
		figure("max_core_size", "vertices at the max core", float64(at), fmt.Sprintf("%d vertices", at))}
}

func corenessValues(cores []uint32) Values {
	return uint32Values("core", "the vertex's core number (4294967295: it never left, a failed run)", cores)
}
