package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// WCC (kernels/wcc.cu): label[v], the smallest vertex id of v's weakly
// connected component, by minimum-label propagation.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "wcc", About: "weakly connected components (minimum label)", Kernel: "wcc",
		Combine: Voting, Setup: setupWCC})
}

func setupWCC(g *graph.Graph, _ Options) (*Problem, error) {
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	labels := make([]uint32, g.NumVertices())
	for v := range labels {
		labels[v] = uint32(v)
	}
	meta := Uint32s("label", labels)
	return &Problem{Graph: sym, Meta: []*Array{meta}, MaxIterations: g.NumVertices() + 1, Notes: notes,
		Values: func() Values { return uint32Values("label", "the smallest vertex id of the component", meta.Uint32s()) },
		Work:   func() (float64, string) { return float64(sym.NumEdges()), "edges (every vertex starts active)" },
		Check: func(int) (ref.Report, []Field) {
			l := meta.Uint32s()
			components := 0
			for v, x := range l {
				if x == uint32(v) {
					components++
				}
			}
			return ref.ValidateWCC(g, l), []Field{figure("components", "components", float64(components), fmt.Sprint(components))}
		}}, nil
}
