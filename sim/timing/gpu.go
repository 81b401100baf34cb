package timing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Limits are an SM's residency limits (sim.Config owns them).
type Limits struct {
	SMs             int
	MaxWarpsPerSM   int
	MaxCTAsPerSM    int
	MaxThreadsPerSM int
	RegistersPerSM  int
	SharedMemPerSM  int // bytes
}

// MaxSMs is the most SMs the timing model holds: an SM's events rank below
// every other component's (otherRank), so SM ids must stay below it.
// sim.Config.Validate checks it when a configuration is read.
const MaxSMs = otherRank - 1

// Validate checks that every limit is positive and that the SM count
// fits the timing model (MaxSMs).
func (l Limits) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{
		{"SMs", l.SMs}, {"MaxWarpsPerSM", l.MaxWarpsPerSM}, {"MaxCTAsPerSM", l.MaxCTAsPerSM},
		{"MaxThreadsPerSM", l.MaxThreadsPerSM}, {"RegistersPerSM", l.RegistersPerSM}, {"SharedMemPerSM", l.SharedMemPerSM},
	} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("limit %s must be positive, got %d", f.name, f.v))
		}
	}
	if l.SMs > MaxSMs {
		errs = append(errs, fmt.Errorf("limit SMs must be at most %d, got %d", MaxSMs, l.SMs))
	}
	return errors.Join(errs...)
}

// Builder builds a GPU: an engine, a memory system and one SM component
// per SM.
type Builder struct {
	freq     sim.Freq
	sm       SMConfig
	memory   memsys.Config
	limits   Limits
	parallel bool
	profile  bool
	// hitsAsMessages: WithHitsAsMessages.
	hitsAsMessages bool
	// threads: WithThreads (0: the serial engine).
	threads int
	// devices and link: WithDevices.
	devices int
	link    memsys.Link
}

// nsCycles is the whole cycles that ns nanoseconds span at the GPU's
// clock, rounded up.
func (g *GPU) nsCycles(ns uint32) uint64 {
	return uint64(math.Ceil(float64(ns) * float64(g.freq) / 1e9))
}

// MakeBuilder returns a Builder with a 1 GHz clock and the serial engine.
func MakeBuilder() Builder { return Builder{freq: 1 * sim.GHz} }

// WithFreq sets the core clock.
func (b Builder) WithFreq(f sim.Freq) Builder { b.freq = f; return b }

// WithSMConfig sets the SMs' timing.
func (b Builder) WithSMConfig(c SMConfig) Builder { b.sm = c; return b }

// WithMemoryConfig sets the memory system's timing.
func (b Builder) WithMemoryConfig(c memsys.Config) Builder { b.memory = c; return b }

// WithLimits sets the SM count and the residency limits.
func (b Builder) WithLimits(l Limits) Builder { b.limits = l; return b }

// WithParallelEngine selects akita's parallel engine, which runs the
// events due at one time on several goroutines (one per event). The SMs
// still take turns: they share the functional memory image, the executor's
// grid and the CTA dispatcher, so their events run one at a time under the
// GPU's lock (see smEvent), and only the memory system's components (L2
// slices, DRAM channels, atomic units) run in parallel with each other and
// with the SMs. The order in which SMs tick within a cycle, and the order
// of same-cycle sends into the memory system, follow the goroutines'
// timing: cycle counts may differ from the serial engine's, and from run
// to run, by a little, and so may the values of kernels whose result
// depends on the order of racing warps. Kernels whose results do not
// depend on that order compute the same memory either way. The serial
// engine is the default; the package comment says more (Engines).
func (b Builder) WithParallelEngine(on bool) Builder { b.parallel = on; return b }

// WithThreads selects the window engine (window.go; the package comment
// says what it does, under Engines) on n goroutines (n >= 1); 0, the
// default, keeps the serial engine. Every figure of the window engine is
// the same for every n. It needs the sectored L1 and L2, and does not
// profile, trace or run under a monitor; Build refuses what it cannot do.
func (b Builder) WithThreads(n int) Builder { b.threads = n; return b }

// WithProfile makes the GPU profile its launches: every cycle of every
// warp is charged to a Reason and, while the warp is resident, to the
// PTX instruction it is at (GPU.Profile; the package comment says how,
// under Profiles). Profiling does not change what is simulated; without
// it each of the SM's profiling points costs a nil check.
func (b Builder) WithProfile(on bool) Builder { b.profile = on; return b }

// WithHitsAsMessages makes every L1 hit a request message and a response
// message through the memory system's fabric, as every load was before
// hits were answered at once (lsu.answerAtIssue, memsys.System.TakeL1Hit).
// The figures are the same either way; the messages cost more host time.
// It is the reference the answered hits are tested against.
func (b Builder) WithHitsAsMessages(on bool) Builder { b.hitsAsMessages = on; return b }

// Build validates the settings and builds the GPU. name follows akita's
// naming rules ("GPU"); the SMs are name.SM[i], the memory system name.Mem.
// WithDevices makes the model n devices of one system, each of the
// SMs and memory that the limits and memory configuration give a lone
// device, joined by link (memsys.Builder.WithDevices): a co-launch's grid
// (exec.Launch.Parts) runs device d's CTAs on SMs d×SMs to (d+1)×SMs−1,
// each device dispatching its own. Its launches must be co-launches of n
// devices.
func (b Builder) WithDevices(n int, link memsys.Link) Builder {
	b.devices, b.link = n, link
	return b
}

func (b Builder) Build(name string) (*GPU, error) {
	if err := b.sm.Validate(); err != nil {
		return nil, err
	}
	if err := b.limits.Validate(); err != nil {
		return nil, fmt.Errorf("timing: %w", err)
	}
	if !(b.freq > 0) {
		return nil, fmt.Errorf("timing: clock must be positive, got %v Hz", float64(b.freq))
	}
	if b.memory.SectorSizeBytes != b.sm.CoalesceSectorBytes || b.memory.LineSizeBytes != b.sm.CoalesceLineBytes {
		return nil, fmt.Errorf("timing: the coalescer's sector and line (%d, %d bytes) must equal the memory system's (%d, %d)",
			b.sm.CoalesceSectorBytes, b.sm.CoalesceLineBytes, b.memory.SectorSizeBytes, b.memory.LineSizeBytes)
	}
	sim.NameMustBeValid(name)
	if b.threads < 0 {
		return nil, fmt.Errorf("timing: %d threads", b.threads)
	}
	if b.threads > 0 {
		if err := b.windowSupported(); err != nil {
			return nil, err
		}
	}
	var engine sim.Engine
	if b.parallel {
		engine = sim.NewParallelEngine()
	} else {
		engine = newSerialEngine(b.freq.Period())
	}
	devices := max(b.devices, 1)
	smCount := b.limits.SMs * devices
	mb := memsys.MakeBuilder().
		WithEngine(engine).
		WithFreq(b.freq).
		WithConfig(b.memory).
		WithNumSMs(smCount).
		WithDevices(devices, b.link)
	var smEngines, l2Engines []*serialEngine
	if b.threads > 0 {
		engines := make([]sim.Engine, smCount)
		for i := range engines {
			e := newSerialEngine(b.freq.Period())
			smEngines = append(smEngines, e)
			engines[i] = e
		}
		var l2 []sim.Engine
		for range min(l2Groups, b.memory.L2Slices*devices) - 1 {
			e := newSerialEngine(b.freq.Period())
			l2Engines = append(l2Engines, e)
			l2 = append(l2, e)
		}
		mb = mb.WithDomains(engines).WithL2Domains(l2)
	}
	mem, err := mb.Build(name + ".Mem")
	if err != nil {
		return nil, fmt.Errorf("timing: %w", err)
	}
	g := &GPU{
		name:     name,
		cfg:      b.sm,
		limits:   b.limits,
		freq:     b.freq,
		engine:   engine,
		mem:      mem,
		parallel: b.parallel,
		profile:  b.profile,
		infos:    map[*ptx.Function][]instInfo{},

		hitsAsMessages: b.hitsAsMessages,
	}
	g.serial, _ = engine.(*serialEngine)
	if b.profile {
		g.clockReads = map[*ptx.Function][]bool{}
	}
	if b.threads > 0 {
		g.window = newWindowEngine(g, b.threads, append([]*serialEngine{g.serial}, l2Engines...), smEngines)
	}
	g.devices = devices
	for i := range smCount {
		g.sms = append(g.sms, newSM(g, i))
	}
	return g, nil
}

// GPU is the timing model of a whole device: its SMs, the CTA dispatcher,
// the deadlock detector and the memory system, on one akita engine. It
// runs one launch at a time; its L2 keeps its contents between launches,
// its L1s are invalidated at each launch, as a GPU does.
type GPU struct {
	name     string
	cfg      SMConfig
	limits   Limits
	freq     sim.Freq
	engine   sim.Engine
	serial   *serialEngine // engine, when it is warpgraph's serial engine
	mem      *memsys.System
	sms      []*SM
	parallel bool
	// mu serialises the SMs' events under the parallel engine (smEvent):
	// it guards the SMs, the launch in progress (dispatcher, progress,
	// deadlock detector, stats), infos, now and, through exec.Warp.Step,
	// the functional memory image and the grid. SM code calls into the
	// memory system with mu held (lock order: mu, then the memory
	// system's locks).
	mu sync.Mutex
	// turns are the SM events waiting for mu; combining says that a
	// goroutine is running them. turnsMu guards both.
	turnsMu   sync.Mutex
	turns     []smTurn
	spare     []smTurn
	combining bool

	infos map[*ptx.Function][]instInfo
	// hitsAsMessages: no L1 hit is answered at once (WithHitsAsMessages).
	hitsAsMessages bool

	// profile: the SMs profile launches (WithProfile); clockReads caches
	// which instructions read a clock; lastProfile is the last launch's.
	profile     bool
	clockReads  map[*ptx.Function][]bool
	lastProfile *LaunchProfile
	// launches counts Run's launches (names of trace tasks).
	launches uint64

	// now is the cycle of the SM tick in progress (the %clock of the
	// kernel).
	now uint64

	// The launch in progress.
	run *launchRun

	// window is the window engine (WithThreads; nil: the serial or
	// akita's parallel engine).
	window *windowEngine
	// devices is the number of devices (WithDevices; 1: a lone GPU).
	devices int
}

// Engine returns the akita engine (for hooks and tracers).
func (g *GPU) Engine() sim.Engine { return g.engine }

// Memory returns the memory system.
func (g *GPU) Memory() *memsys.System { return g.mem }

// SMs returns the SM components (for hooks: HookPosIssue).
func (g *GPU) SMs() []*SM { return g.sms }

// Components returns the GPU's akita components, for a monitor: the SMs,
// then the memory system's (memsys.System.Components).
func (g *GPU) Components() []sim.Component {
	out := make([]sim.Component, 0, len(g.sms))
	for _, s := range g.sms {
		out = append(out, s)
	}
	return append(out, g.mem.Components()...)
}

// Profile returns the profile of the last launch, which may have ended in
// an error (a deadlock, a time limit): nil before the first launch or
// unless the GPU was built WithProfile.
func (g *GPU) Profile() *LaunchProfile { return g.lastProfile }

// Freq returns the core clock.
func (g *GPU) Freq() sim.Freq { return g.freq }

// Clock returns the current cycle; pass it as exec.Launch.Clock so that
// %clock reads simulated time.
func (g *GPU) Clock() uint64 { return g.now }

// Launch describes one kernel launch to the timing model: the executor's
// grid and what each CTA holds on its SM.
type Launch struct {
	Grid *exec.Grid
	// ThreadsPerCTA and WarpsPerCTA are the CTA's size.
	ThreadsPerCTA, WarpsPerCTA int
	// RegistersPerThread is the kernel's register count (for reports);
	// RegistersPerCTA is what a CTA allocates (per warp, at the device's
	// allocation granularity).
	RegistersPerThread, RegistersPerCTA int
	// SharedPerCTA is the shared memory a CTA allocates (static, dynamic
	// and reserved, at the allocation granularity).
	SharedPerCTA int
	// MaxCTAsPerSM caps the CTAs per SM beyond the resources (a measured
	// occupancy); 0 means no cap. CapReason says where it comes from.
	MaxCTAsPerSM int
	CapReason    string
	// Probe, when set, is called with the launch's progress every
	// ProbeCycles cycles: at the first SM tick of each under the serial
	// engine, at the end of the first window that reaches it under the
	// window engine. When it returns true the launch stops there: no warp
	// issues again, the requests in flight drain, and Run returns with
	// Stats.StoppedAt set and the grid's unfinished CTAs left as they
	// are, for exec.Grid.Continue to finish. A launch's values are those
	// of its instructions' issue order (written when they issue, or under
	// the window engine when its last window's log is applied, before Run
	// returns and unsplits the grid), so the grid is consistent at a stop.
	Probe       func(Progress) bool
	ProbeCycles uint64
	// Resume: the grid's launch ran in part already (a Probe stopped it,
	// then exec.Grid.Continue ran it on): its started CTAs go back on
	// their SMs where they are, then waiting CTAs start as usual.
	Resume bool
}

// Progress is what a Probe sees of a launch in progress.
type Progress struct {
	// Cycles have passed since the launch started; WarpInsts
	// warp-instructions have issued; Changes of them changed memory
	// (exec.Grid.Changes), all since the grid's start.
	Cycles, WarpInsts, Changes uint64
}

// launchRun is the state of the launch in progress.
type launchRun struct {
	Launch
	ctx     context.Context
	kernel  string
	maxRegs int

	// fences: the kernel (its entry or a function it calls) has a fence.
	// Its loads are then never answered at once (lsu.answersAtOnce): a
	// fence wider than the CTA empties the L1 when it issues, which would
	// make a load answered before it, but sent after it, miss; and a fence
	// ends (as modelled) at the tick the warp's last request in flight is
	// taken, in the order of that tick's responses, in which an answered
	// load has no place.
	fences bool

	startCycle uint64
	endCycle   uint64
	// watch is the deadlock detector, the executor's.
	watch       *exec.Watchdog
	finished    int
	resident    int
	maxResident int
	rr          []int // next SM for round-robin dispatch, of its device's
	// dispatchFree is the cycle (fractional) from which the dispatcher may
	// start the next CTA (SMConfig.CTADispatchCycles). rr and dispatchFree
	// are per device: each device dispatches its own CTAs.
	dispatchFree []float64
	ticks        uint64
	err          error
	stopped      bool
	// nextProbe is the cycle from which the next Probe call is due;
	// probeStop is the cycle at which a Probe stopped the launch (0: it
	// did not).
	nextProbe, probeStop uint64
}

// Run executes a launch to completion and returns its statistics. Every
// SM's L1 starts the launch empty, as on the hardware; the L2 keeps its
// contents. It returns a *kernels.DeadlockError when the executor's
// Watchdog finds the launch livelocked (no store or atomic changed memory
// and no warp or CTA started or finished for SMConfig.DeadlockWindowCycles,
// and every running warp keeps returning to the same state) or no warp can
// ever issue again while work remains, the executor's error when a warp
// faults, and ctx's error (wrapped) when ctx ends first.
func (g *GPU) Run(ctx context.Context, l Launch) (Stats, error) {
	if l.Grid == nil {
		return Stats{}, errors.New("timing: launch without a grid")
	}
	prog := l.Grid.Program()
	r := &launchRun{Launch: l, ctx: ctx, kernel: prog.Name()}
	for _, fn := range prog.Module.PTX.Funcs {
		r.maxRegs = max(r.maxRegs, fn.NumRegs)
	}
	if l.Probe != nil && l.ProbeCycles == 0 {
		return Stats{}, errors.New("timing: a launch probe needs a probe interval")
	}
	if g.window != nil {
		if err := g.window.check(); err != nil {
			return Stats{}, err
		}
		// The scoreboard keeps entries past the rows (analyseRows).
		r.maxRegs *= 2
	}
	prog.Reachable(func(fn *ptx.Function) { r.fences = r.fences || hasFence(fn) })
	if l.WarpsPerCTA > g.limits.MaxWarpsPerSM || l.RegistersPerCTA > g.limits.RegistersPerSM ||
		l.SharedPerCTA > g.limits.SharedMemPerSM || l.ThreadsPerCTA > g.limits.MaxThreadsPerSM {
		return Stats{}, &kernels.LaunchResourceError{Kernel: r.kernel, Detail: "a CTA does not fit on an SM"}
	}
	if d := l.Grid.Devices(); d != g.devices || l.Grid.SMs() != len(g.sms) {
		return Stats{}, fmt.Errorf("timing: kernel %s: a launch on %d devices of %d SMs each on a model of %d devices and %d SMs", r.kernel, d, l.Grid.SMs()/d, g.devices, len(g.sms))
	}
	r.rr, r.dispatchFree = make([]int, g.devices), make([]float64, g.devices)
	g.run = r
	defer func() { g.run = nil }()
	g.lastProfile = nil
	g.launches++
	if err := g.mem.InvalidateL1s(); err != nil {
		return Stats{}, fmt.Errorf("timing: %w", err)
	}
	if v := g.mem.L1Values(); v != nil {
		// memory.coherence l1: weak loads may read their SM's stale L1
		// copies (memsys.L1Values).
		l.Grid.SetL1(v)
	}
	g.mem.ResetStats()

	start := g.freq.Cycle(g.engine.CurrentTime()) + 1
	if g.window != nil {
		start = g.window.begin(r, prog)
	}
	r.startCycle, r.endCycle = start, start
	r.nextProbe = start + l.ProbeCycles
	r.watch = exec.NewWatchdog(l.Grid, start, uint64(g.cfg.DeadlockWindowCycles), spinSampleCycles)
	g.now = start
	for _, s := range g.sms {
		s.reset(r, start)
	}
	if l.Resume {
		if err := g.resume(start); err != nil {
			return Stats{}, err
		}
	}
	g.dispatch(start)
	for _, s := range g.sms {
		s.wakeAtCycle(start)
	}
	if g.window != nil {
		g.window.run()
	} else if err := g.engine.Run(); err != nil {
		return Stats{}, fmt.Errorf("timing: engine: %w", err)
	}
	if g.profile {
		g.lastProfile = g.finishProfile(g.launchEnd())
	}
	if r.probeStop != 0 {
		st := g.stats()
		st.StoppedAt = r.probeStop - r.startCycle
		if g.window != nil && r.err == nil {
			// Every logged operation is applied (the window engine's last
			// merge): the grid goes on in one piece (exec.Grid.Continue).
			r.err = l.Grid.Unsplit()
		}
		return st, r.err
	}
	if r.err == nil && r.finished < l.Grid.CTAs() {
		if s, w := g.runnable(); w != nil {
			// Broken invariant: an SM stopped ticking with a warp that
			// could issue. Say so rather than report a deadlock.
			return g.stats(), fmt.Errorf("timing: internal error: SM %d stopped ticking at cycle %d with CTA %d warp %d able to issue (wake at %d)",
				s.id, s.lastTick, w.cta.c.Linear, w.w.Index(), w.wakeAt)
		}
		r.err = &kernels.DeadlockError{Kernel: r.kernel, Detail: fmt.Sprintf(
			"no warp can issue again (each waits at a barrier that cannot complete) at cycle %d; %s",
			g.now-r.startCycle, g.describe())}
	}
	st := g.stats()
	return st, r.err
}

// runnable returns a warp that is neither done nor waiting for an event
// (nil when there is none).
func (g *GPU) runnable() (*SM, *warpCtx) {
	for _, s := range g.sms {
		for _, c := range s.ctas {
			for _, w := range c.warps {
				if !w.done && !w.atBarrier && !w.fenceWait && !w.lsuWait && w.wakeAt != never {
					return s, w
				}
			}
		}
	}
	return nil, nil
}

// smTurn is an SM event waiting for its turn (see smEvent).
type smTurn struct {
	sm        *SM
	now       sim.VTimeInSec
	wakeCycle uint64
	wake      bool
}

// smEvent handles an event of SM s. Under the serial engine it runs at
// once. Under the parallel engine the SMs' events of one time arrive on
// concurrent goroutines but must run one at a time, since they share the
// functional memory image, the grid and the dispatcher; rather than park
// every goroutine on mu in turn, each event joins a queue, and the
// goroutine that finds nobody running the queue runs it, taking mu, until
// it is empty; the others return at once. The engine ends a round only
// when every goroutine of the round has returned, so every SM event of a
// time is handled within its round, before the fabric's deliveries at
// that time, as under the serial engine. The memory system's events keep
// running in parallel meanwhile.
func (g *GPU) smEvent(s *SM, now sim.VTimeInSec, wakeCycle uint64, wake bool) {
	if !g.parallel {
		s.event(now, wakeCycle, wake)
		return
	}
	g.turnsMu.Lock()
	g.turns = append(g.turns, smTurn{sm: s, now: now, wakeCycle: wakeCycle, wake: wake})
	if g.combining {
		g.turnsMu.Unlock()
		return
	}
	g.combining = true
	for len(g.turns) > 0 {
		batch := g.turns
		g.turns = g.spare[:0]
		g.turnsMu.Unlock()
		g.mu.Lock()
		for _, t := range batch {
			t.sm.event(t.now, t.wakeCycle, t.wake)
		}
		g.mu.Unlock()
		clear(batch)
		g.turnsMu.Lock()
		g.spare = batch[:0]
	}
	g.combining = false
	g.turnsMu.Unlock()
}

// infosOf returns the instruction information of fn, computed once.
// Under the window engine its registers are register-file rows (see
// windowEngine.begin), computed for every function of a launch when it
// begins.
func (g *GPU) infosOf(fn *ptx.Function) []instInfo {
	x, ok := g.infos[fn]
	if !ok {
		if g.window != nil {
			panic("timing: instruction information of a function the launch did not prepare")
		}
		x = analyse(fn)
		g.infos[fn] = x
	}
	return x
}

// LoadsAnsweredAtOnce is the number of load requests the SMs' L1s have
// answered at once (WithHitsAsMessages) since the GPU was built.
func (g *GPU) LoadsAnsweredAtOnce() uint64 {
	n := uint64(0)
	for _, s := range g.sms {
		n += s.lsu.answered
	}
	return n
}

// hasFence reports whether fn has a membar or fence instruction.
func hasFence(fn *ptx.Function) bool {
	for i := range fn.Insts {
		if op := fn.Insts[i].Op; op == ptx.OpMembar || op == ptx.OpFence {
			return true
		}
	}
	return false
}

// fail stops the launch with err (the first error wins).
func (g *GPU) fail(err error) {
	r := g.run
	if r.err == nil {
		r.err = err
	}
	r.stopped = true
}

// check runs the deadlock detector and the context check; it is called
// from every SM tick.
func (g *GPU) check(cyc uint64) {
	r := g.run
	if r.stopped {
		return
	}
	r.ticks++
	if r.ticks&1023 == 0 {
		if err := r.ctx.Err(); err != nil {
			msg := fmt.Sprintf("kernel %s stopped at cycle %d, %d of %d CTAs finished", r.kernel, cyc-r.startCycle, r.finished, r.Grid.CTAs())
			g.fail(r.watch.Stopped(cyc, "cycles", msg, err, g.describe))
			return
		}
	}
	if r.watch.Stuck(cyc) {
		g.fail(r.watch.Livelock(cyc, "cycles", fmt.Sprintf("at cycle %d of the launch; %s", cyc-r.startCycle, g.describe())))
		return
	}
	if r.Probe != nil && cyc >= r.nextProbe {
		r.nextProbe = cyc + r.ProbeCycles
		if r.Probe(Progress{Cycles: cyc - r.startCycle, WarpInsts: r.Grid.WarpInsts, Changes: r.Grid.Changes()}) {
			r.stopped, r.probeStop = true, cyc
		}
	}
}

// spinSampleCycles spaces the watchdog's samples once a deadlock window
// has passed without progress: longer than a poll's memory round trip, so
// that successive samples land at different points of a spin loop.
const spinSampleCycles = 1024

// fits says whether a CTA of the launch fits on SM s now.
func (g *GPU) fits(s *SM) bool {
	r := g.run
	l := g.limits
	return (r.MaxCTAsPerSM == 0 || s.resCTAs < r.MaxCTAsPerSM) &&
		s.resCTAs < l.MaxCTAsPerSM &&
		s.usedWarps+r.WarpsPerCTA <= l.MaxWarpsPerSM &&
		s.usedThreads+r.ThreadsPerCTA <= l.MaxThreadsPerSM &&
		s.usedRegs+r.RegistersPerCTA <= l.RegistersPerSM &&
		s.usedShared+r.SharedPerCTA <= l.SharedMemPerSM
}

// whyNot says which resource keeps a CTA of the launch off SM s, with
// numbers ("" when it fits).
func (g *GPU) whyNot(s *SM) string {
	r := g.run
	l := g.limits
	switch {
	case r.MaxCTAsPerSM > 0 && s.resCTAs >= r.MaxCTAsPerSM:
		return fmt.Sprintf("CTA slots: %d of %d resident (%s)", s.resCTAs, r.MaxCTAsPerSM, r.CapReason)
	case s.resCTAs >= l.MaxCTAsPerSM:
		return fmt.Sprintf("CTA slots: %d of %d in use", s.resCTAs, l.MaxCTAsPerSM)
	case s.usedWarps+r.WarpsPerCTA > l.MaxWarpsPerSM:
		return fmt.Sprintf("warp slots: %d of %d in use, a CTA needs %d", s.usedWarps, l.MaxWarpsPerSM, r.WarpsPerCTA)
	case s.usedThreads+r.ThreadsPerCTA > l.MaxThreadsPerSM:
		return fmt.Sprintf("threads: %d of %d in use, a CTA needs %d", s.usedThreads, l.MaxThreadsPerSM, r.ThreadsPerCTA)
	case s.usedRegs+r.RegistersPerCTA > l.RegistersPerSM:
		return fmt.Sprintf("registers: %d of %d in use, a CTA needs %d (%d per thread)", s.usedRegs, l.RegistersPerSM, r.RegistersPerCTA, r.RegistersPerThread)
	case s.usedShared+r.SharedPerCTA > l.SharedMemPerSM:
		return fmt.Sprintf("shared memory: %d of %d bytes in use, a CTA needs %d", s.usedShared, l.SharedMemPerSM, r.SharedPerCTA)
	}
	return ""
}

// dispatch starts waiting CTAs, round robin over the SMs, while one fits.
// A CTA takes its SM's resources at once, but the dispatcher starts CTAs
// one after another (SMConfig.CTADispatchCycles): a CTA's warps issue from
// its turn on, which may lie after cyc.
func (g *GPU) dispatch(cyc uint64) {
	r := g.run
	n := len(g.sms) / g.devices
	interval := g.cfg.CTADispatchCycles + float64(r.WarpsPerCTA)*g.cfg.CTADispatchWarpCycles
	for d := range g.devices {
		sms := g.sms[d*n : (d+1)*n]
		for r.Grid.PendingOn(d*n) > 0 {
			placed := false
			for k := range n {
				s := sms[(r.rr[d]+k)%n]
				if !g.fits(s) {
					continue
				}
				c := r.Grid.Dispatch(s.id)
				turn := max(float64(cyc), r.dispatchFree[d])
				r.dispatchFree[d] = turn + interval
				s.start(c, cyc, uint64(math.Ceil(turn)))
				r.rr[d] = (s.id - d*n + 1) % n
				r.resident++
				r.maxResident = max(r.maxResident, r.resident)
				placed = true
				break
			}
			if !placed {
				break
			}
		}
	}
}

// resume puts the CTAs a resumed launch (Launch.Resume) started before
// back on the SMs, in CTA order: each on its SM, or where it fits when it
// does not fit there.
func (g *GPU) resume(cyc uint64) error {
	r := g.run
	started := r.Grid.Started()
	r.finished = r.Grid.CTAs() - r.Grid.Pending() - len(started)
	for _, c := range started {
		s := g.sms[c.SM%len(g.sms)]
		if !g.fits(s) {
			s = nil
			for _, o := range g.sms {
				if g.fits(o) {
					s = o
					break
				}
			}
		}
		if s == nil {
			return fmt.Errorf("timing: kernel %s: resumed CTA %d fits on no SM", r.kernel, c.Linear)
		}
		c.MoveTo(s.id)
		// It was running: no launch latency, its warps go on at once.
		s.startAt(c, cyc, cyc+1)
		r.resident++
		r.maxResident = max(r.maxResident, r.resident)
	}
	return nil
}

// ctaDone records a finished CTA and starts waiting ones.
func (g *GPU) ctaDone(cyc uint64) {
	r := g.run
	r.finished++
	r.resident--
	r.endCycle = max(r.endCycle, cyc)
	g.dispatch(cyc)
}

// launchEnd is the launch's last cycle: its last CTA's finish or its last
// SM activity, whichever is later.
func (g *GPU) launchEnd() uint64 {
	end := g.run.endCycle
	for _, s := range g.sms {
		end = max(end, s.lastActivity, s.hitActivity)
	}
	return end
}

// stats gathers the launch's statistics.
func (g *GPU) stats() Stats {
	r := g.run
	end := g.launchEnd()
	st := Stats{
		Cycles:          end - r.startCycle + 1,
		SMs:             len(g.sms),
		CTAs:            r.finished,
		MaxResidentCTAs: r.maxResident,
	}
	var warpCycles, activeCycles uint64
	for _, s := range g.sms {
		s.integrateOccupancy(end + 1)
		st.add(&s.stats)
		warpCycles += s.stats.warpCycles
		activeCycles += s.stats.activeCycles
	}
	st.DeriveRates()
	st.ResidentWarpCycles = warpCycles
	st.WarpSlotCycles = activeCycles * uint64(g.limits.MaxWarpsPerSM)
	if activeCycles > 0 {
		st.AchievedOccupancy = float64(warpCycles) / float64(st.WarpSlotCycles)
	}
	ms := g.mem.Stats()
	st.Memory = ms
	st.L1HitRate = ms.L1.ReadHitRate()
	st.L2HitRate = ms.L2.ReadHitRate()
	st.DRAMReadBytes = ms.DRAMReadBytes
	st.DRAMWriteBytes = ms.DRAMWriteBytes
	st.MaxSameAddressSerializationGlobal = ms.Atomics.MaxSameAddressDepth
	st.StrongLoadsBehindAtomics = ms.Atomics.LoadsBehindAtomics
	return st
}
