package ptx

import "slices"

// RegisterSlots maps a function's registers onto fewer storage slots: two
// registers share a slot only when no thread ever needs both values at
// once. An executor that keeps a row of lanes per register (bfs_bsp_base's
// push kernel declares 102 registers, of which at most 29 are live at
// once) then touches a third of the memory.
//
// Liveness is per thread, which is what a SIMT executor's storage needs: a
// write by some lanes leaves the other lanes' values in place, so lanes at
// different points of the program (divergence, independent thread
// scheduling) each see their own thread's registers.
type RegisterSlots struct {
	// Of is each register's slot (Function.Regs index -> slot).
	Of []int32
	// N is the number of slots.
	N int
	// LiveIn are the slots of the registers some path reads before writing
	// (ascending): an executor gives them a defined value (zero) at the
	// function's start, before it writes the formal inputs.
	LiveIn []int32
}

// Slots assigns fn's registers to slots. Registers with apart[r] set (nil:
// none) never share a slot with registers without it: callers keep state
// they treat differently (values derived from the clock) in slots of its
// own.
//
// Two registers interfere when one is written where the other is live
// afterwards; an instruction's destinations also interfere with each other
// and with its sources (an executor may write a destination before it has
// read every source). A .func's return parameters are read at every ret,
// and its .reg inputs are written together at its start, where every
// register live at the start is live too. Slots are given greedily in the
// order registers first appear.
func (fn *Function) Slots(apart []bool) RegisterSlots {
	nr := len(fn.Regs)
	res := RegisterSlots{Of: make([]int32, nr)}
	if nr == 0 || len(fn.Blocks) == 0 {
		for r := range res.Of {
			res.Of[r] = int32(r)
		}
		res.N = nr
		return res
	}
	var returns []RegIndex
	for _, p := range fn.Returns() {
		if p.Space == SpaceReg && p.Reg != NoReg {
			returns = append(returns, p.Reg)
		}
	}
	uses := func(in *Inst, f func(RegIndex)) {
		forEachUse(in, f)
		if in.Op == OpRet {
			for _, r := range returns {
				f(r)
			}
		}
	}
	liveIn, liveOut := blockLiveness(fn, uses)

	conflict := make([]regSet, nr)
	for r := range conflict {
		conflict[r] = newRegSet(nr)
	}
	meet := func(a, b RegIndex) {
		if a != b {
			conflict[a].add(b)
			conflict[b].add(a)
		}
	}
	meetAll := func(d RegIndex, s regSet) {
		for w, word := range s {
			conflict[d][w] |= word
		}
		conflict[d].remove(d)
		s.each(func(r RegIndex) {
			if r != d {
				conflict[r].add(d)
			}
		})
	}
	live := newRegSet(nr)
	var defs, srcs []RegIndex
	for b := range fn.Blocks {
		live.copyFrom(liveOut[b])
		for i := fn.Blocks[b].End - 1; i >= fn.Blocks[b].Start; i-- {
			in := &fn.Insts[i]
			defs, srcs = defs[:0], srcs[:0]
			forEachDef(in, func(r RegIndex) { defs = append(defs, r) })
			uses(in, func(r RegIndex) { srcs = append(srcs, r) })
			for k, d := range defs {
				meetAll(d, live)
				for _, e := range defs[:k] {
					meet(d, e)
				}
				for _, s := range srcs {
					meet(d, s)
				}
			}
			if in.Guard == NoReg {
				for _, d := range defs {
					live.remove(d)
				}
			}
			for _, s := range srcs {
				live.add(s)
			}
		}
	}
	atStart := newRegSet(nr)
	atStart.copyFrom(liveIn[0])
	for _, p := range fn.Inputs() {
		if p.Space == SpaceReg && p.Reg != NoReg {
			atStart.add(p.Reg)
		}
	}
	atStart.each(func(r RegIndex) { meetAll(r, atStart) })
	if apart != nil {
		for a := range nr {
			for b := a + 1; b < nr; b++ {
				if apart[a] != apart[b] {
					meet(RegIndex(a), RegIndex(b))
				}
			}
		}
	}

	order := make([]RegIndex, 0, nr)
	seen := newRegSet(nr)
	visit := func(r RegIndex) {
		if !seen.has(r) {
			seen.add(r)
			order = append(order, r)
		}
	}
	for _, p := range fn.Inputs() {
		if p.Space == SpaceReg && p.Reg != NoReg {
			visit(p.Reg)
		}
	}
	for i := range fn.Insts {
		forEachDef(&fn.Insts[i], visit)
		uses(&fn.Insts[i], visit)
	}
	for r := range nr {
		visit(RegIndex(r))
	}
	for r := range res.Of {
		res.Of[r] = -1
	}
	taken := make([]bool, nr)
	for _, r := range order {
		clear(taken[:res.N])
		conflict[r].each(func(o RegIndex) {
			if s := res.Of[o]; s >= 0 {
				taken[s] = true
			}
		})
		s := slices.Index(taken[:res.N], false)
		if s < 0 {
			s = res.N
			res.N++
		}
		res.Of[r] = int32(s)
	}
	liveIn[0].each(func(r RegIndex) {
		if !slices.Contains(res.LiveIn, res.Of[r]) {
			res.LiveIn = append(res.LiveIn, res.Of[r])
		}
	})
	slices.Sort(res.LiveIn)
	return res
}

// DeadDefs reports, per instruction, which of its destinations (bit j:
// Dst[j]) are registers no instruction reads afterwards, on any path (with
// the liveness of Slots: a .func's return parameters are read at every
// ret). An executor that writes such a destination late may skip it: the
// register's slot may already hold a later register (Slots shares it).
func (fn *Function) DeadDefs() []uint8 {
	dead := make([]uint8, len(fn.Insts))
	nr := len(fn.Regs)
	if nr == 0 || len(fn.Blocks) == 0 {
		return dead
	}
	var returns []RegIndex
	for _, p := range fn.Returns() {
		if p.Space == SpaceReg && p.Reg != NoReg {
			returns = append(returns, p.Reg)
		}
	}
	uses := func(in *Inst, f func(RegIndex)) {
		forEachUse(in, f)
		if in.Op == OpRet {
			for _, r := range returns {
				f(r)
			}
		}
	}
	_, liveOut := blockLiveness(fn, uses)
	live := newRegSet(nr)
	for b := range fn.Blocks {
		live.copyFrom(liveOut[b])
		for i := fn.Blocks[b].End - 1; i >= fn.Blocks[b].Start; i-- {
			in := &fn.Insts[i]
			for j := 0; j < int(in.NDst); j++ {
				if o := in.Dst[j]; o.Kind == OperandReg && o.Reg != NoReg && !live.has(o.Reg) {
					dead[i] |= 1 << j
				}
			}
			if in.Guard == NoReg {
				forEachDef(in, live.remove)
			}
			uses(in, live.add)
		}
	}
	return dead
}
