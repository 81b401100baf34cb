package ptx

import (
	"fmt"
	"math"
	"strings"
)

// Dump renders the lowered module readably: variables, then per function
// its parameters, frame sizes, shared layout, instructions with resolved
// operands (registers by name, branch targets as instruction indexes,
// reconvergence points), blocks with their post-dominators, and the
// register estimate. The golden tests compare this text.
func (m *Module) Dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s version %s target %s address_size %d\n", m.Name, m.Version, strings.Join(m.Target, ","), m.AddressSize)
	for i, f := range m.Files {
		if f != "" {
			fmt.Fprintf(&b, "file %d %q\n", i, f)
		}
	}
	for i, v := range m.Vars {
		fmt.Fprintf(&b, "var %d %s .%s .%s size %d align %d", i, v.Name, v.Space, v.Type, v.Size, v.Align)
		if v.Extern {
			b.WriteString(" extern")
		}
		if v.Dynamic {
			b.WriteString(" dynamic")
		}
		if v.Init != nil {
			fmt.Fprintf(&b, " init %x", v.Init)
		}
		b.WriteString("\n")
	}
	for _, fn := range m.Funcs {
		b.WriteString("\n")
		fn.dump(&b, m)
	}
	return b.String()
}

func (fn *Function) dump(b *strings.Builder, m *Module) {
	kind := "entry"
	if fn.Kind == KindFunc {
		kind = "func"
	}
	fmt.Fprintf(b, "%s %s", kind, fn.Name)
	if fn.Extern {
		b.WriteString(" extern\n")
		return
	}
	b.WriteString("\n")
	roles := [...]string{ParamInput: "in", ParamReturn: "ret", ParamCall: "call"}
	for i, p := range fn.Params {
		fmt.Fprintf(b, "  param %d %s %s .%s size %d align %d", i, roles[p.Role], p.Name, p.Type, p.Size, p.Align)
		if p.Space == SpaceReg {
			fmt.Fprintf(b, " reg %s", fn.Regs[p.Reg].Name)
		} else {
			fmt.Fprintf(b, " offset %d", p.Offset)
		}
		if p.Ptr {
			fmt.Fprintf(b, " ptr .%s align %d", p.PtrSpace, p.PtrAlign)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "  param_frame %d kernel_params %d regs %d local_frame %d\n", fn.ParamFrameSize, fn.KernelParamSize, fn.NumRegs, fn.LocalFrameSize)
	for _, v := range fn.Locals {
		fmt.Fprintf(b, "  local %s size %d align %d offset %d\n", v.Name, v.Size, v.Align, v.Offset)
	}
	if fn.Kind == KindEntry {
		fmt.Fprintf(b, "  shared static %d dynamic_at %d", fn.StaticSharedSize, fn.DynamicSharedOffset)
		for i, off := range fn.SharedLayout {
			if off >= 0 {
				fmt.Fprintf(b, " %s@%d", m.Vars[i].Name, off)
			}
		}
		b.WriteString("\n")
	}
	if fn.MaxNTID != [3]int{} || fn.ReqNTID != [3]int{} || fn.MinNCTAPerSM != 0 || fn.MaxNReg != 0 {
		fmt.Fprintf(b, "  maxntid %v reqntid %v minnctapersm %d maxnreg %d\n", fn.MaxNTID, fn.ReqNTID, fn.MinNCTAPerSM, fn.MaxNReg)
	}
	for bi, blk := range fn.Blocks {
		fmt.Fprintf(b, "  B%d [%d,%d) succ%s pred%s ipdom %s\n", bi, blk.Start, blk.End, blockList(blk.Succs), blockList(blk.Preds), blockName(blk.IPDom))
		for i := blk.Start; i < blk.End; i++ {
			in := &fn.Insts[i]
			fmt.Fprintf(b, "    %4d  %s", i, fn.InstString(m, i))
			if in.Pos.File != 0 || in.Pos.Line != 0 {
				fmt.Fprintf(b, "\t// ptx %d, %d:%d:%d\n", in.Pos.PTXLine, in.Pos.File, in.Pos.Line, in.Pos.Col)
			} else {
				fmt.Fprintf(b, "\t// ptx %d\n", in.Pos.PTXLine)
			}
		}
	}
	fmt.Fprintf(b, "  liveness max32 %d at %d preds %d\n", fn.Liveness.MaxLive32, fn.Liveness.MaxLiveAt, fn.Liveness.MaxLivePred)
	fmt.Fprintf(b, "  estimate regs %d preds %d\n", fn.RegEstimate.Regs32, fn.RegEstimate.Preds)
}

func blockName(b int) string {
	if b < 0 {
		return "exit"
	}
	return fmt.Sprintf("B%d", b)
}

func blockList(bs []int) string {
	var s strings.Builder
	for _, b := range bs {
		s.WriteString(" " + blockName(b))
	}
	if len(bs) == 0 {
		s.WriteString(" -")
	}
	return s.String()
}

// InstString renders instruction i of fn in PTX-like syntax from the
// lowered fields, for diagnostics and dumps. m resolves symbol and callee
// names.
func (fn *Function) InstString(m *Module, i int) string {
	in := &fn.Insts[i]
	var b strings.Builder
	if in.Guard != NoReg {
		b.WriteString("@")
		if in.GuardNot {
			b.WriteString("!")
		}
		b.WriteString(fn.Regs[in.Guard].Name + " ")
	}
	b.WriteString(in.Mnemonic())
	var ops []string
	opnd := func(o Operand) string { return fn.operandString(m, in, o) }
	vec := func(os []Operand) string {
		parts := make([]string, len(os))
		for i, o := range os {
			parts[i] = opnd(o)
		}
		if len(os) == 1 {
			return parts[0]
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	dsts, srcs := in.Dst[:in.NDst], in.Src[:in.NSrc]
	switch in.Op {
	case OpLd, OpLdu:
		ops = append(ops, vec(dsts), opnd(in.Addr))
	case OpSt:
		ops = append(ops, opnd(in.Addr), vec(srcs))
	case OpAtom:
		ops = append(ops, opnd(dsts[0]), opnd(in.Addr))
		for _, s := range srcs {
			ops = append(ops, opnd(s))
		}
	case OpRed, OpPrefetch:
		ops = append(ops, opnd(in.Addr))
		for _, s := range srcs {
			ops = append(ops, opnd(s))
		}
	case OpPack:
		ops = append(ops, opnd(dsts[0]), "{"+strings.TrimSuffix(strings.TrimPrefix(vec(srcs), "{"), "}")+"}")
	case OpUnpack:
		ops = append(ops, "{"+strings.TrimSuffix(strings.TrimPrefix(vec(dsts), "{"), "}")+"}", opnd(srcs[0]))
	case OpBra:
		ops = append(ops, fmt.Sprintf("-> %d", in.Target))
	case OpCall:
		callee := fmt.Sprintf("func#%d", in.Call.Callee)
		if m != nil && int(in.Call.Callee) < len(m.Funcs) {
			callee = m.Funcs[in.Call.Callee].Name
		}
		var rs, as []string
		for _, r := range in.Call.Rets {
			rs = append(rs, opnd(r))
		}
		for _, a := range in.Call.Args {
			as = append(as, opnd(a))
		}
		ops = append(ops, "("+strings.Join(rs, ", ")+")", callee, "("+strings.Join(as, ", ")+")")
	default:
		if len(dsts) == 2 {
			ops = append(ops, opnd(dsts[0])+"|"+opnd(dsts[1]))
		} else if len(dsts) == 1 {
			ops = append(ops, opnd(dsts[0]))
		}
		for _, s := range srcs {
			ops = append(ops, opnd(s))
		}
	}
	if len(ops) > 0 {
		b.WriteString(" " + strings.Join(ops, ", "))
	}
	if in.Op == OpBra {
		if in.Reconverge == NoTarget {
			b.WriteString(" reconverge exit")
		} else {
			fmt.Fprintf(&b, " reconverge %d", in.Reconverge)
		}
	}
	return b.String()
}

// Mnemonic rebuilds the dotted mnemonic from the decoded fields, in a
// canonical suffix order.
func (in *Inst) Mnemonic() string {
	parts := []string{in.Op.String()}
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch in.Op {
	case OpBar:
		add(in.Bar.String())
	case OpVote, OpMatch:
		add(in.Vote.String())
	case OpRedux:
		add("sync") // redux.sync.op.type: .sync comes first
		add(in.Atom.String())
	case OpShfl:
		add(in.Shfl.String())
	}
	if in.Op == OpShf {
		if in.Mods.Has(ModLeft) {
			add("l")
		} else {
			add("r")
		}
		if in.Mods.Has(ModClamp) {
			add("clamp")
		} else {
			add("wrap")
		}
	}
	add(in.Order.String())
	add(in.Scope.String())
	if in.Op == OpCvta && in.Mods.Has(ModTo) {
		add("to") // cvta.to.space
	}
	if in.Space != SpaceNone && in.Space != SpaceGeneric {
		add(in.Space.String())
	}
	if in.Op != OpRedux {
		add(in.Atom.String())
	}
	add(in.Cmp.String())
	add(in.Bool.String())
	add(in.Testp.String())
	add(in.Rounding.String())
	for _, mn := range modNames {
		if mn.mod == ModLeft || mn.mod == ModClamp || (mn.mod == ModTo && in.Op == OpCvta) {
			continue
		}
		if in.Mods.Has(mn.mod) && !((in.Op == OpBar || in.Op == OpRedux) && mn.mod == ModSync) {
			add(mn.name)
		}
	}
	if in.Vec > 1 {
		add(fmt.Sprintf("v%d", in.Vec))
	}
	add(in.Type.String())
	add(in.SrcType.String())
	return strings.Join(parts, ".")
}

func (fn *Function) operandString(m *Module, in *Inst, o Operand) string {
	switch o.Kind {
	case OperandNone:
		return "_"
	case OperandReg:
		s := fn.Regs[o.Reg].Name
		if o.Not {
			s = "!" + s
		}
		return s
	case OperandImm:
		return immString(in, o.Imm)
	case OperandSpecial:
		return o.Special.String()
	case OperandSymbol:
		return fn.symbolName(m, o) + offsetString(o.Offset())
	case OperandAddr:
		var base string
		switch {
		case o.Reg != NoReg && o.Sym >= 0:
			base = fn.Regs[o.Reg].Name + "+" + fn.symbolName(m, o)
		case o.Reg != NoReg:
			base = fn.Regs[o.Reg].Name
		case o.Sym >= 0:
			base = fn.symbolName(m, o)
		default:
			return fmt.Sprintf("[%d]", o.Offset())
		}
		return "[" + base + offsetString(o.Offset()) + "]"
	}
	return "?"
}

func offsetString(off int64) string {
	if off == 0 {
		return ""
	}
	if off < 0 {
		return fmt.Sprintf("%d", off)
	}
	return fmt.Sprintf("+%d", off)
}

func (fn *Function) symbolName(m *Module, o Operand) string {
	switch o.SymSpace {
	case SpaceParam:
		if int(o.Sym) < len(fn.Params) {
			return fn.Params[o.Sym].Name
		}
	case SpaceLocal:
		if int(o.Sym) < len(fn.Locals) {
			return fn.Locals[o.Sym].Name
		}
	default:
		if m != nil && int(o.Sym) < len(m.Vars) {
			return m.Vars[o.Sym].Name
		}
	}
	return fmt.Sprintf("sym#%d", o.Sym)
}

// immString shows an immediate as a signed integer, or as a float with its
// bits for float instructions.
func immString(in *Inst, bits uint64) string {
	t := in.Type
	if in.Op == OpCvt {
		t = in.SrcType
	}
	switch t {
	case TypeF32:
		return fmt.Sprintf("%g(0f%08X)", math.Float32frombits(uint32(bits)), uint32(bits))
	case TypeF64:
		return fmt.Sprintf("%g(0d%016X)", math.Float64frombits(bits), bits)
	}
	return fmt.Sprintf("%d", int64(bits))
}
