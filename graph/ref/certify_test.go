package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

func certGraph(t *testing.T, n int, directed bool, edges [][3]uint32) *graph.Graph {
	t.Helper()
	l := &graph.EdgeList{NumVertices: n, Weights: []uint32{}}
	for _, e := range edges {
		l.Add(e[0], e[1], e[2])
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: !directed})
	require.NoError(t, err)
	return g
}

func TestCertificatesAcceptTheReferences(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9", "grid:w=20,h=15", "er:n=300,m=900,directed=1"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		require.NoError(t, err)
		src := g.MaxDegreeVertex()
		assert.True(t, CertifyBFS(g, src, BFS(g, src)).OK(), spec)
		d, err := SSSP(g, src)
		require.NoError(t, err)
		assert.True(t, CertifySSSP(g, src, d).OK(), spec)
		assert.True(t, CertifySSWP(g, src, SSWP(g, src)).OK(), spec)
		assert.True(t, CertifyWCC(g, WCC(g)).OK(), spec)
		ranks, _ := PageRank(g)
		rep := PageRankResidual(g, ranks)
		assert.True(t, rep.OK(), "%s: %s", spec, rep)
	}
}

func TestCertificatesRejectWrongValues(t *testing.T) {
	// 0 -1- 1 -1- 2 -5- 3, plus an isolated zero-weight cycle 4 <-> 5.
	g := certGraph(t, 6, true, [][3]uint32{{0, 1, 1}, {1, 2, 1}, {2, 3, 5}, {4, 5, 0}, {5, 4, 0}})
	tests := []struct {
		name   string
		report Report
		vertex uint32
	}{
		{"BFS depth too large", CertifyBFS(g, 0, []uint32{0, 1, 3, 4, Unreached, Unreached}), 2},
		{"BFS depth too small", CertifyBFS(g, 0, []uint32{0, 1, 1, 3, Unreached, Unreached}), 2},
		{"BFS source not zero", CertifyBFS(g, 0, []uint32{1, 1, 2, 3, Unreached, Unreached}), 0},
		{"SSSP not relaxed", CertifySSSP(g, 0, []uint32{0, 1, 2, 8, Unreached, Unreached}), 3},
		// Values on an unreachable zero-weight cycle justify each other
		// edge by edge; only the search from the source exposes them.
		{"SSSP unreachable zero cycle", CertifySSSP(g, 0, []uint32{0, 1, 2, 7, 3, 3}), 4},
		{"SSWP too wide", CertifySSWP(g, 0, []uint32{0xFFFFFFFF, 1, 1, 2, 0, 0}), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.False(t, tc.report.OK())
			require.NotEmpty(t, tc.report.First)
			assert.Equal(t, tc.vertex, tc.report.First[0].Vertex)
			assert.Contains(t, tc.report.Err().Error(), "vertex")
		})
	}
}

func TestCertifyWCCRejectsMergedAndSplitComponents(t *testing.T) {
	g := certGraph(t, 4, false, [][3]uint32{{0, 1, 1}, {2, 3, 1}})
	assert.True(t, CertifyWCC(g, []uint32{0, 0, 2, 2}).OK())
	assert.True(t, CertifyWCC(g, []uint32{7, 7, 9, 9}).OK(), "any labelling of the partition")
	split := CertifyWCC(g, []uint32{0, 1, 2, 2})
	require.False(t, split.OK())
	assert.Equal(t, uint32(1), split.First[0].Vertex)
	merged := CertifyWCC(g, []uint32{0, 0, 0, 0})
	require.False(t, merged.OK())
	assert.Equal(t, uint32(2), merged.First[0].Vertex)
}

func TestPageRankResidualRejectsUnconvergedRanks(t *testing.T) {
	g := certGraph(t, 3, true, [][3]uint32{{0, 1, 1}, {1, 2, 1}, {2, 0, 1}, {0, 2, 1}})
	rep := PageRankResidual(g, []float64{0.5, 0.25, 0.25})
	assert.False(t, rep.OK())
	assert.Greater(t, rep.L1, PageRankResidualTolerance)
	short := PageRankResidual(g, []float64{1})
	assert.False(t, short.OK())
	assert.NotEmpty(t, short.Fault)
}
