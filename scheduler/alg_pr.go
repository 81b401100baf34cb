package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// PageRankTolerance stops the GPU's sweeps once no vertex's rank changes by
// more than this fraction of itself in a sweep; in float32 that leaves each
// rank within about 1e-4 (relative) of the converged value, inside
// graph/ref's 1e-3 per-vertex check.
const PageRankTolerance = 1e-5

// PageRank (kernels/pr.cu), damping 0.85, dangling rank spread uniformly,
// exactly as graph/ref defines it, in float32.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "pr", About: "PageRank, damping 0.85", Kernel: "pr",
		Combine: Aggregation, Setup: setupPageRank})
}

func setupPageRank(g *graph.Graph, _ Options) (*Problem, error) {
	n := g.NumVertices()
	ranks, share, dangling := make([]float32, 2*n), make([]float32, n), make([]float64, 3)
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
		Meta:  []*Array{meta, Float32s("share", share), Float64s("dangling", dangling)},
		Notes: []string{fmt.Sprintf("float32; stops when no rank changes by more than %g of itself in a sweep", PageRankTolerance)},
		Check: func(sweeps int) (ref.Report, []Field) {
			r := meta.Float32s()[(sweeps&1)*n:][:n]
			return ref.ValidatePageRank(g, r), []Field{{"sweeps", fmt.Sprint(sweeps)}}
		}}, nil
}
