package scheduler

import (
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// SSWP (kernels/sswp.cu): width[v], the widest bottleneck of a path from
// the source (MaxUint32 at the source, 0 where unreachable).
func init() {
	RegisterAlgorithm(&Algorithm{Name: "sswp", About: "single-source widest paths", Kernel: "sswp",
		UsesSource: true, Combine: Voting, Setup: setupSSWP})
}

func setupSSWP(g *graph.Graph, o Options) (*Problem, error) {
	width := make([]uint32, g.NumVertices())
	width[o.Source] = math.MaxUint32
	meta := Uint32s("width", width)
	return &Problem{Graph: g, Meta: []*Array{meta}, Start: []uint32{o.Source}, MaxIterations: g.NumVertices() + 1,
		Values: func() Values { return uint32Values("width", "0: unreached; 4294967295: the source", meta.Uint32s()) },
		Work:   func() (float64, string) { return reachedEdges(g, meta.Uint32s(), 0) },
		Check: func(int) (ref.Report, []Field) {
			w := meta.Uint32s()
			return ref.ValidateSSWP(g, o.Source, w), reachSummary(w, 0, "widest width")
		}}, nil
}
