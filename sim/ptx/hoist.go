package ptx

// HoistLoads schedules, within each basic block of fn, every weak load and
// the integer work that computes its address as early as their inputs
// allow, as ptxas schedules the SASS a GPU runs. clang emits a gather
// loop's loads each next to its use (ld index; address; ld value[index];
// add; ld index; ...), for which an in-order warp pays a memory latency
// per element, while the GPU's code issues the independent loads first and
// waits once. It returns how many instructions moved.
//
// Only two kinds of instruction move: weak loads, and register-only
// instructions whose results feed a later load's address in the block
// ("address work"). Each moves up past the instructions before it that it
// does not depend on: one that reads or writes what it writes, or writes
// what it reads, stops it, and so does any store, atomic or reduction,
// fence or barrier, strong (volatile, relaxed, acquire) load, call,
// branch, warp-collective instruction and special-register read (it may
// be a clock). Weak loads may pass one another (two independent loads
// then issue in the other order, back to back). So
// every thread computes the same values, and a weak load, which the memory
// model lets read any value not yet overwritten in its own thread, may only
// see another thread's store earlier. Blocks keep their bounds, so branch
// targets, the control-flow graph and the post-dominators stay valid. The
// liveness and the register estimate stay those of clang's order
// (residency uses the registers measured on the GPU, kernels/attrs, where
// ptxas has already scheduled).
func HoistLoads(fn *Function) int {
	moved := 0
	for _, b := range fn.Blocks {
		feeds := addressWork(fn, b)
		// Fixed instructions (anything neither a weak load nor register
		// work) stay where they are; the runs between them are scheduled.
		start := b.Start
		for i := b.Start; i <= b.End; i++ {
			if i < b.End && movable(&fn.Insts[i]) {
				continue
			}
			moved += scheduleRun(fn, start, i, feeds[start-b.Start:i-b.Start])
			start = i + 1
		}
	}
	return moved
}

// movable reports whether HoistLoads may reorder in: a weak load or an
// instruction that only computes registers.
func movable(in *Inst) bool { return weakLoad(in) || registerOnly(in) }

// scheduleRun list-schedules the movable instructions [s, e) of fn: each
// step takes, of the instructions whose predecessors (by register) are all
// placed, a weak load first, then address work (feeds), then any, each
// kind in program order. It returns how many instructions changed place.
func scheduleRun(fn *Function, s, e int, feeds []bool) int {
	n := e - s
	if n < 2 {
		return 0
	}
	run := append([]Inst(nil), fn.Insts[s:e]...)
	preds := make([]int, n)   // unplaced predecessors
	succs := make([][]int, n) // later instructions that depend on each
	for j := 1; j < n; j++ {
		for i := 0; i < j; i++ {
			if conflicts(&run[j], &run[i]) {
				preds[j]++
				succs[i] = append(succs[i], j)
			}
		}
	}
	rank := func(i int) int {
		switch {
		case weakLoad(&run[i]):
			return 0
		case feeds[i]:
			return 1
		}
		return 2
	}
	placed := make([]bool, n)
	order := make([]int, 0, n)
	for len(order) < n {
		best := -1
		for i := 0; i < n; i++ {
			if !placed[i] && preds[i] == 0 && (best < 0 || rank(i) < rank(best)) {
				best = i
			}
		}
		placed[best] = true
		order = append(order, best)
		for _, j := range succs[best] {
			preds[j]--
		}
	}
	moved := 0
	newFeeds := make([]bool, n)
	for k, i := range order {
		fn.Insts[s+k] = run[i]
		newFeeds[k] = feeds[i]
		if k != i {
			moved++
		}
	}
	copy(feeds, newFeeds)
	return moved
}

// conflicts reports whether x must stay after prev: prev writes what x
// reads or writes, or reads what x writes.
func conflicts(x, prev *Inst) bool {
	conflict := false
	defs := map[RegIndex]bool{}
	forEachDef(x, func(r RegIndex) { defs[r] = true })
	uses := map[RegIndex]bool{}
	forEachUse(x, func(r RegIndex) { uses[r] = true })
	forEachDef(prev, func(r RegIndex) {
		if uses[r] || defs[r] {
			conflict = true
		}
	})
	forEachUse(prev, func(r RegIndex) {
		if defs[r] {
			conflict = true
		}
	})
	return conflict
}

// addressWork marks the register-only instructions of block b whose
// results a later weak load of the block uses, directly or through other
// such instructions, for its address or guard.
func addressWork(fn *Function, b Block) []bool {
	feeds := make([]bool, b.End-b.Start)
	need := map[RegIndex]bool{}
	for i := b.End - 1; i >= b.Start; i-- {
		in := &fn.Insts[i]
		switch {
		case weakLoad(in):
			forEachDef(in, func(r RegIndex) { delete(need, r) })
			forEachUse(in, func(r RegIndex) { need[r] = true })
		case registerOnly(in):
			hit := false
			forEachDef(in, func(r RegIndex) {
				if need[r] {
					hit = true
				}
			})
			if hit {
				feeds[i-b.Start] = true
				forEachDef(in, func(r RegIndex) { delete(need, r) })
				forEachUse(in, func(r RegIndex) { need[r] = true })
			}
		default:
			forEachDef(in, func(r RegIndex) { delete(need, r) })
		}
	}
	return feeds
}

// weakLoad reports whether in is a weak load, which HoistLoads may move.
func weakLoad(in *Inst) bool {
	if in.Op != OpLd && in.Op != OpLdu {
		return false
	}
	if in.Order != OrderNone && in.Order != OrderWeak {
		return false
	}
	switch in.Space {
	case SpaceGlobal, SpaceConst, SpaceParam, SpaceShared, SpaceLocal, SpaceGeneric:
		return true
	}
	return false
}

// registerOnly reports whether in only computes registers from registers
// and immediates: no memory, control, warp-collective or special-register
// operand.
func registerOnly(in *Inst) bool {
	if in.Target != NoTarget || in.Call != nil || in.Addr.Kind != OperandNone {
		return false
	}
	switch in.Op {
	case OpLd, OpLdu, OpSt, OpAtom, OpRed, OpPrefetch, OpBra, OpCall, OpRet, OpExit, OpTrap, OpBrkpt,
		OpBar, OpMembar, OpFence, OpVote, OpShfl, OpActivemask, OpMatch, OpNanosleep, OpPmevent, OpRedux:
		return false
	}
	for i := 0; i < int(in.NSrc); i++ {
		if k := in.Src[i].Kind; k != OperandReg && k != OperandImm {
			return false
		}
	}
	return true
}
