package sim

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Sampled simulation (ModeSampled) at launch granularity: see the package
// comment for the method and its limits. The policy's constants:
const (
	// SampleWarmupLaunches is how many launches of each kernel run in
	// detail first, whatever else the policy says.
	SampleWarmupLaunches = 3
	// SampleMinInterval and SampleIntervalDivisor set the systematic
	// sampling after the warm-up: a kernel's launch number i (from 0) that
	// runs in detail schedules its next detailed launch at i + max(
	// SampleMinInterval, i/SampleIntervalDivisor), so the interval grows
	// with the count and the detailed launches of a kernel launched n
	// times grow with log n.
	SampleMinInterval     = 4
	SampleIntervalDivisor = 2
	// SampleFarFactor: a functional launch whose warp-instructions lie
	// more than this factor below the smallest or above the largest of the
	// detailed samples its prediction used is still charged its
	// (extrapolated) prediction, and the next launch of its kernel runs in
	// detail.
	SampleFarFactor = 2.0
	// SampleAtomicsFactor and SampleMinAtomics: a functional launch whose
	// global atomics (lane operations) differ from those of the sample its
	// prediction starts from by more than this factor, the larger of the
	// two counts at least SampleMinAtomics, is charged as one beyond
	// SampleFarFactor (the next launch of its kernel in detail): at like
	// warp-instructions, fewer or more atomics on a few hot words change
	// its cycles (a PageRank pull counting its active vertices: half the
	// atomics, a third fewer cycles, 3% fewer instructions).
	SampleAtomicsFactor = 1.5
	SampleMinAtomics    = 1024
)

// Strata of predictions: within the factor far of the samples' counts, and
// beyond it.
const (
	near = 0
	far  = 1
)

// Why a launch ran in detail (SamplingReport's reasons).
const (
	reasonWarmup   = "warm-up"
	reasonSchedule = "schedule"
	reasonShape    = "new shape"
	reasonForced   = "forced"
	reasonClock    = "reads clock"
)

// samplePolicy holds the policy's settings (the constants above; tests
// change them with withSamplePolicy).
type samplePolicy struct {
	warmup, minInterval, divisor int
	far                          float64
	// firstCycles, unitCycles and ratio (0: no launch runs in stretches)
	// are the sampling inside a launch's (sampled_launch.go).
	firstCycles, unitCycles, ratio, minChanges uint64
}

var defaultSamplePolicy = samplePolicy{
	warmup: SampleWarmupLaunches, minInterval: SampleMinInterval,
	divisor: SampleIntervalDivisor, far: SampleFarFactor,
	firstCycles: SampleFirstCycles, unitCycles: SampleUnitCycles, ratio: SampleFunctionalRatio,
	minChanges: SampleMinChanges,
}

// withSamplePolicy replaces the sampling policy (tests).
func withSamplePolicy(p samplePolicy) Option {
	return func(o *options) { o.samplePolicy = &p }
}

// launchShape is what a launch's resources depend on: its grid, block and
// dynamic shared memory.
type launchShape struct {
	grid, block [3]int
	dynamicSmem int
}

// launchSample is one detailed launch: its functional signature
// (warp-instructions and global atomics, with its shape) and its
// simulated cycles.
type launchSample struct {
	shape     launchShape
	warpInsts uint64
	atomics   uint64
	cycles    uint64
}

// atomicsDrift reports whether a launch with atomics global atomics lies
// beyond SampleAtomicsFactor of its prediction's anchor's
// (SampleMinAtomics).
func atomicsDrift(anchor launchSample, atomics uint64) bool {
	hi, lo := max(anchor.atomics, atomics), min(anchor.atomics, atomics)
	return hi >= SampleMinAtomics && float64(hi) > SampleAtomicsFactor*float64(max(lo, 1))
}

// kernelSampling is the sampler's state for one kernel.
type kernelSampling struct {
	name     string
	launches int // launches decided so far
	detailed int
	reasons  map[string]int
	// next is the launch number of the next scheduled detailed launch.
	next int
	// force: a far-off prediction asked for the next launch in detail.
	force   bool
	shapes  map[launchShape]bool // shapes seen in detail
	samples []launchSample
	// heldOut holds the signed relative errors of the held-out
	// predictions, [near] those within the factor far of the samples'
	// counts and [far] those beyond it; predictedCycles sums the cycles
	// charged to functional launches, split the same way, and predictedFar
	// counts those beyond.
	heldOut         [2][]float64
	predictedCycles [2]uint64
	predictedFar    int
	// stopped counts the detailed launches run in stretches;
	// stoppedDetail and stoppedExtra sum their cycles simulated in detail
	// and charged to functional stretches, stoppedUnchecked those charged
	// by each launch's first functional stretch, stoppedErr the other
	// charges' likely error in cycles; rateChanges are the relative
	// changes of rate from one functional stretch to the next.
	stopped                                       int
	stoppedDetail, stoppedExtra, stoppedUnchecked uint64
	// swung counts the launches run in stretches whose pace swung both
	// ways, so that they ran the rest in detail (stretchProbe.swung).
	swung int
	// stretchCharge is what its functional stretches were charged by
	// (KernelSampling.StretchCharge).
	stretchCharge string
	stoppedErr    float64
	rateChanges   []float64
}

// sampler decides, per launch, between detail and functional execution,
// and predicts the functional launches' cycles. The Device's mutex
// guards it.
type sampler struct {
	policy samplePolicy
	// inside: detailed launches run in stretches (WithSamplingInside).
	inside  bool
	kernels map[string]*kernelSampling
	order   []string
	// clocks caches readsClock per program.
	clocks map[*exec.Program]bool
}

func newSampler(p samplePolicy) *sampler {
	return &sampler{policy: p, kernels: map[string]*kernelSampling{}, clocks: map[*exec.Program]bool{}}
}

func (s *sampler) kernel(key string) *kernelSampling {
	k, ok := s.kernels[key]
	if !ok {
		k = &kernelSampling{name: key, reasons: map[string]int{}, shapes: map[launchShape]bool{}}
		s.kernels[key] = k
		s.order = append(s.order, key)
	}
	return k
}

// decide says, before a launch of kernel key with shape sh runs, whether it
// runs in detail (each such launch is a sample); clock is whether its code
// reads a clock (readsClock). It counts the launch.
func (s *sampler) decide(key string, sh launchShape, clock bool) bool {
	k := s.kernel(key)
	i := k.launches
	k.launches++
	reason := ""
	switch {
	case clock:
		// Its values depend on time, which only detail has.
		reason = reasonClock
	case i < s.policy.warmup:
		reason = reasonWarmup
	case !k.shapes[sh]:
		reason = reasonShape
	case k.force:
		reason = reasonForced
	case i >= k.next:
		reason = reasonSchedule
	default:
		return false
	}
	k.detailed++
	k.reasons[reason]++
	k.force = false
	k.next = i + max(s.policy.minInterval, i/max(s.policy.divisor, 1))
	return true
}

// detailed records a detailed launch: first, when the kernel has earlier
// samples, the held-out error of predicting it from them; then the sample.
func (s *sampler) detailed(key string, sh launchShape, warpInsts, atomics, cycles uint64, extrapolated bool) {
	k := s.kernel(key)
	// An extrapolated launch's cycles are themselves a prediction: it is a
	// sample for later launches but does not measure the predictions.
	if pred, anchor, beyond, ok := predictCycles(k.samples, sh, warpInsts, s.policy.far); ok && cycles > 0 && !extrapolated {
		stratum := near
		if beyond || atomicsDrift(anchor, atomics) {
			stratum = far
		}
		k.heldOut[stratum] = append(k.heldOut[stratum], (pred-float64(cycles))/float64(cycles))
	}
	k.shapes[sh] = true
	k.samples = append(k.samples, launchSample{shape: sh, warpInsts: warpInsts, atomics: atomics, cycles: cycles})
}

// predict returns the cycles to charge a functional launch of kernel key
// with shape sh that executed warpInsts warp-instructions and atomics
// global atomics, and asks for the kernel's next launch in detail when the
// signature lies far outside the samples.
func (s *sampler) predict(key string, sh launchShape, warpInsts, atomics uint64) uint64 {
	k := s.kernel(key)
	pred, anchor, beyond, ok := predictCycles(k.samples, sh, warpInsts, s.policy.far)
	beyond = beyond || ok && atomicsDrift(anchor, atomics)
	if !ok {
		// No sample at all (the policy never runs such a launch
		// functionally): charge nothing, and sample the next one.
		k.force = true
		return 0
	}
	c := uint64(math.Round(max(pred, 0)))
	stratum := near
	if beyond {
		stratum = far
		k.force = true
		k.predictedFar++
	}
	k.predictedCycles[stratum] += c
	return c
}

// predictCycles predicts the cycles of a launch of shape sh with x
// warp-instructions from a kernel's detailed samples (in launch order):
//
//   - the anchor is the most recent sample whose count lies within the
//     factor far of x, of the same shape if one such has it (a launch is
//     most like the kernel's latest detailed one of like size, whose cache
//     state and phase of the algorithm are nearest); when none is that
//     near, the sample whose count is nearest x in ratio;
//   - from the anchor (x0 warp-instructions, y0 cycles) the prediction
//     scales as y0·(x/x0)^α, where α is the least-squares slope of log
//     cycles on log warp-instructions over the kernel's samples (equal
//     counts averaged), kept within [0, 1]: between cycles that do not
//     grow with the work (a latency-bound launch) and cycles in
//     proportion to it (a throughput-bound one); 0 with one distinct count.
//
// far reports x more than the factor far below the smallest or above the
// largest sampled count; ok is false when there is no sample. anchor is
// the sample the prediction starts from.
func predictCycles(samples []launchSample, sh launchShape, x uint64, far float64) (y float64, anchor launchSample, isFar, ok bool) {
	if len(samples) == 0 {
		return 0, launchSample{}, false, false
	}
	xf := float64(max(x, 1))
	ratio := func(s launchSample) float64 { return math.Abs(math.Log(xf / float64(max(s.warpInsts, 1)))) }
	anchor, found, foundShape := samples[len(samples)-1], false, false
	for i := len(samples) - 1; i >= 0 && !foundShape; i-- {
		if c := samples[i]; ratio(c) <= math.Log(far) && (!found || c.shape == sh) {
			anchor, found, foundShape = c, true, c.shape == sh
		}
	}
	if !found {
		for i := len(samples) - 1; i >= 0; i-- {
			if ratio(samples[i]) < ratio(anchor) {
				anchor = samples[i]
			}
		}
	}
	pts := points(samples)
	isFar = xf < pts[0].x/far || xf > pts[len(pts)-1].x*far
	x0, y0 := float64(max(anchor.warpInsts, 1)), float64(anchor.cycles)
	return y0 * math.Pow(xf/x0, logSlope(pts)), anchor, isFar, true
}

type point struct{ x, y float64 }

// points are the samples' (warp-instructions, cycles), sorted by count,
// with the cycles of equal counts averaged.
func points(samples []launchSample) []point {
	sum := map[uint64][2]float64{}
	for _, s := range samples {
		v := sum[s.warpInsts]
		sum[s.warpInsts] = [2]float64{v[0] + float64(s.cycles), v[1] + 1}
	}
	pts := make([]point, 0, len(sum))
	for x, v := range sum {
		pts = append(pts, point{float64(max(x, 1)), v[0] / v[1]})
	}
	slices.SortFunc(pts, func(a, b point) int { return int(math.Copysign(1, a.x-b.x)) })
	return pts
}

// logSlope is the least-squares slope of log cycles on log
// warp-instructions, within [0, 1] (0 for fewer than two points).
func logSlope(pts []point) float64 {
	var mx, my float64
	for _, p := range pts {
		mx += math.Log(p.x)
		my += math.Log(max(p.y, 1))
	}
	n := float64(len(pts))
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for _, p := range pts {
		dx := math.Log(p.x) - mx
		sxy += dx * (math.Log(max(p.y, 1)) - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return min(max(sxy/sxx, 0), 1)
}

// SamplingReport describes a sampled device's launches so far: how many
// ran in detail, and how well the predictions of the others are likely to
// hold.
type SamplingReport struct {
	// Launches is every launch the sampler decided; Detailed those
	// simulated cycle by cycle, the rest ran functionally with predicted
	// cycles.
	Launches int `json:"launches"`
	Detailed int `json:"detailed"`
	// Kernels are the per-kernel figures, in order of first launch.
	Kernels []KernelSampling `json:"kernels"`
	// HeldOut is how many detailed launches were also predicted from
	// their kernel's earlier samples with their warp-instructions within
	// SampleFarFactor of the samples' (as most functional launches are);
	// HeldOutMedianError and HeldOutMaxError are the median and the
	// largest of those predictions' absolute relative errors in cycles (0
	// when none). HeldOutFar and HeldOutFarMedianError are the same of the
	// held-out predictions beyond that factor (extrapolations), and
	// PredictedFar counts the functional launches charged one.
	HeldOut               int     `json:"held_out"`
	HeldOutMedianError    float64 `json:"held_out_median_error"`
	HeldOutMaxError       float64 `json:"held_out_max_error"`
	HeldOutFar            int     `json:"held_out_far"`
	HeldOutFarMedianError float64 `json:"held_out_far_median_error"`
	PredictedFar          int     `json:"predicted_far"`
	// PredictedSeconds is the kernel time charged from predictions (the
	// predicted cycles at the clock); HostSeconds the device's simulated
	// host clock (every launch, copy and memset since New).
	PredictedSeconds float64 `json:"predicted_seconds"`
	HostSeconds      float64 `json:"host_seconds"`
	// EstimatedErrorSeconds is the predicted time's likely error, summed
	// over the kernels and the two strata (within the factor, beyond it):
	// the time predicted × the mean absolute relative error of the
	// kernel's held-out predictions of the stratum (of both strata where
	// the stratum has none), which assumes that the launches' errors do
	// not cancel. EstimatedError is it relative to HostSeconds; -1 when a
	// kernel had launches predicted but none held out (the error is then
	// unknown).
	EstimatedErrorSeconds float64 `json:"estimated_error_seconds"`
	EstimatedError        float64 `json:"estimated_error"`
	// Stopped counts the detailed launches run in stretches, detailed and
	// functional (sampling inside a launch); StoppedDetailSeconds is the
	// time of their detailed stretches, ExtrapolatedSeconds the time
	// charged to their functional ones. Their likely error is part of
	// EstimatedErrorSeconds: each functional stretch's charge × the
	// relative change of the rate it was charged at from the one before
	// it; for a launch's first functional stretch, which none precedes,
	// the mean such change of its kernel (of every kernel where its own
	// has none; unknown where no stretch has one).
	Stopped              int     `json:"stopped"`
	StoppedDetailSeconds float64 `json:"stopped_detail_seconds"`
	ExtrapolatedSeconds  float64 `json:"extrapolated_seconds"`
	// Swung counts the launches run in stretches whose pace swung by
	// SampleSwing both up and down from one functional stretch to the
	// next, and which so ran the rest in detail.
	Swung int `json:"swung"`
	// Method names the method and its policy in one line.
	Method string `json:"method"`
}

// KernelSampling is one kernel's part of a SamplingReport.
type KernelSampling struct {
	Kernel   string `json:"kernel"`
	Launches int    `json:"launches"`
	Detailed int    `json:"detailed"`
	// Reasons counts the detailed launches by why they ran in detail:
	// "warm-up", "new shape" (a grid, block or shared memory not seen in
	// detail), "forced" (after a far-off prediction), "schedule",
	// "reads clock".
	Reasons            map[string]int `json:"reasons"`
	HeldOut            int            `json:"held_out"`
	HeldOutMedianError float64        `json:"held_out_median_error"`
	HeldOutMaxError    float64        `json:"held_out_max_error"`
	HeldOutFar         int            `json:"held_out_far"`
	PredictedFar       int            `json:"predicted_far"`
	PredictedCycles    uint64         `json:"predicted_cycles"`
	// Stopped counts the kernel's detailed launches run in stretches;
	// StoppedDetailCycles and ExtrapolatedCycles sum their cycles
	// simulated in detail and charged to functional stretches.
	Stopped             int    `json:"stopped"`
	StoppedDetailCycles uint64 `json:"stopped_detail_cycles"`
	ExtrapolatedCycles  uint64 `json:"extrapolated_cycles"`
	// Swung counts those whose pace swung both ways (SamplingReport.Swung).
	Swung int `json:"swung"`
	// StretchCharge is what the kernel's functional stretches were
	// charged by: "warp_instructions" (a kernel without a spin budget,
	// whose instructions are its work) or "changes" (a kernel that may
	// spin: its instructions that changed memory); "" when none ran.
	StretchCharge string `json:"stretch_charge,omitempty"`
}

// method describes the sampler's policy in one line.
func (s *sampler) method() string {
	m := fmt.Sprintf("launch sampling per kernel: in detail the first %d launches, each new grid/block shape, "+
		"and from launch i the next after max(%d, i/%d) launches; "+
		"the rest functional (their global accesses warming the L2's tags), charged the cycles of the kernel's latest detailed launch of like size, scaled by "+
		"the ratio of warp-instructions to the power fitted on the samples (log-log, within [0, 1]; "+
		"the next launch in detail when %gx outside the samples)",
		s.policy.warmup, s.policy.minInterval, s.policy.divisor, s.policy.far)
	if s.inside {
		m += fmt.Sprintf("; a launch in detail runs its first %d cycles in detail and %d more (the first's pace is the ramp-up's), "+
			"then alternates functional stretches of the progress of %d detailed stretches at the last one's rate of progress over its second half, "+
			"charged at that rate, and detailed stretches of %d cycles; progress is warp-instructions for a kernel without a spin budget "+
			"and instructions that changed memory for one with (a spinning warp's instructions are not work)",
			s.policy.firstCycles, s.policy.unitCycles, s.policy.ratio, s.policy.unitCycles)
	}
	return m
}

// SamplingReport returns the report of a sampled device (ModeSampled), and
// false in the other modes.
func (d *Device) SamplingReport() (SamplingReport, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sampler == nil {
		return SamplingReport{}, false
	}
	return d.sampler.report(d.cfg, d.hostClock), true
}

func (s *sampler) report(cfg Config, host time.Duration) SamplingReport {
	r := SamplingReport{HostSeconds: host.Seconds(), Method: s.method()}
	var all [2][]float64
	var predicted, expected, stoppedDetail, extrapolated float64
	unknown := false
	for _, key := range s.order {
		k := s.kernels[key]
		ks := KernelSampling{Kernel: k.name, Launches: k.launches, Detailed: k.detailed,
			Reasons: maps.Clone(k.reasons), HeldOut: len(k.heldOut[near]), HeldOutFar: len(k.heldOut[far]),
			PredictedFar: k.predictedFar, PredictedCycles: k.predictedCycles[near] + k.predictedCycles[far],
			Stopped: k.stopped, StoppedDetailCycles: k.stoppedDetail, ExtrapolatedCycles: k.stoppedExtra,
			Swung: k.swung, StretchCharge: k.stretchCharge}
		r.Stopped += k.stopped
		r.Swung += k.swung
		stoppedDetail += float64(k.stoppedDetail)
		extrapolated += float64(k.stoppedExtra)
		expected += k.stoppedErr
		ks.HeldOutMedianError, ks.HeldOutMaxError, _ = errorStats(k.heldOut[near])
		r.Kernels = append(r.Kernels, ks)
		r.Launches += k.launches
		r.Detailed += k.detailed
		r.PredictedFar += k.predictedFar
		both := slices.Concat(k.heldOut[near], k.heldOut[far])
		_, _, maeBoth := errorStats(both)
		for stratum := range 2 {
			all[stratum] = append(all[stratum], k.heldOut[stratum]...)
			p := float64(k.predictedCycles[stratum])
			predicted += p
			mae := maeBoth
			if len(k.heldOut[stratum]) > 0 {
				_, _, mae = errorStats(k.heldOut[stratum])
			}
			expected += mae * p
		}
		if ks.PredictedCycles > 0 && len(both) == 0 {
			unknown = true
		}
	}
	// The first functional stretch of each launch run in stretches: at the
	// mean relative change of rate of its kernel's checked stretches, or
	// of every kernel's where its own has none.
	var allChanges []float64
	for _, key := range s.order {
		allChanges = append(allChanges, s.kernels[key].rateChanges...)
	}
	for _, key := range s.order {
		k := s.kernels[key]
		if k.stoppedUnchecked == 0 {
			continue
		}
		_, _, mean := errorStats(k.rateChanges)
		if len(k.rateChanges) == 0 {
			_, _, mean = errorStats(allChanges)
		}
		if len(allChanges) == 0 {
			unknown = true
		}
		expected += float64(k.stoppedUnchecked) * mean
	}
	r.HeldOut, r.HeldOutFar = len(all[near]), len(all[far])
	r.HeldOutMedianError, r.HeldOutMaxError, _ = errorStats(all[near])
	r.HeldOutFarMedianError, _, _ = errorStats(all[far])
	hz := float64(cfg.ClockMHz) * 1e6
	r.PredictedSeconds = predicted / hz
	r.StoppedDetailSeconds, r.ExtrapolatedSeconds = stoppedDetail/hz, extrapolated/hz
	switch {
	case unknown:
		r.EstimatedError = -1
	case host > 0:
		r.EstimatedErrorSeconds = expected / hz
		r.EstimatedError = r.EstimatedErrorSeconds / r.HostSeconds
	}
	return r
}

// errorStats returns the median, the largest and the mean of the absolute
// values of errs (zeros when empty).
func errorStats(errs []float64) (median, largest, mean float64) {
	if len(errs) == 0 {
		return 0, 0, 0
	}
	abs := make([]float64, len(errs))
	for i, e := range errs {
		abs[i] = math.Abs(e)
		mean += abs[i]
	}
	slices.Sort(abs)
	n := len(abs)
	median = abs[n/2]
	if n%2 == 0 {
		median = (abs[n/2-1] + abs[n/2]) / 2
	}
	return median, abs[n-1], mean / float64(n)
}

// launchSampled runs a launch of a sampled device: in detail (timing) or
// functionally with predicted cycles, as the sampler decides before it
// starts. d.mu is held.
func (d *Device) launchSampled(ctx context.Context, k *kernels.Kernel, a kernelAttrs, cfg kernels.LaunchConfig, p *exec.Program, el exec.Launch, resident int) (kernels.LaunchStats, error) {
	key := k.Name
	if k.Module != nil && k.Module.Name != "" {
		key = k.Module.Name + "." + k.Name
	}
	sh := launchShape{grid: el.Grid, block: el.Block, dynamicSmem: el.DynamicShared}
	clock, ok := d.sampler.clocks[p]
	if !ok {
		clock = readsClock(p)
		d.sampler.clocks[p] = clock
	}
	if d.sampler.decide(key, sh, clock) {
		var probe *stretchProbe
		if !clock && !d.opts.parallel && !d.opts.profiling.profiles() {
			_, _, spins := kernels.SpinParams(k)
			probe = d.sampler.newProbe(key, resident, spins)
		}
		stats, err := d.launchTimingProbed(ctx, k, a, cfg, p, el, probe)
		if err == nil && d.lastStats != nil {
			d.sampler.detailed(key, sh, d.lastStats.WarpInstructions, d.lastStats.GlobalAtomics, d.lastStats.Cycles, probe != nil && probe.stretched)
		}
		return stats, err
	}
	d.lastStats = nil
	return d.launchFunctional(ctx, p, el, resident, func(g *exec.Grid) uint64 {
		return d.sampler.predict(key, sh, g.WarpInsts, g.GlobalAtomics)
	})
}

// readsClock reports whether p's code reads %clock, %clock64 or
// %globaltimer: functionally such a read counts instructions rather than
// cycles, so the values such a kernel computes are only right in detail.
func readsClock(p *exec.Program) bool {
	found := false
	p.Reachable(func(fn *ptx.Function) {
		for i := range fn.Insts {
			in := &fn.Insts[i]
			for _, o := range in.Src[:in.NSrc] {
				if o.Kind == ptx.OperandSpecial {
					switch o.Special {
					case ptx.SRegClock, ptx.SRegClockHi, ptx.SRegClock64,
						ptx.SRegGlobalTimer, ptx.SRegGlobalTimerLo, ptx.SRegGlobalTimerHi:
						found = true
					}
				}
			}
		}
	})
	return found
}
