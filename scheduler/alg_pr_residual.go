package scheduler

// PageRank's residual-push form, for the task-parallel scheduler (Atos).

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// setupPageRankResidual is PageRank by asynchronous residual push
// (kernels/pr.cu, pr_residual_acc) for the task-parallel scheduler, with
// the pull-then-push form's state and threshold (PageRankPullPushFraction).
// A prelude of bulk pulls runs while the vertices left active hold more
// than the pull fraction of the out-edges (the first pull computes the
// start's signed residuals from x = 1/n); the queue then starts with the
// vertices the last pull left active, and the workers push residuals
// asynchronously until none reaches eps.
func setupPageRankResidual(g *graph.Graph, params Params) (*Problem, error) {
	p, err := setupPageRankPullPush(g, params)
	if err != nil {
		return nil, err
	}
	eps := float64(p.ParamF32)
	p.Start = []uint32{} // the prelude queues the first tasks
	words := p.Meta[2]
	words.init = append(words.init, make([]byte, 4*g.NumVertices())...) // the ranks' low parts, 0
	p.Finish = launchOverVertices("pr_atos_base_fold", "pr_atos_base_normsum", "pr_atos_base_normscale")
	p.Tasks.Prelude = pageRankPulls()
	p.Notes = []string{fmt.Sprintf("residual form from x = 1/n: bulk pulls while the active vertices' out-edges exceed the pull fraction, then asynchronous residual push from the vertices left active; a vertex is a task while |residual| >= %g of (1-d)/n = %.3g; ranks normalised to sum 1 at the end",
		PageRankPullPushFraction, eps)}
	p.Work = func() (float64, string) {
		return pageRankBSPPushEdges(g, eps), "edges of bulk-synchronous residual push from the same start to the same threshold"
	}
	p.Tasks.AcrossDevices = pageRankResidualAcross
	return p, nil
}

// pageRankResidualAcross is the residual push across GPUs: the prelude's
// pulls run on every device over its own vertices, the carries each pull
// writes sent to every other device before the next, and the workers
// start from the vertices the last pull left active; the finishing pass
// folds the low parts and sums the ranks on every device (each copy's
// ranks of other devices' vertices start at 0), totals the sums, and
// scales.
func pageRankResidualAcross(p *Problem) *TasksAcross {
	n := p.Graph.NumVertices()
	p.Tasks.Prelude, p.Finish = nil, nil
	p.Notes = []string{fmt.Sprintf("residual form across GPUs from x = 1/n: bulk pulls (each device its own vertices, the carries exchanged after each) while the active vertices' out-edges exceed the pull fraction, then asynchronous residual push from the vertices left active; a vertex is a task while |residual| >= %g of (1-d)/n = %.3g; ranks normalised to sum 1 at the end",
		PageRankPullPushFraction, p.ParamF32)}
	// pull i writes carry i%2 (kernels/pr.cu, pr_pullpush_acc's meta2)
	carries := func(i int) (int, int) { return 2, n * (1 + i%2) }
	return &TasksAcross{Carries: carries, Finish: &FinishAcross{
		Kernels:    []string{"pr_atos_base_fold", "pr_atos_base_normsum", "pr_atos_base_normscale"},
		TotalAfter: "pr_atos_base_normsum",
		Total:      SlotSums{Meta: 3, Slots: func(int) (int, int) { return 0, -1 }},
	}}
}

// pageRankPulls is the residual form's prelude: the pull-then-push form's
// pulls (its pull entry, pullThenPushEntry, in counting mode, which stamps and counts the
// vertices left active and their out-edges) over in-edges classified by
// in-degree once, untimed. It pulls while the active out-edges exceed
// the variant's pull fraction of the edges, one read-back per pull, and hands the
// last pull's stamps to the scheduler, which queues the stamped vertices.
func pageRankPulls() *Prelude {
	var lists, lens, stamps, counts kernels.DevPtr
	return &Prelude{
		Prepare: func(e *Enactment) error {
			if _, err := e.inEdges(); err != nil {
				return err
			}
			in := e.Problem.Graph
			if in.Directed {
				in = in.Reverse()
			}
			l, c := classify(in, listTuningOf(e.Variant))
			lists, lens = e.Buffers.Copy(l, "prelude pull lists"), e.Buffers.Copy(c[:], "prelude pull list lengths")
			stamps, counts = e.Buffers.Uint32s(in.NumVertices(), "prelude pull stamps"), e.Buffers.Uint32s(lenWords, "prelude pull counts")
			return e.Buffers.Err()
		},
		Run: func(e *Enactment) (PreludeFrontier, error) {
			k, err := pullThenPushEntry(e.Algorithm, "pull")
			if err != nil {
				return PreludeFrontier{}, err
			}
			in, err := e.inEdges()
			if err != nil {
				return PreludeFrontier{}, err
			}
			grid, err := CoResidentGrid(e.Dev, k, e.Options.Block, 0)
			if err != nil {
				return PreludeFrontier{}, err
			}
			g, t := e.Problem.Graph, listTuningOf(e.Variant)
			n := g.NumVertices()
			e.Buffers.Zero(stamps, 4*n, "prelude pull stamps") // stamps of an earlier run must not seed this one
			active := n
			for iteration := 0; ; iteration++ {
				if err := e.iterationLimit(iteration); err != nil {
					return PreludeFrontier{}, err
				}
				stamp := uint32(iteration + 1)
				it := IterationStats{Iteration: iteration, Phases: "pull", Direction: "pull", FrontierIn: active}
				e.Buffers.Zero(counts, 4*lenWords, "prelude pull counts")
				if err := e.Buffers.Err(); err != nil {
					return PreludeFrontier{}, err
				}
				args := countingPullArgs(e.accArgs(in, iteration), e.out.offsets, lists, lens, stamps, counts, stamp, t)
				if err := e.launch(&it, k, grid, args...); err != nil {
					return PreludeFrontier{}, err
				}
				length, err := pullCounts(e, counts)
				if err != nil {
					return PreludeFrontier{}, err
				}
				active = int(length[lenActive])
				it.FrontierOut = active
				e.record(it)
				if active == 0 || pullsDone(e, length) {
					return PreludeFrontier{Stamps: stamps, Stamp: stamp, Active: active, Edges: float64(iteration+1) * float64(g.NumEdges())}, nil
				}
			}
		},
	}
}

// countingPullArgs are the pull-then-push form's pull entry's arguments in
// counting mode (the prelude's pulls, on one device or across devices):
// the ACC arguments acc, the out-edge offsets (to count the active
// vertices' edges), the in-degree lists, and the stamps and counts it
// writes; counting mode writes nothing else, so the lists and bins it
// does not touch get the stamps' buffer.
func countingPullArgs(acc []any, outOffsets, lists, lens, stamps, counts kernels.DevPtr, stamp uint32, t listTuning) []any {
	return append(acc, outOffsets, lists, lens, stamps, counts, stamps, stamps, stamps,
		stamp, uint32(0), uint32(emitCount), uint32(t.MediumFrom), uint32(t.LargeFrom))
}

// pageRankBSPPushEdges counts the edges bulk-synchronous residual push
// (Atos's Algorithm 3) walks to the threshold eps from the residual form's
// start (x = 1/n, its signed residuals computed here on the host): rounds
// in which every vertex whose residual's magnitude reached eps pushes it
// all, until none has; the baseline of the task-parallel PageRank's
// overwork.
func pageRankBSPPushEdges(g *graph.Graph, eps float64) float64 {
	n := g.NumVertices()
	const d = 0.85
	residual := make([]float64, n)
	for v := range n { // r = (1-d)/n - x + d P^T x at x = 1/n
		residual[v] += (1-d)/float64(n) - 1/float64(n)
		if nbrs := g.Neighbors(uint32(v)); len(nbrs) > 0 {
			for _, u := range nbrs {
				residual[u] += d / float64(n) / float64(len(nbrs))
			}
		}
	}
	frontier := make([]uint32, 0, n)
	for v := range n {
		if math.Abs(residual[v]) >= eps {
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
				if math.Abs(residual[u]) >= eps && !inNext[u] {
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
