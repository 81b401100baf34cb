package ref

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// edge is a hand-written test edge; w is ignored by unweighted builders.
type edge struct{ u, v, w uint32 }

// buildGraph builds an unweighted graph; undirected graphs store every
// edge in both directions.
func buildGraph(t testing.TB, n int, directed bool, edges ...edge) *graph.Graph {
	t.Helper()
	l := &graph.EdgeList{NumVertices: n}
	for _, e := range edges {
		l.Add(e.u, e.v, 0)
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: !directed})
	require.NoError(t, err)
	return g
}

// buildWeighted builds a weighted graph from edges with their w.
func buildWeighted(t testing.TB, n int, directed bool, edges ...edge) *graph.Graph {
	t.Helper()
	l := &graph.EdgeList{NumVertices: n, Weights: []uint32{}}
	for _, e := range edges {
		l.Add(e.u, e.v, e.w)
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: !directed})
	require.NoError(t, err)
	return g
}

// randomGraph builds a seeded random graph with n vertices and m edge
// draws (duplicates and self-loops included), weights in [1, maxWeight]
// when maxWeight > 0. A few hub vertices attract a third of the edges so
// degrees are skewed as in R-MAT.
func randomGraph(t testing.TB, seed uint64, n, m int, directed bool, maxWeight uint32) *graph.Graph {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	l := &graph.EdgeList{NumVertices: n}
	if maxWeight > 0 {
		l.Weights = []uint32{}
	}
	hubs := max(1, n/50)
	pick := func() uint32 {
		if rng.IntN(3) == 0 {
			return uint32(rng.IntN(hubs))
		}
		return uint32(rng.IntN(n))
	}
	for i := 0; i < m; i++ {
		var w uint32
		if maxWeight > 0 {
			w = 1 + rng.Uint32N(maxWeight)
		}
		l.Add(pick(), pick(), w)
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: !directed})
	require.NoError(t, err)
	require.NoError(t, g.Validate())
	return g
}

// randomGraphs is the property-test corpus: small and medium, sparse and
// dense, directed and undirected, with and without weights.
func randomGraphs(t testing.TB) map[string]*graph.Graph {
	t.Helper()
	return map[string]*graph.Graph{
		"tiny directed":         randomGraph(t, 1, 8, 12, true, 0),
		"sparse directed":       randomGraph(t, 2, 300, 400, true, 0),
		"dense directed":        randomGraph(t, 3, 200, 3000, true, 0),
		"sparse undirected":     randomGraph(t, 4, 300, 350, false, 0),
		"dense undirected":      randomGraph(t, 5, 200, 2500, false, 0),
		"weighted directed":     randomGraph(t, 6, 400, 2000, true, 100),
		"weighted undirected":   randomGraph(t, 7, 400, 1500, false, 1000),
		"heavy weights":         randomGraph(t, 8, 100, 600, true, 1<<30),
		"weight one undirected": randomGraph(t, 9, 150, 400, false, 1),
	}
}

// undirectedNeighbours lists every neighbour of v ignoring direction, with
// multiplicity and without self-loops.
func undirectedNeighbours(g *graph.Graph, v uint32) []uint32 {
	var out []uint32
	for _, u := range g.Neighbors(v) {
		if u != v {
			out = append(out, u)
		}
	}
	if g.Directed {
		for _, u := range g.Reverse().Neighbors(v) {
			if u != v {
				out = append(out, u)
			}
		}
	}
	return out
}
