package timing

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// HookPosIssue is the hook position of a warp-instruction issuing on an
// SM; the hook's Item is an IssueInfo.
var HookPosIssue = &sim.HookPos{Name: "Issue"}

// IssueInfo describes one issued warp-instruction, for hooks.
type IssueInfo struct {
	Cycle     uint64
	SM        int
	Scheduler int
	Slot      int // the warp's slot on the SM
	CTA       int // the CTA's linear index in the grid
	Warp      int // the warp's index in its CTA
	Func      *ptx.Function
	PC        int
	// Active is the warp's active mask.
	Active uint32
}

// HookPosCTAStart and HookPosCTADone are the hook positions of a CTA
// placed on an SM and of a CTA retiring from it (its last warp done with
// nothing pending); the hook's Item is a CTAInfo. The web monitor
// (sim.Monitor) counts them into its progress bar.
var (
	HookPosCTAStart = &sim.HookPos{Name: "CTAStart"}
	HookPosCTADone  = &sim.HookPos{Name: "CTADone"}
)

// CTAInfo describes a CTA starting or retiring, for hooks.
type CTAInfo struct {
	Cycle uint64
	SM    int
	CTA   int // the CTA's linear index in the grid
}

// never is a cycle that does not come: a register waiting for memory, a
// warp waiting for an event.
const never = math.MaxUint64

// warpCtx is one warp slot of an SM and the warp that holds it.
type warpCtx struct {
	w     *exec.Warp
	cta   *ctaCtx
	slot  int // the hardware warp id on the SM
	sched int // its scheduler: slot mod WarpSchedulers
	gen   uint32

	// wakeAt is the earliest cycle at which the warp may issue; never
	// while it waits for memory, a barrier or a fence.
	wakeAt uint64
	// ready is the scoreboard: the cycle each register's pending result
	// arrives (never: a load or atomic still in flight).
	ready []uint64
	// readyMax is the latest finite cycle ever written into ready (since
	// the warp took the slot) and pendingDst the loads in flight that will
	// write registers (theirs read never meanwhile). A register's ready
	// cycle never decreases (an instruction writing it waits for it), so
	// the latest of all is readyMax unless pendingDst > 0: a call or ret,
	// which waits for every register, checks in O(1) (readyAt).
	readyMax   uint64
	pendingDst int
	// readyBy is a cycle by which the scoreboard lets the warp's next
	// instruction issue (never: not known), found by readyAt since the
	// warp last issued. Until it issues again readyAt only falls (results
	// arrive; only an issue makes a register wait), so a warp woken at or
	// after readyBy needs no second look at its registers.
	readyBy uint64
	// heldSince is the cycle since which the warp's next instruction has
	// passed its own checks (scoreboard, events) but found its pipeline
	// busy; never when the warp has not been found so since it last
	// issued. See starving.
	heldSince uint64

	// fn and infos cache the instruction information of the function the
	// warp is in.
	fn    *ptx.Function
	infos []instInfo
	// next is the information of the instruction the warp issues next
	// (nil: to look up). Only the warp's own Step moves it.
	next *instInfo

	pendingLoads int // loads and atomics whose results are outstanding
	outstanding  int // memory requests queued or in flight
	fenceWait    bool
	// hitsDone is the latest cycle at which the SM takes the answer of one
	// of the warp's loads that its L1 answered at once (lsu.hit): until
	// then the warp does not retire, as for a load in flight. (Loads are
	// not answered at once in kernels with fences; see
	// launchRun.fences.)
	hitsDone uint64
	// fenceEnd is the cycle the warp's last fence ended or ends (its wake
	// after the fence's latency), for FenceContentionCycles.
	fenceEnd  uint64
	atBarrier bool
	lsuWait   bool
	done      bool // the executor finished it
	retired   bool // done and nothing pending
}

// ctaCtx is one resident CTA.
type ctaCtx struct {
	c        *exec.CTA
	warps    []*warpCtx
	retired  int // warps done with nothing pending
	barriers int // warps waiting at a barrier
	// task is the CTA's akita trace task ("" when the SM has no hooks).
	task string
}

// scheduler is one warp scheduler of an SM.
type scheduler struct {
	warps    []*warpCtx // oldest first
	last     *warpCtx   // GTO: the warp issued from last
	rr       int        // LRR: where the next search starts
	nextFree [numClasses]uint64
	issued   int // warp-instructions issued in the current cycle
}

// SM is one streaming multiprocessor: an akita component that issues the
// warps of its resident CTAs and sends their global memory accesses to the
// memory system. It ticks only while it can issue or send; otherwise it
// sleeps until the next scoreboard or pipeline time, or until a memory
// response arrives.
type SM struct {
	*sim.TickingComponent
	g    *GPU
	id   int
	cfg  *SMConfig
	port sim.Port

	slots  []warpCtx
	scheds []scheduler
	ctas   []*ctaCtx

	usedWarps, usedThreads, usedRegs, usedShared int

	// smemFree is the first cycle the shared memory takes a new access.
	smemFree uint64
	// locks are the lock model's lock bits: the cycle each is free.
	locks []uint64

	lsu lsu

	// Scheduling of the SM's own ticks.
	ticked   bool
	lastTick uint64
	wakeAt   uint64 // the earliest pending wake event (never: none)
	// nextTickTime is the time of the latest tick that NotifyRecv or
	// NotifyPortFree asked for (see tickLater).
	nextTickTime sim.VTimeInSec

	lastActivity uint64
	// hitActivity is the latest cycle at which the SM takes an answer its
	// L1 gave at once (lsu.hit), which a response's tick would have made
	// its last activity.
	hitActivity uint64
	// waits[waitsHead:] are what the arrival of such answers does, each
	// at its cycle (later), in order of cycle.
	waits     []hitWait
	waitsHead int
	resident  int // resident warps (not yet exited)
	occLast   uint64
	stats     smStats

	// smemCut1 and smemCut2 split the shared memory's busy time until
	// smemFree: before smemCut1 a conflict-free pass, then extra passes
	// for bank conflicts, from smemCut2 an atomic's serialisation;
	// sharedCut1 and sharedCut2 split the latest shared access's result
	// latency the same way. The profiler reads them. (Not arrays: akita's
	// monitor cannot show an array field.)
	smemCut1, smemCut2, sharedCut1, sharedCut2 uint64
	// prof is the profiler (nil unless the GPU profiles).
	prof *smProf

	// resCTAs is the number of CTAs that hold the SM's resources (used*):
	// len(ctas), except under the window engine, where a retired CTA
	// frees them when the window's end takes its retirement in turn.
	resCTAs int
	// eng is the engine of the SM's ticks: the GPU's serial engine, or its
	// own under the window engine (nil under akita's parallel engine).
	eng *serialEngine
	// Under the window engine (win set): the SM's shard of the launch's
	// grid; the first error a warp of the SM met in this launch, at
	// cycle errCycle (it stops the SM; the window's end stops the
	// launch); the CTAs retired in this window, in order; and whether the
	// SM ticked in it, lastly at cycle ticked.
	win        *windowEngine
	shard      *exec.Shard
	err        error
	errCycle   uint64
	retired    []retirement
	tickedWin  bool
	tickedLast uint64
}

// retirement is a CTA that retired from an SM at a cycle (the window
// engine's record of it).
type retirement struct {
	cycle uint64
	cta   *ctaCtx
}

func newSM(g *GPU, id int) *SM {
	s := &SM{g: g, id: id, cfg: &g.cfg, wakeAt: never, eng: g.serial}
	var engine sim.Engine = g.engine
	if g.window != nil {
		s.win = g.window
		s.eng = g.window.sms[id]
		engine = s.eng
	}
	name := fmt.Sprintf("%s.SM[%d]", g.name, id)
	s.TickingComponent = sim.NewTickingComponent(name, engine, g.freq, s)
	s.nextTickTime = -1
	port := newSMPort(s, 64, name+".Mem", g.parallel)
	s.AddPort("Mem", port)
	s.port = port
	if !g.parallel {
		// Under the parallel engine no load is answered at once, and the
		// fabric delivers concurrently with the SM's ticks.
		port.answered = func(now sim.VTimeInSec) bool { return s.lsu.dueAt(g.freq.Cycle(now)) }
	}
	g.mem.ConnectSM(id, port)
	s.slots = make([]warpCtx, g.limits.MaxWarpsPerSM)
	s.scheds = make([]scheduler, g.cfg.WarpSchedulers)
	for i := range s.slots {
		s.slots[i].slot = i
		s.slots[i].sched = i % len(s.scheds)
		s.slots[i].wakeAt = never
		s.slots[i].heldSince = never
		s.slots[i].readyBy = never
	}
	s.lsu.init(s, name)
	if g.profile {
		s.prof = newSMProf(len(s.slots))
	}
	return s
}

// reset prepares the SM for a launch.
func (s *SM) reset(r *launchRun, start uint64) {
	for i := range s.slots {
		w := &s.slots[i]
		w.gen++
		w.w, w.cta, w.fn, w.infos, w.next = nil, nil, nil, nil, nil
		w.wakeAt, w.heldSince, w.readyBy = never, never, never
	}
	for i := range s.scheds {
		s.scheds[i] = scheduler{warps: s.scheds[i].warps[:0]}
	}
	s.ctas = s.ctas[:0]
	s.usedWarps, s.usedThreads, s.usedRegs, s.usedShared = 0, 0, 0, 0
	s.smemFree = 0
	clear(s.locks)
	s.lsu.reset()
	s.lastActivity = start
	s.hitActivity = start
	clear(s.waits)
	s.waits, s.waitsHead = s.waits[:0], 0
	s.resident, s.occLast = 0, start
	s.stats = smStats{}
	s.resCTAs = 0
	s.err, s.errCycle = nil, 0
	clear(s.retired)
	s.retired = s.retired[:0]
	s.tickedWin = false
	if s.win != nil {
		s.shard = r.Grid.Shard(s.id)
	}
	if s.prof != nil {
		s.prof.reset(r.maxRegs)
	}
}

// start places CTA c on the SM at cycle cyc, the dispatcher's turn for it
// coming at cycle turn (>= cyc); its warps issue from turn+CTALaunchCycles
// on (at least the cycle after turn).
func (s *SM) start(c *exec.CTA, cyc, turn uint64) {
	s.startAt(c, cyc, turn+max(uint64(s.cfg.CTALaunchCycles), 1))
}

// startAt places CTA c on the SM at cycle cyc, its warps issuing from
// cycle first on.
func (s *SM) startAt(c *exec.CTA, cyc, first uint64) {
	r := s.g.run
	if s.NumHooks() > 0 {
		s.InvokeHook(sim.HookCtx{Domain: s, Pos: HookPosCTAStart, Item: CTAInfo{Cycle: cyc, SM: s.id, CTA: c.Linear}})
	}
	if s.win != nil && cyc < s.occLast {
		// The window engine places CTAs at the window's end, when the SM
		// has counted its occupancy past cyc: count the new warps from
		// cyc on.
		d := s.occLast - cyc
		s.stats.warpCycles += uint64(r.WarpsPerCTA) * d
		if s.resident == 0 {
			s.stats.activeCycles += d
		}
	}
	s.integrateOccupancy(cyc)
	s.usedWarps += r.WarpsPerCTA
	s.usedThreads += r.ThreadsPerCTA
	s.usedRegs += r.RegistersPerCTA
	s.usedShared += r.SharedPerCTA
	s.resCTAs++
	ctx := &ctaCtx{c: c}
	if s.NumHooks() > 0 {
		// A tracer (sim.WithTrace) sees the CTA as a task.
		ctx.task = fmt.Sprintf("%s.launch%d.CTA%d", s.Name(), s.g.launches, c.Linear)
		tracing.StartTask(ctx.task, "", s, "cta", r.kernel, nil)
	}
	for _, ew := range c.Warps() {
		w := s.freeSlot()
		// The scoreboard is sized when a slot gets a warp: a grid of a
		// few CTAs per SM leaves most slots without one.
		if cap(w.ready) < r.maxRegs {
			w.ready = make([]uint64, r.maxRegs)
		}
		w.ready = w.ready[:r.maxRegs]
		w.gen++
		w.w, w.cta = ew, ctx
		w.fn, w.infos, w.next = nil, nil, nil
		w.wakeAt, w.heldSince, w.readyBy = first, never, never
		clear(w.ready)
		w.readyMax, w.pendingDst = 0, 0
		w.pendingLoads, w.outstanding = 0, 0
		w.fenceWait, w.atBarrier, w.lsuWait, w.done, w.retired = false, false, false, false, false
		w.fenceEnd, w.hitsDone = 0, 0
		ctx.warps = append(ctx.warps, w)
		sc := &s.scheds[w.sched]
		sc.warps = append(sc.warps, w)
		s.resident++
		if s.prof != nil {
			s.prof.start(w, cyc, r.startCycle)
		}
	}
	s.ctas = append(s.ctas, ctx)
	if s.prof != nil {
		s.prof.started++
	}
	// A CTA resumed after functional execution (Launch.Resume) may have
	// warps waiting at a barrier or finished.
	for _, w := range ctx.warps {
		switch w.w.State() {
		case exec.WarpAtBarrier:
			w.atBarrier, w.wakeAt = true, never
			ctx.barriers++
		case exec.WarpDone:
			s.warpDone(w, cyc)
		}
	}
	s.wakeAtCycle(first)
}

// fenceLatencyEnd is when w's fence, whose stores and atomics are all
// acknowledged at cycle cyc, ends: Fence.Latency later, plus
// FenceContentionCycles × (n - 1) / n with n the SM's warps in a fence
// (waiting for acknowledgements, or in their latency past cyc), w included.
func (s *SM) fenceLatencyEnd(w *warpCtx, cyc uint64) uint64 {
	end := cyc + max(uint64(s.cfg.Fence.Latency), 1)
	if c := s.cfg.FenceContentionCycles; c > 0 {
		n := 1
		for _, ctx := range s.ctas {
			for _, o := range ctx.warps {
				if o != w && !o.done && (o.fenceWait || o.fenceEnd > cyc) {
					n++
				}
			}
		}
		end += uint64(math.Round(c * float64(n-1) / float64(n)))
	}
	w.fenceEnd = end
	return end
}

// freeSlot returns an unused warp slot.
func (s *SM) freeSlot() *warpCtx {
	for i := range s.slots {
		if s.slots[i].w == nil {
			return &s.slots[i]
		}
	}
	panic("timing: no free warp slot although the CTA fit")
}

// integrateOccupancy adds the resident warps since the last change.
func (s *SM) integrateOccupancy(cyc uint64) {
	if cyc <= s.occLast {
		return
	}
	d := cyc - s.occLast
	s.stats.warpCycles += uint64(s.resident) * d
	if s.resident > 0 {
		s.stats.activeCycles += d
	}
	s.occLast = cyc
}

// wakeEvent is a tick the SM schedules for itself at a later cycle, or,
// with notified set, the tick NotifyRecv or NotifyPortFree asks for.
type wakeEvent struct {
	time     sim.VTimeInSec
	cycle    uint64
	handler  sim.Handler
	notified bool
	// rank orders the SMs' events of one time (see serialEngine).
	rank uint64
}

func (e *wakeEvent) Time() sim.VTimeInSec    { return e.time }
func (e *wakeEvent) Handler() sim.Handler    { return e.handler }
func (e *wakeEvent) IsSecondary() bool       { return false }
func (s *SM) timeOf(c uint64) sim.VTimeInSec { return sim.VTimeInSec(float64(c) / float64(s.g.freq)) }

// Handle runs the SM's tick for its own wake events. (akita's tick events,
// which NotifyRecv and NotifyPortFree schedule, go to the embedded
// TickingComponent, which calls Tick.)
func (s *SM) Handle(e sim.Event) error {
	w, ok := e.(*wakeEvent)
	if !ok {
		return s.TickingComponent.Handle(e)
	}
	c := w.cycle
	if w.notified {
		c = notifiedWake
	}
	s.wake(w.time, c)
	return nil
}

// scheduleWake queues a wake of the SM at time t: at cycle c, or (notified)
// the tick a delivery asked for (tickLater). The serial engine queues it
// without an event (serialEngine.scheduleWake); another gets a wakeEvent.
func (s *SM) scheduleWake(t sim.VTimeInSec, c uint64, notified bool) {
	rc := c
	if notified {
		rc = s.g.freq.Cycle(t)
	}
	rank := s.tieRank(rc)
	if e := s.eng; e != nil {
		e.scheduleWake(s, t, c, notified, rank)
		return
	}
	s.g.engine.Schedule(&wakeEvent{time: t, cycle: c, handler: s, notified: notified, rank: rank})
}

// wake handles a wake at time t of the given cycle (notifiedWake: a tick a
// delivery asked for), queued by the serial engine or as a wakeEvent.
func (s *SM) wake(t sim.VTimeInSec, cycle uint64) {
	if cycle == notifiedWake {
		s.g.smEvent(s, t, 0, false)
	} else {
		s.g.smEvent(s, t, cycle, true)
	}
}

// wakeEventOf is the event a queued wake stands for, which the engine's
// hooks see.
func (s *SM) wakeEventOf(ent heapEntry) *wakeEvent {
	w := &wakeEvent{time: ent.t, cycle: ent.cycle, handler: s, rank: ent.key >> rankShift}
	if ent.cycle == notifiedWake {
		w.cycle, w.notified = 0, true
	}
	return w
}

// tieRank is the SM's place among the SMs' events at cycle c: SM c mod n
// goes first, then the next ones in turn (see serialEngine).
func (s *SM) tieRank(c uint64) uint64 {
	n := uint64(len(s.g.sms))
	return (uint64(s.id) + n - c%n) % n
}

// NotifyRecv ticks the SM at the next cycle, when a response arrives.
func (s *SM) NotifyRecv(now sim.VTimeInSec, p sim.Port) { s.tickLater(now, p, false) }

// tickLater is akita's TickScheduler.TickLater (one tick at the cycle
// after now, unless one is already asked for at or after it), which
// NotifyRecv and NotifyPortFree call, with the SM's own event: akita's
// allocates a TickEvent and names it with the process-wide ID generator.
// The events' times and their order are the same. Under the parallel
// engine, where deliveries notify concurrently, akita's is used.
func (s *SM) tickLater(now sim.VTimeInSec, p sim.Port, portFree bool) {
	if s.g.parallel {
		if portFree {
			s.TickingComponent.NotifyPortFree(now, p)
		} else {
			s.TickingComponent.NotifyRecv(now, p)
		}
		return
	}
	t := s.g.freq.NextTick(now)
	if s.nextTickTime >= t {
		return
	}
	s.nextTickTime = t
	s.scheduleWake(t, 0, true)
}

// Tick runs one cycle of the SM (see tick). It always reports false: the
// SM schedules its own ticks.
func (s *SM) Tick(now sim.VTimeInSec) bool {
	s.g.smEvent(s, now, 0, false)
	return false
}

// event handles one of the SM's events with the GPU's state to itself (see
// GPU.smEvent): a wake event clears the pending wake it stands for, then
// the SM ticks.
func (s *SM) event(now sim.VTimeInSec, wakeCycle uint64, wake bool) {
	if wake {
		if wakeCycle != s.wakeAt {
			// Superseded: an earlier wake took this one's place
			// (wakeAtCycle), and the tick that handled it asked for the
			// next wake it needs. Every change of the SM's state outside
			// its ticks asks for a tick of its own (a CTA placed, a
			// response delivered, a port freed), so this tick would issue
			// and send nothing.
			return
		}
		s.wakeAt = never
	}
	s.tick(now)
}

// wakeAtCycle makes sure the SM ticks at cycle c (or earlier).
func (s *SM) wakeAtCycle(c uint64) {
	if s.ticked && c <= s.lastTick {
		c = s.lastTick + 1
	}
	// A pending wake at or before the last tick will find the tick done
	// and do nothing: only a later one can stand in for this request.
	if s.wakeAt != never && (!s.ticked || s.wakeAt > s.lastTick) && c >= s.wakeAt {
		return
	}
	s.wakeAt = c
	s.scheduleWake(s.timeOf(c), c, false)
}

// hitWait is what the SM does at cycle at, when it takes an answer of a
// load its L1 answered at once: wake warp w at cycle wake (0: no wake)
// and retire it if it has finished.
type hitWait struct {
	w        *warpCtx
	gen      uint32
	at, wake uint64
}

// later does at cycle at what the arrival of an answer of w's would have
// done then (lsu.finish, SM.maybeRetire): lower w's wakeAt to wake (0:
// leave it) and retire w if it is done; and ticks the SM then.
func (s *SM) later(w *warpCtx, at, wake uint64) {
	// Kept in order of at; they come mostly in that order (answers are
	// taken in the order their lines were sent).
	i := len(s.waits)
	s.waits = append(s.waits, hitWait{})
	for i > s.waitsHead && s.waits[i-1].at > at {
		s.waits[i] = s.waits[i-1]
		i--
	}
	s.waits[i] = hitWait{w: w, gen: w.gen, at: at, wake: wake}
	s.wakeAtCycle(at)
}

// resumeWaits does what later booked for cycle cyc or before.
func (s *SM) resumeWaits(cyc uint64) {
	for s.waitsHead < len(s.waits) && s.waits[s.waitsHead].at <= cyc {
		h := s.waits[s.waitsHead]
		s.waits[s.waitsHead] = hitWait{}
		s.waitsHead++
		if h.w.gen == h.gen {
			if h.wake != 0 {
				h.w.wakeAt = min(h.w.wakeAt, h.wake)
			}
			s.maybeRetire(h.w, cyc)
		}
	}
	if s.waitsHead == len(s.waits) {
		s.waits, s.waitsHead = s.waits[:0], 0
	}
}

// nextWait is the cycle of the first thing later booked (never: none).
func (s *SM) nextWait() uint64 {
	if s.waitsHead == len(s.waits) {
		return never
	}
	return s.waits[s.waitsHead].at
}

// tick runs one cycle of the SM: it takes memory responses, sends queued
// requests, lets every scheduler issue, and then decides when to tick
// next, scheduling that tick itself.
func (s *SM) tick(now sim.VTimeInSec) {
	g := s.g
	cyc := g.freq.Cycle(now)
	if s.ticked && cyc <= s.lastTick {
		return
	}
	s.ticked, s.lastTick = true, cyc
	if g.run == nil {
		return
	}
	if s.win != nil {
		s.shard.SetCycle(cyc)
		s.tickedWin, s.tickedLast = true, cyc
	} else {
		g.now = max(g.now, cyc)
	}
	s.lsu.retrieve(now, cyc)
	if s.waitsHead < len(s.waits) {
		s.resumeWaits(cyc)
	}
	if s.halted() {
		return
	}
	s.lsu.send(cyc)
	next, issued := s.issue(cyc)
	if s.win == nil {
		g.check(cyc)
	}
	if s.halted() {
		return
	}
	if issued {
		// Issuing moved wakeAts the scheduler loop had passed (the issued
		// warp's, a barrier's released warps'), and a scheduler that
		// reached its issue width left ready warps for the next cycle:
		// wake at the earliest of them, not at the next cycle
		// regardless, which found nothing to issue in half the SM's
		// ticks (BFS on rmat:scale=16, h100).
		for i := range s.scheds {
			next = min(next, max(s.scheds[i].earliestWake(), cyc+1))
		}
	}
	next = min(next, s.lsu.nextSend(cyc))
	if len(s.lsu.waiters) > 0 {
		// Warps wait for room in the unit: an answered load's answer
		// makes some (retrieve), as its response's tick would.
		next = min(next, max(s.lsu.nextHitDone(), cyc+1))
	}
	if w := s.nextWait(); w != never {
		next = min(next, max(w, cyc+1))
	}
	// The SM schedules its own ticks (akita's TickLater would name every
	// tick event with the process-wide ID generator); it never asks the
	// TickingComponent for the next cycle.
	if next != never {
		s.wakeAtCycle(next)
	}
}

// starvationCycles bounds how long a scheduler lets a warp whose next
// instruction is ready wait for its issue slot and its pipelines.
//
// Neither policy bounds it by itself: GTO prefers the greedy and the older
// warps by design, and both give a pipeline that frees to the first ready
// warp they look at. When older warps spin on a flag and keep a pipeline
// or the issue slot busy for good, a younger warp would never issue again,
// nor the store the spinners wait for: the launch would livelock where the
// hardware, which guarantees resident warps forward progress (cooperative
// launches rely on it), completes. global_barrier at its co-resident limit
// did so on 66 and more h100 SMs: 15 spinning warps of one scheduler keep
// its branch unit (one branch every 4 cycles) busy, and the warps of the
// last CTAs to arrive starved at the branch after their fence.
//
// So a warp that has been ready for starvationCycles goes before the
// policy's order (oldest such warp first). The bound is long against the
// waits the policies make in ordinary launches and short against every
// deadlock window. Waiting for the SM's shared memory or a full load/store
// unit does not count: the schedulers take those in a fixed order, which
// the configurations are calibrated with. Counting those waits too moved
// atomic_contention by up to 7% on h100 (and by up to 27% on gtx780ti when
// the starving warps of every scheduler went first); as it is, no figure
// of results/sim-micro moves. A livelock through them (spinning warps that
// keep the shared memory busy for good) is left possible.
const starvationCycles = 1024

// starving reports whether w has been ready to issue, but not issued, for
// starvationCycles by cycle cyc: either its scheduler held it back that
// long, or it became ready (wakeAt) that long ago and its scheduler, busy
// with other warps, has not looked at it since. A warp that only looked
// ready (its wakeAt came before a scoreboard result it had not yet checked)
// is looked at first once; canIssue then puts it back to sleep.
func (w *warpCtx) starving(cyc uint64) bool {
	from := w.readySince()
	return from != never && from+starvationCycles <= cyc
}

// readySince is the cycle from which starving counts w as ready (never:
// not ready).
func (w *warpCtx) readySince() uint64 {
	if w.heldSince != never {
		return w.heldSince
	}
	return w.wakeAt
}

// issue lets each scheduler issue up to IssueWidth warp-instructions,
// starving warps first (see starvationCycles), and returns the earliest
// cycle a waiting warp may issue.
//
// Only an issue (issueOne) can halt the SM within the loops, so they look
// at halted after each warp issued rather than before each warp.
func (s *SM) issue(cyc uint64) (next uint64, issued bool) {
	next = never
	gto := s.cfg.SchedulingPolicy == PolicyGTO
	width := s.cfg.IssueWidth
	for si := range s.scheds {
		sc := &s.scheds[si]
		sc.issued = 0
		n := len(sc.warps)
		if n == 0 {
			continue
		}
		// A scheduler whose warps all sleep past cyc issues nothing and
		// changes nothing (try only lowers next to their wakeAt), so one
		// pass over the wakeAts stands for the loops below.
		m, starveFrom := sc.earliestWakeAndReady()
		if m > cyc {
			next = min(next, m)
			continue
		}
		halted := false
		// Starving warps first, oldest first (see starvationCycles). The
		// loop tries no warp, and so changes nothing, unless one starves
		// when it begins.
		if starveFrom != never && starveFrom+starvationCycles <= cyc {
			for i := 0; i < len(sc.warps) && sc.issued < width && !halted; i++ {
				if w := sc.warps[i]; w.starving(cyc) && s.try(w, sc, cyc, &next) {
					if gto {
						sc.last = w
					} else {
						sc.rr = i + 1
					}
					halted = s.halted()
				}
			}
		}
		if gto {
			// Greedy: the warp issued from last, while it can; then the
			// oldest that can.
			if l := sc.last; l != nil && sc.issued < width && !halted {
				if s.try(l, sc, cyc, &next) {
					halted = s.halted()
				}
			}
			for i := 0; i < len(sc.warps) && sc.issued < width && !halted; i++ {
				if w := sc.warps[i]; w != sc.last && s.try(w, sc, cyc, &next) {
					sc.last = w
					halted = s.halted()
				}
			}
		} else {
			start := sc.rr % n
			for k := 0; k < n && sc.issued < width && !halted; k++ {
				i := (start + k) % n
				if i >= len(sc.warps) { // a CTA retired during the loop
					break
				}
				if s.try(sc.warps[i], sc, cyc, &next) {
					sc.rr = i + 1
					halted = s.halted()
				}
			}
		}
		if sc.issued > 0 {
			issued = true
		}
		if halted {
			return never, false
		}
	}
	return next, issued
}

// earliestWake is the earliest wakeAt of the scheduler's warps.
func (sc *scheduler) earliestWake() uint64 {
	m := uint64(never)
	for _, w := range sc.warps {
		m = min(m, w.wakeAt)
	}
	return m
}

// earliestWakeAndReady is earliestWake and the earliest cycle from which a
// warp counts as ready for starving (never: none).
func (sc *scheduler) earliestWakeAndReady() (wake, ready uint64) {
	wake, ready = never, never
	for _, w := range sc.warps {
		wake = min(wake, w.wakeAt)
		ready = min(ready, w.readySince())
	}
	return wake, ready
}

// try issues w's next instruction on its scheduler sc if it can, and
// otherwise lowers *next to the cycle at which to look at w again.
func (s *SM) try(w *warpCtx, sc *scheduler, cyc uint64, next *uint64) bool {
	if w.wakeAt > cyc {
		*next = min(*next, w.wakeAt)
		return false
	}
	if s.prof != nil {
		s.prof.examine(w, cyc)
	}
	ok, until, held := s.canIssue(w, sc, cyc)
	if !ok {
		if !held {
			w.heldSince = never
		} else if w.heldSince == never {
			w.heldSince = w.wakeAt // ready since then, as far as anyone knows
		}
		w.wakeAt = until
		*next = min(*next, until)
		if s.prof != nil {
			s.profileBlocked(w, sc, cyc, held)
		}
		return false
	}
	s.issueOne(w, sc, cyc)
	sc.issued++
	return true
}

// canIssue checks the scoreboard and the pipelines for w's next
// instruction. When it cannot issue, until is the cycle to look again
// (never: an event will wake the warp), and held says that the instruction
// is ready and only its pipeline, busy with other warps' instructions,
// keeps it back (the scheduler's own resource; see starvationCycles).
func (s *SM) canIssue(w *warpCtx, sc *scheduler, cyc uint64) (ok bool, until uint64, held bool) {
	if w.atBarrier || w.fenceWait || w.done {
		// Whatever woke it (a load arriving), an event will wake it again.
		return false, never, false
	}
	info := s.nextInfo(w)
	if info == nil {
		return false, never, false
	}
	if w.readyBy > cyc {
		if t := w.scoreboard(info); t > cyc {
			return false, t, false
		}
	}
	if f := sc.nextFree[info.cls]; f > cyc {
		return false, f, true
	}
	if info.mem == memShared || info.mem == memGeneric {
		if s.smemFree > cyc {
			return false, s.smemFree, false
		}
	}
	if info.mem == memGlobal || info.mem == memGeneric {
		if !s.lsu.canAccept() {
			if !w.lsuWait {
				w.lsuWait = true
				s.lsu.waiters = append(s.lsu.waiters, w)
			}
			return false, never, false
		}
	}
	return true, 0, false
}

// issueOne executes w's next instruction and charges its time.
func (s *SM) issueOne(w *warpCtx, sc *scheduler, cyc uint64) {
	fn, pc := w.w.Next()
	info := &w.infos[pc]
	if s.NumHooks() > 0 {
		s.InvokeHook(sim.HookCtx{Domain: s, Pos: HookPosIssue, Item: IssueInfo{
			Cycle: cyc, SM: s.id, Scheduler: w.sched, Slot: w.slot, CTA: w.cta.c.Linear,
			Warp: w.w.Index(), Func: fn, PC: pc, Active: w.w.ActiveMask(),
		}})
	}
	var epoch0 uint64
	var logged0 int
	if s.prof != nil {
		epoch0, logged0 = s.profileProgress()
		s.prof.issued(w, fn, pc, cyc)
	}
	st, err := w.w.Step()
	w.next, w.readyBy = nil, never
	if err != nil {
		if s.win != nil {
			s.fail(err, cyc)
		} else {
			s.g.fail(err)
		}
		return
	}
	s.stats.warpInsts++
	s.stats.threadInsts += uint64(bits.OnesCount32(st.Active))
	s.lastActivity = cyc
	cls := info.cls
	ct := s.cfg.timingOf(cls)
	sc.nextFree[cls] = cyc + uint64(ct.Interval)
	w.wakeAt, w.heldSince = cyc+1, never

	switch {
	case st.Mem.Kind != exec.MemNone && info.mem != memNone:
		s.memory(w, info, st, cyc)
	case cls == clsBranch:
		w.wakeAt = cyc + max(uint64(ct.Latency), 1)
	case cls == clsBarrier:
		w.wakeAt = cyc + max(uint64(ct.Latency), 1)
	case cls == clsFence:
		if info.invalidateL1 {
			s.g.mem.InvalidateL1(s.id)
			if s.win != nil {
				// The values' side hears of it in the SM's order.
				s.shard.Mark(markInvalidateL1)
			}
		}
		if w.outstanding > 0 {
			w.fenceWait, w.wakeAt = true, never
		} else {
			w.wakeAt = s.fenceLatencyEnd(w, cyc)
		}
	default:
		for j := 0; j < int(info.ndst); j++ {
			w.ready[info.dst[j]] = cyc + uint64(ct.Latency)
		}
		if info.ndst > 0 {
			w.readyMax = max(w.readyMax, cyc+uint64(ct.Latency))
		}
		if s.prof != nil {
			s.profileResult(w, info, ReasonALU, never, never)
		}
	}

	if st.SleepNs > 0 {
		// nanosleep: the warp issues nothing more until its delay has
		// passed. The PTX ISA promises a sleep between 0 and twice the
		// delay; the model sleeps the delay itself.
		w.wakeAt = max(w.wakeAt, cyc+s.g.nsCycles(st.SleepNs))
	}
	if st.Barrier {
		if w.w.State() == exec.WarpAtBarrier { // not bar.arrive, not the last to arrive
			w.atBarrier, w.wakeAt = true, never
			w.cta.barriers++
		}
	}
	if s.prof != nil {
		s.profileIssued(w, fn, pc, info, st, epoch0, logged0, cyc)
	}
	cta := w.cta
	if st.Done {
		s.warpDone(w, cyc) // may retire the CTA
	}
	if cta.barriers > 0 && (st.Released || st.Done) {
		s.releaseBarrier(cta, cyc)
	}
	if s.prof == nil {
		s.sleepOnScoreboard(w)
	}
}

// sleepOnScoreboard puts w, just issued, to sleep until the registers its
// next instruction reads and writes are ready, rather than until its
// wakeAt, where the scheduler would find them not ready and do the same:
// on a warp waiting for a load that saves the SM a tick which issues
// nothing. It changes no cycle: between now and the old wakeAt nothing
// but a load's arrival changes the scoreboard, and an arrival lowers
// wakeAt to its own cycle in both cases (lsu.complete). Skipped under the
// profiler, which attributes the wait from what the scheduler finds.
func (s *SM) sleepOnScoreboard(w *warpCtx) {
	if w.done || w.atBarrier || w.fenceWait || w.wakeAt == never {
		return
	}
	if info := s.nextInfo(w); info != nil {
		if t := w.scoreboard(info); t > w.wakeAt {
			w.wakeAt = t
		}
	}
}

// scoreboard is the cycle at which w's scoreboard lets info, its next
// instruction, issue (readyAt), kept in w.readyBy when it is known.
func (w *warpCtx) scoreboard(info *instInfo) uint64 {
	t := info.readyAt(w)
	if t != never {
		w.readyBy = t
	}
	return t
}

// nextInfo returns the information of the instruction w issues next,
// looked up once per step (nil: the warp has no next instruction).
func (s *SM) nextInfo(w *warpCtx) *instInfo {
	if w.next != nil {
		return w.next
	}
	fn, pc := w.w.Next()
	if fn == nil {
		return nil
	}
	if fn != w.fn {
		w.fn, w.infos = fn, s.g.infosOf(fn)
	}
	w.next = &w.infos[pc]
	return w.next
}

// releaseBarrier wakes the warps of cta that the executor released from a
// barrier.
func (s *SM) releaseBarrier(cta *ctaCtx, cyc uint64) {
	lat := max(uint64(s.cfg.Barrier.Latency), 1)
	for _, o := range cta.warps {
		if o.atBarrier && o.w.State() == exec.WarpReady {
			o.atBarrier = false
			o.wakeAt = cyc + lat
			cta.barriers--
		}
	}
}

// warpDone records that the executor finished w; it retires once its
// loads are back.
func (s *SM) warpDone(w *warpCtx, cyc uint64) {
	w.done = true
	w.wakeAt = never
	if s.prof != nil {
		s.prof.warpDone(w)
	}
	s.integrateOccupancy(cyc)
	s.resident--
	s.maybeRetire(w, cyc)
}

// maybeRetire retires a finished warp with no loads outstanding, and its
// CTA when it was the last.
func (s *SM) maybeRetire(w *warpCtx, cyc uint64) {
	if !w.done || w.retired || w.pendingLoads > 0 {
		return
	}
	if w.hitsDone > cyc {
		s.later(w, w.hitsDone, 0)
		return
	}
	w.retired = true
	cta := w.cta
	cta.retired++
	if cta.retired < len(cta.warps) {
		return
	}
	// The CTA is finished: free its slots and resources.
	for _, o := range cta.warps {
		sc := &s.scheds[o.sched]
		for i, x := range sc.warps {
			if x == o {
				sc.warps = append(sc.warps[:i], sc.warps[i+1:]...)
				if sc.rr > i {
					sc.rr--
				}
				break
			}
		}
		if sc.last == o {
			sc.last = nil
		}
		o.w, o.cta, o.fn, o.infos, o.next = nil, nil, nil, nil, nil
		o.gen++
	}
	for i, c := range s.ctas {
		if c == cta {
			s.ctas = append(s.ctas[:i], s.ctas[i+1:]...)
			break
		}
	}
	s.lastActivity = max(s.lastActivity, cyc)
	if s.win != nil {
		// The window's end frees its resources and starts waiting CTAs,
		// in the order of the retirements of every SM.
		s.retired = append(s.retired, retirement{cycle: cyc, cta: cta})
		return
	}
	s.release(cta)
	if cta.task != "" {
		tracing.EndTask(cta.task, s)
	}
	if s.NumHooks() > 0 {
		s.InvokeHook(sim.HookCtx{Domain: s, Pos: HookPosCTADone, Item: CTAInfo{Cycle: cyc, SM: s.id, CTA: cta.c.Linear}})
	}
	s.g.ctaDone(cyc)
}

// release frees the resources of a retired CTA and returns its state to
// the grid.
func (s *SM) release(cta *ctaCtx) {
	r := s.g.run
	s.usedWarps -= r.WarpsPerCTA
	s.usedThreads -= r.ThreadsPerCTA
	s.usedRegs -= r.RegistersPerCTA
	s.usedShared -= r.SharedPerCTA
	s.resCTAs--
	r.Grid.Retire(cta.c)
}

// halted says whether the SM stops issuing and sending: the launch
// stopped, or (window engine) one of its warps met an error.
func (s *SM) halted() bool { return s.g.run.stopped || s.err != nil }

// fail records, under the window engine, the first error a warp of the SM
// met, at cycle cyc: the SM stops, and the window's end stops the launch
// with the earliest error of every SM's.
func (s *SM) fail(err error, cyc uint64) {
	if s.err == nil {
		s.err, s.errCycle = err, cyc
	}
}
