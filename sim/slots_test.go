package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim/exec"
)

// TestRegisterSlotSharingMovesNothing: registers that share rows of the
// executor's register file (exec.SetSlotSharing, ptx.Function.Slots) give
// the same results, cycles, counters and deadlock diagnoses as a row per
// register, in timing mode: BFS on two graphs, the spins the watchdog
// diagnoses (its state hash covers the register file) and the lock that
// independent thread scheduling runs inside a call.
func TestRegisterSlotSharingMovesNothing(t *testing.T) {
	type outcome struct {
		Cycles   uint64
		Counters map[string]float64
		Err      string
	}
	cases := map[string]func(t *testing.T) outcome{}
	bfs, bsp := schedulerCell(t, "bfs", "bsp")
	for _, spec := range []string{"rmat:scale=8+perm=1", "grid:w=12,h=12"} {
		cases["bfs "+spec] = func(t *testing.T) outcome {
			g, err := graph.Load(spec, graph.LoadOptions{})
			require.NoError(t, err)
			d := timingDevice(t, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := scheduler.Enact(ctx, d, bfs, bsp, g, nil, scheduler.RunOptions{Block: 128})
			require.NoError(t, err)
			require.True(t, res.Validation.OK(), res.Validation.String())
			return outcome{Cycles: res.Total.Cycles, Counters: res.Total.Counters}
		}
	}
	for _, tc := range spinCases() {
		cases["spin "+tc.name] = func(t *testing.T) outcome {
			d := tinyDevice(t, WithMode(ModeTiming))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			st, err := d.Launch(ctx, progressKernel(t, tc.kernel), kernels.LaunchConfig{Grid: kernels.D1(tc.grid), Block: kernels.D1(64)}, tc.args(t, d)...)
			var dl *kernels.DeadlockError
			require.ErrorAs(t, err, &dl)
			return outcome{Cycles: st.Cycles, Counters: st.Counters, Err: err.Error()}
		}
	}
	cases["lock in a call"] = func(t *testing.T) outcome {
		d := configDevice(t, "tiny", WithMode(ModeTiming))
		const grid, block = 2, 64
		args := []any{zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, grid*block), zeros[uint32](t, d, grid*block)}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		st, err := d.Launch(ctx, testdataKernel(t, "its", "lock_in_call"), kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
		require.NoError(t, err)
		return outcome{Cycles: st.Cycles, Counters: st.Counters}
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			var got [2]outcome
			for i, share := range []bool{false, true} {
				was := exec.SetSlotSharing(share)
				got[i] = run(t)
				exec.SetSlotSharing(was)
			}
			assert.Positive(t, got[0].Cycles)
			assert.Equal(t, got[0], got[1], "a row per register, then shared rows")
			t.Log(fmt.Sprintf("%d cycles", got[1].Cycles))
		})
	}
}
