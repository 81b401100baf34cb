package scheduler

import (
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// BFS (kernels/bfs.cu): depth[v], the number of edges on a shortest path
// from the source.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "bfs", About: "breadth-first search depths", Kernel: "bfs",
		UsesSource: true, Combine: Voting, Pullable: true, Setup: setupBFS})
}

func setupBFS(g *graph.Graph, o Options) (*Problem, error) {
	depth := filled(g.NumVertices(), ref.Unreached)
	depth[o.Source] = 0
	meta := Uint32s("depth", depth)
	return &Problem{Graph: g, Meta: []*Array{meta}, Start: []uint32{o.Source}, MaxIterations: g.NumVertices() + 1,
		Values: func() Values { return uint32Values("depth", "4294967295: unreached", meta.Uint32s()) },
		Work:   func() (float64, string) { return reachedEdges(g, meta.Uint32s(), ref.Unreached) },
		Check: func(int) (ref.Report, []Field) {
			d := meta.Uint32s()
			return ref.ValidateBFS(g, o.Source, d), reachSummary(d, ref.Unreached, "max depth")
		}}, nil
}
