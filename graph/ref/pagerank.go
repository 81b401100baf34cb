package ref

import (
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/internal/parallel"
)

// PageRank's parameters.
const (
	// PageRankDamping is the probability of following an edge rather than
	// jumping to a uniformly random vertex.
	PageRankDamping = 0.85
	// PageRankTolerance stops the iteration once the L1 change of the rank
	// vector in one sweep falls below it.
	PageRankTolerance = 1e-9
	// PageRankMaxIterations bounds the number of sweeps.
	PageRankMaxIterations = 1000
)

// PageRank returns the PageRank of every vertex and the number of sweeps
// performed. Ranks start at 1/n and each synchronous sweep computes, pulling
// over the in-edges of g.Reverse(),
//
//	rank'[v] = (1-d)/n + d * (sum over edges u->v of rank[u]/outdeg(u) + dangling/n)
//
// with d = PageRankDamping, outdeg counting stored edges (a multi-edge
// counts once per copy, a self-loop counts), and dangling = the total rank
// of vertices without out-edges, spread uniformly so that the ranks keep
// summing to 1. It stops after the first sweep whose L1 change
// sum|rank'-rank| is below PageRankTolerance, or after PageRankMaxIterations
// sweeps. An undirected graph is its own reverse, so edges count in both
// directions. The result does not depend on the number of cores.
func PageRank(g *graph.Graph) (ranks []float64, iterations int) {
	n := g.NumVertices()
	if n == 0 {
		return []float64{}, 0
	}
	in := g.Reverse()
	ranks = make([]float64, n)
	next := make([]float64, n)
	// contrib[u] = rank[u]/outdeg(u): computing it once per sweep keeps the
	// pull loop a plain gather.
	contrib := make([]float64, n)
	for v := range ranks {
		ranks[v] = 1 / float64(n)
	}
	chunks := numChunks(n)
	partial := make([]float64, chunks)
	for iterations < PageRankMaxIterations {
		iterations++
		forChunks(n, func(chunk, lo, hi int) {
			var dangling float64
			for u := lo; u < hi; u++ {
				if deg := g.Offsets[u+1] - g.Offsets[u]; deg > 0 {
					contrib[u] = ranks[u] / float64(deg)
				} else {
					contrib[u] = 0
					dangling += ranks[u]
				}
			}
			partial[chunk] = dangling
		})
		base := (1 - PageRankDamping + PageRankDamping*sumInOrder(partial)) / float64(n)
		forChunks(n, func(chunk, lo, hi int) {
			var change float64
			for v := lo; v < hi; v++ {
				var sum float64
				for _, u := range in.Targets[in.Offsets[v]:in.Offsets[v+1]] {
					sum += contrib[u]
				}
				r := base + PageRankDamping*sum
				change += math.Abs(r - ranks[v])
				next[v] = r
			}
			partial[chunk] = change
		})
		ranks, next = next, ranks
		if sumInOrder(partial) < PageRankTolerance {
			break
		}
	}
	return ranks, iterations
}

// chunkSize is the number of vertices one goroutine handles at a time. The
// chunking is fixed, and per-chunk partial sums are added in chunk order, so
// results are bit-identical on any number of cores.
const chunkSize = 1 << 14

func numChunks(n int) int { return (n + chunkSize - 1) / chunkSize }

// forChunks calls body for every chunk of [0, n), spread over GOMAXPROCS
// goroutines.
func forChunks(n int, body func(chunk, lo, hi int)) {
	parallel.Chunks(numChunks(n), func(c int) {
		body(c, c*chunkSize, min(n, (c+1)*chunkSize))
	})
}

func sumInOrder(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
