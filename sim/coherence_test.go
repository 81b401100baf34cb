package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/memsys"
)

// The non-coherent L1 of timing mode (memory.coherence: l1) and the fences
// that invalidate it. The kernels are sim/testdata/coherence.cu: CTA 0
// publishes data[0] = 42 behind a flag (plain store, __threadfence(),
// volatile flag store); CTA 1, on the other SM, reads data[0] once (so its
// L1 holds the line), waits for the flag with volatile loads, then reads
// data[0] again with a plain load, after __threadfence(), after
// __threadfence_block() or after no fence.

// TestCoherenceTestdataFresh recompiles testdata/coherence.cu when
// clang++-16 is present and checks that the committed coherence.ptx
// matches.
func TestCoherenceTestdataFresh(t *testing.T) { checkTestdataFresh(t, "coherence") }

// coherenceKernel returns a kernel of testdata/coherence.ptx.
func coherenceKernel(t testing.TB, name string) *kernels.Kernel {
	return testdataKernel(t, "coherence", name)
}

// publishAndRead runs one of the kernels and returns the reader's two
// reads of data[0] and the launch's L1 invalidations (timing mode).
func publishAndRead(t *testing.T, d *Device, kernel string) (first, second uint32, invalidations float64) {
	t.Helper()
	data, flag, ready, out := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 4)
	st := launch(t, d, coherenceKernel(t, kernel), 2, 32, data, flag, ready, out, int32(0))
	got := download[uint32](t, d, out, 4)
	if d.Mode() == ModeTiming {
		require.NotEqual(t, got[2], got[3], "writer and reader must run on different SMs (smid %d and %d)", got[2], got[3])
	}
	assert.Equal(t, []uint32{42}, download[uint32](t, d, data, 1), "the writer's store reached memory")
	return got[0], got[1], st.Counters["l1_invalidations"]
}

// TestFenceInvalidatesL1: with coherence l1, the reader's plain load after
// the flag handshake returns the new value only when a GPU-scope fence
// (__threadfence(), membar.gl) invalidated its SM's L1 in between. Without
// a fence, or with a CTA-scope one (__threadfence_block(), membar.cta), the
// load hits the line the first read brought into L1 and returns the stale
// 0: this is the modelled hardware behaviour (NVIDIA's L1 is not coherent
// across SMs; the CUDA guide requires the reader's fence or a volatile
// load), not a simulator error. With coherence ideal, and in functional
// mode, every load reads memory.
func TestFenceInvalidatesL1(t *testing.T) {
	cases := []struct {
		kernel string
		// stale: the second read returns 0 under coherence l1.
		stale bool
		// fences: SM-wide invalidations (each CTA's thread 0 runs its
		// fences once; the writer's __threadfence() is one).
		fences float64
	}{
		{"read_after_threadfence", false, 2},
		{"read_after_threadfence_block", true, 1},
		{"read_without_fence", true, 1},
	}
	for _, tc := range cases {
		t.Run(tc.kernel+"/coherence=l1", func(t *testing.T) {
			d := timingDevice(t, nil) // tiny ships coherence: l1
			require.Equal(t, memsys.CoherenceL1, d.Config().Memory.Coherence)
			first, second, inv := publishAndRead(t, d, tc.kernel)
			assert.Equal(t, uint32(0), first, "the first read precedes the write")
			if tc.stale {
				assert.Equal(t, uint32(0), second, "no GPU-scope fence: the L1 still holds the old line")
			} else {
				assert.Equal(t, uint32(42), second, "__threadfence() invalidated the reader's L1")
			}
			assert.Equal(t, tc.fences, inv, "L1 invalidations by fences")
		})
		t.Run(tc.kernel+"/coherence=ideal", func(t *testing.T) {
			d := timingDevice(t, func(c *Config) { c.Memory.Coherence = memsys.CoherenceIdeal })
			first, second, _ := publishAndRead(t, d, tc.kernel)
			assert.Equal(t, []uint32{0, 42}, []uint32{first, second})
		})
		t.Run(tc.kernel+"/functional", func(t *testing.T) {
			d := tinyDevice(t, WithMode(ModeFunctional))
			first, second, _ := publishAndRead(t, d, tc.kernel)
			assert.Equal(t, []uint32{0, 42}, []uint32{first, second})
		})
	}
}

// TestMissingVolatileSpinLivelocks: a poll of another CTA's flag with a
// plain load (in the loop, in the PTX) keeps hitting the stale line in its
// SM's L1 under coherence l1, as on hardware, and the deadlock detector
// names the load; with coherence ideal and in functional mode the store is
// seen and the kernel ends.
func TestMissingVolatileSpinLivelocks(t *testing.T) {
	k := coherenceKernel(t, "spin_on_plain_load")
	run := func(t *testing.T, d *Device) ([]uint32, error) {
		flag, ready, out := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(32)}, flag, ready, out)
		return download[uint32](t, d, out, 1), err
	}
	t.Run("coherence=l1", func(t *testing.T) {
		_, err := run(t, timingDevice(t, nil))
		var dl *kernels.DeadlockError
		require.ErrorAs(t, err, &dl)
		assert.Regexp(t, `spinning on the load at PTX line \d+ \(\./sim/testdata/coherence\.cu:\d+\) `+"`"+`ld\.global\.u32`+".*stale L1 copy: poll with a volatile load", err.Error())
	})
	t.Run("coherence=ideal", func(t *testing.T) {
		out, err := run(t, timingDevice(t, func(c *Config) { c.Memory.Coherence = memsys.CoherenceIdeal }))
		require.NoError(t, err)
		assert.Equal(t, []uint32{1}, out)
	})
	t.Run("functional", func(t *testing.T) {
		out, err := run(t, tinyDevice(t, WithMode(ModeFunctional)))
		require.NoError(t, err)
		assert.Equal(t, []uint32{1}, out)
	})
}

// The bounded variants (every wait through wg_spin_give_up), which
// sim/testdata/h100checks runs on the GPU: the same outcomes, and the
// missing-volatile wait ends by its spin budget instead of livelocking.

// boundedSpinBudget bounds the bounded kernels' waits in these tests.
const boundedSpinBudget = 2000

// TestBoundedFenceVariantsReadAsTheUnbounded: the reader's second read is
// stale under coherence l1 unless __threadfence() precedes it; both CTAs
// get through their waits and nothing raises the abort flag.
func TestBoundedFenceVariantsReadAsTheUnbounded(t *testing.T) {
	for kernel, stale := range map[string]bool{
		"read_after_threadfence_bounded":       false,
		"read_after_threadfence_block_bounded": true,
		"read_without_fence_bounded":           true,
	} {
		t.Run(kernel, func(t *testing.T) {
			d := timingDevice(t, nil)
			data, flag, ready := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 1)
			out, abort := zeros[uint32](t, d, 6), zeros[int32](t, d, 1)
			launch(t, d, coherenceKernel(t, kernel), 2, 32, data, flag, ready, out, int32(0), uint32(boundedSpinBudget), abort)
			got := download[uint32](t, d, out, 6)
			assert.Equal(t, uint32(0), got[0], "the first read precedes the write")
			want := uint32(42)
			if stale {
				want = 0
			}
			assert.Equal(t, want, got[1], "the second read")
			assert.Equal(t, []uint32{1, 1}, got[4:6], "both waits ended")
			assert.Equal(t, []int32{0}, download[int32](t, d, abort, 1), "no wait gave up")
		})
	}
}

// TestBoundedSpinEndsByItsBudget: the plain-load wait keeps hitting the
// stale L1 line under coherence l1 and gives up after exactly its budget
// of polls, raising the abort flag, as it does on an H200
// (results/hopper-checks); the volatile wait, and the plain one under
// coherence ideal or in functional mode, see the flag and end.
func TestBoundedSpinEndsByItsBudget(t *testing.T) {
	run := func(t *testing.T, d *Device, kernel string) (out []uint32, aborted int32) {
		flag, ready, o, abort := zeros[uint32](t, d, 1), zeros[uint32](t, d, 1), zeros[uint32](t, d, 3), zeros[int32](t, d, 1)
		launch(t, d, coherenceKernel(t, kernel), 2, 32, flag, ready, o, uint32(boundedSpinBudget), abort)
		return download[uint32](t, d, o, 3), download[int32](t, d, abort, 1)[0]
	}
	t.Run("plain/coherence=l1", func(t *testing.T) {
		out, aborted := run(t, timingDevice(t, nil), "spin_on_plain_load_bounded")
		assert.Equal(t, []uint32{0, boundedSpinBudget, 1}, out, "the reader never saw the flag the writer set")
		assert.Equal(t, int32(1), aborted)
	})
	for name, d := range map[string]func(t *testing.T) *Device{
		"plain/coherence=ideal": func(t *testing.T) *Device {
			return timingDevice(t, func(c *Config) { c.Memory.Coherence = memsys.CoherenceIdeal })
		},
		"plain/functional": func(t *testing.T) *Device { return tinyDevice(t, WithMode(ModeFunctional)) },
	} {
		t.Run(name, func(t *testing.T) {
			out, aborted := run(t, d(t), "spin_on_plain_load_bounded")
			assert.Equal(t, []uint32{1, 1}, []uint32{out[0], out[2]})
			assert.Less(t, out[1], uint32(boundedSpinBudget))
			assert.Equal(t, int32(0), aborted)
		})
	}
	t.Run("volatile/coherence=l1", func(t *testing.T) {
		out, aborted := run(t, timingDevice(t, nil), "spin_on_volatile_load_bounded")
		assert.Equal(t, []uint32{1, 1}, []uint32{out[0], out[2]})
		assert.Less(t, out[1], uint32(boundedSpinBudget))
		assert.Equal(t, int32(0), aborted)
	})
}
