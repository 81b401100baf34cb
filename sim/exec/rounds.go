package exec

import (
	"math/bits"

	"github.com/warpgraph/warpgraph/sim/internal/workpool"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Functional rounds: how Run and Continue execute a grid, on one thread or
// several (a pool of spinning helpers, sim/internal/workpool, kept for the
// run: a round is often tens of microseconds), with the same result for
// every thread count. A round's bookkeeping visits the warps that took a
// turn, and its end (the warm, the logs, each SM's turns) runs on the
// threads too.
//
// The grid is split by SM (Split) for the run. A round gives every ready
// warp of the resident CTAs one turn; the SMs' turns run at once, each
// SM's warps in slot order on one thread. During a round the memory image
// does not change: a warp's global loads read it as it was at the round's
// start, overlaid with the stores that its own SM's warps made earlier in
// the round (the SM's store overlay), and its global stores and atomics
// are logged in its SM's shard. At the round's end the logs are applied as
// if in SM order, each in issue order (apply: on the threads, memory dealt
// to them by line); an atomic's returned values reach its registers then. A warp's turn ends after its slice of
// instructions, at a barrier or exit, and right after a global atomic (its
// result is not known before the round ends) or a fence wider than the
// CTA (what it orders must be visible before the warp goes on). So a
// warp reads its own and its CTA's stores at once, other SMs' stores from
// the next round on, and every operation is applied as one; fences order
// a warp's accesses as the PTX memory model asks. Which thread ran which
// SM changes nothing, so the result depends on the launch alone.

// storeOverlay holds the bytes an SM's warps stored to global memory in
// the current round, by 8-byte word: an open-addressing table keyed by
// word address + 1 (0: empty), with the bytes each word's stores wrote.
type storeOverlay struct {
	keys  []uint64
	vals  []uint64
	masks []uint8 // bytes of vals that hold stored data
	used  []int32 // occupied slots, to clear
	// seen has a bit per hash of the words stored to, so that most loads
	// of words not stored to skip the table.
	seen [64]uint64
}

// seenBit is the bit of word key in storeOverlay.seen.
func seenBit(key uint64) (int, uint64) {
	h := key * 0x9e3779b97f4a7c15 >> 52
	return int(h >> 6), 1 << (h & 63)
}

// empty reports whether nothing was stored this round.
func (o *storeOverlay) empty() bool { return len(o.used) == 0 }

// reset empties the overlay, keeping its storage.
func (o *storeOverlay) reset() {
	if len(o.used) == 0 {
		return // put sets seen bits only with a word it uses
	}
	for _, i := range o.used {
		o.keys[i] = 0
	}
	o.used = o.used[:0]
	clear(o.seen[:])
}

// find returns the slot of word w+1: its own, or the empty one where it
// would go.
func (o *storeOverlay) find(key uint64) int {
	mask := uint64(len(o.keys) - 1)
	i := key * 0x9e3779b97f4a7c15 >> 32 & mask
	for o.keys[i] != 0 && o.keys[i] != key {
		i = (i + 1) & mask
	}
	return int(i)
}

// grow doubles the table (to 1024 slots at first) and rehashes it.
func (o *storeOverlay) grow() {
	keys, vals, masks := o.keys, o.vals, o.masks
	n := max(2*len(keys), 1024)
	o.keys, o.vals, o.masks = make([]uint64, n), make([]uint64, n), make([]uint8, n)
	used := o.used
	o.used = make([]int32, 0, n/2)
	for _, i := range used {
		j := o.find(keys[i])
		o.keys[j], o.vals[j], o.masks[j] = keys[i], vals[i], masks[i]
		o.used = append(o.used, int32(j))
	}
}

// put records a store of the low size bytes of v at address a (aligned to
// size, at most 8).
func (o *storeOverlay) put(a uint64, size int, v uint64) {
	if 2*(len(o.used)+1) > len(o.keys) {
		o.grow()
	}
	key := a>>3 + 1
	j, bit := seenBit(key)
	o.seen[j] |= bit
	i := o.find(key)
	if o.keys[i] == 0 {
		o.keys[i], o.vals[i], o.masks[i] = key, 0, 0
		o.used = append(o.used, int32(i))
	}
	shift := (a & 7) * 8
	bm := sizeMask(size) << shift
	o.vals[i] = o.vals[i]&^bm | v<<shift&bm
	o.masks[i] |= sizeBytes(size) << (a & 7)
}

// get returns v, the image's size bytes at a, with the bytes the overlay
// holds for them put over it.
func (o *storeOverlay) get(a uint64, size int, v uint64) uint64 {
	key := a>>3 + 1
	if j, bit := seenBit(key); o.seen[j]&bit == 0 {
		return v
	}
	i := o.find(key)
	if o.keys[i] == 0 {
		return v
	}
	m := o.masks[i] >> (a & 7) & sizeBytes(size)
	if m == 0 {
		return v
	}
	bm := byteMaskBits(m)
	return v&^bm | o.vals[i]>>((a&7)*8)&bm
}

// sizeBytes is the mask of the first size bytes of a word.
func sizeBytes(size int) uint8 { return uint8(1<<size - 1) }

// byteMaskBits widens a mask of bytes to a mask of their bits.
func byteMaskBits(m uint8) uint64 {
	var b uint64
	for mm := m; mm != 0; mm &= mm - 1 {
		b |= 0xff << (8 * bits.TrailingZeros8(mm))
	}
	return b
}

// overlaid returns the SM's store overlay when the grid runs in rounds and
// the overlay holds something (nil otherwise).
func (w *Warp) overlaid() *storeOverlay {
	if sh := w.sh; sh != nil && sh.rounds && !sh.over.empty() {
		return &sh.over
	}
	return nil
}

// yieldsTurn reports whether instruction in ends the warp's turn in a
// round: a fence or membar wider than the CTA.
func yieldsTurn(in *ptx.Inst) bool {
	return (in.Op == ptx.OpMembar || in.Op == ptx.OpFence) && in.Scope != ptx.ScopeCTA
}

// accessed hands a global access of lanes (their addresses base[l]+off)
// to the run's RunOptions.Warm, when the run warms an L2: at once in a
// run in order, at the round's end in a run in rounds (rounder.warm). Call
// it before the instruction writes its destination, which may be the base
// register.
func (w *Warp) accessed(kind MemKind, x *xinst, lanes uint32, base *[32]uint64, off uint64) {
	g := w.g
	if g.warm == nil || lanes == 0 {
		return
	}
	if sh := w.sh; sh != nil && sh.rounds {
		// Only loads come here in a round: its stores and atomics are in
		// the SM's log.
		sh.noteWarm(g, MemLoad, lanes, int32(x.size)*int32(x.vec), func(l int) uint64 { return base[l] + off })
		return
	}
	for mm := lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		g.warmAddr[l] = base[l] + off
	}
	g.handWarm(kind, lanes, int(x.size)*int(x.vec))
}

// handWarm hands RunOptions.Warm one global access of lanes whose
// addresses are in g.warmAddr.
func (g *Grid) handWarm(kind MemKind, lanes uint32, size int) {
	g.warmAcc = MemAccess{Kind: kind, Size: size, Lanes: lanes, Space: &allGlobal, Addr: &g.warmAddr}
	g.warm(&g.warmAcc)
}

// allGlobal is the Space of every access accessed hands over.
var allGlobal = func() (a [WarpSize]ptx.Space) {
	for i := range a {
		a[i] = ptx.SpaceGlobal
	}
	return a
}()

// overlayStore puts a logged store's global lanes in the SM's overlay.
func (w *Warp) overlayStore(lanes uint32, base *[32]uint64, off uint64, size, vec int, srcs *[4]*[32]uint64) {
	o := &w.sh.over
	for mm := lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		for e := range vec {
			o.put(a+uint64(e*size), size, srcs[e][l])
		}
	}
}

// startPool starts the rounder's pool when it has more than one thread;
// stopPool ends it.
func (r *rounder) startPool() {
	if r.threads <= 1 {
		return
	}
	r.pool = new(workpool.Pool)
	r.pool.Start(r.threads - 1)
	r.smTask = func(k int) {
		for _, s := range r.chunk(k) {
			r.errs[s] = r.smTurns(s)
		}
	}
	r.settleTask = func(k int) {
		lo := k * r.chunkSMs
		for i := range r.chunk(k) {
			r.settleSM(lo + i)
		}
	}
	// One warm group per thread, at most 64 (noteWarm's mask of groups).
	r.warmAccs = make([]warmScratch, min(r.threads, 64))
	r.warmTask = func(p int) { r.warmGroup(p, &r.warmAccs[p].acc, &r.warmAccs[p].addr) }
	r.smOwner = func(k int) int { return k }
}

func (r *rounder) stopPool() {
	if r.pool != nil {
		r.pool.Stop()
		r.pool = nil
	}
}

// beginRounds splits the grid for a functional run in rounds.
func (g *Grid) beginRounds() {
	g.Split(g.SMs())
	for _, s := range g.shards {
		s.rounds = true
	}
}

// endRounds makes the grid one piece again, dropping what a round that
// ended in an error left unapplied.
func (g *Grid) endRounds() {
	for _, s := range g.shards {
		s.log.Reset()
		s.over.reset()
		for k := range s.warmBy {
			s.warmBy[k].recs, s.warmBy[k].addrs = s.warmBy[k].recs[:0], s.warmBy[k].addrs[:0]
		}
	}
	if err := g.Unsplit(); err != nil {
		panic(err)
	}
}

// rounder runs a grid's rounds over its slots.
type rounder struct {
	g       *Grid
	slots   []*CTA
	slice   int
	threads int
	// bySM lists, per SM, the slots of its CTAs in slot order, and busy
	// the SMs with any, as they were when live (the slots holding a CTA,
	// which runSlots keeps) was builtLive; ran lists, per SM, the warps
	// that took a turn in the round, in order.
	bySM      [][]int
	busy      []int
	live      int
	builtLive int
	ran       [][]ranTurn
	errs      []error
	// pool runs the SMs' turns when threads > 1; smTask and smOwner are
	// its task and owner functions, made once.
	pool       *workpool.Pool
	smTask     func(int)
	settleTask func(int)
	warmTask   func(int)
	warmAccs   []warmScratch
	smOwner    func(int) int
	// chunkSMs is how many busy SMs one task takes (chunk), nChunks the
	// round's tasks.
	chunkSMs, nChunks int
	// before is the grid's change count before the round's logs were
	// applied (turnState.backOff).
	before uint64
	// changed says, per SM and logged operation, whether applying it
	// changed memory; hits collects, per part of memory, the operations
	// whose lanes in it did (apply).
	changed [][]bool
	hits    [][]opRef
}

// opRef is operation k of SM s's log.
type opRef struct{ s, k int32 }

// applyLine is the granularity by which apply deals lanes to threads:
// 128-byte lines, within which every aligned access (16 bytes at most)
// lies.
const applyLine = 7

// minParallelApply is the fewest logged operations in a round for which
// apply uses several threads.
const minParallelApply = 256

// apply applies the round's logs in SM order, each in issue order, and
// records which operations changed memory (r.changed). With several
// threads, memory is dealt by
// 128-byte line to a power-of-two number of parts, one thread each, which
// applies its lanes of every operation in that same order: parts share no
// byte and an operation's lanes write distinct registers, so the result is
// the sequential one.
func (r *rounder) apply() {
	g := r.g
	if len(r.changed) != len(g.shards) {
		r.changed = make([][]bool, len(g.shards))
	}
	ops := 0
	for s, sh := range g.shards {
		n := len(sh.log.ops)
		ops += n
		if cap(r.changed[s]) < n {
			r.changed[s] = make([]bool, n, 2*n)
		}
		r.changed[s] = r.changed[s][:n]
		clear(r.changed[s])
	}
	parts := 1
	for parts < min(r.threads, 64) {
		parts *= 2
	}
	if parts == 1 || ops < minParallelApply {
		for s, sh := range g.shards {
			lg := sh.log
			for k := range lg.ops {
				if g.applyOp(lg, k, lg.ops[k].lanes, nil) {
					r.changed[s][k] = true
				}
			}
		}
		return
	}
	if len(r.hits) < parts {
		r.hits = make([][]opRef, parts)
	}
	part := func(p int) {
		hits := r.hits[p][:0]
		mask := uint64(parts - 1)
		for s, sh := range g.shards {
			lg := sh.log
			for k := range lg.ops {
				op := &lg.ops[k]
				var lanes uint32
				j := int(op.at)
				for mm := op.lanes; mm != 0; mm &= mm - 1 {
					if lg.vals[j]>>applyLine&mask == uint64(p) {
						lanes |= mm & -mm
					}
					j++
				}
				if lanes != 0 && g.applyOp(lg, k, lanes, nil) {
					hits = append(hits, opRef{int32(s), int32(k)})
				}
			}
		}
		r.hits[p] = hits
	}
	// parts > 1 means more than one thread, so the pool is there.
	r.pool.Do(parts, part)
	for _, hits := range r.hits[:parts] {
		for _, h := range hits {
			r.changed[h.s][h.k] = true
		}
	}
}

// turns gives every ready warp one turn, the SMs at once on r.threads
// threads, and returns the error of the lowest-numbered SM that met one.
func (r *rounder) turns() error {
	g := r.g
	if r.bySM == nil {
		r.bySM = make([][]int, len(g.shards))
		r.ran = make([][]ranTurn, len(g.shards))
		r.errs = make([]error, len(g.shards))
		r.builtLive = -1
	}
	if r.live != r.builtLive {
		// A slot emptied since the lists were made (a finished CTA's slot
		// takes the next waiting CTA of the same SM, so only an emptied
		// slot changes them).
		r.builtLive = r.live
		for s := range r.bySM {
			r.bySM[s] = r.bySM[s][:0]
		}
		for i, c := range r.slots {
			if c != nil {
				r.bySM[c.SM] = append(r.bySM[c.SM], i)
			}
		}
		r.busy = r.busy[:0]
		for s, idx := range r.bySM {
			if len(idx) > 0 {
				r.busy = append(r.busy, s)
			}
		}
	}
	busy := r.busy
	if r.pool == nil || len(busy) <= 1 {
		for _, s := range busy {
			r.errs[s] = r.smTurns(s)
		}
	} else {
		// Each run of SMs goes first to the same worker round after
		// round, so that its warps stay in one core's caches.
		r.pool.DoOwned(r.chunks(), r.smTask, r.smOwner) // settle reuses the runs
	}
	for _, s := range busy {
		if err := r.errs[s]; err != nil {
			return err
		}
	}
	return nil
}

// warmScratch is one warm worker's access (rounder.warmGroup).
type warmScratch struct {
	acc  MemAccess
	addr [WarpSize]uint64
	_    [64]byte // keeps workers' scratch off each other's cache lines
}

// chunksPerThread is how many tasks a thread's share of a round's busy
// SMs is cut into: an SM's turns are often a microsecond or two of work,
// so a task per SM would cost its claim as much again, and a few per
// thread leave some to take from a thread that falls behind.
const chunksPerThread = 4

// chunks cuts the busy SMs into consecutive runs for the pool's tasks
// (chunkSMs SMs each, the last fewer) and returns how many there are
// (nChunks, which the round's settle uses again).
func (r *rounder) chunks() int {
	r.chunkSMs = max((len(r.busy)+r.threads*chunksPerThread-1)/(r.threads*chunksPerThread), 1)
	r.nChunks = (len(r.busy) + r.chunkSMs - 1) / r.chunkSMs
	return r.nChunks
}

// chunk is task k's busy SMs.
func (r *rounder) chunk(k int) []int {
	return r.busy[k*r.chunkSMs : min((k+1)*r.chunkSMs, len(r.busy))]
}

// ranTurn is a warp that took a turn in the round: warp j of the CTA in
// slot i.
type ranTurn struct{ slot, warp int32 }

// smTurns runs the turns of SM s's ready warps, in slot order, and lists
// them in r.ran[s]. A warp that a barrier releases during the round still
// runs in it when it comes after the releasing one.
func (r *rounder) smTurns(s int) error {
	sh := r.g.shards[s]
	ran := r.ran[s][:0]
	defer func() { r.ran[s] = ran }()
	for _, i := range r.bySM[s] {
		c := r.slots[i]
		for j := c.nextReady(0); j >= 0; j = c.nextReady(j + 1) {
			t := &c.turns[j]
			if t.sitsOut(r.g.changes) {
				sh.satOut++
				continue
			}
			w := c.warps[j]
			changes := sh.changes
			w.turnReads = 0
			n, err := w.run(r.slice)
			t.turnN, w.turnOps, w.turnChanged = int32(n), len(sh.log.ops), sh.changes != changes
			ran = append(ran, ranTurn{int32(i), int32(j)})
			if err != nil {
				return err
			}
		}
	}
	if g := r.g; g.warm != nil {
		sh.noteLogWarm(g)
	}
	return nil
}

// settle ends a round: it applies the SMs' logs (apply), records each
// warp's turn (settleSM, the SMs at once), and folds the shards' counts
// into the grid. It returns the warps whose turn was not idle, whether
// any warp ran, whether any sat out, and the warp-instructions the
// sat-out turns stand for.
func (r *rounder) settle() (working int, progressed, waiting bool, satOut uint64) {
	g := r.g
	r.before = g.changes
	r.warm()
	r.apply()
	if r.pool != nil && len(r.busy) > 1 {
		r.pool.DoOwned(r.nChunks, r.settleTask, r.smOwner)
	} else {
		for k := range r.busy {
			r.settleSM(k)
		}
	}
	for _, s := range r.busy {
		sh := g.shards[s]
		working += sh.working
		progressed = progressed || sh.progressed
		sh.working, sh.progressed = 0, false
	}
	for _, sh := range g.shards {
		g.WarpInsts += sh.warpInsts
		g.ThreadInsts += sh.threadInsts
		g.Finished += sh.finished
		g.epoch += sh.epoch
		g.changes += sh.changes
		g.GlobalAtomics += sh.atomics
		if sh.satOut > 0 {
			waiting = true
			satOut += sh.satOut * uint64(r.slice)
		}
		sh.warpInsts, sh.threadInsts, sh.finished, sh.epoch, sh.changes, sh.atomics, sh.satOut = 0, 0, 0, 0, 0, 0, 0
	}
	return working, progressed, waiting, satOut
}

// settleSM records the turns of the round's k-th busy SM once its log is
// applied: which changed memory (counted as the SM's changes), each
// warp's back-off, and the SM's working turns and atomics; then it
// empties the SM's log and overlay. It touches that SM's warps and shard
// alone.
func (r *rounder) settleSM(k int) {
	s := r.busy[k]
	sh := r.g.shards[s]
	lg := sh.log
	changed := r.changed[s]
	op := 0
	for _, rt := range r.ran[s] {
		c := r.slots[rt.slot]
		w := c.warps[rt.warp]
		for ; op < w.turnOps; op++ {
			if changed[op] {
				sh.epoch++
				sh.changes++
				w.turnChanged = true // the turn changed memory
			}
		}
		t := &c.turns[rt.warp]
		n := int(t.turnN)
		if n > 0 {
			sh.progressed = true
		}
		idle := n == r.slice && !w.turnChanged && w.turnReads == readStrong
		t.backOff(idle, r.before)
		if n > 0 && !idle {
			sh.working++
		}
	}
	for k := range lg.ops {
		if op := &lg.ops[k]; op.kind == opAtom {
			sh.atomics += uint64(bits.OnesCount32(op.lanes))
		}
	}
	lg.Reset()
	sh.over.reset()
}

// warm hands the round's global accesses to RunOptions.Warm, when the run
// warms an L2: SM by SM in their order, each SM's loads in issue order,
// then its logged stores and atomics in issue order, so that the L2's tags
// end the same for every thread count. With RunOptions.WarmPartOf and a
// pool, the workers warm at once, each the lanes of its group of parts
// (part modulo the workers), which the SMs' turns filed by group
// (Shard.noteWarm, noteLogWarm), in that same order: a part's state sees
// the accesses the serial warm would hand it, in the same order.
func (r *rounder) warm() {
	g := r.g
	if g.warm == nil {
		return
	}
	if r.pool == nil || g.warmPartOf == nil {
		r.warmGroup(0, &g.warmAcc, &g.warmAddr)
	} else {
		r.pool.Do(len(r.warmAccs), r.warmTask)
	}
	for _, sh := range g.shards {
		for k := range sh.warmBy {
			sh.warmBy[k].recs, sh.warmBy[k].addrs = sh.warmBy[k].recs[:0], sh.warmBy[k].addrs[:0]
		}
	}
}

// warmGroup hands RunOptions.Warm the round's accesses filed under group,
// SM by SM, using acc and addr for the access.
func (r *rounder) warmGroup(group int, acc *MemAccess, addr *[WarpSize]uint64) {
	g := r.g
	for _, sh := range g.shards {
		if group >= len(sh.warmBy) {
			continue
		}
		wb := &sh.warmBy[group]
		for _, rec := range wb.recs {
			i := int(rec.at)
			for mm := rec.lanes; mm != 0; mm &= mm - 1 {
				addr[bits.TrailingZeros32(mm)] = wb.addrs[i]
				i++
			}
			*acc = MemAccess{Kind: rec.kind, Size: int(rec.size), Lanes: rec.lanes, Space: &allGlobal, Addr: addr}
			g.warm(acc)
		}
	}
}

// noteWarm files a global access of lanes for the round's warm, the
// address of lane l being addr(l): under group 0 alone, or, when the run
// warms in parts, each lane under its part's group.
func (sh *Shard) noteWarm(g *Grid, kind MemKind, lanes uint32, size int32, addr func(l int) uint64) {
	groups := max(g.warmGroups, 1)
	if len(sh.warmBy) < groups {
		sh.warmBy = append(sh.warmBy, make([]warmRecords, groups-len(sh.warmBy))...)
	}
	if groups == 1 {
		wb := &sh.warmBy[0]
		wb.recs = append(wb.recs, warmRecord{kind: kind, lanes: lanes, size: size, at: int32(len(wb.addrs))})
		for mm := lanes; mm != 0; mm &= mm - 1 {
			wb.addrs = append(wb.addrs, addr(bits.TrailingZeros32(mm)))
		}
		return
	}
	// The lanes' groups, then a record per group with lanes.
	var mine [WarpSize]uint8
	var used uint64
	for mm := lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		k := g.warmPartOf(addr(l)) % groups
		mine[l] = uint8(k)
		used |= 1 << k
	}
	for ; used != 0; used &= used - 1 {
		k := bits.TrailingZeros64(used)
		wb := &sh.warmBy[k]
		var ls uint32
		at := int32(len(wb.addrs))
		for mm := lanes; mm != 0; mm &= mm - 1 {
			if l := bits.TrailingZeros32(mm); int(mine[l]) == k {
				ls |= 1 << l
				wb.addrs = append(wb.addrs, addr(l))
			}
		}
		wb.recs = append(wb.recs, warmRecord{kind: kind, lanes: ls, size: size, at: at})
	}
}

// noteLogWarm files the SM's logged stores and atomics of the round for
// the warm (noteWarm), after its loads.
func (sh *Shard) noteLogWarm(g *Grid) {
	lg := sh.log
	for k := range lg.ops {
		op := &lg.ops[k]
		var kind MemKind
		var size int32
		switch op.kind {
		case opStore:
			kind, size = MemStore, int32(op.x.size)*int32(op.x.vec)
		case opAtom:
			kind, size = MemAtomic, int32(op.x.size)
		default:
			continue
		}
		addrs := lg.vals[op.at:]
		var pos [WarpSize]uint8
		i := uint8(0)
		for mm := op.lanes; mm != 0; mm &= mm - 1 {
			pos[bits.TrailingZeros32(mm)] = i
			i++
		}
		sh.noteWarm(g, kind, op.lanes, size, func(l int) uint64 { return addrs[pos[l]] })
	}
}
