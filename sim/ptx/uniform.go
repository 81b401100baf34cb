package ptx

// Warp-uniform values and the reductions ptxas aggregates per warp.
//
// ptxas (sm_80 and later) rewrites a global atomic whose result is unused
// and whose address it can prove is the same in every lane into one warp
// reduction (REDUX) and one atomic from a single elected lane. On the H100
// the atomic_spread benchmark (every lane of a CTA does atomicMin on the
// CTA's word) compiles to REDUX.MIN + one REDG.E.MIN per warp, while
// atomic_contention_global, whose lanes' addresses depend on %tid, keeps
// one REDG per lane (SASS of kernels/ptx/atomic_contention.ptx from CUDA
// 13's ptxas -arch=sm_90; sim/timing's doc gives the figures). The timing
// model charges such an instruction as the hardware runs it; these
// analyses say which instructions qualify, from the PTX alone, as
// conservatively as a compiler must.

// WarpUniformRegs reports, per register slot of fn, whether its value is
// provably the same in every lane of a warp that reads it. A register is
// uniform when it has exactly one definition, that definition reads only
// uniform operands (immediates, variable addresses, uniform registers, the
// special registers that are the same across a warp's lanes, an entry's
// own kernel parameters) under no guard or a uniform one, and its opcode
// computes a lane's result from its operands alone (arithmetic, bits,
// conversions, comparisons, selections) or is a warp-wide result (vote,
// activemask, redux). Everything else is not: lane ids, clocks, loads from
// memory other than an entry's parameters or .const at a uniform address,
// atomics, shuffles, call results, and registers with several definitions
// (a loop variable or the join of two paths: lanes may have taken
// different ones).
func WarpUniformRegs(fn *Function) []bool {
	n := fn.NumRegs
	defs := make([]int32, n)  // how many instructions write each register
	defAt := make([]int32, n) // the instruction of a register's one definition
	for i := range fn.Insts {
		forEachDef(&fn.Insts[i], func(r RegIndex) {
			defs[r]++
			defAt[r] = int32(i)
		})
	}
	uniform := make([]bool, n)
	for r := range n {
		uniform[r] = defs[r] == 1 && uniformOpcode(fn, &fn.Insts[defAt[r]])
	}
	// Greatest fixed point: drop a register whose definition reads a
	// register that is not uniform, until nothing changes.
	for changed := true; changed; {
		changed = false
		for r := range n {
			if !uniform[r] {
				continue
			}
			in := &fn.Insts[defAt[r]]
			ok := in.Guard == NoReg || uniform[in.Guard]
			if !warpWide(in) {
				forEachUse(in, func(s RegIndex) {
					if !uniform[s] || s == RegIndex(r) {
						ok = false
					}
				})
			}
			if !ok {
				uniform[r] = false
				changed = true
			}
		}
	}
	return uniform
}

// uniformOpcode: in's result is uniform when its register operands are
// (the caller checks those).
func uniformOpcode(fn *Function, in *Inst) bool {
	if in.Call != nil {
		return false
	}
	for i := 0; i < int(in.NSrc); i++ {
		if in.Src[i].Kind == OperandSpecial && !uniformSpecial(in.Src[i].Special) {
			return false
		}
	}
	switch in.Op {
	case OpLd, OpLdu:
		switch in.Space {
		case SpaceParam:
			// An entry's inputs are the same for every thread; a device
			// function's come from its callers, and a call sequence's
			// param symbols from the callee.
			return fn.Kind == KindEntry && in.Addr.SymSpace == SpaceParam && in.Addr.Sym >= 0 && int(in.Addr.Sym) < fn.NumInputs
		case SpaceConst:
			return true
		}
		return false
	case OpAtom, OpRed, OpShfl, OpMatch, OpSt, OpPrefetch, OpBar, OpMembar, OpFence,
		OpBra, OpCall, OpRet, OpExit, OpTrap, OpBrkpt, OpNanosleep, OpPmevent:
		return false
	}
	return true
}

// warpWide: the result is computed over the warp's lanes and given to
// each of them (vote, activemask, redux), whatever each lane contributed.
func warpWide(in *Inst) bool {
	return in.Op == OpVote || in.Op == OpActivemask || in.Op == OpRedux
}

// uniformSpecial: special registers with one value across a warp's lanes
// (%warpid and %smid are too, but may change while a warp runs).
func uniformSpecial(s SpecialReg) bool {
	switch s {
	case SRegNtidX, SRegNtidY, SRegNtidZ, SRegCtaidX, SRegCtaidY, SRegCtaidZ,
		SRegNctaidX, SRegNctaidY, SRegNctaidZ, SRegNWarpID, SRegNSMID, SRegGridID,
		SRegDynamicSmemSize, SRegTotalSmemSize, SRegWarpSize:
		return true
	}
	return false
}

// WarpAggregatedReductions reports, per instruction of fn, whether ptxas
// turns it into one warp reduction and one atomic from a single lane: an
// atom or red on global memory, a 32-bit integer add, min, max, and, or or
// xor, whose result no instruction reads and whose address is
// warp-uniform. Shared-memory atomics are left alone (not observed on the
// H100's SASS), as are 64-bit and floating-point ones (REDUX has neither).
func WarpAggregatedReductions(fn *Function) []bool {
	uniform := WarpUniformRegs(fn)
	read := newRegSet(fn.NumRegs)
	for i := range fn.Insts {
		forEachUse(&fn.Insts[i], read.add)
	}
	out := make([]bool, len(fn.Insts))
	for i := range fn.Insts {
		in := &fn.Insts[i]
		if (in.Op != OpAtom && in.Op != OpRed) || in.Space != SpaceGlobal {
			continue
		}
		switch in.Atom {
		case AtomAdd, AtomMin, AtomMax, AtomAnd, AtomOr, AtomXor:
		default:
			continue
		}
		switch in.Type {
		case TypeU32, TypeS32, TypeB32:
		default:
			continue
		}
		if in.Op == OpAtom && in.NDst > 0 && in.Dst[0].Kind == OperandReg && read.has(in.Dst[0].Reg) {
			continue
		}
		if in.Addr.Kind != OperandAddr || (in.Addr.Reg != NoReg && !uniform[in.Addr.Reg]) {
			continue
		}
		out[i] = true
	}
	return out
}
