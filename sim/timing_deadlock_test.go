package sim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// A quiet window alone does not make a deadlock: a loop that stores
// nothing for longer than the window, but whose state advances, must run
// to completion. bank_stride reads shared memory reps times after its fill
// and stores only at the end.
func TestTimingLongStoreFreeLoopIsNotADeadlock(t *testing.T) {
	d := timingDevice(t, func(c *Config) { c.SM.DeadlockWindowCycles = 2000 })
	k := lookup(t, "bank_stride")
	out, err := kernels.AllocSlice[uint32](d, 64)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const reps = 3000
	st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(64)}, out, uint32(32), uint32(reps))
	require.NoError(t, err)
	assert.Greater(t, st.Cycles, uint64(10*2000), "the loop ran far longer than the window without a store")
	got := make([]uint32, 64)
	require.NoError(t, kernels.Download(d, got, out))
	var want uint32
	for r := 0; r < reps; r++ {
		want += uint32((5*32 + 32*r) % 1024)
	}
	assert.Equal(t, want, got[5])
}

// The same short window still catches a real spin: the global barrier one
// CTA past the co-resident limit with an unbounded budget.
func TestTimingSpinIsADeadlockWithAShortWindow(t *testing.T) {
	d := timingDevice(t, func(c *Config) { c.SM.DeadlockWindowCycles = 2000 })
	k := lookup(t, "global_barrier")
	limit, err := d.Occupancy(k, 64, 0)
	require.NoError(t, err)
	grid := limit*d.Properties().SMs + 1
	mem := kernels.NewAllocations(d)
	defer mem.FreeAll()
	arrive, _ := kernels.Copy(mem, make([]uint32, grid))
	release, _ := kernels.Copy(mem, []uint32{0})
	counters, _ := kernels.Copy(mem, make([]uint32, 2))
	mismatches, _ := kernels.Copy(mem, []uint32{0})
	abort, err := kernels.Copy(mem, []int32{0})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(64)},
		arrive, release, counters, mismatches, uint32(2), uint32(0), abort)
	var dead *kernels.DeadlockError
	require.True(t, errors.As(err, &dead), "got %v", err)
	assert.Contains(t, dead.Detail, "keeps returning to the same state")
	assert.Contains(t, dead.Detail, "CTA slots")
}
