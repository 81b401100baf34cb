package ptx

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kernelHeader has kernelHeaderLines lines; a body starts on the next line.
const kernelHeader = `.version 6.4
.target sm_70
.address_size 64
.shared .align 4 .b8 smem[64];
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
`

const kernelHeaderLines = 12

// kernel wraps body lines into a parseable entry "k".
func kernel(body string) string {
	return kernelHeader + body + "\n\tret;\n}\n"
}

func parseKernel(t *testing.T, body string) *Function {
	t.Helper()
	m, err := Parse("t.ptx", []byte(kernel(body)))
	require.NoError(t, err)
	fn := m.Func("k")
	require.NotNil(t, fn)
	return fn
}

func reg(fn *Function, name string) RegIndex {
	for i, r := range fn.Regs {
		if r.Name == name {
			return RegIndex(i)
		}
	}
	panic("no register " + name)
}

func regOp(fn *Function, name string) Operand {
	return Operand{Kind: OperandReg, Reg: reg(fn, name), Sym: -1}
}

func imm(v uint64) Operand { return Operand{Kind: OperandImm, Reg: NoReg, Sym: -1, Imm: v} }

// TestDecodeTable checks the decoded fields of single instructions whose
// syntax is easy to get wrong.
func TestDecodeTable(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, fn *Function, in Inst)
	}{
		{"mul.wide keeps the narrow type", "mul.wide.s32 %rd1, %r1, 4;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, OpMul, in.Op)
			assert.Equal(t, TypeS32, in.Type)
			assert.True(t, in.Mods.Has(ModWide))
			assert.Equal(t, TypeS64, in.Type.Wide())
			assert.Equal(t, imm(4), in.Src[1])
		}},
		{"setp.lo is a comparison", "setp.lo.u32 %p1, %r1, %r2;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, CmpLo, in.Cmp)
			assert.False(t, in.Mods.Has(ModLo))
		}},
		{"mul.lo is the low half", "mul.lo.s32 %r1, %r2, %r3;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, CmpNone, in.Cmp)
			assert.True(t, in.Mods.Has(ModLo))
		}},
		{"setp pair and combiner", "setp.ge.or.f32 %p1|%p2, %f1, 0f3F800000, !%p3;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, uint8(2), in.NDst)
			assert.Equal(t, regOp(fn, "%p2"), in.Dst[1])
			assert.Equal(t, BoolOr, in.Bool)
			assert.Equal(t, imm(0x3F800000), in.Src[1])
			want := regOp(fn, "%p3")
			want.Not = true
			assert.Equal(t, want, in.Src[2])
		}},
		{"negated guard", "@!%p1 add.s32 %r1, %r1, -1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, reg(fn, "%p1"), in.Guard)
			assert.True(t, in.GuardNot)
			assert.Equal(t, imm(math.MaxUint64), in.Src[1])
		}},
		{"address with negative offset", "ld.global.u32 %r1, [%rd1+-8];", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, SpaceGlobal, in.Space)
			assert.Equal(t, reg(fn, "%rd1"), in.Addr.Reg)
			assert.Equal(t, int64(-8), in.Addr.Offset())
		}},
		{"generic load gets SpaceGeneric", "ld.u32 %r1, [%rd1];", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, SpaceGeneric, in.Space)
		}},
		{"param symbol address", "ld.param.u32 %r1, [k_param_1];", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, SpaceParam, in.Addr.SymSpace)
			assert.Equal(t, int32(1), in.Addr.Sym)
			assert.Equal(t, 8, fn.Params[1].Offset)
		}},
		{"shared symbol as a value", "mov.u64 %rd1, smem+16;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, OperandSymbol, in.Src[0].Kind)
			assert.Equal(t, SpaceShared, in.Src[0].SymSpace)
			assert.Equal(t, int64(16), in.Src[0].Offset())
			assert.Equal(t, int64(0), fn.SharedLayout[in.Src[0].Sym])
			assert.Equal(t, 64, fn.StaticSharedSize)
		}},
		{"vector load", "ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1];", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, uint8(4), in.Vec)
			assert.Equal(t, uint8(4), in.NDst)
			assert.Equal(t, regOp(fn, "%f3"), in.Dst[3])
		}},
		{"vector store", "st.shared.v2.u32 [%rd1+4], {%r1, 7};", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, uint8(2), in.NSrc)
			assert.Equal(t, imm(7), in.Src[1])
		}},
		{"pack", "mov.b64 %rd1, {%r1, %r2};", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, OpPack, in.Op)
			assert.Equal(t, uint8(2), in.NSrc)
		}},
		{"unpack", "mov.b32 {%rs1, %rs2}, %r1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, OpUnpack, in.Op)
			assert.Equal(t, uint8(2), in.NDst)
		}},
		{"cvt rounding and types", "cvt.rzi.s32.f64 %r1, %fd1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, RoundRZI, in.Rounding)
			assert.Equal(t, TypeS32, in.Type)
			assert.Equal(t, TypeF64, in.SrcType)
		}},
		{"f64 decimal immediate", "add.f64 %fd1, %fd2, 0.5;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, imm(math.Float64bits(0.5)), in.Src[1])
		}},
		{"f32 hex immediate widened for f64", "add.f64 %fd1, %fd2, 0f3F800000;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, imm(math.Float64bits(1)), in.Src[1])
		}},
		{"negative hex float", "mul.f32 %f1, %f2, -0f3F800000;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, imm(uint64(math.Float32bits(-1))), in.Src[1])
		}},
		{"atom cas", "atom.shared.cas.b32 %r1, [%rd1], %r2, %r3;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, AtomCas, in.Atom)
			assert.Equal(t, uint8(2), in.NSrc)
		}},
		{"atom scope and order", "atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, OrderAcquire, in.Order)
			assert.Equal(t, ScopeGPU, in.Scope)
		}},
		{"shfl.sync", "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, ShflBfly, in.Shfl)
			assert.Equal(t, uint8(2), in.NDst)
			assert.Equal(t, uint8(4), in.NSrc)
			assert.Equal(t, imm(0xFFFFFFFFFFFFFFFF), in.Src[3])
		}},
		{"vote.sync.ballot", "vote.sync.ballot.b32 %r1, %p1, -1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, VoteBallot, in.Vote)
			assert.True(t, in.Mods.Has(ModSync))
		}},
		{"bar.red.popc", "bar.red.popc.u32 %r1, 0, !%p1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, BarRedPopc, in.Bar)
			assert.True(t, in.Src[1].Not)
		}},
		{"bar.warp.sync", "bar.warp.sync -1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, BarWarpSync, in.Bar)
		}},
		{"pre-Volta vote without .sync", "vote.ballot.b32 %r1, %p1;", func(t *testing.T, fn *Function, in Inst) {
			assert.False(t, in.Mods.Has(ModSync))
			assert.Equal(t, uint8(1), in.NSrc)
		}},
		{"pre-Volta shfl without .sync", "shfl.down.b32 %r1, %r2, 1, 31;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, ShflDown, in.Shfl)
			assert.Equal(t, uint8(3), in.NSrc)
		}},
		{"membar.gl", "membar.gl;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, ScopeGPU, in.Scope)
		}},
		{"special registers", "mov.u32 %r1, %lanemask_lt;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, Operand{Kind: OperandSpecial, Special: SRegLanemaskLt, Reg: NoReg, Sym: -1}, in.Src[0])
		}},
		{"cache operators are dropped", "ld.global.cg.L2::128B.u32 %r1, [%rd1];", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, "ld.global.u32", in.Mnemonic())
		}},
		{"shared::cta is shared", "st.shared::cta.u32 [%rd1], %r1;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, SpaceShared, in.Space)
		}},
		{"source position", ".loc 3 14 7\n\tabs.s32 %r1, %r2;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, Pos{PTXLine: kernelHeaderLines + 2, File: 3, Line: 14, Col: 7}, in.Pos)
		}},
		{"octal, hex, binary literals", "add.u32 %r1, %r2, 0x10;", func(t *testing.T, fn *Function, in Inst) {
			assert.Equal(t, imm(16), in.Src[1])
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := parseKernel(t, tc.body)
			// The instruction under test is the last one before the ret.
			require.GreaterOrEqual(t, len(fn.Insts), 2)
			tc.check(t, fn, fn.Insts[len(fn.Insts)-2])
		})
	}
}

// TestErrors checks that unsupported or malformed input is reported with
// the kernel, the PTX line and the line's text.
func TestErrors(t *testing.T) {
	line := kernelHeaderLines + 1
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error
	}{
		{"unknown opcode", kernel("frobnicate.u32 %r1, %r2;"), []string{"in k", fmt.Sprint(":", line, ":"), "unknown or unsupported instruction frobnicate", "`frobnicate.u32 %r1, %r2;`"}},
		{"undeclared register", kernel("add.s32 %r1, %r99, 1;"), []string{"undeclared register %r99", fmt.Sprint(":", line, ":")}},
		{"undefined label", kernel("bra $nowhere;"), []string{"undefined label $nowhere"}},
		{"bad type suffix", kernel("add.s33 %r1, %r2, 1;"), []string{"bad suffix .s33 for add"}},
		{"missing type", kernel("add %r1, %r2, 1;"), []string{"add needs 1 type suffix"}},
		{"two types", kernel("add.s32.u32 %r1, %r2, 1;"), []string{"too many type suffixes"}},
		{"wrong operand count", kernel("add.s32 %r1, %r2;"), []string{"add takes 3 operands, found 2"}},
		{"predicate as value", kernel("add.s32 %r1, %p1, 1;"), []string{"register type does not match"}},
		{"guard not a predicate", kernel("@%r1 add.s32 %r1, %r1, 1;"), []string{"guard %r1 is not a predicate"}},
		{"vector width mismatch", kernel("ld.global.v4.u32 {%r1, %r2}, [%rd1];"), []string{"needs 4 elements, found 2"}},
		{"integer mul needs a half", kernel("mul.s32 %r1, %r2, %r3;"), []string{"needs .lo, .hi or .wide"}},
		{"bad immediate", kernel("add.f32 %f1, %f2, 0xZZ;"), []string{"bad immediate"}},
		{"call to undeclared function", kernel("call.uni foo, ();"), []string{"call to undeclared function foo"}},
		{"indirect call", kernel("call.uni %rd1, ();"), []string{"indirect calls are not supported"}},
		{"duplicate label", kernel("$a:\n$a:\n\tnop_never;"), []string{"label $a defined twice"}},
		{"unsupported directive in body", kernel(".maxntid 32;"), []string{"unsupported directive .maxntid in function body"}},
		{"falls off the end", ".version 6.4\n.target sm_70\n.address_size 64\n.entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n}\n", []string{"control reaches the end of the function"}},
		{"truncated body", kernelHeader + "\tadd.s32 %r1, %r1, 1;\n", []string{"function body not closed"}},
		{"truncated instruction", ".version 6.4\n.target sm_70\n.address_size 64\n.entry k()\n{\n\tadd.s32 %r1,", []string{"function body not closed"}},
		{"truncated header", ".version 6.4\n.target sm_70\n.address_size 64\n.entry k(.param .u64", []string{"expected parameter name"}},
		{"unterminated comment", "/* never closed", []string{"unterminated /* comment"}},
		{"unterminated string", ".version 6.4\n.file 1 \"abc\n", []string{"unterminated string"}},
		{"unsupported section", ".section .nv.info { }", []string{"unsupported section"}},
		{"unsupported module directive", ".version 6.4\n.alias a, b;", []string{"unsupported module-level directive `.alias`"}},
		{"bad address size", ".address_size 48", []string{"address size 48"}},
		{"unexpected character", ".version 6.4\n#include <x>", []string{"unexpected character '#'"}},
		{"register redeclared", kernel(".reg .b32 %r1;"), []string{"%r1 declared twice"}},
		{"function address", ".version 6.4\n.target sm_70\n.address_size 64\n.func f()\n{\n\tret;\n}\n.entry k()\n{\n\t.reg .b64 %rd1;\n\tmov.u64 %rd1, f;\n\tret;\n}\n", []string{"function addresses are not supported"}},
		{"call arity", ".version 6.4\n.target sm_70\n.address_size 64\n.func f(.param .b32 a)\n{\n\tret;\n}\n.entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n", []string{"call to f with 0 arguments"}},
		{"huge register range", kernel(".reg .b32 %q<99999999>;"), []string{"register count 99999999 out of range"}},
		{"cluster shared memory", kernel("ld.shared::cluster.u32 %r1, [%rd1];"), []string{"bad suffix .shared::cluster for ld"}},
		{"prmt mode", kernel("prmt.b32.f4e %r1, %r2, %r3, %r4;"), []string{"bad suffix .f4e for prmt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse("t.ptx", []byte(tc.src))
			require.Error(t, err)
			assert.Nil(t, m)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "ptx: t.ptx"), err.Error())
		})
	}
}

// TestReconvergence checks post-dominators on shapes the SIMT stack
// depends on: if/else, a loop with a break, and a branch around an exit.
func TestReconvergence(t *testing.T) {
	fn := parseKernel(t, `	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $else;
	add.s32 %r2, %r2, 1;
	bra.uni $join;
$else:
	add.s32 %r2, %r2, 2;
$join:
	mov.u32 %r3, 0;
$loop:
	add.s32 %r3, %r3, 1;
	setp.eq.s32 %p2, %r3, %r1;
	@%p2 bra $after;
	setp.lt.s32 %p3, %r3, 10;
	@%p3 bra $loop;
$after:
	setp.eq.s32 %p1, %r3, 5;
	@%p1 bra $skip;
	exit;
$skip:
	st.global.u32 [%rd1], %r3;`)
	idx := func(label string, op Opcode, nth int) int {
		for i, in := range fn.Insts {
			if in.Op == op {
				if nth == 0 {
					return i
				}
				nth--
			}
		}
		t.Fatalf("no %s", label)
		return -1
	}
	ifBra := idx("if", OpBra, 0)
	join := idx("join", OpMov, 0)
	assert.Equal(t, int32(join), fn.Insts[ifBra].Reconverge, "if/else reconverges at the join")
	breakBra := idx("break", OpBra, 2)
	backBra := idx("back edge", OpBra, 3)
	after := backBra + 1
	assert.Equal(t, int32(after), fn.Insts[breakBra].Reconverge, "a break reconverges after the loop")
	assert.Equal(t, int32(after), fn.Insts[backBra].Reconverge, "the back edge reconverges after the loop")
	skipBra := idx("skip", OpBra, 4)
	assert.Equal(t, NoTarget, fn.Insts[skipBra].Reconverge, "paths split by an exit meet only at function exit")
}

// TestRegisterEstimate checks the liveness weights: 64-bit registers count
// two, predicates count apart.
func TestRegisterEstimate(t *testing.T) {
	fn := parseKernel(t, `	mov.u64 %rd1, 1;
	mov.u64 %rd2, 2;
	mov.u32 %r1, 3;
	setp.eq.s32 %p1, %r1, 3;
	selp.b64 %rd3, %rd1, %rd2, %p1;
	st.global.u64 [%rd3], %rd1;`)
	// After the mov.u32: %rd1, %rd2 (2 each) and %r1. At the selp %rd2
	// dies, so %rd3 can take its place.
	assert.Equal(t, 5, fn.Liveness.MaxLive32)
	assert.Equal(t, 1, fn.Liveness.MaxLivePred)
	assert.Equal(t, 8, fn.RegEstimate.Regs32)
}

// TestLiveIn checks the registers an executor must initialise at entry:
// those read before written on some path (a guarded write does not
// count), and none that every path writes first.
func TestLiveIn(t *testing.T) {
	fn := parseKernel(t, `	mov.u32 %r1, 1;
	setp.eq.s32 %p1, %r1, 1;
	@%p1 mov.u32 %r2, 5;
	add.s32 %r3, %r2, %r1;
	@%p1 bra skip;
	mov.u32 %r4, 7;
skip:
	add.s32 %r5, %r4, %r3;
	st.global.u32 [%rd1], %r5;`)
	var names []string
	for _, r := range fn.Liveness.LiveIn {
		names = append(names, fn.Regs[r].Name)
	}
	assert.ElementsMatch(t, []string{"%r2", "%r4", "%rd1"}, names)
}

// TestCallParamsShareFrame checks that call-sequence .params of sibling
// scopes share bytes while a nested scope's stay clear of its parent's,
// and that the kernel's parameters keep CUDA's layout.
func TestCallParamsShareFrame(t *testing.T) {
	src := `.version 6.4
.target sm_70
.address_size 64
.func (.param .b32 r) f(.param .b64 a, .param .b32 b)
{
	.reg .b32 %x;
	ld.param.b32 %x, [b];
	st.param.b32 [r], %x;
	ret;
}
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	{
	.param .b64 p0;
	.param .b32 p1;
	.param .b32 rv;
	st.param.b64 [p0], %rd1;
	st.param.b32 [p1], %r1;
	call.uni (rv), f, (p0, p1);
	ld.param.b32 %r2, [rv];
	{
	.param .b64 q0;
	st.param.b64 [q0], %rd1;
	}
	}
	{
	.param .b64 s0;
	.param .b32 s1;
	.param .b32 sv;
	st.param.b64 [s0], %rd1;
	st.param.b32 [s1], %r1;
	call.uni (sv), f, (s0, s1);
	ld.param.b32 %r3, [sv];
	}
	ret;
}
`
	m, err := Parse("t.ptx", []byte(src))
	require.NoError(t, err)
	fn := m.Func("k")
	require.NotNil(t, fn)
	off := map[string]int{}
	for _, p := range fn.Params {
		off[p.Name] = p.Offset
	}
	assert.Equal(t, 0, off["k_param_0"])
	assert.Equal(t, 8, off["k_param_1"])
	assert.Equal(t, 12, fn.KernelParamSize)
	assert.Equal(t, 16, off["p0"], "call temporaries start aligned after the kernel's parameters")
	assert.Equal(t, off["p0"], off["s0"], "sibling scopes share bytes")
	assert.Equal(t, off["p1"], off["s1"])
	assert.Equal(t, off["rv"], off["sv"])
	assert.Equal(t, 32, off["q0"], "a nested scope's temporaries follow its parent's")
	assert.Equal(t, 40, fn.ParamFrameSize)
}
