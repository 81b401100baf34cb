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

// TestAnsweredHitsKeepTheFigures runs graph algorithms under several
// schedulers in timing mode twice, with every L1 hit sent through the
// memory system as messages (withHitsAsMessages) and with hits answered
// at once (the default), and checks that every figure and every result is
// the same, and that hits were answered at once in the cells whose kernels
// have no fence (sim/timing's lsu.answersAtOnce).
func TestAnsweredHitsKeepTheFigures(t *testing.T) {
	cells := []struct {
		config, graph, algo, variant string
		answered                     bool
	}{
		{"h100", "rmat:scale=11+perm=1", "bfs", "bsp", true},
		{"tiny", "rmat:scale=9+perm=1", "sssp", "simdx", true},
		{"h100", "rmat:scale=9+perm=1", "pr", "vwc:k=8", true},
		{"tiny", "rmat:scale=9+perm=1", "wcc", "edge", true},
		{"tiny", "rmat:scale=9+perm=1", "bfs", "hq", true},
		{"h100", "grid:w=12,h=12", "sssp", "hq", true},
		{"tiny", "rmat:scale=9+perm=1", "color", "bsp", true},
		{"h100", "rmat:scale=9+perm=1", "bfs", "atos", false}, // Atos's queue has fences
	}
	for _, c := range cells {
		t.Run(c.config+"/"+c.graph+"/"+c.algo+"/"+c.variant, func(t *testing.T) {
			g, err := graph.Load(c.graph, graph.LoadOptions{})
			require.NoError(t, err)
			a, v := schedulerCell(t, c.algo, c.variant)
			cfg, err := ConfigByName(c.config)
			require.NoError(t, err)
			run := func(opts ...Option) (*scheduler.Result, uint64) {
				d, err := New(cfg, append(opts, WithMode(ModeTiming))...)
				require.NoError(t, err)
				defer d.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res, err := scheduler.Enact(ctx, d, a, v, g, nil, scheduler.RunOptions{})
				require.NoError(t, err)
				require.True(t, res.Validation.OK(), res.Validation.String())
				return res, d.gpu.LoadsAnsweredAtOnce()
			}
			want, none := run(withHitsAsMessages())
			got, answered := run()
			assert.Zero(t, none)
			if c.answered {
				assert.Positive(t, answered, "loads answered at once")
			} else {
				assert.Zero(t, answered)
			}
			assert.Equal(t, want.Total, got.Total, "the run's figures")
			assert.Equal(t, want.Iterations, got.Iterations, "each iteration's")
			assert.Equal(t, want.Values, got.Values, "the result")
			t.Logf("%d cycles, %d loads answered at once", got.Total.Cycles, answered)
		})
	}
}

// TestProfiledRunsSendHitsAsMessages checks that a profiled run is charged
// cycle for cycle as one that sends every L1 hit as messages: the profiler
// charges a warp's cycles at the ticks it looks at the warp, which
// answered hits would spare (sim/timing's lsu.answersAtOnce).
func TestProfiledRunsSendHitsAsMessages(t *testing.T) {
	g, err := graph.Load("rmat:scale=10+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	a, v := schedulerCell(t, "bfs", "bsp")
	cfg, err := ConfigByName("h100")
	require.NoError(t, err)
	run := func(opts ...Option) (*ProfileReport, uint64) {
		d, err := New(cfg, append(opts, WithMode(ModeTiming), WithProfile())...)
		require.NoError(t, err)
		defer d.Close()
		res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, scheduler.RunOptions{})
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		return d.Profile().Report(), d.gpu.LoadsAnsweredAtOnce()
	}
	want, _ := run(withHitsAsMessages())
	got, answered := run()
	assert.Zero(t, answered)
	assert.Equal(t, want, got)
}
