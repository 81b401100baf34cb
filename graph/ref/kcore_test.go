package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpgraph/warpgraph/graph"
)

func clique(first, size uint32) []edge {
	var out []edge
	for u := first; u < first+size; u++ {
		for v := u + 1; v < first+size; v++ {
			out = append(out, edge{u, v, 0})
		}
	}
	return out
}

func TestKCore(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		want     []uint32
	}{
		{"isolated vertex has core 0", 2, false, []edge{{0, 0, 0}}, []uint32{0, 0}},
		{"path", 4, false, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}}, []uint32{1, 1, 1, 1}},
		{"star", 5, false, []edge{{0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}}, []uint32{1, 1, 1, 1, 1}},
		{"cycle", 5, false, []edge{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}, {4, 0, 0}}, []uint32{2, 2, 2, 2, 2}},
		{"K4 with a pendant", 5, false, append(clique(0, 4), edge{3, 4, 0}), []uint32{3, 3, 3, 3, 1}},
		{"K5 beside a triangle", 8, false, append(clique(0, 5), clique(5, 3)...), []uint32{4, 4, 4, 4, 4, 2, 2, 2}},
		{"self-loops are ignored", 3, false, []edge{{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 2, 0}}, []uint32{1, 1, 1}},
		{"directed triangle counts in and out", 3, true, []edge{{0, 1, 0}, {1, 2, 0}, {2, 0, 0}}, []uint32{2, 2, 2}},
		{"directed reciprocal pair counts twice", 3, true, []edge{{0, 1, 0}, {1, 0, 0}, {1, 2, 0}}, []uint32{2, 2, 1}},
		{"undirected parallel edges count per copy", 2, false, []edge{{0, 1, 0}, {0, 1, 0}}, []uint32{2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			assert.Equal(t, tc.want, KCore(g))
		})
	}
}

func TestKCoreMatchesPeeling(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			cores := KCore(g)
			maxCore := uint32(0)
			for _, c := range cores {
				maxCore = max(maxCore, c)
			}
			for k := uint32(0); k <= maxCore+1; k++ {
				members := KCoreMembers(cores, k)
				// Every member has at least k neighbours inside the core...
				for v, in := range members {
					if !in {
						continue
					}
					inside := 0
					for _, u := range undirectedNeighbours(g, uint32(v)) {
						if members[u] {
							inside++
						}
					}
					assert.GreaterOrEqual(t, inside, int(k), "vertex %d in the %d-core", v, k)
				}
				// ...and the core is maximal: naive peeling finds the same set.
				assert.Equal(t, peelToCore(g, k), members, "%d-core", k)
			}
		})
	}
}

// peelToCore removes vertices with fewer than k remaining neighbours until
// none is left: the k-core by definition, in O(n*m).
func peelToCore(g *graph.Graph, k uint32) []bool {
	alive := make([]bool, g.NumVertices())
	for v := range alive {
		alive[v] = true
	}
	for changed := true; changed; {
		changed = false
		for v := range alive {
			if !alive[v] {
				continue
			}
			deg := uint32(0)
			for _, u := range undirectedNeighbours(g, uint32(v)) {
				if alive[u] {
					deg++
				}
			}
			if deg < k {
				alive[v], changed = false, true
			}
		}
	}
	return alive
}

func TestKCoreMembers(t *testing.T) {
	cores := []uint32{0, 15, 16, 17, 3}
	assert.Equal(t, []bool{false, false, true, true, false}, KCoreMembers(cores, DefaultK))
	assert.Equal(t, []bool{true, true, true, true, true}, KCoreMembers(cores, 0))
}
