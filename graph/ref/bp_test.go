package ref

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// splitmix64 is the textbook sequential generator (Steele, Lea, Flood),
// written independently of BPPrior to pin its formula.
type splitmix64 struct{ state uint64 }

func (s *splitmix64) next() uint64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func TestBPPriorIsSplitmix64(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, math.MaxUint64} {
		gen := splitmix64{seed}
		priors := BPPriors(1000, seed)
		for v, p := range priors {
			want := 0.1 + 0.8*float64(gen.next()>>11)/(1<<53)
			require.Equal(t, want, p, "seed %d vertex %d", seed, v)
			require.Equal(t, p, BPPrior(seed, uint32(v)))
			require.GreaterOrEqual(t, p, BPPriorMin)
			require.Less(t, p, BPPriorMax)
		}
	}
	// Known value: splitmix64 seeded with 0 first yields 0xE220A8397B1DCDAF.
	assert.Equal(t, 0.1+0.8*float64(uint64(0xE220A8397B1DCDAF)>>11)/(1<<53), BPPrior(0, 0))
	assert.NotEqual(t, BPPriors(10, 1), BPPriors(10, 2), "seeds differ")
}

func TestBPReverseEdges(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		// pairs lists (u, v) of stored edges expected to be paired; every
		// other edge must be unpaired.
		pairs [][2]uint32
	}{
		{"undirected pairs everything", 3, false, []edge{{0, 1, 0}, {1, 2, 0}}, [][2]uint32{{0, 1}, {1, 2}}},
		{"directed one-way edge is unpaired", 2, true, []edge{{0, 1, 0}}, nil},
		{"directed reciprocal edges pair", 3, true, []edge{{0, 1, 0}, {1, 0, 0}, {1, 2, 0}}, [][2]uint32{{0, 1}}},
		{"surplus parallel copies stay unpaired", 2, true, []edge{{0, 1, 0}, {0, 1, 0}, {1, 0, 0}}, [][2]uint32{{0, 1}}},
		{"self-loop is unpaired", 2, false, []edge{{0, 0, 0}, {0, 1, 0}}, [][2]uint32{{0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			reverse := BPReverseEdges(g)
			require.Len(t, reverse, g.NumEdges())
			paired := 0
			for u := uint32(0); int(u) < g.NumVertices(); u++ {
				for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
					r := reverse[e]
					if r == NoEdge {
						continue
					}
					paired++
					assert.Equal(t, e, reverse[r], "pairing is symmetric")
					assert.Equal(t, u, g.Targets[r], "edge %d's partner points back", e)
				}
			}
			assert.Equal(t, 2*len(tc.pairs), paired)
		})
	}
}

func TestBPReverseEdgesOnUnsortedAdjacency(t *testing.T) {
	// A hand-made CSR whose adjacency of vertex 0 is not sorted.
	g := &graph.Graph{
		Offsets:  []uint32{0, 3, 4, 5},
		Targets:  []uint32{2, 1, 2, 0, 0},
		Directed: true,
	}
	require.NoError(t, g.Validate())
	reverse := BPReverseEdges(g)
	// 0->2 (edge 0) pairs with 2->0 (edge 4); the second copy (edge 2)
	// stays unpaired; 0->1 (edge 1) pairs with 1->0 (edge 3).
	assert.Equal(t, []uint32{4, 3, NoEdge, 1, 0}, reverse)
}

func TestBeliefPropagationHandChecked(t *testing.T) {
	const a, b = BPSameState, 1 - BPSameState
	// Single directed edge 0->1: the message reaches 1 only, and is the
	// prior of 0 pushed through the potential.
	p0, p1 := 0.8, 0.3
	m1 := b*(1-p0) + a*p0 // m(x1 = 1), already normalised
	directedEdge := []float64{p0, p1 * m1 / (p1*m1 + (1-p1)*(1-m1))}
	tests := []struct {
		name     string
		n        int
		directed bool
		edges    []edge
		priors   []float64
		want     []float64
	}{
		{"isolated vertices keep their priors", 3, false, nil, []float64{0.2, 0.5, 0.9}, []float64{0.2, 0.5, 0.9}},
		{"self-loops carry no message", 1, false, []edge{{0, 0, 0}}, []float64{0.3}, []float64{0.3}},
		{"directed edge informs its target only", 2, true, []edge{{0, 1, 0}}, []float64{p0, p1}, directedEdge},
		{"uniform priors stay uniform", 4, false, []edge{{0, 1, 0}, {1, 2, 0}, {2, 0, 0}, {2, 3, 0}}, []float64{0.5, 0.5, 0.5, 0.5}, []float64{0.5, 0.5, 0.5, 0.5}},
		{"certain prior stays certain", 2, false, []edge{{0, 1, 0}}, []float64{1, 0.5}, []float64{1, 0.9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, tc.n, tc.directed, tc.edges...)
			beliefs, err := BeliefPropagationWithPriors(g, tc.priors)
			require.NoError(t, err)
			assert.InDeltaSlice(t, tc.want, beliefs, 1e-12)
		})
	}
}

func TestBeliefPropagationIsSymmetric(t *testing.T) {
	// Flipping every prior (p -> 1-p) flips every belief, because the
	// potential treats both states alike; a prior of 0.5 everywhere is its
	// own flip, so it must give 0.5.
	g := randomGraph(t, 31, 200, 900, false, 0)
	priors := BPPriors(g.NumVertices(), 7)
	flipped := make([]float64, len(priors))
	for v, p := range priors {
		flipped[v] = 1 - p
	}
	beliefs, err := BeliefPropagationWithPriors(g, priors)
	require.NoError(t, err)
	mirrored, err := BeliefPropagationWithPriors(g, flipped)
	require.NoError(t, err)
	for v := range beliefs {
		assert.InDelta(t, 1, beliefs[v]+mirrored[v], 1e-12, "vertex %d", v)
	}
}

func TestBeliefPropagationIsExactOnTrees(t *testing.T) {
	// On a tree, BP computes the true marginals once the rounds exceed the
	// diameter; trees of at most 10 vertices have diameter at most 9.
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 20; trial++ {
		n := 2 + rng.IntN(9)
		var edges []edge
		for v := 1; v < n; v++ {
			edges = append(edges, edge{uint32(rng.IntN(v)), uint32(v), 0})
		}
		g := buildGraph(t, n, false, edges...)
		priors := BPPriors(n, uint64(trial))
		beliefs, err := BeliefPropagationWithPriors(g, priors)
		require.NoError(t, err)
		assert.InDeltaSlice(t, bruteForceMarginals(n, edges, priors), beliefs, 1e-9, "tree %v", edges)
	}
}

// bruteForceMarginals sums the joint distribution over all 2^n states.
func bruteForceMarginals(n int, edges []edge, priors []float64) []float64 {
	ones := make([]float64, n)
	var total float64
	for state := 0; state < 1<<n; state++ {
		bit := func(v uint32) int { return state >> v & 1 }
		w := 1.0
		for v := 0; v < n; v++ {
			if bit(uint32(v)) == 1 {
				w *= priors[v]
			} else {
				w *= 1 - priors[v]
			}
		}
		for _, e := range edges {
			if bit(e.u) == bit(e.v) {
				w *= BPSameState
			} else {
				w *= 1 - BPSameState
			}
		}
		total += w
		for v := 0; v < n; v++ {
			if bit(uint32(v)) == 1 {
				ones[v] += w
			}
		}
	}
	for v := range ones {
		ones[v] /= total
	}
	return ones
}

func TestBeliefPropagationProperties(t *testing.T) {
	for name, g := range randomGraphs(t) {
		t.Run(name, func(t *testing.T) {
			beliefs := BeliefPropagation(g, 3)
			require.Len(t, beliefs, g.NumVertices())
			for v, b := range beliefs {
				assert.True(t, b >= 0 && b <= 1, "belief %v of vertex %d is not a probability", b, v)
			}
		})
	}
}

func TestBeliefPropagationDoesNotDependOnCores(t *testing.T) {
	g := randomGraph(t, 41, 2*chunkSize+5, 5*chunkSize, true, 0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	serial := BeliefPropagation(g, 9)
	runtime.GOMAXPROCS(4)
	assert.Equal(t, serial, BeliefPropagation(g, 9), "beliefs must be bit-identical")
}

func TestBeliefPropagationRejectsBadPriors(t *testing.T) {
	g := buildGraph(t, 2, false, edge{0, 1, 0})
	_, err := BeliefPropagationWithPriors(g, []float64{0.5})
	assert.ErrorContains(t, err, "1 priors for 2 vertices")
	_, err = BeliefPropagationWithPriors(g, []float64{0.5, math.NaN()})
	assert.ErrorContains(t, err, "vertex 1")
	_, err = BeliefPropagationWithPriors(g, []float64{1.5, 0.5})
	assert.ErrorContains(t, err, "vertex 0")
}

func TestBPMessageMatchesTheTanhForm(t *testing.T) {
	const coupling = 2*BPSameState - 1
	for _, h := range []float64{0, 1e-9, -1e-9, 0.3, -0.3, 1, -2.5, 7, -30, 700, -700} {
		want := 2 * math.Atanh(coupling*math.Tanh(h/2))
		assert.InDelta(t, want, bpMessage(h), 1e-14, "h = %v", h)
	}
	assert.InDelta(t, math.Log(9), bpMessage(math.Inf(1)), 1e-15)
	assert.InDelta(t, -math.Log(9), bpMessage(math.Inf(-1)), 1e-15)
}

func TestBPMessageSaturationChangesNoBit(t *testing.T) {
	const a, b = BPSameState, 1 - BPSameState
	for _, h := range []float64{bpSaturation, bpSaturation + 0.5, 100, 1e300} {
		x := math.Exp(-h)
		assert.Equal(t, math.Log((a+b*x)/(b+a*x)), bpMessage(h), "h = %v", h)
		assert.Equal(t, -math.Log((a+b*x)/(b+a*x)), bpMessage(-h), "h = %v", -h)
	}
}
