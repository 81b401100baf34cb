package sim

import (
	"context"
	"math"
	"math/bits"
	"strings"

	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Sampling inside a launch (sampled mode): a launch that runs in detail
// runs in stretches. The first SampleFirstCycles cycles are simulated in
// detail, then SampleUnitCycles more (the first stretch's pace is the
// ramp-up's); from then on the launch alternates a functional stretch, which
// makes the progress of SampleFunctionalRatio detailed stretches at the
// rate the last one measured, and a detailed stretch of SampleUnitCycles
// (twice the last one's, up to maxStretchCycles, when the last one made
// too few changes to measure a rate), until it ends in either. A
// functional stretch is charged its progress at the rate of progress over
// the second half of the detailed stretch before it (the first half warms
// the caches the functional stretch left cold).
//
// Progress, for a kernel that may spin (one with a spin budget,
// kernels.SpinParams), is the instructions that changed memory (stores and
// atomics, exec.Grid.Changes): a spinning warp issues instructions that
// change nothing, and a functional stretch spins a different number of
// times than the timing model would, while the changes it makes are the
// launch's own work. A kernel without a spin budget never waits on
// another warp, so its instructions are its work, and progress is its
// warp-instructions: their count varies less with the interleaving than
// the changes do (a label-propagation push whose functional warps see
// fresher labels makes fewer changes for the same edges). (Warps and CTAs
// that start or finish are not progress here: a launch's warps finish in a
// burst at its end.)
const (
	SampleFirstCycles = 32768
	SampleUnitCycles  = 8192
	// SampleFunctionalRatio is the suggested ratio (WithSamplingInside).
	SampleFunctionalRatio = 8
	// SampleStretchSlice is the instructions a warp runs per turn in a
	// functional stretch (WithStretchSlice). Short turns interleave the
	// warps about as the timing model's schedulers do, so an asynchronous
	// kernel's races (which task sees which update) and hence its work
	// stay close to the timing model's; functional mode's 256-instruction
	// turns let a warp run far ahead and see fresher values, doing less
	// redundant work than the detailed stretches it is charged by.
	SampleStretchSlice = 4
	// SampleMinChanges: a detailed stretch whose second half changed
	// memory fewer times is followed by another detailed stretch, not a
	// functional one: its rate rests on too few events (a latency-bound
	// launch whose changes come in a burst at its end).
	SampleMinChanges = 16
	// SampleRoundsIssue: a functional stretch after a detailed one that
	// issued at least this many warp-instructions a cycle runs in rounds
	// on the device's threads (exec's rounds: another SM's stores seen a
	// round later); one after fewer runs its turns one after another on
	// one thread (exec.RunOptions.InOrder, issue-time order). The default,
	// 0, runs every stretch in rounds: since rounds cost little per turn
	// they pay off even in a grid's wavefront, and over the Atos cells and
	// the inside set of results/sampled they come as close to full timing
	// as issue-time order or closer. The choice rests on the timing model's
	// pace alone, so the figures are the same for every thread count.
	SampleRoundsIssue = 0
	// maxStretchCycles bounds a detailed stretch lengthened for want of
	// changes.
	maxStretchCycles = 1 << 24
	// maxSteadyCycles bounds a detailed stretch lengthened for an
	// unsteady pace (stretchProbe.steady).
	maxSteadyCycles = 1 << 20
	// sampleProbeCycles is how often a detailed stretch records its
	// progress.
	sampleProbeCycles = 256
)

// stretchProbe follows one launch run in stretches (runInStretches): it
// stops each detailed stretch and keeps what the charges and their
// estimate need.
type stretchProbe struct {
	key   string
	first uint64 // cycles of the first detailed stretch
	unit  uint64 // cycles of each later one
	ratio uint64
	// minChanges: SampleMinChanges.
	minChanges uint64
	resident   int
	// points are the current detailed stretch's probes.
	points []timing.Progress
	// lastRate is the rate the last functional stretch was charged at (0:
	// none yet); stretched, the launch stopped at least once.
	lastRate  float64
	stretched bool
	// byInsts: the kernel never spins (no spin budget), so its functional
	// stretches are charged their warp-instructions at the detailed
	// stretch's issue rate rather than their changes.
	byInsts bool
	// rose and fell: a functional stretch's charged rate was at least
	// SampleSwing times the last one's, or at most 1/SampleSwing of it.
	rose, fell bool
}

// SampleSwing is the change of pace between two functional stretches of
// a launch that counts as a swing: a launch whose pace has swung both up
// and down (its phases, such as a fused launch's levels, are shorter than
// what a detailed stretch can measure and come back) runs the rest in
// detail, since no stretch's rate predicts the next one's. A pace that
// only falls (a launch's tail) or only rises (its ramp) goes on sampled.
const SampleSwing = 2

// swung records the change from the last charged rate to rate and says
// whether the launch's pace has now swung both ways.
func (p *stretchProbe) swung(rate float64) bool {
	if p.lastRate > 0 {
		p.rose = p.rose || rate >= SampleSwing*p.lastRate
		p.fell = p.fell || rate*SampleSwing <= p.lastRate
	}
	return p.rose && p.fell
}

// newProbe returns a probe for a detailed launch of kernel key with
// resident co-resident CTAs, or nil when the device samples no launch
// inside (WithSamplingInside).
func (s *sampler) newProbe(key string, resident int, spins bool) *stretchProbe {
	if !s.inside || s.policy.ratio == 0 {
		return nil
	}
	return &stretchProbe{key: key, first: s.policy.firstCycles, unit: s.policy.unitCycles,
		ratio: s.policy.ratio, minChanges: s.policy.minChanges, resident: resident, byInsts: !spins}
}

// stretch returns the Probe that stops a detailed stretch after cycles.
func (p *stretchProbe) stretch(cycles uint64) func(timing.Progress) bool {
	p.points = p.points[:0]
	return func(pt timing.Progress) bool {
		p.points = append(p.points, pt)
		return pt.Cycles >= cycles
	}
}

// rate is the progress and the warp-instructions per cycle over the second
// half of the stretch that just stopped (0, 0 when it made fewer than
// SampleMinChanges changes there).
func (p *stretchProbe) rate() (progress, issue float64) {
	n := len(p.points)
	if n < 2 {
		return 0, 0
	}
	last, mid := p.points[n-1], p.at(1, 2)
	if last.Cycles <= mid.Cycles || last.Changes-mid.Changes < p.minChanges {
		return 0, 0
	}
	span := float64(last.Cycles - mid.Cycles)
	return float64(last.Changes-mid.Changes) / span, float64(last.WarpInsts-mid.WarpInsts) / span
}

// at is the last probe point at or before num/den of the stretch's
// cycles (the first point where none is).
func (p *stretchProbe) at(num, den uint64) timing.Progress {
	end := p.points[len(p.points)-1].Cycles * num / den
	pt := p.points[0]
	for _, q := range p.points {
		if q.Cycles <= end {
			pt = q
		}
	}
	return pt
}

// steady says whether the stretch that just stopped made progress at about
// one rate through its second half: the progress of its third and fourth
// quarters (the warp-instructions of a kernel charged by them, byInsts;
// else the changes) differ by at most their mean (one at most three times
// the other). A launch whose pace swings with a period longer than that (a
// fused launch's levels, each a stretch of work then a wait at a grid
// barrier) fails it, and a longer detailed stretch measures the rate over
// whole periods.
func (p *stretchProbe) steady() bool {
	n := len(p.points)
	if n < 4 {
		return true
	}
	half, threeQuarters, last := p.progress(p.at(1, 2)), p.progress(p.at(3, 4)), p.progress(p.points[n-1])
	a, b := float64(threeQuarters-half), float64(last-threeQuarters)
	return math.Abs(a-b) <= (a+b)/2
}

// progress is pt's progress of the kind the probe's functional stretches
// are charged by: warp-instructions for a kernel without a spin budget
// (byInsts), else the instructions that changed memory.
func (p *stretchProbe) progress(pt timing.Progress) uint64 {
	if p.byInsts {
		return pt.WarpInsts
	}
	return pt.Changes
}

// gridProgress is g's progress so far, as a probe point.
func gridProgress(g *exec.Grid) timing.Progress {
	insts, _ := g.Instructions()
	return timing.Progress{WarpInsts: insts, Changes: g.Changes()}
}

// What a kernel's functional stretches are charged by
// (KernelSampling.StretchCharge).
const (
	ChargeWarpInstructions = "warp_instructions"
	ChargeChanges          = "changes"
)

// SampleWorkingFall is a functional stretch's RunOptions.WorkingFall for
// a kernel without a spin budget: its warps at work are its live warps,
// and a fall of a quarter (warps finishing) changes the pace that its
// instructions are charged at; a kernel that may spin keeps exec's half,
// since its pollers leave and rejoin the back-off.
const SampleWorkingFall = 0.75

// workingFall is the RunOptions.WorkingFall of the probe's stretches.
func (p *stretchProbe) workingFall() float64 {
	if p.byInsts {
		return SampleWorkingFall
	}
	return 0
}

// stretchCycles is what a stopped detailed stretch counts: a kernel that
// may spin counts until its requests in flight have drained, a kernel
// charged by its warp-instructions until its stop. At a stop no warp
// issues while the requests drain, and the resumed stretch starts with
// them answered: a spinning kernel's contended atomics then drain for
// free unless counted (results/sampled, "What the stops alone cost"),
// while the other kernels' resumed stretches already run slower than the
// launch did, their L1s empty.
func (p *stretchProbe) stretchCycles(st timing.Stats) uint64 {
	if p.byInsts {
		return st.StoppedAt + 1
	}
	return max(st.Cycles, st.StoppedAt+1)
}

// roundsCharge is the cycles charged to a functional stretch in rounds of
// a kernel charged by its changes, which began at start changes: its
// progress at rate, but its last round's changes for no more than that
// round's warp-instructions at the detailed issue rate. A round is applied
// as one and the stretch stops at the end of the one that reaches its
// budget, so the last round may hold a burst that the detailed stretches
// never measured: the changes a launch's warps make together as they
// finish (their counters, the termination), which the GPU makes at its
// issue rate, not at the pace of the launch's tail.
func (*stretchProbe) roundsCharge(g *exec.Grid, start uint64, rate, issue float64) uint64 {
	insts, _ := g.Instructions()
	changes := g.Changes()
	roundInsts, roundChanges := g.LastRound()
	return chargeRounds(roundChanges-start, changes-roundChanges, insts-roundInsts, rate, issue)
}

// chargeRounds is roundsCharge's sum: the changes before the last round
// at rate (changes a cycle), the last round's changes at rate but for no
// more than its warp-instructions at issue (warp-instructions a cycle).
func chargeRounds(before, lastChanges, lastInsts uint64, rate, issue float64) uint64 {
	last := min(float64(lastChanges)/rate, float64(lastInsts)/issue)
	return uint64(math.Round(float64(before)/rate + last))
}

// stopInsts is a functional stretch's RunOptions.StopAfterInsts, given
// the warp-instructions the detailed stretch would issue over its span.
// A kernel charged by its warp-instructions stops at them. A kernel that
// may spin has none: its functional turns poll every turn where the
// timing model's pollers wait out their loads, so it issues several times
// the detailed stretch's instructions per change, and an instruction
// budget ended its stretches a few times short of their progress
// (results/sampled, "No instruction budget for kernels that may spin");
// the slowdown and working tests end a stretch whose pace falls (a
// launch's tail).
func (p *stretchProbe) stopInsts(instBudget uint64) uint64 {
	if p.byInsts {
		return instBudget
	}
	return 0
}

// workingWindow is a functional stretch's RunOptions.WorkingWindow: once a
// detailed stretch had to be lengthened for an unsteady pace (steadyAt
// above 0), the warps at work are compared over blocks as long as the
// slowdown test's windows, an eighth of the stretch's instruction budget,
// so that a period of the pace (a level and its grid barrier) is one
// block rather than a change of pace.
func workingWindow(steadyAt, instBudget uint64) uint64 {
	if steadyAt == 0 {
		return 0
	}
	return instBudget / 8
}

// runInStretches runs launch l in detailed and functional stretches
// (above) and returns the launch's statistics: cycles are the detailed
// stretches' plus the functional ones' charges, instruction counts are
// the whole launch's, the other counters sum the detailed stretches'.
// d.mu is held.
func (d *Device) runInStretches(ctx context.Context, gpu *timing.GPU, l timing.Launch, p *stretchProbe) (timing.Stats, map[string]float64, error) {
	g := l.Grid
	l.ProbeCycles = sampleProbeCycles
	l.Probe = p.stretch(p.first)
	first, err := gpu.Run(ctx, l)
	counters := first.Counters()
	if err != nil || first.StoppedAt == 0 {
		return first, counters, err
	}
	// functionalAtomics: the functional stretches' global atomics (the
	// grid counts them; the detailed stretches' are the timing model's).
	var detail, charged, unchecked, functionalAtomics uint64
	var chargedErr float64
	var changes []float64
	st := first
	// stretch is the length of the detailed stretch just run, when it was
	// lengthened for want of changes; the unit otherwise.
	stretch := p.unit
	// steadyAt is the length of the last detailed stretch lengthened for
	// an unsteady pace: later ones start there.
	var steadyAt uint64
	// inDetail: the launch's pace swung both ways (swung), so it runs
	// the rest in detail.
	inDetail := false
	for firstStretch := true; ; firstStretch = false {
		detail += p.stretchCycles(st)
		rate, issue := p.rate()
		done := false
		next := max(p.unit, steadyAt)
		step := afterDetail(firstStretch, rate, p.steady, stretch)
		if d.opts.stopsOnly {
			step = measureAgain
		}
		switch step {
		case measureAgain: // next stays the usual length
		case lengthen:
			next = min(2*max(stretch, p.unit), maxStretchCycles)
			if rate > 0 {
				steadyAt = next
			}
		default:
			start := p.progress(gridProgress(g))
			// The stretch ends at ratio units' progress (or at the
			// instruction budget of a kernel charged by them).
			span := float64(p.ratio * stretch)
			budget := max(uint64(math.Round(rate*span)), 1)
			instBudget := max(uint64(math.Round(issue*span)), 1)
			// Functional execution reads memory as it is: the L1s'
			// copies belong to the timing model.
			g.SetL1(nil)
			atomics0 := g.GlobalAtomics
			inOrder := issue < d.opts.roundsIssue
			done, err = g.Continue(ctx, exec.RunOptions{Resident: p.resident, Slice: d.stretchSlice(),
				QuietWindow: d.opts.quietWindow, StopAfterChanges: budget, StopAfterInsts: p.stopInsts(instBudget),
				StopOnSlowdown: true, SlowdownWindow: instBudget / 8, WorkingWindow: workingWindow(steadyAt, instBudget),
				WorkingFall: p.workingFall(), Warm: warmL2(gpu), WarmPartOf: gpu.Memory().WarmL2SliceOf, InOrder: inOrder, Threads: d.Threads()})
			functionalAtomics += g.GlobalAtomics - atomics0
			if err != nil {
				return st, counters, err
			}
			// The stretch's progress, charged at the rate of its kind.
			progress, chargeRate := p.progress(gridProgress(g))-start, rate
			if p.byInsts {
				chargeRate = issue
			}
			c := uint64(math.Round(float64(progress) / chargeRate))
			if !inOrder && !p.byInsts {
				c = p.roundsCharge(g, start, rate, issue)
			}
			charged += c
			if p.lastRate > 0 {
				// Held out: the rate this stretch was charged at
				// against the last one's.
				change := math.Abs(chargeRate-p.lastRate) / chargeRate
				chargedErr += float64(c) * change
				changes = append(changes, change)
			} else {
				unchecked += c
			}
			inDetail = p.swung(chargeRate)
			p.lastRate = chargeRate
		}
		if done {
			break
		}
		stretch = next
		l.Resume = true
		l.Probe = p.stretch(stretch)
		if inDetail {
			l.Probe = nil
		}
		st, err = gpu.Run(ctx, l)
		addCounters(counters, st.Counters())
		if err != nil {
			return st, counters, err
		}
		if st.StoppedAt == 0 {
			detail += st.Cycles
			break
		}
	}
	p.stretched = true
	total := first
	total.Cycles = detail + charged
	total.WarpInstructions, total.ThreadInstructions = g.Instructions()
	// The launch's global atomics, for its signature (sampler.detailed):
	// the detailed stretches' and the functional ones'.
	total.GlobalAtomics = uint64(counters["global_atomics"]) + functionalAtomics
	total.CTAs = g.CTAs()
	total.DeriveRates()
	whole := total.Counters()
	for _, k := range []string{"cycles", "ctas", "warp_instructions", "thread_instructions", "ipc", "ipc_total", "warp_execution_efficiency"} {
		counters[k] = whole[k]
	}
	if d.sampler != nil {
		d.sampler.extrapolated(p, detail, charged, unchecked, chargedErr, changes)
	}
	return total, counters, nil
}

// warmL2 returns the RunOptions.Warm that brings a functional stretch's
// global accesses into gpu's L2 tags (memsys.System.WarmL2), so that the
// detailed stretch after it finds in the L2 what the timing model would
// have left there.
func warmL2(gpu *timing.GPU) func(acc *exec.MemAccess) {
	mem := gpu.Memory()
	return func(acc *exec.MemAccess) {
		var lanes uint32
		for m := acc.Lanes; m != 0; m &= m - 1 {
			if l := bits.TrailingZeros32(m); acc.Space[l] == ptx.SpaceGlobal {
				lanes |= 1 << l
			}
		}
		mem.WarmL2(acc.Addr, lanes, acc.Size, acc.Kind != exec.MemLoad)
	}
}

// addCounters adds a detailed stretch's counters to the launch's: counts
// add, the largest of maxima is kept and ratios are recomputed from the
// counts (those of instructions and cycles by runInStretches).
func addCounters(sum, more map[string]float64) {
	for k, v := range more {
		switch {
		case k == "sms":
		case strings.HasPrefix(k, "max_"):
			sum[k] = max(sum[k], v)
		default:
			sum[k] += v
		}
	}
	ratio := func(num, den string) float64 {
		if sum[den] == 0 {
			return 0
		}
		return sum[num] / sum[den]
	}
	sum["l1_hit_rate"] = ratio("l1_read_hits", "l1_reads")
	sum["l2_hit_rate"] = ratio("l2_read_hits", "l2_reads")
	sum["achieved_occupancy"] = ratio("resident_warp_cycles", "warp_slot_cycles")
}

// extrapolated records a launch run in stretches: detail cycles simulated,
// charged cycles of functional stretches, unchecked of them charged by the
// launch's first functional stretch (whose rate no earlier one checks),
// chargedErr the likely error of the others (each charge × the relative
// change of its rate from the one before, in changes).
func (s *sampler) extrapolated(p *stretchProbe, detail, charged, unchecked uint64, chargedErr float64, changes []float64) {
	k := s.kernel(p.key)
	k.stopped++
	k.stoppedDetail += detail
	k.stoppedExtra += charged
	k.stoppedUnchecked += unchecked
	k.stoppedErr += chargedErr
	if p.rose && p.fell {
		k.swung++
	}
	k.stretchCharge = ChargeChanges
	if p.byInsts {
		k.stretchCharge = ChargeWarpInstructions
	}
	k.rateChanges = append(k.rateChanges, changes...)
}

// stretchSlice is a functional stretch's turn (WithStretchSlice).
func (d *Device) stretchSlice() int {
	if d.opts.stretchSlice > 0 {
		return d.opts.stretchSlice
	}
	return SampleStretchSlice
}

// stretchStep is what follows a detailed stretch.
type stretchStep int

const (
	functionalNext stretchStep = iota // a functional stretch, charged at its rate
	measureAgain                      // a detailed stretch of the usual length
	lengthen                          // a detailed stretch twice as long
)

// afterDetail decides what follows a detailed stretch that measured rate
// (0: too few changes), the launch's first when first, of stretch cycles.
// The launch's first stretch ramps up (CTAs starting, the caches filling),
// so its pace is not the launch's, and a functional stretch charged at it
// is charged the ramp-up's pace: a detailed stretch measures the pace
// first (results/sampled has the figures). Too few changes to measure a rate (one warp on
// a hub's edges), or a pace that swung within a stretch other than the
// first (steady), ask for a stretch twice as long.
func afterDetail(first bool, rate float64, steady func() bool, stretch uint64) stretchStep {
	switch {
	case first && rate > 0:
		return measureAgain
	case rate == 0 || !first && stretch < maxSteadyCycles && !steady():
		return lengthen
	}
	return functionalNext
}
