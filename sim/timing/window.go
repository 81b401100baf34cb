package timing

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/internal/workpool"
	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// windowEngine runs a GPU's SMs and its memory system in parallel through
// windows of time, with the same figures for any number of threads
// (Builder.WithThreads; the package comment says how, under The window
// engine).
//
// Each SM, with its L1, is a domain on an engine of its own, and the L2
// side (slices, atomic units, DRAM channels) is one more
// (memsys.Builder.WithDomains). A window of W cycles runs every domain
// that has events in it, concurrently, up to its end; then, with every
// domain standing still, the window's end seals the messages between the
// SMs' domains and the L2 side's (memsys.System.EndWindow; their
// receivers take them at the start of the next window's tasks), frees the
// resources of the CTAs that retired in it and dispatches waiting CTAs, in
// the order of those retirements, stops the launch on the earliest error,
// and runs the deadlock detector. No domain can affect another within a
// window:
//
//   - a message between an SM and the L2 side takes at least W cycles
//     (memsys.System.MinCrossingCycles);
//   - a CTA placed at a window's end issues no earlier than
//     cta_launch_cycles after the retirement that freed its slot, which
//     is at least W;
//   - global memory values are split-phase (exec's split mode): a warp's
//     global loads, stores and atomics are logged when they issue, and
//     the window engine applies every SM's log to the memory image in the
//     order the serial engine would have issued them (cycle, then the
//     SMs' order of that cycle, then each SM's own order, with the L1s'
//     changes of lines for memory.coherence l1 after the SMs' ticks of
//     their cycle), while the next window runs (before it, when it begins
//     after a jump past the cycle from which those values could be
//     read). A load's results are not ready before valueLatency cycles
//     after it issued, the fewest an L1 hit takes, and a window is at
//     most half of that, so the values are in the registers before any
//     instruction can read them.
//
// Between busy stretches the engine jumps to the next event.
type windowEngine struct {
	g       *GPU
	threads int
	// mems are the L2 side's domains (memsys.Builder.WithL2Domains):
	// mems[0] is domain 0, mems[j] domain len(sms)+j.
	mems []*serialEngine
	sms  []*serialEngine // each SM's domain, 1+i

	// window is W, in cycles, and valueLatency the cycles from a load's
	// issue before its values may be read (sized at the first launch).
	window, valueLatency uint64

	// The launch in progress.
	r    *launchRun
	grid *exec.Grid
	vals *memsys.L1Values // memory.coherence l1's values (nil: ideal)
	// infoRows remembers, per function, the register rows its instruction
	// information was computed for.
	infoRows map[*ptx.Function][]int32

	// The last window's operations and L1 changes, per SM, waiting to be
	// applied (merge), and the cycle that window began.
	pend   []*exec.OpLog
	pendEv [][]memsys.L1Event
	// logged and loggedEv are this window's, which its SMs' tasks fill.
	logged    []*exec.OpLog
	loggedEv  [][]memsys.L1Event
	pendFrom  uint64
	pendAny   bool
	spareLogs []*exec.OpLog
	spareEv   [][]memsys.L1Event
	active    []int // the SMs with something in pend or pendEv, ascending
	merged    bool  // the merge has applied pend (recycle)
	pendOps   int   // the operations and L1 changes in pend
	// parts are the merge's parts of memory (mergeParts), each applied
	// by a task of its own once seqReady says the sequence is dealt.
	parts    []mergePart
	seqReady atomic.Bool
	// changed says, per SM and operation of its log in pend, whether the
	// merge found that it changed memory: for every operation while the
	// GPU profiles (smProf.resolve), else for those dealt into several
	// parts, so that each counts once (mergeItem.multi).
	changed [][]atomic.Bool
	// smEnds are what each SM's task left for the window's end (noteEnd).
	smEnds []smEnd
	// mergeSequence's buckets: where each cycle's operations and L1
	// changes start in opOrder and evOrder.
	opStart, evStart []int32
	opOrder, evOrder []logRef
	laneBuf          [64]uint32

	pool    workpool.Pool
	tasks   []int // this window's tasks: the merge's (taskMergeAll, ...) or a domain
	ran     []int // the domains that ran in it, ascending
	retired []retirementAt

	// nextAt is each domain's next event cycle (never: none), kept up to
	// date after each run and each window's end (between: the engines'
	// events are queued by the window's end or a launch's start, and
	// touched lists the domains they went to).
	nextAt    []uint64
	busy      []int // the domains whose nextAt is not never, in no order
	busyAt    []int // each domain's index in busy (-1: none)
	between   bool
	touched   []int
	isTouched []bool
	// exchanging: the exchange's tasks run, each queueing events on its
	// own domains, which exTouched records until the exchange is done.
	exchanging bool
	exTouched  []bool
	// receivers are the domains that received messages or credits in
	// the last window (memsys.System.EndWindow), receiving says they have
	// not taken them yet, and receives[d] that domain d takes them at the
	// start of its task in the window running.
	receivers []int
	receiving bool
	receives  []bool
}

// The merge's tasks: taskMergeSequence orders the last window's log and
// deals it into parts (mergeSequence), mergeTask(k) applies part k once
// that is done (mergePart), and taskMergeAll does both for every part.
const (
	taskMergeAll      = math.MinInt
	taskMergeSequence = math.MinInt + 1
)

// mergeTask is the task of merge part k, and the part of such a task.
func mergeTask(k int) int { return -1 - k }

// mergeParts is how many parts of memory the merge applies separately:
// L1Values' parts under memory.coherence l1 (by line), as many by line
// without it.
const mergeParts = memsys.ValueParts

// l2Groups is how many domains the L2 side's slices are dealt into (at
// most one per slice). It is fixed, not chosen by the thread count, since
// it sets the order of ties between the slices' messages.
const l2Groups = 16

// markInvalidateL1 is the marker an SM logs (exec.Shard.Mark) where a
// fence empties its L1, so that memory.coherence l1's values forget the
// L1's copies at that point of the SM's order.
const markInvalidateL1 = 1

func newWindowEngine(g *GPU, threads int, mems, sms []*serialEngine) *windowEngine {
	n := len(sms)
	domains := n + len(mems)
	we := &windowEngine{
		g: g, threads: threads, mems: mems, sms: sms,
		nextAt:    make([]uint64, domains),
		isTouched: make([]bool, domains),
		exTouched: make([]bool, domains),
		receives:  make([]bool, domains),
		infoRows:  map[*ptx.Function][]int32{},
		pend:      make([]*exec.OpLog, n),
		pendEv:    make([][]memsys.L1Event, n),
		logged:    make([]*exec.OpLog, n),
		loggedEv:  make([][]memsys.L1Event, n),
		spareLogs: make([]*exec.OpLog, n),
		spareEv:   make([][]memsys.L1Event, n),
		parts:     make([]mergePart, mergeParts),
		smEnds:    make([]smEnd, n),
	}
	for j, e := range mems {
		e.domain, e.touched = 0, we.touch
		if j > 0 {
			e.domain = n + j
		}
	}
	for i, e := range sms {
		e.domain, e.touched = i+1, we.touch
	}
	we.busyAt = make([]int, domains)
	for d := range we.busyAt {
		we.busyAt[d] = -1
	}
	return we
}

// track keeps domain d in busy, the domains with events, or out of it,
// after its nextAt changed.
func (we *windowEngine) track(d int) {
	switch at := we.busyAt[d]; {
	case we.nextAt[d] == never && at >= 0:
		last := we.busy[len(we.busy)-1]
		we.busy[at], we.busyAt[last] = last, at
		we.busy = we.busy[:len(we.busy)-1]
		we.busyAt[d] = -1
	case we.nextAt[d] != never && at < 0:
		we.busyAt[d] = len(we.busy)
		we.busy = append(we.busy, d)
	}
}

// touch hears of an event queued on a domain's engine: outside the
// windows' runs (the window's end, a launch's start), the domain's next
// event may have moved.
func (we *windowEngine) touch(e *serialEngine) {
	switch {
	case !we.between:
	case we.exchanging:
		we.exTouched[e.domain] = true
	case !we.isTouched[e.domain]:
		we.isTouched[e.domain] = true
		we.touched = append(we.touched, e.domain)
	}
}

// exchange ends the window at cycle end in the memory system
// (memsys.System.EndWindow): the domains that received messages or
// credits in it take them at the start of their tasks in the next window
// when it follows at once, else between the windows (receiveAll).
func (we *windowEngine) exchange(end uint64) {
	g := we.g
	we.receivers = g.mem.EndWindow(sim.VTimeInSec(float64(end-1)/float64(g.freq)), end, we.ran)
	we.receiving = len(we.receivers) > 0
}

// receiveAll has the last window's receivers take what they received,
// on the pool, before the engine jumps past the cycle the window ended
// at: their next events may come before any other domain's.
func (we *windowEngine) receiveAll() {
	we.exchanging = true
	we.g.mem.ReceiveAll(we.runExchange)
	we.exchanging = false
	we.receiving = false
	for d, t := range we.exTouched {
		if t {
			we.exTouched[d] = false
			we.refresh(d)
			we.track(d)
		}
	}
}

// runExchange runs the exchange's tasks, on the pool where there are
// enough of them to pay for waking it, each first on the worker of its
// domain's window tasks (ownerOf), whose core's caches hold the state it
// changes and which its next window reads.
func (we *windowEngine) runExchange(domains []int, task func(int)) {
	if we.threads <= 1 || len(domains) < minExchangeTasks {
		for i := range domains {
			task(i)
		}
		return
	}
	we.pool.DoOwned(len(domains), task, func(i int) int { return we.ownerOf(domains[i]) })
}

// minExchangeTasks is the fewest tasks of an exchange step worth the pool.
const minExchangeTasks = 4

// engine is domain d's engine.
func (we *windowEngine) engine(d int) *serialEngine {
	if sm, ok := we.smOf(d); ok {
		return we.sms[sm]
	}
	if d == 0 {
		return we.mems[0]
	}
	return we.mems[d-len(we.sms)]
}

// smOf is the SM whose domain is d, if d is an SM's.
func (we *windowEngine) smOf(d int) (int, bool) {
	return d - 1, d >= 1 && d <= len(we.sms)
}

// refresh updates domain d's next event cycle.
func (we *windowEngine) refresh(d int) {
	we.nextAt[d] = never
	if t, ok := we.engine(d).nextTime(); ok {
		we.nextAt[d] = we.g.freq.Cycle(t)
	}
}

// UnsupportedError is what the window engine (Builder.WithThreads) does
// not yet simulate: a setting, or a use of the GPU.
type UnsupportedError struct {
	// What names it ("profiles", "memory.l2_model akita_writeback").
	What string
}

func (e *UnsupportedError) Error() string {
	return "the parallel timing engine does not yet support " + e.What
}

// windowSupported reports, as an *UnsupportedError, what the window
// engine cannot simulate with these settings.
func (b Builder) windowSupported() error {
	switch {
	case b.parallel:
		return &UnsupportedError{"akita's parallel engine"}
	case b.memory.L1Model != "" && b.memory.L1Model != memsys.L1Sectored:
		return &UnsupportedError{"memory.l1_model " + b.memory.L1Model}
	case b.memory.L2Model != "" && b.memory.L2Model != memsys.L2Sectored:
		return &UnsupportedError{"memory.l2_model " + b.memory.L2Model}
	}
	return nil
}

// check reports, as an *UnsupportedError, a launch the window engine
// cannot run: one with hooks on the engine or an SM (a tracer, a
// monitor), whose events it does not report.
func (we *windowEngine) check() error {
	hooked := we.g.engine.NumHooks() > 0
	for _, s := range we.g.sms {
		hooked = hooked || s.NumHooks() > 0
	}
	if hooked {
		return &UnsupportedError{"hooks (a tracer or a monitor)"}
	}
	return nil
}

// size computes the window and the values' latency from the
// configuration (see windowEngine).
func (we *windowEngine) size() {
	g := we.g
	// A load issued at cycle c is sent from c + GlobalLoad.Latency on, an
	// L1 hit is delivered L1HitCycles after its lookup, and the SM takes
	// it the cycle after.
	we.valueLatency = uint64(g.cfg.GlobalLoad.Latency) + uint64(math.Floor(g.mem.L1HitCycles())) + 1
	w := we.valueLatency / 2
	w = min(w, max(uint64(g.cfg.CTALaunchCycles), 1))
	w = min(w, uint64(math.Floor(g.mem.MinCrossingCycles())))
	we.window = max(w, 1)
}

// Window is the window engine's window in cycles (0 under another engine),
// once a launch has sized it.
func (g *GPU) Window() uint64 {
	if g.window == nil {
		return 0
	}
	return g.window.window
}

// begin prepares a launch of prog (Run calls it before the first dispatch)
// and returns its first cycle: the cycle after every domain's last event.
func (we *windowEngine) begin(r *launchRun, prog *exec.Program) uint64 {
	g := we.g
	if we.window == 0 {
		we.size()
	}
	we.r, we.grid = r, r.Grid
	r.Grid.Split(len(g.sms))
	// The scoreboard counts register-file rows, which registers whose
	// live ranges never meet share: a load's values arrive after it
	// issued, and must not land in a row a later register uses meanwhile.
	prog.Reachable(func(fn *ptx.Function) {
		rows := prog.Rows(fn)
		if old, ok := we.infoRows[fn]; ok && len(old) == len(rows) && (len(rows) == 0 || &old[0] == &rows[0]) {
			return
		}
		we.infoRows[fn] = rows
		g.infos[fn] = analyseRows(fn, rows)
	})
	if g.profile {
		// The SMs read it at once.
		prog.Reachable(func(fn *ptx.Function) { g.clockReadsOf(fn) })
	}
	we.between = true
	we.vals = g.mem.L1Values()
	if we.vals != nil {
		for i := range g.sms {
			we.vals.InvalidateSM(i)
		}
	}
	we.pendAny = false
	start := uint64(0)
	for _, e := range we.mems {
		start = max(start, g.freq.Cycle(e.CurrentTime()))
	}
	for _, e := range we.sms {
		start = max(start, g.freq.Cycle(e.CurrentTime()))
	}
	return start + 1
}

// analyseRows is analyse with every register replaced by its row
// (exec.Program.Rows), except the destinations of global loads and
// atomics that nothing reads afterwards (ptx.Function.DeadDefs), which
// the executor does not write when the grid is split: a row they share
// with a later register would otherwise hold that register back until the
// load's values arrived. Such a destination r keeps an entry of its own in
// the scoreboard, past the rows (NumRegs + r), which every instruction
// that writes r waits for too, as the serial engine's scoreboard of
// registers makes it (where an entry does not fit, the wait is left out).
func analyseRows(fn *ptx.Function, rows []int32) []instInfo {
	infos := analyse(fn)
	if rows == nil {
		return infos
	}
	dead := fn.DeadDefs()
	late := func(x *instInfo) bool { return x.cls == clsGlobalLoad || x.cls == clsGlobalAtomic }
	own := map[ptx.RegIndex]bool{} // registers that are a late, dead destination somewhere
	for i := range infos {
		in := &fn.Insts[i]
		for j := 0; j < int(in.NDst) && j < len(in.Dst); j++ {
			if o := in.Dst[j]; o.Kind == ptx.OperandReg && late(&infos[i]) && dead[i]&(1<<j) != 0 {
				own[o.Reg] = true
			}
		}
	}
	for i := range infos {
		x := &infos[i]
		for j := 0; j < int(x.nsrc); j++ {
			x.src[j] = ptx.RegIndex(rows[x.src[j]])
		}
		in := &fn.Insts[i]
		var dst [8]ptx.RegIndex
		n := 0
		add := func(r ptx.RegIndex) {
			for k := range n {
				if dst[k] == r {
					return
				}
			}
			dst[n] = r
			n++
		}
		for j := 0; j < int(in.NDst) && j < len(in.Dst); j++ {
			if o := in.Dst[j]; o.Kind == ptx.OperandReg && !(late(x) && dead[i]&(1<<j) != 0) {
				add(ptx.RegIndex(rows[o.Reg]))
			}
		}
		for j := 0; j < int(in.NDst) && j < len(in.Dst); j++ {
			if o := in.Dst[j]; o.Kind == ptx.OperandReg && own[o.Reg] {
				add(ptx.RegIndex(fn.NumRegs) + o.Reg)
			}
		}
		x.ndst = uint8(min(n, len(x.dst)))
		copy(x.dst[:], dst[:x.ndst])
	}
	return infos
}

// nextCycle is the cycle of the earliest event of any domain (never:
// none).
func (we *windowEngine) nextCycle() uint64 {
	next := uint64(never)
	for _, d := range we.busy {
		next = min(next, we.nextAt[d])
	}
	return next
}

// run runs the launch's windows until no domain has events left.
func (we *windowEngine) run() {
	g := we.g
	if we.threads > 1 {
		we.pool.Start(we.threads - 1)
		defer we.pool.Stop()
	}
	for d := range we.nextAt {
		we.refresh(d)
		we.track(d)
	}
	we.clearTouched()
	t := we.r.startCycle
	for {
		next := we.nextCycle()
		if we.receiving && next > t {
			// No domain's own events follow the last window at once:
			// what the receivers take may.
			we.receiveAll()
			next = we.nextCycle()
		}
		if next == never {
			break
		}
		t = max(t, next)
		end := t + we.window
		endTime := sim.VTimeInSec(float64(end) / float64(g.freq))
		if we.pendAny && end > we.pendFrom+we.valueLatency {
			// The next window could read what the last one logged.
			we.merge()
			we.recycle()
		}
		// The domains with events in the window, ascending (a pass over
		// every domain costs less than sorting busy's), and the last
		// window's receivers, which take what they received first.
		we.ran = we.ran[:0]
		if we.receiving {
			for _, d := range we.receivers {
				we.receives[d] = true
			}
		}
		for d, at := range we.nextAt {
			if at < end || we.receives[d] {
				we.ran = append(we.ran, d)
			}
		}
		// The tasks, the longest first (the merge's sequencing, the L2
		// groups'), so that the SMs' fill in around them; a large
		// merge's parts last, by when its sequence is ready.
		we.tasks = we.tasks[:0]
		split := we.pendAny && we.pendOps >= smallMerge && we.threads > 1
		switch {
		case split:
			we.seqReady.Store(false)
			we.tasks = append(we.tasks, taskMergeSequence)
		case we.pendAny:
			we.tasks = append(we.tasks, taskMergeAll)
		}
		for _, d := range we.ran {
			if _, ok := we.smOf(d); !ok {
				we.tasks = append(we.tasks, d)
			}
		}
		for _, d := range we.ran {
			if _, ok := we.smOf(d); ok {
				we.tasks = append(we.tasks, d)
			}
		}
		if split {
			for k := range we.parts {
				we.tasks = append(we.tasks, mergeTask(k))
			}
		}
		we.between = false
		we.runTasks(endTime)
		if we.receiving {
			for _, d := range we.receivers {
				we.receives[d] = false
			}
			we.receiving = false
		}
		if we.pendAny && !we.merged {
			we.mergeDone()
		}
		we.between = true
		for _, d := range we.ran {
			we.track(d)
		}
		we.recycle()
		we.endWindow(t, end)
		we.probe(end)
		for _, d := range we.touched {
			we.refresh(d)
			we.track(d)
		}
		we.clearTouched()
		t = end
	}
	if we.pendAny {
		we.merge()
		we.recycle()
	}
}

// probe calls the launch's Probe (Launch.Probe) at the end of the window
// ending at end, when its interval is due: with every domain standing
// still, the SMs' counts are the grid's, and the changes are those of the
// windows applied so far (all but this one). A stop halts every SM from
// the next window on; the windows go on until the requests in flight
// have drained, and run's last merge applies the rest of the log.
func (we *windowEngine) probe(end uint64) {
	r := we.r
	last := end - 1
	if r.Probe == nil || r.stopped || last < r.nextProbe {
		return
	}
	r.nextProbe = last + r.ProbeCycles
	warp, _ := we.grid.Instructions()
	if r.Probe(Progress{Cycles: last - r.startCycle, WarpInsts: warp, Changes: we.grid.Changes()}) {
		r.stopped, r.probeStop = true, last
	}
}

func (we *windowEngine) clearTouched() {
	for _, d := range we.touched {
		we.isTouched[d] = false
	}
	we.touched = we.touched[:0]
}

// runTasks runs this window's tasks up to time end, on the pool's
// goroutines and this one.
func (we *windowEngine) runTasks(end sim.VTimeInSec) {
	do := func(i int) {
		d := we.tasks[i]
		switch {
		case d == taskMergeAll:
			we.mergeSequence()
			for k := range we.parts {
				we.mergePart(k)
			}
			return
		case d == taskMergeSequence:
			we.mergeSequence()
			we.seqReady.Store(true)
			return
		case d < 0:
			for !we.seqReady.Load() {
				runtime.Gosched()
			}
			we.mergePart(mergeTask(d))
			return
		}
		if we.receives[d] {
			we.g.mem.Receive(d)
		}
		we.engine(d).runBefore(end)
		we.refresh(d)
		we.g.mem.SealDomain(d)
		if sm, ok := we.smOf(d); ok {
			we.takeLog(sm)
			we.noteEnd(sm)
		}
	}
	if we.threads <= 1 || len(we.tasks) == 1 || len(we.tasks) == 2 && we.tasks[0] == taskMergeAll {
		// One task, or one beside a small merge: waking a helper would
		// cost more than it saves.
		for i := range we.tasks {
			do(i)
		}
		return
	}
	we.pool.DoOwned(len(we.tasks), do, we.taskOwner)
}

// taskOwner is the worker (0: the caller, i+1: helper i) that runs task i
// of the window first: a domain keeps its worker from window to window,
// so that its state (an SM's warps, scoreboards and L1; a group of L2
// slices) stays in that worker's core's caches rather than moving to
// whichever core takes it next. The merge's sequencing goes to the caller,
// its parts are dealt round robin.
func (we *windowEngine) taskOwner(i int) int {
	d := we.tasks[i]
	switch {
	case d == taskMergeAll || d == taskMergeSequence:
		return 0
	case d < 0:
		return mergeTask(d) % we.threads
	}
	return we.ownerOf(d)
}

// ownerOf is domain d's worker: the L2 side's groups one per worker from
// the caller on, the SMs dealt from the last worker down, so that the
// caller, which also orders the merge, has as few as any.
func (we *windowEngine) ownerOf(d int) int {
	if sm, ok := we.smOf(d); ok {
		return we.threads - 1 - sm%we.threads
	}
	if d == 0 {
		return 0
	}
	return (d - len(we.sms)) % we.threads
}

// smallMerge is the most operations and L1 changes a merge may apply for
// the window engine to run it on the goroutine of the window's only other
// task.
const smallMerge = 64

// endWindow does what the end of the window [from, end) does with every
// domain standing still (see windowEngine).
func (we *windowEngine) endWindow(from, end uint64) {
	g, r := we.g, we.r
	// What the window logged (takeLog) waits to be applied while the
	// next runs.
	we.pend, we.logged = we.logged, we.pend
	we.pendEv, we.loggedEv = we.loggedEv, we.pendEv
	we.pendOps = 0
	for _, d := range we.ran {
		if i, ok := we.smOf(d); ok && (we.pend[i] != nil || we.pendEv[i] != nil) {
			we.active = append(we.active, i) // ran lists SMs ascending
			we.pendAny = true
			we.pendOps += we.smEnds[i].logged
		}
	}
	we.pendFrom = from
	if g.profile {
		for _, d := range we.ran {
			if i, ok := we.smOf(d); ok {
				g.sms[i].prof.endWindow()
			}
		}
	}
	we.exchange(end)

	// Retirements, in the order the serial engine would have made them.
	rs := we.retired[:0]
	for _, d := range we.ran {
		i, ok := we.smOf(d)
		if !ok || !we.smEnds[i].retired {
			continue
		}
		s := g.sms[i]
		for _, x := range s.retired {
			rs = append(rs, retirementAt{retirement: x, sm: s})
		}
		clear(s.retired)
		s.retired = s.retired[:0]
	}
	if len(rs) > 0 {
		sort.SliceStable(rs, func(i, j int) bool {
			a, b := &rs[i], &rs[j]
			if a.cycle != b.cycle {
				return a.cycle < b.cycle
			}
			return a.sm.tieRank(a.cycle) < b.sm.tieRank(b.cycle)
		})
		for _, x := range rs {
			x.sm.release(x.cta)
			g.ctaDone(x.cycle)
		}
		clear(rs)
	}
	we.retired = rs[:0]

	// The SMs' progress (exec.Grid.TakeProgress) for the deadlock
	// detector, and the earliest error of the window, which stops the
	// launch.
	var first *SM
	ticked, last, progress := false, uint64(0), uint64(0)
	for _, d := range we.ran {
		i, ok := we.smOf(d)
		if !ok {
			continue
		}
		e := &we.smEnds[i]
		progress += e.progress
		if e.failed && !r.stopped {
			s := g.sms[i]
			if first == nil || s.errCycle < first.errCycle ||
				s.errCycle == first.errCycle && s.tieRank(s.errCycle) < first.tieRank(first.errCycle) {
				first = s
			}
		}
		if e.ticked {
			ticked, last = true, max(last, e.tickedLast)
		}
	}
	we.grid.AddProgress(progress)
	if first != nil {
		g.fail(first.err)
	}
	if ticked && !r.stopped {
		if err := r.ctx.Err(); err != nil {
			msg := fmt.Sprintf("kernel %s stopped at cycle %d, %d of %d CTAs finished", r.kernel, last-r.startCycle, r.finished, r.Grid.CTAs())
			g.fail(r.watch.Stopped(last, "cycles", msg, err, g.describe))
			return
		}
		if r.watch.Stuck(last) {
			g.fail(r.watch.Livelock(last, "cycles", fmt.Sprintf("at cycle %d of the launch; %s", last-r.startCycle, g.describe())))
		}
	}
}

// takeLog takes what SM i logged in the window it just ran (its task
// calls it): its operations and its L1's changes, into logged and
// loggedEv, which the window's end hands to the merge.
func (we *windowEngine) takeLog(i int) {
	s := we.g.sms[i]
	if s.shard.Len() > 0 {
		we.logged[i] = s.shard.TakeLog(we.spareLogs[i])
		we.spareLogs[i] = nil
	}
	if we.vals != nil {
		if ev := we.g.mem.TakeL1Events(i, we.spareEv[i]); len(ev) > 0 {
			we.loggedEv[i] = ev
			we.spareEv[i] = nil
		} else {
			we.spareEv[i] = ev
		}
	}
}

// smEnd is what an SM's task leaves for the window's end, which reads it
// for every SM that ran from one dense array and touches an SM's own
// state only where there is something to do there: the SM's state was
// last written on another core.
type smEnd struct {
	logged     int    // operations and L1 changes taken into logged
	progress   uint64 // progress of the window (exec.Grid.TakeProgress)
	tickedLast uint64 // the SM's last tick of the window, when ticked
	retired    bool   // CTAs retired in the window (SM.retired)
	failed     bool   // a warp met an error (SM.err)
	ticked     bool   // the SM ticked in the window
}

// noteEnd records SM i's smEnd at the end of its task; the SM stands
// still until the next window.
func (we *windowEngine) noteEnd(i int) {
	s := we.g.sms[i]
	e := smEnd{
		progress: we.grid.TakeProgress(i),
		retired:  len(s.retired) > 0,
		failed:   s.err != nil,
		ticked:   s.tickedWin,
	}
	if l := we.logged[i]; l != nil {
		e.logged = l.Len()
	}
	e.logged += len(we.loggedEv[i])
	if s.tickedWin {
		e.tickedLast = s.tickedLast
		s.tickedWin = false
	}
	we.smEnds[i] = e
}

// retirementAt is a retirement with its SM.
type retirementAt struct {
	retirement
	sm *SM
}

// mergePart is one part's share of a merge: what it applies, in order,
// and how many of its operations changed its memory.
type mergePart struct {
	items   []mergeItem
	changes uint64
	_       [64]byte // apart from the next part's, on another cache line
}

// mergeItem is an entry of a part's sequence: operation i of SM sm's log,
// an invalidation of its L1 (i < 0 and ev false), or its L1 change i (ev).
type mergeItem struct {
	sm    int32
	i     int32
	lanes uint32 // an operation's lanes in the part
	ev    bool
	// multi: the operation's lanes are in several parts.
	multi bool
}

// merge applies the operations and L1 changes the last window logged
// (pend), the parts on the pool when there is enough to share.
func (we *windowEngine) merge() {
	we.mergeSequence()
	if we.threads <= 1 || we.pendOps < smallMerge {
		for k := range we.parts {
			we.mergePart(k)
		}
	} else {
		we.pool.Do(len(we.parts), we.mergePart)
	}
	we.mergeDone()
}

// mergeDone ends a merge whose parts are applied: their changes count as
// progress.
func (we *windowEngine) mergeDone() {
	n := uint64(0)
	for k := range we.parts {
		n += we.parts[k].changes
		we.parts[k].changes = 0
	}
	we.grid.NoteChanges(n)
	we.merged = true
	for _, sm := range we.active {
		bits := we.changed[sm]
		if we.g.profile {
			we.g.sms[sm].prof.resolve(func(i int) bool { return bits[i].Swap(false) })
		} else if log := we.pend[sm]; log != nil {
			clear(bits[:log.Len()])
		}
	}
}

// mergeSequence deals what the last window logged (pend) into the parts'
// sequences, in the serial engine's order: cycle by cycle, the SMs' ticks
// of the cycle in their order of that cycle (SM.tieRank), each SM's
// operations in its order, then the L1s' changes of lines (made by the
// fabric's deliveries of the cycle, after every tick; each L1's concern
// only its own SM's copies). An operation goes to the parts its lanes'
// addresses are in, an L1 change to its line's, an invalidation to all.
// Operations on different lines commute, so the parts, each applying the
// lanes and lines of its own in that order, may run at once, and together
// do what applying the whole log in that order does.
func (we *windowEngine) mergeSequence() {
	n := len(we.pend)
	for k := range we.parts {
		we.parts[k].items = we.parts[k].items[:0]
	}
	shift, mask := uint(mergePartShift), uint64(mergeParts-1)
	if we.vals != nil {
		shift, mask = we.vals.PartShift(), we.vals.PartMask()
	}
	active := we.active // ascending
	if we.changed == nil {
		we.changed = make([][]atomic.Bool, n)
	}
	for _, sm := range active {
		if log := we.pend[sm]; log != nil && len(we.changed[sm]) < log.Len() {
			we.changed[sm] = make([]atomic.Bool, 2*log.Len())
		}
	}
	// Bucket every operation and L1 change by its cycle (a counting sort:
	// each cycle's operations come SM by SM in ascending order, each SM's
	// in its own order), then walk the cycles.
	w := int(we.window)
	if cap(we.opStart) < w+1 {
		we.opStart = make([]int32, w+1)
		we.evStart = make([]int32, w+1)
	}
	opStart, evStart := we.opStart[:w+1], we.evStart[:w+1]
	clear(opStart)
	clear(evStart)
	slot := func(c uint64) int {
		if c < we.pendFrom || c >= we.pendFrom+we.window {
			panic(fmt.Sprintf("timing: an operation or L1 change at cycle %d, outside its window from %d", c, we.pendFrom))
		}
		return int(c - we.pendFrom)
	}
	for _, sm := range active {
		if log := we.pend[sm]; log != nil {
			for i := range log.Len() {
				opStart[slot(log.Cycle(i))+1]++
			}
		}
		for i := range we.pendEv[sm] {
			evStart[slot(we.pendEv[sm][i].Cycle)+1]++
		}
	}
	for c := range w {
		opStart[c+1] += opStart[c]
		evStart[c+1] += evStart[c]
	}
	we.opOrder = slices.Grow(we.opOrder[:0], int(opStart[w]))[:opStart[w]]
	we.evOrder = slices.Grow(we.evOrder[:0], int(evStart[w]))[:evStart[w]]
	for _, sm := range active {
		if log := we.pend[sm]; log != nil {
			for i := range log.Len() {
				c := slot(log.Cycle(i))
				we.opOrder[opStart[c]] = logRef{sm: int32(sm), i: int32(i)}
				opStart[c]++
			}
		}
		for i := range we.pendEv[sm] {
			c := slot(we.pendEv[sm][i].Cycle)
			we.evOrder[evStart[c]] = logRef{sm: int32(sm), i: int32(i)}
			evStart[c]++
		}
	}
	// opStart[c] and evStart[c] are now where cycle c's entries end.
	opFrom, evFrom := int32(0), int32(0)
	for c := range w {
		ops := we.opOrder[opFrom:opStart[c]]
		evs := we.evOrder[evFrom:evStart[c]]
		opFrom, evFrom = opStart[c], evStart[c]
		// The SMs' ticks of the cycle, SM cycle mod n first.
		first := int32((we.pendFrom + uint64(c)) % uint64(n))
		at, _ := slices.BinarySearchFunc(ops, first, func(r logRef, sm int32) int { return cmp.Compare(r.sm, sm) })
		for j := range ops {
			r := ops[(at+j)%len(ops)]
			sm, i := int(r.sm), int(r.i)
			log := we.pend[sm]
			if tag, ok := log.Mark(i); ok {
				if tag == markInvalidateL1 && we.vals != nil {
					for k := range we.parts {
						we.parts[k].items = append(we.parts[k].items, mergeItem{sm: r.sm, i: -1})
					}
				}
				continue
			}
			m := log.SplitLanes(i, shift, mask, &we.laneBuf)
			multi := m&(m-1) != 0
			for ; m != 0; m &= m - 1 {
				k := bits.TrailingZeros64(m)
				we.parts[k].items = append(we.parts[k].items, mergeItem{sm: r.sm, i: r.i, lanes: we.laneBuf[k], multi: multi})
				we.laneBuf[k] = 0
			}
		}
		// Then the deliveries of the cycle.
		for _, r := range evs {
			k := we.vals.EventPart(&we.pendEv[r.sm][r.i])
			we.parts[k].items = append(we.parts[k].items, mergeItem{sm: r.sm, i: r.i, ev: true})
		}
	}
}

// logRef is an operation or L1 change of an SM's log in pend.
type logRef struct{ sm, i int32 }

// mergePart applies part k's sequence (mergeSequence).
func (we *windowEngine) mergePart(k int) {
	mp := &we.parts[k]
	var l1 exec.L1
	var view *memsys.L1ValuesPart
	if we.vals != nil {
		view = we.vals.Part(k)
		l1 = view
	}
	for _, it := range mp.items {
		sm := int(it.sm)
		switch {
		case it.ev:
			view.Replay(sm, &we.pendEv[sm][it.i])
		case it.i < 0:
			view.InvalidateSM(sm)
		default:
			if !we.grid.ApplyOpLanes(we.pend[sm], int(it.i), it.lanes, l1) {
				break
			}
			switch {
			case it.multi:
				// Counted by the first of its parts to find it changed.
				if !we.changed[sm][it.i].Swap(true) {
					mp.changes++
				}
			case we.g.profile:
				we.changed[sm][it.i].Store(true)
				mp.changes++
			default:
				mp.changes++
			}
		}
	}
}

// mergePartShift is the granule of the merge's parts without L1 values:
// a line of 128 bytes, which no access crosses.
const mergePartShift = 7

// recycle keeps the logs the merge applied for the SMs' next windows; the
// window's end calls it (the merge runs beside SMs' tasks, which take their
// spare logs).
func (we *windowEngine) recycle() {
	if !we.merged {
		return
	}
	for _, sm := range we.active {
		if log := we.pend[sm]; log != nil {
			we.spareLogs[sm], we.pend[sm] = log, nil
		}
		if evs := we.pendEv[sm]; evs != nil {
			we.spareEv[sm], we.pendEv[sm] = evs[:0], nil
		}
	}
	we.active = we.active[:0]
	we.merged, we.pendAny = false, false
}
