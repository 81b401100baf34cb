package exec

import (
	"fmt"
	"math/bits"

	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Split mode: SMs that step their warps concurrently.
//
// A timing model that runs several SMs at once (sim/timing's window
// engine) splits the grid (Grid.Split): each SM's warps then step with a
// Shard of their own (scratch rows, instruction counters, progress, the
// SM's clock), and their global memory accesses do not touch the memory
// image when they issue. A global load, store or atomic is logged in its
// SM's shard instead (OpLog): its lanes' addresses, the values a store
// writes and an atomic's operands, and the registers a load or atomic
// writes. The timing model applies the logs later (Grid.ApplyOp), one
// operation at a time, in an order it chooses; values are then what they
// are when each operation is applied. Applied in the order the operations
// issued (cycle, then the SMs' order within a cycle, then each SM's own
// order), the values are those of a grid stepped one warp at a time,
// issue-time semantics included; the registers a load or atomic writes
// stay unwritten until then, which the timing model's scoreboard covers
// (it must apply an operation before the cycle at which its results are
// ready). Everything else a warp does (registers, shared and local memory,
// barriers, constants and kernel parameters, which no kernel writes) takes
// effect when it issues, as in the unsplit grid. Functional mode never
// splits.

// Shard is the part of a split grid that one SM's warps change when they
// step (Grid.Split).
type Shard struct {
	sm      int
	scratch warpScratch
	// cycle is the SM's current cycle: %clock, and the cycle of the
	// operations it logs.
	cycle                  uint64
	warpInsts, threadInsts uint64
	finished               int
	epoch, changes         uint64
	log                    *OpLog
	// Functional rounds (rounds.go): rounds makes global loads read now
	// through over, the stores the SM's warps made this round; satOut
	// counts the turns the SM's polling warps sat out this round.
	rounds bool
	over   storeOverlay
	satOut uint64
	// atomics, working and progressed are the round's global atomic
	// lanes, turns that were not idle, and whether any turn issued
	// (rounder.settleSM).
	atomics    uint64
	working    int
	progressed bool
	// warmBy is the round's global accesses while the run warms an L2
	// (RunOptions.Warm), filed by group of parts (noteWarm; one group
	// when the warm runs on one thread), handed over at the round's end in
	// SM order (rounder.warm).
	warmBy []warmRecords
}

// warmRecords is one group's accesses of a round: each record's lanes'
// addresses lie in addrs from its at on, in lane order.
type warmRecords struct {
	recs  []warmRecord
	addrs []uint64
}

// warmRecord is one global access of a round, or its lanes in one group.
type warmRecord struct {
	kind  MemKind
	lanes uint32
	size  int32
	at    int32
}

// Split gives each of sms SMs a Shard (see the comment on split mode).
// Call it before the first Dispatch.
//
// A grid that ran in part already (Unsplit after a timing model stopped
// it, then Continue) may be split again: its started CTAs step with the
// shard of the SM they are on (CTA.MoveTo moves one).
func (g *Grid) Split(sms int) {
	g.shards = make([]*Shard, sms)
	for i := range g.shards {
		g.shards[i] = &Shard{sm: i, log: &OpLog{}}
	}
	for _, c := range g.resident {
		c.MoveTo(c.SM % sms)
	}
}

// Unsplit folds the shards' counts (instructions, finished CTAs,
// progress) into the grid and makes it one piece again: its warps then
// step on the memory image at once, as Continue needs of a launch the
// timing model stopped mid-way. Every operation the shards logged must
// have been applied (ApplyOp) and taken from them (TakeLog); one that
// was not would be lost, so Unsplit refuses it.
func (g *Grid) Unsplit() error {
	for _, s := range g.shards {
		if len(s.log.ops) > 0 {
			return fmt.Errorf("exec: unsplitting a grid whose SM %d has %d operations not taken", s.sm, len(s.log.ops))
		}
	}
	for _, s := range g.shards {
		g.WarpInsts += s.warpInsts
		g.ThreadInsts += s.threadInsts
		g.Finished += s.finished
		g.epoch += s.epoch
		g.changes += s.changes
	}
	g.shards = nil
	for _, c := range g.resident {
		c.MoveTo(c.SM)
	}
	return nil
}

// MoveTo puts the CTA on SM sm (%smid), its warps stepping with that SM's
// shard when the grid is split: a resumed launch may place a started CTA
// on another SM than the one it started on.
func (c *CTA) MoveTo(sm int) {
	c.SM = sm
	c.sh = nil
	if c.g.shards != nil {
		c.sh = c.g.shards[sm]
	}
	for _, w := range c.warps {
		w.sh, w.sc = c.sh, &c.g.scratch
		if c.sh != nil {
			w.sc = &c.sh.scratch
		}
	}
}

// Shard returns SM sm's shard of a split grid.
func (g *Grid) Shard(sm int) *Shard { return g.shards[sm] }

// Instructions returns the warp- and thread-instructions the grid has
// executed, split or not.
func (g *Grid) Instructions() (warp, thread uint64) {
	warp, thread = g.WarpInsts, g.ThreadInsts
	for _, s := range g.shards {
		warp += s.warpInsts
		thread += s.threadInsts
	}
	return warp, thread
}

// FinishedCTAs is the number of CTAs that completed, split or not.
func (g *Grid) FinishedCTAs() int {
	n := g.Finished
	for _, s := range g.shards {
		n += s.finished
	}
	return n
}

// TakeProgress returns the progress SM sm's warps made since the last
// call (stores and atomics on shared memory, warps finishing: split mode
// counts it in their shard) and clears the shard's count; AddProgress
// then adds it to the grid's, which the Watchdog reads. The window
// engine's SM task takes it as it ends, the SM standing still, and the
// window's end adds the SMs' takings.
func (g *Grid) TakeProgress(sm int) uint64 {
	s := g.shards[sm]
	n := s.epoch
	s.epoch = 0
	return n
}

// AddProgress adds progress taken from the shards (TakeProgress) to the
// grid's.
func (g *Grid) AddProgress(n uint64) { g.epoch += n }

// SetCycle sets the shard's SM's current cycle (%clock, and the cycle of
// the operations it logs from now on).
func (s *Shard) SetCycle(c uint64) { s.cycle = c }

// Mark logs a marker with a tag of the timing model's, ordered among the
// SM's memory operations (OpLog.Mark).
func (s *Shard) Mark(tag int) {
	s.log.ops = append(s.log.ops, memOp{cycle: s.cycle, kind: opMark, sm: int32(s.sm), tag: tag})
}

// Len is the number of operations and markers logged since TakeLog.
func (s *Shard) Len() int { return len(s.log.ops) }

// Writes reports whether logged operation i (since TakeLog) is a store or
// an atomic: one that may change memory when it is applied.
func (s *Shard) Writes(i int) bool { return s.log.Writes(i) }

// Progress counts the progress the shard's warps made that the grid has
// not taken (TakeProgress): stores and atomics on shared memory,
// warps finishing. Global stores and atomics count when they are applied.
func (s *Shard) Progress() uint64 { return s.epoch }

// TakeLog returns the operations logged since the last call and starts a
// new log in spare (emptied; nil: a new one).
func (s *Shard) TakeLog(spare *OpLog) *OpLog {
	out := s.log
	if spare == nil {
		spare = &OpLog{}
	}
	spare.Reset()
	s.log = spare
	return out
}

// OpLog is the global memory operations and markers one SM's warps logged,
// in the order they issued.
type OpLog struct {
	ops []memOp
	// vals holds the operations' lane data: for each, its lanes'
	// addresses in lane order, then a store's values (per lane, its vector
	// elements) or an atomic's operands (every lane's b, then every lane's
	// c).
	vals []uint64
}

type opKind uint8

const (
	opLoad opKind = iota
	opStore
	opAtom
	opMark
)

type memOp struct {
	cycle uint64
	kind  opKind
	sm    int32
	lanes uint32
	at    int32 // index of the first lane's address in vals
	x     *xinst
	dst   [4]*[32]uint64 // the rows a load (dst[:vec]) or atomic (dst[0]) writes; nil: none
	tag   int
}

// Len is the number of logged operations.
func (l *OpLog) Len() int { return len(l.ops) }

// Cycle is the cycle at which operation i issued.
func (l *OpLog) Cycle(i int) uint64 { return l.ops[i].cycle }

// Mark reports whether operation i is a marker (Shard.Mark), with its tag.
func (l *OpLog) Mark(i int) (tag int, ok bool) {
	if l.ops[i].kind != opMark {
		return 0, false
	}
	return l.ops[i].tag, true
}

// Writes reports whether operation i is a store or an atomic.
func (l *OpLog) Writes(i int) bool { k := l.ops[i].kind; return k == opStore || k == opAtom }

// Reset empties the log, keeping its storage.
func (l *OpLog) Reset() {
	clear(l.ops)
	l.ops = l.ops[:0]
	l.vals = l.vals[:0]
}

// logOp starts an operation of kind on the lanes of w's instruction x.
// Its lane data follow in l.vals.
func (w *Warp) logOp(kind opKind, x *xinst, lanes uint32) *memOp {
	l := w.sh.log
	l.ops = append(l.ops, memOp{cycle: w.sh.cycle, kind: kind, sm: int32(w.cta.SM), lanes: lanes, at: int32(len(l.vals)), x: x})
	return &l.ops[len(l.ops)-1]
}

// lateRow is the register row that a logged load or atomic writes for
// x's destination j when the log is applied: nil for none, and for a
// register nothing reads afterwards, whose row a later register may hold
// by then (ptx.Function.Slots).
func (w *Warp) lateRow(x *xinst, j int) *[32]uint64 {
	if x.dst[j] < 0 || x.deadDst&(1<<j) != 0 {
		return nil
	}
	return w.row(x.dst[j])
}

// ldGlobalSplit is ldGlobal in a split grid: the lanes' addresses are
// checked and logged.
func (w *Warp) ldGlobalSplit(x *xinst, m uint32) error {
	w.memRecord(x, MemLoad, m)
	w.polled(x)
	base := w.row(x.abase)
	off := x.aoff
	if err := w.checkGlobalLanes(x, m, base, false); err != nil {
		return err
	}
	op := w.logOp(opLoad, x, m)
	op.dst[0] = w.lateRow(x, 0)
	lg := w.sh.log
	for mm := m; mm != 0; mm &= mm - 1 {
		lg.vals = append(lg.vals, base[bits.TrailingZeros32(mm)]+off)
	}
	return nil
}

// checkGlobalLanes checks every active lane's global address (the error
// resolve gives for one out of range or misaligned) and records the
// addresses for the step record, as ldGlobal and stGlobal do before they
// touch memory.
func (w *Warp) checkGlobalLanes(x *xinst, m uint32, base *[32]uint64, store bool) error {
	mem := w.cta.mem
	n := uint64(len(mem.data))
	size := uint64(x.size)
	off := x.aoff
	rec := w.rec
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		o := a - mem.base
		if o >= n || n-o < size || a&(size-1) != 0 || a < mem.base || mem.checked(a, size) {
			// A fault, or another device's memory in a co-launch.
			if _, _, err := w.resolve(x, l, a, int(size), store); err != nil {
				return err
			}
		}
		if rec != nil {
			rec.Mem.Space[l], rec.Mem.Addr[l] = ptx.SpaceGlobal, a
		}
	}
	return nil
}

// stGlobalSplit is stGlobal in a split grid.
func (w *Warp) stGlobalSplit(x *xinst, m uint32) error {
	w.memRecord(x, MemStore, m)
	base := w.row(x.abase)
	s := w.src(&x.src[0], &w.sc.t[0])
	off := x.aoff
	if err := w.checkGlobalLanes(x, m, base, true); err != nil {
		return err
	}
	w.logOp(opStore, x, m)
	lg := w.sh.log
	for mm := m; mm != 0; mm &= mm - 1 {
		lg.vals = append(lg.vals, base[bits.TrailingZeros32(mm)]+off)
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		lg.vals = append(lg.vals, s[bits.TrailingZeros32(mm)])
	}
	if w.sh.rounds {
		w.overlayStore(m, base, off, int(x.size), 1, &[4]*[32]uint64{s})
	}
	return nil
}

// ldSplit is ld in a split grid: lanes that resolve to global memory are
// logged, the others load now.
func (w *Warp) ldSplit(x *xinst, m uint32) error {
	w.memRecord(x, MemLoad, m)
	if x.space != ptx.SpaceParam && x.space != ptx.SpaceLocal && x.space != ptx.SpaceConst {
		w.polled(x)
	}
	base := w.addrRow(x)
	off := x.aoff + w.localOff(x)
	size := int(x.size)
	vec := int(x.vec)
	var vals [4][32]uint64
	var global uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size*vec, false)
		if err != nil {
			return err
		}
		if globalAddr(x, a) {
			global |= 1 << l
			continue
		}
		for i := 0; i < vec; i++ {
			vals[i][l] = ext(x, load(buf, o+uint64(i*size), size))
		}
	}
	if global != 0 {
		op := w.logOp(opLoad, x, global)
		for i := 0; i < vec; i++ {
			op.dst[i] = w.lateRow(x, i)
		}
		lg := w.sh.log
		for mm := global; mm != 0; mm &= mm - 1 {
			lg.vals = append(lg.vals, base[bits.TrailingZeros32(mm)]+off)
		}
	}
	now := m &^ global
	for i := 0; i < vec && now != 0; i++ {
		d := w.row(x.dst[i])
		for mm := now; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = vals[i][l]
		}
	}
	return nil
}

// stSplit is st in a split grid.
func (w *Warp) stSplit(x *xinst, m uint32) error {
	w.memRecord(x, MemStore, m)
	base := w.addrRow(x)
	off := x.aoff + w.localOff(x)
	size := int(x.size)
	vec := int(x.vec)
	var srcs [4]*[32]uint64
	for i := 0; i < vec; i++ {
		srcs[i] = w.src(&x.src[i], &w.sc.t[i])
	}
	changed := false
	var global uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size*vec, true)
		if err != nil {
			return err
		}
		if globalAddr(x, a) {
			global |= 1 << l
			continue
		}
		for i := 0; i < vec; i++ {
			changed = storeChanged(buf, o+uint64(i*size), size, srcs[i][l]) || changed
		}
	}
	w.progressIf(changed)
	if global != 0 {
		w.logOp(opStore, x, global)
		lg := w.sh.log
		for mm := global; mm != 0; mm &= mm - 1 {
			lg.vals = append(lg.vals, base[bits.TrailingZeros32(mm)]+off)
		}
		for mm := global; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			for i := 0; i < vec; i++ {
				lg.vals = append(lg.vals, srcs[i][l])
			}
		}
		if w.sh.rounds {
			w.overlayStore(global, base, off, size, vec, &srcs)
		}
	}
	return nil
}

// atomSplit is atom in a split grid: lanes on global memory are logged
// with their operands, the others (shared memory) run now, in lane order.
func (w *Warp) atomSplit(x *xinst, m uint32) error {
	w.memRecord(x, MemAtomic, m)
	w.polled(x)
	in := x.in
	base := w.addrRow(x)
	off := x.aoff
	size := int(x.size)
	b := w.src(&x.src[0], &w.sc.t[0])
	c := &zeroRow
	if in.Atom == ptx.AtomCas {
		c = w.src(&x.src[1], &w.sc.t[1])
	}
	var old [32]uint64
	changed := false
	var global uint32
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size, true)
		if err != nil {
			return err
		}
		if globalAddr(x, a) {
			global |= 1 << l
			continue
		}
		v := load(buf, o, size)
		nv := atomApply(in, v, b[l], c[l])
		if nv != v {
			store(buf, o, size, nv)
			changed = true
		}
		old[l] = v
	}
	w.progressIf(changed)
	if global != 0 {
		op := w.logOp(opAtom, x, global)
		if in.Op == ptx.OpAtom {
			op.dst[0] = w.lateRow(x, 0)
		}
		lg := w.sh.log
		for mm := global; mm != 0; mm &= mm - 1 {
			lg.vals = append(lg.vals, base[bits.TrailingZeros32(mm)]+off)
		}
		for mm := global; mm != 0; mm &= mm - 1 {
			lg.vals = append(lg.vals, b[bits.TrailingZeros32(mm)])
		}
		if in.Atom == ptx.AtomCas {
			for mm := global; mm != 0; mm &= mm - 1 {
				lg.vals = append(lg.vals, c[bits.TrailingZeros32(mm)])
			}
		}
		// In a round the result comes when the round ends.
		w.endTurn = w.sh.rounds
	}
	if in.Op == ptx.OpAtom {
		d := w.row(x.dst[0])
		for mm := m &^ global; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = old[l]
		}
	}
	return nil
}

// ApplyOp performs operation i of log l (a load, store or atomic; not a
// marker) on the memory image, as the unsplit grid does when the
// instruction issues: a load or atomic writes its registers, a weak load
// reads through the grid's L1 (SetL1), a store or atomic tells the L1 and
// counts as progress when it changes memory. It reports whether memory
// changed.
func (g *Grid) ApplyOp(l *OpLog, i int) bool {
	changed := g.applyOp(l, i, l.ops[i].lanes, g.l1)
	if changed {
		g.epoch++
	}
	return changed
}

// SplitLanes deals the lanes of operation i of the log (not a marker) by
// the part of memory each lane's address a is in, (a >> shift) & mask
// (below 64): by[p] gets the lanes of part p added, and the mask of the
// parts it touched is returned. A lane's vector elements are in its
// address's line, vectors being aligned to their size.
func (l *OpLog) SplitLanes(i int, shift uint, mask uint64, by *[64]uint32) (parts uint64) {
	op := &l.ops[i]
	k := 0
	for mm := op.lanes; mm != 0; mm &= mm - 1 {
		p := l.vals[int(op.at)+k] >> shift & mask
		by[p] |= mm & -mm
		parts |= 1 << p
		k++
	}
	return parts
}

// ApplyOpLanes is ApplyOp for some of the operation's lanes (SplitLanes),
// through l1 (the view of the grid's L1 for those lanes' addresses, nil
// for none). Calls for disjoint lanes of the same operations may run at
// once when no two touch the same line; applying each part's lanes of a
// sequence of operations in order has the effect of ApplyOp on the
// sequence. It reports whether memory changed and does not count
// progress (NoteChanges).
func (g *Grid) ApplyOpLanes(l *OpLog, i int, lanes uint32, l1 L1) bool {
	return g.applyOp(l, i, lanes, l1)
}

// NoteChanges counts n operations that changed memory (ApplyOpLanes) as
// changes (Changes) and progress.
func (g *Grid) NoteChanges(n uint64) {
	g.epoch += n
	g.changes += n
}

// applyOp applies lanes sub of operation i.
func (g *Grid) applyOp(l *OpLog, i int, sub uint32, gl1 L1) bool {
	op := &l.ops[i]
	x := op.x
	n := bits.OnesCount32(op.lanes)
	addrs := l.vals[op.at : int(op.at)+n]
	size := int(x.size)
	sm := int(op.sm)
	changed := false
	// index is lane's place among the operation's lanes.
	index := func(lane int) int { return bits.OnesCount32(op.lanes & (1<<lane - 1)) }
	switch op.kind {
	case opLoad:
		var l1 L1
		if gl1 != nil && (x.space == ptx.SpaceGlobal || x.space == ptx.SpaceGeneric) && weakLoad(x.in) && gl1.HasStale(sm) {
			l1 = gl1
		}
		for e := 0; e < int(x.vec); e++ {
			d := op.dst[e]
			for mm := sub; mm != 0; mm &= mm - 1 {
				lane := bits.TrailingZeros32(mm)
				a := addrs[index(lane)] + uint64(e*size)
				mem := g.image(a)
				v := load(mem.data, a-mem.base, size)
				if l1 != nil {
					v = l1.LoadWeak(sm, a, size, v)
				}
				if d != nil {
					d[lane] = ext(x, v)
				}
			}
		}
	case opStore:
		vec := int(x.vec)
		vals := l.vals[int(op.at)+n : int(op.at)+n+n*vec]
		for mm := sub; mm != 0; mm &= mm - 1 {
			k := index(bits.TrailingZeros32(mm))
			a := addrs[k]
			mem := g.image(a)
			data, o := mem.data, a-mem.base
			v := vals[k*vec : (k+1)*vec]
			if gl1 != nil {
				for e := range vec {
					eo := o + uint64(e*size)
					gl1.Write(sm, a+uint64(e*size), size, load(data, eo, size), v[e]&sizeMask(size))
				}
			}
			for e := range vec {
				changed = storeChanged(data, o+uint64(e*size), size, v[e]) || changed
			}
		}
	case opAtom:
		in := x.in
		bs := l.vals[int(op.at)+n : int(op.at)+2*n]
		var cs []uint64
		if in.Atom == ptx.AtomCas {
			cs = l.vals[int(op.at)+2*n : int(op.at)+3*n]
		}
		d := op.dst[0]
		for mm := sub; mm != 0; mm &= mm - 1 {
			lane := bits.TrailingZeros32(mm)
			k := index(lane)
			a := addrs[k]
			mem := g.image(a)
			data, o := mem.data, a-mem.base
			var c uint64
			if cs != nil {
				c = cs[k]
			}
			v := load(data, o, size)
			nv := atomApply(in, v, bs[k], c)
			if gl1 != nil {
				gl1.Write(sm, a, size, v, nv&sizeMask(size))
			}
			if nv != v {
				store(data, o, size, nv)
				changed = true
			}
			if d != nil {
				d[lane] = v
			}
		}
	default:
		panic("exec: ApplyOp of a marker")
	}
	return changed
}
