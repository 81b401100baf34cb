package ptx

import (
	"strings"
)

// Decoding of one instruction: mnemonic suffixes into Inst fields, operands
// into resolved Operands.

// opForm is the operand shape of a mnemonic.
type opForm uint8

const (
	formDstSrcs  opForm = iota // d, a[, b...]
	formSrcs                   // a[, b...] (no destination)
	formSetp                   // p[|q], a, b[, c]
	formLd                     // d or {d...}, [addr]
	formSt                     // [addr], s or {s...}
	formAtom                   // d, [addr], b[, c]
	formRed                    // [addr], b
	formPrefetch               // [addr]
	formBra                    // label
	formCall                   // [(rets),] f[, (args)]
	formShfl                   // d[|p], a, b, c[, mask]
	formBar                    // bar/barrier: shape depends on the mode
)

// suffixCats says which kinds of mnemonic suffix an opcode accepts.
type suffixCats uint16

const (
	catSpace suffixCats = 1 << iota
	catRound
	catCmp
	catBool
	catAtom
	catVote
	catShfl
	catVec
	catOrder
	catScope
	catCache
	catTestp
)

type opSpec struct {
	op             Opcode
	form           opForm
	minSrc, maxSrc int
	types          int // type suffixes required
	optType        bool
	cats           suffixCats
	mods           Mods
}

var opSpecs = map[string]opSpec{
	"mov":  {op: OpMov, minSrc: 1, maxSrc: 1, types: 1},
	"cvt":  {op: OpCvt, minSrc: 1, maxSrc: 1, types: 2, cats: catRound, mods: ModSat | ModFtz | ModReluMax},
	"cvta": {op: OpCvta, minSrc: 1, maxSrc: 1, types: 1, cats: catSpace, mods: ModTo},

	"add":      {op: OpAdd, minSrc: 2, maxSrc: 2, types: 1, cats: catRound, mods: ModSat | ModFtz | ModCarryOut},
	"addc":     {op: OpAddc, minSrc: 2, maxSrc: 2, types: 1, mods: ModCarryOut},
	"sub":      {op: OpSub, minSrc: 2, maxSrc: 2, types: 1, cats: catRound, mods: ModSat | ModFtz | ModCarryOut},
	"subc":     {op: OpSubc, minSrc: 2, maxSrc: 2, types: 1, mods: ModCarryOut},
	"mul":      {op: OpMul, minSrc: 2, maxSrc: 2, types: 1, cats: catRound, mods: ModHi | ModLo | ModWide | ModSat | ModFtz},
	"mad":      {op: OpMad, minSrc: 3, maxSrc: 3, types: 1, cats: catRound, mods: ModHi | ModLo | ModWide | ModSat | ModFtz | ModCarryOut},
	"mul24":    {op: OpMul24, minSrc: 2, maxSrc: 2, types: 1, mods: ModHi | ModLo},
	"mad24":    {op: OpMad24, minSrc: 3, maxSrc: 3, types: 1, mods: ModHi | ModLo | ModSat},
	"fma":      {op: OpFma, minSrc: 3, maxSrc: 3, types: 1, cats: catRound, mods: ModSat | ModFtz},
	"div":      {op: OpDiv, minSrc: 2, maxSrc: 2, types: 1, cats: catRound, mods: ModApprox | ModFull | ModFtz},
	"rem":      {op: OpRem, minSrc: 2, maxSrc: 2, types: 1},
	"abs":      {op: OpAbs, minSrc: 1, maxSrc: 1, types: 1, mods: ModFtz},
	"neg":      {op: OpNeg, minSrc: 1, maxSrc: 1, types: 1, mods: ModFtz},
	"min":      {op: OpMin, minSrc: 2, maxSrc: 2, types: 1, mods: ModFtz | ModNaN | ModReluMax},
	"max":      {op: OpMax, minSrc: 2, maxSrc: 2, types: 1, mods: ModFtz | ModNaN | ModReluMax},
	"sad":      {op: OpSad, minSrc: 3, maxSrc: 3, types: 1},
	"rcp":      {op: OpRcp, minSrc: 1, maxSrc: 1, types: 1, cats: catRound, mods: ModApprox | ModFtz},
	"sqrt":     {op: OpSqrt, minSrc: 1, maxSrc: 1, types: 1, cats: catRound, mods: ModApprox | ModFtz},
	"rsqrt":    {op: OpRsqrt, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox | ModFtz},
	"sin":      {op: OpSin, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox | ModFtz},
	"cos":      {op: OpCos, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox | ModFtz},
	"ex2":      {op: OpEx2, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox | ModFtz},
	"lg2":      {op: OpLg2, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox | ModFtz},
	"tanh":     {op: OpTanh, minSrc: 1, maxSrc: 1, types: 1, mods: ModApprox},
	"copysign": {op: OpCopysign, minSrc: 2, maxSrc: 2, types: 1},
	"testp":    {op: OpTestp, minSrc: 1, maxSrc: 1, types: 1, cats: catTestp},

	"and":        {op: OpAnd, minSrc: 2, maxSrc: 2, types: 1},
	"or":         {op: OpOr, minSrc: 2, maxSrc: 2, types: 1},
	"xor":        {op: OpXor, minSrc: 2, maxSrc: 2, types: 1},
	"not":        {op: OpNot, minSrc: 1, maxSrc: 1, types: 1},
	"cnot":       {op: OpCnot, minSrc: 1, maxSrc: 1, types: 1},
	"shl":        {op: OpShl, minSrc: 2, maxSrc: 2, types: 1},
	"shr":        {op: OpShr, minSrc: 2, maxSrc: 2, types: 1},
	"shf":        {op: OpShf, minSrc: 3, maxSrc: 3, types: 1, mods: ModLeft | ModClamp},
	"popc":       {op: OpPopc, minSrc: 1, maxSrc: 1, types: 1},
	"clz":        {op: OpClz, minSrc: 1, maxSrc: 1, types: 1},
	"brev":       {op: OpBrev, minSrc: 1, maxSrc: 1, types: 1},
	"bfe":        {op: OpBfe, minSrc: 3, maxSrc: 3, types: 1},
	"bfi":        {op: OpBfi, minSrc: 4, maxSrc: 4, types: 1},
	"bfind":      {op: OpBfind, minSrc: 1, maxSrc: 1, types: 1, mods: ModShiftAmt},
	"prmt":       {op: OpPrmt, minSrc: 3, maxSrc: 3, types: 1},
	"setp":       {op: OpSetp, form: formSetp, minSrc: 2, maxSrc: 3, types: 1, cats: catCmp | catBool, mods: ModFtz},
	"set":        {op: OpSet, minSrc: 2, maxSrc: 3, types: 2, cats: catCmp | catBool, mods: ModFtz},
	"selp":       {op: OpSelp, minSrc: 3, maxSrc: 3, types: 1},
	"slct":       {op: OpSlct, minSrc: 3, maxSrc: 3, types: 2, mods: ModFtz},
	"ld":         {op: OpLd, form: formLd, types: 1, cats: catSpace | catVec | catOrder | catScope | catCache},
	"ldu":        {op: OpLdu, form: formLd, types: 1, cats: catSpace | catVec | catCache},
	"st":         {op: OpSt, form: formSt, types: 1, cats: catSpace | catVec | catOrder | catScope | catCache},
	"atom":       {op: OpAtom, form: formAtom, types: 1, cats: catSpace | catAtom | catOrder | catScope | catCache},
	"red":        {op: OpRed, form: formRed, types: 1, cats: catSpace | catAtom | catOrder | catScope | catCache},
	"prefetch":   {op: OpPrefetch, form: formPrefetch, cats: catSpace | catCache},
	"prefetchu":  {op: OpPrefetch, form: formPrefetch, cats: catSpace | catCache},
	"bra":        {op: OpBra, form: formBra, mods: ModUni},
	"call":       {op: OpCall, form: formCall, mods: ModUni},
	"ret":        {op: OpRet, form: formSrcs, mods: ModUni},
	"exit":       {op: OpExit, form: formSrcs},
	"trap":       {op: OpTrap, form: formSrcs},
	"brkpt":      {op: OpBrkpt, form: formSrcs},
	"bar":        {op: OpBar, form: formBar, optType: true, mods: ModSync | ModAligned},
	"barrier":    {op: OpBar, form: formBar, optType: true, mods: ModSync | ModAligned},
	"membar":     {op: OpMembar, form: formSrcs, cats: catScope},
	"fence":      {op: OpFence, form: formSrcs, cats: catOrder | catScope},
	"vote":       {op: OpVote, minSrc: 1, maxSrc: 2, types: 1, cats: catVote, mods: ModSync},
	"shfl":       {op: OpShfl, form: formShfl, types: 1, cats: catShfl, mods: ModSync},
	"activemask": {op: OpActivemask, types: 1},
	"match":      {op: OpMatch, minSrc: 2, maxSrc: 2, types: 1, cats: catVote, mods: ModSync},
	"nanosleep":  {op: OpNanosleep, form: formSrcs, minSrc: 1, maxSrc: 1, types: 1},
	"pmevent":    {op: OpPmevent, form: formSrcs, minSrc: 1, maxSrc: 1},
	"redux":      {op: OpRedux, minSrc: 2, maxSrc: 2, types: 1, cats: catAtom, mods: ModSync},
}

// cacheSuffixes are cache operators and hints: they change performance,
// never values, so the functional form drops them.
var cacheSuffixes = map[string]bool{
	"ca": true, "cg": true, "cs": true, "lu": true, "cv": true, "wb": true, "wt": true, "nc": true,
	"L1": true, "L2": true,
}

var orderBySuffix = map[string]MemOrder{
	"weak": OrderWeak, "relaxed": OrderRelaxed, "acquire": OrderAcquire, "release": OrderRelease,
	"acq_rel": OrderAcqRel, "sc": OrderSC, "volatile": OrderVolatile,
}

var spaceBySuffix = map[string]Space{
	"global": SpaceGlobal, "shared": SpaceShared, "local": SpaceLocal, "param": SpaceParam, "const": SpaceConst,
	"shared::cta": SpaceShared, // the CTA's own shared memory, spelled out (PTX 7.8+)
}

var modBySuffix = func() map[string]Mods {
	m := map[string]Mods{}
	for _, mn := range modNames {
		m[mn.name] = mn.mod
	}
	return m
}()

// suffixDecoding is decodeSuffixes's state: the instruction being filled,
// its opcode's spec, and the type suffixes seen, in order.
type suffixDecoding struct {
	in    *Inst
	spec  opSpec
	types []Type
}

// suffixDecoder is one category of generic suffix: take reports whether
// s belongs to it and records it.
type suffixDecoder struct {
	// cat is the category the opcode must accept (0: every opcode).
	cat  suffixCats
	take func(d *suffixDecoding, s string) bool
}

// suffixDecoders are the generic suffix categories, tried in order; the
// first that takes a suffix decides its meaning. A category already set
// on the instruction takes no second suffix.
var suffixDecoders = []suffixDecoder{
	{catCmp, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Cmp, CmpNone, cmpByName, s) }},
	{catBool, func(d *suffixDecoding, s string) bool {
		return d.in.Cmp != CmpNone && setOnce(&d.in.Bool, BoolNone, boolByName, s)
	}},
	{catAtom, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Atom, AtomNone, atomByName, s) }},
	{0, func(d *suffixDecoding, s string) bool {
		t, ok := typeByName[s]
		if ok {
			d.types = append(d.types, t)
		}
		return ok
	}},
	{catSpace, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Space, SpaceNone, spaceBySuffix, s) }},
	{catRound, func(d *suffixDecoding, s string) bool {
		return setOnce(&d.in.Rounding, RoundNone, roundingByName, s)
	}},
	{catVote, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Vote, VoteNone, voteByName, s) }},
	{catShfl, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Shfl, ShflNone, shflByName, s) }},
	{catVec, func(d *suffixDecoding, s string) bool {
		if d.in.Vec == 1 && (s == "v2" || s == "v4") {
			d.in.Vec = uint8(s[1] - '0')
			return true
		}
		return false
	}},
	{catOrder, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Order, OrderNone, orderBySuffix, s) }},
	{catScope, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Scope, ScopeNone, scopeByName, s) }},
	{catTestp, func(d *suffixDecoding, s string) bool { return setOnce(&d.in.Testp, TestpNone, testpByName, s) }},
	{0, func(d *suffixDecoding, s string) bool {
		m, ok := modBySuffix[s]
		if ok && d.spec.mods&m != 0 && !d.in.Mods.Has(m) {
			d.in.Mods |= m
			return true
		}
		return false
	}},
	{catCache, func(_ *suffixDecoding, s string) bool {
		return cacheSuffixes[s] || strings.HasPrefix(s, "L1::") || strings.HasPrefix(s, "L2::")
	}},
}

// setOnce sets *field to s's value in byName if the field is still none
// and s names a value, and reports whether it did.
func setOnce[T comparable](field *T, none T, byName map[string]T, s string) bool {
	if *field != none {
		return false
	}
	v, ok := byName[s]
	if ok {
		*field = v
	}
	return ok
}

// generic decodes s as the first generic suffix category, among those
// the opcode accepts, that takes it.
func (d *suffixDecoding) generic(s string) bool {
	for _, dec := range suffixDecoders {
		if (dec.cat == 0 || d.spec.cats&dec.cat != 0) && dec.take(d, s) {
			return true
		}
	}
	return false
}

// rawOperand is an operand as written, before names are resolved.
type rawOperand struct {
	kind   rawKind
	not    bool   // !%p
	neg    bool   // -5
	text   string // name or literal
	offset int64  // name+offset, [base+offset]
	elems  []rawOperand
	line   int32
}

type rawKind uint8

const (
	rawName   rawKind = iota + 1 // a register, special register or symbol (+offset)
	rawNumber                    // a literal
	rawVector                    // {a, b, ...}
	rawAddr                      // [base+offset]; text "" for an absolute address
	rawPair                      // a|b
	rawSink                      // _
)

func (l *funcLowerer) instruction() {
	p := l.p
	in := Inst{Guard: NoReg, Target: NoTarget, Reconverge: NoTarget, Vec: 1}
	start := p.peek()
	if p.accept("@") {
		not := p.accept("!")
		g := p.expectKind(tokIdent, "guard predicate")
		e, ok := l.resolve(g.text)
		if !ok || e.kind != entReg {
			p.fail(g.line, "undeclared guard predicate %s", g.text)
		}
		if l.fn.Regs[e.index].Type != TypePred {
			p.fail(g.line, "guard %s is not a predicate", g.text)
		}
		in.Guard, in.GuardNot = RegIndex(e.index), not
	}
	mt := p.expectKind(tokIdent, "instruction")
	in.Pos = l.loc
	in.Pos.PTXLine = mt.line
	parts := strings.Split(mt.text, ".")
	spec, ok := opSpecs[parts[0]]
	if !ok {
		p.fail(mt.line, "unknown or unsupported instruction %s", parts[0])
	}
	in.Op = spec.op
	l.decodeSuffixes(&in, spec, parts, mt.line)

	if spec.form == formCall {
		l.decodeCall(&in, mt.line)
	} else {
		var ops []rawOperand
		if !p.is(";") {
			for {
				ops = append(ops, l.parseRawOperand())
				if !p.accept(",") {
					break
				}
			}
		}
		p.expect(";")
		l.assignOperands(&in, spec, ops, mt.line)
	}
	if len(l.fn.Insts) >= maxInsts {
		p.fail(start.line, "too many instructions")
	}
	l.fn.Insts = append(l.fn.Insts, in)
}

// decodeSuffixes fills the Inst fields from ".suffix" parts of the
// mnemonic. Which meaning a suffix has depends on the opcode (".lo" is a
// comparison for setp and the low half for mul), so each opcode lists the
// categories it accepts; anything else is an error.
func (l *funcLowerer) decodeSuffixes(in *Inst, spec opSpec, parts []string, line int32) {
	p := l.p
	d := suffixDecoding{in: in, spec: spec}
	base := parts[0]
	sawShfDir := false
	for i := 1; i < len(parts); i++ {
		s := parts[i]
		bad := func() { p.fail(line, "bad suffix .%s for %s", s, base) }
		if s == "" {
			bad()
		}
		// Opcode-specific words first: they shadow generic meanings.
		if n := l.opcodeSuffix(in, base, parts, i, line, &sawShfDir); n > 0 {
			i += n - 1
			continue
		}
		if !d.generic(s) {
			bad()
		}
	}
	types := d.types

	want := spec.types
	switch {
	case spec.optType && len(types) <= 1:
	case len(types) != want:
		if len(types) < want {
			p.fail(line, "%s needs %d type suffix(es)", base, want)
		}
		p.fail(line, "too many type suffixes for %s", base)
	}
	if len(types) > 0 {
		in.Type = types[0]
	}
	if len(types) > 1 {
		in.SrcType = types[1]
	}

	l.checkSuffixes(in, base, sawShfDir, line)
	switch in.Op {
	case OpLd, OpLdu, OpSt, OpAtom, OpRed, OpPrefetch:
		if in.Space == SpaceNone {
			in.Space = SpaceGeneric
		}
	}
}

// opcodeSuffix decodes parts[i] when it is a word of base's own (".l" of
// shf, ".red.popc" of bar): it returns how many parts it took, 0 when
// parts[i] is no such word and the generic categories decide.
func (l *funcLowerer) opcodeSuffix(in *Inst, base string, parts []string, i int, line int32, sawShfDir *bool) int {
	p := l.p
	s := parts[i]
	bad := func() { p.fail(line, "bad suffix .%s for %s", s, base) }
	switch base {
	case "shf":
		switch s {
		case "l":
			in.Mods |= ModLeft
			*sawShfDir = true
			return 1
		case "r":
			*sawShfDir = true
			return 1
		case "wrap":
			return 1
		}
	case "bar", "barrier":
		switch s {
		case "sync":
			if in.Bar == BarNone {
				in.Bar = BarSync
			}
			in.Mods |= ModSync
			return 1
		case "arrive":
			in.Bar = BarArrive
			return 1
		case "red":
			in.Bar = BarRedPopc // refined by the next suffix
			if i+1 >= len(parts) {
				bad()
			}
			switch parts[i+1] {
			case "popc":
				in.Bar = BarRedPopc
			case "and":
				in.Bar = BarRedAnd
			case "or":
				in.Bar = BarRedOr
			default:
				p.fail(line, "bad bar.red operation .%s", parts[i+1])
			}
			return 2
		case "warp":
			if base != "bar" || i+1 >= len(parts) || parts[i+1] != "sync" {
				bad()
			}
			in.Bar = BarWarpSync
			in.Mods |= ModSync
			return 2
		}
	case "membar":
		switch s {
		case "gl":
			in.Scope = ScopeGPU
			return 1
		case "cta":
			in.Scope = ScopeCTA
			return 1
		case "sys":
			in.Scope = ScopeSys
			return 1
		}
		bad()
	case "match":
		switch s {
		case "any":
			in.Vote = VoteAny
			return 1
		case "all":
			in.Vote = VoteAll
			return 1
		}
	case "prefetch", "prefetchu":
		if s == "L1" || s == "L2" {
			return 1
		}
	}
	return 0
}

// checkSuffixes checks that the suffixes decodeSuffixes read make a
// consistent instruction of the opcode (a setp has a comparison, an
// integer mul a width, ...), and completes bar.sync's implied .aligned.
func (l *funcLowerer) checkSuffixes(in *Inst, base string, sawShfDir bool, line int32) {
	p := l.p
	switch in.Op {
	case OpSetp, OpSet:
		if in.Cmp == CmpNone {
			p.fail(line, "%s without a comparison", base)
		}
	case OpAtom, OpRed:
		if in.Atom == AtomNone {
			p.fail(line, "%s without an operation", base)
		}
	case OpVote:
		if in.Vote == VoteNone {
			p.fail(line, "vote without a mode")
		}
		if in.Vote == VoteBallot && in.Type != TypeB32 || in.Vote != VoteBallot && in.Type != TypePred {
			p.fail(line, "bad type .%s for vote.%s", in.Type, in.Vote)
		}
	case OpMatch:
		if in.Vote == VoteNone || !in.Mods.Has(ModSync) {
			p.fail(line, "match needs .any or .all and .sync")
		}
	case OpRedux:
		// PTX ISA (redux.sync): add, min and max on .u32/.s32; and, or and
		// xor on .b32.
		if !in.Mods.Has(ModSync) {
			p.fail(line, "redux needs .sync")
		}
		switch in.Atom {
		case AtomAdd, AtomMin, AtomMax:
			if in.Type != TypeU32 && in.Type != TypeS32 {
				p.fail(line, "redux.sync.%s takes .u32 or .s32, not .%s", in.Atom, in.Type)
			}
		case AtomAnd, AtomOr, AtomXor:
			if in.Type != TypeB32 {
				p.fail(line, "redux.sync.%s takes .b32, not .%s", in.Atom, in.Type)
			}
		case AtomNone:
			p.fail(line, "redux without an operation")
		default:
			p.fail(line, "redux has no .%s operation", in.Atom)
		}
	case OpShfl:
		if in.Shfl == ShflNone {
			p.fail(line, "shfl without a mode")
		}
		if in.Type != TypeB32 {
			p.fail(line, "shfl supports only .b32")
		}
	case OpShf:
		if !sawShfDir {
			p.fail(line, "shf needs .l or .r")
		}
	case OpCvta:
		if in.Space == SpaceNone {
			p.fail(line, "cvta without a state space")
		}
	case OpBar:
		if in.Bar == BarNone {
			if base == "barrier" {
				p.fail(line, "barrier needs .sync, .arrive or .red")
			}
			// "bar 0;" is not PTX; bar needs a mode too.
			p.fail(line, "bar needs .sync, .arrive, .red or .warp.sync")
		}
		if base == "bar" && in.Bar != BarWarpSync {
			in.Mods |= ModAligned // bar.sync is barrier.sync.aligned
		}
	case OpMul, OpMad:
		if in.Type.IsInt() && !in.Mods.Has(ModHi) && !in.Mods.Has(ModLo) && !in.Mods.Has(ModWide) {
			p.fail(line, "integer %s needs .lo, .hi or .wide", base)
		}
		if in.Mods.Has(ModWide) && in.Type.Wide() == TypeNone {
			p.fail(line, "%s.wide on .%s", base, in.Type)
		}
	}
}

func (l *funcLowerer) parseRawOperand() rawOperand {
	p := l.p
	t := p.peek()
	op := rawOperand{line: t.line}
	switch {
	case p.accept("{"):
		op.kind = rawVector
		for {
			e := l.parseRawOperand()
			if e.kind == rawVector || e.kind == rawAddr {
				p.fail(t.line, "nested vector operand")
			}
			op.elems = append(op.elems, e)
			if !p.accept(",") {
				break
			}
		}
		p.expect("}")
		return op
	case p.accept("["):
		op.kind = rawAddr
		first := p.peek()
		switch first.kind {
		case tokIdent:
			p.next()
			op.text = first.text
		case tokNumber:
			v, ok := parseIntLiteral(first.text)
			if !ok {
				p.fail(first.line, "bad address %q", first.text)
			}
			p.next()
			op.offset = int64(v)
		default:
			p.fail(first.line, "bad address operand %s", describe(first))
		}
		op.offset += l.parseOffset()
		p.expect("]")
		return op
	case p.accept("!"):
		op.not = true
		nt := p.expectKind(tokIdent, "predicate")
		op.kind, op.text = rawName, nt.text
	case p.accept("-"):
		op.neg = true
		nt := p.expectKind(tokNumber, "number")
		op.kind, op.text = rawNumber, nt.text
	case t.kind == tokNumber:
		p.next()
		op.kind, op.text = rawNumber, t.text
	case t.kind == tokIdent:
		p.next()
		op.kind, op.text = rawName, t.text
		if t.text == "_" {
			op.kind = rawSink
		} else {
			op.offset = l.parseOffset()
		}
	default:
		p.fail(t.line, "bad operand %s", describe(t))
	}
	if p.accept("|") {
		second := l.parseRawOperand()
		if second.kind == rawPair || second.kind == rawVector || second.kind == rawAddr {
			p.fail(t.line, "bad a|b operand")
		}
		return rawOperand{kind: rawPair, elems: []rawOperand{op, second}, line: t.line}
	}
	return op
}

// parseOffset reads "+N", "+-N" or "-N" after a name or address base.
func (l *funcLowerer) parseOffset() int64 {
	p := l.p
	var off int64
	for p.is("+") || p.is("-") {
		neg := p.next().text == "-"
		if p.accept("-") {
			neg = !neg
		}
		nt := p.expectKind(tokNumber, "offset")
		v, ok := parseIntLiteral(nt.text)
		if !ok {
			p.fail(nt.line, "bad offset %q", nt.text)
		}
		if neg {
			off -= int64(v)
		} else {
			off += int64(v)
		}
	}
	return off
}

// resolve turns a raw operand into an Operand; ty is the operand's value
// type (for immediates).
func (l *funcLowerer) operand(r rawOperand, ty Type) Operand {
	p := l.p
	switch r.kind {
	case rawNumber:
		bits, ok := immediateBits(r.text, r.neg, ty)
		if !ok {
			p.fail(r.line, "bad immediate %q for type .%s", r.text, ty)
		}
		return Operand{Kind: OperandImm, Reg: NoReg, Sym: -1, Imm: bits}
	case rawName:
		if sr, ok := specialByName[r.text]; ok {
			if r.offset != 0 || r.not {
				p.fail(r.line, "bad special register operand")
			}
			return Operand{Kind: OperandSpecial, Special: sr, Reg: NoReg, Sym: -1}
		}
		e, ok := l.resolve(r.text)
		if !ok {
			if _, isFn := p.mod.FuncsByName[r.text]; isFn {
				p.fail(r.line, "function addresses are not supported (%s)", r.text)
			}
			if strings.HasPrefix(r.text, "%") {
				p.fail(r.line, "undeclared register %s", r.text)
			}
			p.fail(r.line, "undeclared identifier %s", r.text)
		}
		if e.kind == entReg {
			if r.offset != 0 {
				p.fail(r.line, "register %s with an offset outside an address", r.text)
			}
			if r.not && l.fn.Regs[e.index].Type != TypePred {
				p.fail(r.line, "! applied to non-predicate %s", r.text)
			}
			return Operand{Kind: OperandReg, Not: r.not, Reg: RegIndex(e.index), Sym: -1}
		}
		if r.not {
			p.fail(r.line, "! applied to symbol %s", r.text)
		}
		o := Operand{Kind: OperandSymbol, Reg: NoReg, Sym: e.index, Imm: uint64(r.offset)}
		o.SymSpace = l.entitySpace(e)
		return o
	case rawAddr:
		o := Operand{Kind: OperandAddr, Reg: NoReg, Sym: -1, Imm: uint64(r.offset)}
		if r.text == "" {
			return o
		}
		e, ok := l.resolve(r.text)
		if !ok {
			if strings.HasPrefix(r.text, "%") {
				p.fail(r.line, "undeclared register %s", r.text)
			}
			p.fail(r.line, "undeclared identifier %s", r.text)
		}
		if e.kind == entReg {
			if rt := l.fn.Regs[e.index].Type; rt == TypePred {
				p.fail(r.line, "predicate %s used as an address", r.text)
			}
			o.Reg = RegIndex(e.index)
		} else {
			o.Sym = e.index
			o.SymSpace = l.entitySpace(e)
		}
		return o
	case rawSink:
		return Operand{Kind: OperandNone, Reg: NoReg, Sym: -1}
	}
	p.fail(r.line, "unexpected operand form")
	return Operand{}
}

func (l *funcLowerer) entitySpace(e entity) Space {
	switch e.kind {
	case entParam:
		return SpaceParam
	case entLocal:
		return SpaceLocal
	case entVar:
		return l.p.mod.Vars[e.index].Space
	}
	return SpaceNone
}

// reg resolves an operand that must be a register (a destination, a
// predicate source).
func (l *funcLowerer) reg(r rawOperand, what string, pred bool) Operand {
	p := l.p
	if r.kind == rawSink && !pred {
		return Operand{Kind: OperandNone, Reg: NoReg, Sym: -1}
	}
	if r.kind != rawName {
		p.fail(r.line, "%s must be a register", what)
	}
	o := l.operand(r, TypeNone)
	if o.Kind != OperandReg {
		p.fail(r.line, "%s must be a register", what)
	}
	isPred := l.fn.Regs[o.Reg].Type == TypePred
	if pred != isPred {
		if pred {
			p.fail(r.line, "%s must be a predicate register", what)
		}
		p.fail(r.line, "%s must not be a predicate register", what)
	}
	return o
}

// predSrc resolves a predicate source: a predicate register (possibly
// negated) or the immediate 0/1.
func (l *funcLowerer) predSrc(r rawOperand, what string) Operand {
	if r.kind == rawNumber {
		return l.operand(r, TypePred)
	}
	return l.reg(r, what, true)
}

// value resolves a source operand: a register, immediate, special register
// or symbol address. Predicate registers are allowed only when ty is pred.
func (l *funcLowerer) value(r rawOperand, ty Type, what string) Operand {
	p := l.p
	switch r.kind {
	case rawVector, rawAddr, rawPair, rawSink:
		p.fail(r.line, "bad %s operand", what)
	}
	o := l.operand(r, ty)
	if o.Kind == OperandReg {
		isPred := l.fn.Regs[o.Reg].Type == TypePred
		if isPred != (ty == TypePred) {
			p.fail(r.line, "%s: register type does not match .%s", what, ty)
		}
	}
	return o
}

func (l *funcLowerer) addr(r rawOperand) Operand {
	if r.kind != rawAddr {
		l.p.fail(r.line, "expected an address [..]")
	}
	return l.operand(r, TypeNone)
}

// srcType is the value type of source operand i, for immediates and
// predicate checks.
func srcType(in *Inst, i int) Type {
	switch in.Op {
	case OpCvt:
		return in.SrcType
	case OpSet:
		if i == 2 {
			return TypePred
		}
		return in.SrcType
	case OpSetp:
		if i == 2 {
			return TypePred
		}
	case OpSelp:
		if i == 2 {
			return TypePred
		}
	case OpSlct:
		if i == 2 {
			return in.SrcType
		}
	case OpMad:
		if i == 2 && in.Mods.Has(ModWide) {
			return in.Type.Wide()
		}
	case OpShl, OpShr:
		if i == 1 {
			return TypeU32
		}
	case OpBfe:
		if i >= 1 {
			return TypeU32
		}
	case OpBfi:
		if i >= 2 {
			return TypeU32
		}
	case OpShf:
		if i == 2 {
			return TypeU32
		}
	case OpVote:
		if i == 0 {
			return TypePred
		}
		return TypeB32
	case OpMatch, OpRedux:
		if i == 1 {
			return TypeB32
		}
	case OpShfl, OpBar, OpNanosleep, OpPmevent:
		return TypeB32
	}
	return in.Type
}

// dstType is the type a destination register of the instruction has.
func dstType(in *Inst) Type {
	switch in.Op {
	case OpSetp, OpTestp:
		return TypePred
	case OpPopc, OpClz, OpBfind:
		return TypeU32
	case OpVote:
		return in.Type
	case OpMatch:
		return TypeB32 // the mask, whatever the value's type
	}
	return in.Type
}

func (l *funcLowerer) assignOperands(in *Inst, spec opSpec, ops []rawOperand, line int32) {
	p := l.p
	count := func(lo, hi int) {
		if len(ops) < lo || len(ops) > hi {
			if lo == hi {
				p.fail(line, "%s takes %d operands, found %d", in.Op, lo, len(ops))
			}
			p.fail(line, "%s takes %d to %d operands, found %d", in.Op, lo, hi, len(ops))
		}
	}
	dst := func(r rawOperand) Operand { return l.reg(r, "destination", dstType(in) == TypePred) }
	switch spec.form {
	case formDstSrcs:
		count(1+spec.minSrc, 1+spec.maxSrc)
		if in.Op == OpMov && (ops[0].kind == rawVector || ops[1].kind == rawVector) {
			l.assignMovVector(in, ops, line)
			return
		}
		if in.Op == OpVote && len(ops) == 3 != in.Mods.Has(ModSync) {
			p.fail(line, "vote.sync takes a member mask; vote without .sync does not")
		}
		if in.Op == OpMatch && ops[0].kind == rawPair {
			// match.all.sync d|p: p is set when every member's value is equal.
			if in.Vote != VoteAll {
				p.fail(line, "only match.all takes a predicate destination")
			}
			in.Dst[0] = l.reg(ops[0].elems[0], "destination", false)
			in.Dst[1] = l.reg(ops[0].elems[1], "destination", true)
			in.NDst = 2
		} else {
			in.Dst[0], in.NDst = dst(ops[0]), 1
		}
		for i, r := range ops[1:] {
			t := srcType(in, i)
			if t == TypePred {
				in.Src[i] = l.predSrc(r, "predicate source")
			} else {
				in.Src[i] = l.value(r, t, "source")
			}
		}
		in.NSrc = uint8(len(ops) - 1)
	case formSrcs:
		count(spec.minSrc, spec.maxSrc)
		for i, r := range ops {
			in.Src[i] = l.value(r, srcType(in, i), "source")
		}
		in.NSrc = uint8(len(ops))
	case formSetp:
		count(1+spec.minSrc, 1+spec.maxSrc)
		if (len(ops) == 4) != (in.Bool != BoolNone) {
			p.fail(line, "setp with a boolean operation takes a third source predicate (and only then)")
		}
		if ops[0].kind == rawPair {
			in.Dst[0] = l.reg(ops[0].elems[0], "destination", true)
			in.Dst[1] = l.reg(ops[0].elems[1], "destination", true)
			in.NDst = 2
		} else {
			in.Dst[0], in.NDst = l.reg(ops[0], "destination", true), 1
		}
		for i, r := range ops[1:] {
			if i == 2 {
				in.Src[i] = l.predSrc(r, "predicate source")
			} else {
				in.Src[i] = l.value(r, in.Type, "source")
			}
		}
		in.NSrc = uint8(len(ops) - 1)
	case formLd:
		count(2, 2)
		l.vectorRegs(in, ops[0], in.Dst[:], &in.NDst, true, line)
		in.Addr = l.addr(ops[1])
	case formSt:
		count(2, 2)
		in.Addr = l.addr(ops[0])
		l.vectorRegs(in, ops[1], in.Src[:], &in.NSrc, false, line)
	case formAtom:
		n := 3
		if in.Atom == AtomCas {
			n = 4
		}
		count(n, n)
		in.Dst[0], in.NDst = dst(ops[0]), 1
		in.Addr = l.addr(ops[1])
		for i, r := range ops[2:] {
			in.Src[i] = l.value(r, in.Type, "source")
		}
		in.NSrc = uint8(n - 2)
	case formRed:
		count(2, 2)
		if in.Atom == AtomCas || in.Atom == AtomExch {
			p.fail(line, "red.%s does not exist", in.Atom)
		}
		in.Addr = l.addr(ops[0])
		in.Src[0], in.NSrc = l.value(ops[1], in.Type, "source"), 1
	case formPrefetch:
		count(1, 1)
		in.Addr = l.addr(ops[0])
	case formBra:
		count(1, 1)
		if ops[0].kind != rawName || ops[0].offset != 0 {
			p.fail(line, "bra needs a label")
		}
		if strings.HasPrefix(ops[0].text, "%") {
			p.fail(line, "indirect branches are not supported")
		}
		l.branches = append(l.branches, pendingBranch{inst: len(l.fn.Insts), label: ops[0].text, line: line})
	case formShfl:
		n := 4
		if in.Mods.Has(ModSync) {
			n = 5
		}
		count(n, n)
		if ops[0].kind == rawPair {
			in.Dst[0] = l.reg(ops[0].elems[0], "destination", false)
			in.Dst[1] = l.reg(ops[0].elems[1], "destination", true)
			in.NDst = 2
		} else {
			in.Dst[0], in.NDst = dst(ops[0]), 1
		}
		for i, r := range ops[1:] {
			in.Src[i] = l.value(r, TypeB32, "source")
		}
		in.NSrc = uint8(n - 1)
	case formBar:
		l.assignBar(in, ops, line)
	default:
		p.fail(line, "internal: no operand form")
	}
}

// assignBar handles bar.sync a[, b], bar.arrive a, b, bar.red.op d, a[, b],
// {!}c and bar.warp.sync mask.
func (l *funcLowerer) assignBar(in *Inst, ops []rawOperand, line int32) {
	p := l.p
	switch in.Bar {
	case BarSync, BarArrive, BarWarpSync:
		if in.Type != TypeNone {
			p.fail(line, "bar.%s takes no type", in.Bar)
		}
		lo, hi := 1, 2
		if in.Bar == BarArrive {
			lo = 2
		}
		if in.Bar == BarWarpSync {
			hi = 1
		}
		if len(ops) < lo || len(ops) > hi {
			p.fail(line, "bar.%s takes %d to %d operands, found %d", in.Bar, lo, hi, len(ops))
		}
		for i, r := range ops {
			in.Src[i] = l.value(r, TypeB32, "barrier operand")
		}
		in.NSrc = uint8(len(ops))
	default: // bar.red
		want := TypePred
		if in.Bar == BarRedPopc {
			want = TypeU32
		}
		if in.Type != want {
			p.fail(line, "bar.%s needs type .%s", in.Bar, want)
		}
		if len(ops) < 3 || len(ops) > 4 {
			p.fail(line, "bar.red takes 3 or 4 operands, found %d", len(ops))
		}
		in.Dst[0], in.NDst = l.reg(ops[0], "destination", want == TypePred), 1
		for i, r := range ops[1 : len(ops)-1] {
			in.Src[i] = l.value(r, TypeB32, "barrier operand")
		}
		in.Src[len(ops)-2] = l.predSrc(ops[len(ops)-1], "predicate")
		in.NSrc = uint8(len(ops) - 1)
	}
}

// vectorRegs fills a ld destination or st source: one operand, or a vector
// of exactly Vec elements.
func (l *funcLowerer) vectorRegs(in *Inst, r rawOperand, out []Operand, n *uint8, isDst bool, line int32) {
	p := l.p
	elems := []rawOperand{r}
	if r.kind == rawVector {
		elems = r.elems
		if in.Vec == 1 {
			p.fail(line, "vector operand without .v2/.v4")
		}
	}
	if len(elems) != int(in.Vec) {
		p.fail(line, "%s.v%d needs %d elements, found %d", in.Op, in.Vec, in.Vec, len(elems))
	}
	for i, e := range elems {
		if isDst {
			out[i] = l.reg(e, "destination", in.Type == TypePred)
		} else {
			out[i] = l.value(e, in.Type, "source")
		}
	}
	*n = uint8(len(elems))
}

// assignMovVector lowers "mov.b64 %rd, {%r1, %r2}" to OpPack and
// "mov.b64 {%r1, %r2}, %rd" to OpUnpack.
func (l *funcLowerer) assignMovVector(in *Inst, ops []rawOperand, line int32) {
	p := l.p
	if ops[0].kind == rawVector && ops[1].kind == rawVector {
		p.fail(line, "mov between two vectors is not supported")
	}
	vec := ops[0]
	if ops[1].kind == rawVector {
		vec = ops[1]
	}
	n := len(vec.elems)
	if (n != 2 && n != 4) || in.Type.Size()%n != 0 || in.Type.Size() < 2 {
		p.fail(line, "mov.%s cannot split into %d elements", in.Type, n)
	}
	elemType := map[int]Type{1: TypeB8, 2: TypeB16, 4: TypeB32, 8: TypeB64}[in.Type.Size()/n]
	if ops[0].kind == rawVector {
		in.Op = OpUnpack
		for i, e := range vec.elems {
			in.Dst[i] = l.reg(e, "destination", false)
		}
		in.NDst = uint8(n)
		in.Src[0], in.NSrc = l.value(ops[1], in.Type, "source"), 1
		return
	}
	in.Op = OpPack
	in.Dst[0], in.NDst = l.reg(ops[0], "destination", false), 1
	for i, e := range vec.elems {
		in.Src[i] = l.value(e, elemType, "source")
	}
	in.NSrc = uint8(n)
}

// decodeCall reads "[(rets),] callee[, (args)];" after call[.uni].
func (l *funcLowerer) decodeCall(in *Inst, line int32) {
	p := l.p
	cs := &CallSite{}
	var rets, args []rawOperand
	list := func() []rawOperand {
		p.expect("(")
		var out []rawOperand
		if p.accept(")") {
			return out
		}
		for {
			out = append(out, l.parseRawOperand())
			if !p.accept(",") {
				break
			}
		}
		p.expect(")")
		return out
	}
	if p.is("(") {
		rets = list()
		p.expect(",")
	}
	ct := p.expectKind(tokIdent, "call target")
	if strings.HasPrefix(ct.text, "%") {
		p.fail(line, "indirect calls are not supported")
	}
	idx, ok := p.mod.FuncsByName[ct.text]
	if !ok {
		p.fail(line, "call to undeclared function %s", ct.text)
	}
	if p.accept(",") {
		if !p.is("(") {
			p.fail(line, "call prototypes (indirect calls) are not supported")
		}
		args = list()
		if p.is(",") {
			p.fail(line, "call prototypes (indirect calls) are not supported")
		}
	}
	p.expect(";")
	callee := p.mod.Funcs[idx]
	if callee.Kind != KindFunc {
		p.fail(line, "call to .entry %s", ct.text)
	}
	if len(args) != callee.NumInputs || len(rets) != callee.NumReturns {
		p.fail(line, "call to %s with %d arguments and %d results; it takes %d and returns %d",
			ct.text, len(args), len(rets), callee.NumInputs, callee.NumReturns)
	}
	bind := func(r rawOperand, formal Param) Operand {
		if formal.Space == SpaceReg {
			if formal.Type == TypePred {
				return l.predSrc(r, "argument")
			}
			return l.value(r, formal.Type, "argument")
		}
		if r.kind != rawName {
			p.fail(line, "argument for .param %s must be a .param symbol", formal.Name)
		}
		o := l.operand(r, TypeNone)
		if o.Kind != OperandSymbol || o.SymSpace != SpaceParam || o.Imm != 0 {
			p.fail(line, "argument for .param %s must be a .param symbol", formal.Name)
		}
		if l.fn.Params[o.Sym].Size < formal.Size {
			p.fail(line, "argument %s is smaller than parameter %s", r.text, formal.Name)
		}
		return o
	}
	for i, r := range args {
		cs.Args = append(cs.Args, bind(r, p.calleeParams[idx][i]))
	}
	for i, r := range rets {
		formal := p.calleeParams[idx][callee.NumInputs+i]
		o := bind(r, formal)
		if formal.Space == SpaceReg && o.Kind != OperandReg {
			p.fail(line, "result for .reg %s must be a register", formal.Name)
		}
		cs.Rets = append(cs.Rets, o)
	}
	cs.Callee = int32(idx)
	in.Call = cs
	if callee.NoReturn {
		in.Mods |= ModNoReturn
	}
}
