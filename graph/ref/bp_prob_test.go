package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// The two forms agree on every kind of graph the reference handles:
// undirected, directed with one-way and reciprocal edges, parallel edges,
// self-loops, hubs whose fields saturate.
func TestBeliefPropagationProbabilityAgreesWithLogOdds(t *testing.T) {
	graphs := randomGraphs(t)
	graphs["self-loop and surplus parallel edges"] = buildGraph(t, 3, true, edge{0, 0, 0}, edge{0, 1, 0}, edge{0, 1, 0}, edge{1, 0, 0}, edge{1, 2, 0})
	star := []edge{}
	for v := uint32(1); v < 3000; v++ {
		star = append(star, edge{0, v, 0})
	}
	graphs["star of 3000 (saturated hub)"] = buildGraph(t, 3000, false, star...)
	for name, g := range graphs {
		t.Run(name, func(t *testing.T) {
			for _, seed := range []uint64{1, 7} {
				priors := BPPriors(g.NumVertices(), seed)
				logOdds, err := BeliefPropagationWithPriors(g, priors)
				require.NoError(t, err)
				probability, err := BeliefPropagationProbability(g, priors)
				require.NoError(t, err)
				for v := range logOdds {
					assert.InDelta(t, logOdds[v], probability[v], BPCrossCheckTolerance, "vertex %d", v)
				}
				assert.True(t, CheckBeliefPropagation(g, seed, logOdds).OK())
			}
		})
	}
}

// The probability form matches exact marginals on a tree, where loopy BP
// is exact, independently of the log-odds form.
func TestBeliefPropagationProbabilityIsExactOnTrees(t *testing.T) {
	edges := []edge{{0, 1, 0}, {1, 2, 0}, {1, 3, 0}, {3, 4, 0}}
	g := buildGraph(t, 5, false, edges...)
	priors := []float64{0.2, 0.7, 0.4, 0.9, 0.5}
	got, err := BeliefPropagationProbability(g, priors)
	require.NoError(t, err)
	assert.InDeltaSlice(t, bruteForceMarginals(5, edges, priors), got, 1e-12)
}

// The check catches a wrong result: one belief moved by more than the
// tolerance, a wrong length, beliefs of another seed.
func TestCheckBeliefPropagationCatchesWrongBeliefs(t *testing.T) {
	g := randomGraph(t, 3, 200, 800, false, 1)
	beliefs := BeliefPropagation(g, 5)
	require.True(t, CheckBeliefPropagation(g, 5, beliefs).OK())

	moved := append([]float64(nil), beliefs...)
	moved[17] += 1e-6
	r := CheckBeliefPropagation(g, 5, moved)
	assert.Equal(t, 1, r.Mismatches)
	assert.Equal(t, uint32(17), r.First[0].Vertex)

	assert.NotEmpty(t, CheckBeliefPropagation(g, 5, beliefs[:10]).Fault)
	assert.False(t, CheckBeliefPropagation(g, 6, beliefs).OK(), "another seed's priors")
}

func TestBeliefPropagationProbabilityRejectsBadPriors(t *testing.T) {
	g := buildGraph(t, 2, false, edge{0, 1, 0})
	_, err := BeliefPropagationProbability(g, []float64{0.5})
	assert.Error(t, err)
	_, err = BeliefPropagationProbability(g, []float64{0.5, 1.5})
	assert.Error(t, err)
	empty, err := BeliefPropagationProbability(&graph.Graph{Offsets: []uint32{0}}, nil)
	assert.NoError(t, err)
	assert.Empty(t, empty)
}
