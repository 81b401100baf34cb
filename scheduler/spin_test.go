package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

func TestBarrierStateWords(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		grid, want int
	}{
		{"monitor", 1, 65}, {"monitor", 132, 196},
		{"counter", 1, 65}, {"counter", 2112, 65},
		{"coop", 1056, 65},
		{"tree", 1, 72}, {"tree", 8, 72}, {"tree", 9, 64 + 8*3},
		{"tree", 64, 64 + 8*9}, {"tree", 65, 64 + 8*(9+2+1)},
		{"tree", 2112, 64 + 8*(264+33+5+1)},
	} {
		got, err := scheduler.BarrierStateWords(tc.kind, tc.grid)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s barrier over %d CTAs", tc.kind, tc.grid)
	}
	_, err := scheduler.BarrierStateWords("butterfly", 4)
	assert.ErrorContains(t, err, "monitor, counter, tree, coop")
	_, err = scheduler.BarrierStateWords("tree", 0)
	assert.Error(t, err)
	assert.True(t, scheduler.BarrierCooperative("coop"))
	assert.False(t, scheduler.BarrierCooperative("counter"))
}

func TestCheckBarrierState(t *testing.T) {
	s := make([]uint32, 68)
	s[0] = 5
	require.NoError(t, scheduler.CheckBarrierState("monitor", 4, 5, s))
	s[65] = 1
	assert.ErrorContains(t, scheduler.CheckBarrierState("monitor", 4, 5, s), "CTA 1's arrival flag")
	c := make([]uint32, 65)
	c[64] = 1 << 31
	require.NoError(t, scheduler.CheckBarrierState("coop", 4, 3, c))
	assert.ErrorContains(t, scheduler.CheckBarrierState("coop", 4, 4, c), "the arrival word")
	assert.ErrorContains(t, scheduler.CheckBarrierState("counter", 4, 0, c[:20]), "20 words")
}

func spinCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func tinySim(t *testing.T, mode sim.Mode) *sim.Device {
	t.Helper()
	dev, err := sim.Open("tiny", sim.WithMode(mode))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

// barrierRig holds one grid_barrier_<kind> kernel's buffers.
type barrierRig struct {
	dev                       kernels.Device
	k                         *kernels.Kernel
	kind                      string
	grid, block, rounds       int
	state, counters, mismatch kernels.DevPtr
	crossed                   int // barriers completed since the state was zeroed
	mem                       *kernels.Allocations
	cooperative               bool
}

func newBarrierRig(t *testing.T, dev kernels.Device, kind string, grid, block, rounds int) *barrierRig {
	t.Helper()
	k, err := kernels.Lookup("grid_barrier_" + kind)
	require.NoError(t, err)
	words, err := scheduler.BarrierStateWords(kind, grid)
	require.NoError(t, err)
	r := &barrierRig{dev: dev, k: k, kind: kind, grid: grid, block: block, rounds: rounds, mem: kernels.NewAllocations(dev),
		cooperative: scheduler.BarrierCooperative(kind)}
	t.Cleanup(func() { r.mem.FreeAll() })
	r.state, err = kernels.Copy(r.mem, make([]uint32, words))
	require.NoError(t, err)
	r.counters, err = kernels.Slice[uint32](r.mem, rounds)
	require.NoError(t, err)
	r.mismatch, err = kernels.Slice[uint32](r.mem, 1)
	require.NoError(t, err)
	return r
}

// run launches the kernel once (counters zeroed, the state as the last
// launch left it) through s and checks everything the kernel's comment
// block asks for.
func (r *barrierRig) run(ctx context.Context, s *scheduler.Spin) error {
	if err := r.dev.Memset(r.counters, 0, 4*r.rounds); err != nil {
		return err
	}
	if err := r.dev.Memset(r.mismatch, 0, 4); err != nil {
		return err
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(r.grid), Block: kernels.D1(r.block), Cooperative: r.cooperative}
	if _, err := s.Launch(ctx, r.k, cfg, r.state, r.counters, r.mismatch, uint32(r.rounds)); err != nil {
		return err
	}
	r.crossed += r.rounds
	var m [1]uint32
	if err := kernels.Download(r.dev, m[:], r.mismatch); err != nil {
		return err
	}
	if m[0] != 0 {
		return fmt.Errorf("%d CTA-rounds saw an incomplete round", m[0])
	}
	got := make([]uint32, r.rounds)
	if err := kernels.Download(r.dev, got, r.counters); err != nil {
		return err
	}
	g := uint32(r.grid)
	for i, c := range got {
		if c != g*(g+1)/2 {
			return fmt.Errorf("counters[%d] = %d, want %d", i, c, g*(g+1)/2)
		}
	}
	words, _ := scheduler.BarrierStateWords(r.kind, r.grid)
	st := make([]uint32, words)
	if err := kernels.Download(r.dev, st, r.state); err != nil {
		return err
	}
	return scheduler.CheckBarrierState(r.kind, r.grid, r.crossed, st)
}

func coResident(t *testing.T, dev kernels.Device, kind string, block int) int {
	t.Helper()
	k, err := kernels.Lookup("grid_barrier_" + kind)
	require.NoError(t, err)
	limit, err := scheduler.CoResidentGrid(dev, k, block, 0)
	require.NoError(t, err)
	return limit
}

// Every barrier completes at the co-resident grid, on the functional
// simulator and in timing mode (where weak loads may hit a stale L1: the
// barriers' polls must be strong), with blocks of one warp and of several,
// and a completed launch leaves the state ready for the next one.
func TestGridBarriersCompleteAtTheCoResidentGrid(t *testing.T) {
	for _, mode := range []sim.Mode{sim.ModeFunctional, sim.ModeTiming} {
		dev := tinySim(t, mode)
		for _, kind := range scheduler.BarrierKinds {
			for _, block := range []int{32, 96} {
				t.Run(fmt.Sprintf("%v/%s/block%d", mode, kind, block), func(t *testing.T) {
					grid := coResident(t, dev, kind, block)
					require.Greater(t, grid, 1)
					s, err := scheduler.NewSpin(dev, 100000)
					require.NoError(t, err)
					defer s.Free()
					r := newBarrierRig(t, dev, kind, grid, block, 3)
					require.NoError(t, r.run(spinCtx(t), s))
					require.NoError(t, r.run(spinCtx(t), s), "a second launch on the state the first left")
					// Smaller grids (1 CTA included) complete too.
					for _, g := range []int{1, 3} {
						require.NoError(t, newBarrierRig(t, dev, kind, g, block, 2).run(spinCtx(t), s), "%d CTAs", g)
					}
				})
			}
		}
	}
}

// A grid of 300 CTAs (the simulated H100 holds them all) gives the tree
// three levels (38 leaves, 5 inner nodes, the root) and the monitor CTA
// more flags than threads.
func TestGridBarriersOnAWideGrid(t *testing.T) {
	dev, err := sim.Open("h100", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	defer dev.Close()
	for _, kind := range scheduler.BarrierKinds {
		t.Run(kind, func(t *testing.T) {
			require.GreaterOrEqual(t, coResident(t, dev, kind, 128), 300)
			s, err := scheduler.NewSpin(dev, 0)
			require.NoError(t, err)
			defer s.Free()
			r := newBarrierRig(t, dev, kind, 300, 128, 2)
			require.NoError(t, r.run(spinCtx(t), s))
			require.NoError(t, r.run(spinCtx(t), s))
		})
	}
}

// One CTA past the co-resident grid: with the budget off the simulator's
// deadlock detector ends the launch; with a small budget the kernel aborts
// and Spin reports it; coop, launched cooperatively, is refused before it
// runs. The same Spin then runs a good grid (its flag cleared).
func TestGridBarriersOneCTAPastTheLimit(t *testing.T) {
	dev := tinySim(t, sim.ModeFunctional)
	for _, kind := range scheduler.BarrierKinds {
		t.Run(kind, func(t *testing.T) {
			const block = 64
			limit := coResident(t, dev, kind, block)
			s, err := scheduler.NewSpin(dev, 200)
			require.NoError(t, err)
			defer s.Free()
			over := newBarrierRig(t, dev, kind, limit+1, block, 2)
			if scheduler.BarrierCooperative(kind) {
				err := over.run(spinCtx(t), s)
				var res *kernels.LaunchResourceError
				require.True(t, errors.As(err, &res), "a cooperative grid past the limit is refused: %v", err)
				over.cooperative = false // what the refusal prevents
			}
			err = over.run(spinCtx(t), s)
			var spin *kernels.SpinBudgetError
			require.True(t, errors.As(err, &spin), "budget 200: %v", err)
			assert.Equal(t, "grid_barrier_"+kind, spin.Kernel)
			assert.Equal(t, uint32(200), spin.Budget)
			assert.Contains(t, spin.Error(), fmt.Sprintf("grid of %d CTAs of %d threads: at most %d can be resident", limit+1, block, limit))

			good := newBarrierRig(t, dev, kind, limit, block, 2)
			require.NoError(t, good.run(spinCtx(t), s), "the same Spin after an abort")

			s.Budget = 0
			over = newBarrierRig(t, dev, kind, limit+1, block, 2)
			over.cooperative = false
			err = over.run(spinCtx(t), s)
			var dead *kernels.DeadlockError
			require.True(t, errors.As(err, &dead), "budget 0: %v", err)
			assert.Contains(t, dead.Error(), "barrier.cuh", "the diagnosis names the barrier's source line")
		})
	}
}

// A small budget that a co-resident grid outlasts says so.
func TestSpinBudgetTooSmallForAGoodGrid(t *testing.T) {
	dev := tinySim(t, sim.ModeFunctional)
	limit := coResident(t, dev, "monitor", 64)
	_, err := scheduler.LaunchSpinning(spinCtx(t), dev, mustKernel(t, "grid_barrier_monitor"),
		kernels.LaunchConfig{Grid: kernels.D1(limit), Block: kernels.D1(64)}, 1,
		newBarrierRig(t, dev, "monitor", limit, 64, 1).bufs()...)
	var spin *kernels.SpinBudgetError
	require.True(t, errors.As(err, &spin), "%v", err)
	assert.Contains(t, spin.Error(), "all of which can be resident at once")
}

func (r *barrierRig) bufs() []any { return []any{r.state, r.counters, r.mismatch, uint32(r.rounds)} }

func mustKernel(t *testing.T, name string) *kernels.Kernel {
	t.Helper()
	k, err := kernels.Lookup(name)
	require.NoError(t, err)
	return k
}

func TestLaunchSpinningChecksTheProtocol(t *testing.T) {
	dev := tinySim(t, sim.ModeFunctional)
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}
	_, err := scheduler.LaunchSpinning(spinCtx(t), dev, mustKernel(t, "stream"), cfg, 10, kernels.DevPtr(0), kernels.DevPtr(0), kernels.DevPtr(0), uint32(0))
	assert.ErrorContains(t, err, "does not follow the spin protocol")
	_, err = scheduler.LaunchSpinning(spinCtx(t), dev, mustKernel(t, "grid_barrier_counter"), cfg, 10, kernels.DevPtr(0))
	assert.ErrorContains(t, err, "1 arguments before spin_budget, it takes 4")
}
