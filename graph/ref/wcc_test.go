package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

func TestWCC(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		want     []uint32
	}{
		{"isolated vertices", 3, true, nil, []uint32{0, 1, 2}},
		{"direction is ignored", 3, true, []edge{{0, 1, 0}, {2, 1, 0}}, []uint32{0, 0, 0}},
		{"edge into the smaller id", 4, true, []edge{{3, 1, 0}, {2, 3, 0}}, []uint32{0, 1, 1, 1}},
		{"undirected parts", 6, false, []edge{{5, 4, 0}, {1, 2, 0}, {3, 5, 0}}, []uint32{0, 1, 1, 3, 3, 3}},
		{"cycle", 4, true, []edge{{1, 2, 0}, {2, 3, 0}, {3, 1, 0}}, []uint32{0, 1, 1, 1}},
		{"self-loop only", 2, true, []edge{{1, 1, 0}}, []uint32{0, 1}},
		{"long chain joined at the end", 5, true, []edge{{4, 3, 0}, {3, 2, 0}, {2, 1, 0}, {1, 0, 0}}, []uint32{0, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			assert.Equal(t, tc.want, WCC(g))
		})
	}
}

func TestWCCProperties(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			labels := WCC(g)
			for u := uint32(0); int(u) < g.NumVertices(); u++ {
				assert.LessOrEqual(t, labels[u], u)
				assert.Equal(t, labels[u], labels[labels[u]], "a label is the id of a vertex in its own component")
				for _, v := range g.Neighbors(u) {
					assert.Equal(t, labels[u], labels[v], "edge %d->%d crosses components", u, v)
				}
			}
			// Components counted by undirected search agree.
			assert.Equal(t, countComponentsBySearch(g), countDistinct(labels))
		})
	}
}

func countComponentsBySearch(g *graph.Graph) int {
	seen := make([]bool, g.NumVertices())
	components := 0
	for s := 0; s < g.NumVertices(); s++ {
		if seen[s] {
			continue
		}
		components++
		stack := []uint32{uint32(s)}
		seen[s] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range undirectedNeighbours(g, u) {
				if !seen[v] {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
	}
	return components
}

func countDistinct(xs []uint32) int {
	set := map[uint32]bool{}
	for _, x := range xs {
		set[x] = true
	}
	return len(set)
}

func TestWCCOfEmptyGraph(t *testing.T) {
	g := buildGraph(t, 0, false)
	require.Empty(t, WCC(g))
}
