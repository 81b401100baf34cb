package sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// enactOn runs algo under variant on a fresh tiny device in mode and
// returns the result and the device (closed by the test's cleanup).
func enactOn(t *testing.T, mode Mode, algo, variant, spec string, opts ...Option) (*scheduler.Result, *Device) {
	t.Helper()
	a, v := schedulerCell(t, algo, variant)
	g, err := graph.Load(spec, graph.LoadOptions{})
	require.NoError(t, err)
	d := tinyDevice(t, append([]Option{WithMode(mode)}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := scheduler.Enact(ctx, d, a, v, g, scheduler.Params{}, scheduler.RunOptions{Block: 64})
	require.NoError(t, err)
	require.True(t, res.Validation.OK(), "%s in %s mode: %s", algo, mode, res.Validation.String())
	return res, d
}

// TestSampledResultsAreExact: a sampled run validates, and its values are
// those of functional and timing mode, while it ran some launches
// functionally and some in detail. BFS depths, SSSP distances and WCC's
// minimum labels do not depend on the interleaving; PageRank's sums do (in
// the last bits), so it is validated only.
func TestSampledResultsAreExact(t *testing.T) {
	cells := []struct {
		algo, spec string
		exact      bool
	}{
		{"bfs", "grid:w=12,h=12", true},
		{"sssp", "grid:w=12,h=12", true},
		{"wcc", "grid:w=12,h=12", true},
		{"pr", "rmat:scale=7+perm=1", false},
	}
	for _, c := range cells {
		t.Run(c.algo, func(t *testing.T) {
			sampled, d := enactOn(t, ModeSampled, c.algo, "bsp", c.spec)
			r, ok := d.SamplingReport()
			require.True(t, ok)
			assert.Less(t, r.Detailed, r.Launches, "some launches ran functionally")
			assert.Positive(t, r.Detailed)
			assert.Positive(t, sampled.EndToEnd)
			assert.Positive(t, sampled.Total.Cycles)
			for _, it := range sampled.Iterations {
				assert.Positive(t, it.Stats.Cycles, "iteration %d is charged cycles, simulated or predicted", it.Iteration)
			}
			if !c.exact {
				return
			}
			functional, _ := enactOn(t, ModeFunctional, c.algo, "bsp", c.spec)
			timing, _ := enactOn(t, ModeTiming, c.algo, "bsp", c.spec)
			require.NotNil(t, sampled.Values)
			assert.Equal(t, functional.Values, sampled.Values)
			assert.Equal(t, timing.Values, sampled.Values)
		})
	}
}

// TestSampledFewLaunchesIsTiming: while every kernel has launched no more
// than the warm-up count, every launch runs in detail, so a sampled run's
// cycles, host clock and end-to-end time are timing mode's, exactly.
func TestSampledFewLaunchesIsTiming(t *testing.T) {
	const spec = "grid:w=3,h=1" // BFS from vertex 0: three levels
	timing, td := enactOn(t, ModeTiming, "bfs", "bsp", spec)
	sampled, sd := enactOn(t, ModeSampled, "bfs", "bsp", spec)
	require.LessOrEqual(t, timing.Launches, SampleWarmupLaunches)
	assert.Equal(t, timing.Total.Cycles, sampled.Total.Cycles)
	assert.Equal(t, timing.EndToEnd, sampled.EndToEnd)
	assert.Equal(t, td.HostClock(), sd.HostClock())
	for i := range timing.Iterations {
		assert.Equal(t, timing.Iterations[i].Stats.Cycles, sampled.Iterations[i].Stats.Cycles)
	}
	r, _ := sd.SamplingReport()
	assert.Equal(t, r.Launches, r.Detailed)
	assert.Zero(t, r.PredictedSeconds)
	assert.Zero(t, r.EstimatedError)
}

// TestSamplingReportAddsUp: the report's counts agree with each other and
// with the launches the device ran.
func TestSamplingReportAddsUp(t *testing.T) {
	res, d := enactOn(t, ModeSampled, "bfs", "bsp", "grid:w=16,h=16")
	r, ok := d.SamplingReport()
	require.True(t, ok)
	assert.Equal(t, res.Launches, r.Launches, "one run, no warm-up: the scheduler's launches are the device's")
	var launches, detailed, heldOut int
	for _, k := range r.Kernels {
		launches += k.Launches
		detailed += k.Detailed
		heldOut += k.HeldOut
		reasons := 0
		for _, n := range k.Reasons {
			reasons += n
		}
		assert.Equal(t, k.Detailed, reasons, "%s: every detailed launch has one reason", k.Kernel)
		assert.LessOrEqual(t, k.HeldOut+k.HeldOutFar, k.Detailed-1, "%s: the first detailed launch has nothing to be predicted from", k.Kernel)
		assert.LessOrEqual(t, k.Detailed, k.Launches)
		assert.Equal(t, SampleWarmupLaunches, k.Reasons[reasonWarmup])
	}
	assert.Equal(t, r.Launches, launches)
	assert.Equal(t, r.Detailed, detailed)
	assert.Equal(t, r.HeldOut, heldOut)
	assert.LessOrEqual(t, r.HeldOutMedianError, r.HeldOutMaxError)
	assert.Positive(t, r.PredictedSeconds)
	assert.GreaterOrEqual(t, r.EstimatedError, 0.0)
	assert.InDelta(t, d.HostClock().Seconds(), r.HostSeconds, 1e-12)
	assert.NotEmpty(t, r.Method)

	// Functional and timing devices have no report.
	_, ok = tinyDevice(t).SamplingReport()
	assert.False(t, ok)
	_, ok = tinyDevice(t, WithMode(ModeFunctional)).SamplingReport()
	assert.False(t, ok)
}

// spreadOn launches atomic_spread (each thread of a CTA does reps atomics
// on its CTA's word) on d with grid CTAs of 64 threads.
func spreadOn(t *testing.T, d *Device, grid, reps int) kernels.LaunchStats {
	t.Helper()
	out := zeros[uint32](t, d, grid*32)
	return launch(t, d, lookup(t, "atomic_spread"), grid, 64, out, uint32(32), uint32(reps))
}

// TestSampledForcedDetail: a functional launch whose work lies far outside
// its kernel's detailed samples is charged an extrapolation, and the next
// launch of the kernel runs in detail; a new grid runs in detail at once.
func TestSampledForcedDetail(t *testing.T) {
	d := tinyDevice(t, WithMode(ModeSampled), withSamplePolicy(samplePolicy{warmup: 2, minInterval: 1000, divisor: 1, far: 2}))
	spreadOn(t, d, 2, 4)          // warm-up, in detail
	large := spreadOn(t, d, 2, 8) // warm-up, in detail
	spreadOn(t, d, 2, 6)          // functional, within the samples
	r, _ := d.SamplingReport()
	require.Equal(t, 3, r.Launches)
	require.Equal(t, 2, r.Detailed)

	far := spreadOn(t, d, 2, 64) // functional, far outside: extrapolated
	r, _ = d.SamplingReport()
	assert.Equal(t, 2, r.Detailed)
	assert.GreaterOrEqual(t, far.Cycles, large.Cycles, "extrapolated, never below the latest sample")
	assert.Contains(t, far.Counters, "cycles")
	assert.NotContains(t, far.Counters, "l2_reads", "a functional launch has no memory counters")

	spreadOn(t, d, 2, 4) // forced into detail
	r, _ = d.SamplingReport()
	assert.Equal(t, 3, r.Detailed)
	assert.Equal(t, 1, r.Kernels[0].Reasons[reasonForced])

	spreadOn(t, d, 2, 4) // back to functional
	spreadOn(t, d, 3, 4) // a new grid: in detail
	r, _ = d.SamplingReport()
	assert.Equal(t, 7, r.Launches)
	assert.Equal(t, 4, r.Detailed)
	assert.Equal(t, 1, r.Kernels[0].Reasons[reasonShape])
	assert.Equal(t, 3, r.Kernels[0].HeldOut)
}

// TestSampledClockKernelsRunInDetail: a kernel that reads %clock64
// computes with time, so every launch of it runs in detail.
func TestSampledClockKernelsRunInDetail(t *testing.T) {
	d := tinyDevice(t, WithMode(ModeSampled))
	p, err := d.program(lookup(t, "load_latency"))
	require.NoError(t, err)
	assert.True(t, readsClock(p))
	p, err = d.program(lookup(t, "stream"))
	require.NoError(t, err)
	assert.False(t, readsClock(p))

	s := newSampler(defaultSamplePolicy)
	sh := launchShape{grid: [3]int{1, 1, 1}, block: [3]int{32, 1, 1}}
	for range 20 {
		require.True(t, s.decide("clock", sh, true))
		s.detailed("clock", sh, 100, 0, 1000, false)
	}
	assert.Equal(t, map[string]int{reasonClock: 20}, s.kernels["clock"].reasons)
}

// TestPredictCycles: the prediction starts from the latest sample of like
// size (of the shape, where one is) and scales with the work to the power
// fitted on the samples.
func TestPredictCycles(t *testing.T) {
	a := launchShape{grid: [3]int{4, 1, 1}, block: [3]int{64, 1, 1}}
	b := launchShape{grid: [3]int{8, 1, 1}, block: [3]int{64, 1, 1}}
	_, _, _, ok := predictCycles(nil, a, 100, 2)
	assert.False(t, ok)

	// Cycles in proportion to the work: the power is 1.
	linear := []launchSample{{a, 100, 0, 1000}, {a, 400, 0, 4000}, {a, 200, 0, 2000}}
	y, _, far, ok := predictCycles(linear, a, 200, 2)
	require.True(t, ok)
	assert.Equal(t, 2000.0, y)
	assert.False(t, far)
	y, _, _, _ = predictCycles(linear, a, 150, 2)
	assert.InDelta(t, 1500, y, 1e-6)
	y, _, far, _ = predictCycles(linear, a, 1600, 2)
	assert.InDelta(t, 16000, y, 1e-6, "from the nearest count in ratio")
	assert.True(t, far, "1600 > 2 × 400")
	y, _, far, _ = predictCycles(linear, a, 10, 2)
	assert.InDelta(t, 100, y, 1e-6)
	assert.True(t, far)
	// The latest sample within 2x anchors, not the nearest.
	noisy := []launchSample{{a, 100, 0, 1000}, {a, 400, 0, 4000}, {a, 100, 0, 1000}, {a, 180, 0, 900}}
	y, _, _, _ = predictCycles(noisy, a, 100, 2)
	assert.Less(t, y, 900.0, "scaled down from the latest sample (180 warp-instructions, 900 cycles)")

	// Cycles that fall as the work grows count as flat (power 0).
	flat := []launchSample{{a, 100, 0, 2000}, {a, 200, 0, 1000}}
	y, _, _, _ = predictCycles(flat, a, 300, 2)
	assert.Equal(t, 1000.0, y)
	// A power between: cycles that double when the work grows fourfold.
	sqrt := []launchSample{{a, 100, 0, 1000}, {a, 400, 0, 2000}}
	y, _, _, _ = predictCycles(sqrt, a, 900, 2)
	assert.InDelta(t, 3000, y, 1e-6)

	// The shape decides between samples of like size.
	mixed := []launchSample{{a, 100, 0, 1000}, {b, 110, 0, 3000}}
	y, _, _, _ = predictCycles(mixed, a, 100, 2)
	assert.InDelta(t, 1000, y, 1e-6, "the older sample of the same shape")
	y, _, _, _ = predictCycles(mixed, b, 110, 2)
	assert.InDelta(t, 3000, y, 1e-6)
	c := launchShape{grid: [3]int{16, 1, 1}, block: [3]int{64, 1, 1}}
	y, _, _, _ = predictCycles(mixed, c, 110, 2)
	assert.InDelta(t, 3000, y, 1e-6, "a shape never seen: the latest sample of like size")
}

// TestAtomicsDriftSendsTheNextLaunchIntoDetail: a functional launch of the
// samples' warp-instructions whose global atomics differ by more than
// SampleAtomicsFactor from its anchor's is charged as one beyond the
// samples and sends the kernel's next launch into detail; a drift within
// the factor, or among counts below SampleMinAtomics, does not.
func TestAtomicsDriftSendsTheNextLaunchIntoDetail(t *testing.T) {
	sh := launchShape{grid: [3]int{1, 1, 1}, block: [3]int{32, 1, 1}}
	run := func(atomics uint64) (forced bool, far int) {
		s := newSampler(defaultSamplePolicy)
		for range SampleWarmupLaunches {
			require.True(t, s.decide("k", sh, false))
			s.detailed("k", sh, 1000, 13000, 40000, false)
		}
		require.False(t, s.decide("k", sh, false), "after the warm-up, before the schedule")
		assert.Equal(t, uint64(40000), s.predict("k", sh, 1000, atomics), "charged the anchor's cycles")
		return s.decide("k", sh, false), s.report(Config{ClockMHz: 1000}, time.Second).PredictedFar
	}
	forced, far := run(6500)
	assert.True(t, forced, "half the atomics: the next launch in detail")
	assert.Equal(t, 1, far)
	forced, far = run(30000)
	assert.True(t, forced, "more than 1.5 times the atomics")
	assert.Equal(t, 1, far)
	forced, far = run(10000)
	assert.False(t, forced, "within the factor")
	assert.Zero(t, far)

	s := newSampler(defaultSamplePolicy)
	for range SampleWarmupLaunches {
		s.decide("k", sh, false)
		s.detailed("k", sh, 1000, 100, 40000, false)
	}
	s.decide("k", sh, false)
	s.predict("k", sh, 1000, 10)
	assert.False(t, s.decide("k", sh, false), "100 and 10 atomics are too few to matter")
}

// TestSamplerSchedule: warm-up, then a detailed launch after intervals
// that grow with the count.
func TestSamplerSchedule(t *testing.T) {
	s := newSampler(defaultSamplePolicy)
	sh := launchShape{grid: [3]int{1, 1, 1}, block: [3]int{32, 1, 1}}
	var detail []int
	for i := range 100 {
		if s.decide("k", sh, false) {
			detail = append(detail, i)
			s.detailed("k", sh, 100, 0, 1000, false)
		} else {
			s.predict("k", sh, 100, 0)
		}
	}
	assert.Equal(t, []int{0, 1, 2, 6, 10, 15, 22, 33, 49, 73}, detail)
	r := s.report(Config{ClockMHz: 1000}, time.Second)
	assert.Equal(t, 100, r.Launches)
	assert.Equal(t, len(detail), r.Detailed)
	assert.Equal(t, len(detail)-1, r.HeldOut)
	assert.Zero(t, r.HeldOutMaxError, "constant launches are predicted exactly")
	assert.InDelta(t, float64(100-r.Detailed)*1000/1e9, r.PredictedSeconds, 1e-15)
}

func TestParseModeSampled(t *testing.T) {
	m, err := ParseMode("sampled")
	require.NoError(t, err)
	assert.Equal(t, ModeSampled, m)
	_, err = ParseMode("sample")
	assert.ErrorContains(t, err, `"sampled"`)
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	_, err = New(cfg, WithMode(ModeSampled), WithProfile())
	assert.Error(t, err, "profiles cover every launch; sampled mode simulates only some")
}

// insidePolicy is the default policy with stretches short enough for the
// tiny configuration's launches.
func insidePolicy() samplePolicy {
	p := defaultSamplePolicy
	p.firstCycles, p.unitCycles, p.ratio, p.minChanges = 4096, 2048, 2, 16
	return p
}

// TestSampledInsideStretches: with WithSamplingInside, launches in detail
// run in detailed and functional stretches (a timing launch resumed after
// exec.Grid.Continue), their values are timing mode's, their cycles a
// charge near timing mode's, the report counts them and says what they
// were charged by, and two runs agree;
// without it no launch is split.
func TestSampledInsideStretches(t *testing.T) {
	const spec = "rmat:scale=10+perm=1"
	for _, variant := range []string{"bsp", "atos"} {
		t.Run(variant, func(t *testing.T) {
			timing, _ := enactOn(t, ModeTiming, "bfs", variant, spec)
			plain, pd := enactOn(t, ModeSampled, "bfs", variant, spec, withSamplePolicy(insidePolicy()))
			r, _ := pd.SamplingReport()
			assert.Zero(t, r.Stopped, "stretches only with WithSamplingInside")

			opts := []Option{withSamplePolicy(insidePolicy()), WithSamplingInside(2)}
			inside, d := enactOn(t, ModeSampled, "bfs", variant, spec, opts...)
			again, _ := enactOn(t, ModeSampled, "bfs", variant, spec, opts...)
			r, _ = d.SamplingReport()
			require.Positive(t, r.Stopped, "some launch ran in stretches")
			// bsp's kernels have no spin budget: their stretches are
			// charged by warp-instructions; Atos's workers spin: by changes.
			charge := map[string]string{"bsp": ChargeWarpInstructions, "atos": ChargeChanges}[variant]
			for _, k := range r.Kernels {
				if k.Stopped > 0 {
					assert.Equal(t, charge, k.StretchCharge, k.Kernel)
				} else {
					assert.Empty(t, k.StretchCharge, k.Kernel)
				}
			}
			assert.Positive(t, r.ExtrapolatedSeconds)
			assert.Positive(t, r.StoppedDetailSeconds)
			assert.Equal(t, timing.Values, inside.Values, "BFS depths do not depend on the interleaving")
			assert.Equal(t, inside.Total.Cycles, again.Total.Cycles, "deterministic")
			assert.InEpsilon(t, float64(timing.Total.Cycles), float64(inside.Total.Cycles), 0.35,
				"timing %d cycles, stretches %d", timing.Total.Cycles, inside.Total.Cycles)
			assert.NotEqual(t, plain.Total.Cycles, inside.Total.Cycles)
		})
	}
}

// TestSampledOnTheWindowEngine: sampled mode runs its detailed launches on
// the window engine (WithThreads), with the same figures at every thread
// count.
func TestSampledOnTheWindowEngine(t *testing.T) {
	const spec = "grid:w=16,h=16"
	one, d1 := enactOn(t, ModeSampled, "bfs", "bsp", spec, WithThreads(1))
	two, d2 := enactOn(t, ModeSampled, "bfs", "bsp", spec, WithThreads(2))
	r1, _ := d1.SamplingReport()
	r2, _ := d2.SamplingReport()
	assert.Less(t, r1.Detailed, r1.Launches, "some launches ran functionally")
	assert.Equal(t, r1, r2)
	assert.Equal(t, one.Total.Cycles, two.Total.Cycles)
	assert.Equal(t, one.EndToEnd, two.EndToEnd)
	assert.Equal(t, one.Values, two.Values)
	for i := range one.Iterations {
		assert.Equal(t, one.Iterations[i].Stats.Cycles, two.Iterations[i].Stats.Cycles)
	}
}

// TestSampledInsideOnTheWindowEngine: launches run in stretches on the
// window engine too (its probe stops a launch at a window's end, the grid
// is unsplit for the functional stretch and split again on resuming), with
// the same figures, report and values at 1, 2 and 3 threads, and cycles
// near the window engine's full timing.
func TestSampledInsideOnTheWindowEngine(t *testing.T) {
	const spec = "rmat:scale=10+perm=1"
	for _, variant := range []string{"bsp", "atos"} {
		t.Run(variant, func(t *testing.T) {
			timing, _ := enactOn(t, ModeTiming, "bfs", variant, spec, WithThreads(2))
			var first *scheduler.Result
			var firstReport SamplingReport
			for _, n := range []int{1, 2, 3} {
				res, d := enactOn(t, ModeSampled, "bfs", variant, spec,
					withSamplePolicy(insidePolicy()), WithSamplingInside(2), WithThreads(n))
				r, _ := d.SamplingReport()
				require.Positive(t, r.Stopped, "some launch ran in stretches")
				assert.Equal(t, timing.Values, res.Values, "BFS depths do not depend on the interleaving")
				if first == nil {
					first, firstReport = res, r
					assert.InEpsilon(t, float64(timing.Total.Cycles), float64(res.Total.Cycles), 0.35,
						"timing %d cycles, stretches %d", timing.Total.Cycles, res.Total.Cycles)
					continue
				}
				assert.Equal(t, firstReport, r, "%d threads", n)
				assert.Equal(t, first.Total, res.Total, "%d threads", n)
				assert.Equal(t, first.EndToEnd, res.EndToEnd, "%d threads", n)
			}
		})
	}
}

// TestSampledStretchSlice: WithStretchSlice sets the functional stretches'
// turn (SampleStretchSlice by default): the default and an explicit
// SampleStretchSlice agree, functional mode's 256-instruction turn gives
// other figures, and every turn keeps the values exact.
func TestSampledStretchSlice(t *testing.T) {
	const spec = "rmat:scale=10+perm=1"
	timing, _ := enactOn(t, ModeTiming, "sswp", "atos", spec)
	opts := []Option{withSamplePolicy(insidePolicy()), WithSamplingInside(2)}
	byDefault, d := enactOn(t, ModeSampled, "sswp", "atos", spec, opts...)
	r, _ := d.SamplingReport()
	require.Positive(t, r.Stopped, "some launch ran in stretches")
	explicit, _ := enactOn(t, ModeSampled, "sswp", "atos", spec, append(opts, WithStretchSlice(SampleStretchSlice))...)
	long, _ := enactOn(t, ModeSampled, "sswp", "atos", spec, append(opts, WithStretchSlice(256))...)
	assert.Equal(t, byDefault.Total, explicit.Total)
	assert.NotEqual(t, byDefault.Total.Cycles, long.Total.Cycles, "the turn reaches the stretches")
	assert.Equal(t, timing.Values, byDefault.Values, "widest paths do not depend on the interleaving")
	assert.Equal(t, timing.Values, long.Values)
	t.Logf("timing %d cycles, stretches of %d-instruction turns %d, of 256 %d",
		timing.Total.Cycles, SampleStretchSlice, byDefault.Total.Cycles, long.Total.Cycles)
}

// TestStretchSteadiness: a stretch whose second half made progress at one
// rate is steady; one whose last quarter made four times the changes of
// the third (a fused launch's level ending in a grid barrier) is not (for
// a kernel charged by warp-instructions, four times the instructions), and
// the functional stretches after such a one compare their warps at work
// over windows of an eighth of their instruction budget.
func TestStretchSteadiness(t *testing.T) {
	probe := func(perQuarter ...uint64) *stretchProbe {
		p := &stretchProbe{}
		var changes uint64
		for q, c := range perQuarter {
			for i := range uint64(4) {
				changes += c / 4
				p.points = append(p.points, timing.Progress{Cycles: uint64(q)*1024 + (i+1)*256, Changes: changes})
			}
		}
		return p
	}
	assert.True(t, probe(100, 100, 400, 400).steady(), "the second half at one rate")
	assert.True(t, probe(0, 0, 400, 1000).steady(), "the last quarter 2.5 times the third")
	assert.False(t, probe(400, 400, 400, 1600).steady(), "the last quarter four times the third")
	assert.False(t, probe(400, 400, 400, 0).steady(), "a wait at a barrier")
	assert.True(t, (&stretchProbe{}).steady(), "too few points to judge")

	// A kernel charged by its warp-instructions is judged by them: changes
	// at one rate while the issue rate quadruples is not steady, and the
	// other way round is.
	byInsts := func(changesPerQuarter, instsPerQuarter []uint64) *stretchProbe {
		p := &stretchProbe{byInsts: true}
		var changes, insts uint64
		for q := range changesPerQuarter {
			for i := range uint64(4) {
				changes += changesPerQuarter[q] / 4
				insts += instsPerQuarter[q] / 4
				p.points = append(p.points, timing.Progress{Cycles: uint64(q)*1024 + (i+1)*256, Changes: changes, WarpInsts: insts})
			}
		}
		return p
	}
	assert.False(t, byInsts([]uint64{40, 40, 40, 40}, []uint64{400, 400, 400, 1600}).steady(), "the issue rate quadrupled")
	assert.True(t, byInsts([]uint64{40, 40, 40, 160}, []uint64{400, 400, 400, 400}).steady(), "one issue rate, whatever the changes")

	assert.Equal(t, uint64(0), workingWindow(0, 8000), "blocks of rounds alone while the pace is steady")
	assert.Equal(t, uint64(1000), workingWindow(65536, 8000))
}

// TestAfterDetail pins what follows a detailed stretch: after a launch's
// first, another detailed one (the ramp-up's pace is not the launch's);
// after one with too few changes, or whose pace swung, one twice as long
// (until maxSteadyCycles); otherwise a functional stretch.
func TestAfterDetail(t *testing.T) {
	steady := func() bool { return true }
	unsteady := func() bool { return false }
	assert.Equal(t, measureAgain, afterDetail(true, 0.5, steady, SampleUnitCycles))
	assert.Equal(t, measureAgain, afterDetail(true, 0.5, unsteady, SampleUnitCycles))
	assert.Equal(t, lengthen, afterDetail(true, 0, steady, SampleUnitCycles), "no rate to measure")
	assert.Equal(t, lengthen, afterDetail(false, 0, steady, SampleUnitCycles), "no rate to measure")
	assert.Equal(t, functionalNext, afterDetail(false, 0.5, steady, SampleUnitCycles))
	assert.Equal(t, lengthen, afterDetail(false, 0.5, unsteady, SampleUnitCycles))
	assert.Equal(t, functionalNext, afterDetail(false, 0.5, unsteady, maxSteadyCycles), "lengthened as far as it goes")
}

// TestStretchedLaunchSignatureCountsEveryAtomic: a launch run in detailed
// and functional stretches keeps, for its signature, the global atomics of
// the whole launch (the detailed stretches' and the functional ones'), as
// a launch in timing mode counts them, on either engine.
func TestStretchedLaunchSignatureCountsEveryAtomic(t *testing.T) {
	const grid, threads, reps = 8, 256, 1024
	k := lookup(t, "atomic_contention_global")
	run := func(opts ...Option) (*Device, uint64) {
		d := tinyDevice(t, opts...)
		out := zeros[uint32](t, d, grid*threads)
		launch(t, d, k, grid, threads, out, uint32(1), uint32(reps))
		st := d.LastStats()
		require.NotNil(t, st)
		return d, st.GlobalAtomics
	}
	_, inTiming := run(WithMode(ModeTiming))
	assert.Equal(t, uint64(grid*threads*reps), inTiming)
	// Its atomicMin changes memory less and less often: any change is
	// enough to measure a rate here.
	p := insidePolicy()
	p.minChanges = 1
	d, stretched := run(WithMode(ModeSampled), withSamplePolicy(p), WithSamplingInside(2))
	r, _ := d.SamplingReport()
	require.Equal(t, 1, r.Stopped, "the launch ran in stretches")
	require.Positive(t, r.ExtrapolatedSeconds, "some of it functionally")
	assert.Equal(t, inTiming, stretched)
	_, onWindows := run(WithMode(ModeSampled), withSamplePolicy(p), WithSamplingInside(2), WithThreads(2))
	assert.Equal(t, inTiming, onWindows, "on the window engine too")
}

// TestStretchProbeSwung: a launch's charged pace that swings by
// SampleSwing both down and up sends it into detail; one that only falls
// (a tail) or moves by less does not.
func TestStretchProbeSwung(t *testing.T) {
	charge := func(rates ...float64) bool {
		p := &stretchProbe{}
		swung := false
		for _, r := range rates {
			swung = p.swung(r)
			p.lastRate = r
		}
		return swung
	}
	assert.False(t, charge(1, 0.6, 0.35, 0.2, 0.1), "a tail that only falls")
	assert.False(t, charge(1, 1.9, 1, 1.9, 1), "swings below SampleSwing")
	assert.False(t, charge(1, 0.4), "one fall")
	assert.True(t, charge(1, 0.4, 0.5, 1.2), "down, then up")
	assert.True(t, charge(0.2, 1, 0.45), "up, then down")
}

// TestStretchInstructionBudget: a kernel charged by its warp-instructions
// ends a functional stretch at the detailed stretch's count of them; a
// kernel that may spin (charged by its changes) has no instruction budget.
func TestStretchInstructionBudget(t *testing.T) {
	assert.Equal(t, uint64(1234), (&stretchProbe{byInsts: true}).stopInsts(1234))
	assert.Zero(t, (&stretchProbe{}).stopInsts(1234))
}

// TestSampledStretchesInRoundsAndInOrder: functional stretches run in
// rounds on the device's threads (a detailed pace of at least
// WithStretchRoundsIssue warp-instructions a cycle) or in issue-time
// order on one thread, and either way the figures are the same at 1, 2
// and 3 threads and the values exact; the two orders give other cycles.
func TestSampledStretchesInRoundsAndInOrder(t *testing.T) {
	const spec = "rmat:scale=10+perm=1"
	timing, _ := enactOn(t, ModeTiming, "sswp", "atos", spec)
	cycles := map[string]uint64{}
	for name, issue := range map[string]float64{"rounds": 0, "in order": math.Inf(1)} {
		var first *scheduler.Result
		for _, n := range []int{1, 2, 3} {
			res, d := enactOn(t, ModeSampled, "sswp", "atos", spec,
				withSamplePolicy(insidePolicy()), WithSamplingInside(2), WithStretchRoundsIssue(issue), WithThreads(n))
			r, _ := d.SamplingReport()
			require.Positive(t, r.Stopped, "%s: some launch ran in stretches", name)
			assert.Equal(t, timing.Values, res.Values, "%s: widest paths do not depend on the interleaving", name)
			if first == nil {
				first = res
				cycles[name] = res.Total.Cycles
				continue
			}
			assert.Equal(t, first.Total, res.Total, "%s, %d threads", name, n)
		}
	}
	assert.NotEqual(t, cycles["rounds"], cycles["in order"])
}

// TestSampledStopsOnly: WithStopsOnly runs every stretch in detail: the
// launches stop and resume (the report counts them) but no cycle is
// charged to a functional stretch, the values are exact and the cycles
// differ from full timing only by what the stops change.
func TestSampledStopsOnly(t *testing.T) {
	const spec = "rmat:scale=10+perm=1"
	timing, _ := enactOn(t, ModeTiming, "sswp", "atos", spec)
	opts := []Option{withSamplePolicy(insidePolicy()), WithSamplingInside(2)}
	stretched, _ := enactOn(t, ModeSampled, "sswp", "atos", spec, opts...)
	stops, d := enactOn(t, ModeSampled, "sswp", "atos", spec, append(opts, WithStopsOnly())...)
	r, _ := d.SamplingReport()
	require.Positive(t, r.Stopped, "some launch stopped and resumed")
	assert.Zero(t, r.ExtrapolatedSeconds, "no functional stretch")
	assert.Positive(t, r.StoppedDetailSeconds)
	assert.Equal(t, timing.Values, stops.Values)
	assert.NotEqual(t, stretched.Total.Cycles, stops.Total.Cycles)
	assert.InEpsilon(t, float64(timing.Total.Cycles), float64(stops.Total.Cycles), 0.25,
		"timing %d cycles, stops only %d", timing.Total.Cycles, stops.Total.Cycles)
}

// TestStretchCyclesCountTheDrain: a stopped detailed stretch of a kernel
// that may spin counts until its requests in flight have drained; one of
// a kernel charged by its warp-instructions until its stop.
func TestStretchCyclesCountTheDrain(t *testing.T) {
	st := timing.Stats{Cycles: 9000, StoppedAt: 8191}
	assert.Equal(t, uint64(9000), (&stretchProbe{}).stretchCycles(st))
	assert.Equal(t, uint64(8192), (&stretchProbe{byInsts: true}).stretchCycles(st))
}

// TestChargeRounds: a stretch in rounds is charged its changes at the
// detailed rate, but its last round's burst of changes (a launch's warps
// finishing together) no more than that round's instructions at the
// detailed issue rate; a last round at the launch's pace is charged at
// the rate as before.
func TestChargeRounds(t *testing.T) {
	const rate, issue = 0.01, 10.0 // a change per 100 cycles, 10 warp-instructions a cycle
	assert.Equal(t, uint64(50_000), chargeRounds(400, 100, 1_000_000, rate, issue), "a round at the pace: 500 changes at the rate")
	assert.Equal(t, uint64(40_000+2_000), chargeRounds(400, 1_400, 20_000, rate, issue), "a burst: 1,400 changes in 20,000 instructions")
	assert.Equal(t, uint64(40_000), chargeRounds(400, 0, 5_000, rate, issue), "a last round without changes")
	assert.Zero(t, chargeRounds(0, 0, 0, rate, issue))
}
