package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// The driver speaks only kernels.Device; the functional simulator stands in
// for the GPU here (hardware runs use the same code through hw).
func functionalDevice(t *testing.T) *sim.Device {
	t.Helper()
	dev, err := sim.Open("tiny", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

func TestBFSTopDownMatchesReference(t *testing.T) {
	dev := functionalDevice(t)
	for _, spec := range []string{"rmat:scale=11", "grid:w=40,h=30", "er:n=500,m=600,directed=1", "rmat:scale=8+perm=3"} {
		t.Run(spec, func(t *testing.T) {
			g, err := graph.Load(spec, graph.LoadOptions{})
			require.NoError(t, err)
			src := g.MaxDegreeVertex()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := scheduler.BFSTopDown(ctx, dev, g, src, scheduler.BFSOptions{BlockThreads: 64})
			require.NoError(t, err)
			rep := ref.ValidateBFS(g, src, res.Depths)
			assert.True(t, rep.OK(), rep.String())
			// One launch per level: the last launch finds nothing new.
			want := ref.BFS(g, src)
			maxDepth := 0
			for _, d := range want {
				if d != ref.Unreached {
					maxDepth = max(maxDepth, int(d))
				}
			}
			require.Len(t, res.Levels, maxDepth+1)
			assert.Equal(t, 0, res.Levels[maxDepth].Discovered)
			assert.Equal(t, 1, res.Levels[0].FrontierSize)
			assert.Positive(t, res.Total.Counters["thread_instructions"])
		})
	}
}

func TestBFSTopDownRejectsBadInput(t *testing.T) {
	dev := functionalDevice(t)
	g, err := graph.Load("grid:w=4,h=4", graph.LoadOptions{})
	require.NoError(t, err)
	_, err = scheduler.BFSTopDown(context.Background(), dev, g, 16, scheduler.BFSOptions{})
	assert.ErrorContains(t, err, "source 16 is not a vertex")
	_, err = scheduler.BFSTopDown(context.Background(), dev, g, 0, scheduler.BFSOptions{BlockThreads: 48})
	assert.ErrorContains(t, err, "not a multiple of the warp size")
}
