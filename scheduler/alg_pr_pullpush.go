package scheduler

// PageRank's pull-then-push form, for SIMD-X.

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// PageRankPullPushFraction sets SIMD-X's PageRank threshold: a vertex is in
// the frontier while its residual's magnitude is at least this fraction of
// the teleport term (1-d)/n. At the end every unnormalised rank is within
// this fraction of the leaky system's solution (residuals are signed: the
// bound is on (I - dP^T)^-1 |r|), and their sum too; normalising can add
// the two, so each rank ends within twice the fraction of graph/ref's,
// under its 1e-3 check with room for float32.
const PageRankPullPushFraction = 3e-4

// setupPageRankPullPush is SIMD-X's pull-then-push PageRank
// (kernels/pr.cu, pr_pullpush_acc): residual form from the uniform guess.
func setupPageRankPullPush(g *graph.Graph, _ Params) (*Problem, error) {
	n := g.NumVertices()
	const d = 0.85
	ranks, residual, words := make([]float32, n), make([]float32, n), make([]float32, 4*n)
	for v := range n {
		ranks[v] = 1 / float32(n)
		if deg := g.OutDegree(uint32(v)); deg > 0 {
			words[v] = float32(d / float64(deg))
			words[2*n+v] = words[v] / float32(n) // carry 1: the start's
		}
	}
	eps := float32(PageRankPullPushFraction * (1 - d) / float64(n))
	meta := Float32s("rank", ranks)
	return &Problem{Graph: g, MaxIterations: ref.PageRankMaxIterations, ParamF32: eps,
		Meta:   []*Array{meta, Float32s("residual", residual), Float32s("shares, carries and admissions", words), Float64s("rank sum", []float64{0})},
		Finish: launchOverVertices("pr_atos_base_normsum", "pr_atos_base_normscale"),
		Values: func() Values { return floatValues("rank", "", meta.Float32s()) },
		Notes: []string{fmt.Sprintf("float32 residual form from x = 1/n, pulling then pushing; a vertex is active while |residual| >= %g of (1-d)/n = %.3g; ranks normalised to sum 1 at the end",
			PageRankPullPushFraction, eps)},
		Check: func(iterations int) (ref.Report, []Field) {
			return ref.ValidatePageRank(g, meta.Float32s()), []Field{figure("iterations", "iterations", float64(iterations), fmt.Sprint(iterations))}
		}}, nil
}
