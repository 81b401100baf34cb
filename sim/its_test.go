package sim

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// Independent thread scheduling (compute capability >= 7.0) against the
// pre-Volta reconvergence stack (gtx780ti), on sim/testdata/its.cu.

// TestITSTestdataFresh recompiles testdata/its.cu when clang++-16 is
// present and checks that the committed its.ptx matches.
func TestITSTestdataFresh(t *testing.T) { checkTestdataFresh(t, "its") }

// configDevice is a device of a shipped configuration.
func configDevice(t *testing.T, name string, opts ...Option) *Device {
	t.Helper()
	cfg, err := ConfigByName(name)
	require.NoError(t, err)
	d, err := New(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func launchITS(t *testing.T, d *Device, name string, grid, block int, args ...any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := d.Launch(ctx, testdataKernel(t, "its", name), kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
	return err
}

// TestIntraWarpLock: the spin lock taken by every lane of a warp completes
// on Volta-class configurations (each thread in the critical section
// alone: the counts written are 1..n) and deadlocks on gtx780ti, as on
// the Kepler hardware, diagnosed at the CAS's line.
func TestIntraWarpLock(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			t.Run("h100 completes", func(t *testing.T) {
				d := configDevice(t, "h100", WithMode(m))
				const grid, block = 3, 64
				lock, count, order := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, grid*block)
				require.NoError(t, launchITS(t, d, "lock_intra_warp", grid, block, lock, count, order))
				assert.Equal(t, []uint32{grid * block}, download[uint32](t, d, count, 1))
				assert.Equal(t, []uint32{0}, download[uint32](t, d, lock, 1))
				got := download[uint32](t, d, order, grid*block)
				sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
				for i, c := range got {
					require.Equal(t, uint32(i+1), c, "every thread incremented alone")
				}
			})
			t.Run("gtx780ti deadlocks", func(t *testing.T) {
				d := configDevice(t, "gtx780ti", WithMode(m))
				lock, count, order := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 64)
				err := launchITS(t, d, "lock_intra_warp", 1, 64, lock, count, order)
				var dl *kernels.DeadlockError
				require.True(t, errors.As(err, &dl), "got %v", err)
				assert.Regexp(t, regexp.MustCompile(`spinning on the atomic at PTX line \d+ \(\./kernels/warpgraph\.h:\d+, inlined near \./sim/testdata/its\.cu:22\) `+"`atom\\.global\\.cas"), dl.Detail)
			})
		})
	}
}

// TestBallotWaitsForItsLanes: after the lock, the lanes of a warp reach
// __ballot_sync one by one; the vote waits for all of them and each lane
// gets the warp's whole ballot.
func TestBallotWaitsForItsLanes(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		const grid, block = 2, 64
		n := grid * block
		lock, count := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1)
		order, ballot := zeros[uint32](t, d, n), zeros[uint32](t, d, n)
		require.NoError(t, launchITS(t, d, "ballot_after_lock", grid, block, lock, count, order, ballot))
		o, b := download[uint32](t, d, order, n), download[uint32](t, d, ballot, n)
		for w := 0; w < n/32; w++ {
			var want uint32
			for l := range 32 {
				want |= (o[32*w+l] & 1) << l
			}
			for l := range 32 {
				require.Equal(t, want, b[32*w+l], "warp %d lane %d", w, l)
			}
		}
	})
}

// TestCollectiveThatCannotComplete: half a warp votes with the whole warp
// while the other half waits at __syncthreads. Under independent thread
// scheduling the vote waits, and the error names both lines; the stack
// model reports that the named lanes are not converged.
func TestCollectiveThatCannotComplete(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			d := tinyDevice(t, WithMode(m))
			err := launchITS(t, d, "ballot_never", 1, 32, zeros[uint32](t, d, 32))
			var dl *kernels.DeadlockError
			require.True(t, errors.As(err, &dl), "got %v", err)
			assert.Regexp(t, `lanes 0x0000ffff wait at PTX line \d+ \(\./kernels/warpgraph\.h:\d+, inlined near \./sim/testdata/its\.cu:54\) `+"`vote\\.ballot\\.sync\\.b32 [^`]*`"+` for lanes 0xffff0000 \(16\) of its member mask, which never arrive there; lanes 0xffff0000 wait at the barrier at PTX line \d+ \(\./sim/testdata/its\.cu:55\) `+"`bar\\.sync", err.Error())

			k := configDevice(t, "gtx780ti", WithMode(m))
			err = launchITS(t, k, "ballot_never", 1, 32, zeros[uint32](t, k, 32))
			require.Error(t, err)
			assert.Regexp(t, `inlined near \./sim/testdata/its\.cu:54\) `+"`vote\\.ballot\\.sync\\.b32 [^`]*`"+` names lanes 0xffff0000, which are not converged with the calling lanes 0x0000ffff`, err.Error())
		})
	}
}

// TestCollectiveOutsideItsOwnMask: a lane that runs a *.sync collective
// without being in its member mask is an error naming the line.
func TestCollectiveOutsideItsOwnMask(t *testing.T) {
	for _, cfg := range []string{"tiny", "gtx780ti"} {
		t.Run(cfg, func(t *testing.T) {
			d := configDevice(t, cfg)
			err := launchITS(t, d, "ballot_outside_mask", 1, 32, zeros[uint32](t, d, 32))
			require.Error(t, err)
			assert.Regexp(t, `lanes 0xfffffffd run PTX line \d+ \(\./kernels/warpgraph\.h:\d+, inlined near \./sim/testdata/its\.cu:63\) `+"`vote\\.ballot\\.sync\\.b32 [^`]*`"+` without being in its member mask 0x00000002`, err.Error())
		})
	}
}

// TestHandshakeAcrossABranch: lanes on the two sides of an if wait on
// each other in turn. Independent thread scheduling completes it; the
// stack, whichever side it runs first, deadlocks (diagnosed).
func TestHandshakeAcrossABranch(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			d := tinyDevice(t, WithMode(m))
			flags, out := zeros[uint32](t, d, 64), zeros[uint32](t, d, 64)
			require.NoError(t, launchITS(t, d, "handshake", 1, 64, flags, out))
			got := download[uint32](t, d, out, 64)
			for l := range 64 {
				assert.Equal(t, uint32(l^1)+1, got[l], "lane %d read its neighbour's flag", l)
			}

			k := configDevice(t, "gtx780ti", WithMode(m))
			flags, out = zeros[uint32](t, k, 64), zeros[uint32](t, k, 64)
			err := launchITS(t, k, "handshake", 1, 64, flags, out)
			var dl *kernels.DeadlockError
			require.True(t, errors.As(err, &dl), "gtx780ti: %v", err)
			assert.Contains(t, dl.Detail, "its.cu:")
		})
	}
}

// TestIndependentSchedulingKeepsConvergence: code in which no lane waits
// on another runs under independent thread scheduling exactly as on the
// stack (the post-dominator stays the fast path): the same results and the
// same warp- and thread-instruction counts.
func TestIndependentSchedulingKeepsConvergence(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			counts := map[bool][2]float64{}
			var outs [][]uint32
			for _, its := range []bool{true, false} {
				cfg, err := ConfigByName("tiny")
				require.NoError(t, err)
				if !its {
					cfg.ComputeCapability = [2]int{6, 1} // Pascal: the stack alone
				}
				d, err := New(cfg, WithMode(m))
				require.NoError(t, err)
				t.Cleanup(func() { _ = d.Close() })
				out := zeros[uint32](t, d, 128)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				st, err := d.Launch(ctx, testdataKernel(t, "its", "divergent_loops"), kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(128)}, out)
				cancel()
				require.NoError(t, err)
				counts[its] = [2]float64{st.Counters["warp_instructions"], st.Counters["thread_instructions"]}
				outs = append(outs, download[uint32](t, d, out, 128))
			}
			assert.Equal(t, outs[0], outs[1])
			assert.Equal(t, counts[false], counts[true], "warp and thread instructions, stack vs independent")
			assert.Greater(t, counts[true][0]*32, counts[true][1], "the loops do diverge")
		})
	}
}

// TestLockInACall: the intra-warp lock inside a device function that is
// not inlined: the lanes leave the call one by one (each thread group
// returns on its own), meet again at __syncwarp and reduce with shuffles.
func TestLockInACall(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		const grid, block = 2, 64
		n := grid * block
		lock, count := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1)
		order, sum := zeros[uint32](t, d, n), zeros[uint32](t, d, n)
		require.NoError(t, launchITS(t, d, "lock_in_call", grid, block, lock, count, order, sum))
		o, s := download[uint32](t, d, order, n), download[uint32](t, d, sum, n)
		sorted := append([]uint32(nil), o...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		for i, c := range sorted {
			require.Equal(t, uint32(i+1), c, "every thread incremented alone")
		}
		for w := 0; w < n/32; w++ {
			var want uint32
			for l := range 32 {
				want += o[32*w+l]
			}
			for l := range 32 {
				require.Equal(t, want, s[32*w+l], "warp %d lane %d", w, l)
			}
		}
	})
}
