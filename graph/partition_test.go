package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// naiveCut counts, for an owner function, every edge per ordered pair of
// parts, and per part the boundary vertices (an edge to another part),
// the ghosts (other parts' vertices with an edge into it) and the
// in-edges it holds, the slow way.
func naiveCut(g *Graph, parts int, owner func(uint32) int) (cut [][]uint64, boundary, ghosts, vertices []int, edges []uint64) {
	cut = make([][]uint64, parts)
	for i := range cut {
		cut[i] = make([]uint64, parts)
	}
	boundary, ghosts, vertices, edges = make([]int, parts), make([]int, parts), make([]int, parts), make([]uint64, parts)
	ghostSets := make([]map[uint32]bool, parts)
	for i := range ghostSets {
		ghostSets[i] = map[uint32]bool{}
	}
	for v := 0; v < g.NumVertices(); v++ {
		i := owner(uint32(v))
		vertices[i]++
		b := false
		for _, u := range g.Targets[g.Offsets[v]:g.Offsets[v+1]] {
			j := owner(u)
			cut[i][j]++
			edges[j]++
			if i != j {
				b = true
				ghostSets[j][uint32(v)] = true
			}
		}
		if b {
			boundary[i]++
		}
	}
	for i := range ghosts {
		ghosts[i] = len(ghostSets[i])
	}
	return cut, boundary, ghosts, vertices, edges
}

func TestPartitionCountsMatchANaiveCount(t *testing.T) {
	for _, spec := range []string{"rmat:scale=10+perm=1", "grid:w=20,h=15", "rmat:scale=8,directed=1"} {
		g, err := Load(spec, LoadOptions{})
		require.NoError(t, err)
		for _, method := range []string{PartitionRange, PartitionHash} {
			for _, parts := range []int{1, 2, 3, 8} {
				p, err := PartitionGraph(g, parts, method)
				require.NoError(t, err, "%s %s %d", spec, method, parts)
				cut, boundary, ghosts, vertices, inEdges := naiveCut(g, parts, p.Owner)
				assert.Equal(t, cut, p.Cut, "%s %s %d", spec, method, parts)
				var edges, cutEdges uint64
				for i, ps := range p.Parts {
					assert.Equal(t, vertices[i], ps.Vertices)
					assert.Equal(t, boundary[i], ps.Boundary)
					assert.Equal(t, ghosts[i], ps.Ghosts)
					assert.Equal(t, inEdges[i], ps.Edges, "part %d holds its vertices' in-edges", i)
					edges += ps.Edges
					for j := range parts {
						if i != j {
							cutEdges += cut[i][j]
						}
					}
				}
				assert.Equal(t, uint64(g.NumEdges()), edges)
				assert.Equal(t, cutEdges, p.CutEdges)
				if parts == 1 {
					assert.Zero(t, p.CutEdges)
				}
			}
		}
	}
}

// Range parts are contiguous, non-empty, and hold about as many edges
// plus vertices each.
func TestPartitionRangesBalanceEdges(t *testing.T) {
	g, err := Load("rmat:scale=12+perm=1", LoadOptions{})
	require.NoError(t, err)
	p, err := PartitionGraph(g, 4, PartitionRange)
	require.NoError(t, err)
	require.Len(t, p.Starts, 5)
	assert.Equal(t, uint32(0), p.Starts[0])
	assert.Equal(t, uint32(g.NumVertices()), p.Starts[4])
	share := float64(g.NumEdges()+g.NumVertices()) / 4
	for i, ps := range p.Parts {
		assert.Greater(t, p.Starts[i+1], p.Starts[i])
		load := float64(ps.Edges) + float64(ps.Vertices)
		// A range ends at a vertex, so a part is off by at most the
		// largest degree.
		assert.InDelta(t, share, load, float64(maxDegree(g))+1, "part %d", i)
		for v := p.Starts[i]; v < p.Starts[i+1]; v++ {
			require.Equal(t, i, p.Owner(v))
		}
	}
	// On a directed graph the ranges balance the in-edges, which the
	// parts hold: here every edge leaves one of the first 16 vertices and
	// enters one of the last 16.
	l := &EdgeList{NumVertices: 64}
	for u := range uint32(16) {
		for v := uint32(48); v < 64; v++ {
			l.Add(u, v, 0)
		}
	}
	d, err := Build(l, BuildOptions{})
	require.NoError(t, err)
	require.True(t, d.Directed)
	p, err = PartitionGraph(d, 4, PartitionRange)
	require.NoError(t, err)
	in := d.Reverse()
	share = float64(d.NumEdges()+d.NumVertices()) / 4
	for i, ps := range p.Parts {
		assert.InDelta(t, share, float64(ps.Edges)+float64(ps.Vertices), float64(maxDegree(in))+1, "part %d", i)
	}
	// Every vertex its own part, even where the edges gather on a few.
	star, err := Load("grid:w=3,h=1", LoadOptions{})
	require.NoError(t, err)
	p, err = PartitionGraph(star, 3, PartitionRange)
	require.NoError(t, err)
	for _, ps := range p.Parts {
		assert.Equal(t, 1, ps.Vertices)
	}
}

func maxDegree(g *Graph) int {
	m := 0
	for v := 0; v < g.NumVertices(); v++ {
		m = max(m, int(g.Offsets[v+1]-g.Offsets[v]))
	}
	return m
}

func TestPartitionRefusesWhatCannotBeSplit(t *testing.T) {
	g, err := Load("grid:w=2,h=2", LoadOptions{})
	require.NoError(t, err)
	for _, tc := range []struct {
		parts  int
		method string
		want   string
	}{
		{0, PartitionRange, "0 parts: give at least one"},
		{-1, PartitionHash, "-1 parts: give at least one"},
		{5, PartitionRange, "5 parts for 4 vertices: at most one part per vertex"},
		{2, "metis", `partition method "metis": use range or hash`},
	} {
		_, err := PartitionGraph(g, tc.parts, tc.method)
		assert.EqualError(t, err, tc.want)
	}
}
