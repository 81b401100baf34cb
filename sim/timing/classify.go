package timing

import (
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// class is the timing class of an instruction: which of SMConfig's
// ClassTimings it pays and which pipeline it occupies.
type class uint8

const (
	clsInteger class = iota
	clsIntegerMultiply
	clsIntegerDivide
	clsFloat32
	clsFloat64
	clsSpecial
	clsBranch
	clsCollective
	clsConstLoad
	clsSharedLoad
	clsSharedStore
	clsSharedAtomic
	clsGlobalLoad
	clsGlobalStore
	clsGlobalAtomic
	clsBarrier
	clsFence
	numClasses
)

var classNames = [numClasses]string{
	"integer", "integer_multiply", "integer_divide", "float32", "float64",
	"special_function", "branch", "warp_collective", "const_load",
	"shared_load", "shared_store", "shared_atomic",
	"global_load", "global_store", "global_atomic", "barrier", "fence",
}

func (c class) String() string { return classNames[c] }

// timingOf returns the configured timing of a class.
func (c *SMConfig) timingOf(cl class) ClassTiming {
	switch cl {
	case clsInteger:
		return c.Integer
	case clsIntegerMultiply:
		return c.IntegerMultiply
	case clsIntegerDivide:
		return c.IntegerDivide
	case clsFloat32:
		return c.Float32
	case clsFloat64:
		return c.Float64
	case clsSpecial:
		return c.SpecialFunction
	case clsBranch:
		return c.Branch
	case clsCollective:
		return c.WarpCollective
	case clsConstLoad:
		return c.ConstLoad
	case clsSharedLoad:
		return c.SharedLoad
	case clsSharedStore:
		return c.SharedStore
	case clsSharedAtomic:
		return c.SharedAtomic
	case clsGlobalLoad:
		return c.GlobalLoad
	case clsGlobalStore:
		return c.GlobalStore
	case clsGlobalAtomic:
		return c.GlobalAtomic
	case clsBarrier:
		return c.Barrier
	case clsFence:
		return c.Fence
	}
	panic("timing: unknown class")
}

// memKind says what memory an instruction may touch, known before it
// issues.
type memKind uint8

const (
	memNone    memKind = iota
	memShared          // shared space only
	memGlobal          // global or local space only (through the LSU)
	memGeneric         // generic addressing: either, resolved per lane
)

// instInfo is what the SM needs to know about an instruction before it
// issues: its class, its register operands for the scoreboard, and the
// memory it may touch. It is computed once per function.
type instInfo struct {
	cls  class
	mem  memKind
	call bool // call or ret: the scoreboard drains first
	// bypassL1: a strong global load (volatile, or relaxed/acquire at a
	// scope wider than the CTA) that must not hit in L1.
	bypassL1 bool
	// invalidateL1: a fence (membar or fence) wider than the CTA, which
	// empties the SM's L1 (see fenceInvalidatesL1).
	invalidateL1 bool
	// warpAggregated: a global atomic that ptxas turns into one warp
	// reduction and one atomic from a single lane
	// (ptx.WarpAggregatedReductions): it reaches the memory system as one
	// lane's operation, after the reduction's latency.
	warpAggregated bool
	// hasDst: the instruction writes registers (dst lists them).
	nsrc, ndst uint8
	src        [10]ptx.RegIndex
	dst        [4]ptx.RegIndex
}

// readyAt is the cycle at which warp w's scoreboard lets the instruction
// issue: its sources and destinations ready, and for a call or ret every
// register (never: a load it waits for is still in flight), which is
// w.readyMax unless a load with destinations is in flight.
func (info *instInfo) readyAt(w *warpCtx) uint64 {
	ready := w.ready
	t := uint64(0)
	for j := 0; j < int(info.nsrc); j++ {
		t = max(t, ready[info.src[j]])
	}
	for j := 0; j < int(info.ndst); j++ {
		t = max(t, ready[info.dst[j]])
	}
	if info.call {
		if w.pendingDst > 0 {
			return never
		}
		t = max(t, w.readyMax)
	}
	return t
}

// analyse computes the instInfo of every instruction of fn.
func analyse(fn *ptx.Function) []instInfo {
	infos := make([]instInfo, len(fn.Insts))
	aggregated := ptx.WarpAggregatedReductions(fn)
	for i := range fn.Insts {
		infos[i] = infoOf(&fn.Insts[i])
		infos[i].warpAggregated = aggregated[i]
	}
	return infos
}

func infoOf(in *ptx.Inst) instInfo {
	var x instInfo
	addSrc := func(r ptx.RegIndex) {
		if r == ptx.NoReg {
			return
		}
		for j := 0; j < int(x.nsrc); j++ {
			if x.src[j] == r {
				return
			}
		}
		if int(x.nsrc) < len(x.src) {
			x.src[x.nsrc] = r
			x.nsrc++
		}
	}
	addDst := func(r ptx.RegIndex) {
		for j := 0; j < int(x.ndst); j++ {
			if x.dst[j] == r {
				return
			}
		}
		if int(x.ndst) < len(x.dst) {
			x.dst[x.ndst] = r
			x.ndst++
		}
	}
	addSrc(in.Guard)
	for j := 0; j < int(in.NSrc) && j < len(in.Src); j++ {
		if o := in.Src[j]; o.Kind == ptx.OperandReg {
			addSrc(o.Reg)
		}
	}
	if in.Addr.Kind == ptx.OperandAddr {
		addSrc(in.Addr.Reg)
	}
	for j := 0; j < int(in.NDst) && j < len(in.Dst); j++ {
		if o := in.Dst[j]; o.Kind == ptx.OperandReg {
			addDst(o.Reg)
		}
	}
	x.cls, x.mem = classify(in)
	x.call = in.Op == ptx.OpCall || in.Op == ptx.OpRet
	x.bypassL1 = strongLoad(in) && x.mem != memShared && x.mem != memNone
	x.invalidateL1 = fenceInvalidatesL1(in)
	return x
}

// fenceInvalidatesL1 says whether in is a fence after which the SM's L1
// must not serve a copy older than the fence: membar.gl, membar.sys, and
// fence (sc, acq_rel, acquire or release) at cluster, gpu or sys scope.
//
// The PTX ISA ("membar/fence", and the memory consistency model's
// release/acquire patterns) requires that a thread which observes another
// thread's release (its fence, then its store to a flag) and then executes
// a fence at the same scope sees, in its later loads, every write the
// other thread made before its release; a membar performs the thread's
// prior reads "when the value read ... cannot be modified by another
// thread at the indicated level". NVIDIA's L1 is not coherent across SMs,
// so to honour this the fence must make the SM drop its L1 copies:
// NVIDIA's description of the SASS MEMBAR says that stale data may still
// be read from L1 after MEMBAR.GL unless an L1 invalidation (CCTL.IVALL,
// which MEMBAR can also carry fused, .IVALL) comes before the read, and the
// compiler emits one with GPU-scope fences. Without it a fused kernel that
// crosses a grid barrier and reads other CTAs' results with plain loads
// would read stale lines. (Not yet checked on our H100's SASS or by a
// hardware run: an estimate of the mechanism.) The model invalidates the whole
// L1 of the warp's SM when the fence issues (memsys.System.InvalidateL1):
// every warp on the SM then misses, re-reading L2. A CTA-scope fence
// (membar.cta, __threadfence_block) orders only within the CTA, whose
// warps share the SM's L1, and invalidates nothing. Acquire loads and
// atomics (ld.acquire.gpu) are not modelled as invalidating: the project's
// kernels poll with ld.volatile and release and acquire with membar.gl.
func fenceInvalidatesL1(in *ptx.Inst) bool {
	if in.Op != ptx.OpMembar && in.Op != ptx.OpFence {
		return false
	}
	return in.Scope != ptx.ScopeCTA
}

// strongLoad says whether in is a load that NVIDIA GPUs since Volta never
// serve from the (non-coherent) L1: ld.volatile, and ld.relaxed or
// ld.acquire at a scope wider than the CTA (cluster, gpu, sys; an omitted
// scope counts as gpu, PTX's default). Weak loads, ld.global.nc and ldu may
// hit in L1.
func strongLoad(in *ptx.Inst) bool {
	if in.Op != ptx.OpLd {
		return false
	}
	switch in.Order {
	case ptx.OrderVolatile:
		return true
	case ptx.OrderRelaxed, ptx.OrderAcquire:
		return in.Scope != ptx.ScopeCTA
	}
	return false
}

// floatClass is the class of float arithmetic of type t.
func floatClass(t ptx.Type) class {
	if t == ptx.TypeF64 {
		return clsFloat64
	}
	return clsFloat32
}

// classify maps an instruction to its timing class and memory kind.
func classify(in *ptx.Inst) (class, memKind) {
	switch in.Op {
	case ptx.OpLd, ptx.OpLdu:
		switch in.Space {
		case ptx.SpaceParam, ptx.SpaceConst:
			return clsConstLoad, memNone
		case ptx.SpaceShared:
			return clsSharedLoad, memShared
		case ptx.SpaceGlobal, ptx.SpaceLocal:
			return clsGlobalLoad, memGlobal
		}
		return clsGlobalLoad, memGeneric
	case ptx.OpSt:
		switch in.Space {
		case ptx.SpaceParam:
			return clsInteger, memNone // a call sequence's argument
		case ptx.SpaceShared:
			return clsSharedStore, memShared
		case ptx.SpaceGlobal, ptx.SpaceLocal:
			return clsGlobalStore, memGlobal
		}
		return clsGlobalStore, memGeneric
	case ptx.OpAtom, ptx.OpRed:
		switch in.Space {
		case ptx.SpaceShared:
			return clsSharedAtomic, memShared
		case ptx.SpaceGlobal:
			return clsGlobalAtomic, memGlobal
		}
		return clsGlobalAtomic, memGeneric
	case ptx.OpPrefetch:
		return clsInteger, memNone
	case ptx.OpBra, ptx.OpCall, ptx.OpRet, ptx.OpExit, ptx.OpTrap, ptx.OpBrkpt:
		return clsBranch, memNone
	case ptx.OpBar:
		if in.Bar == ptx.BarWarpSync {
			return clsCollective, memNone
		}
		return clsBarrier, memNone
	case ptx.OpMembar, ptx.OpFence:
		return clsFence, memNone
	case ptx.OpVote, ptx.OpShfl, ptx.OpActivemask, ptx.OpMatch, ptx.OpRedux:
		return clsCollective, memNone
	case ptx.OpMul, ptx.OpMad, ptx.OpMul24, ptx.OpMad24:
		if in.Type.IsFloat() {
			return floatClass(in.Type), memNone
		}
		return clsIntegerMultiply, memNone
	case ptx.OpFma:
		return floatClass(in.Type), memNone
	case ptx.OpDiv, ptx.OpRem:
		switch {
		case in.Type == ptx.TypeF64:
			return clsFloat64, memNone
		case in.Type.IsFloat():
			return clsSpecial, memNone
		}
		return clsIntegerDivide, memNone
	case ptx.OpRcp, ptx.OpSqrt:
		if in.Type == ptx.TypeF64 {
			return clsFloat64, memNone
		}
		return clsSpecial, memNone
	case ptx.OpRsqrt, ptx.OpSin, ptx.OpCos, ptx.OpEx2, ptx.OpLg2, ptx.OpTanh:
		return clsSpecial, memNone
	case ptx.OpCvt:
		if in.Type == ptx.TypeF64 || in.SrcType == ptx.TypeF64 {
			return clsFloat64, memNone
		}
		if in.Type.IsFloat() || in.SrcType.IsFloat() {
			return clsFloat32, memNone
		}
		return clsInteger, memNone
	case ptx.OpSet, ptx.OpSlct:
		if in.SrcType.IsFloat() {
			return floatClass(in.SrcType), memNone
		}
		if in.Type.IsFloat() {
			return floatClass(in.Type), memNone
		}
		return clsInteger, memNone
	case ptx.OpSelp, ptx.OpMov, ptx.OpPack, ptx.OpUnpack, ptx.OpCvta:
		return clsInteger, memNone
	}
	// Add, sub, min, max, abs, neg, setp, testp, copysign and the bit
	// operations: float or integer by type.
	if in.Type.IsFloat() {
		return floatClass(in.Type), memNone
	}
	return clsInteger, memNone
}
