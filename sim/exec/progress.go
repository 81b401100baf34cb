package exec

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Progress, and the one deadlock detector of both execution modes.
//
// A launch makes progress when
//
//   - a store or an atomic changes memory (any state space: the bytes
//     differ from what was there), or
//   - a CTA starts, or a warp or CTA finishes.
//
// Nothing else counts: not a barrier release, not a store of the value
// already there, not an atomic that leaves memory as it was (atomicAdd(p,
// 0), a failing atomicCAS, an atomicMax below the value), not a read of
// %clock. Between two progress events every warp reads the same memory, so
// a warp that comes back to an architectural state it was in since the
// last event (registers, SIMT stack, call frames; see Warp.StateHash) will
// go round the same loop forever. The functional scheduler (Grid.Run) and
// the timing model (sim/timing) both run a Watchdog over their grid: it
// declares a deadlock when no progress happened for a window and every
// running warp has since come back to a state it was in.
//
// %clock, %clock64 and %globaltimer are left out of that state: a spin
// that reads the clock (a poll loop that timestamps, a wait until the
// clock reaches a value) changes registers on every iteration without
// progressing. Registers that may hold a value derived from the clock (a
// static, per-function analysis: clockTaint) are not hashed, so such a
// spin repeats its state like any other. The price: a clock-bounded wait
// that changes no memory for longer than the window is reported as a
// deadlock even though it would end.

// Epoch is a count that changes whenever the launch makes progress (in a
// split grid, the shards' progress counts as soon as it is made; the
// Watchdog sees it once taken, TakeProgress).
func (g *Grid) Epoch() uint64 {
	e := g.epoch
	for _, s := range g.shards {
		e += s.epoch
	}
	return e
}

// progressIf records progress, a change of memory, when cond holds.
func (w *Warp) progressIf(cond bool) {
	if cond {
		if w.sh != nil {
			w.sh.changes++
		} else {
			w.g.changes++
		}
		w.progress()
	}
}

// Changes counts the warp-instructions (stores and atomics) that changed
// memory: in a split grid (Split), those on shared memory as they issue and
// global ones as they are applied (NoteChanges).
func (g *Grid) Changes() uint64 {
	n := g.changes
	for _, s := range g.shards {
		n += s.changes
	}
	return n
}

// progress records progress, in the warp's shard when the grid is split.
func (w *Warp) progress() {
	if w.sh != nil {
		w.sh.epoch++
		return
	}
	w.g.epoch++
}

// pollSite is an instruction through which a warp read something another
// warp or the clock may change: a load, an atomic or a clock read.
type pollSite struct {
	fn *xfunc
	x  *xinst
}

// polled records that the warp read through x: the last two distinct
// sites are where a spinning warp spins.
func (w *Warp) polled(x *xinst) {
	switch x.in.Op {
	case ptx.OpLd, ptx.OpLdu:
		if weakLoad(x.in) {
			w.turnReads |= readWeak
		} else {
			w.turnReads |= readStrong
		}
	case ptx.OpAtom:
		w.turnReads |= readStrong
	}
	if w.polls[0].x != x {
		w.polls[1], w.polls[0] = w.polls[0], pollSite{fn: w.fn, x: x}
	}
}

// isClock reports whether r reads a clock.
func isClock(r ptx.SpecialReg) bool {
	switch r {
	case ptx.SRegClock, ptx.SRegClockHi, ptx.SRegClock64,
		ptx.SRegGlobalTimer, ptx.SRegGlobalTimerLo, ptx.SRegGlobalTimerHi:
		return true
	}
	return false
}

// clockTaint returns which registers of fn may hold a value computed from
// a clock read (nil when fn reads no clock): the destinations of every
// instruction with a clock or tainted source, tainted address base or
// tainted guard, to a fixed point. It is flow-insensitive (a register
// reused for something else stays tainted) and does not follow calls.
func clockTaint(fn *ptx.Function) []bool {
	var taint []bool
	tainted := func(r ptx.RegIndex) bool { return taint != nil && r >= 0 && int(r) < len(taint) && taint[r] }
	for changed := true; changed; {
		changed = false
		for i := range fn.Insts {
			in := &fn.Insts[i]
			t := tainted(in.Guard) || in.Addr.Kind == ptx.OperandAddr && tainted(in.Addr.Reg)
			for s := 0; s < int(in.NSrc) && !t; s++ {
				o := in.Src[s]
				t = o.Kind == ptx.OperandSpecial && isClock(o.Special) || o.Kind == ptx.OperandReg && tainted(o.Reg)
			}
			if !t {
				continue
			}
			for d := 0; d < int(in.NDst); d++ {
				o := in.Dst[d]
				if o.Kind != ptx.OperandReg || o.Reg < 0 || int(o.Reg) >= fn.NumRegs {
					continue
				}
				if taint == nil {
					taint = make([]bool, fn.NumRegs)
				}
				if !taint[o.Reg] {
					taint[o.Reg] = true
					changed = true
				}
			}
		}
	}
	return taint
}

// StateHash summarises the warp's architectural state (SIMT stack, call
// frames and registers, less those derived from the clock): a warp that
// reaches the same hash twice while no progress happened is spinning.
func (w *Warp) StateHash() uint64 { return w.hash() }

// hash is StateHash.
func (w *Warp) hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
		h ^= h >> 29
	}
	mix(uint64(w.ts.state))
	mix(uint64(w.exited))
	for _, e := range w.stack {
		mix(uint64(uint32(e.pc))<<32 | uint64(uint32(e.rpc)))
		mix(uint64(e.mask))
	}
	for i := range w.groups { // parked thread groups (its.go); their frames share the running group's register files, except calls made apart
		g := &w.groups[i]
		mix(uint64(g.wait)<<32 | uint64(g.member))
		for _, e := range g.stack {
			mix(uint64(uint32(e.pc))<<32 | uint64(uint32(e.rpc)))
			mix(uint64(e.mask))
		}
	}
	for i := range w.frames {
		f := &w.frames[i]
		skip := f.fn.clockRegs
		if skip == nil {
			for _, v := range f.regs {
				mix(v)
			}
			continue
		}
		for r := range f.fn.nregs {
			if skip[r] {
				continue
			}
			for _, v := range f.regs[r*WarpSize : (r+1)*WarpSize] {
				mix(v)
			}
		}
	}
	return h
}

// spinStatesLimit bounds the states the watchdog remembers per warp: a warp
// with more distinct states than this since the last progress is not in a
// short spin loop.
const spinStatesLimit = 512

// Watchdog is the deadlock detector both execution modes run over a grid.
// Time is the caller's: warp-instructions in functional mode, cycles in
// timing mode; it must not decrease.
//
// Once a window passes without progress, the watchdog samples the state
// hash of every running warp of the resident CTAs (every call in
// functional mode, every sampleEvery in timing mode: longer than a poll's
// round trip, so that samples land at different points of a spin loop).
// It reports a livelock when, at one sample, every running warp is in a
// state it had been in since the window ran out (or no warp is running at
// all). A warp that issued nothing since the previous sample waits on a
// memory operation and does not count as repeating; when one does, the
// spacing of samples doubles (up to the window), so that polls whose round
// trip outlasts it (thousands of warps polling one L2 slice) still show
// every warp moving between samples. A warp with more than
// spinStatesLimit distinct states is in a slow phase, not a spin (a
// monitor scanning thousands of flags one load at a time stores nothing
// for longer than any fixed window, yet its loop counter advances): the
// watchdog then starts a fresh window twice as long.
type Watchdog struct {
	g           *Grid
	window      uint64
	sampleEvery uint64
	// spacing is the current distance between samples: sampleEvery,
	// doubled while a warp issues nothing between two samples.
	spacing uint64

	epoch      uint64 // the grid's epoch when last seen
	since      uint64 // the time progress was last seen
	checking   bool   // the window ran out: sampling
	nextSample uint64
	seen       map[*Warp]map[uint64]struct{}
	steps      map[*Warp]uint64 // each warp's issued instructions at the last sample
}

// NewWatchdog watches g from time now with a quiet window of window time
// units (at least 1), sampling every sampleEvery once it runs out.
func NewWatchdog(g *Grid, now, window, sampleEvery uint64) *Watchdog {
	return &Watchdog{g: g, window: max(window, 1), sampleEvery: sampleEvery, spacing: sampleEvery, epoch: g.epoch, since: now}
}

// Window is the current quiet window.
func (d *Watchdog) Window() uint64 { return d.window }

// observe notes progress made since the last call.
func (d *Watchdog) observe(now uint64) {
	if d.g.epoch != d.epoch {
		d.epoch, d.since = d.g.epoch, now
		d.checking, d.seen, d.steps = false, nil, nil
		d.spacing = d.sampleEvery
	}
}

// Quiet reports whether no progress has happened for a whole window by
// time now.
func (d *Watchdog) Quiet(now uint64) bool {
	d.observe(now)
	return now-d.since >= d.window
}

// Stuck reports whether the launch is livelocked at time now (see
// Watchdog). Call it often: it costs a comparison until a window has passed
// without progress.
func (d *Watchdog) Stuck(now uint64) bool {
	d.observe(now)
	if now-d.since < d.window {
		return false
	}
	if !d.checking {
		// Look for a spin from here; name only the sites it polls.
		d.checking, d.nextSample = true, now
		d.seen = map[*Warp]map[uint64]struct{}{}
		d.steps = map[*Warp]uint64{}
		for _, c := range d.g.resident {
			for _, w := range c.warps {
				w.polls = [2]pollSite{}
			}
		}
	}
	if now < d.nextSample {
		return false
	}
	repeated, running, waiting := true, 0, false
	for _, c := range d.g.resident {
		for _, w := range c.warps {
			if w.ts.state != WarpReady {
				continue
			}
			running++
			// A warp that issued nothing since the last sample waits on a
			// memory operation (a queue of same-address atomics can take a
			// whole window): it is not spinning, whatever its state.
			last, sampled := d.steps[w]
			d.steps[w] = w.steps
			if !sampled || last == w.steps {
				repeated = false
				waiting = waiting || sampled
				continue
			}
			h := w.hash()
			states := d.seen[w]
			if states == nil {
				states = map[uint64]struct{}{}
				d.seen[w] = states
			}
			if _, again := states[h]; again {
				continue
			}
			repeated = false
			states[h] = struct{}{}
			if len(states) > spinStatesLimit {
				// A loop whose state keeps changing: a slow phase. Watch a
				// fresh, longer window.
				d.since, d.window = now, d.window*2
				d.checking, d.seen = false, nil
				return false
			}
		}
	}
	if waiting && d.spacing < d.window {
		d.spacing = min(2*d.spacing, d.window)
	}
	d.nextSample = now + d.spacing
	return repeated || running == 0
}

// Livelock is the error of a launch Stuck found livelocked at time now;
// unit names the time unit, where says where the warps are (for the
// timing model, also which CTAs wait and why).
func (d *Watchdog) Livelock(now uint64, unit, where string) *kernels.DeadlockError {
	return &kernels.DeadlockError{Kernel: d.g.prog.Name(), Detail: fmt.Sprintf(
		"livelock: no store or atomic changed memory and no warp or CTA started or finished for %d %s (the deadlock window is %d), and every running warp keeps returning to the same state, spinning on values no running warp will change; %s",
		now-d.since, unit, d.window, where)}
}

// Stopped is the error of a launch that its context ended at time now:
// msg, wrapping err and, when no progress had happened for a whole window,
// also a DeadlockError saying where the warps are.
func (d *Watchdog) Stopped(now uint64, unit, msg string, err error, where func() string) error {
	if !d.Quiet(now) {
		return fmt.Errorf("%s: %w", msg, err)
	}
	dl := &kernels.DeadlockError{Kernel: d.g.prog.Name(), Detail: fmt.Sprintf(
		"made no progress (no store or atomic changed memory, no warp or CTA started or finished) for %d %s before the deadline; %s",
		now-d.since, unit, where())}
	return fmt.Errorf("%s: %w: %w", msg, dl, err)
}

// DescribeWarps says where the unfinished warps of the resident CTAs are,
// grouped by place, for deadlock reports: at which barrier, or spinning on
// which loads, atomics and clock reads (each with its PTX line, source
// position and instruction).
func (g *Grid) DescribeWarps() string {
	ctas := append([]*CTA(nil), g.resident...)
	sort.Slice(ctas, func(i, j int) bool { return ctas[i].Linear < ctas[j].Linear })
	groups := map[string][]string{}
	for _, c := range ctas {
		for _, w := range c.warps {
			var key string
			switch w.ts.state {
			case WarpDone:
				continue
			case WarpAtBarrier:
				key = fmt.Sprintf("waiting at barrier %d at %s", w.barID, g.where(w.barFn, w.barInst))
			default:
				key = w.spinSites()
			}
			groups[key] = append(groups[key], fmt.Sprintf("%s warp %d", c.name(), w.index))
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		ws := groups[k]
		list := strings.Join(ws[:min(len(ws), 4)], ", ")
		if len(ws) > 4 {
			list += fmt.Sprintf(" and %d more", len(ws)-4)
		}
		parts[i] = k + ": " + list
	}
	return strings.Join(parts, "; ")
}

// spinSites describes where a ready warp is: the sites it polls, in PTX
// line order, or its next instruction when it polled nothing. With an L1
// set (Grid.SetL1), a poll through a weak global load gets a hint: it may
// be reading its SM's stale L1 copy.
func (w *Warp) spinSites() string {
	s := w.spinSitesOnly()
	if w.g.l1 != nil && (weakPoll(w.polls[0].x) || weakPoll(w.polls[1].x)) {
		s += " (a weak load, which may keep reading its SM's stale L1 copy: poll with a volatile load or an atomic)"
	}
	return s
}

// weakPoll reports whether x is a weak load of global memory.
func weakPoll(x *xinst) bool {
	if x == nil || x.in == nil || (x.in.Op != ptx.OpLd && x.in.Op != ptx.OpLdu) {
		return false
	}
	return (x.space == ptx.SpaceGlobal || x.space == ptx.SpaceGeneric) && weakLoad(x.in)
}

func (w *Warp) spinSitesOnly() string {
	a, b := w.polls[0], w.polls[1]
	if a.x == nil {
		fn, pc := w.fn, w.stack[len(w.stack)-1].pc
		return "running at " + w.g.where(fn, &fn.code[pc])
	}
	if b.x == nil {
		return "spinning on the " + pollKind(a.x) + " at " + w.g.where(a.fn, a.x)
	}
	if b.x.in.Pos.PTXLine < a.x.in.Pos.PTXLine {
		a, b = b, a
	}
	ka, kb := pollKind(a.x), pollKind(b.x)
	if ka == kb {
		return "spinning on the " + ka + "s at " + w.g.where(a.fn, a.x) + " and " + w.g.where(b.fn, b.x)
	}
	return "spinning on the " + ka + " at " + w.g.where(a.fn, a.x) + " and the " + kb + " at " + w.g.where(b.fn, b.x)
}

// pollKind names what a poll site reads.
func pollKind(x *xinst) string {
	switch x.op {
	case xAtom:
		return "atomic"
	case xLd, xLdGlobal:
		return "load"
	}
	return "clock read"
}

// where names an instruction of fn: its PTX line, source position and
// text (Where).
func (g *Grid) where(fn *xfunc, x *xinst) string {
	return Where(g.prog.Module.PTX, fn.fn, int(x.pc))
}

// Where names instruction pc of fn for a diagnostic: its PTX line, its
// CUDA source line from the PTX .loc information and its text, as the PTX
// parser quotes a line it rejects. An instruction of a helper inlined from
// a header (atomicAdd, a volatile load) has the header's source line; the
// first line of another file that follows it is usually where the
// helper's result is used, in the loop that spins, and is named too
// ("inlined near").
func Where(m *ptx.Module, fn *ptx.Function, pc int) string {
	in := &fn.Insts[pc]
	s := fmt.Sprintf("PTX line %d", in.Pos.PTXLine)
	if p := in.Pos; sourceFile(m, p) != "" {
		s += fmt.Sprintf(" (%s:%d", sourceFile(m, p), p.Line)
		if isHeader(sourceFile(m, p)) {
			for next := pc + 1; next < len(fn.Insts) && next <= pc+8; next++ {
				if q := fn.Insts[next].Pos; sourceFile(m, q) != "" && q.File != p.File {
					s += fmt.Sprintf(", inlined near %s:%d", sourceFile(m, q), q.Line)
					break
				}
			}
		}
		s += ")"
	}
	return s + " `" + fn.InstString(m, pc) + "`"
}

// sourceFile is the source file of a position ("" when unknown), cleaned
// ("./sim/testdata/../../kernels/warpgraph.h" is "./kernels/warpgraph.h").
func sourceFile(m *ptx.Module, p ptx.Pos) string {
	files := m.Files
	if p.Line <= 0 || int(p.File) >= len(files) || files[p.File] == "" {
		return ""
	}
	f := files[p.File]
	if strings.HasPrefix(f, "./") {
		return "./" + path.Clean(f)
	}
	return f
}

// isHeader reports whether a source file is a header, by its extension.
func isHeader(file string) bool {
	switch path.Ext(file) {
	case ".h", ".hh", ".hpp", ".cuh", ".inc":
		return true
	}
	return false
}

// polledClock records a clock read by the instruction the warp is
// executing.
func (w *Warp) polledClock() {
	if n := len(w.stack); n > 0 {
		if pc := int(w.stack[n-1].pc); pc < len(w.code) {
			w.polled(&w.code[pc])
		}
	}
}
