package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// WCC (kernels/wcc.cu): label[v], the smallest vertex id of v's weakly
// connected component, by minimum-label propagation (the ACC form) or as
// a forest of parent pointers whose roots are those ids (the Forest form,
// scheduler/forest.go; the labels are the parents, starting at the ids).
func init() {
	RegisterAlgorithm(&Algorithm{Name: "wcc", About: "weakly connected components (minimum label)", Kernel: "wcc",
		Combine: Voting, Gathers: true, Setups: map[Form]Setup{ACC: setupWCC, Forest: setupWCC}, CPU: cpuWCC,
		Partition: &PartitionedForm{}})
}

func cpuWCC(g *graph.Graph, _ Params) CPUResult {
	labels := ref.WCC(g)
	sizes, largest := map[uint32]int{}, 0
	for _, l := range labels {
		sizes[l]++
		largest = max(largest, sizes[l])
	}
	return CPUResult{Validation: ref.CertifyWCC(g, labels), Method: "union-find partition", Checked: true,
		Summary: []Field{figure("components", "components", float64(len(sizes)), fmt.Sprint(len(sizes))), figure("largest_component", "largest component", float64(largest), fmt.Sprintf("%d vertices", largest))},
		Values:  uint32Values("label", "a component's label", labels)}
}

func setupWCC(g *graph.Graph, _ Params) (*Problem, error) {
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
