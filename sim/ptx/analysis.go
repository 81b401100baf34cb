package ptx

import (
	"fmt"
	"math/bits"
	"slices"
)

// Analyses over lowered functions: basic blocks, immediate post-dominators
// (the SIMT reconvergence points), register liveness and the registers-per-
// thread estimate, and each entry's shared-memory layout.

func analyseModule(m *Module) error {
	for _, fn := range m.Funcs {
		if fn.Extern {
			continue
		}
		if err := analyseFunction(fn); err != nil {
			return err
		}
	}
	return analyseCalls(m)
}

// analyseFunction is the part of analyseModule that reads one function
// only: its control flow, post-dominators and liveness.
func analyseFunction(fn *Function) error {
	if err := buildCFG(fn); err != nil {
		return fmt.Errorf("in %s: %w", fn.Name, err)
	}
	postDominators(fn)
	liveness(fn)
	return nil
}

// analyseCalls is the part of analyseModule that follows calls, once every
// function is analysed.
func analyseCalls(m *Module) error {
	for _, fn := range m.Funcs {
		fn.Callees = directCallees(fn)
	}
	est := &regEstimator{m: m, inner: make([]int, len(m.Funcs)), preds: make([]int, len(m.Funcs)), state: make([]uint8, len(m.Funcs))}
	for i, fn := range m.Funcs {
		est.estimate(i)
		fn.RegEstimate = RegEstimate{Regs32: roundUpEven(est.inner[i] + ReservedRegs), Preds: est.preds[i]}
		if fn.Extern {
			fn.RegEstimate = RegEstimate{}
		}
	}
	for _, fn := range m.Funcs {
		if fn.Kind == KindEntry && !fn.Extern {
			layoutShared(m, fn)
		}
	}
	return nil
}

func roundUpEven(n int) int { return (n + 1) &^ 1 }

// endsBlock reports whether control may leave the straight line after in.
func endsBlock(in *Inst) bool {
	switch in.Op {
	case OpBra, OpRet, OpExit, OpTrap:
		return true
	}
	return false
}

// exits reports whether in leaves the function (for the lanes that run it).
func exits(in *Inst) bool {
	return in.Op == OpRet || in.Op == OpExit || in.Op == OpTrap
}

// buildCFG splits the function into basic blocks and links them.
func buildCFG(fn *Function) error {
	n := len(fn.Insts)
	fn.Blocks, fn.BlockOf = nil, make([]int, n)
	if n == 0 {
		return nil
	}
	leader := make([]bool, n+1)
	leader[0] = true
	for i := range fn.Insts {
		in := &fn.Insts[i]
		if in.Op == OpBra {
			if in.Target < 0 || int(in.Target) >= n {
				return posErrorf(in, "branch to a label after the last instruction")
			}
			leader[in.Target] = true
		}
		if endsBlock(in) {
			leader[i+1] = true
		}
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && !leader[j] {
			j++
		}
		b := len(fn.Blocks)
		fn.Blocks = append(fn.Blocks, Block{Start: i, End: j, IPDom: -1})
		for k := i; k < j; k++ {
			fn.BlockOf[k] = b
		}
		i = j
	}
	for b := range fn.Blocks {
		blk := &fn.Blocks[b]
		last := &fn.Insts[blk.End-1]
		addSucc := func(s int) {
			if !slices.Contains(blk.Succs, s) {
				blk.Succs = append(blk.Succs, s)
			}
		}
		fallthroughOK := true
		switch {
		case last.Op == OpBra:
			addSucc(fn.BlockOf[last.Target])
			fallthroughOK = last.Guard != NoReg
		case exits(last):
			fallthroughOK = last.Guard != NoReg
		}
		if fallthroughOK {
			if blk.End >= n {
				return posErrorf(last, "control reaches the end of the function without ret or exit")
			}
			addSucc(b + 1)
		}
	}
	for b := range fn.Blocks {
		for _, s := range fn.Blocks[b].Succs {
			fn.Blocks[s].Preds = append(fn.Blocks[s].Preds, b)
		}
	}
	return nil
}

func posErrorf(in *Inst, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", in.Pos.PTXLine, fmt.Sprintf(format, args...))
}

// blockExits reports whether some lanes leave the function at the end of
// block b (an edge to the virtual exit node).
func blockExits(fn *Function, b int) bool {
	return exits(&fn.Insts[fn.Blocks[b].End-1])
}

// postDominators computes each block's immediate post-dominator with the
// Cooper-Harvey-Kennedy iterative algorithm on the reversed CFG, rooted at
// a virtual exit node that every ret/exit/trap block reaches. Blocks that
// cannot reach the exit (an infinite loop) keep IPDom -1. Then every branch
// gets its reconvergence instruction.
func postDominators(fn *Function) {
	nb := len(fn.Blocks)
	if nb == 0 {
		return
	}
	exit := nb
	// Reverse-graph successors of x are x's CFG predecessors; the exit
	// node's are the exiting blocks.
	rsucc := func(x int) []int {
		if x == exit {
			var out []int
			for b := 0; b < nb; b++ {
				if blockExits(fn, b) {
					out = append(out, b)
				}
			}
			return out
		}
		return fn.Blocks[x].Preds
	}
	// Reverse-graph predecessors of x are its CFG successors (plus exit).
	rpred := func(x int) []int {
		s := fn.Blocks[x].Succs
		if blockExits(fn, x) {
			s = append(slices.Clone(s), exit)
		}
		return s
	}
	// Postorder of the reversed graph, iteratively to survive deep CFGs.
	post := make([]int, nb+1)
	for i := range post {
		post[i] = -1
	}
	var order []int
	visited := make([]bool, nb+1)
	type frame struct {
		node int
		next int
		succ []int
	}
	stack := []frame{{exit, 0, rsucc(exit)}}
	visited[exit] = true
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.succ) {
			s := top.succ[top.next]
			top.next++
			if !visited[s] {
				visited[s] = true
				stack = append(stack, frame{s, 0, rsucc(s)})
			}
			continue
		}
		post[top.node] = len(order)
		order = append(order, top.node)
		stack = stack[:len(stack)-1]
	}
	idom := make([]int, nb+1)
	for i := range idom {
		idom[i] = -1
	}
	idom[exit] = exit
	intersect := func(a, b int) int {
		for a != b {
			for post[a] < post[b] {
				a = idom[a]
			}
			for post[b] < post[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i := len(order) - 1; i >= 0; i-- { // reverse postorder
			x := order[i]
			if x == exit {
				continue
			}
			newIdom := -1
			for _, pr := range rpred(x) {
				if post[pr] < 0 || idom[pr] < 0 {
					continue
				}
				if newIdom < 0 {
					newIdom = pr
				} else {
					newIdom = intersect(pr, newIdom)
				}
			}
			if newIdom >= 0 && idom[x] != newIdom {
				idom[x] = newIdom
				changed = true
			}
		}
	}
	for b := range fn.Blocks {
		if idom[b] >= 0 && idom[b] != exit {
			fn.Blocks[b].IPDom = idom[b]
		} else {
			fn.Blocks[b].IPDom = -1
		}
	}
	for i := range fn.Insts {
		in := &fn.Insts[i]
		if in.Op != OpBra {
			continue
		}
		in.Reconverge = NoTarget
		if pd := fn.Blocks[fn.BlockOf[i]].IPDom; pd >= 0 {
			in.Reconverge = int32(fn.Blocks[pd].Start)
		}
	}
}

// regSet is a bitset over register slots.
type regSet []uint64

func newRegSet(n int) regSet         { return make(regSet, (n+63)/64) }
func (s regSet) add(r RegIndex)      { s[r/64] |= 1 << (uint(r) % 64) }
func (s regSet) remove(r RegIndex)   { s[r/64] &^= 1 << (uint(r) % 64) }
func (s regSet) has(r RegIndex) bool { return s[r/64]&(1<<(uint(r)%64)) != 0 }
func (s regSet) copyFrom(o regSet)   { copy(s, o) }

// each calls f for every register in the set, ascending.
func (s regSet) each(f func(RegIndex)) {
	for w, word := range s {
		for word != 0 {
			f(RegIndex(w*64 + bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
}

// forEachUse calls f for every register the instruction reads.
func forEachUse(in *Inst, f func(RegIndex)) {
	if in.Guard != NoReg {
		f(in.Guard)
	}
	for i := 0; i < int(in.NSrc); i++ {
		if in.Src[i].Kind == OperandReg {
			f(in.Src[i].Reg)
		}
	}
	if in.Addr.Kind == OperandAddr && in.Addr.Reg != NoReg {
		f(in.Addr.Reg)
	}
	if in.Call != nil {
		for _, a := range in.Call.Args {
			if a.Kind == OperandReg {
				f(a.Reg)
			}
		}
	}
}

// forEachDef calls f for every register the instruction writes.
func forEachDef(in *Inst, f func(RegIndex)) {
	for i := 0; i < int(in.NDst); i++ {
		if in.Dst[i].Kind == OperandReg {
			f(in.Dst[i].Reg)
		}
	}
	if in.Call != nil {
		for _, r := range in.Call.Rets {
			if r.Kind == OperandReg {
				f(r.Reg)
			}
		}
	}
}

// regWeight is a register's cost in 32-bit units; predicates cost 0 here
// and are counted separately.
func regWeight(t Type) int {
	switch {
	case t == TypePred:
		return 0
	case t.Size() <= 4:
		return 1
	default:
		return t.Size() / 4
	}
}

// blockLiveness runs backward dataflow over the blocks: the registers live
// at each block's start and end, given what each instruction reads (uses).
// A guarded definition does not kill the old value: lanes whose guard is
// false keep it.
func blockLiveness(fn *Function, uses func(*Inst, func(RegIndex))) (in, out []regSet) {
	nb := len(fn.Blocks)
	nr := len(fn.Regs)
	use := make([]regSet, nb)
	def := make([]regSet, nb)
	in = make([]regSet, nb)
	out = make([]regSet, nb)
	for b := range fn.Blocks {
		use[b], def[b], in[b], out[b] = newRegSet(nr), newRegSet(nr), newRegSet(nr), newRegSet(nr)
		for i := fn.Blocks[b].Start; i < fn.Blocks[b].End; i++ {
			ins := &fn.Insts[i]
			uses(ins, func(r RegIndex) {
				if !def[b].has(r) {
					use[b].add(r)
				}
			})
			if ins.Guard == NoReg {
				forEachDef(ins, def[b].add)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for b := nb - 1; b >= 0; b-- {
			for w := range out[b] {
				var o uint64
				for _, s := range fn.Blocks[b].Succs {
					o |= in[s][w]
				}
				out[b][w] = o
				ni := use[b][w] | (o &^ def[b][w])
				if ni != in[b][w] {
					in[b][w] = ni
					changed = true
				}
			}
		}
	}
	return in, out
}

// liveness runs the dataflow (blockLiveness) and records the maximum
// register pressure. Pressure at an instruction is the set live after it
// plus what it defines (a destination needs a register even if dead).
func liveness(fn *Function) {
	nr := len(fn.Regs)
	if len(fn.Blocks) == 0 {
		fn.Liveness = Liveness{}
		return
	}
	in, out := blockLiveness(fn, forEachUse)
	weights := make([]int, nr)
	for r, ri := range fn.Regs {
		weights[r] = regWeight(ri.Type)
	}
	pressure := func(s regSet) (w32, preds int) {
		for wi, word := range s {
			for word != 0 {
				bit := bits.TrailingZeros64(word)
				word &= word - 1
				r := wi*64 + bit
				if fn.Regs[r].Type == TypePred {
					preds++
				} else {
					w32 += weights[r]
				}
			}
		}
		return
	}
	res := Liveness{MaxLiveAt: -1}
	for r := range nr {
		if in[0].has(RegIndex(r)) {
			res.LiveIn = append(res.LiveIn, RegIndex(r))
		}
	}
	fn.callLiveAcross = map[int][2]int{}
	live := newRegSet(nr)
	point := newRegSet(nr)
	for b := range fn.Blocks {
		live.copyFrom(out[b])
		for i := fn.Blocks[b].End - 1; i >= fn.Blocks[b].Start; i-- {
			ins := &fn.Insts[i]
			point.copyFrom(live)
			forEachDef(ins, point.add)
			w, pr := pressure(point)
			if w > res.MaxLive32 || res.MaxLiveAt < 0 || (w == res.MaxLive32 && i < res.MaxLiveAt) {
				res.MaxLive32, res.MaxLiveAt = w, i
			}
			res.MaxLivePred = max(res.MaxLivePred, pr)
			if ins.Op == OpCall {
				across := newRegSet(nr)
				across.copyFrom(live)
				forEachDef(ins, across.remove)
				aw, ap := pressure(across)
				fn.callLiveAcross[i] = [2]int{aw, ap}
			}
			if ins.Guard == NoReg {
				forEachDef(ins, live.remove)
			}
			forEachUse(ins, live.add)
		}
	}
	fn.Liveness = res
}

func directCallees(fn *Function) []int {
	var out []int
	for i := range fn.Insts {
		if c := fn.Insts[i].Call; c != nil && !slices.Contains(out, int(c.Callee)) {
			out = append(out, int(c.Callee))
		}
	}
	slices.Sort(out)
	return out
}

// regEstimator combines each function's own pressure with its callees':
// a call needs the registers live across it plus the callee's need.
// Recursion is cut by using a function's own pressure when it is re-entered.
type regEstimator struct {
	m     *Module
	inner []int // estimate without reserved registers
	preds []int
	state []uint8 // 0 new, 1 in progress, 2 done
}

func (e *regEstimator) estimate(f int) (int, int) {
	fn := e.m.Funcs[f]
	switch e.state[f] {
	case 1:
		return fn.Liveness.MaxLive32, fn.Liveness.MaxLivePred
	case 2:
		return e.inner[f], e.preds[f]
	}
	e.state[f] = 1
	regs, preds := fn.Liveness.MaxLive32, fn.Liveness.MaxLivePred
	for i := range fn.Insts {
		c := fn.Insts[i].Call
		if c == nil {
			continue
		}
		cr, cp := e.estimate(int(c.Callee))
		across := fn.callLiveAcross[i]
		regs = max(regs, across[0]+cr)
		preds = max(preds, across[1]+cp)
	}
	e.inner[f], e.preds[f], e.state[f] = regs, preds, 2
	return regs, preds
}

// layoutShared places the shared variables an entry uses (directly or
// through callees) in declaration order, each at its alignment, and the
// dynamic shared memory after them.
func layoutShared(m *Module, entry *Function) {
	used := make([]bool, len(m.Vars))
	seen := make([]bool, len(m.Funcs))
	var visit func(f int)
	visit = func(f int) {
		if seen[f] {
			return
		}
		seen[f] = true
		fn := m.Funcs[f]
		mark := func(o Operand) {
			if (o.Kind == OperandSymbol || o.Kind == OperandAddr) && o.Sym >= 0 && o.SymSpace == SpaceShared {
				used[o.Sym] = true
			}
		}
		for i := range fn.Insts {
			in := &fn.Insts[i]
			for k := 0; k < int(in.NSrc); k++ {
				mark(in.Src[k])
			}
			mark(in.Addr)
		}
		for _, c := range fn.Callees {
			visit(c)
		}
	}
	visit(entry.Index)
	entry.SharedLayout = make([]int64, len(m.Vars))
	off, dynAlign := 0, 16
	for i, v := range m.Vars {
		entry.SharedLayout[i] = -1
		if !used[i] || v.Space != SpaceShared {
			continue
		}
		if v.Dynamic {
			dynAlign = max(dynAlign, v.Align)
			continue
		}
		a := max(v.Align, 1)
		off = (off + a - 1) / a * a
		entry.SharedLayout[i] = int64(off)
		off += v.Size
	}
	entry.StaticSharedSize = off
	entry.DynamicSharedOffset = (off + dynAlign - 1) / dynAlign * dynAlign
	for i, v := range m.Vars {
		if used[i] && v.Dynamic {
			entry.SharedLayout[i] = int64(entry.DynamicSharedOffset)
		}
	}
}
