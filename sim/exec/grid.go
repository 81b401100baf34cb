package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Launch describes one kernel launch to the executor.
type Launch struct {
	// Grid and Block are the extents (each at least 1).
	Grid, Block [3]int
	// DynamicShared is the dynamic shared memory per CTA in bytes.
	DynamicShared int
	// Params is the packed parameter buffer (kernels.Kernel.PackArgs).
	Params []byte
	// SMs is %nsmid; WarpSlotsPerSM is %nwarpid; GridID is %gridid.
	SMs, WarpSlotsPerSM int
	GridID              uint64
	// Clock, when set, supplies %clock and %clock64 (a timing model's
	// cycle count). By default the clock is the number of warp-
	// instructions the grid has executed: monotonic and deterministic.
	Clock func() uint64
	// IndependentThreads selects Volta's independent thread scheduling
	// (compute capability 7.0 and later; its.go) over the pre-Volta
	// reconvergence stack alone.
	IndependentThreads bool
	// Parts, when set, makes the launch a co-launch: the same kernel on
	// several devices at once, device d with Parts[d] (its parameters and
	// its memory, made by NewMemoryOf(d, ...)) and a grid of Grid's extent,
	// its CTAs on SMs d×SMs to (d+1)×SMs−1 of the grid's (%smid and
	// %nsmid stay the device's own). Any device's warps reach every
	// device's memory by its addresses. NewGrid's mem and Params are then
	// unused (pass nil).
	Parts []LaunchPart
}

// LaunchPart is one device's share of a co-launch (Launch.Parts).
type LaunchPart struct {
	Params []byte
	Memory *Memory
}

// Grid is one launch in execution: the CTAs not yet dispatched, counters,
// and pools of CTA state (registers, shared and local memory) reused as
// CTAs finish, so memory grows with the resident CTAs, not the grid.
type Grid struct {
	prog *Program
	mem  *Memory
	L    Launch
	// scratch is the warps' scratch rows: a grid steps one warp at a time.
	scratch warpScratch
	// warm is RunOptions.Warm while a run in order warms the L2, and
	// warmAcc and warmAddr the access it is handed (accessed).
	warm       func(acc *MemAccess)
	warmPartOf func(addr uint64) int
	// warmGroups is how many groups a run in rounds files its warm's
	// accesses under (Shard.noteWarm): the pool's workers, or 1.
	warmGroups int
	warmAcc    MemAccess
	warmAddr   [WarpSize]uint64
	// roundInsts and roundChanges are WarpInsts and the change count as
	// the last round in rounds began (LastRound).
	roundInsts, roundChanges uint64

	ctas int // CTAs in the grid
	next int // CTAs dispatched
	// parts are the devices' parameters and memories (Launch.Parts, or
	// one part of NewGrid's mem and Launch.Params), each with perPart
	// CTAs, of which nextOf[d] are dispatched.
	parts        []LaunchPart
	perPart      int
	nextOf       []int
	warpsPerCTA  int
	threadsInCTA int
	sharedSize   int
	localStride  int

	// WarpInsts and ThreadInsts count executed warp-instructions and
	// thread-instructions (active lanes summed over warp-instructions).
	WarpInsts, ThreadInsts uint64
	// GlobalAtomics counts the lane operations of atom and red on global
	// memory in functional runs (a timing model counts its own).
	GlobalAtomics uint64
	// Finished counts the CTAs that completed.
	Finished int

	// epoch changes whenever the launch makes progress (see Watchdog): a
	// store or atomic that changed memory, a CTA starting, a warp or CTA
	// finishing.
	epoch uint64
	// changes counts the instructions that changed memory (Changes).
	changes uint64
	pool    []*CTA
	// l1, when set, serves weak global loads from the SMs' L1 copies (see
	// L1).
	l1 L1
	// resident are the CTAs dispatched and not yet retired, in no order.
	resident []*CTA
	// shards are the SMs' shards of a split grid (Split; nil otherwise).
	shards []*Shard
}

// NewGrid prepares a launch of prog on mem. It checks only what the
// executor needs; resource limits are the device's business.
func NewGrid(prog *Program, mem *Memory, l Launch) (*Grid, error) {
	for i := range 3 {
		if l.Grid[i] < 1 || l.Block[i] < 1 {
			return nil, fmt.Errorf("kernel %s: grid %v and block %v must be at least 1 in every dimension", prog.Name(), l.Grid, l.Block)
		}
	}
	if l.DynamicShared < 0 {
		return nil, fmt.Errorf("kernel %s: negative dynamic shared memory", prog.Name())
	}
	parts := []LaunchPart{{Params: l.Params, Memory: mem}}
	if len(l.Parts) > 0 {
		parts = l.Parts
	}
	for d, p := range parts {
		if len(p.Params) < prog.Entry.KernelParamSize {
			return nil, fmt.Errorf("kernel %s: parameter buffer of %d bytes, the kernel takes %d%s", prog.Name(), len(p.Params), prog.Entry.KernelParamSize, onDevice(l, d))
		}
		switch {
		case p.Memory == nil:
			return nil, fmt.Errorf("kernel %s: no memory%s", prog.Name(), onDevice(l, d))
		case len(l.Parts) > 0 && p.Memory.base != DeviceBase(d):
			return nil, fmt.Errorf("kernel %s: device %d of a co-launch has the memory at %#x, not its own (NewMemoryOf(%d, ...))", prog.Name(), d, p.Memory.base, d)
		}
	}
	g := &Grid{prog: prog, mem: parts[0].Memory, L: l, parts: parts, nextOf: make([]int, len(parts))}
	g.perPart = l.Grid[0] * l.Grid[1] * l.Grid[2]
	g.ctas = g.perPart * len(parts)
	g.threadsInCTA = l.Block[0] * l.Block[1] * l.Block[2]
	g.warpsPerCTA = (g.threadsInCTA + WarpSize - 1) / WarpSize
	if g.threadsInCTA > MaxThreadsPerCTA {
		return nil, fmt.Errorf("kernel %s: a block of %d threads: at most %d a block", prog.Name(), g.threadsInCTA, MaxThreadsPerCTA)
	}
	g.sharedSize = SharedBytes(prog, l.DynamicShared)
	g.localStride = alignUp(prog.localStack, 8)
	if g.L.SMs < 1 {
		g.L.SMs = 1
	}
	g.pool = prog.takeCTAs(g)
	return g, nil
}

// onDevice names device d in an error about a co-launch.
func onDevice(l Launch, d int) string {
	if len(l.Parts) == 0 {
		return ""
	}
	return fmt.Sprintf(" (device %d of the co-launch)", d)
}

// Devices is the number of devices the launch runs on (1 unless it is a
// co-launch); SMs of the grid are Devices() × Launch.SMs.
func (g *Grid) Devices() int { return len(g.parts) }

// deviceOf is the device of the grid's SM sm.
func (g *Grid) deviceOf(sm int) int { return min(sm/g.L.SMs, len(g.parts)-1) }

// PendingOn is the number of CTAs not dispatched yet that may run on SM
// sm: its device's.
func (g *Grid) PendingOn(sm int) int { return g.perPart - g.nextOf[g.deviceOf(sm)] }

// image is the memory that holds global address a: in a co-launch the
// owner device's (Launch.Parts), otherwise the grid's own.
func (g *Grid) image(a uint64) *Memory {
	if d := DeviceOf(a); len(g.parts) > 1 && d >= 0 && d < len(g.parts) {
		return g.parts[d].Memory
	}
	return g.mem
}

// shape is the shape of the grid's CTA state.
func (g *Grid) shape() ctaShape {
	return ctaShape{warps: g.warpsPerCTA, shared: g.sharedSize, localStride: g.localStride}
}

// takeCTAs hands g the CTA states a finished launch of the same shape
// left, rebound to g: allocating them (and the runtime clearing them) per
// launch cost multi-launch drivers more than simulating some launches.
func (p *Program) takeCTAs(g *Grid) []*CTA {
	p.ctaMu.Lock()
	defer p.ctaMu.Unlock()
	if len(p.ctas) == 0 || p.ctaShape != g.shape() {
		return nil
	}
	ctas := p.ctas
	p.ctas = nil
	for _, c := range ctas {
		c.g = g
		for _, w := range c.warps {
			w.g = g
		}
	}
	return ctas
}

// keepCTAs stores a finished launch's CTA states for the next launch.
func (p *Program) keepCTAs(g *Grid) {
	p.ctaMu.Lock()
	defer p.ctaMu.Unlock()
	p.ctas, p.ctaShape = g.pool, g.shape()
	g.pool = nil
}

// SharedBytes is the shared memory a CTA of prog holds with dynamic bytes
// of dynamic shared memory.
func SharedBytes(prog *Program, dynamic int) int {
	if dynamic == 0 {
		return prog.Entry.StaticSharedSize
	}
	return prog.Entry.DynamicSharedOffset + dynamic
}

// Program returns the grid's program.
func (g *Grid) Program() *Program { return g.prog }

// CTAs is the number of CTAs in the grid.
func (g *Grid) CTAs() int { return g.ctas }

// Pending is the number of CTAs not dispatched yet.
func (g *Grid) Pending() int { return g.ctas - g.next }

// SMs is the number of SMs the grid runs on: Launch.SMs on each device.
func (g *Grid) SMs() int { return g.L.SMs * len(g.parts) }

func (g *Grid) clock() uint64 {
	if g.L.Clock != nil {
		return g.L.Clock()
	}
	return g.WarpInsts
}

// clock is %clock for the warp: its SM's cycle when the grid is split.
func (w *Warp) clock() uint64 {
	if sh := w.sh; sh != nil {
		if sh.rounds {
			if w.g.L.Clock != nil {
				return w.g.L.Clock()
			}
			return w.g.WarpInsts + sh.warpInsts
		}
		return sh.cycle
	}
	return w.g.clock()
}

// CTA is one thread block: its warps, shared memory and barriers.
type CTA struct {
	g      *Grid
	ID     [3]uint32
	Linear int // index in the grid, x fastest (a co-launch's devices one after another)
	SM     int // the SM it runs on (of the grid's; %smid is of its device's)
	Device int // its device in a co-launch (Launch.Parts), 0 otherwise
	// mem and params are its device's memory and kernel parameters.
	mem    *Memory
	params []byte

	warps  []*Warp
	wstore []Warp
	turns  []turnState // the warps' (Warp.ts)
	// ready has bit j set while warp j's turn state is WarpReady
	// (Warp.setState keeps it), so that a round of turns visits the
	// ready warps only: in a persistent kernel most of a CTA's warps wait
	// at a barrier while one polls.
	ready  uint64
	shared []byte
	regs   []uint64
	local  []byte
	bars   [16]barrier
	done   int // finished warps
	slot   int // index in the grid's resident list
	sh     *Shard
}

// barrier is one of the CTA's 16 hardware barriers.
type barrier struct {
	arrived  int // warps that arrived (bar.sync, bar.red, bar.arrive)
	expect   int // warps expected; 0: every warp of the CTA still running
	waiting  []*Warp
	redCount uint64 // bar.red: threads whose predicate held
	redAll   bool
	redAny   bool
}

// name is how a diagnosis names the CTA: by its linear index, and in a
// co-launch by its device and its index there.
func (c *CTA) name() string {
	if len(c.g.parts) == 1 {
		return fmt.Sprintf("CTA %d", c.Linear)
	}
	return fmt.Sprintf("device %d CTA %d", c.Device, c.Linear-c.Device*c.g.perPart)
}

// Warps returns the CTA's warps.
func (c *CTA) Warps() []*Warp { return c.warps }

// Done reports whether every warp of the CTA has finished.
func (c *CTA) Done() bool { return c.done == len(c.warps) }

// Dispatch starts the next CTA of the grid on SM sm and returns it, or nil
// when every CTA has been dispatched.
func (g *Grid) Dispatch(sm int) *CTA {
	dev := g.deviceOf(sm)
	if g.nextOf[dev] >= g.perPart {
		return nil
	}
	lin := g.nextOf[dev]
	g.nextOf[dev]++
	g.next++
	var c *CTA
	if n := len(g.pool); n > 0 {
		c = g.pool[n-1]
		g.pool = g.pool[:n-1]
		clear(c.shared)
		c.clearLiveIn()
		clear(c.local)
	} else {
		c = g.newCTA()
	}
	gx, gy := g.L.Grid[0], g.L.Grid[1]
	c.ID = [3]uint32{uint32(lin % gx), uint32(lin / gx % gy), uint32(lin / (gx * gy))}
	c.Linear, c.SM, c.Device = dev*g.perPart+lin, sm, dev
	c.mem, c.params = g.parts[dev].Memory, g.parts[dev].Params
	c.done = 0
	c.slot = len(g.resident)
	g.resident = append(g.resident, c)
	for i := range c.bars {
		c.bars[i] = barrier{waiting: c.bars[i].waiting[:0]}
	}
	for i, w := range c.warps {
		w.reset(min(WarpSize, g.threadsInCTA-i*WarpSize))
	}
	c.MoveTo(sm)
	g.epoch++
	return c
}

// clearLiveIn zeroes the entry registers some path reads before writing,
// in every warp; the rest are written before they are read.
func (c *CTA) clearLiveIn() {
	entry := c.g.prog.entry
	per := entry.nregs * WarpSize
	for w := range c.warps {
		regs := c.regs[w*per : (w+1)*per]
		for _, r := range entry.liveIn {
			clear(regs[int(r)*WarpSize : int(r+1)*WarpSize])
		}
	}
}

func (g *Grid) newCTA() *CTA {
	entry := g.prog.entry
	c := &CTA{g: g}
	c.shared = make([]byte, g.sharedSize)
	per := entry.nregs * WarpSize
	c.regs = make([]uint64, g.warpsPerCTA*per)
	c.local = make([]byte, g.warpsPerCTA*WarpSize*g.localStride)
	c.wstore = make([]Warp, g.warpsPerCTA)
	c.warps = make([]*Warp, g.warpsPerCTA)
	c.turns = make([]turnState, g.warpsPerCTA)
	for i := range c.wstore {
		w := &c.wstore[i]
		w.g, w.cta, w.index, w.sc, w.ts = g, c, i, &g.scratch, &c.turns[i]
		regs := c.regs[i*per : (i+1)*per : (i+1)*per]
		var params []byte
		if entry.paramFrame > 0 {
			params = make([]byte, entry.paramFrame*WarpSize)
		}
		w.frames = []frame{{fn: entry, regs: regs, params: params, base: -1}}
		w.local = c.local[i*WarpSize*g.localStride : (i+1)*WarpSize*g.localStride]
		c.warps[i] = w
	}
	return c
}

// reset starts the warp at the kernel's first instruction with lanes
// threads.
func (w *Warp) reset(lanes int) {
	w.init = fullMask
	if lanes < WarpSize {
		w.init = 1<<uint(lanes) - 1
	}
	// A CTA from the pool starts with no back-off of its last use.
	*w.ts = turnState{}
	w.setState(WarpReady)
	w.stack = append(w.stack[:0], simtEntry{pc: 0, rpc: ptx.NoTarget, mask: w.init})
	w.frames = w.frames[:1]
	f := &w.frames[0]
	clear(f.params)
	w.fn, w.code, w.regs = f.fn, f.fn.code, f.regs
	w.exited, w.carry = 0, 0
	w.polls = [2]pollSite{}
	w.its = w.g.L.IndependentThreads
	w.groups = w.groups[:0]
	w.backEdges, w.spinHash, w.itsErr = 0, 0, nil
	w.endTurn = false
	w.spinFn, w.spinPC = nil, 0
	w.edgeFn, w.edgePC, w.loopEdges = nil, 0, 0
}

// Retire returns a finished CTA's state to the pool.
func (g *Grid) Retire(c *CTA) {
	for _, w := range c.warps {
		w.releaseFrames()
	}
	last := g.resident[len(g.resident)-1]
	g.resident[c.slot], last.slot = last, c.slot
	g.resident[len(g.resident)-1] = nil
	g.resident = g.resident[:len(g.resident)-1]
	g.pool = append(g.pool, c)
	if len(g.resident) == 0 && g.next == g.ctas {
		g.prog.keepCTAs(g)
	}
}

// warpDone records a finished warp: barriers count finished warps as
// arrived.
func (c *CTA) warpDone(w *Warp) {
	c.done++
	for id := range c.bars {
		if c.bars[id].arrived > 0 {
			c.checkBarrier(id)
		}
	}
	if c.done == len(c.warps) {
		if c.sh != nil {
			c.sh.finished++
		} else {
			c.g.Finished++
		}
	}
}

// barrier executes bar.sync / bar.arrive / bar.red for the lanes in m:
// the warp arrives (counting as one warp) and, except for bar.arrive,
// waits until the barrier completes. The pc has already advanced.
func (w *Warp) barrier(x *xinst, m uint32) {
	in := x.in
	c := w.cta
	f := firstLane(m)
	id := int(w.src(&x.src[0], &w.sc.t[0])[f] & 15)
	red := in.Bar == ptx.BarRedPopc || in.Bar == ptx.BarRedAnd || in.Bar == ptx.BarRedOr
	expect := 0
	if red && x.nsrc == 3 || !red && x.nsrc == 2 {
		n := int(uint32(w.src(&x.src[1], &w.sc.t[1])[f]))
		expect = (n + WarpSize - 1) / WarpSize
	}
	b := &c.bars[id]
	if b.arrived == 0 {
		b.expect, b.redCount, b.redAll, b.redAny = expect, 0, true, false
	}
	if red {
		p := w.src(&x.src[x.nsrc-1], &w.sc.t[2])
		for mm := m; mm != 0; mm &= mm - 1 {
			if p[firstLane(mm)]&1 != 0 {
				b.redCount++
				b.redAny = true
			} else {
				b.redAll = false
			}
		}
	}
	if w.rec != nil {
		w.rec.Barrier = true
	}
	b.arrived++
	if in.Bar != ptx.BarArrive {
		w.setState(WarpAtBarrier)
		w.barID, w.barMask, w.barInst, w.barFn = id, m, x, w.fn
		w.barDst = -1
		if red {
			w.barDst = x.dst[0]
		}
		b.waiting = append(b.waiting, w)
	}
	c.checkBarrier(id)
}

// checkBarrier releases barrier id when enough warps have arrived.
func (c *CTA) checkBarrier(id int) {
	b := &c.bars[id]
	need := b.expect
	if need == 0 {
		need = len(c.warps) - c.done
	}
	if b.arrived < need {
		return
	}
	for _, w := range b.waiting {
		if w.ts.state == WarpAtBarrier {
			w.setState(WarpReady)
		}
		if w.rec != nil {
			w.rec.Released = true
		}
		if w.barDst >= 0 {
			var v uint64
			switch w.barInst.in.Bar {
			case ptx.BarRedPopc:
				v = b.redCount
			case ptx.BarRedAnd:
				v = b2u(b.redAll)
			case ptx.BarRedOr:
				v = b2u(b.redAny)
			}
			d := w.row(w.barDst)
			for mm := w.barMask; mm != 0; mm &= mm - 1 {
				d[firstLane(mm)] = v
			}
		}
	}
	b.arrived = 0
	b.waiting = b.waiting[:0]
}

// RunOptions tune the functional scheduler.
type RunOptions struct {
	// Resident is how many CTAs may be co-resident (CTAs per SM times
	// SMs). The first Resident CTAs start together; each later one starts
	// when a resident CTA finishes, on that CTA's SM.
	Resident int
	// Slice is the number of instructions a warp runs per turn (default
	// 256): small enough that a spinning warp lets the others progress.
	Slice int
	// QuietWindow is how many warp-instructions may pass without progress
	// (a store or atomic that changes memory, a warp or CTA starting or
	// finishing; see Watchdog) before the livelock check starts (default
	// 1<<20).
	QuietWindow uint64
	// StopAfterChanges and StopAfterInsts (Continue only), when not 0,
	// stop the run at the end of the warp slice in which this many more
	// instructions have changed memory (Changes), or this many more
	// warp-instructions have run, the CTAs left as they are.
	StopAfterChanges, StopAfterInsts uint64
	// StopOnSlowdown (Continue only) stops the run at the end of a round
	// when, over the last window of SlowdownWindow warp-instructions (at
	// least 4096), the share of instructions that changed memory has
	// fallen below half of the first window's: most warps have come to
	// wait or spin (a launch's tail), and the work's pace has changed. It
	// also stops it at the end of a block of workingRounds rounds in which
	// fewer than half or more than twice as many warps worked per round
	// (ran a turn that was not idle: backOff) as in the first block: warps
	// have finished, come to wait or been released (a grid barrier), and a
	// GPU with another number of warps at work makes progress at another
	// rate, even where each of them changes memory as often as before (one
	// warp left on a hub's edges).
	StopOnSlowdown bool
	SlowdownWindow uint64
	// WorkingWindow, when above 0, makes each block of rounds that the
	// warps-at-work test compares also span at least this many
	// warp-instructions: in a launch whose pace swings with a period (a
	// fused launch's levels and grid barriers), blocks as long as the
	// period see its mean, not its phases.
	WorkingWindow uint64
	// WorkingFall, when above 0, replaces the half in the warps-at-work
	// test: a block whose mean falls below this fraction of the first
	// block's stops the run. A kernel whose warps never poll has no
	// back-off to swing the count, so a smaller fall (warps finishing:
	// a launch's tail) already means another pace.
	WorkingFall float64
	// Warm, when set, is called with each global access (the lanes'
	// addresses; Space says global for each): as it issues in a run in
	// order, at the end of its round in a run in rounds (SM by SM, each
	// SM's loads, then its stores and atomics, in issue order, so the
	// same for every thread count). Sampled simulation warms the timing
	// model's L2 with it.
	Warm func(acc *MemAccess)
	// WarmPartOf, when set with Warm, lets a run in rounds warm on its
	// threads: it maps a global address to its part of the warmed state
	// (an L2 slice), parts sharing no state, and Warm is then called from
	// several goroutines at once, each call with the lanes of one group
	// of parts, each part's lanes in the order above. It is called from
	// several goroutines too.
	WarmPartOf func(addr uint64) int
	// Threads is how many threads run a round's SMs (below 1: one). The
	// result is the same for every count.
	Threads int
	// InOrder runs the warps' turns one after another on one thread,
	// each on the memory image as the turns before it left it, instead of
	// in rounds: the interleaving of issue-time order (sampled
	// simulation's functional stretches after a slow detailed pace, when
	// asked for: sim.WithStretchRoundsIssue).
	InOrder bool
}

// Run executes the whole grid functionally: rounds in which every ready
// warp of the resident CTAs runs a slice (rounds.go; or one turn after
// another, RunOptions.InOrder; polling warps back off: backOff), until
// every CTA has finished. It checks ctx once per round.
//
// Two hangs end with a *kernels.DeadlockError instead of waiting for ctx:
// every remaining warp blocked at a barrier that cannot complete, and a
// livelock that the Watchdog finds (checked after every round), the one
// detector the timing model runs too. When ctx ends a launch that had been
// quiet for the whole window, the error wraps both a DeadlockError and
// ctx's error.
func (g *Grid) Run(ctx context.Context, opt RunOptions) error {
	// A co-launch's devices take an equal share of the resident CTAs
	// each, on their own SMs.
	per := max(opt.Resident/len(g.parts), 1)
	var slots []*CTA
	for d := range g.parts {
		for i := range min(per, g.perPart) {
			slots = append(slots, g.Dispatch(d*g.L.SMs+i%g.L.SMs))
		}
	}
	return g.runSlots(ctx, opt, slots)
}

// Started returns the CTAs started and not yet retired, in CTA order.
func (g *Grid) Started() []*CTA {
	ctas := slices.Clone(g.resident)
	slices.SortFunc(ctas, func(a, b *CTA) int { return a.Linear - b.Linear })
	return ctas
}

// Continue runs functionally a launch that another executor (the timing
// model, stopped mid-way) started, until it finishes (done) or a budget
// of RunOptions stops it. The started CTAs go on from where they are, in
// CTA order, each in a slot of its own; waiting CTAs start in free slots,
// at most opt.Resident in all and Resident/SMs (rounded up) on one SM,
// on the SM with the fewest; from then on it runs as Run does. Barrier
// waits, finished warps and CTAs not yet retired carry over as they are.
func (g *Grid) Continue(ctx context.Context, opt RunOptions) (done bool, err error) {
	if len(g.parts) > 1 {
		return false, fmt.Errorf("exec: kernel %s: a co-launch cannot be continued functionally", g.prog.Name())
	}
	slots := g.Started()
	perSM := (opt.Resident + g.L.SMs - 1) / g.L.SMs
	count := make([]int, g.L.SMs)
	for _, c := range slots {
		count[c.SM]++
	}
	for len(slots) < opt.Resident && g.Pending() > 0 {
		sm := 0
		for i, n := range count {
			if n < count[sm] {
				sm = i
			}
		}
		if count[sm] >= perSM {
			break
		}
		count[sm]++
		slots = append(slots, g.Dispatch(sm))
	}
	if len(slots) == 0 {
		return g.Pending() == 0, nil
	}
	err = g.runSlots(ctx, opt, slots)
	if errors.Is(err, errProgressBudget) {
		return false, nil
	}
	return err == nil, err
}

// slowdown follows the share of warp-instructions that change memory over
// windows of a run, and the warps at work per round
// (RunOptions.StopOnSlowdown).
type slowdown struct {
	window         uint64
	insts, changes uint64  // at the current window's start
	first          float64 // the first window's share, once measured
	measured       bool
	// workingRef is the warps at work per round over the run's first
	// workingRounds rounds (0: not yet measured); workingSum and
	// workingN accumulate the current block of rounds.
	workingRef, workingSum float64
	workingN               int
	// workingWindow (RunOptions.WorkingWindow) and blockStart, the
	// warp-instructions at the current block's start.
	workingWindow, blockStart uint64
	// fall is RunOptions.WorkingFall (0: one half).
	fall float64
}

// workingRounds is the block of rounds whose mean count of working warps
// otherWorking compares: single rounds swing by half either way in a
// steady stretch (warps leave and rejoin the back-off), a block does not.
const workingRounds = 8

// otherWorking records a round's working warps (insts: the run's
// warp-instructions so far) and, at the end of each block of at least
// workingRounds rounds and workingWindow warp-instructions, says whether
// the block's mean per round fell below the fraction fall of the first
// block's or rose above twice it.
func (s *slowdown) otherWorking(working int, insts uint64) bool {
	s.workingSum += float64(working)
	s.workingN++
	if s.workingN < workingRounds || insts-s.blockStart < s.workingWindow {
		return false
	}
	mean := s.workingSum / float64(s.workingN)
	s.workingSum, s.workingN, s.blockStart = 0, 0, insts
	if s.workingRef == 0 {
		s.workingRef = max(mean, 1e-9)
		return false
	}
	fall := s.fall
	if fall <= 0 {
		fall = 0.5
	}
	return mean < fall*s.workingRef || mean > 2*s.workingRef
}

// slowed closes a window once it is long enough and says whether its
// share fell below half of the first's.
func (s *slowdown) slowed(insts, changes uint64) bool {
	if insts-s.insts < s.window {
		return false
	}
	share := float64(changes-s.changes) / float64(insts-s.insts)
	s.insts, s.changes = insts, changes
	if !s.measured {
		s.first, s.measured = share, true
		return false
	}
	return share < s.first/2
}

// Back-off of polling warps. A turn is idle when the warp ran its whole
// slice, none of its stores or atomics changed memory, and it read global
// or shared memory, only through strong loads and atomics (volatile,
// relaxed or acquire above the CTA: what a spin loop polls through; a
// weak load is work, such as a gather, and a turn of arithmetic alone
// polls nothing). After k idle turns in a row the warp sits out its next
// 2^k - 1 turns (k at most maxIdleTurns), and after that until some warp
// has changed memory since its last turn: until then its polls would read
// what they read. The first turn that is not idle ends the back-off. So
// thousands of warps polling a queue or a grid barrier do not each run a
// slice for every slice of the warps with work. Functional mode has no
// time: this changes only the interleaving (a racy kernel may take
// another valid path), never what a run may compute.
const maxIdleTurns = 10

// turnReads says how a warp's turn read memory: readWeak, readStrong or
// both.
type turnReads uint8

const (
	readWeak turnReads = 1 << iota
	readStrong
)

// sitsOut says whether the warp sits this turn out, counting it; changes
// is the grid's change count.
func (t *turnState) sitsOut(changes uint64) bool {
	if t.idleTurns == 0 {
		return false
	}
	if t.skipTurns > 0 {
		t.skipTurns--
		return true
	}
	return changes == t.idleAt
}

// backOff records a turn: idle or not. before is the grid's change count
// before the round's logs were applied (in order: after the turn): a
// change that another warp made in the same round was not yet visible to
// the turn, so it ends the back-off.
func (t *turnState) backOff(idle bool, before uint64) {
	if !idle {
		t.idleTurns, t.skipTurns = 0, 0
		return
	}
	t.idleTurns = min(t.idleTurns+1, maxIdleTurns)
	t.skipTurns = 1<<t.idleTurns - 1
	t.idleAt = before
}

// wakeIdle ends a round in which every ready warp sat out: it skips the
// rounds until the first back-off ends, or, when every ready warp waits
// for a change that no warp can make, lets all of them run again, so that
// a spin budget or the Watchdog can end the wait. It returns the turns
// the ready warps sat out in the rounds skipped.
func wakeIdle(slots []*CTA) uint64 {
	least := uint32(math.MaxUint32)
	ready := uint64(0)
	for _, c := range slots {
		for i := range ctaTurns(c) {
			if t := &c.turns[i]; t.state == WarpReady {
				ready++
				if t.skipTurns > 0 {
					least = min(least, t.skipTurns)
				}
			}
		}
	}
	for _, c := range slots {
		for i := range ctaTurns(c) {
			t := &c.turns[i]
			if t.state != WarpReady {
				continue
			}
			if least == math.MaxUint32 {
				t.idleTurns = 0
			} else if t.skipTurns > 0 {
				t.skipTurns -= least
			}
		}
	}
	if least == math.MaxUint32 {
		return 0
	}
	return uint64(least) * ready
}

// nextReady is the index of c's first ready warp at or after j (-1:
// none), read from its ready mask as it is now, so that a loop over it
// meets a warp that a barrier released earlier in the loop.
func (c *CTA) nextReady(j int) int {
	if j >= len(c.turns) {
		return -1
	}
	rest := c.ready >> j
	if rest == 0 {
		return -1
	}
	return j + bits.TrailingZeros64(rest)
}

// ctaTurns is c's warps' turn states, none for an empty slot.
func ctaTurns(c *CTA) []turnState {
	if c == nil {
		return nil
	}
	return c.turns
}

// checkReadyMask makes every round in order check each CTA's ready mask
// against its warps' turn states (tests set it).
var checkReadyMask bool

// mustMatchReady panics where c.ready and the turn states disagree.
func (c *CTA) mustMatchReady() {
	for j := range c.turns {
		if want := c.turns[j].state == WarpReady; (c.ready>>j&1 != 0) != want {
			panic(fmt.Sprintf("exec: CTA ready mask %#x, warp %d in state %d", c.ready, j, c.turns[j].state))
		}
	}
}

// MaxThreadsPerCTA bounds a block, as CUDA does: its 32 warps fit
// CTA.ready's bits. A configuration may not allow more (sim's Validate).
const MaxThreadsPerCTA = 1024

// errProgressBudget ends runSlots at RunOptions.StopAfterChanges or
// StopAfterInsts.
var errProgressBudget = errors.New("exec: progress budget reached")

// runSlots runs the CTAs in slots in rounds (rounds.go), or one turn
// after another (RunOptions.InOrder), each finished one's slot taking the
// next waiting CTA on the same SM.
func (g *Grid) runSlots(ctx context.Context, opt RunOptions, slots []*CTA) error {
	if g.shards != nil || g.l1 != nil {
		return errors.New("exec: a functional run of a grid split or given an L1 by a timing model")
	}
	slice := opt.Slice
	if slice <= 0 {
		slice = 256
	}
	window := opt.QuietWindow
	if window == 0 {
		window = 1 << 20
	}
	live := 0
	for _, c := range slots {
		if c != nil {
			live++
		}
	}
	var r rounder
	switch {
	case opt.InOrder && opt.Warm != nil:
		g.warm = opt.Warm
		defer func() { g.warm = nil }()
	case !opt.InOrder:
		g.beginRounds()
		defer g.endRounds()
		r = rounder{g: g, slots: slots, slice: slice, threads: max(opt.Threads, 1)}
		r.startPool()
		defer r.stopPool()
		if opt.Warm != nil {
			g.warm = opt.Warm
			if r.pool != nil && opt.WarmPartOf != nil {
				g.warmPartOf, g.warmGroups = opt.WarmPartOf, len(r.warmAccs)
			}
			defer func() { g.warm, g.warmPartOf, g.warmGroups = nil, nil, 0 }()
		}
	}
	watch := NewWatchdog(g, g.WarpInsts, window, 0)
	// satOut is the warp-instructions the turns that polling warps sat out
	// stand for, a slice each: the budget and the slowdown test count them
	// as issued, so that they see a launch whose warps wait as they would
	// without the back-off.
	var satOut uint64
	budget, changes0 := opt.StopAfterChanges, g.changes
	instBudget, insts0 := opt.StopAfterInsts, g.WarpInsts
	overBudget := func() bool {
		return budget > 0 && g.changes-changes0 >= budget || instBudget > 0 && g.WarpInsts+satOut-insts0 >= instBudget
	}
	g.roundInsts, g.roundChanges = g.WarpInsts, g.changes
	slow := slowdown{window: max(opt.SlowdownWindow, 4096), insts: g.WarpInsts, changes: g.changes,
		workingWindow: opt.WorkingWindow, blockStart: g.WarpInsts, fall: opt.WorkingFall}
	for live > 0 {
		var working int
		var progressed, waiting bool
		if opt.InOrder {
			var err error
			working, progressed, waiting, err = g.turnsInOrder(opt, slots, slice, &satOut, &live, overBudget)
			if err != nil {
				return err
			}
		} else {
			r.live = live
			g.roundInsts, g.roundChanges = g.WarpInsts, g.changes
			finished := g.Finished
			if err := r.turns(); err != nil {
				return err
			}
			var sat uint64
			working, progressed, waiting, sat = r.settle()
			satOut += sat
			if g.Finished != finished { // some CTA finished in the round
				for i, c := range slots {
					if c != nil && c.Done() {
						g.replace(slots, i, &live)
						progressed = true
					}
				}
			}
			if overBudget() {
				return errProgressBudget
			}
		}
		if err := ctx.Err(); err != nil {
			msg := fmt.Sprintf("kernel %s stopped after %d warp-instructions, %d of %d CTAs finished", g.prog.Name(), g.WarpInsts, g.Finished, g.ctas)
			return watch.Stopped(g.WarpInsts, "warp-instructions", msg, err, g.DescribeWarps)
		}
		if opt.StopOnSlowdown && live > 0 && (slow.slowed(g.WarpInsts+satOut, g.changes) || slow.otherWorking(working, g.WarpInsts+satOut)) {
			return errProgressBudget
		}
		if !progressed && waiting {
			satOut += wakeIdle(slots) * uint64(slice)
			continue
		}
		if !progressed {
			return &kernels.DeadlockError{Kernel: g.prog.Name(), Detail: "every remaining warp waits at a barrier that cannot complete: " + g.DescribeWarps()}
		}
		if watch.Stuck(g.WarpInsts) {
			return watch.Livelock(g.WarpInsts, "warp-instructions", fmt.Sprintf("%d CTAs wait to be dispatched: %s", g.Pending(), g.DescribeWarps()))
		}
	}
	return nil
}

// LastRound returns the warp-instructions and changes (Changes) the grid
// had counted when the last round of a run in rounds began (when the run
// began, before any round): a round is applied as one, so a stretch
// stopped at a budget of changes may pass it by a round's worth.
func (g *Grid) LastRound() (warpInsts, changes uint64) {
	return g.roundInsts, g.roundChanges
}

// replace retires the finished CTA in slots[i] and starts the next waiting
// one on its SM there, counting the slot out of live when none waits.
func (g *Grid) replace(slots []*CTA, i int, live *int) {
	c := slots[i]
	g.Retire(c)
	if slots[i] = g.Dispatch(c.SM); slots[i] == nil {
		*live--
	}
}

// turnsInOrder runs one round of RunOptions.InOrder: every ready warp's
// turn, one after another in slot order on the memory image itself, a
// finished CTA replaced at once. It stops with errProgressBudget after the
// turn at which overBudget holds, and returns the warps whose turn was not
// idle and whether any warp ran or sat out.
func (g *Grid) turnsInOrder(opt RunOptions, slots []*CTA, slice int, satOut *uint64, live *int, overBudget func() bool) (working int, progressed, waiting bool, err error) {
	for i, c := range slots {
		if c == nil {
			continue
		}
		if checkReadyMask {
			c.mustMatchReady()
		}
		// The ready warps in order, each looked up as the round reaches
		// it: a warp that a barrier releases during the round still runs
		// in it when it comes after the releasing one.
		for j := c.nextReady(0); j >= 0; j = c.nextReady(j + 1) {
			t := &c.turns[j]
			if t.sitsOut(g.changes) {
				waiting = true
				*satOut += uint64(slice)
				continue
			}
			w := c.warps[j]
			changes := g.changes
			w.turnReads = 0
			var n int
			n, err = w.run(slice)
			if err != nil {
				return working, progressed, waiting, err
			}
			if n > 0 {
				progressed = true
			}
			idle := n == slice && changes == g.changes && w.turnReads == readStrong
			t.backOff(idle, g.changes)
			if n > 0 && !idle {
				working++
			}
			if overBudget() {
				return working, progressed, waiting, errProgressBudget
			}
		}
		if c.Done() {
			g.replace(slots, i, live)
			progressed = true
		}
	}
	return working, progressed, waiting, nil
}
