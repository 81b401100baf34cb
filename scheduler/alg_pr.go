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
		Combine: Aggregation, Setup: setupPageRank})
}

func setupPageRank(g *graph.Graph, o Options) (*Problem, error) {
	switch o.Scheduler {
	case "atos":
		return setupPageRankResidual(g)
	case "simdx":
		return setupPageRankPullPush(g)
	}
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

// PageRankResidualFraction sets the task-parallel PageRank's threshold: a
// vertex is a task while its residual is at least this fraction of the
// teleport term (1-d)/n. The residual r left unpushed at the end changes
// the unnormalised ranks by (I - dP^T)^-1 r, at most this fraction of each
// vertex's own rank (r < fraction x (1-d)/n everywhere), and their sum by
// at most the same fraction; after normalisation each rank is within the
// fraction of graph/ref's, under its 1e-3 check with room for float32.
const PageRankResidualFraction = 8e-4

// setupPageRankResidual is PageRank by residual push (kernels/pr.cu,
// pr_residual_acc) for the task-parallel scheduler.
func setupPageRankResidual(g *graph.Graph) (*Problem, error) {
	n := g.NumVertices()
	const d = 0.85
	ranks, residual, push := make([]float32, n), make([]float32, n), make([]float32, n)
	teleport := float32((1 - d) / float64(n))
	for v := range n {
		residual[v] = teleport
		if deg := g.OutDegree(uint32(v)); deg > 0 {
			push[v] = float32(d / float64(deg))
		}
	}
	eps := float32(PageRankResidualFraction) * teleport
	meta := Float32s("rank", ranks)
	return &Problem{Graph: g, ParamF32: eps,
		Meta:     []*Array{meta, Float32s("residual", residual), Float32s("push share", push), Float64s("rank sum", []float64{0})},
		Finalize: []string{"pr_atos_base_normsum", "pr_atos_base_normscale"},
		Values:   func() Values { return floatValues("rank", "", meta.Float32s()) },
		Notes:    []string{fmt.Sprintf("residual push (asynchronous): a vertex is a task while its residual is at least %g of (1-d)/n = %.3g; ranks normalised to sum 1 at the end", PageRankResidualFraction, eps)},
		Check: func(int) (ref.Report, []Field) {
			return ref.ValidatePageRank(g, meta.Float32s()), nil
		},
		Work: func() (float64, string) {
			return pageRankBSPPushEdges(g, float64(eps)), "edges of bulk-synchronous residual push to the same threshold"
		}}, nil
}

// pageRankBSPPushEdges counts the edges bulk-synchronous residual push
// (Atos's Algorithm 3) walks to the threshold eps: rounds in which every
// vertex whose residual reached eps pushes it all, until none has; the
// baseline of the task-parallel PageRank's overwork.
func pageRankBSPPushEdges(g *graph.Graph, eps float64) float64 {
	n := g.NumVertices()
	const d = 0.85
	residual := make([]float64, n)
	frontier := make([]uint32, 0, n)
	for v := range n {
		residual[v] = (1 - d) / float64(n)
		if residual[v] >= eps {
			frontier = append(frontier, uint32(v))
		}
	}
	inNext := make([]bool, n)
	taken := make([]float64, n)
	edges := 0.0
	for len(frontier) > 0 {
		for _, v := range frontier {
			taken[v], residual[v] = residual[v], 0
		}
		var next []uint32
		for _, v := range frontier {
			nbrs := g.Neighbors(v)
			edges += float64(len(nbrs))
			if len(nbrs) == 0 {
				continue
			}
			share := d * taken[v] / float64(len(nbrs))
			for _, u := range nbrs {
				residual[u] += share
				if residual[u] >= eps && !inNext[u] {
					inNext[u] = true
					next = append(next, u)
				}
			}
		}
		for _, u := range next {
			inNext[u] = false
		}
		frontier = next
	}
	return edges
}

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
func setupPageRankPullPush(g *graph.Graph) (*Problem, error) {
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
	return &Problem{Graph: g, PullThenPush: true, MaxIterations: ref.PageRankMaxIterations, ParamF32: eps,
		Meta:     []*Array{meta, Float32s("residual", residual), Float32s("shares, carries and admissions", words), Float64s("rank sum", []float64{0})},
		Finalize: []string{"pr_atos_base_normsum", "pr_atos_base_normscale"},
		Values:   func() Values { return floatValues("rank", "", meta.Float32s()) },
		Notes: []string{fmt.Sprintf("float32 residual form from x = 1/n, pulling then pushing; a vertex is active while |residual| >= %g of (1-d)/n = %.3g; ranks normalised to sum 1 at the end",
			PageRankPullPushFraction, eps)},
		Check: func(iterations int) (ref.Report, []Field) {
			return ref.ValidatePageRank(g, meta.Float32s()), []Field{figure("iterations", "iterations", float64(iterations), fmt.Sprint(iterations))}
		}}, nil
}
