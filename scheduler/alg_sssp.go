package scheduler

import (
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// SSSP (kernels/sssp.cu): dist[v], the least total weight of a path from
// the source (every edge weighs 1 in an unweighted graph).
func init() {
	RegisterAlgorithm(&Algorithm{Name: "sssp", About: "single-source shortest paths", Kernel: "sssp",
		UsesSource: true, Combine: Voting, Setup: setupSSSP})
}

func setupSSSP(g *graph.Graph, o Options) (*Problem, error) {
	dist := filled(g.NumVertices(), ref.Unreached)
	dist[o.Source] = 0
	meta := Uint32s("distance", dist)
	var notes []string
	if !g.Weighted() {
		notes = append(notes, "unweighted graph: every edge weighs 1")
	}
	return &Problem{Graph: g, Meta: []*Array{meta}, Start: []uint32{o.Source}, MaxIterations: g.NumVertices() + 1, Notes: notes,
		Values: func() Values { return uint32Values("distance", "4294967295: unreached", meta.Uint32s()) },
		Work:   func() (float64, string) { return reachedEdges(g, meta.Uint32s(), ref.Unreached) },
		Check: func(int) (ref.Report, []Field) {
			d := meta.Uint32s()
			return ref.ValidateSSSP(g, o.Source, d), reachSummary(d, ref.Unreached, "max distance")
		}}, nil
}
