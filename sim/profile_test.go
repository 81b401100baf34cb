package sim

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sarchlab/akita/v3/tracing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// checkReport asserts that a report's cycles add up: per launch and in
// all, the reasons sum to warps × cycles, and no warp was unbalanced.
func checkReport(t *testing.T, r *ProfileReport) {
	t.Helper()
	assert.Zero(t, r.Unbalanced)
	sum := func(m map[string]uint64) (s uint64) {
		for _, v := range m {
			s += v
		}
		return s
	}
	assert.Equal(t, r.WarpCycles, sum(r.ByReason), "reasons sum to every warp's lifetime")
	assert.Equal(t, r.WarpCycles-r.ByReason["not_resident"]-r.ByReason["finished"], r.InstructionCycles)
	var launches uint64
	for _, l := range r.LaunchList {
		assert.Equal(t, l.WarpCycles, sum(l.ByReason), "launch %d", l.Launch)
		launches += l.WarpCycles
	}
	assert.Equal(t, r.WarpCycles, launches)
	var lines, insts uint64
	for _, l := range r.Lines {
		lines += l.Cycles
	}
	for _, in := range r.Instructions {
		insts += in.Cycles
	}
	assert.Equal(t, r.InstructionCycles, lines)
	assert.Equal(t, r.InstructionCycles, insts)
}

// topReason is the reason of m with the most cycles at an instruction.
func topReason(m map[string]uint64) string {
	best, n := "", uint64(0)
	for _, r := range ProfileReasons() {
		if r.AtInstruction && m[r.Name] > n {
			best, n = r.Name, m[r.Name]
		}
	}
	return best
}

func launchWith(t *testing.T, d *Device, k *kernels.Kernel, grid, block int, args ...any) (kernels.LaunchStats, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
}

// TestProfileBankConflictsByLine: bank_stride at a stride of 32 words
// spends its cycles on the line that reads the shared array, waiting for
// the extra passes.
func TestProfileBankConflictsByLine(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts ...Option) {
		profileBankConflictsByLine(t, tinyDevice(t, append(opts, WithProfile())...))
	})
}

// profileEngines are the timing engines the profile tests run on: the
// serial engine and the window engine, whose profiles must say the same
// of these kernels.
var profileEngines = []struct {
	name string
	opts []Option
}{{"serial", nil}, {"window", []Option{WithThreads(2)}}}

// forEachEngine runs f as a subtest per engine of profileEngines, with
// the engine's options.
func forEachEngine(t *testing.T, f func(t *testing.T, opts ...Option)) {
	for _, e := range profileEngines {
		t.Run(e.name, func(t *testing.T) { f(t, e.opts...) })
	}
}

func profileBankConflictsByLine(t *testing.T, d *Device) {
	k, err := kernels.Lookup("bank_stride")
	require.NoError(t, err)
	st, err := launchWith(t, d, k, 2, 128, zeros[uint32](t, d, 256), uint32(32), uint32(32))
	require.NoError(t, err)
	r := d.Profile().Report()
	checkReport(t, r)
	require.Len(t, r.LaunchList, 1)
	assert.Equal(t, st.Cycles, r.LaunchList[0].Cycles)
	assert.Equal(t, OutcomeCompleted, r.LaunchList[0].Outcome)
	r.ReadSources("..")
	top := r.Lines[0]
	assert.Equal(t, "./kernels/bank_stride.cu", top.File)
	assert.Contains(t, top.Source, "words[bank_physical<Padded>(i)]")
	assert.Equal(t, "bank_conflict", topReason(top.ByReason), "%v", top.ByReason)
	assert.Greater(t, top.Percent, 50.0)
	assert.Equal(t, []string{"bank_stride"}, top.Kernels)
}

// TestProfileSpinsByLine: the spins of sim/testdata/progress.cu end in
// deadlocks, and the profile charges their cycles, as spinning, to the
// lines they spin on.
func TestProfileSpinsByLine(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts ...Option) {
		profileSpinsByLine(t, opts...)
	})
}

func profileSpinsByLine(t *testing.T, opts ...Option) {
	for _, tc := range spinCases() {
		t.Run(tc.name, func(t *testing.T) {
			d := tinyDevice(t, append(opts, WithProfile())...)
			_, err := launchWith(t, d, progressKernel(t, tc.kernel), tc.grid, 64, tc.args(t, d)...)
			var dl *kernels.DeadlockError
			require.ErrorAs(t, err, &dl)
			r := d.Profile().Report()
			checkReport(t, r)
			assert.Equal(t, OutcomeDeadlock, r.LaunchList[0].Outcome)
			assert.Equal(t, "spinning", topReason(r.ByReason), "%v", r.ByReason)
			top := r.Lines[0]
			assert.Equal(t, "spinning", topReason(top.ByReason), "%+v", top)
			assert.True(t, strings.HasPrefix(top.File, "./sim/testdata/progress.cu") ||
				strings.HasPrefix(top.InlinedNear, "./sim/testdata/progress.cu"), "%+v", top)
		})
	}
}

// TestProfileBarrierAtItsDeadlockLimit: global_barrier one CTA past the
// co-resident limit deadlocks; the resident CTAs' thread 0 spins in the
// barrier, their other warps wait at the __syncthreads after it, and the
// last CTA's warps are never resident.
func TestProfileBarrierAtItsDeadlockLimit(t *testing.T) {
	forEachEngine(t, func(t *testing.T, opts ...Option) {
		profileBarrierAtItsDeadlockLimit(t, tinyDevice(t, append(opts, WithProfile())...))
	})
}

func profileBarrierAtItsDeadlockLimit(t *testing.T, d *Device) {
	k, err := kernels.Lookup("global_barrier")
	require.NoError(t, err)
	perSM, err := d.Occupancy(k, 128, 0)
	require.NoError(t, err)
	grid := perSM*d.Config().SMs + 1
	_, err = launchWith(t, d, k, grid, 128, zeros[uint32](t, d, grid), zeros[uint32](t, d, 1), zeros[uint32](t, d, 2),
		zeros[uint32](t, d, 1), uint32(2), uint32(0), zeros[uint32](t, d, 1))
	var dl *kernels.DeadlockError
	require.ErrorAs(t, err, &dl)
	r := d.Profile().Report()
	checkReport(t, r)
	l := r.LaunchList[0]
	assert.Equal(t, OutcomeDeadlock, l.Outcome)
	assert.Equal(t, 4*l.Cycles, l.ByReason["not_resident"], "the last CTA's 4 warps")
	assert.Positive(t, l.ByReason["spinning"])
	assert.Positive(t, l.ByReason["barrier"])
	var spin, bar bool
	for _, line := range r.Lines[:4] {
		switch topReason(line.ByReason) {
		case "spinning":
			// The barrier's wait loop, or the helpers it inlines (the
			// volatile load, the spin protocol's abort check).
			spin = true
			assert.Regexp(t, `^\./kernels/(lib/barrier\.cuh|warpgraph\.h)$`, line.File, "%+v", line)
		case "barrier":
			bar = true
			assert.Equal(t, "./kernels/global_barrier.cu", line.File)
		}
	}
	assert.True(t, spin && bar, "%+v", r.Lines[:4])
}

func TestProfileAccumulatesAcrossDevices(t *testing.T) {
	p := NewProfile()
	k, err := kernels.Lookup("bank_stride")
	require.NoError(t, err)
	for range 2 {
		d := tinyDevice(t, WithProfileInto(p))
		_, err := launchWith(t, d, k, 1, 64, zeros[uint32](t, d, 64), uint32(1), uint32(4))
		require.NoError(t, err)
		require.NoError(t, d.Close())
		assert.Same(t, p, d.Profile(), "readable after Close")
	}
	r := p.Report()
	checkReport(t, r)
	require.Len(t, r.Kernels, 1)
	assert.Equal(t, 2, r.Kernels[0].Launches)
	assert.Equal(t, 2, r.Launches)
	// Instructions are merged across the devices' modules.
	seen := map[string]bool{}
	for _, in := range r.Instructions {
		key := in.Function + "#" + in.Instruction
		assert.False(t, seen[key], "%s twice", key)
		seen[key] = true
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	for _, key := range []string{`"warp_cycles"`, `"instruction_cycles"`, `"by_reason"`, `"lines"`, `"instructions"`, `"launch_list"`, `"ptx_line"`} {
		assert.Contains(t, string(b), key)
	}
}

func TestProfileOptions(t *testing.T) {
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	_, err = New(cfg, WithMode(ModeFunctional), WithProfile())
	assert.ErrorContains(t, err, "functional mode has none")
	_, err = New(cfg, WithParallelEngine(true), WithTrace(filepath.Join(t.TempDir(), "x")))
	assert.ErrorContains(t, err, "serial engine")
	d := tinyDevice(t)
	assert.Nil(t, d.Profile())
}

func TestTraceWritesDaisensDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	d := tinyDevice(t, WithTrace(path))
	k, err := kernels.Lookup("bank_stride")
	require.NoError(t, err)
	_, err = launchWith(t, d, k, 2, 64, zeros[uint32](t, d, 128), uint32(1), uint32(4))
	require.NoError(t, err)
	require.NoError(t, d.Close())

	rd := tracing.NewSQLiteTraceReader(TraceFile(path))
	rd.Init()
	comps := rd.ListComponents()
	assert.Contains(t, comps, "GPU.SM[0]")
	assert.Contains(t, comps, "GPU.SM[1]")
	var l2 bool
	for _, c := range comps {
		l2 = l2 || strings.HasPrefix(c, "GPU.Mem.L2")
	}
	assert.True(t, l2, "the L2's tasks: %v", comps)
	ctas := rd.ListTasks(tracing.TaskQuery{Kind: "cta"})
	assert.Len(t, ctas, 2)
	reqs := rd.ListTasks(tracing.TaskQuery{Kind: "req_out", Where: "GPU.SM[0]"})
	assert.NotEmpty(t, reqs)
	for _, q := range reqs {
		assert.Greater(t, float64(q.EndTime), float64(q.StartTime))
	}

	// A second device may not overwrite it.
	_, err = New(d.Config(), WithTrace(path))
	require.NoError(t, err) // the file is opened at the first timing launch
	d2 := tinyDevice(t, WithTrace(path))
	_, err = launchWith(t, d2, k, 1, 32, zeros[uint32](t, d2, 32), uint32(1), uint32(1))
	assert.True(t, err != nil && strings.Contains(err.Error(), "exists"), "%v", err)
	assert.False(t, errors.Is(err, context.DeadlineExceeded))
}
