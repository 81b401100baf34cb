package scheduler

// PageRank's residual-push form, for the task-parallel scheduler (Atos).

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

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
