package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGreedyColoring(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		want     []uint32
	}{
		{"isolated vertices share colour 0", 3, false, nil, []uint32{0, 0, 0}},
		{"path alternates", 4, false, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}}, []uint32{0, 1, 0, 1}},
		{"triangle needs three", 3, false, clique(0, 3), []uint32{0, 1, 2}},
		{"star: centre first", 4, false, []edge{{0, 1, 0}, {0, 2, 0}, {0, 3, 0}}, []uint32{0, 1, 1, 1}},
		{"star: centre last", 4, false, []edge{{3, 0, 0}, {3, 1, 0}, {3, 2, 0}}, []uint32{0, 0, 0, 1}},
		{"in-edges count for directed graphs", 2, true, []edge{{1, 0, 0}}, []uint32{0, 1}},
		{"self-loop is ignored", 2, true, []edge{{0, 0, 0}, {1, 1, 0}}, []uint32{0, 0}},
		{"triangle 0-1-3 forces a third colour", 4, false, []edge{{0, 3, 0}, {1, 2, 0}, {0, 1, 0}, {2, 3, 0}, {1, 3, 0}}, []uint32{0, 1, 0, 2}},
		// First fit in id order is not optimal: this crown graph (a_i = 2i,
		// b_i = 2i+1, a_i-b_j for i != j) is bipartite yet gets 3 colours.
		{"crown graph gets three colours", 6, false, []edge{{0, 3, 0}, {0, 5, 0}, {2, 1, 0}, {2, 5, 0}, {4, 1, 0}, {4, 3, 0}}, []uint32{0, 0, 1, 1, 2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			colors := GreedyColoring(g)
			assert.Equal(t, tc.want, colors)
			assert.NoError(t, CheckColoring(g, colors))
		})
	}
}

func TestGreedyColoringIsValidAndBounded(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			colors := GreedyColoring(g)
			require.NoError(t, CheckColoring(g, colors))
			for v, c := range colors {
				// First fit never exceeds the number of earlier neighbours.
				assert.LessOrEqual(t, int(c), len(undirectedNeighbours(g, uint32(v))), "vertex %d", v)
			}
		})
	}
}

func TestCheckColoring(t *testing.T) {
	undirected := buildGraph(t, 4, false, edge{0, 1, 0}, edge{1, 2, 0}, edge{2, 3, 0}, edge{3, 3, 0})
	directed := buildGraph(t, 3, true, edge{2, 0, 0}, edge{0, 1, 0})
	tests := []struct {
		name       string
		directed   bool
		colors     []uint32
		wantErr    []string // substrings of the error; nil for a valid colouring
		mismatches int
	}{
		{"valid with sparse colour values", false, []uint32{7, 1000000, 7, 4000000000}, nil, 0},
		{"self-loop does not conflict", false, []uint32{0, 1, 0, 1}, nil, 0},
		{"one conflict names both ends once", false, []uint32{0, 1, 1, 0}, []string{"vertex 1", "neighbour 2", "2 colours"}, 1},
		{"all equal", false, []uint32{5, 5, 5, 5}, []string{"vertex 0", "vertex 1", "vertex 2", "1 colours"}, 3},
		{"uncoloured vertex", false, []uint32{0, 1, Uncolored, 1}, []string{"vertex 2", "uncoloured"}, 1},
		{"wrong length", false, []uint32{0, 1}, []string{"2 colours for a graph of 4 vertices"}, 0},
		{"directed conflict along an in-edge", true, []uint32{3, 1, 3}, []string{"vertex 2", "neighbour 0"}, 1},
		{"directed valid", true, []uint32{0, 1, 1}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := undirected
			if tc.directed {
				g = directed
			}
			err := CheckColoring(g, tc.colors)
			if tc.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, s := range tc.wantErr {
				assert.Contains(t, err.Error(), s)
			}
			assert.Equal(t, tc.mismatches, ValidateColoring(g, tc.colors).Mismatches)
		})
	}
}
