package scheduler

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

// The task form's first colouring tasks are every vertex once, ids that
// are close starting far apart; the rounds keep vertex order.
func TestColouringFirstTasksInBitReversedOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 5, 1000, 1024} {
		order := bitReversedOrder(n)
		sorted := slices.Clone(order)
		slices.Sort(sorted)
		for v := range sorted {
			require.Equal(t, uint32(v), sorted[v], "n=%d: a permutation of 0..n-1", n)
		}
		require.Len(t, order, n)
	}
	at := make([]int, 1024)
	for i, v := range bitReversedOrder(1024) {
		at[v] = i
	}
	for v := 0; v+1 < 1024; v += 2 {
		assert.Equal(t, 512, at[v+1]-at[v], "vertex %d and its successor start half the list apart", v)
	}
	g, err := graph.Load("grid:w=8,h=8", graph.LoadOptions{})
	require.NoError(t, err)
	tasks, err := setupColor(g, Params{})
	require.NoError(t, err)
	assert.Equal(t, bitReversedOrder(64), tasks.Start)
	rounds, err := setupColorRounds(g, Params{})
	require.NoError(t, err)
	for v, u := range rounds.Start {
		require.Equal(t, uint32(v), u, "rounds start in vertex order")
	}
}
