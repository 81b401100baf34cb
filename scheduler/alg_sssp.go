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
	bucket := Uint32s("bucket bound", []uint32{ref.Unreached, ref.Unreached}) // no buckets until a loop starts them
	var notes []string
	if !g.Weighted() {
		notes = append(notes, "unweighted graph: every edge weighs 1")
	}
	// With buckets a vertex may be admitted once per bucket it improves in.
	maxIterations := g.NumVertices() + 1
	if o.Delta > 0 {
		maxIterations *= 2
	}
	return &Problem{Graph: g, Meta: []*Array{meta, Uint32s("waiting", make([]uint32, g.NumVertices())), bucket},
		Delta: o.Delta, Bucket: bucket,
		Start: []uint32{o.Source}, MaxIterations: maxIterations, Notes: notes,
		Values: func() Values { return uint32Values("distance", "4294967295: unreached", meta.Uint32s()) },
		Work:   func() (float64, string) { return reachedEdges(g, meta.Uint32s(), ref.Unreached) },
		Check: func(int) (ref.Report, []Field) {
			d := meta.Uint32s()
			return ref.ValidateSSSP(g, o.Source, d), reachSummary(d, ref.Unreached, "max distance")
		}}, nil
}
