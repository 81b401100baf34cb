package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// undirected builds a simple undirected graph from unweighted edges.
func undirected(t *testing.T, n int, es ...[2]uint32) *Graph {
	t.Helper()
	l := &EdgeList{NumVertices: n}
	for _, e := range es {
		l.Add(e[0], e[1], 0)
	}
	g, err := Build(l, BuildOptions{Symmetrize: true, Dedupe: true})
	require.NoError(t, err)
	return g
}

func TestComputeStats(t *testing.T) {
	star := make([][2]uint32, 0, 9)
	for v := uint32(1); v <= 9; v++ {
		star = append(star, [2]uint32{0, v})
	}
	tests := []struct {
		name string
		g    *Graph
		want Stats
	}{
		{"no vertices", &Graph{Offsets: []uint32{0}}, Stats{}},
		{"isolated vertices", undirected(t, 3), Stats{
			Vertices: 3, DegreeHistogram: []int{3},
		}},
		{"path of 6", undirected(t, 6, [2]uint32{0, 1}, [2]uint32{1, 2}, [2]uint32{2, 3}, [2]uint32{3, 4}, [2]uint32{4, 5}), Stats{
			Vertices: 6, Edges: 10, MinDegree: 1, AvgDegree: 10.0 / 6, MaxDegree: 2,
			DegreeHistogram: []int{0, 2, 4}, DiameterLowerBound: 5,
		}},
		{"star of 10 and an isolated vertex", undirected(t, 11, star...), Stats{
			Vertices: 11, Edges: 18, MinDegree: 0, AvgDegree: 18.0 / 11, MaxDegree: 9,
			DegreeHistogram: []int{1, 9, 0, 0, 1}, DiameterLowerBound: 2,
		}},
		{"directed chain 0->1->2, weighted", &Graph{
			Offsets: []uint32{0, 1, 2, 2}, Targets: []uint32{1, 2}, Weights: []uint32{7, 3}, Directed: true,
		}, Stats{
			Vertices: 3, Edges: 2, Directed: true, Weighted: true, MinDegree: 0, AvgDegree: 2.0 / 3, MaxDegree: 1,
			DegreeHistogram: []int{1, 2}, MinWeight: 3, MaxWeight: 7, DiameterLowerBound: 2,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeStats(tc.g)
			if tc.want.DiameterSweeps == 0 {
				got.DiameterSweeps = 0 // depends on the random starts; checked elsewhere
			}
			assert.Equal(t, tc.want, got)
			assert.NotEmpty(t, got.String())
		})
	}
}

func TestDegreeHistogramBuckets(t *testing.T) {
	// Vertex v of a directed graph gets out-degree degrees[v].
	degrees := []int{0, 1, 2, 3, 4, 7, 8, 15, 16, 1000}
	n := 1001
	l := &EdgeList{NumVertices: n}
	for v, d := range degrees {
		for i := 0; i < d; i++ {
			l.Add(uint32(v), uint32(i+1), 0)
		}
	}
	g, err := Build(l, BuildOptions{})
	require.NoError(t, err)
	got := ComputeStats(g).DegreeHistogram
	want := make([]int, 11)
	want[0] = n - len(degrees) + 1 // 1000 leaves and vertex 0
	want[1] = 1                    // 1
	want[2] = 2                    // 2, 3
	want[3] = 2                    // 4, 7
	want[4] = 2                    // 8, 15
	want[5] = 1                    // 16
	want[10] = 1                   // 1000 in [512, 1024)
	assert.Equal(t, want, got)
}

func TestDiameterOfGeneratedGraphs(t *testing.T) {
	tests := []struct {
		spec     string
		diameter int
	}{
		{"grid:w=100,h=30", 128},
		{"grid:w=1,h=50,w=none", 49},
		{"grid:w=40,h=40,directed=1", 78},
		{"grid:w=60,h=20+perm=5", 78}, // ids do not matter
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s := ComputeStats(generate(t, tc.spec))
			assert.Equal(t, tc.diameter, s.DiameterLowerBound)
			assert.LessOrEqual(t, s.DiameterSweeps, 2*(1+diameterRandomStarts))
			assert.GreaterOrEqual(t, s.DiameterSweeps, 2)
		})
	}
}

func TestStatsAreDeterministic(t *testing.T) {
	g := generate(t, "rmat:scale=11")
	assert.Equal(t, ComputeStats(g), ComputeStats(g))
}

func TestStatsCountSelfLoopsAndDuplicates(t *testing.T) {
	tests := []struct {
		name              string
		g                 *Graph
		loops, duplicates int
	}{
		{"simple", undirected(t, 3, [2]uint32{0, 1}, [2]uint32{1, 2}), 0, 0},
		// 0->1 three times, 1->1 twice (a loop and its duplicate), 2->0 once.
		{"directed, sorted", &Graph{Offsets: []uint32{0, 3, 5, 6}, Targets: []uint32{1, 1, 1, 1, 1, 0}, Directed: true}, 2, 3},
		{"directed, unsorted adjacency", &Graph{Offsets: []uint32{0, 4, 4}, Targets: []uint32{1, 0, 1, 0}, Directed: true}, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ComputeStats(tc.g)
			assert.Equal(t, tc.loops, s.SelfLoops)
			assert.Equal(t, tc.duplicates, s.DuplicateEdges)
			assert.Contains(t, s.String(), "self-loops")
		})
	}
	// +simple removes both.
	g := generate(t, "rmat:scale=8+simple")
	s := ComputeStats(g)
	assert.Zero(t, s.SelfLoops)
	assert.Zero(t, s.DuplicateEdges)
}
