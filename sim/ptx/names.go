package ptx

import "strconv"

// The PTX spelling of every enum value, used both to decode suffixes and to
// print the lowered form. Index = enum value.

var typeNames = [...]string{
	TypeNone: "", TypePred: "pred",
	TypeB8: "b8", TypeB16: "b16", TypeB32: "b32", TypeB64: "b64",
	TypeU8: "u8", TypeU16: "u16", TypeU32: "u32", TypeU64: "u64",
	TypeS8: "s8", TypeS16: "s16", TypeS32: "s32", TypeS64: "s64",
	TypeF16: "f16", TypeF16x2: "f16x2", TypeF32: "f32", TypeF64: "f64",
	TypeB128: "b128",
}

var spaceNames = [...]string{
	SpaceNone: "", SpaceGeneric: "generic", SpaceGlobal: "global", SpaceShared: "shared",
	SpaceLocal: "local", SpaceParam: "param", SpaceConst: "const", SpaceReg: "reg",
}

var roundingNames = [...]string{
	RoundNone: "", RoundRN: "rn", RoundRZ: "rz", RoundRM: "rm", RoundRP: "rp", RoundRNA: "rna",
	RoundRNI: "rni", RoundRZI: "rzi", RoundRMI: "rmi", RoundRPI: "rpi",
}

var cmpNames = [...]string{
	CmpNone: "", CmpEq: "eq", CmpNe: "ne", CmpLt: "lt", CmpLe: "le", CmpGt: "gt", CmpGe: "ge",
	CmpLo: "lo", CmpLs: "ls", CmpHi: "hi", CmpHs: "hs",
	CmpEqu: "equ", CmpNeu: "neu", CmpLtu: "ltu", CmpLeu: "leu", CmpGtu: "gtu", CmpGeu: "geu",
	CmpNum: "num", CmpNan: "nan",
}

var boolNames = [...]string{BoolNone: "", BoolAnd: "and", BoolOr: "or", BoolXor: "xor"}

var atomNames = [...]string{
	AtomNone: "", AtomAdd: "add", AtomMin: "min", AtomMax: "max", AtomInc: "inc", AtomDec: "dec",
	AtomAnd: "and", AtomOr: "or", AtomXor: "xor", AtomExch: "exch", AtomCas: "cas",
}

var voteNames = [...]string{VoteNone: "", VoteAll: "all", VoteAny: "any", VoteUni: "uni", VoteBallot: "ballot"}

var shflNames = [...]string{ShflNone: "", ShflUp: "up", ShflDown: "down", ShflBfly: "bfly", ShflIdx: "idx"}

var barNames = [...]string{
	BarNone: "", BarSync: "sync", BarArrive: "arrive", BarRedPopc: "red.popc", BarRedAnd: "red.and", BarRedOr: "red.or",
	BarWarpSync: "warp.sync",
}

var orderNames = [...]string{
	OrderNone: "", OrderWeak: "weak", OrderRelaxed: "relaxed", OrderAcquire: "acquire", OrderRelease: "release",
	OrderAcqRel: "acq_rel", OrderSC: "sc", OrderVolatile: "volatile",
}

var scopeNames = [...]string{ScopeNone: "", ScopeCTA: "cta", ScopeCluster: "cluster", ScopeGPU: "gpu", ScopeSys: "sys"}

var testpNames = [...]string{
	TestpNone: "", TestpFinite: "finite", TestpInfinite: "infinite", TestpNumber: "number",
	TestpNotANumber: "notanumber", TestpNormal: "normal", TestpSubnormal: "subnormal",
}

var modNames = []struct {
	mod  Mods
	name string
}{
	{ModWide, "wide"}, {ModHi, "hi"}, {ModLo, "lo"}, {ModCarryOut, "cc"},
	{ModApprox, "approx"}, {ModFull, "full"}, {ModFtz, "ftz"}, {ModSat, "sat"},
	{ModUni, "uni"}, {ModTo, "to"}, {ModSync, "sync"}, {ModAligned, "aligned"},
	{ModLeft, "l"}, {ModClamp, "clamp"}, {ModShiftAmt, "shiftamt"}, {ModNaN, "NaN"},
	{ModReluMax, "relu"}, {ModXorsign, "xorsign"}, {ModNoReturn, "noreturn"},
}

var specialNames = [...]string{
	SRegNone: "", SRegTidX: "%tid.x", SRegTidY: "%tid.y", SRegTidZ: "%tid.z",
	SRegNtidX: "%ntid.x", SRegNtidY: "%ntid.y", SRegNtidZ: "%ntid.z",
	SRegCtaidX: "%ctaid.x", SRegCtaidY: "%ctaid.y", SRegCtaidZ: "%ctaid.z",
	SRegNctaidX: "%nctaid.x", SRegNctaidY: "%nctaid.y", SRegNctaidZ: "%nctaid.z",
	SRegLaneID: "%laneid", SRegWarpID: "%warpid", SRegNWarpID: "%nwarpid",
	SRegSMID: "%smid", SRegNSMID: "%nsmid", SRegGridID: "%gridid",
	SRegLanemaskEq: "%lanemask_eq", SRegLanemaskLe: "%lanemask_le", SRegLanemaskLt: "%lanemask_lt",
	SRegLanemaskGe: "%lanemask_ge", SRegLanemaskGt: "%lanemask_gt",
	SRegClock: "%clock", SRegClockHi: "%clock_hi", SRegClock64: "%clock64",
	SRegGlobalTimer: "%globaltimer", SRegGlobalTimerLo: "%globaltimer_lo", SRegGlobalTimerHi: "%globaltimer_hi",
	SRegDynamicSmemSize: "%dynamic_smem_size", SRegTotalSmemSize: "%total_smem_size",
	SRegWarpSize: "WARP_SZ",
}

// opcodeNames maps each opcode to its PTX mnemonic.
var opcodeNames = [...]string{
	OpInvalid: "invalid", OpMov: "mov", OpPack: "mov", OpUnpack: "mov", OpCvt: "cvt", OpCvta: "cvta",
	OpAdd: "add", OpAddc: "addc", OpSub: "sub", OpSubc: "subc", OpMul: "mul", OpMad: "mad",
	OpMul24: "mul24", OpMad24: "mad24", OpFma: "fma", OpDiv: "div", OpRem: "rem", OpAbs: "abs",
	OpNeg: "neg", OpMin: "min", OpMax: "max", OpSad: "sad", OpRcp: "rcp", OpSqrt: "sqrt",
	OpRsqrt: "rsqrt", OpSin: "sin", OpCos: "cos", OpEx2: "ex2", OpLg2: "lg2", OpTanh: "tanh",
	OpCopysign: "copysign", OpTestp: "testp",
	OpAnd: "and", OpOr: "or", OpXor: "xor", OpNot: "not", OpCnot: "cnot", OpShl: "shl", OpShr: "shr",
	OpShf: "shf", OpPopc: "popc", OpClz: "clz", OpBrev: "brev", OpBfe: "bfe", OpBfi: "bfi",
	OpBfind: "bfind", OpPrmt: "prmt",
	OpSetp: "setp", OpSet: "set", OpSelp: "selp", OpSlct: "slct",
	OpLd: "ld", OpLdu: "ldu", OpSt: "st", OpAtom: "atom", OpRed: "red", OpPrefetch: "prefetch",
	OpBra: "bra", OpCall: "call", OpRet: "ret", OpExit: "exit", OpTrap: "trap", OpBrkpt: "brkpt",
	OpBar: "bar", OpMembar: "membar", OpFence: "fence", OpVote: "vote", OpShfl: "shfl",
	OpActivemask: "activemask", OpMatch: "match", OpNanosleep: "nanosleep", OpPmevent: "pmevent",
	OpRedux: "redux",
}

func enumString(names []string, v int, kind string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(v) + ")"
}

func (o Opcode) String() string     { return enumString(opcodeNames[:], int(o), "Opcode") }
func (t Type) String() string       { return enumString(typeNames[:], int(t), "Type") }
func (s Space) String() string      { return enumString(spaceNames[:], int(s), "Space") }
func (r Rounding) String() string   { return enumString(roundingNames[:], int(r), "Rounding") }
func (c CmpOp) String() string      { return enumString(cmpNames[:], int(c), "CmpOp") }
func (b BoolOp) String() string     { return enumString(boolNames[:], int(b), "BoolOp") }
func (a AtomOp) String() string     { return enumString(atomNames[:], int(a), "AtomOp") }
func (v VoteMode) String() string   { return enumString(voteNames[:], int(v), "VoteMode") }
func (s ShflMode) String() string   { return enumString(shflNames[:], int(s), "ShflMode") }
func (b BarMode) String() string    { return enumString(barNames[:], int(b), "BarMode") }
func (o MemOrder) String() string   { return enumString(orderNames[:], int(o), "MemOrder") }
func (s Scope) String() string      { return enumString(scopeNames[:], int(s), "Scope") }
func (t TestpOp) String() string    { return enumString(testpNames[:], int(t), "TestpOp") }
func (s SpecialReg) String() string { return enumString(specialNames[:], int(s), "SpecialReg") }

// lookup builds the reverse map of a names table, skipping the empty name.
func lookup[T ~uint8 | ~uint16](names []string) map[string]T {
	m := make(map[string]T, len(names))
	for i, n := range names {
		if n != "" {
			m[n] = T(i)
		}
	}
	return m
}

var (
	typeByName     = lookup[Type](typeNames[:])
	roundingByName = lookup[Rounding](roundingNames[:])
	cmpByName      = lookup[CmpOp](cmpNames[:])
	boolByName     = lookup[BoolOp](boolNames[:])
	atomByName     = lookup[AtomOp](atomNames[:])
	voteByName     = lookup[VoteMode](voteNames[:])
	shflByName     = lookup[ShflMode](shflNames[:])
	scopeByName    = lookup[Scope](scopeNames[:])
	testpByName    = lookup[TestpOp](testpNames[:])
	specialByName  = lookup[SpecialReg](specialNames[:])
)
