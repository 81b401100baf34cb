package exec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Hand-written PTX for what clang rarely emits: module variables,
// vectors, unbounded recursion, unsupported instructions.

const varsPTX = `
.version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 gv[4] = {1, 2, 3, 4};
.const .align 4 .u32 cv[2] = {10, 20};
.visible .entry vars(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [gv+8];
	ld.const.u32 %r2, [cv+4];
	mov.u64 %rd2, gv;
	cvta.global.u64 %rd3, %rd2;
	ld.u32 %r3, [%rd3+12];
	atom.global.add.u32 %r4, [gv], 5;
	add.s32 %r5, %r1, %r2;
	add.s32 %r5, %r5, %r3;
	mov.u32 %r6, %tid.x;
	mul.wide.u32 %rd4, %r6, 4;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r5;
	ret;
}`

func TestModuleVariables(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, varsPTX, fast)
		out := m.zeros(4 * 40)
		_, err := m.launch("vars", d1(1, 40), out)
		require.NoError(t, err)
		for _, v := range m.u32s(out, 40) {
			assert.Equal(t, uint32(3+20+4), v)
		}
		gv, ok := m.mod.VarAddr("gv")
		require.True(t, ok)
		assert.Equal(t, []uint32{1 + 5*40, 2, 3, 4}, m.u32s(gv, 4))
		_, ok = m.mod.VarAddr("nothing")
		assert.False(t, ok)
	})
}

const vecPTX = `
.version 7.0
.target sm_70
.address_size 64
.visible .entry vec(.param .u64 out, .param .u64 in, .param .u64 skew)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<10>;
	.shared .align 16 .b8 sh[1024];
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u64 %rd9, [skew];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd2, %rd3;
	add.s64 %rd4, %rd4, %rd9;
	ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
	mov.u64 %rd5, sh;
	add.s64 %rd6, %rd5, %rd3;
	st.shared.v4.u32 [%rd6], {%r5, %r4, %r3, %r2};
	ld.shared.v2.u32 {%r6, %r7}, [%rd6+8];
	add.s64 %rd7, %rd1, %rd3;
	st.global.v4.u32 [%rd7], {%r6, %r7, %r2, %r3};
	ret;
}`

func TestVectors(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, vecPTX, fast)
		in := make([]uint32, 4*32+4)
		for i := range in {
			in[i] = uint32(i * 11)
		}
		pin, out := m.allocU32(in...), m.zeros(16*32)
		_, err := m.launch("vec", d1(1, 32), out, pin, 0)
		require.NoError(t, err)
		got := m.u32s(out, 4*32)
		for ti := 0; ti < 32; ti++ {
			x, y := in[4*ti], in[4*ti+1]
			assert.Equal(t, []uint32{y, x, x, y}, got[4*ti:4*ti+4], "thread %d", ti)
		}
		_, err = m.launch("vec", d1(1, 32), out, pin, 8)
		var f *MemoryFault
		require.ErrorAs(t, err, &f, "a v4.u32 access must be 16-byte aligned")
		assert.Contains(t, f.Reason, "misaligned")
		assert.Equal(t, 16, f.Size)
	})
}

const recursionPTX = `
.version 7.0
.target sm_70
.address_size 64
.func rec(.param .b32 rec_param_0)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [rec_param_0];
	add.s32 %r2, %r1, 1;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r2;
	call.uni rec, (param0);
	}
	ret;
}
.visible .entry forever()
{
	.reg .b32 %r<2>;
	mov.u32 %r1, 0;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	call.uni rec, (param0);
	}
	ret;
}`

func TestRunawayRecursion(t *testing.T) {
	m := newMachine(t, recursionPTX, true)
	_, err := m.launch("forever", d1(1, 32))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "call depth exceeds")
}

func TestUnsupportedInstructions(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"directed rounding on float add", "add.rz.f32 %f1, %f1, %f1;", "directed rounding"},
		{"half-precision arithmetic", "add.f16 %h1, %h1, %h1;", ".f16"},
		{"integer atomic inc on u64", "atom.global.inc.u64 %rd1, [%rd1], 1;", "atom.inc.u64"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := `
.version 7.0
.target sm_70
.address_size 64
.visible .entry bad()
{
	.reg .f32 %f<2>;
	.reg .b16 %h<2>;
	.reg .b64 %rd<2>;
	` + tc.body + `
	ret;
}`
			m := newMachine(t, src, true)
			_, err := m.mod.Program("bad")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "not supported by the simulator")
			assert.Contains(t, err.Error(), "PTX line 10")
			assert.Contains(t, err.Error(), "`"+strings.TrimSuffix(tc.body, ";")+"`", "the instruction is quoted")
		})
	}
	m := newMachine(t, varsPTX, true)
	_, err := m.mod.Program("nope")
	assert.ErrorContains(t, err, `no entry "nope"`)
}

// earlyRetPTX returns from inside a loop on a divergent condition: the
// branch's paths meet only at function exit (no reconvergence point).
const earlyRetPTX = `
.version 7.0
.target sm_70
.address_size 64
.visible .entry early_ret(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r3, 0;
	mov.u32 %r5, 0;
LOOP:
	add.s32 %r5, %r5, %r3;
	setp.eq.u32 %p1, %r3, %r2;
	@%p1 bra FOUND;
	add.s32 %r3, %r3, 1;
	setp.lt.u32 %p2, %r3, %r1;
	@%p2 bra LOOP;
	mov.u32 %r6, -1;
	st.global.u32 [%rd3], %r6;
	ret;
FOUND:
	mul.lo.u32 %r6, %r5, 3;
	st.global.u32 [%rd3], %r6;
	ret;
}`

func TestEarlyReturnFromLoop(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, earlyRetPTX, fast)
		prog, err := m.mod.Program("early_ret")
		require.NoError(t, err)
		var found bool
		for _, in := range prog.Entry.Insts {
			if in.Op == ptx.OpBra && in.Guard != ptx.NoReg && in.Reconverge == ptx.NoTarget {
				found = true
			}
		}
		require.True(t, found, "the test needs a branch whose paths meet only at exit")
		out := m.zeros(4 * 64)
		g, err := m.launch("early_ret", d1(1, 64), out, 40)
		require.NoError(t, err)
		got := m.u32s(out, 64)
		for ti := uint32(0); ti < 64; ti++ {
			want := uint32(0xFFFFFFFF)
			if ti < 40 {
				want = 3 * ti * (ti + 1) / 2
			}
			assert.Equal(t, want, got[ti], "thread %d", ti)
		}
		assert.Equal(t, 1, g.Finished)
	})
}
