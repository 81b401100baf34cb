package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// TestHoistedLoadsComputeTheSameResults runs graph algorithms whose
// kernels gather through index arrays in timing mode with sm.hoist_loads
// on (ptx.HoistLoads reorders their blocks) and checks every result
// against the CPU reference, and that the reordering changed the timing
// of some cell (so it ran).
func TestHoistedLoadsComputeTheSameResults(t *testing.T) {
	g, err := graph.Load("rmat:scale=9+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	cells := []struct{ algo, variant string }{
		{"bfs", "bsp"}, {"sssp", "bsp"}, {"pr", "bsp"}, {"bp", "bsp"}, {"wcc", "bsp"},
		{"sssp", "vwc:k=8"}, {"sswp", "wseg"}, {"pr", "edge:cache=shared"}, {"bfs", "hq"},
	}
	changed := 0
	for _, c := range cells {
		t.Run(c.algo+"/"+c.variant, func(t *testing.T) {
			a, v := schedulerCell(t, c.algo, c.variant)
			var cycles [2]uint64
			for k, hoist := range []bool{false, true} {
				d := timingDevice(t, func(cfg *Config) { cfg.SM.HoistLoads = hoist })
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				res, err := scheduler.Enact(ctx, d, a, v, g, nil, scheduler.RunOptions{})
				cancel()
				require.NoError(t, err, "hoist_loads=%v", hoist)
				require.True(t, res.Validation.OK(), "hoist_loads=%v: %s", hoist, res.Validation.String())
				cycles[k] = res.Total.Cycles
			}
			t.Logf("cycles: %d in clang's order, %d hoisted", cycles[0], cycles[1])
			if cycles[0] != cycles[1] {
				changed++
			}
		})
	}
	assert.Positive(t, changed, "hoisting changed no cell's timing")
}

// schedulerCell looks up an algorithm and parses a scheduler variant,
// failing tb on either error.
func schedulerCell(tb testing.TB, algo, variant string) (*scheduler.Algorithm, scheduler.Variant) {
	tb.Helper()
	a, err := scheduler.LookupAlgorithm(algo)
	require.NoError(tb, err)
	v, err := scheduler.ParseVariant(variant)
	require.NoError(tb, err)
	return a, v
}
