package graph

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edge is one stored edge, for comparing graphs as edge sets.
type edge struct{ u, v, w uint32 }

func edgesOf(g *Graph) []edge {
	var es []edge
	for u := 0; u < g.NumVertices(); u++ {
		for i, v := range g.Neighbors(uint32(u)) {
			var w uint32
			if g.Weights != nil {
				w = g.EdgeWeights(uint32(u))[i]
			}
			es = append(es, edge{uint32(u), v, w})
		}
	}
	return es
}

// fromEdges builds a graph keeping the edges exactly as given.
func fromEdges(t *testing.T, n int, directed, weighted bool, es ...edge) *Graph {
	t.Helper()
	l := &EdgeList{NumVertices: n}
	if weighted {
		l.Weights = []uint32{}
	}
	for _, e := range es {
		l.Add(e.u, e.v, e.w)
	}
	g, err := Build(l, BuildOptions{})
	require.NoError(t, err)
	g.Directed = directed
	return g
}

func TestSymmetrize(t *testing.T) {
	tests := []struct {
		name string
		in   []edge
		want []edge
	}{
		{"one edge", []edge{{0, 1, 5}}, []edge{{0, 1, 5}, {1, 0, 5}}},
		{"both directions keep the lower source's weight",
			[]edge{{2, 0, 9}, {0, 2, 4}}, []edge{{0, 2, 4}, {2, 0, 4}}},
		{"parallel edges merge, first weight wins",
			[]edge{{0, 1, 3}, {0, 1, 8}}, []edge{{0, 1, 3}, {1, 0, 3}}},
		{"self-loop stays single", []edge{{1, 1, 2}, {1, 2, 6}}, []edge{{1, 1, 2}, {1, 2, 6}, {2, 1, 6}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := fromEdges(t, 3, true, true, tc.in...)
			before := edgesOf(g)
			out, err := Symmetrize(g)
			require.NoError(t, err)
			assert.False(t, out.Directed)
			assert.Equal(t, tc.want, edgesOf(out))
			assert.Equal(t, before, edgesOf(g), "input modified")
		})
	}
	t.Run("undirected input comes back", func(t *testing.T) {
		g := generate(t, "grid:w=4,h=3")
		out, err := Symmetrize(g)
		require.NoError(t, err)
		assert.Equal(t, digest(g), digest(out))
	})
}

func TestRemoveSelfLoopsAndDuplicates(t *testing.T) {
	tests := []struct {
		name     string
		weighted bool
		in, want []edge
	}{
		{"loops go", false, []edge{{0, 0, 0}, {0, 1, 0}, {2, 2, 0}}, []edge{{0, 1, 0}}},
		{"first duplicate keeps its weight", true,
			[]edge{{1, 2, 7}, {1, 0, 1}, {1, 2, 3}, {1, 2, 9}}, []edge{{1, 0, 1}, {1, 2, 7}}},
		{"already simple", true, []edge{{0, 2, 1}, {2, 1, 4}}, []edge{{0, 2, 1}, {2, 1, 4}}},
		{"empty", false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := fromEdges(t, 3, true, tc.weighted, tc.in...)
			before := edgesOf(g)
			out := RemoveSelfLoopsAndDuplicates(g)
			require.NoError(t, out.Validate())
			assert.Equal(t, tc.want, edgesOf(out))
			assert.Equal(t, tc.weighted, out.Weighted())
			assert.Equal(t, before, edgesOf(g), "input modified")
		})
	}
}

func TestRandomWeights(t *testing.T) {
	g := generate(t, "er:n=200,m=1500,w=none")
	a, err := RandomWeights(g, 10, 20, 5)
	require.NoError(t, err)
	b, err := RandomWeights(g, 10, 20, 5)
	require.NoError(t, err)
	c, err := RandomWeights(g, 10, 20, 6)
	require.NoError(t, err)
	assert.Equal(t, digest(a), digest(b))
	assert.NotEqual(t, digest(a), digest(c))
	checkSymmetric(t, a)
	for _, w := range a.Weights {
		require.True(t, w >= 10 && w <= 20, "weight %d", w)
	}
	assert.Nil(t, g.Weights, "input modified")

	// Directed: the two directions draw independently.
	d, err := RandomWeights(generate(t, "grid:w=30,h=30,directed=1,w=none"), 1, 1000, 1)
	require.NoError(t, err)
	differ := 0
	for u := 0; u < d.NumVertices(); u++ {
		for i, v := range d.Neighbors(uint32(u)) {
			if d.EdgeWeights(uint32(u))[i] != d.EdgeWeights(v)[indexOf(d.Neighbors(v), uint32(u))] {
				differ++
			}
		}
	}
	assert.Greater(t, differ, d.NumEdges()/2)

	for _, r := range [][2]uint32{{0, 5}, {6, 5}} {
		_, err := RandomWeights(g, r[0], r[1], 1)
		assert.Error(t, err, "range %v", r)
	}
}

func TestDropWeights(t *testing.T) {
	g := generate(t, "grid:w=3,h=3")
	out := DropWeights(g)
	assert.Nil(t, out.Weights)
	assert.NotNil(t, g.Weights, "input modified")
	assert.Equal(t, g.Targets, out.Targets)
	assert.Equal(t, g.Directed, out.Directed)
}

func TestPermuteIDs(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9", "grid:w=12,h=7,directed=1", "er:n=100,m=300,directed=1,w=none"} {
		t.Run(spec, func(t *testing.T) {
			g := generate(t, spec)
			out, perm := PermuteIDs(g, 11)
			require.NoError(t, out.Validate())
			checkSimple(t, out)

			// perm is a permutation, and not the identity.
			sorted := slices.Clone(perm)
			slices.Sort(sorted)
			for i, x := range sorted {
				require.Equal(t, uint32(i), x)
			}
			moved := 0
			for i, x := range perm {
				if uint32(i) != x {
					moved++
				}
			}
			assert.Greater(t, moved, len(perm)/2)

			// Same structure under renaming: degrees and every edge with its weight.
			for v := 0; v < g.NumVertices(); v++ {
				require.Equal(t, g.OutDegree(uint32(v)), out.OutDegree(perm[v]))
			}
			assertRenamed(t, g, out, perm)
			assert.Equal(t, ComputeStats(g).DegreeHistogram, ComputeStats(out).DegreeHistogram)

			again, perm2 := PermuteIDs(g, 11)
			assert.Equal(t, digest(out), digest(again))
			assert.Equal(t, perm, perm2)
			other, _ := PermuteIDs(g, 12)
			assert.NotEqual(t, digest(out), digest(other))
		})
	}
}

func TestDegreeOrder(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9+perm=3", "grid:w=12,h=7,directed=1", "er:n=100,m=300,directed=1"} {
		t.Run(spec, func(t *testing.T) {
			g := generate(t, spec)
			out, order := DegreeOrder(g)
			require.NoError(t, out.Validate())
			checkSimple(t, out)

			// Out-degrees fall with the new id, ties keep the old ids' order.
			byNew := make([]uint32, len(order))
			for v, x := range order {
				byNew[x] = uint32(v)
			}
			for i := 1; i < out.NumVertices(); i++ {
				a, b := out.OutDegree(uint32(i-1)), out.OutDegree(uint32(i))
				require.GreaterOrEqual(t, a, b, "vertex %d", i)
				if a == b {
					require.Less(t, byNew[i-1], byNew[i], "tie at %d", i)
				}
			}
			assertRenamed(t, g, out, order)

			via, err := Transform{Op: OpDegreeOrder}.Apply(g)
			require.NoError(t, err)
			assert.Equal(t, digest(out), digest(via))
		})
	}
}

// assertRenamed checks that out is g with vertex v renamed to perm[v]:
// every edge, with its weight, and the direction flag.
func assertRenamed(t *testing.T, g, out *Graph, perm []uint32) {
	t.Helper()
	var renamed []edge
	for _, e := range edgesOf(g) {
		renamed = append(renamed, edge{perm[e.u], perm[e.v], e.w})
	}
	sortEdges(renamed)
	assert.Equal(t, renamed, edgesOf(out))
	assert.Equal(t, g.Directed, out.Directed)
}

func sortEdges(es []edge) {
	slices.SortFunc(es, func(a, b edge) int {
		if a.u != b.u {
			return int(a.u) - int(b.u)
		}
		return int(a.v) - int(b.v)
	})
}

func TestTransformStringAndApply(t *testing.T) {
	g := generate(t, "rmat:scale=6,directed=1,w=none")
	tests := []struct {
		t        Transform
		str      string
		directed bool
		weighted bool
	}{
		{Transform{Op: OpSymmetrize}, "sym", false, false},
		{Transform{Op: OpSimple}, "simple", true, false},
		{Transform{Op: OpRandomWeights, Seed: 4}, "rw=4", true, true},
		{Transform{Op: OpUnweighted}, "unweighted", true, false},
		{Transform{Op: OpPermute, Seed: 9}, "perm=9", true, false},
		{Transform{Op: OpDegreeOrder}, "degsort", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.str, func(t *testing.T) {
			assert.Equal(t, tc.str, tc.t.String())
			out, err := tc.t.Apply(g)
			require.NoError(t, err)
			assert.Equal(t, tc.directed, out.Directed)
			assert.Equal(t, tc.weighted, out.Weighted())
		})
	}
	_, err := Transform{Op: 99}.Apply(g)
	assert.Error(t, err)
}
