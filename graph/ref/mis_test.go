package ref

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// misBySweeps computes the greedy set another way, for comparison: Luby's
// rounds with the fixed priorities, every undecided vertex joining when it
// is above all its undecided neighbours and none of its neighbours has
// joined, and leaving when a neighbour has joined; O(rounds * m), with
// neighbourhoods listed by undirectedNeighbours, not MIS's walk.
func misBySweeps(g *graph.Graph, seed uint64) []uint32 {
	n := g.NumVertices()
	key := MISKey(seed)
	const undecided = 2
	state := make([]uint32, n)
	for v := range state {
		state[v] = undecided
	}
	for left := n; left > 0; {
		var join, leave []uint32
		for v := uint32(0); int(v) < n; v++ {
			if state[v] != undecided {
				continue
			}
			top, killed := true, false
			for _, u := range undirectedNeighbours(g, v) {
				killed = killed || state[u] == MISIn
				top = top && !(state[u] == undecided && MISAbove(u, v, key))
			}
			switch {
			case killed:
				leave = append(leave, v)
			case top:
				join = append(join, v)
			}
		}
		for _, v := range leave {
			state[v] = MISOut
		}
		for _, v := range join {
			state[v] = MISIn
		}
		left -= len(join) + len(leave)
		if len(join)+len(leave) == 0 {
			panic("misBySweeps: a round decided nothing")
		}
	}
	return state
}

func members(in []uint32) int {
	c := 0
	for _, x := range in {
		if x == MISIn {
			c++
		}
	}
	return c
}

// aboveAll reports whether v is above every vertex in vs (other than v).
func aboveAll(v uint32, n int, key uint32) bool {
	for u := uint32(0); int(u) < n; u++ {
		if u != v && MISAbove(u, v, key) {
			return false
		}
	}
	return true
}

func TestMIS(t *testing.T) {
	star := []edge{}
	for v := uint32(1); v < 40; v++ {
		star = append(star, edge{u: 0, v: v})
	}
	path := []edge{}
	for v := uint32(0); v+1 < 50; v++ {
		path = append(path, edge{u: v, v: v + 1})
	}
	clique := []edge{}
	for u := uint32(0); u < 12; u++ {
		for v := u + 1; v < 12; v++ {
			clique = append(clique, edge{u: u, v: v})
		}
	}
	tests := []struct {
		name string
		g    *graph.Graph
		// check, when set, adds what the shape implies about the set.
		check func(t *testing.T, g *graph.Graph, seed uint64, in []uint32)
	}{
		{"empty", buildGraph(t, 0, false), func(t *testing.T, _ *graph.Graph, _ uint64, in []uint32) {
			assert.Empty(t, in)
		}},
		{"isolated vertices", buildGraph(t, 7, false), func(t *testing.T, _ *graph.Graph, _ uint64, in []uint32) {
			assert.Equal(t, 7, members(in), "no edges: every vertex joins")
		}},
		{"path", buildGraph(t, 50, false, path...), func(t *testing.T, _ *graph.Graph, _ uint64, in []uint32) {
			// maximal on a path: no two members adjacent, no two
			// non-members adjacent to each other and to no member
			assert.GreaterOrEqual(t, members(in), 17)
			assert.LessOrEqual(t, members(in), 25)
		}},
		{"star", buildGraph(t, 40, false, star...), func(t *testing.T, g *graph.Graph, seed uint64, in []uint32) {
			// the centre above every leaf takes the set alone; else the
			// leaves above it join, the centre leaves and every leaf joins
			if aboveAll(0, g.NumVertices(), MISKey(seed)) {
				assert.Equal(t, []int{1, 1}, []int{members(in), int(in[0])})
			} else {
				assert.Equal(t, []int{39, 0}, []int{members(in), int(in[0])})
			}
		}},
		{"clique", buildGraph(t, 12, false, clique...), func(t *testing.T, g *graph.Graph, seed uint64, in []uint32) {
			require.Equal(t, 1, members(in))
			for v, x := range in {
				if x == MISIn {
					assert.True(t, aboveAll(uint32(v), g.NumVertices(), MISKey(seed)), "the member is the top vertex")
				}
			}
		}},
		// A vertex with only a self-loop is not its own neighbour: it joins.
		{"self-loops", buildGraph(t, 5, false, edge{u: 0, v: 0}, edge{u: 1, v: 1}, edge{u: 1, v: 2}, edge{u: 3, v: 3}, edge{u: 3, v: 3}),
			func(t *testing.T, _ *graph.Graph, _ uint64, in []uint32) {
				assert.Equal(t, []uint32{MISIn, in[1], 1 - in[1], MISIn, MISIn}, in)
			}},
		// Direction does not matter, nor do parallel and reciprocal edges:
		// the set is the symmetrised graph's.
		{"directed", buildGraph(t, 8, true, edge{u: 0, v: 1}, edge{u: 1, v: 0}, edge{u: 1, v: 2}, edge{u: 1, v: 2}, edge{u: 3, v: 2},
			edge{u: 4, v: 3}, edge{u: 5, v: 4}, edge{u: 5, v: 5}, edge{u: 6, v: 0}, edge{u: 2, v: 6}),
			func(t *testing.T, g *graph.Graph, seed uint64, in []uint32) {
				sym, err := graph.Symmetrize(g)
				require.NoError(t, err)
				assert.Equal(t, MIS(sym, seed), in)
			}},
		{"random directed", randomGraph(t, 11, 300, 900, true, 0), nil},
		{"random undirected", randomGraph(t, 12, 300, 900, false, 0), nil},
	}
	for _, tc := range tests {
		for _, seed := range []uint64{0, 1, 2, 1 << 40} {
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				in := MIS(tc.g, seed)
				require.Len(t, in, tc.g.NumVertices())
				assert.Equal(t, misBySweeps(tc.g, seed), in, "Luby's rounds reach the greedy set")
				r := CertifyMIS(tc.g, seed, in)
				assert.True(t, r.OK(), r.String())
				assert.Equal(t, tc.g.NumVertices(), r.Checked)
				v := ValidateMIS(tc.g, seed, in)
				assert.True(t, v.OK(), v.String())
				if tc.check != nil {
					tc.check(t, tc.g, seed, in)
				}
			})
		}
	}
}

// The certificate rejects sets that are not independent, not maximal, or
// maximal and independent but not the seed's greedy set, and values other
// than in and out; ValidateMIS rejects them too, and a result of the
// wrong length is a fault.
func TestCertifyMISRejects(t *testing.T) {
	path := buildGraph(t, 4, false, edge{u: 0, v: 1}, edge{u: 1, v: 2}, edge{u: 2, v: 3})
	star := buildGraph(t, 5, false, edge{u: 0, v: 1}, edge{u: 0, v: 2}, edge{u: 0, v: 3}, edge{u: 0, v: 4})
	directed := buildGraph(t, 3, true, edge{u: 0, v: 1}, edge{u: 2, v: 1})
	// the other maximal independent set of the star than the greedy one
	var seed uint64
	otherStar := []uint32{MISIn, MISOut, MISOut, MISOut, MISOut}
	if members(MIS(star, seed)) == 1 {
		otherStar = []uint32{MISOut, MISIn, MISIn, MISIn, MISIn}
	}
	tests := []struct {
		name string
		g    *graph.Graph
		in   []uint32
		want string // in the certificate's report
	}{
		{"not independent", path, []uint32{MISIn, MISIn, MISOut, MISIn}, "independence"},
		{"everything in", path, []uint32{MISIn, MISIn, MISIn, MISIn}, "independence"},
		{"not maximal", path, []uint32{MISIn, MISOut, MISOut, MISOut}, "maximality"},
		{"empty set", path, []uint32{MISOut, MISOut, MISOut, MISOut}, "maximality"},
		{"another seed's set", star, otherStar, "only below it"},
		{"directed, not independent", directed, []uint32{MISIn, MISIn, MISOut}, "independence"},
		{"directed, not maximal (an in-neighbour)", directed, []uint32{MISIn, MISOut, MISOut}, "maximality"},
		{"undecided", path, []uint32{MISIn, MISOut, 7, MISIn}, "neither in nor out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CertifyMIS(tc.g, seed, tc.in)
			require.False(t, r.OK(), "the certificate accepted %v", tc.in)
			assert.Contains(t, r.Err().Error(), tc.want)
			v := ValidateMIS(tc.g, seed, tc.in)
			assert.False(t, v.OK(), "ValidateMIS accepted %v", tc.in)
			assert.Contains(t, v.Detail, "certificate:")
		})
	}
	// An undirected edge between two members is one violation, not two.
	r := CertifyMIS(path, seed, []uint32{MISIn, MISIn, MISOut, MISIn})
	edges := 0
	for _, m := range r.First {
		if strings.Contains(m.Want, "independence") {
			edges++
		}
	}
	assert.Equal(t, 1, edges, r.String())
	for _, f := range []func(*graph.Graph, uint64, []uint32) Report{CertifyMIS, ValidateMIS} {
		r := f(path, seed, []uint32{MISIn})
		assert.Contains(t, r.Fault, "1 entries for a graph of 4 vertices")
	}
}

// On generated graphs the greedy set passes, and flipping any one vertex
// fails both checks (the set is unique for its seed). Different seeds
// give different sets.
func TestMISGeneratedGraphs(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9", "rmat:scale=8,directed=1", "grid:w=9,h=7", "er:n=300,m=900"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		require.NoError(t, err)
		sets := map[string]bool{}
		for _, seed := range []uint64{1, 2, 3} {
			in := MIS(g, seed)
			sets[fmt.Sprint(in)] = true
			r := ValidateMIS(g, seed, in)
			require.True(t, r.OK(), "%s seed %d: %s", spec, seed, r)
			for v := range in {
				wrong := append([]uint32(nil), in...)
				wrong[v] = 1 - wrong[v]
				assert.False(t, CertifyMIS(g, seed, wrong).OK(), "%s seed %d: vertex %d flipped passed the certificate", spec, seed, v)
				assert.False(t, ValidateMIS(g, seed, wrong).OK(), "%s seed %d: vertex %d flipped passed", spec, seed, v)
				if v > 60 {
					break
				}
			}
		}
		assert.Len(t, sets, 3, "%s: three seeds, three sets", spec)
	}
}

// Priorities are a bijection of the vertex id (no ties), and the key
// depends on every bit of the seed.
func TestMISPriorities(t *testing.T) {
	for _, seed := range []uint64{0, 1, 1 << 32, 1 << 63} {
		key := MISKey(seed)
		seen := make(map[uint32]bool, 1<<16)
		for v := uint32(0); v < 1<<16; v++ {
			p := MISPriority(v, key)
			require.False(t, seen[p], "seed %d: vertices share priority %d", seed, p)
			seen[p] = true
		}
		assert.False(t, MISAbove(5, 5, key), "a vertex is not above itself")
		assert.NotEqual(t, MISAbove(3, 9, key), MISAbove(9, 3, key), "a total order")
	}
	keys := map[uint32]bool{}
	for _, seed := range []uint64{0, 1, 2, 1 << 32, 1 << 63} {
		keys[MISKey(seed)] = true
	}
	assert.Len(t, keys, 5)
	// The kernels' constants: kernels/mis.cu must compute the same.
	assert.Equal(t, uint32(0), MISPriority(0, 0))
	assert.Equal(t, MISPriority(1, 0), MISPriority(0, 0x9E3779B1), "v*0x9E3779B1 xor key")
}
