package ref

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPageRank(t *testing.T) {
	const d = PageRankDamping
	// Star with centre 0 and k leaves, undirected: a leaf passes all its
	// rank to the centre, the centre splits its rank k ways, so
	// c = (1-d)/n + d*k*l and l = (1-d)/n + d*c/k.
	const k = 4
	const n = k + 1
	star := func() []float64 {
		// Solve the 2x2 system: c = a + d*k*l, l = a + d*c/k, a = (1-d)/n.
		a := (1 - d) / n
		l := (a + d*a/k) / (1 - d*d)
		c := a + d*k*l
		out := []float64{c}
		for i := 0; i < k; i++ {
			out = append(out, l)
		}
		return out
	}()
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		want     []float64
	}{
		{"single vertex", 1, true, nil, []float64{1}},
		{"isolated vertices share uniformly", 3, true, nil, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}},
		{"directed 2-cycle", 2, true, []edge{{0, 1, 0}, {1, 0, 0}}, []float64{0.5, 0.5}},
		{"directed cycle is uniform", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 0}}, []float64{0.25, 0.25, 0.25, 0.25}},
		// 0->1 with 1 dangling: r0 = (1-d)/2 + d*r1/2 and r0 + r1 = 1, so
		// r0 = 1/(2+d).
		{"dangling vertex spreads its rank", 2, true, []edge{{0, 1, 0}}, []float64{1 / (2 + d), 1 - 1/(2+d)}},
		{"undirected star", n, false, []edge{{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}}, star},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			ranks, iterations := PageRank(g)
			require.Len(t, ranks, tc.n)
			assert.InDeltaSlice(t, tc.want, ranks, 1e-9)
			assert.Less(t, iterations, PageRankMaxIterations)
		})
	}
}

func TestPageRankEmptyGraph(t *testing.T) {
	g := buildGraph(t, 0, true)
	ranks, iterations := PageRank(g)
	assert.Empty(t, ranks)
	assert.Zero(t, iterations)
}

func TestPageRankProperties(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			ranks, iterations := PageRank(g)
			assert.Less(t, iterations, PageRankMaxIterations)
			var sum float64
			for v, r := range ranks {
				assert.GreaterOrEqual(t, r, (1-PageRankDamping)/float64(g.NumVertices())*(1-1e-12), "vertex %d", v)
				sum += r
			}
			assert.InDelta(t, 1, sum, 1e-12)
			// A converged vector is a fixpoint: one more sweep, computed
			// here by pushing along out-edges, moves it by less than the
			// stopping tolerance allows.
			n := float64(g.NumVertices())
			next := make([]float64, g.NumVertices())
			var dangling float64
			for u := 0; u < g.NumVertices(); u++ {
				deg := g.OutDegree(uint32(u))
				if deg == 0 {
					dangling += ranks[u]
				}
				for _, v := range g.Neighbors(uint32(u)) {
					next[v] += PageRankDamping * ranks[u] / float64(deg)
				}
			}
			var change float64
			for v := range next {
				next[v] += (1 - PageRankDamping + PageRankDamping*dangling) / n
				change += math.Abs(next[v] - ranks[v])
			}
			assert.Less(t, change, 10*PageRankTolerance)
		})
	}
}

func TestPageRankDoesNotDependOnCores(t *testing.T) {
	// More vertices than one chunk, so the parallel path runs.
	g := randomGraph(t, 21, 3*chunkSize+17, 6*chunkSize, true, 0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	serial, serialSweeps := PageRank(g)
	runtime.GOMAXPROCS(4)
	parallel, parallelSweeps := PageRank(g)
	assert.Equal(t, serialSweeps, parallelSweeps)
	assert.Equal(t, serial, parallel, "ranks must be bit-identical")
}
