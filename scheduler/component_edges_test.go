package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// ComponentEdges counts the reached vertices' edges as Graph500 does: each
// undirected edge once, a self-loop once, a directed graph's arcs as they
// are; only a traversal's values have them.
func TestComponentEdges(t *testing.T) {
	l := &graph.EdgeList{NumVertices: 5}
	for _, e := range [][2]uint32{{0, 1}, {1, 2}, {2, 2}, {3, 4}} {
		l.Add(e[0], e[1], 1)
	}
	sym, err := graph.Build(l, graph.BuildOptions{Symmetrize: true})
	require.NoError(t, err)
	const none = 4294967295
	edges, ok := ComponentEdges(sym, traversalValues("depth", "", []uint32{0, 1, 2, none, none}, none))
	require.True(t, ok)
	assert.Equal(t, 3.0, edges, "0-1, 1-2 and the loop at 2")

	dir, err := graph.Build(l, graph.BuildOptions{})
	require.NoError(t, err)
	dir.Directed = true
	edges, ok = ComponentEdges(dir, traversalValues("width", "", []uint32{7, 0, 0, 5, 0}, 0))
	require.True(t, ok)
	assert.Equal(t, 2.0, edges, "the arcs out of 0 and 3")

	_, ok = ComponentEdges(sym, uint32Values("colour", "", make([]uint32, 5)))
	assert.False(t, ok, "not a traversal")
	_, ok = ComponentEdges(sym, traversalValues("depth", "", make([]uint32, 4), none))
	assert.False(t, ok, "values of another graph")
}
