package experiments

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// TestSimhwScalePlan: simhw-scale plans every registered cell on its eight
// graphs, whose specs parse, and refuses a graph it does not have.
func TestSimhwScalePlan(t *testing.T) {
	e, err := Default.Lookup("simhw-scale")
	require.NoError(t, err)
	points := e.Points(TargetHW, "h100")
	assert.Len(t, points, len(simhwScaleGraphs)*len(scheduler.Entries()))
	for _, g := range simhwScaleGraphs {
		_, err := graph.ParseSpec(g.spec)
		require.NoError(t, err, g.spec)
	}
	_, err = e.Run(context.Background(), nil, Point{Axes: []Value{{Name: "graph", Value: "rmat99"}, {Name: "algorithm", Value: "bfs"}, {Name: "variant", Value: "bsp"}}})
	require.ErrorContains(t, err, `simhw-scale: unknown graph "rmat99"`)
}

// TestGraphCacheLoadsEachSpecOnce: whole-run points share a graph while
// its spec is among the last used, and load it again once evicted.
func TestGraphCacheLoadsEachSpecOnce(t *testing.T) {
	c := graphCache{keep: 2}
	load := func(spec string) *graph.Graph {
		parsed, err := graph.ParseSpec(spec)
		require.NoError(t, err)
		g, err := c.load(parsed)
		require.NoError(t, err)
		return g
	}
	a := load("rmat:scale=6")
	assert.Same(t, a, load("rmat:scale=6"))
	b := load("grid:w=4,h=4")
	assert.Same(t, a, load("rmat:scale=6"), "two specs fit")
	load("grid:w=5,h=5") // evicts grid:w=4,h=4, the least recently used
	assert.Same(t, a, load("rmat:scale=6"))
	assert.NotSame(t, b, load("grid:w=4,h=4"))
	_, err := c.load(graph.Spec{})
	assert.Error(t, err)
}

// TestSourceParamAuto: a source parameter "auto" (simhw-scale's and
// multigpu's traversal source) is vertex 0 where it has out-edges, else
// the vertex of maximum out-degree; numbers are taken as given, and
// anything else is refused with the values it accepts.
func TestSourceParamAuto(t *testing.T) {
	l := &graph.EdgeList{NumVertices: 4}
	l.Add(1, 2, 0)
	l.Add(1, 3, 0)
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: true})
	require.NoError(t, err)
	source := func(v string) (uint32, error) {
		return sourceParam("multigpu", "source", Point{Params: []Value{{Name: "source", Value: v}}}, g)
	}
	s, err := source("auto")
	require.NoError(t, err)
	assert.Equal(t, uint32(1), s, "vertex 0 is isolated")
	s, err = source("0")
	require.NoError(t, err)
	assert.Equal(t, uint32(0), s, "an explicit vertex is kept")
	_, err = source("first")
	require.ErrorContains(t, err, "neither max, auto nor a vertex")
	l.Add(0, 3, 0)
	g, err = graph.Build(l, graph.BuildOptions{Symmetrize: true})
	require.NoError(t, err)
	s, err = source("auto")
	require.NoError(t, err)
	assert.Equal(t, uint32(0), s)
}
