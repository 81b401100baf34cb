package graph

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegularOutDegreesAreExact(t *testing.T) {
	tests := []struct {
		spec string
		n, d int
	}{
		{"regular:n=1000,d=8", 1000, 8},
		{"regular:n=50000,d=4,w=none", 50000, 4}, // several random streams
		{"regular:n=9,d=8", 9, 8},                // complete: every other vertex
		{"regular:n=300,d=100,seed=3", 300, 100}, // long rows: the map path
		{"regular:n=5,d=0", 5, 0},
		{"regular:n=1,d=0", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			g := generate(t, tc.spec)
			require.Equal(t, tc.n, g.NumVertices())
			assert.True(t, g.Directed)
			assert.Equal(t, tc.n*tc.d, g.NumEdges())
			for v := range tc.n {
				row := g.Neighbors(uint32(v))
				require.Len(t, row, tc.d, "vertex %d", v)
				for i, u := range row {
					require.NotEqual(t, uint32(v), u, "self-loop at %d", v)
					if i > 0 {
						require.Less(t, row[i-1], u, "vertex %d: neighbours sorted and distinct", v)
					}
				}
			}
			checkSimple(t, g)
		})
	}
}

func TestRegularIsDeterministicBySeed(t *testing.T) {
	a, b := generate(t, "regular:n=40000,d=8,seed=7"), generate(t, "regular:n=40000,d=8,seed=7")
	assert.Equal(t, digest(a), digest(b))
	c := generate(t, "regular:n=40000,d=8,seed=8")
	assert.NotEqual(t, digest(a), digest(c))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	assert.Equal(t, digest(a), digest(generate(t, "regular:n=40000,d=8,seed=7")), "one core gives the same graph")
}

// Out-neighbours are uniform: with n=200 and d=50 every vertex is expected
// 50 in-edges (standard deviation about 6), so each in-degree stays within
// a wide band around 50.
func TestRegularNeighboursAreUniform(t *testing.T) {
	g := generate(t, "regular:n=200,d=50,w=none")
	in := make([]int, 200)
	for _, u := range g.Targets {
		in[u]++
	}
	for v, c := range in {
		assert.InDelta(t, 50, c, 25, "in-degree of %d", v)
	}
}

func TestRegularRejectsBadParameters(t *testing.T) {
	tests := []struct{ spec, want string }{
		{"regular:d=8", "n is required"},
		{"regular:n=10", "d is required"},
		{"regular:n=0,d=0", "n=0 is out of range"},
		{"regular:n=10,d=-1", "d=-1 must not be negative"},
		{"regular:n=10,d=10", "d=10 exceeds the 9 other vertices of n=10"},
		{"regular:n=100000000,d=30", "edges"},
		{"regular:n=10,d=2,directed=1", `unknown key "directed"`},
		{"regular:n=10,d=x", `d="x" is not an integer`},
		{"regular:n=10,d=2,weights=5..1", "weights"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseSpec(tc.spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestRegularSpecRoundTrips(t *testing.T) {
	s, err := ParseSpec("regular:n=1000000,d=8,w=none")
	require.NoError(t, err)
	assert.Equal(t, Regular{N: 1000000, D: 8, Seed: 1}, s.Source)
	assert.Equal(t, "regular:n=1000000,d=8,weights=none,seed=1", s.String())
	again, err := ParseSpec(s.String())
	require.NoError(t, err)
	assert.Equal(t, s, again)
}
