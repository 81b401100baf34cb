package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// k-core membership (kernels/kcore.cu) by peeling: a vertex is in the
// k-core when it keeps at least k neighbours (self-loops ignored) after
// every vertex with fewer has left.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "kcore", About: "k-core membership by peeling (--k)", Kernel: "kcore",
		Combine: Voting, Setup: setupKCore})
}

func setupKCore(g *graph.Graph, o Options) (*Problem, error) {
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	degree := make([]uint32, sym.NumVertices())
	for v := range degree {
		for _, u := range sym.Neighbors(uint32(v)) {
			if u != uint32(v) {
				degree[v]++
			}
		}
	}
	meta := Uint32s("degree", degree)
	return &Problem{Graph: sym, Meta: []*Array{meta}, ParamU32: o.K, MaxIterations: g.NumVertices() + 1, Notes: notes,
		Values: func() Values {
			in := make([]uint32, len(degree))
			for v, d := range meta.Uint32s() {
				if d >= o.K {
					in[v] = 1
				}
			}
			return uint32Values("member", fmt.Sprintf("1: in the %d-core", o.K), in)
		},
		Check: func(int) (ref.Report, []Field) {
			members, size := make([]bool, len(degree)), 0
			for v, d := range meta.Uint32s() {
				members[v] = d >= o.K
				if members[v] {
					size++
				}
			}
			return ref.ValidateKCoreMembers(sym, o.K, members), []Field{figure("core_size", fmt.Sprintf("%d-core size", o.K), float64(size), fmt.Sprintf("%d vertices", size))}
		}}, nil
}
