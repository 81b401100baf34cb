package ptx

// This file is the contract between the front end and the executor. It is
// the lowered form of a PTX module: every string of the source has been
// resolved to an index, so the executor's hot loop is
//
//	in := &fn.Insts[pc]
//	switch in.Op { ... }
//
// Changes to this file are additive only: new opcodes, new enum values, new
// fields. Existing names and meanings do not change.
//
// Conventions the executor relies on:
//
//   - Registers. Every register of a function (any width, predicates
//     included) is one slot of a per-thread register file of uint64 values,
//     indexed by RegIndex. A value of a type narrower than 64 bits lives in
//     the low bits of its slot; the decoder never relies on the high bits,
//     so the executor must truncate or extend by Inst.Type (or the operand's
//     own width) when it reads. A predicate slot holds 0 or 1.
//   - Immediates. Operand.Imm holds the bits: integers two's-complement,
//     sign-extended to 64 bits (mov.u32 %r, -1 holds 0xFFFF_FFFF_FFFF_FFFF;
//     truncate by type); an immediate of a float operand is stored as the
//     IEEE bits of that operand's type (f32 bits in the low 32 bits, f64
//     bits for f64), whatever its spelling (0f..., 0d..., 1.5, 3), so the
//     executor never converts. An operand's type is Inst.Type, except for
//     cvt, set and slct's selector (Inst.SrcType), the predicate sources of
//     setp/selp/set (pred) and shift amounts, bit positions and lengths,
//     member masks, lanes and barrier ids (32-bit).
//   - Symbols. An operand that names a variable carries its Space and an
//     index: Module.Vars for global, shared and const; Function.Params for
//     param; Function.Locals for local. Addresses of variables are the
//     executor's business (see Variable, Function.SharedLayout).
//   - Control flow. Branch targets are instruction indexes into the same
//     function's Insts; call targets are indexes into Module.Funcs. Every
//     branch carries its reconvergence point (Inst.Reconverge).

// RegIndex is a slot in a function's per-thread register file.
type RegIndex int32

// NoReg marks an absent register (no guard, no base register).
const NoReg RegIndex = -1

// NoTarget marks an absent branch target or reconvergence point. As a
// reconvergence point it means "the paths meet only at function exit".
const NoTarget int32 = -1

// Opcode is the operation of an instruction. Variants that change the
// semantics in a way the executor must distinguish (hi/lo/wide, rounding,
// comparison, atomic operation...) live in the other fields of Inst, not in
// the opcode.
type Opcode uint16

// Opcodes. The comment gives the PTX mnemonic(s) and the operand layout as
// Dst / Src / Addr (Dst[0], Src[0]... in order).
const (
	OpInvalid Opcode = iota

	// Data movement.
	OpMov    // mov: Dst[0] = Src[0] (register, immediate, special register or symbol address)
	OpPack   // mov.bN d, {a, b[, c, d]}: Dst[0] = concatenation of Src[0..NSrc-1], Src[0] in the low bits; element size = Type.Size()/NSrc
	OpUnpack // mov.bN {a, b[, c, d]}, s: Dst[0..NDst-1] = pieces of Src[0], Dst[0] from the low bits
	OpCvt    // cvt.Rounding.Type.SrcType: Dst[0] = convert(Src[0]); Sat, Ftz in Mods
	OpCvta   // cvta[.to].Space.Type: Dst[0] = Src[0] converted from Space to generic (or generic to Space when ModTo)

	// Integer and float arithmetic. Type is the operand type; for mul.wide
	// and mad.wide (ModWide) Type is the narrow source type and the
	// destination (and mad's addend) has type Type.Wide().
	OpAdd  // add: Dst[0] = Src[0] + Src[1] (ModCarryOut for add.cc)
	OpAddc // addc: Dst[0] = Src[0] + Src[1] + carry (ModCarryOut for addc.cc)
	OpSub  // sub: Dst[0] = Src[0] - Src[1]
	OpSubc // subc: Dst[0] = Src[0] - Src[1] - borrow
	OpMul  // mul: Dst[0] = Src[0] * Src[1]; ModHi, ModLo, ModWide for integers
	OpMad  // mad: Dst[0] = Src[0] * Src[1] + Src[2]; ModHi, ModLo, ModWide; for floats rounds once like fma
	OpMul24
	OpMad24
	OpFma // fma.rn: Dst[0] = Src[0]*Src[1]+Src[2] rounded once
	OpDiv // div: integer division truncates; float division by Rounding (or ModApprox / ModFull)
	OpRem // rem
	OpAbs
	OpNeg
	OpMin
	OpMax
	OpSad      // sad: Dst[0] = |Src[0]-Src[1]| + Src[2]
	OpRcp      // rcp: Dst[0] = 1/Src[0]
	OpSqrt     // sqrt
	OpRsqrt    // rsqrt.approx
	OpSin      // sin.approx
	OpCos      // cos.approx
	OpEx2      // ex2.approx: 2^Src[0]
	OpLg2      // lg2.approx: log2(Src[0])
	OpTanh     // tanh.approx
	OpCopysign // copysign: Dst[0] = |Src[1]| with the sign of Src[0]
	OpTestp    // testp.Testp: Dst[0] (pred) = property of Src[0]

	// Bits.
	OpAnd
	OpOr
	OpXor
	OpNot
	OpCnot  // cnot: Dst[0] = Src[0] == 0 ? 1 : 0
	OpShl   // shl: shift amounts >= width give 0
	OpShr   // shr: arithmetic for signed types, logical otherwise
	OpShf   // shf.{l,r}.{wrap,clamp}.b32: Dst[0] = funnel shift of Src[1]:Src[0] (hi:lo) by Src[2]
	OpPopc  // popc: Dst[0] (u32) = population count
	OpClz   // clz: Dst[0] (u32) = leading zeros
	OpBrev  // brev
	OpBfe   // bfe: Dst[0] = extract Src[0] from bit Src[1], length Src[2] (sign-extends for signed types)
	OpBfi   // bfi: Dst[0] = insert Src[0] into Src[1] at bit Src[2], length Src[3]
	OpBfind // bfind: Dst[0] = position of most significant non-sign bit (ModShiftAmt)
	OpPrmt  // prmt.b32[.mode]: Dst[0] = byte permute of Src[0], Src[1] by selector Src[2]

	// Comparison and selection.
	OpSetp // setp.Cmp[.BoolOp].Type: Dst[0] = cmp(Src[0], Src[1]) [BoolOp Src[2]]; Dst[1] (NDst==2) = !cmp [BoolOp Src[2]]
	OpSet  // set.Cmp[.BoolOp].Type.SrcType: compares Src[0], Src[1] as SrcType [BoolOp pred Src[2]]; Dst[0] (Type) = all-ones (integer) or 1.0 (float) if true, else 0
	OpSelp // selp: Dst[0] = Src[2] ? Src[0] : Src[1]
	OpSlct // slct.Type.SrcType: Dst[0] = Src[2] >= 0 ? Src[0] : Src[1]

	// Memory. Addr holds the address; Vec is 1, 2 or 4.
	OpLd       // ld.Space[.Vec].Type: Dst[0..Vec-1] = memory at Addr
	OpLdu      // ldu: like ld
	OpSt       // st.Space[.Vec].Type: memory at Addr = Src[0..Vec-1]
	OpAtom     // atom.Space.Atom.Type: Dst[0] = old value at Addr; memory = Atom(old, Src[0]) (cas: Src[0] compare, Src[1] new)
	OpRed      // red.Space.Atom.Type: like atom without a destination
	OpPrefetch // prefetch / prefetchu: no effect on values

	// Control flow.
	OpBra  // bra[.uni]: jump to Target; Reconverge is the immediate post-dominator
	OpCall // call[.uni]: see Inst.Call
	OpRet  // ret[.uni]
	OpExit // exit
	OpTrap // trap: aborts the kernel
	OpBrkpt

	// Synchronisation and warp collectives.
	OpBar        // bar / barrier: see BarMode. sync/arrive: Src[0] barrier id, Src[1] (NSrc==2) thread count; warp.sync: Src[0] member mask; red.*: Dst[0] = reduction of the predicate Src[NSrc-1] (Src[0] id, Src[1] count when NSrc==3)
	OpMembar     // membar.Scope
	OpFence      // fence.Order.Scope
	OpVote       // vote[.sync].Vote: Dst[0] = vote of pred Src[0]; Src[1] member mask when ModSync
	OpShfl       // shfl[.sync].Shfl.b32: Dst[0] = value (or the sink), Dst[1] (NDst==2) lane-valid pred; Src: a, b (lane/delta), c (clamp|segment mask), and membermask when ModSync (NSrc 4, else 3)
	OpActivemask // activemask.b32: Dst[0] = mask of active lanes
	OpMatch      // match.{any,all}.sync: Dst[0] = mask; Src[0] value, Src[1] membermask
	OpNanosleep  // nanosleep.u32 Src[0]
	OpPmevent
	// OpRedux is redux.sync.Atom.Type: Dst[0] = the reduction (Atom: add,
	// min, max on .u32/.s32; and, or, xor on .b32) of Src[0] over the
	// lanes of member mask Src[1].
	OpRedux
)

// Type is an instruction or register type.
type Type uint8

// Types.
const (
	TypeNone Type = iota
	TypePred
	TypeB8
	TypeB16
	TypeB32
	TypeB64
	TypeU8
	TypeU16
	TypeU32
	TypeU64
	TypeS8
	TypeS16
	TypeS32
	TypeS64
	TypeF16
	TypeF16x2
	TypeF32
	TypeF64
	TypeB128
)

// Size is the type's size in bytes (predicates: 1; none: 0).
func (t Type) Size() int {
	switch t {
	case TypePred, TypeB8, TypeU8, TypeS8:
		return 1
	case TypeB16, TypeU16, TypeS16, TypeF16:
		return 2
	case TypeB32, TypeU32, TypeS32, TypeF32, TypeF16x2:
		return 4
	case TypeB64, TypeU64, TypeS64, TypeF64:
		return 8
	case TypeB128:
		return 16
	}
	return 0
}

// Bits is the type's width in bits.
func (t Type) Bits() int { return 8 * t.Size() }

// Wide is the integer type twice as wide as t (s32 -> s64), or TypeNone.
func (t Type) Wide() Type {
	switch t {
	case TypeU16:
		return TypeU32
	case TypeU32:
		return TypeU64
	case TypeS16:
		return TypeS32
	case TypeS32:
		return TypeS64
	case TypeB16:
		return TypeB32
	case TypeB32:
		return TypeB64
	}
	return TypeNone
}

// IsSigned reports whether t is a signed integer type.
func (t Type) IsSigned() bool { return t >= TypeS8 && t <= TypeS64 }

// IsFloat reports whether t is a floating-point type.
func (t Type) IsFloat() bool { return t >= TypeF16 && t <= TypeF64 }

// IsInt reports whether t is a bit, unsigned or signed integer type.
func (t Type) IsInt() bool { return t >= TypeB8 && t <= TypeS64 }

// Space is a PTX state space.
type Space uint8

// Spaces. The decoder sets SpaceGeneric on ld, ldu, st, atom, red and
// prefetch written without a space, so memory instructions never carry
// SpaceNone. SpaceReg appears only in declarations.
const (
	SpaceNone Space = iota
	SpaceGeneric
	SpaceGlobal
	SpaceShared
	SpaceLocal
	SpaceParam
	SpaceConst
	SpaceReg
)

// Rounding is a rounding modifier.
type Rounding uint8

// Rounding modes. The -i forms round a float to an integral value.
const (
	RoundNone Rounding = iota
	RoundRN
	RoundRZ
	RoundRM
	RoundRP
	RoundRNA
	RoundRNI
	RoundRZI
	RoundRMI
	RoundRPI
)

// CmpOp is a setp/set comparison.
type CmpOp uint8

// Comparisons. Lo/Ls/Hi/Hs are unsigned; the -u forms are unordered float
// comparisons (true if either operand is NaN).
const (
	CmpNone CmpOp = iota
	CmpEq
	CmpNe
	CmpLt
	CmpLe
	CmpGt
	CmpGe
	CmpLo
	CmpLs
	CmpHi
	CmpHs
	CmpEqu
	CmpNeu
	CmpLtu
	CmpLeu
	CmpGtu
	CmpGeu
	CmpNum
	CmpNan
)

// BoolOp combines a comparison with a predicate (setp.lt.and ...).
type BoolOp uint8

// Boolean combiners.
const (
	BoolNone BoolOp = iota
	BoolAnd
	BoolOr
	BoolXor
)

// AtomOp is the operation of atom and red.
type AtomOp uint8

// Atomic operations. Inc/Dec are the wrapping CUDA forms:
// inc: old >= b ? 0 : old+1; dec: (old == 0 || old > b) ? b : old-1.
const (
	AtomNone AtomOp = iota
	AtomAdd
	AtomMin
	AtomMax
	AtomInc
	AtomDec
	AtomAnd
	AtomOr
	AtomXor
	AtomExch
	AtomCas
)

// VoteMode is the mode of vote.
type VoteMode uint8

// Vote modes.
const (
	VoteNone VoteMode = iota
	VoteAll
	VoteAny
	VoteUni
	VoteBallot
)

// ShflMode is the mode of shfl.
type ShflMode uint8

// Shuffle modes.
const (
	ShflNone ShflMode = iota
	ShflUp
	ShflDown
	ShflBfly
	ShflIdx
)

// BarMode is the mode of bar/barrier.
type BarMode uint8

// Barrier modes. The BarRed* modes are bar.red.{popc,and,or}: they
// synchronise like BarSync and reduce a predicate over the CTA.
const (
	BarNone BarMode = iota
	BarSync
	BarArrive
	BarRedPopc
	BarRedAnd
	BarRedOr
	// BarWarpSync is bar.warp.sync (__syncwarp): Src[0] is the member
	// mask; the named lanes of the warp synchronise.
	BarWarpSync
)

// MemOrder is the memory-ordering qualifier of atom, red, ld, st and fence.
type MemOrder uint8

// Memory orders.
const (
	OrderNone MemOrder = iota
	OrderWeak
	OrderRelaxed
	OrderAcquire
	OrderRelease
	OrderAcqRel
	OrderSC
	OrderVolatile
)

// Scope is the scope qualifier of atom, red, fence and membar.
type Scope uint8

// Scopes. membar.cta/gl/sys map to ScopeCTA/GPU/Sys.
const (
	ScopeNone Scope = iota
	ScopeCTA
	ScopeCluster
	ScopeGPU
	ScopeSys
)

// TestpOp is the property tested by testp.
type TestpOp uint8

// testp properties.
const (
	TestpNone TestpOp = iota
	TestpFinite
	TestpInfinite
	TestpNumber
	TestpNotANumber
	TestpNormal
	TestpSubnormal
)

// Mods is a set of boolean modifiers.
type Mods uint32

// Boolean modifiers.
const (
	ModSat      Mods = 1 << iota // .sat: saturate (floats to [0,1], s32 to its range)
	ModFtz                       // .ftz: flush subnormals to zero
	ModApprox                    // .approx
	ModFull                      // .full (div.full.f32)
	ModHi                        // .hi: the high half of the double-width product
	ModLo                        // .lo: the low half
	ModWide                      // .wide: the full double-width product
	ModCarryOut                  // .cc: write the carry flag
	ModUni                       // .uni: the branch/call/ret is known non-divergent
	ModTo                        // cvta.to: generic to Space
	ModSync                      // .sync on vote/shfl/bar/barrier (membermask present for vote/shfl)
	ModAligned                   // .aligned on bar/barrier
	ModLeft                      // shf.l (otherwise shf.r)
	ModClamp                     // shf.clamp (otherwise wrap)
	ModShiftAmt                  // bfind.shiftamt
	ModNaN                       // min/max .NaN
	ModNoReturn                  // a call whose callee is declared .noreturn
	ModReluMax                   // .relu
	ModXorsign                   // .xorsign.abs on min/max
)

// Has reports whether all of m2 is in m.
func (m Mods) Has(m2 Mods) bool { return m&m2 == m2 }

// SpecialReg is a PTX special register read as an operand.
type SpecialReg uint8

// Special registers. The executor supplies their values per lane.
const (
	SRegNone SpecialReg = iota
	SRegTidX
	SRegTidY
	SRegTidZ
	SRegNtidX
	SRegNtidY
	SRegNtidZ
	SRegCtaidX
	SRegCtaidY
	SRegCtaidZ
	SRegNctaidX
	SRegNctaidY
	SRegNctaidZ
	SRegLaneID
	SRegWarpID
	SRegNWarpID
	SRegSMID
	SRegNSMID
	SRegGridID
	SRegLanemaskEq
	SRegLanemaskLe
	SRegLanemaskLt
	SRegLanemaskGe
	SRegLanemaskGt
	SRegClock
	SRegClockHi
	SRegClock64
	SRegGlobalTimer
	SRegGlobalTimerLo
	SRegGlobalTimerHi
	SRegDynamicSmemSize
	SRegTotalSmemSize
	SRegWarpSize // the WARP_SZ constant
)

// OperandKind says how to read an Operand.
type OperandKind uint8

// Operand kinds.
const (
	OperandNone OperandKind = iota
	// OperandReg reads or writes register slot Reg. Not negates a
	// predicate source (!%p, allowed by setp, selp, vote, bar.red...).
	OperandReg
	// OperandImm is the immediate Imm (bits; see the file comment).
	OperandImm
	// OperandSpecial reads special register Special.
	OperandSpecial
	// OperandSymbol is the address of variable Sym in SymSpace, plus
	// int64(Imm) ("mov.u64 %rd1, shared_var;" or "var+8"). For SpaceShared
	// and SpaceLocal it is the offset inside that space's window; the
	// executor turns it into its address of that space (cvta follows).
	OperandSymbol
	// OperandAddr is a memory address "[base+offset]": Reg (or NoReg) +
	// the address of variable Sym in SymSpace (when Sym >= 0) +
	// int64(Imm). Used only in Inst.Addr.
	OperandAddr
)

// Operand is one resolved operand. Its shape is fixed; which fields are
// meaningful depends on Kind. A destination of kind OperandNone is the PTX
// sink "_": the result is discarded.
type Operand struct {
	Kind     OperandKind
	Not      bool       // OperandReg: logical negation of a predicate source
	SymSpace Space      // OperandSymbol, OperandAddr with Sym >= 0: the space Sym indexes
	Special  SpecialReg // OperandSpecial
	Reg      RegIndex   // OperandReg; OperandAddr base (NoReg: none)
	Sym      int32      // OperandSymbol, OperandAddr: variable index, -1 none
	Imm      uint64     // OperandImm bits; OperandSymbol/OperandAddr byte offset as int64
}

// Offset is Imm read as the signed byte offset of an address or symbol.
func (o Operand) Offset() int64 { return int64(o.Imm) }

// Pos is an instruction's source position, for diagnostics.
type Pos struct {
	PTXLine int32 // 1-based line in the PTX text
	File    int32 // the .file number of the last .loc (Module.Files[File] is its name), 0 if none
	Line    int32 // .loc line (0 if none)
	Col     int32 // .loc column
}

// CallSite is the extra data of an OpCall.
type CallSite struct {
	Callee int32 // index into Module.Funcs
	// Args are the caller's argument operands in callee-parameter order.
	// For a .param formal (callee.Params[i].Space == SpaceParam) the
	// argument is a param symbol of the caller (OperandSymbol, SymSpace
	// SpaceParam: the "param0" declared in the call sequence, at least as
	// large as the formal); the executor copies callee.Params[i].Size bytes
	// from the caller's frame at that symbol's Offset to a fresh callee
	// frame at callee.Params[i].Offset. For a .reg formal the argument is a
	// register or immediate, copied into the callee's register
	// callee.Params[i].Reg.
	Args []Operand
	// Rets are the caller's result operands in callee-return order: param
	// symbols (such as "retval0") receiving the bytes of the callee's
	// return .param when it returns, or registers receiving a .reg return
	// value (callee.Params[callee.NumInputs+i]).
	Rets []Operand
}

// Inst is one decoded instruction. It has a fixed shape (wazero's
// unionOperation): fields a given Op does not use are zero (and Target,
// Reconverge, Guard are NoTarget/NoReg).
type Inst struct {
	Op       Opcode
	Type     Type // the instruction type; for cvt and slct the destination type
	SrcType  Type // cvt, slct, set: the second type suffix (the source/compare type)
	Space    Space
	Rounding Rounding
	Cmp      CmpOp
	Bool     BoolOp
	Atom     AtomOp
	Vote     VoteMode
	Shfl     ShflMode
	Bar      BarMode
	Order    MemOrder
	Scope    Scope
	Testp    TestpOp
	Vec      uint8 // 1, 2 or 4 for ld/st/ldu; 1 otherwise
	NDst     uint8
	NSrc     uint8
	Mods     Mods

	// Guard is the guard predicate (@%p / @!%p), NoReg when the
	// instruction always executes; GuardNot negates it.
	Guard    RegIndex
	GuardNot bool

	Dst  [4]Operand
	Src  [4]Operand
	Addr Operand // ld, ldu, st, atom, red, prefetch

	// Target is the branch target (an index into the function's Insts),
	// NoTarget otherwise.
	Target int32
	// Reconverge is, for OpBra, the index of the instruction where the
	// paths of a divergent branch meet again: the first instruction of the
	// branch block's immediate post-dominator. NoTarget means they meet
	// only when the function exits (every path ends in ret or exit).
	Reconverge int32

	Call *CallSite // OpCall only

	Pos Pos
}

// FuncKind distinguishes kernels from device functions.
type FuncKind uint8

// Function kinds.
const (
	KindEntry FuncKind = iota // .entry: a kernel
	KindFunc                  // .func: a device function
)

// ParamRole says what a param-space symbol of a function is.
type ParamRole uint8

// Parameter roles.
const (
	ParamInput  ParamRole = iota // a formal input parameter
	ParamReturn                  // a .func return parameter
	ParamCall                    // a .param declared in a call sequence inside the body
)

// Param is a param-space symbol of a function (a formal parameter, a return
// parameter or a call-sequence temporary), or a .reg formal parameter.
type Param struct {
	Name  string
	Role  ParamRole
	Type  Type // element type (.b8 for byte arrays)
	Size  int  // bytes
	Align int  // bytes
	// Offset is the byte offset in the function's per-thread param frame
	// (Function.ParamFrameSize). Inputs come first, laid out in declaration
	// order with their alignment, so for an entry the first
	// Function.KernelParamSize bytes are exactly CUDA's kernel parameter
	// buffer.
	Offset int
	// Ptr, PtrSpace, PtrAlign record ".ptr.global.align 4" (hints only).
	Ptr      bool
	PtrSpace Space
	PtrAlign int
	// Space is SpaceParam for a .param parameter (bytes in the param
	// frame) or SpaceReg for a .reg parameter of a .func (a register).
	Space Space
	// Reg is the register slot of a .reg formal parameter (NoReg for .param,
	// and for .reg parameters of an extern function, which has no body).
	Reg RegIndex
}

// Variable is a module-level (global, shared, const) or function-local
// (local) variable.
type Variable struct {
	Name     string
	Space    Space
	Type     Type // element type
	Size     int  // bytes; 0 for an unsized extern array (dynamic shared memory)
	Align    int
	Init     []byte // initializer bytes (len == Size), nil when zero-initialized
	Extern   bool
	Visible  bool
	Dynamic  bool // extern .shared array of unknown size: dynamic shared memory
	Offset   int  // SpaceLocal: byte offset in the function's local frame
	Declared Pos  // where it was declared
}

// RegInfo describes one register slot.
type RegInfo struct {
	Name string
	Type Type
}

// Block is a basic block of a function.
type Block struct {
	Start, End int   // instruction range [Start, End)
	Succs      []int // successor block indexes
	Preds      []int // predecessor block indexes
	// IPDom is the immediate post-dominator block, -1 for the virtual exit.
	IPDom int
}

// Function is a lowered .entry or .func.
type Function struct {
	Name    string
	Index   int // index in Module.Funcs
	Kind    FuncKind
	Visible bool
	Extern  bool // declared only (no body)
	Pos     Pos

	// Params holds every param-space symbol (and .reg parameter) the
	// function sees: the NumInputs formal inputs first, then the NumReturns
	// return parameters, then call-sequence temporaries. An operand with
	// SymSpace == SpaceParam indexes this slice.
	Params         []Param
	NumInputs      int
	NumReturns     int
	ParamFrameSize int // bytes of the per-thread param frame
	// KernelParamSize is the size of the inputs' part of the frame (for an
	// entry, the kernel parameter buffer).
	KernelParamSize int

	// Regs describes every slot of the register file; NumRegs == len(Regs).
	Regs    []RegInfo
	NumRegs int

	// Locals are the function's .local variables (clang's
	// __local_depot); operands with SymSpace == SpaceLocal index it.
	// LocalFrameSize is the per-thread local memory in bytes.
	Locals         []Variable
	LocalFrameSize int

	// SharedLayout maps each Module.Vars index to its byte offset in the
	// CTA's shared memory when this entry (directly or through its callees)
	// uses it, -1 otherwise. StaticSharedSize is the static shared memory
	// of the entry. Dynamic shared memory (extern .shared arrays without a
	// size; all of them alias) starts at DynamicSharedOffset:
	// StaticSharedSize rounded up to 16 bytes or to the largest alignment
	// of the dynamic arrays used. Only entries have a layout.
	SharedLayout        []int64
	StaticSharedSize    int
	DynamicSharedOffset int

	// Performance directives (0 when absent).
	MaxNTID      [3]int
	ReqNTID      [3]int
	MinNCTAPerSM int
	MaxNReg      int
	NoReturn     bool

	Insts []Inst

	// Analysis results (analysis.go).
	Blocks      []Block
	BlockOf     []int // instruction index -> block index
	Callees     []int // Module.Funcs indexes called directly
	Liveness    Liveness
	RegEstimate RegEstimate

	// callLiveAcross: call instruction index -> {32-bit units, predicates}
	// live across it, for the register estimate.
	callLiveAcross map[int][2]int
}

// Liveness is the result of register liveness analysis.
type Liveness struct {
	// MaxLive32 is the largest number of live 32-bit register units at any
	// instruction (a live 64-bit register counts 2, 8/16/32-bit count 1).
	MaxLive32 int
	// MaxLivePred is the largest number of live predicate registers.
	MaxLivePred int
	// MaxLiveAt is the instruction index where MaxLive32 is first reached.
	MaxLiveAt int
	// LiveIn are the registers live at the function's entry, ascending:
	// its register parameters and any register some path reads before
	// writing. Every other register is written before it is read, so an
	// executor need initialise only these at a call.
	LiveIn []RegIndex
}

// RegEstimate estimates registers per thread from the PTX alone. It is a
// rough guide, not a prediction of ptxas: on this package's corpus the
// CUDA driver's JIT for sm_90 allocated between 0.7x and 2.2x of Regs32
// (it unrolls, hoists loads and trades registers for latency). Residency
// must use the measured counts of kernels/attrs; the estimate serves where
// none exist and for spotting register-hungry kernels.
type RegEstimate struct {
	// Regs32 is the estimated 32-bit registers per thread: the function's
	// own MaxLive32, the largest callee estimate plus the registers live
	// across the call, plus the registers the hardware reserves
	// (ReservedRegs), rounded up to an even number.
	Regs32 int
	// Preds is the estimated predicate registers (hardware has 7 per
	// thread; more spill into general registers, which Regs32 then counts).
	Preds int
}

// Module is a parsed and lowered PTX module.
type Module struct {
	Name        string
	Version     string // .version, e.g. "7.8"
	Target      []string
	AddressSize int // 32 or 64
	Files       []string
	Vars        []Variable // global, shared and const variables
	Funcs       []*Function
	FuncsByName map[string]int
	VarsByName  map[string]int
}

// Func returns the function named name, or nil.
func (m *Module) Func(name string) *Function {
	if i, ok := m.FuncsByName[name]; ok {
		return m.Funcs[i]
	}
	return nil
}

// Inputs returns the function's formal input parameters.
func (f *Function) Inputs() []Param { return f.Params[:f.NumInputs] }

// Returns returns the function's return parameters.
func (f *Function) Returns() []Param { return f.Params[f.NumInputs : f.NumInputs+f.NumReturns] }

// ReservedRegs is the number of 32-bit registers per thread the estimate
// adds for what ptxas reserves beyond the program's live values (the stack
// pointer and address temporaries). It is a calibration constant, not a
// hardware fact; kernels/attrs records measured counts.
const ReservedRegs = 2
