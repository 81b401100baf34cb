package sim

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// The deadlock detector's one definition of progress, in both modes: a
// store or atomic that changes memory, a warp or CTA starting or
// finishing. Spins that only read (atomicAdd(flag, 0), a failing
// atomicCAS, %clock), store what is already there or cross barriers are
// deadlocks, named by the line they spin on; loops
// that look alike but change memory, or that wait on the clock for less
// than the window, finish. The kernels are sim/testdata/progress.cu.

// TestProgressTestdataFresh recompiles testdata/progress.cu when clang++-16
// is present and checks that the committed progress.ptx matches.
func TestProgressTestdataFresh(t *testing.T) { checkTestdataFresh(t, "progress") }

// progressKernel returns a kernel of testdata/progress.ptx.
func progressKernel(t testing.TB, name string) *kernels.Kernel {
	return testdataKernel(t, "progress", name)
}

// spinCase is a launch that spins without changing memory.
type spinCase struct {
	name   string
	kernel string
	grid   int
	// args allocates the arguments on d.
	args func(t *testing.T, d *Device) []any
	// site matches how the error names the spinning instruction.
	site string
}

func spinCases() []spinCase {
	return []spinCase{
		{
			name: "atomicAdd(flag, 0)", kernel: "spin_atomic_read", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 3), int32(10), int32(0), uint32(0)}
			},
			site: "spinning on the atomic at PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./sim/testdata/progress\\.cu:34\\) `atom\\.global\\.add\\.u32",
		},
		{
			name: "failing atomicCAS", kernel: "spin_lock", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{upload(t, d, []uint32{1}), zeros[uint32](t, d, 1)}
			},
			site: "spinning on the atomic at PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./sim/testdata/progress\\.cu:47\\) `atom\\.global\\.cas\\.b32",
		},
		{
			name: "poll reading %clock64", kernel: "spin_clock", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{zeros[uint32](t, d, 1), zeros[uint64](t, d, 3)}
			},
			site: "spinning on the clock read at PTX line \\d+ \\(\\./sim/testdata/progress\\.cu:63\\) `mov\\.u64\\s+%rd\\d+, %clock64` and the load at PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./sim/testdata/progress\\.cu:64\\) `ld\\.volatile\\.global",
		},
		{
			name: "loop reading only %clock", kernel: "spin_clock32", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{zeros[uint32](t, d, 3)}
			},
			site: "spinning on the clock read at PTX line \\d+ \\(\\./sim/testdata/progress\\.cu:77\\) `mov\\.u32\\s+%r\\d+, %clock`",
		},
		{
			name: "poll storing the value already there", kernel: "spin_store_same", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{zeros[uint32](t, d, 1), zeros[uint32](t, d, 3)}
			},
			site: "spinning on the load at PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./sim/testdata/progress\\.cu:100\\) `ld\\.volatile\\.global",
		},
		{
			name: "poll between barriers", kernel: "spin_barrier", grid: 3,
			args: func(t *testing.T, d *Device) []any {
				return []any{zeros[uint32](t, d, 1), zeros[uint32](t, d, 3*64)}
			},
			site: "spinning on the loads at PTX line \\d+ \\(\\./sim/testdata/progress\\.cu:113\\) `ld\\.shared\\.u32 .*` and PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./sim/testdata/progress\\.cu:111\\) `ld\\.volatile\\.global",
		},
	}
}

// TestProgressSpinsAreDeadlocks: each spin that changes no memory ends
// with a DeadlockError naming its line, in both modes, long before the
// context's deadline.
func TestProgressSpinsAreDeadlocks(t *testing.T) {
	for _, tc := range spinCases() {
		t.Run(tc.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, d *Device) {
				k := progressKernel(t, tc.kernel)
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				start := time.Now()
				st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(tc.grid), Block: kernels.D1(64)}, tc.args(t, d)...)
				wall := time.Since(start)
				var dl *kernels.DeadlockError
				require.True(t, errors.As(err, &dl), "got %v", err)
				assert.False(t, errors.Is(err, context.DeadlineExceeded), "diagnosed, not stopped by the deadline: %v", err)
				assert.Equal(t, tc.kernel, dl.Kernel)
				assert.Regexp(t, regexp.MustCompile(tc.site), dl.Detail)
				assert.Contains(t, dl.Detail, "keeps returning to the same state")
				assert.Less(t, wall, 20*time.Second)
				t.Logf("%s: diagnosed after %d cycles, %v of wall time: %v", d.Mode(), st.Cycles, wall.Round(time.Millisecond), err)
			})
		})
	}
}

// shortWindows are deadlock windows far shorter than the legitimate loops
// below, so that the detector does look at them.
func shortWindows(m Mode) []Option {
	return []Option{WithMode(m), WithDeadlockWindow(2000), WithQuietWindow(4096)}
}

// TestProgressLegitimateLoopsFinish: loops that poll like the spins above
// but wait for something that does change memory, or wait on the clock
// for less than the window, are not deadlocks, even with short windows.
func TestProgressLegitimateLoopsFinish(t *testing.T) {
	launchOK := func(t *testing.T, d *Device, k *kernels.Kernel, grid, block int, args ...any) kernels.LaunchStats {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
		require.NoError(t, err)
		return st
	}
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			t.Run("pollers wait while other atomics change memory", func(t *testing.T) {
				d := tinyDevice(t, shortWindows(m)...)
				const work = 20000
				flag, counter, out := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 4)
				st := launchOK(t, d, progressKernel(t, "spin_atomic_read"), 4, 32, flag, counter, out, int32(work), int32(1), uint32(0))
				assert.Equal(t, []uint32{work}, download[uint32](t, d, counter, 1))
				assert.Equal(t, []uint32{0, 1, 1, 1}, download[uint32](t, d, out, 4))
				if m == ModeTiming {
					assert.Greater(t, st.Cycles, uint64(10*2000), "the pollers spun far longer than the window")
				}
			})
			t.Run("a contended lock with failing CASes", func(t *testing.T) {
				d := tinyDevice(t, shortWindows(m)...)
				const ctas = 16
				lock, count := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1)
				launchOK(t, d, progressKernel(t, "spin_lock"), ctas, 32, lock, count)
				assert.Equal(t, []uint32{ctas}, download[uint32](t, d, count, 1))
				assert.Equal(t, []uint32{0}, download[uint32](t, d, lock, 1))
			})
			t.Run("a clock delay shorter than the window", func(t *testing.T) {
				d := tinyDevice(t, WithMode(m))
				out := zeros[uint32](t, d, 128)
				st := launchOK(t, d, progressKernel(t, "clock_delay"), 2, 64, out, int64(d.Config().SM.DeadlockWindowCycles/2))
				for i, v := range download[uint32](t, d, out, 128) {
					require.Equal(t, uint32(1), v, "thread %d", i)
				}
				if m == ModeTiming {
					assert.Greater(t, st.Cycles, uint64(d.Config().SM.DeadlockWindowCycles/2))
				}
			})
			t.Run("the global barrier at its co-resident limit", func(t *testing.T) {
				d := tinyDevice(t, shortWindows(m)...)
				perSM, err := d.Occupancy(lookup(t, "global_barrier"), 64, 0)
				require.NoError(t, err)
				limit := perSM * d.Properties().SMs
				r := runGlobalBarrier(t, d, limit, 64, 3, 0, 60*time.Second, true)
				require.NoError(t, r.err)
				assert.Zero(t, r.abort)
				assert.Equal(t, uint32(3), r.release)
			})
		})
	}
}

// A warp stalled on a long queue of same-address atomics issues nothing
// and so keeps its state; that is waiting, not spinning. The watchdog once
// took it for a livelock (atomicMin that does not lower the value changes
// no memory): 1024 threads, degree 32, 256 atomics each on the h100.
func TestProgressStalledOnAtomicsIsNotADeadlock(t *testing.T) {
	cfg, err := ConfigByName("h100")
	require.NoError(t, err)
	d, err := New(cfg, WithMode(ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	k, err := kernels.Lookup("atomic_contention_global")
	require.NoError(t, err)
	out, err := d.Alloc(4 * 1024)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1024)}, out, uint32(32), uint32(256))
	require.NoError(t, err)
}

// Polls whose round trip outlasts the watchdog's sample spacing (1024
// cycles), by warps out of phase, are still diagnosed: while a warp issues
// nothing between two samples, the samples move further apart. The
// watchdog once never fired there, since at every sample some warp had not
// issued since the last: on the simulated h100, 2112 CTAs polling one L2
// slice (grid_barrier_counter one CTA past the limit); here 7 CTAs polling
// one address with atomics that take 300 cycles each.
func TestProgressSlowPollsAreDeadlocks(t *testing.T) {
	d, err := Open("tiny+memory.atomic_same_address_cycles=300", WithMode(ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	k := progressKernel(t, "spin_atomic_read")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(8), Block: kernels.D1(64)},
		zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 8), int32(10), int32(0), uint32(0))
	var dl *kernels.DeadlockError
	require.True(t, errors.As(err, &dl), "got %v", err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded), "diagnosed, not stopped by the deadline: %v", err)
	assert.Contains(t, dl.Detail, "keeps returning to the same state")
	assert.Less(t, st.Cycles, uint64(1_000_000), "diagnosed within a few windows")
	t.Logf("diagnosed after %d cycles: %v", st.Cycles, err)
}
