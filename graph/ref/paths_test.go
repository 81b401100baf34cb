package ref

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

const U = Unreached

func TestBFS(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		src      uint32
		want     []uint32
	}{
		{"directed path from the start", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}}, 0, []uint32{0, 1, 2, 3}},
		{"directed path from the end reaches nothing", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}}, 3, []uint32{U, U, U, 0}},
		{"undirected path from the middle", 5, false, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}}, 2, []uint32{2, 1, 0, 1, 2}},
		{"star from a leaf", 5, false, []edge{{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}}, 3, []uint32{1, 2, 2, 0, 2}},
		{"directed cycle", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 0}}, 2, []uint32{2, 3, 0, 1}},
		{"disconnected parts", 6, false, []edge{{0, 1, 0}, {1, 2, 0}, {3, 4, 0}}, 1, []uint32{1, 0, 1, U, U, U}},
		{"self-loops and parallel edges change nothing", 3, true, []edge{{0, 0, 0}, {0, 1, 0}, {0, 1, 0}, {1, 2, 0}}, 0, []uint32{0, 1, 2}},
		{"shortcut wins", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {0, 3, 0}}, 0, []uint32{0, 1, 2, 1}},
		{"single vertex", 1, true, nil, 0, []uint32{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			assert.Equal(t, tc.want, BFS(g, tc.src))
		})
	}
}

func TestBFSProperties(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			src := g.MaxDegreeVertex()
			depths := BFS(g, src)
			require.Len(t, depths, g.NumVertices())
			assert.Equal(t, uint32(0), depths[src])
			hasParent := make([]bool, g.NumVertices())
			for u := uint32(0); int(u) < g.NumVertices(); u++ {
				for _, v := range g.Neighbors(u) {
					if depths[u] == U {
						continue
					}
					// An edge never skips a level forward...
					require.NotEqual(t, U, depths[v], "edge %d->%d leaves the reached set", u, v)
					assert.LessOrEqual(t, depths[v], depths[u]+1, "edge %d->%d", u, v)
					if !g.Directed {
						// ...and undirected edges join adjacent levels.
						assert.LessOrEqual(t, depths[u], depths[v]+1, "edge %d-%d", u, v)
					}
					if depths[v] == depths[u]+1 {
						hasParent[v] = true
					}
				}
			}
			for v, d := range depths {
				if d != U && uint32(v) != src {
					assert.True(t, hasParent[v], "vertex %d at depth %d has no parent one level up", v, d)
				}
			}
		})
	}
}

func TestSSSP(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		src      uint32
		want     []uint32
	}{
		{"more hops can be shorter", 4, true, []edge{{0, 3, 10}, {0, 1, 1}, {1, 2, 2}, {2, 3, 3}}, 0, []uint32{0, 1, 3, 6}},
		{"direction matters", 3, true, []edge{{0, 1, 5}, {2, 1, 1}}, 1, []uint32{U, 0, U}},
		{"undirected uses both ways", 3, false, []edge{{0, 1, 5}, {2, 1, 1}}, 0, []uint32{0, 5, 6}},
		{"zero-weight edges", 4, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 7}, {0, 3, 8}}, 0, []uint32{0, 0, 0, 7}},
		{"parallel edges take the lightest", 2, true, []edge{{0, 1, 9}, {0, 1, 4}, {0, 1, 6}}, 0, []uint32{0, 4}},
		{"disconnected part", 5, false, []edge{{0, 1, 2}, {1, 2, 2}, {3, 4, 1}}, 2, []uint32{4, 2, 0, U, U}},
		{"largest representable distance", 3, true, []edge{{0, 1, math.MaxUint32 - 1}, {1, 2, 0}}, 0, []uint32{0, MaxDistance, MaxDistance}},
		{"overflowing path beside a short one", 3, true, []edge{{0, 1, math.MaxUint32 - 1}, {1, 2, 5}, {0, 2, 3}}, 0, []uint32{0, MaxDistance, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildWeighted(t, tc.n, tc.directed, tc.edges...)
			got, err := SSSP(g, tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSSSPUnweightedEqualsBFS(t *testing.T) {
	g := randomGraph(t, 11, 500, 2000, true, 0)
	got, err := SSSP(g, 3)
	require.NoError(t, err)
	assert.Equal(t, BFS(g, 3), got)
}

func TestSSSPOverflowIsAnError(t *testing.T) {
	g := buildWeighted(t, 3, true, edge{0, 1, 1 << 31}, edge{1, 2, 1 << 31})
	_, err := SSSP(g, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "vertex 2")
}

func TestSSSPProperties(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			src := g.MaxDegreeVertex()
			dist, err := SSSP(g, src)
			require.NoError(t, err)
			weight := func(e uint32) uint64 {
				if g.Weights == nil {
					return 1
				}
				return uint64(g.Weights[e])
			}
			tight := make([]bool, g.NumVertices())
			for u := 0; u < g.NumVertices(); u++ {
				if dist[u] == U {
					continue
				}
				for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
					v := g.Targets[e]
					// Triangle inequality on every edge.
					require.NotEqual(t, U, dist[v], "edge %d->%d leaves the reached set", u, v)
					assert.LessOrEqual(t, uint64(dist[v]), uint64(dist[u])+weight(e), "edge %d->%d", u, v)
					if uint64(dist[v]) == uint64(dist[u])+weight(e) {
						tight[v] = true
					}
				}
			}
			for v, d := range dist {
				if d != U && uint32(v) != src {
					assert.True(t, tight[v], "distance %d of vertex %d is not achieved by any in-edge", d, v)
				}
			}
			assert.Equal(t, bellmanFord(g, src), dist)
		})
	}
}

// bellmanFord is the slow, obviously correct shortest-path reference.
func bellmanFord(g *graph.Graph, src uint32) []uint32 {
	dist := make([]uint64, g.NumVertices())
	for i := range dist {
		dist[i] = math.MaxUint64
	}
	dist[src] = 0
	for changed := true; changed; {
		changed = false
		for u := 0; u < g.NumVertices(); u++ {
			if dist[u] == math.MaxUint64 {
				continue
			}
			for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
				w := uint64(1)
				if g.Weights != nil {
					w = uint64(g.Weights[e])
				}
				if v := g.Targets[e]; dist[u]+w < dist[v] {
					dist[v], changed = dist[u]+w, true
				}
			}
		}
	}
	out := make([]uint32, len(dist))
	for v, d := range dist {
		out[v] = uint32(min(d, U))
	}
	return out
}

func TestSSWP(t *testing.T) {
	const top = math.MaxUint32
	tests := []struct {
		name     string
		n        int
		directed bool
		weighted bool
		edges    []edge
		src      uint32
		want     []uint32
	}{
		{"bottleneck of a path", 4, true, true, []edge{{0, 1, 5}, {1, 2, 3}, {2, 3, 9}}, 0, []uint32{top, 5, 3, 3}},
		{"longer but wider path wins", 4, true, true, []edge{{0, 3, 2}, {0, 1, 8}, {1, 2, 7}, {2, 3, 9}}, 0, []uint32{top, 8, 7, 7}},
		{"unreachable is zero", 3, true, true, []edge{{1, 0, 4}, {1, 2, 4}}, 0, []uint32{top, 0, 0}},
		{"zero weight is as good as unreachable", 3, true, true, []edge{{0, 1, 0}, {1, 2, 5}}, 0, []uint32{top, 0, 0}},
		{"undirected goes both ways", 3, false, true, []edge{{1, 0, 4}, {1, 2, 6}}, 0, []uint32{top, 4, 4}},
		{"unweighted widths are one", 4, false, false, []edge{{0, 1, 0}, {1, 2, 0}}, 1, []uint32{1, top, 1, 0}},
		{"parallel edges take the widest", 2, true, true, []edge{{0, 1, 3}, {0, 1, 11}}, 0, []uint32{top, 11}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			build := buildGraph
			if tc.weighted {
				build = buildWeighted
			}
			g := build(t, tc.n, tc.directed, tc.edges...)
			assert.Equal(t, tc.want, SSWP(g, tc.src))
		})
	}
}

func TestSSWPMatchesFixpoint(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			src := g.MaxDegreeVertex()
			// Relax max-min until nothing changes: slow and obviously right.
			want := make([]uint32, g.NumVertices())
			want[src] = math.MaxUint32
			for changed := true; changed; {
				changed = false
				for u := 0; u < g.NumVertices(); u++ {
					for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
						w := uint32(1)
						if g.Weights != nil {
							w = g.Weights[e]
						}
						if v := g.Targets[e]; min(want[u], w) > want[v] {
							want[v], changed = min(want[u], w), true
						}
					}
				}
			}
			assert.Equal(t, want, SSWP(g, src))
		})
	}
}

func TestSourceOutOfRangePanicsWithItsName(t *testing.T) {
	g := buildGraph(t, 3, true, edge{0, 1, 0})
	tests := []struct {
		name string
		run  func()
		want string
	}{
		{"BFS", func() { BFS(g, 3) }, "ref: BFS source 3 is not a vertex of a graph with 3 vertices"},
		{"SSSP", func() { _, _ = SSSP(g, 7) }, "ref: SSSP source 7 is not a vertex of a graph with 3 vertices"},
		{"SSWP", func() { SSWP(g, 3) }, "ref: SSWP source 3 is not a vertex of a graph with 3 vertices"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tc.want, tc.run)
		})
	}
}

func TestRadixHeapPopsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	var h radixHeap
	var popped, pushed []uint32
	last := uint32(0)
	for i := 0; i < 20000; i++ {
		// Push keys at or above the last popped key, pop now and then, as
		// Dijkstra does.
		if h.size == 0 || rng.IntN(3) > 0 {
			k := uint32(min(uint64(last)+uint64(rng.Uint32N(1<<uint(rng.IntN(31)))), math.MaxUint32))
			h.push(k, uint32(i))
			pushed = append(pushed, k)
			continue
		}
		k, _ := h.pop()
		require.GreaterOrEqual(t, k, last)
		last = k
		popped = append(popped, k)
	}
	for h.size > 0 {
		k, _ := h.pop()
		require.GreaterOrEqual(t, k, last)
		last = k
		popped = append(popped, k)
	}
	slices.Sort(pushed)
	assert.Equal(t, pushed, popped)
}
