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
		Params: []Param{sourceVertex}, Combine: Voting, Gathers: true, Setups: map[Form]Setup{ACC: setupSSWP}, CPU: cpuSSWP,
		Partition: &PartitionedForm{}})
}

func cpuSSWP(g *graph.Graph, p Params) CPUResult {
	source := p.Uint32(SourceParam)
	w := ref.SSWP(g, source)
	return CPUResult{Validation: ref.CertifySSWP(g, source, w), Method: "certificate", Checked: true,
		Summary: reachSummary(w, 0, "widest width"), Values: traversalValues("width", "0: unreached; 4294967295: the source", w, 0)}
}

func setupSSWP(g *graph.Graph, params Params) (*Problem, error) {
	source := params.Uint32(SourceParam)
	width := make([]uint32, g.NumVertices())
	width[source] = math.MaxUint32
	meta := Uint32s("width", width)
	return &Problem{Graph: g, Meta: []*Array{meta}, Start: []uint32{source}, MaxIterations: g.NumVertices() + 1,
		Values: func() Values {
			return traversalValues("width", "0: unreached; 4294967295: the source", meta.Uint32s(), 0)
		},
		Work: func() (float64, string) { return reachedEdges(g, meta.Uint32s(), 0) },
		Check: func(int) (ref.Report, []Field) {
			w := meta.Uint32s()
			return ref.ValidateSSWP(g, source, w), reachSummary(w, 0, "widest width")
		}}, nil
}
