package exec

import (
	"fmt"
	"strings"
	"sync"

	"github.com/warpgraph/warpgraph/internal/parallel"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Module is a PTX module loaded into a device memory: its global and
// constant variables are allocated (and initialised) there, and each entry
// is prepared into a Program on first use.
type Module struct {
	PTX *ptx.Module
	mem *Memory
	// varAddr is the device address of each global or const variable of
	// PTX.Vars (0 for shared variables).
	varAddr []uint64

	mu    sync.Mutex
	progs map[string]*Program
	// fast selects the specialised execution paths (tests turn it off to
	// check them against the generic ones).
	fast bool
}

// LoadModule allocates mod's global and constant variables in mem.
func LoadModule(mod *ptx.Module, mem *Memory) (*Module, error) {
	m := &Module{PTX: mod, mem: mem, varAddr: make([]uint64, len(mod.Vars)), progs: map[string]*Program{}, fast: true}
	for i, v := range mod.Vars {
		if v.Space != ptx.SpaceGlobal && v.Space != ptx.SpaceConst {
			continue
		}
		if v.Extern && v.Size == 0 {
			return nil, fmt.Errorf("module %s: extern %s variable %s has no definition", mod.Name, v.Space, v.Name)
		}
		addr, err := mem.Alloc(max(v.Size, 1))
		if err != nil {
			return nil, fmt.Errorf("module %s: variable %s: %w", mod.Name, v.Name, err)
		}
		if v.Init != nil {
			if err := mem.Write(addr, v.Init); err != nil {
				return nil, fmt.Errorf("module %s: variable %s: %w", mod.Name, v.Name, err)
			}
		}
		m.varAddr[i] = addr
	}
	return m, nil
}

// Unload frees the module's global and constant variables (a module that
// failed its Check is never used).
func (m *Module) Unload() error {
	for i, a := range m.varAddr {
		if a == 0 {
			continue
		}
		if err := m.mem.Free(a); err != nil {
			return fmt.Errorf("module %s: variable %s: %w", m.PTX.Name, m.PTX.Vars[i].Name, err)
		}
		m.varAddr[i] = 0
	}
	return nil
}

// VarAddr returns the device address of a global or const variable.
func (m *Module) VarAddr(name string) (uint64, bool) {
	i, ok := m.PTX.VarsByName[name]
	if !ok || m.varAddr[i] == 0 {
		return 0, false
	}
	return m.varAddr[i], true
}

// Program returns the prepared form of the named entry.
func (m *Module) Program(entry string) (*Program, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.progs[entry]; ok {
		return p, nil
	}
	fn := m.PTX.Func(entry)
	if fn == nil || fn.Kind != ptx.KindEntry {
		return nil, fmt.Errorf("module %s has no entry %q", m.PTX.Name, entry)
	}
	if fn.Extern {
		return nil, fmt.Errorf("module %s: entry %s is declared without a body", m.PTX.Name, entry)
	}
	p, err := m.prepare(fn)
	if err != nil {
		return nil, err
	}
	m.progs[entry] = p
	return p, nil
}

// Program is one kernel entry lowered for the executor, with every
// function it calls.
type Program struct {
	Module *Module
	Entry  *ptx.Function
	funcs  []*xfunc // by Module.Funcs index; nil when not reachable
	entry  *xfunc
	// localStack is the per-thread local memory of the deepest call chain.
	localStack int
	// frames are call frames of retired CTAs, kept across launches: a
	// launch's warps would otherwise allocate (and the runtime clear)
	// every callee's register file afresh, 128 KB per warp for clang's
	// larger helpers.
	frames framePool
	// ctas are the CTA states of the last finished launch, for the next
	// launch of the same shape (see Grid.Retire).
	ctaMu    sync.Mutex
	ctas     []*CTA
	ctaShape ctaShape
}

// ctaShape is what a CTA's state depends on besides the program.
type ctaShape struct{ warps, shared, localStride int }

// Name is the kernel's name.
func (p *Program) Name() string { return p.Entry.Name }

// Registers is the number of register rows (slots) of the entry's frame:
// its declared registers, or fewer where they share slots.
func (p *Program) Registers() int { return p.entry.nregs }

// Reachable calls f for the entry and every function it calls, directly or
// not (the functions the program lowered).
func (p *Program) Reachable(f func(*ptx.Function)) {
	for _, xf := range p.funcs {
		if xf != nil {
			f(xf.fn)
		}
	}
}

// Rows returns the register-file row of each PTX register of fn (the
// entry or a function it calls; nil for another): registers whose live
// ranges never meet may share one (ptx.Function.Slots).
func (p *Program) Rows(fn *ptx.Function) []int32 {
	for _, xf := range p.funcs {
		if xf != nil && xf.fn == fn {
			return xf.slot
		}
	}
	return nil
}

// LocalBytes is the per-thread local memory the program needs.
func (p *Program) LocalBytes() int { return p.localStack }

// xfunc is one lowered function.
type xfunc struct {
	fn     *ptx.Function
	code   []xinst
	consts [][32]uint64
	// nregs is the rows of the function's register file: its registers'
	// slots (ptx.Function.Slots), fewer than its registers when live
	// ranges do not meet. slot maps a PTX register to its row; liveIn are
	// the rows a frame zeroes at its start.
	nregs  int
	slot   []int32
	liveIn []int32
	// paramFrame is the per-thread param frame in bytes, 0 when the
	// function needs none (an entry without calls).
	paramFrame int
	entry      bool
	// clockRegs marks the rows whose values may derive from %clock and
	// friends (nil when the function reads no clock): the livelock check
	// leaves them out of the warp's state (see clockTaint). Such registers
	// get rows of their own.
	clockRegs []bool
}

// xop is the executor's operation: the PTX opcode specialised by type and
// modifiers where that pays off (wazero's unionOperation).
type xop uint8

const (
	xInvalid xop = iota
	xNop
	xNanosleep
	xScalar // one result per lane from up to 4 sources: evalScalar
	xSetp
	xCarry // add.cc, addc, sub.cc, subc
	xMov
	xNotPred
	xPack
	xUnpack
	xCvta
	xCvtInt // int to int without saturation
	xAdd32
	xAdd64
	xSub32
	xSub64
	xMulLo32
	xMulLo64
	xMadLo32
	xMadLo64
	xMulWideU32
	xMulWideS32
	xAnd
	xOr
	xXor
	xShl32
	xShl64
	xShrU32
	xShrS32
	xShrU64
	xMinU32
	xMaxU32
	xMinS32
	xMaxS32
	xSetpS32
	xSetpU32
	xSetpS64
	xSetpU64
	xSelp
	xAddF32
	xSubF32
	xMulF32
	xFmaF32
	xLd
	xLdParam // entry kernel parameter without a base register: uniform
	xLdGlobal
	xSt
	xStGlobal
	xAtom
	xBra
	xCall
	xRet
	xExit
	xTrap
	xBar
	xWarpSync
	xVote
	xShfl
	xActivemask
	xMatch
	xRedux
)

// okind is how an xopnd is read.
type okind uint8

const (
	okNone    okind = iota
	okReg           // register slot reg
	okConst         // the program constant row idx (immediates, symbol addresses)
	okSpecial       // special register sreg
	okLocal         // a local symbol: the frame's local base + imm
)

type xopnd struct {
	kind okind
	not  bool // predicate negation
	sreg ptx.SpecialReg
	idx  int32 // register slot or constant row
	imm  uint64
}

// xinst is one lowered instruction. Its shape is fixed.
type xinst struct {
	op     xop
	nsrc   uint8
	ndst   uint8
	size   uint8 // memory element bytes
	vec    uint8 // memory vector length
	gnot   bool
	alocal bool // the address includes the frame's local base
	signed bool // memory load sign-extends; setp/cvt signedness
	// deadDst marks the destinations (bit j: dst[j]) that nothing reads
	// afterwards (ptx.Function.DeadDefs): a split grid's logged load or
	// atomic does not write them (see split.go).
	deadDst uint8
	space   ptx.Space
	guard   int32 // guard predicate slot, -1 none
	dst     [4]int32
	src     [4]xopnd
	abase   int32 // address base register, -1 none
	aoff    uint64
	target  int32
	reconv  int32
	shift   uint8 // xCvtInt: bits of the source (sign/zero extension)
	cmptt   uint8 // xSetp{S,U}{32,64}: result when a<b (bit 0), a==b (bit 1), a>b (bit 2)
	pc      int32
	in      *ptx.Inst
	// callArgs are the lowered argument operands of a call (for .reg
	// formals).
	callArgs []xopnd
}

// prepare lowers an entry and every function reachable from it.
func (m *Module) prepare(entry *ptx.Function) (*Program, error) {
	p := &Program{Module: m, Entry: entry, funcs: make([]*xfunc, len(m.PTX.Funcs))}
	var errs LoadErrors
	var visit func(f int) error
	visit = func(f int) error {
		if p.funcs[f] != nil {
			return nil
		}
		fn := m.PTX.Funcs[f]
		if fn.Extern {
			return fmt.Errorf("kernel %s calls %s, which is declared without a body", entry.Name, fn.Name)
		}
		xf := &xfunc{fn: fn, entry: fn == entry}
		xf.assignSlots()
		p.funcs[f] = xf
		errs = append(errs, m.lowerFunc(p, entry, xf)...)
		for _, c := range fn.Callees {
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(entry.Index); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs
	}
	p.entry = p.funcs[entry.Index]
	depth, err := p.stackDepth(entry.Index, make([]uint8, len(m.PTX.Funcs)))
	if err != nil {
		return nil, err
	}
	p.localStack = depth
	return p, nil
}

// stackDepth is the deepest per-thread local-memory use of a call chain
// starting at f. Recursion through functions with local frames has no
// static bound and is refused.
func (p *Program) stackDepth(f int, state []uint8) (int, error) {
	fn := p.funcs[f].fn
	if state[f] == 1 {
		if fn.LocalFrameSize > 0 {
			return 0, fmt.Errorf("kernel %s: recursive call of %s, which uses local memory, is not supported", p.Entry.Name, fn.Name)
		}
		return 0, nil
	}
	state[f] = 1
	deepest := 0
	for _, c := range fn.Callees {
		d, err := p.stackDepth(c, state)
		if err != nil {
			return 0, err
		}
		deepest = max(deepest, d)
	}
	state[f] = 0
	return alignUp(fn.LocalFrameSize, 16) + deepest, nil
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// unsupported reports an instruction the executor does not run, quoted
// with its PTX and CUDA source lines (Where).
func unsupported(m *ptx.Module, entry *ptx.Function, fn *ptx.Function, pc int, what string) error {
	return fmt.Errorf("kernel %s: in %s: %s is not supported by the simulator: %s", entry.Name, fn.Name, what, Where(m, fn, pc))
}

// LoadErrors is every instruction of a module, or of an entry and the
// functions it calls, that the executor cannot run, in order.
type LoadErrors []error

func (l LoadErrors) Error() string {
	if len(l) == 1 {
		return l[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d instructions cannot run on the simulator:", len(l))
	for _, e := range l {
		b.WriteString("\n\t")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l LoadErrors) Unwrap() []error { return l }

// orNil is l as an error, nil when empty.
func (l LoadErrors) orNil() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Check prepares every kernel entry of the module and reports, in one
// error, every instruction the executor cannot run (each once, though
// several entries call its function), so a module is judged whole at load
// time rather than one failing launch at a time.
func (m *Module) Check() error {
	var entries []*ptx.Function
	for _, fn := range m.PTX.Funcs {
		if fn.Kind == ptx.KindEntry && !fn.Extern {
			entries = append(entries, fn)
		}
	}
	// Entries are prepared at once (each reads the parse only), then
	// recorded and reported in the module's order.
	progs := make([]*Program, len(entries))
	errs := make([]error, len(entries))
	parallel.Chunks(len(entries), func(i int) {
		progs[i], errs[i] = m.prepare(entries[i])
	})
	var all LoadErrors
	seen := map[string]bool{}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, fn := range entries {
		err := errs[i]
		if err == nil {
			if _, ok := m.progs[fn.Name]; !ok {
				m.progs[fn.Name] = progs[i]
			}
			continue
		}
		errs, ok := err.(LoadErrors)
		if !ok {
			errs = LoadErrors{err}
		}
		for _, e := range errs {
			// A device function shared by several entries fails once per
			// entry: report it once.
			key := e.Error()
			if i := strings.Index(key, ": in "); i >= 0 {
				key = key[i:]
			}
			if !seen[key] {
				seen[key] = true
				all = append(all, e)
			}
		}
	}
	return all.orNil()
}

// lowerFunc lowers one function and returns every instruction it cannot
// run.
func (m *Module) lowerFunc(p *Program, entry *ptx.Function, xf *xfunc) LoadErrors {
	fn := xf.fn
	if xf.entry {
		if fn.ParamFrameSize > fn.KernelParamSize {
			xf.paramFrame = fn.ParamFrameSize
		}
	} else {
		xf.paramFrame = fn.ParamFrameSize
	}
	consts := map[uint64]int32{}
	constRow := func(v uint64) xopnd {
		i, ok := consts[v]
		if !ok {
			i = int32(len(xf.consts))
			var row [32]uint64
			for l := range row {
				row[l] = v
			}
			xf.consts = append(xf.consts, row)
			consts[v] = i
		}
		return xopnd{kind: okConst, idx: i}
	}
	xf.code = make([]xinst, len(fn.Insts))
	var errs LoadErrors
	for pc := range fn.Insts {
		if err := m.lowerInst(p, entry, xf, pc, constRow); err != nil {
			errs = append(errs, err)
		}
	}
	for pc, d := range fn.DeadDefs() {
		xf.code[pc].deadDst = d
	}
	return errs
}

// shareSlots is whether registers share rows (ptx.Function.Slots).
var shareSlots = true

// SetSlotSharing sets whether programs prepared from now on give registers
// whose live ranges never meet one row (on by default) and returns the
// previous setting. Sharing changes no result and no step; tests turn it
// off to show that.
func SetSlotSharing(on bool) (was bool) {
	was, shareSlots = shareSlots, on
	return was
}

// assignSlots lays out the function's register file.
func (xf *xfunc) assignSlots() {
	fn := xf.fn
	clock := clockTaint(fn)
	if !shareSlots {
		xf.nregs, xf.slot, xf.clockRegs = fn.NumRegs, make([]int32, fn.NumRegs), clock
		for r := range xf.slot {
			xf.slot[r] = int32(r)
		}
		for _, r := range fn.Liveness.LiveIn {
			xf.liveIn = append(xf.liveIn, int32(r))
		}
		return
	}
	s := fn.Slots(clock)
	xf.nregs, xf.slot, xf.liveIn = s.N, s.Of, s.LiveIn
	if clock != nil {
		xf.clockRegs = make([]bool, s.N)
		for r, c := range clock {
			if c {
				xf.clockRegs[s.Of[r]] = true
			}
		}
	}
}

// row is the register-file row of PTX register r, -1 for none.
func (xf *xfunc) row(r ptx.RegIndex) int32 {
	if r == ptx.NoReg {
		return -1
	}
	return xf.slot[r]
}

// lowerInst lowers instruction pc of xf.
func (m *Module) lowerInst(p *Program, entry *ptx.Function, xf *xfunc, pc int, constRow func(uint64) xopnd) error {
	fn := xf.fn
	{
		in := &fn.Insts[pc]
		x := &xf.code[pc]
		x.in = in
		x.pc = int32(pc)
		x.guard = xf.row(in.Guard)
		x.gnot = in.GuardNot
		x.target, x.reconv = in.Target, in.Reconverge
		x.nsrc, x.ndst = in.NSrc, in.NDst
		x.abase = -1
		for i := range x.dst {
			x.dst[i] = -1
		}
		bad := func(what string) error { return unsupported(m.PTX, entry, fn, pc, what) }
		for _, t := range []ptx.Type{in.Type, in.SrcType} {
			switch t {
			case ptx.TypeF16, ptx.TypeF16x2, ptx.TypeB128:
				movesBits := in.Op == ptx.OpMov || in.Op == ptx.OpLd || in.Op == ptx.OpSt
				if !(movesBits || in.Op == ptx.OpCvt && t == ptx.TypeF16) || t == ptx.TypeB128 {
					return bad("the ." + t.String() + " type")
				}
			}
		}
		for i := 0; i < int(in.NDst); i++ {
			d := in.Dst[i]
			switch d.Kind {
			case ptx.OperandNone:
			case ptx.OperandReg:
				x.dst[i] = xf.row(d.Reg)
			default:
				return bad("a non-register destination")
			}
		}
		operand := func(o ptx.Operand) (xopnd, error) {
			switch o.Kind {
			case ptx.OperandReg:
				return xopnd{kind: okReg, idx: xf.row(o.Reg), not: o.Not}, nil
			case ptx.OperandImm:
				return constRow(o.Imm), nil
			case ptx.OperandSpecial:
				return xopnd{kind: okSpecial, sreg: o.Special}, nil
			case ptx.OperandSymbol:
				addr, local, err := m.symAddr(p, entry, fn, o)
				if err != nil {
					return xopnd{}, err
				}
				if local {
					return xopnd{kind: okLocal, imm: addr}, nil
				}
				return constRow(addr), nil
			case ptx.OperandNone:
				return xopnd{}, nil
			}
			return xopnd{}, fmt.Errorf("unexpected operand kind %d: %s", o.Kind, Where(m.PTX, fn, pc))
		}
		for i := 0; i < int(in.NSrc); i++ {
			o, err := operand(in.Src[i])
			if err != nil {
				return fmt.Errorf("kernel %s: %s: %w", entry.Name, fn.Name, err)
			}
			x.src[i] = o
		}
		if in.Addr.Kind == ptx.OperandAddr {
			if in.Addr.Reg != ptx.NoReg {
				x.abase = xf.row(in.Addr.Reg)
			}
			off := uint64(in.Addr.Imm)
			if in.Addr.Sym >= 0 {
				a, local, err := m.symAddr(p, entry, fn, ptx.Operand{Kind: ptx.OperandSymbol, SymSpace: in.Addr.SymSpace, Sym: in.Addr.Sym})
				if err != nil {
					return fmt.Errorf("kernel %s: %s: %w", entry.Name, fn.Name, err)
				}
				off += a
				x.alocal = local
			}
			x.aoff = off
		}
		if in.Op == ptx.OpCall && in.Call != nil {
			for _, a := range in.Call.Args {
				o, err := operand(a)
				if err != nil {
					return fmt.Errorf("kernel %s: %s: %w", entry.Name, fn.Name, err)
				}
				x.callArgs = append(x.callArgs, o)
			}
		}
		return m.selectOp(xf, x, in, bad)
	}
}

// symAddr is the address of a variable operand in its own space: a device
// address for global and const variables, a shared offset, a param-frame
// offset, or (local == true) an offset from the frame's local base.
func (m *Module) symAddr(p *Program, entry, fn *ptx.Function, o ptx.Operand) (addr uint64, local bool, err error) {
	off := uint64(o.Imm)
	switch o.SymSpace {
	case ptx.SpaceGlobal, ptx.SpaceConst:
		a := m.varAddr[o.Sym]
		if a == 0 {
			return 0, false, fmt.Errorf("variable %s has no device address", m.PTX.Vars[o.Sym].Name)
		}
		return a + off, false, nil
	case ptx.SpaceShared:
		at := entry.SharedLayout[o.Sym]
		if at < 0 {
			return 0, false, fmt.Errorf("shared variable %s is not laid out for %s", m.PTX.Vars[o.Sym].Name, entry.Name)
		}
		return uint64(at) + off, false, nil
	case ptx.SpaceParam:
		return uint64(fn.Params[o.Sym].Offset) + off, false, nil
	case ptx.SpaceLocal:
		return uint64(fn.Locals[o.Sym].Offset) + off, true, nil
	}
	return 0, false, fmt.Errorf("symbol in unexpected space %s", o.SymSpace)
}

// selectOp picks the xop of an instruction and checks what the executor
// supports.
func (m *Module) selectOp(xf *xfunc, x *xinst, in *ptx.Inst, bad func(string) error) error {
	fast := m.fast
	t := in.Type
	x.op = xScalar
	switch in.Op {
	case ptx.OpMov:
		x.op = xMov
		if t == ptx.TypePred && x.src[0].not {
			x.op = xScalar
		}
	case ptx.OpPack:
		x.op = xPack
	case ptx.OpUnpack:
		x.op = xUnpack
	case ptx.OpCvta:
		x.op = xCvta
		switch in.Space {
		case ptx.SpaceGlobal, ptx.SpaceConst:
			if fast && t.Size() == 8 {
				x.op = xMov // the identity: global addresses are generic
			}
		case ptx.SpaceShared, ptx.SpaceLocal:
		default:
			return bad("cvta for the ." + in.Space.String() + " space")
		}
	case ptx.OpCvt:
		x.signed = in.SrcType.IsSigned()
		if fast && t.IsInt() && in.SrcType.IsInt() && !in.Mods.Has(ptx.ModSat) {
			x.op = xCvtInt
			x.shift = uint8(in.SrcType.Bits())
			x.aoff = zx(^uint64(0), t.Bits())
		}
	case ptx.OpAdd, ptx.OpSub:
		if in.Mods.Has(ptx.ModCarryOut) {
			x.op = xCarry
			break
		}
		if !fast || in.Mods.Has(ptx.ModSat) || in.Mods.Has(ptx.ModFtz) {
			break
		}
		add := in.Op == ptx.OpAdd
		switch {
		case t.IsInt() && t.Size() == 4:
			x.op = pick(add, xAdd32, xSub32)
		case t.IsInt() && t.Size() == 8:
			x.op = pick(add, xAdd64, xSub64)
		case t == ptx.TypeF32 && (in.Rounding == ptx.RoundNone || in.Rounding == ptx.RoundRN):
			x.op = pick(add, xAddF32, xSubF32)
		}
	case ptx.OpAddc, ptx.OpSubc:
		x.op = xCarry
	case ptx.OpMul:
		if !fast {
			break
		}
		switch {
		case t.IsInt() && in.Mods.Has(ptx.ModLo) && t.Size() == 4:
			x.op = xMulLo32
		case t.IsInt() && in.Mods.Has(ptx.ModLo) && t.Size() == 8:
			x.op = xMulLo64
		case in.Mods.Has(ptx.ModWide) && (t == ptx.TypeU32 || t == ptx.TypeB32):
			x.op = xMulWideU32
		case in.Mods.Has(ptx.ModWide) && t == ptx.TypeS32:
			x.op = xMulWideS32
		case t == ptx.TypeF32 && (in.Rounding == ptx.RoundNone || in.Rounding == ptx.RoundRN) && !in.Mods.Has(ptx.ModSat) && !in.Mods.Has(ptx.ModFtz):
			x.op = xMulF32
		}
	case ptx.OpMad, ptx.OpFma:
		if in.Mods.Has(ptx.ModCarryOut) {
			return bad("mad.cc")
		}
		if !fast {
			break
		}
		switch {
		case t.IsInt() && in.Mods.Has(ptx.ModLo) && t.Size() == 4 && !in.Mods.Has(ptx.ModSat):
			x.op = xMadLo32
		case t.IsInt() && in.Mods.Has(ptx.ModLo) && t.Size() == 8:
			x.op = xMadLo64
		case t == ptx.TypeF32 && (in.Rounding == ptx.RoundNone || in.Rounding == ptx.RoundRN) && !in.Mods.Has(ptx.ModSat) && !in.Mods.Has(ptx.ModFtz):
			x.op = xFmaF32
		}
	case ptx.OpAnd, ptx.OpOr, ptx.OpXor:
		if fast {
			x.op = map[ptx.Opcode]xop{ptx.OpAnd: xAnd, ptx.OpOr: xOr, ptx.OpXor: xXor}[in.Op]
		}
	case ptx.OpNot:
		if t == ptx.TypePred {
			x.op = xNotPred
		}
	case ptx.OpShl:
		if fast && t.Size() == 4 {
			x.op = xShl32
		} else if fast && t.Size() == 8 {
			x.op = xShl64
		}
	case ptx.OpShr:
		if fast {
			switch {
			case t.Size() == 4 && t.IsSigned():
				x.op = xShrS32
			case t.Size() == 4:
				x.op = xShrU32
			case t.Size() == 8 && !t.IsSigned():
				x.op = xShrU64
			}
		}
	case ptx.OpSetp:
		x.op = xSetp
		if fast && in.Bool == ptx.BoolNone && in.NDst == 1 && t.IsInt() && (t.Size() == 4 || t.Size() == 8) {
			signed := t.IsSigned()
			switch in.Cmp {
			case ptx.CmpLo, ptx.CmpLs, ptx.CmpHi, ptx.CmpHs:
				signed = false
			}
			x.cmptt = cmpTruth(in.Cmp)
			switch {
			case x.cmptt == 0:
				x.op = xSetp
			case t.Size() == 4 && signed:
				x.op = xSetpS32
			case t.Size() == 4:
				x.op = xSetpU32
			case signed:
				x.op = xSetpS64
			default:
				x.op = xSetpU64
			}
		}
	case ptx.OpSelp:
		if fast {
			x.op = xSelp
		}
	case ptx.OpMin, ptx.OpMax:
		if in.Mods.Has(ptx.ModXorsign) {
			return bad("min/max.xorsign")
		}
		if fast && in.Mods == 0 && (t == ptx.TypeU32 || t == ptx.TypeS32) {
			isMax := in.Op == ptx.OpMax
			if t == ptx.TypeU32 {
				x.op = pick(isMax, xMaxU32, xMinU32)
			} else {
				x.op = pick(isMax, xMaxS32, xMinS32)
			}
		}
	case ptx.OpDiv, ptx.OpSqrt, ptx.OpRcp:
		if t.IsFloat() && !(in.Op == ptx.OpDiv && isDirected(in.Rounding)) {
			switch in.Rounding {
			case ptx.RoundNone, ptx.RoundRN:
			default:
				return bad("directed rounding ." + in.Rounding.String() + " on " + in.Op.String())
			}
		}
	case ptx.OpSad, ptx.OpAbs, ptx.OpNeg, ptx.OpRem, ptx.OpMul24, ptx.OpMad24, ptx.OpRsqrt, ptx.OpSin, ptx.OpCos,
		ptx.OpEx2, ptx.OpLg2, ptx.OpTanh, ptx.OpCopysign, ptx.OpTestp, ptx.OpCnot, ptx.OpShf, ptx.OpPopc, ptx.OpClz,
		ptx.OpBrev, ptx.OpBfe, ptx.OpBfi, ptx.OpBfind, ptx.OpPrmt, ptx.OpSet, ptx.OpSlct:
		// evalScalar.
	case ptx.OpLd, ptx.OpLdu:
		if err := memShape(x, in, bad); err != nil {
			return err
		}
		x.op = xLd
		x.signed = t.IsSigned()
		switch {
		case in.Space == ptx.SpaceParam && xf.entry && x.abase < 0 && !x.alocal && int(x.aoff)+int(x.size)*int(x.vec) <= xf.fn.KernelParamSize:
			x.op = xLdParam
		case fast && (in.Space == ptx.SpaceGlobal || in.Space == ptx.SpaceConst) && x.vec == 1 && x.abase >= 0:
			x.op = xLdGlobal
		}
	case ptx.OpSt:
		if err := memShape(x, in, bad); err != nil {
			return err
		}
		x.op = xSt
		if in.Space == ptx.SpaceParam && xf.entry && x.abase < 0 && int(x.aoff) < xf.fn.KernelParamSize {
			return bad("a store to a kernel parameter")
		}
		if in.Space == ptx.SpaceConst {
			return bad("a store to the const space")
		}
		if fast && in.Space == ptx.SpaceGlobal && x.vec == 1 && x.abase >= 0 {
			x.op = xStGlobal
		}
	case ptx.OpAtom, ptx.OpRed:
		if err := memShape(x, in, bad); err != nil {
			return err
		}
		x.op = xAtom
		switch in.Space {
		case ptx.SpaceGlobal, ptx.SpaceShared, ptx.SpaceGeneric:
		default:
			return bad("atomics on the ." + in.Space.String() + " space")
		}
		if err := checkAtom(in); err != nil {
			return bad(err.Error())
		}
	case ptx.OpPrefetch, ptx.OpMembar, ptx.OpFence, ptx.OpPmevent:
		x.op = xNop
	case ptx.OpNanosleep:
		x.op = xNanosleep
	case ptx.OpBra:
		x.op = xBra
		if in.Target < 0 {
			return bad("a branch without a target")
		}
	case ptx.OpCall:
		x.op = xCall
		if in.Call == nil {
			return bad("a call without a call site")
		}
	case ptx.OpRet:
		x.op = xRet
	case ptx.OpExit:
		x.op = xExit
	case ptx.OpTrap, ptx.OpBrkpt:
		x.op = xTrap
	case ptx.OpBar:
		switch in.Bar {
		case ptx.BarWarpSync:
			x.op = xWarpSync
		case ptx.BarSync, ptx.BarArrive, ptx.BarRedPopc, ptx.BarRedAnd, ptx.BarRedOr:
			x.op = xBar
		default:
			return bad("bar mode " + in.Bar.String())
		}
	case ptx.OpVote:
		x.op = xVote
	case ptx.OpShfl:
		x.op = xShfl
	case ptx.OpActivemask:
		x.op = xActivemask
	case ptx.OpMatch:
		x.op = xMatch
	case ptx.OpRedux:
		x.op = xRedux
	default:
		return bad(in.Op.String())
	}
	if x.op == xScalar {
		if err := checkScalar(in); err != nil {
			return bad(err.Error())
		}
	}
	return nil
}

func pick(c bool, a, b xop) xop {
	if c {
		return a
	}
	return b
}

// memShape fills the element size and vector length of a memory
// instruction.
func memShape(x *xinst, in *ptx.Inst, bad func(string) error) error {
	size := in.Type.Size()
	switch size {
	case 1, 2, 4, 8:
	default:
		return bad("a memory access of type ." + in.Type.String())
	}
	vec := max(int(in.Vec), 1)
	if vec != 1 && vec != 2 && vec != 4 {
		return bad("a vector of length " + fmt.Sprint(vec))
	}
	x.size, x.vec = uint8(size), uint8(vec)
	x.space = in.Space
	if in.Space == ptx.SpaceConst {
		x.space = ptx.SpaceGlobal // const variables live in the global image
	}
	return nil
}

// cmpTruth is an integer comparison's truth table over (a<b, a==b, a>b),
// 0 for comparisons that are not integer orderings.
func cmpTruth(c ptx.CmpOp) uint8 {
	switch c {
	case ptx.CmpEq:
		return 0b010
	case ptx.CmpNe:
		return 0b101
	case ptx.CmpLt, ptx.CmpLo:
		return 0b001
	case ptx.CmpLe, ptx.CmpLs:
		return 0b011
	case ptx.CmpGt, ptx.CmpHi:
		return 0b100
	case ptx.CmpGe, ptx.CmpHs:
		return 0b110
	}
	return 0
}
