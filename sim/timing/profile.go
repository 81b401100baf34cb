package timing

import (
	"math/bits"

	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Reason is what one warp did, or waited for, in one cycle of a launch
// (Builder.WithProfile). Every cycle of every warp of the grid, from the
// launch's first cycle to its last, is charged to exactly one reason; the
// reasons of a resident warp are also charged to one PTX instruction.
type Reason uint8

// The reasons, in the order tables list them. ReasonNotResident and
// ReasonFinished are charged to no instruction: the warp has none to be
// at.
const (
	// ReasonIssued: the warp issued an instruction (charged to it).
	ReasonIssued Reason = iota
	// ReasonGlobalLoad: the warp's next instruction reads (or overwrites)
	// a register that a global or local load in flight will write: the
	// scoreboard waits for the memory system (L1, L2, DRAM).
	ReasonGlobalLoad
	// ReasonAtomic: the register waited for is an atomic's result (a
	// global atomic's round trip, its queue at the L2 atomic unit
	// included; the same-address serialisation of a shared atomic), or
	// the warp is held by Kepler's lock loop for a shared atomic, or the
	// shared memory is busy serialising another warp's atomic.
	ReasonAtomic
	// ReasonSharedMemory: the register waited for is a shared access's
	// result, within its conflict-free latency; or the shared memory is
	// busy with another warp's conflict-free pass.
	ReasonSharedMemory
	// ReasonBankConflict: the register waited for is a shared access's
	// result, in the extra passes its bank conflicts cost; or the shared
	// memory is busy with the extra passes of another access.
	ReasonBankConflict
	// ReasonBarrier: the warp waits at bar.sync (bar.red) for the rest of
	// its CTA, then for the barrier's latency (charged to the bar).
	ReasonBarrier
	// ReasonSpinning: every cycle of a spin iteration, whatever the warp
	// waited for in it (see the package comment, Profiles).
	ReasonSpinning
	// ReasonALU: the register waited for is a fixed-latency result
	// (integer, floating point, special function, warp collective,
	// parameter and constant loads).
	ReasonALU
	// ReasonBranch: the branch latency after a branch, call, return or
	// exit (charged to the branch).
	ReasonBranch
	// ReasonFence: a membar or fence waits for the warp's stores and
	// atomics in flight, then for its latency (charged to the fence).
	ReasonFence
	// ReasonSleep: the warp sleeps out a nanosleep's delay (charged to
	// the nanosleep).
	ReasonSleep
	// ReasonPipeBusy: the instruction is ready, but its class's pipeline
	// on the warp's scheduler is busy (its initiation interval).
	ReasonPipeBusy
	// ReasonLSUFull: a memory instruction is ready, but the SM's
	// load/store unit holds MaxOutstandingRequests requests.
	ReasonLSUFull
	// ReasonNotSelected: the instruction could issue, but the scheduler
	// issued other warps' instructions (its issue width was used).
	ReasonNotSelected
	// ReasonCTALaunch: the warp's CTA has just been placed on the SM
	// (SMConfig.CTALaunchCycles before its warps issue).
	ReasonCTALaunch
	// ReasonNotResident: the warp's CTA waits for an SM with room
	// (from the launch's first cycle to the cycle its CTA starts, or to
	// the launch's end for a CTA that never starts).
	ReasonNotResident
	// ReasonFinished: the warp has exited (its last loads may still be
	// in flight) while the launch goes on.
	ReasonFinished
	// NumReasons counts the reasons.
	NumReasons
)

var reasonNames = [NumReasons]string{
	"issued", "global_load", "atomic", "shared_memory", "bank_conflict",
	"barrier", "spinning", "alu_result", "branch", "fence", "sleep", "pipe_busy",
	"lsu_full", "not_selected", "cta_launch", "not_resident", "finished",
}

var reasonDescriptions = [NumReasons]string{
	"issued an instruction",
	"waiting on a global (or local) memory load's result",
	"waiting on an atomic (its round trip and serialisation)",
	"waiting on a shared-memory access's conflict-free latency",
	"waiting on the extra passes of shared-memory bank conflicts",
	"at a barrier, waiting for the rest of the CTA",
	"spinning: in a loop that polls unchanged addresses and changes no memory",
	"waiting on a fixed-latency (ALU) result",
	"branch latency",
	"at a fence, waiting for its stores and atomics",
	"asleep: a nanosleep's delay",
	"ready, its pipeline busy",
	"ready, the load/store unit full",
	"ready, the scheduler issued other warps",
	"its CTA starting on the SM",
	"not resident: its CTA waits for an SM",
	"finished, the launch still running",
}

// String is the reason's snake_case name (the key in JSON output).
func (r Reason) String() string { return reasonNames[r] }

// Description says what the reason means, in a few words.
func (r Reason) Description() string { return reasonDescriptions[r] }

// AtInstruction reports whether cycles of r are charged to an
// instruction (all but ReasonNotResident and ReasonFinished).
func (r Reason) AtInstruction() bool { return r != ReasonNotResident && r != ReasonFinished }

// ReasonCounts are cycles per reason.
type ReasonCounts [NumReasons]uint64

// Total is the sum over the reasons.
func (c *ReasonCounts) Total() uint64 {
	var t uint64
	for _, v := range c {
		t += v
	}
	return t
}

// Add adds o.
func (c *ReasonCounts) Add(o *ReasonCounts) {
	for i, v := range o {
		c[i] += v
	}
}

// LaunchProfile is where the cycles of one launch's warps went
// (Builder.WithProfile; GPU.Profile returns the last launch's). Every warp
// of the grid (CTAs × WarpsPerCTA of them) is counted from the launch's
// first cycle to its last, so the counts of Insts, NotResident and
// Finished add up to WarpCycles.
type LaunchProfile struct {
	Kernel string
	Module *ptx.Module
	// CTAs and WarpsPerCTA are the grid's; CTAsStarted those that started.
	CTAs, WarpsPerCTA, CTAsStarted int
	// Cycles is the span every warp is counted over: the launch's Cycles
	// (Stats.Cycles), or, for a launch stopped early (a deadlock, a time
	// limit), up to the last cycle at which the SMs looked at a warp, which
	// can be a few cycles later than Stats.Cycles' end.
	Cycles uint64
	// Insts holds, per function and instruction index, the cycles charged
	// to each instruction: the reasons of warps at it.
	Insts map[*ptx.Function][]ReasonCounts
	// NotResident and Finished are the warp-cycles of those reasons.
	NotResident, Finished uint64
	// Unbalanced counts warps whose charged cycles did not equal their
	// lifetime: always 0 unless the profiler has a bug (tests check it).
	Unbalanced int
}

// Warps is the number of warps of the grid.
func (p *LaunchProfile) Warps() uint64 { return uint64(p.CTAs) * uint64(p.WarpsPerCTA) }

// WarpCycles is Warps × Cycles: every warp's lifetime.
func (p *LaunchProfile) WarpCycles() uint64 { return p.Warps() * p.Cycles }

// Totals sums the launch's cycles per reason, NotResident and Finished
// included.
func (p *LaunchProfile) Totals() ReasonCounts {
	var t ReasonCounts
	for _, counts := range p.Insts {
		for i := range counts {
			t.Add(&counts[i])
		}
	}
	t[ReasonNotResident] += p.NotResident
	t[ReasonFinished] += p.Finished
	return t
}

// regProf says what a register's pending result is: whose latency the
// scoreboard waits for. A wait for it is charged to kind until cut1, to
// ReasonBankConflict from cut1 to cut2, and to ReasonAtomic from cut2 on
// (the cuts are never for results of one kind).
type regProf struct {
	kind       Reason
	cut1, cut2 uint64
}

// spinLogSize bounds the charges a warp remembers of its current loop
// iteration: a longer iteration is not a spin.
const spinLogSize = 64

// charge is one charge of a warp in its current loop iteration.
type charge struct {
	at *ReasonCounts
	r  Reason
	n  uint64
}

// warpProf is the profiler's state of one warp slot. The warp's cycles
// before acct are charged; since acct it waits (wait, cut) at waitAt, which
// it does until its wakeAt; from wakeAt on it is ready and not selected.
type warpProf struct {
	acct    uint64
	start   uint64 // the cycle its CTA started
	charged uint64

	waitAt *ReasonCounts
	wait   [3]Reason
	cut    [2]uint64

	regs []regProf

	// Spin detection (see backEdge). The segment in progress, since the
	// last taken backward branch: the hash of the addresses it read,
	// whether it polled (a global or shared load or atomic, a clock
	// read: what the deadlock detector calls a poll), whether
	// it changed memory, whether its charges overflowed the log, and its
	// charges. The last segments, newest first; whether the last was a
	// spin.
	hash       uint64
	polled     bool
	progressed bool
	overflow   bool
	nlog       int
	log        [spinLogSize]charge
	hist       *spinHist
	// open is the iteration in progress once it has logged a global
	// store or atomic under the window engine (see deferredIteration).
	open *deferredIteration
}

// spinHist is a warp's closed segments, newest first, for the spin test
// (backEdge), whether the last was a spin, and, under the window engine,
// the closed segments still waiting to hear whether their global stores
// and atomics changed memory, oldest first.
type spinHist struct {
	segs     [2 * spinPeriod]segment
	nsegs    int
	spinning bool
	pending  []*deferredIteration
}

// deferredIteration is a loop iteration of a warp under the window
// engine, where a global store or atomic changes memory (or not) when the
// merge applies it, after the warp issued it: the spin test of the
// iteration's segment waits until the merge has applied each of them
// (unresolved counts those not yet applied), and the segments of a warp
// are tested in order.
type deferredIteration struct {
	hist       *spinHist
	seg        segment
	log        []charge
	unresolved int
	changed    bool // one of its stores or atomics changed memory
	closed     bool // its segment ended (seg and log are set)
}

// loggedWrite is a global store or atomic that an SM's warp logged under
// the window engine: its index in the SM's log of the window, and its
// iteration.
type loggedWrite struct {
	i  int
	it *deferredIteration
}

// spinPeriod is the most segments (stretches between taken backward
// branches) a spin loop's iteration may have.
const spinPeriod = 4

// segment is a closed stretch of a warp's instructions: from one taken
// backward branch to the next, the one at the end named by its function
// and index.
type segment struct {
	fn         *ptx.Function
	pc         int
	hash       uint64
	polled     bool
	progressed bool // or too long to tell
}

// smProf is an SM's profiler.
type smProf struct {
	warps []warpProf // by slot
	insts map[*ptx.Function][]ReasonCounts
	// lastFn and lastCounts cache insts' lookup.
	lastFn     *ptx.Function
	lastCounts []ReasonCounts

	notResident uint64 // warp-cycles of the CTAs it started, before they started
	started     int    // CTAs started
	doneWarps   uint64 // warps finished
	doneAcct    uint64 // the sum of their acct at the finish
	unbalanced  int
	maxAcct     uint64 // the latest acct of any warp

	// Under the window engine: the global stores and atomics the SM
	// logged in the window running (logged) and in the last one (pend),
	// which the merge applies while the window runs (resolve).
	logged, pend []loggedWrite
}

func newSMProf(slots int) *smProf {
	p := &smProf{warps: make([]warpProf, slots)}
	for i := range p.warps {
		p.warps[i].hist = &spinHist{}
	}
	return p
}

// reset prepares the profiler for a launch.
func (p *smProf) reset(maxRegs int) {
	p.insts = map[*ptx.Function][]ReasonCounts{}
	p.lastFn, p.lastCounts = nil, nil
	p.notResident, p.started, p.doneWarps, p.doneAcct, p.unbalanced, p.maxAcct = 0, 0, 0, 0, 0, 0
	for i := range p.warps {
		wp := &p.warps[i]
		if cap(wp.regs) < maxRegs {
			wp.regs = make([]regProf, maxRegs)
		}
		wp.regs = wp.regs[:maxRegs]
	}
}

// countsAt returns the counters of instruction pc of fn.
func (p *smProf) countsAt(fn *ptx.Function, pc int) *ReasonCounts {
	if fn != p.lastFn {
		c, ok := p.insts[fn]
		if !ok {
			c = make([]ReasonCounts, len(fn.Insts))
			p.insts[fn] = c
		}
		p.lastFn, p.lastCounts = fn, c
	}
	return &p.lastCounts[pc]
}

// add charges n cycles of reason r to the counters at, and remembers the
// charge for the loop iteration in progress.
func (p *smProf) add(wp *warpProf, at *ReasonCounts, r Reason, n uint64) {
	if n == 0 {
		return
	}
	at[r] += n
	wp.charged += n
	if wp.overflow {
		return
	}
	if k := wp.nlog - 1; k >= 0 && wp.log[k].at == at && wp.log[k].r == r {
		wp.log[k].n += n
		return
	}
	if wp.nlog == len(wp.log) {
		wp.overflow = true
		return
	}
	wp.log[wp.nlog] = charge{at, r, n}
	wp.nlog++
}

// setWait records what the warp waits for from now on.
func (wp *warpProf) setWait(at *ReasonCounts, r0, r1, r2 Reason, cut1, cut2 uint64) {
	wp.waitAt = at
	wp.wait = [3]Reason{r0, r1, r2}
	wp.cut = [2]uint64{cut1, cut2}
}

// setWaitFor records a wait of one reason.
func (wp *warpProf) setWaitFor(at *ReasonCounts, r Reason) {
	wp.setWait(at, r, r, r, never, never)
}

// chargeWait charges the warp's wait from acct to end.
func (p *smProf) chargeWait(wp *warpProf, end uint64) {
	from := wp.acct
	for i := 0; i < 3 && from < end; i++ {
		to := end
		if i < 2 {
			to = min(to, max(wp.cut[i], from))
		}
		p.add(wp, wp.waitAt, wp.wait[i], to-from)
		from = to
	}
}

// catchUp charges warp w's cycles up to (not including) cyc: its wait
// until its wakeAt, then, ready, not selected at its next instruction.
func (p *smProf) catchUp(w *warpCtx, cyc uint64) {
	wp := &p.warps[w.slot]
	if cyc <= wp.acct {
		return
	}
	end := min(max(w.wakeAt, wp.acct), cyc)
	if wp.waitAt != nil {
		p.chargeWait(wp, end)
	} else {
		end = wp.acct
	}
	if end < cyc {
		at := wp.waitAt
		if fn, pc := w.w.Next(); fn != nil {
			at = p.countsAt(fn, pc)
		}
		if at != nil {
			p.add(wp, at, ReasonNotSelected, cyc-end)
		}
	}
	wp.acct = cyc
	p.maxAcct = max(p.maxAcct, cyc)
}

// start begins the profile of warp w, whose CTA started at cyc, of a
// launch that started at launchStart.
func (p *smProf) start(w *warpCtx, cyc, launchStart uint64) {
	wp := &p.warps[w.slot]
	wp.acct, wp.start, wp.charged = cyc, cyc, 0
	wp.waitAt = nil
	if fn, pc := w.w.Next(); fn != nil {
		wp.setWaitFor(p.countsAt(fn, pc), ReasonCTALaunch)
	}
	clear(wp.regs)
	if len(wp.hist.pending) > 0 {
		// The slot's last warp has segments waiting for the merge, which
		// keep its history.
		wp.hist = &spinHist{}
	}
	wp.hist.nsegs, wp.hist.spinning = 0, false
	wp.open = nil
	wp.resetIteration()
	p.notResident += cyc - launchStart
	p.maxAcct = max(p.maxAcct, cyc)
}

func (wp *warpProf) resetIteration() {
	wp.hash = 14695981039346656037
	wp.polled, wp.progressed, wp.overflow = false, false, false
	wp.nlog = 0
}

// examine charges w's cycles up to cyc, when its scheduler looks at it.
func (p *smProf) examine(w *warpCtx, cyc uint64) { p.catchUp(w, cyc) }

// issued charges cycle cyc to w's instruction pc of fn, which issues.
func (p *smProf) issued(w *warpCtx, fn *ptx.Function, pc int, cyc uint64) {
	wp := &p.warps[w.slot]
	p.add(wp, p.countsAt(fn, pc), ReasonIssued, 1)
	wp.acct = cyc + 1
	p.maxAcct = max(p.maxAcct, wp.acct)
}

// blocked records why w, looked at in cycle cyc, could not issue (what
// canIssue found: until and held).
func (s *SM) profileBlocked(w *warpCtx, sc *scheduler, cyc uint64, held bool) {
	p := s.prof
	wp := &p.warps[w.slot]
	if w.atBarrier || w.fenceWait || w.done {
		return // the wait its last instruction began goes on
	}
	fn, pc := w.w.Next()
	if fn == nil {
		return
	}
	at := p.countsAt(fn, pc)
	if held {
		wp.setWaitFor(at, ReasonPipeBusy)
		return
	}
	info := &w.infos[pc]
	t, reg := uint64(0), ptx.NoReg
	look := func(r ptx.RegIndex) {
		if w.ready[r] > t {
			t, reg = w.ready[r], r
		}
	}
	for j := 0; j < int(info.nsrc); j++ {
		look(info.src[j])
	}
	for j := 0; j < int(info.ndst); j++ {
		look(info.dst[j])
	}
	if info.call {
		for r := range w.ready {
			look(ptx.RegIndex(r))
		}
	}
	switch {
	case t > cyc && reg != ptx.NoReg:
		rp := &wp.regs[reg]
		kind := rp.kind
		if kind == ReasonIssued { // never set: a result of an earlier launch's slot
			kind = ReasonALU
		}
		wp.setWait(at, kind, ReasonBankConflict, ReasonAtomic, rp.cut1, rp.cut2)
	case sc.nextFree[info.cls] > cyc:
		wp.setWaitFor(at, ReasonPipeBusy)
	case (info.mem == memShared || info.mem == memGeneric) && s.smemFree > cyc:
		wp.setWait(at, ReasonSharedMemory, ReasonBankConflict, ReasonAtomic, s.smemCut1, s.smemCut2)
	case w.lsuWait:
		wp.setWaitFor(at, ReasonLSUFull)
	default:
		wp.setWaitFor(at, ReasonNotSelected)
	}
}

// profileResult records the kind of the results info's destinations
// will hold (see regProf).
func (s *SM) profileResult(w *warpCtx, info *instInfo, kind Reason, cut1, cut2 uint64) {
	wp := &s.prof.warps[w.slot]
	for j := 0; j < int(info.ndst); j++ {
		wp.regs[info.dst[j]] = regProf{kind: kind, cut1: cut1, cut2: cut2}
	}
}

// profileProgress is what profileIssued compares to see whether an
// instruction changed memory: the grid's epoch, or under the window
// engine the SM's shard's progress (whose global stores and atomics count
// later, see deferredIteration), with the length of its log.
func (s *SM) profileProgress() (epoch uint64, logged int) {
	if s.win != nil {
		return s.shard.Progress(), s.shard.Len()
	}
	return s.g.run.Grid.Epoch(), 0
}

// profileIssued follows up the issue of instruction pc of fn by w at cyc:
// what it polled and whether it changed memory (epoch0 and logged0 are
// profileProgress before), what the warp waits for after it, and whether
// it closed a loop iteration (a taken backward branch).
func (s *SM) profileIssued(w *warpCtx, fn *ptx.Function, pc int, info *instInfo, st *exec.StepInfo, epoch0 uint64, logged0 int, cyc uint64) {
	p := s.prof
	wp := &p.warps[w.slot]
	epoch, logged := s.profileProgress()
	if epoch != epoch0 {
		wp.progressed = true
	}
	for i := logged0; i < logged; i++ {
		if s.shard.Writes(i) {
			if wp.open == nil {
				wp.open = &deferredIteration{hist: wp.hist}
			}
			wp.open.unresolved++
			p.logged = append(p.logged, loggedWrite{i, wp.open})
		}
	}
	mix := func(v uint64) {
		wp.hash ^= v
		wp.hash *= 1099511628211
	}
	if m := &st.Mem; (m.Kind == exec.MemLoad || m.Kind == exec.MemAtomic) && info.mem != memNone {
		mix(uint64(pc)<<32 | uint64(m.Lanes))
		for mm := m.Lanes; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			switch m.Space[l] {
			case ptx.SpaceGlobal:
				wp.polled = true
				mix(m.Addr[l])
			case ptx.SpaceShared:
				wp.polled = true
				mix(m.Addr[l] | 1<<63)
			}
		}
	}
	if s.g.readsClock(fn, pc) {
		wp.polled = true
		mix(uint64(pc))
	}
	at := p.countsAt(fn, pc)
	switch {
	case w.atBarrier:
		wp.setWaitFor(at, ReasonBarrier)
	case w.fenceWait:
		wp.setWaitFor(at, ReasonFence)
	case w.wakeAt > cyc+1 && w.wakeAt != never && st.SleepNs > 0:
		wp.setWaitFor(at, ReasonSleep)
	case w.wakeAt > cyc+1 && w.wakeAt != never:
		switch info.cls {
		case clsBranch:
			wp.setWaitFor(at, ReasonBranch)
		case clsBarrier:
			wp.setWaitFor(at, ReasonBarrier)
		case clsFence:
			wp.setWaitFor(at, ReasonFence)
		case clsSharedAtomic, clsGlobalAtomic:
			wp.setWaitFor(at, ReasonAtomic)
		default:
			wp.setWaitFor(at, ReasonALU)
		}
	default:
		wp.setWaitFor(at, ReasonNotSelected)
	}
	if info.cls == clsBranch && !info.call && !st.Done {
		if fn2, pc2 := w.w.Next(); fn2 == fn && pc2 <= pc {
			p.backEdge(wp, fn, pc)
		}
	}
}

// backEdge closes the warp's segment at the taken backward branch pc of
// fn and decides whether it was part of a spin.
//
// A warp spins when its segments repeat with a period of at most
// spinPeriod while it changes no memory: for some p, the last p segments
// equal the p before them (each ends at the same branch and read exactly
// the same addresses, through the same instructions and lanes), none of
// those 2p segments changed memory, and the last p polled (a global or
// shared load or atomic, a clock read). Registers may change (a poll
// counter); the
// addresses may not (a loop over new addresses is work). The segment that
// completes such a repetition is charged to ReasonSpinning; so the first
// iterations of a spin, before it has repeated, keep their reasons.
//
// Under the window engine a segment with global stores or atomics is
// tested once the merge has applied them, after the segments before it
// (deferredIteration); its charges move then.
func (p *smProf) backEdge(wp *warpProf, fn *ptx.Function, pc int) {
	seg := segment{fn: fn, pc: pc, hash: wp.hash, polled: wp.polled, progressed: wp.progressed || wp.overflow}
	h := wp.hist
	if wp.open == nil && len(h.pending) == 0 {
		spinTest(h, seg, wp.log[:wp.nlog])
	} else {
		it := wp.open
		if it == nil {
			it = &deferredIteration{hist: h}
		}
		it.seg, it.closed = seg, true
		it.log = append(it.log[:0], wp.log[:wp.nlog]...)
		h.pending = append(h.pending, it)
		wp.open = nil
		h.testResolved()
	}
	wp.resetIteration()
}

// spinTest adds the closed segment seg, whose charges are log, to the
// history h, and moves the charges to ReasonSpinning if it completes a
// spin (see backEdge).
func spinTest(h *spinHist, seg segment, log []charge) {
	copy(h.segs[1:], h.segs[:len(h.segs)-1])
	h.segs[0] = seg
	h.nsegs = min(h.nsegs+1, len(h.segs))
	spin := false
	for period := 1; period <= spinPeriod && 2*period <= h.nsegs && !spin; period++ {
		spin = true
		polled := false
		for i := range period {
			a, b := &h.segs[i], &h.segs[i+period]
			if a.fn != b.fn || a.pc != b.pc || a.hash != b.hash || a.progressed || b.progressed {
				spin = false
				break
			}
			polled = polled || a.polled
		}
		spin = spin && polled
	}
	if spin {
		respinCharges(log)
	}
	h.spinning = spin
}

// testResolved tests the pending segments, oldest first, whose stores and
// atomics have all been applied.
func (h *spinHist) testResolved() {
	k := 0
	for ; k < len(h.pending) && h.pending[k].unresolved == 0; k++ {
		it := h.pending[k]
		seg := it.seg
		seg.progressed = seg.progressed || it.changed
		spinTest(h, seg, it.log)
		h.pending[k] = nil
	}
	if k > 0 {
		h.pending = append(h.pending[:0], h.pending[k:]...)
	}
}

// resolve hears from the merge which of the global stores and atomics the
// SM logged in the last window changed memory (changed(i) for the log's
// operation i), and tests the segments that were waiting only for them.
func (p *smProf) resolve(changed func(i int) bool) {
	for _, lw := range p.pend {
		it := lw.it
		if changed(lw.i) {
			it.changed = true
		}
		it.unresolved--
	}
	for _, lw := range p.pend {
		if it := lw.it; it.closed && it.unresolved == 0 {
			it.hist.testResolved()
		}
	}
	clear(p.pend)
	p.pend = p.pend[:0]
}

// endWindow hands the writes logged in the window that ended to the
// merge (resolve hears of them).
func (p *smProf) endWindow() {
	p.pend, p.logged = p.logged, p.pend
}

// respin moves the charges of the warp's current iteration to
// ReasonSpinning.
func (p *smProf) respin(wp *warpProf) {
	respinCharges(wp.log[:wp.nlog])
	wp.nlog = 0
}

// respinCharges moves charges to ReasonSpinning.
func respinCharges(log []charge) {
	for i := range log {
		c := &log[i]
		c.at[c.r] -= c.n
		c.at[ReasonSpinning] += c.n
	}
}

// warpDone records that w finished (its exit issued at cyc).
func (p *smProf) warpDone(w *warpCtx) {
	wp := &p.warps[w.slot]
	p.doneWarps++
	p.doneAcct += wp.acct
	if wp.charged != wp.acct-wp.start {
		p.unbalanced++
	}
}

// readsClock reports whether instruction pc of fn reads %clock,
// %clock64 or %globaltimer (a poll of time).
func (g *GPU) readsClock(fn *ptx.Function, pc int) bool { return g.clockReadsOf(fn)[pc] }

// clockReadsOf says which instructions of fn read the clock (readsClock),
// computed once per function: the window engine computes them for every
// function of a launch before its SMs run at once.
func (g *GPU) clockReadsOf(fn *ptx.Function) []bool {
	c, ok := g.clockReads[fn]
	if !ok {
		c = make([]bool, len(fn.Insts))
		for i := range fn.Insts {
			in := &fn.Insts[i]
			for j := 0; j < int(in.NSrc) && j < len(in.Src); j++ {
				if o := in.Src[j]; o.Kind == ptx.OperandSpecial && isClockReg(o.Special) {
					c[i] = true
				}
			}
		}
		g.clockReads[fn] = c
	}
	return c
}

func isClockReg(r ptx.SpecialReg) bool {
	switch r {
	case ptx.SRegClock, ptx.SRegClockHi, ptx.SRegClock64,
		ptx.SRegGlobalTimer, ptx.SRegGlobalTimerLo, ptx.SRegGlobalTimerHi:
		return true
	}
	return false
}

// finishProfile charges every warp up to the launch's end and gathers the
// SMs' counters into the launch's profile.
func (g *GPU) finishProfile(end uint64) *LaunchProfile {
	r := g.run
	for _, s := range g.sms {
		if s.prof.maxAcct > 0 {
			end = max(end, s.prof.maxAcct-1)
		}
	}
	if end+1 < r.startCycle {
		end = r.startCycle - 1
	}
	lp := &LaunchProfile{
		Kernel: r.kernel, Module: r.Grid.Program().Module.PTX,
		CTAs: r.Grid.CTAs(), WarpsPerCTA: r.WarpsPerCTA,
		Cycles: end + 1 - r.startCycle,
		Insts:  map[*ptx.Function][]ReasonCounts{},
	}
	for _, s := range g.sms {
		p := s.prof
		for _, c := range s.ctas {
			for _, w := range c.warps {
				if w.done {
					continue
				}
				wp := &p.warps[w.slot]
				p.catchUp(w, end+1)
				progressed := wp.progressed || wp.overflow || wp.open != nil && wp.open.changed
				if wp.hist.spinning && !progressed {
					// The iteration the launch stopped in goes the way the
					// previous one went.
					p.respin(wp)
				}
				if wp.charged != wp.acct-wp.start {
					lp.Unbalanced++
				}
			}
		}
		lp.CTAsStarted += p.started
		lp.NotResident += p.notResident
		lp.Finished += p.doneWarps*(end+1) - p.doneAcct
		lp.Unbalanced += p.unbalanced
		for fn, counts := range p.insts {
			sum, ok := lp.Insts[fn]
			if !ok {
				lp.Insts[fn] = counts
				continue
			}
			for i := range counts {
				sum[i].Add(&counts[i])
			}
		}
	}
	lp.NotResident += uint64(r.Grid.Pending()) * uint64(r.WarpsPerCTA) * lp.Cycles
	return lp
}
