package ptx

import (
	"fmt"
	"os"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse. Bad input must return an error,
// never panic, and a module that parses must satisfy the invariants the
// executor trusts without checking (checkInvariants).
func FuzzParse(f *testing.F) {
	for _, path := range corpus(f) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(kernel("@%p1 bra $x;\n$x:\n\tadd.s32 %r1, %r1, 1;")))
	f.Add([]byte(kernel("mov.b64 %rd1, {%r1, %r2};\n\tst.global.v2.u32 [%rd1+4], {%r1, %r2};")))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("fuzz.ptx", src)
		if err != nil {
			if m != nil {
				t.Fatal("module returned with an error")
			}
			return
		}
		if err := checkInvariants(m); err != nil {
			t.Fatal(err)
		}
		_ = m.Dump()
	})
}

// checkInvariants verifies what the executor relies on: every register,
// symbol, branch target, reconvergence point and callee index is in range,
// and operand counts fit their arrays.
func checkInvariants(m *Module) error {
	for _, fn := range m.Funcs {
		if fn.Extern {
			continue
		}
		if fn.NumRegs != len(fn.Regs) {
			return fmt.Errorf("%s: NumRegs %d != %d", fn.Name, fn.NumRegs, len(fn.Regs))
		}
		checkOp := func(i int, o Operand) error {
			if o.Reg != NoReg && (o.Reg < 0 || int(o.Reg) >= fn.NumRegs) {
				return fmt.Errorf("%s inst %d: register %d out of range", fn.Name, i, o.Reg)
			}
			if o.Kind == OperandReg && o.Reg == NoReg {
				return fmt.Errorf("%s inst %d: register operand without a register", fn.Name, i)
			}
			if o.Kind == OperandSymbol || (o.Kind == OperandAddr && o.Sym >= 0) {
				n := len(m.Vars)
				switch o.SymSpace {
				case SpaceParam:
					n = len(fn.Params)
				case SpaceLocal:
					n = len(fn.Locals)
				}
				if o.Sym < 0 || int(o.Sym) >= n {
					return fmt.Errorf("%s inst %d: symbol %d out of range", fn.Name, i, o.Sym)
				}
			}
			return nil
		}
		for i := range fn.Insts {
			in := &fn.Insts[i]
			if in.NDst > 4 || in.NSrc > 4 {
				return fmt.Errorf("%s inst %d: operand counts", fn.Name, i)
			}
			if in.Guard != NoReg && (int(in.Guard) >= fn.NumRegs || fn.Regs[in.Guard].Type != TypePred) {
				return fmt.Errorf("%s inst %d: bad guard", fn.Name, i)
			}
			// An instruction without an address leaves Addr zero (ir.go:
			// unused fields are zero), and Reg 0 is no register in a
			// function that has none.
			ops := append(append([]Operand(nil), in.Dst[:in.NDst]...), in.Src[:in.NSrc]...)
			if in.Addr.Kind == OperandAddr {
				ops = append(ops, in.Addr)
			}
			if in.Call != nil {
				if in.Call.Callee < 0 || int(in.Call.Callee) >= len(m.Funcs) {
					return fmt.Errorf("%s inst %d: callee out of range", fn.Name, i)
				}
				ops = append(append(ops, in.Call.Args...), in.Call.Rets...)
			}
			for _, o := range ops {
				if err := checkOp(i, o); err != nil {
					return err
				}
			}
			if in.Op == OpBra {
				if in.Target < 0 || int(in.Target) >= len(fn.Insts) {
					return fmt.Errorf("%s inst %d: branch target %d", fn.Name, i, in.Target)
				}
				if in.Reconverge != NoTarget && (in.Reconverge < 0 || int(in.Reconverge) >= len(fn.Insts)) {
					return fmt.Errorf("%s inst %d: reconvergence %d", fn.Name, i, in.Reconverge)
				}
			}
			if (in.Op == OpLd || in.Op == OpSt || in.Op == OpAtom || in.Op == OpRed) && in.Addr.Kind != OperandAddr {
				return fmt.Errorf("%s inst %d: memory instruction without an address", fn.Name, i)
			}
		}
		for b, blk := range fn.Blocks {
			if blk.IPDom >= len(fn.Blocks) || blk.IPDom == b {
				return fmt.Errorf("%s block %d: ipdom %d", fn.Name, b, blk.IPDom)
			}
		}
	}
	return nil
}

// TestInvariants applies checkInvariants to the whole corpus.
func TestInvariants(t *testing.T) {
	for _, path := range corpus(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(path, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkInvariants(m); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
