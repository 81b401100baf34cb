package scheduler

import (
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// BFS (kernels/bfs.cu): depth[v], the number of edges on a shortest path
// from the source.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "bfs", About: "breadth-first search depths", Kernel: "bfs",
		Params: []Param{sourceVertex}, Combine: Voting, Gathers: true, Pullable: true,
		Setups: map[Form]Setup{ACC: setupBFS}, CPU: cpuBFS,
		Partition: &PartitionedForm{}})
}

func cpuBFS(g *graph.Graph, p Params) CPUResult {
	source := p.Uint32(SourceParam)
	d := ref.BFS(g, source)
	return CPUResult{Validation: ref.CertifyBFS(g, source, d), Method: "certificate", Checked: true,
		Summary: reachSummary(d, ref.Unreached, "max depth"), Values: traversalValues("depth", "4294967295: unreached", d, ref.Unreached)}
}

func setupBFS(g *graph.Graph, params Params) (*Problem, error) {
	source := params.Uint32(SourceParam)
	depth := filled(g.NumVertices(), ref.Unreached)
	depth[source] = 0
	meta := Uint32s("depth", depth)
	return &Problem{Graph: g, Meta: []*Array{meta}, Start: []uint32{source}, MaxIterations: g.NumVertices() + 1,
		Values: func() Values { return traversalValues("depth", "4294967295: unreached", meta.Uint32s(), ref.Unreached) },
		Work:   func() (float64, string) { return reachedEdges(g, meta.Uint32s(), ref.Unreached) },
		Check: func(int) (ref.Report, []Field) {
			d := meta.Uint32s()
			return ref.ValidateBFS(g, source, d), reachSummary(d, ref.Unreached, "max depth")
		}}, nil
}
