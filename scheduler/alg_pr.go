package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// PageRankTolerance stops the GPU's sweeps once no vertex's rank changes by
// more than this fraction of itself in a sweep; in float32 that leaves each
// rank well inside graph/ref's 1e-3 per-vertex check of the converged value.
const PageRankTolerance = 1e-5

// PageRank (kernels/pr.cu), damping 0.85, dangling rank spread uniformly,
// as graph/ref defines it, in float32, with in-place (Gauss-Seidel) sweeps.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "pr", About: "PageRank, damping 0.85", Kernel: "pr",
		Combine: Aggregation, Gathers: true, CPU: cpuPageRank,
		Setups: map[Form]Setup{ACC: setupPageRank, PullThenPush: setupPageRankPullPush, Tasks: setupPageRankResidual},
		// The dangling rank's rotating slots (kernels/pr.cu, meta2): sweep i
		// adds into slot i+1 and slot i+2 must be clear for the next.
		Partition: &PartitionedForm{Sums: &SlotSums{Meta: 2, Slots: func(i int) (int, int) { return (i + 1) % 3, (i + 2) % 3 }}}})
}

func cpuPageRank(g *graph.Graph, _ Params) CPUResult {
	ranks, sweeps := ref.PageRank(g)
	best := 0
	for v, x := range ranks {
		if x > ranks[best] {
			best = v
		}
	}
	var sum []Field
	if len(ranks) > 0 {
		sum = []Field{figure("top_vertex", "top vertex", float64(best), fmt.Sprintf("%d (rank %.6g)", best, ranks[best])), figure("top_rank", "top rank", ranks[best], fmt.Sprintf("%.6g", ranks[best]))}
	}
	return CPUResult{Validation: ref.PageRankResidual(g, ranks), Method: "residual", Checked: true, Summary: sum, Iterations: sweeps, Values: floatValues("rank", "", ranks)}
}

// setupPageRank is PageRank's ACC form: pull sweeps.
func setupPageRank(g *graph.Graph, _ Params) (*Problem, error) {
	n := g.NumVertices()
	ranks, share, dangling := make([]float32, n), make([]float32, n), make([]float64, 3)
	for v := range n {
		ranks[v] = 1 / float32(n)
		if d := g.OutDegree(uint32(v)); d > 0 {
			share[v] = 1 / float32(d)
		} else {
			dangling[0] += 1 / float64(n)
		}
	}
	meta := Float32s("rank", ranks)
	return &Problem{Graph: g, Pull: true, MaxIterations: ref.PageRankMaxIterations, ParamF32: PageRankTolerance,
		Values: func() Values { return floatValues("rank", "", meta.Float32s()) },
		Meta:   []*Array{meta, Float32s("share", share), Float64s("dangling", dangling)},
		Notes:  []string{fmt.Sprintf("float32, in-place sweeps; stops when no rank changes by more than %g of itself in a sweep", PageRankTolerance)},
		Check: func(sweeps int) (ref.Report, []Field) {
			return ref.ValidatePageRank(g, meta.Float32s()), []Field{figure("sweeps", "sweeps", float64(sweeps), fmt.Sprint(sweeps))}
		}}, nil
}
