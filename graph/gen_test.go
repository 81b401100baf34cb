package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generate loads a generator spec, failing the test on error.
func generate(t testing.TB, spec string) *Graph {
	t.Helper()
	g, err := Load(spec, LoadOptions{})
	require.NoError(t, err, spec)
	require.NoError(t, g.Validate(), spec)
	return g
}

// digest hashes every array and flag of g: equal digests mean
// byte-identical graphs.
func digest(g *Graph) string {
	h := sha256.New()
	for _, a := range [][]uint32{g.Offsets, g.Targets, g.Weights} {
		_ = binary.Write(h, binary.LittleEndian, uint64(len(a)))
		_ = binary.Write(h, binary.LittleEndian, a)
	}
	_ = binary.Write(h, binary.LittleEndian, g.Directed)
	_ = binary.Write(h, binary.LittleEndian, g.Weights != nil)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// generatorSpecs covers every generator, directed and not, weighted and
// not, with the sparse and the dense (complement) path of er.
var generatorSpecs = []string{
	"rmat:scale=10",
	"rmat:scale=9,ef=8,a=0.45,b=0.25,c=0.15,directed=1,w=none",
	"rmat:scale=8,directed=1,weights=5..9",
	"grid:w=17,h=9",
	"grid:w=6,h=11,directed=1,w=1..1000",
	"er:n=1000,m=5000",
	"er:n=300,m=2000,directed=1,w=none",
	"er:n=40,m=700",              // dense: 700 of 780 pairs
	"er:n=30,m=800,directed=1",   // dense directed: 800 of 870
	"er:n=25,m=300,weights=2..3", // complete: all 300 pairs
	"er:n=20,m=0",                // no edges
}

func TestGeneratorsAreDeterministic(t *testing.T) {
	for _, spec := range generatorSpecs {
		t.Run(spec, func(t *testing.T) {
			assert.Equal(t, digest(generate(t, spec)), digest(generate(t, spec)))
		})
	}
}

func TestGeneratorSeedChangesTheGraph(t *testing.T) {
	for _, spec := range []string{
		"rmat:scale=10,w=none", "rmat:scale=10", "er:n=500,m=2000,w=none", "grid:w=10,h=10",
	} {
		t.Run(spec, func(t *testing.T) {
			assert.NotEqual(t, digest(generate(t, spec+",seed=1")), digest(generate(t, spec+",seed=2")))
		})
	}
	// The seed of a grid only draws weights.
	assert.Equal(t, digest(generate(t, "grid:w=10,h=10,w=none,seed=1")), digest(generate(t, "grid:w=10,h=10,w=none,seed=2")))
}

// TestGeneratorsGolden pins small graphs, so a change to the random
// streams, the chunking or the builder, which would silently change every
// experiment's input, fails here. Update the digests only on purpose.
func TestGeneratorsGolden(t *testing.T) {
	tests := []struct{ spec, digest string }{
		{"rmat:scale=10", "edc246139c0b27a6"},
		{"rmat:scale=9,directed=1,w=none", "ae1c9f73c61c088e"},
		{"grid:w=17,h=9", "1c8e2864372c910e"},
		{"er:n=1000,m=5000", "dbe838e635b21f43"},
		{"er:n=40,m=700,directed=1", "7b2c9bb02a66e4b4"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			assert.Equal(t, tc.digest, digest(generate(t, tc.spec)))
		})
	}
}

func TestGeneratorsIgnoreGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, spec := range []string{"rmat:scale=12", "er:n=5000,m=200000", "er:n=60,m=1500", "grid:w=300,h=200"} {
		t.Run(spec, func(t *testing.T) {
			var digests []string
			for _, procs := range []int{1, 2, 3, 8} {
				runtime.GOMAXPROCS(procs)
				digests = append(digests, digest(generate(t, spec)))
			}
			for _, d := range digests[1:] {
				assert.Equal(t, digests[0], d)
			}
		})
	}
}

// checkSimple asserts sorted adjacencies without self-loops or duplicates.
// It compares by hand and asserts only on failure: testify per edge would
// dominate the test time.
func checkSimple(t *testing.T, g *Graph) {
	t.Helper()
	for v := 0; v < g.NumVertices(); v++ {
		ns := g.Neighbors(uint32(v))
		for i, x := range ns {
			if x == uint32(v) {
				t.Fatalf("self-loop at %d", v)
			}
			if i > 0 && ns[i-1] >= x {
				t.Fatalf("vertex %d: targets %v not strictly increasing", v, ns)
			}
		}
	}
}

// checkSymmetric asserts that every edge is stored both ways with one
// weight; adjacencies must be sorted.
func checkSymmetric(t *testing.T, g *Graph) {
	t.Helper()
	for u := 0; u < g.NumVertices(); u++ {
		for i, v := range g.Neighbors(uint32(u)) {
			j, found := slices.BinarySearch(g.Neighbors(v), uint32(u))
			if !found {
				t.Fatalf("edge %d->%d has no reverse", u, v)
			}
			if g.Weights != nil && g.EdgeWeights(uint32(u))[i] != g.EdgeWeights(v)[j] {
				t.Fatalf("weights of %d->%d and back differ: %d, %d", u, v, g.EdgeWeights(uint32(u))[i], g.EdgeWeights(v)[j])
			}
		}
	}
}

func indexOf(s []uint32, x uint32) int {
	if i, found := slices.BinarySearch(s, x); found {
		return i
	}
	return -1
}

func TestGeneratedGraphsAreSimpleAndSymmetric(t *testing.T) {
	for _, spec := range generatorSpecs {
		t.Run(spec, func(t *testing.T) {
			s, err := ParseSpec(spec)
			require.NoError(t, err)
			g := generate(t, spec)
			checkSimple(t, g)
			assert.Equal(t, strings.Contains(s.String(), "directed=1"), g.Directed)
			if !g.Directed {
				checkSymmetric(t, g)
			}
		})
	}
}

func TestGeneratedWeightRanges(t *testing.T) {
	tests := []struct {
		spec   string
		lo, hi uint32 // 0, 0: unweighted
	}{
		{"rmat:scale=9", 1, 64},
		{"rmat:scale=9,w=none", 0, 0},
		{"rmat:scale=9,weights=none", 0, 0},
		{"rmat:scale=9,w=7..7", 7, 7},
		{"grid:w=30,h=30", 1, 64},
		{"grid:w=30,h=30,w=100..200", 100, 200},
		{"grid:w=30,w=1..2,h=30", 1, 2},
		{"er:n=400,m=3000,weights=1..4294967295", 1, 4294967295},
		{"er:n=400,m=3000,directed=1,w=3..5", 3, 5},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			g := generate(t, tc.spec)
			if tc.hi == 0 {
				assert.Nil(t, g.Weights)
				return
			}
			require.Len(t, g.Weights, g.NumEdges())
			seen := map[uint32]bool{}
			for _, w := range g.Weights {
				require.True(t, w >= tc.lo && w <= tc.hi, "weight %d outside %d..%d", w, tc.lo, tc.hi)
				seen[w] = true
			}
			if span := tc.hi - tc.lo + 1; span <= 64 {
				assert.Len(t, seen, int(span), "every weight in a small range should occur")
			}
		})
	}
}

func TestGeneratorWeightsEqualRandomWeights(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9,seed=7", "grid:w=20,h=20,seed=7,directed=1", "er:n=300,m=900,seed=7"} {
		t.Run(spec, func(t *testing.T) {
			plain := generate(t, spec+",w=none")
			rw, err := RandomWeights(plain, 1, 64, 7)
			require.NoError(t, err)
			assert.Equal(t, digest(generate(t, spec)), digest(rw))
			assert.Equal(t, digest(generate(t, spec)), digest(generate(t, spec+",w=none+rw=7")))
		})
	}
}

func TestGridStructure(t *testing.T) {
	tests := []struct{ w, h int }{{1, 1}, {1, 7}, {9, 1}, {2, 2}, {5, 3}, {64, 48}}
	for _, tc := range tests {
		t.Run(Grid{Width: tc.w, Height: tc.h}.String(), func(t *testing.T) {
			g, err := Grid{Width: tc.w, Height: tc.h}.Load(nil)
			require.NoError(t, err)
			require.Equal(t, tc.w*tc.h, g.NumVertices())
			assert.Equal(t, 2*((tc.w-1)*tc.h+tc.w*(tc.h-1)), g.NumEdges())
			for v := 0; v < g.NumVertices(); v++ {
				x, y := v%tc.w, v/tc.w
				want := 0
				for _, ok := range []bool{x > 0, x < tc.w-1, y > 0, y < tc.h-1} {
					if ok {
						want++
					}
				}
				require.Equal(t, want, g.OutDegree(uint32(v)), "vertex (%d,%d)", x, y)
				for _, u := range g.Neighbors(uint32(v)) {
					ux, uy := int(u)%tc.w, int(u)/tc.w
					require.Equal(t, 1, abs(ux-x)+abs(uy-y), "(%d,%d)-(%d,%d) are not mesh neighbours", x, y, ux, uy)
				}
			}
			checkSimple(t, g)
			checkSymmetric(t, g)
			assert.Equal(t, tc.w+tc.h-2, ComputeStats(g).DiameterLowerBound)
		})
	}
}

func abs(x int) int { return max(x, -x) }

func TestEREdgeCounts(t *testing.T) {
	tests := []struct {
		n, m     int
		directed bool
	}{
		{1, 0, false}, {2, 1, false}, {2, 2, true}, {100, 0, true},
		{1000, 4000, false}, {1000, 4000, true},
		{50, 600, false}, {50, 1225, false}, {50, 2450, true}, {50, 1300, true},
		{3000, 1_000_000, false}, // many bulk duplicates to top up
	}
	for _, tc := range tests {
		p := ER{N: tc.n, M: tc.m, Directed: tc.directed, Seed: 3}
		t.Run(p.String(), func(t *testing.T) {
			g, err := p.Load(nil)
			require.NoError(t, err)
			want := tc.m
			if !tc.directed {
				want *= 2
			}
			assert.Equal(t, tc.n, g.NumVertices())
			assert.Equal(t, want, g.NumEdges())
			checkSimple(t, g)
		})
	}
}

func TestERIsRoughlyUniform(t *testing.T) {
	// Binomial degrees: mean 2m/n = 20, so no vertex should be far off.
	g := generate(t, "er:n=2000,m=20000,w=none")
	s := ComputeStats(g)
	assert.InDelta(t, 20, s.AvgDegree, 1e-9)
	assert.Greater(t, s.MinDegree, 3)
	assert.Less(t, s.MaxDegree, 45)
}

func TestRMATIsSkewed(t *testing.T) {
	g := generate(t, "rmat:scale=12,w=none")
	s := ComputeStats(g)
	assert.Equal(t, uint32(0), g.MaxDegreeVertex(), "quadrant a is heaviest, so vertex 0 is the hub")
	assert.Greater(t, float64(s.MaxDegree), 20*s.AvgDegree)
	assert.Greater(t, s.DegreeHistogram[0], 0, "R-MAT leaves vertices isolated")
	assert.Less(t, s.DiameterLowerBound, 12)
}

func TestRMATDescendPicksQuadrants(t *testing.T) {
	const tA, tAB, tABC = 100, 200, 300
	tests := []struct {
		x        uint64
		row, col uint32
	}{
		{0, 0, 0}, {99, 0, 0}, {100, 0, 1}, {199, 0, 1},
		{200, 1, 0}, {299, 1, 0}, {300, 1, 1}, {1 << 31, 1, 1},
	}
	for _, tc := range tests {
		u, v := rmatDescend(1, 0, tc.x, tA, tAB, tABC)
		assert.Equal(t, 2|tc.row, u, "x=%d", tc.x)
		assert.Equal(t, tc.col, v, "x=%d", tc.x)
	}
}

func TestGeneratorProgress(t *testing.T) {
	for _, spec := range []string{"rmat:scale=10", "grid:w=100,h=100", "er:n=1000,m=4000"} {
		t.Run(spec, func(t *testing.T) {
			last := map[string][2]int64{}
			var order []string
			_, err := Load(spec+"+sym", LoadOptions{Progress: func(stage string, done, total int64) {
				prev, ok := last[stage]
				if !ok {
					order = append(order, stage)
				}
				assert.GreaterOrEqual(t, done, prev[0], "stage %s went backwards", stage)
				last[stage] = [2]int64{done, total}
			}})
			require.NoError(t, err)
			require.Contains(t, order, "generate")
			assert.Equal(t, "generate", order[0])
			assert.Equal(t, "sym", order[len(order)-1])
			for stage, dt := range last {
				assert.Equal(t, dt[1], dt[0], "stage %s did not finish", stage)
			}
		})
	}
}
