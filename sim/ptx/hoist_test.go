package ptx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const hoistSrc = `.version 7.0
.target sm_70
.address_size 64

.visible .entry gather(
	.param .u64 gather_param_0
)
{
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .f32 %f<8>;
	ld.param.u64 %rd1, [gather_param_0];
	ld.global.u32 %r1, [%rd1];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.f32 %f1, [%rd3];
	add.f32 %f2, %f1, %f1;
	ld.global.u32 %r2, [%rd1+4];
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.f32 %f3, [%rd5];
	add.f32 %f4, %f2, %f3;
	st.global.f32 [%rd1+8], %f4;
	ld.global.u32 %r3, [%rd1+12];
	ld.volatile.global.u32 %r4, [%rd1+16];
	mov.u32 %r5, %clock;
	add.s32 %r6, %r3, %r4;
	ld.global.u32 %r7, [%rd1+20];
	add.s32 %r8, %r6, %r7;
	st.global.u32 [%rd1+24], %r8;
	ret;
}
`

// TestHoistLoads checks the schedule of a two-element gather: both index
// loads first, then each element's address work and value load, then the
// additions; nothing crosses a store, a strong load or a clock read.
func TestHoistLoads(t *testing.T) {
	m, err := Parse("gather.ptx", []byte(hoistSrc))
	require.NoError(t, err)
	fn := m.Funcs[m.FuncsByName["gather"]]
	blocks := append([]Block(nil), fn.Blocks...)
	moved := HoistLoads(fn)
	var got []string
	for i := range fn.Insts {
		got = append(got, fn.InstString(m, i))
	}
	assert.Equal(t, []string{
		"ld.param.u64 %rd1, [gather_param_0]",
		"ld.global.u32 %r1, [%rd1]",
		"ld.global.u32 %r2, [%rd1+4]", // the second index load, past the first element's work
		"mul.wide.u32 %rd2, %r1, 4",
		"add.s64 %rd3, %rd1, %rd2",
		"ld.global.f32 %f1, [%rd3]",
		"mul.wide.u32 %rd4, %r2, 4",
		"add.s64 %rd5, %rd1, %rd4",
		"ld.global.f32 %f3, [%rd5]", // past the add that does not use it
		"add.f32 %f2, %f1, %f1",
		"add.f32 %f4, %f2, %f3",
		"st.global.f32 [%rd1+8], %f4",
		"ld.global.u32 %r3, [%rd1+12]", // never above the store
		"ld.volatile.global.u32 %r4, [%rd1+16]",
		"mov.u32 %r5, %clock", // a strong load does not move; nothing moves above a clock read
		"ld.global.u32 %r7, [%rd1+20]",
		"add.s32 %r6, %r3, %r4",
		"add.s32 %r8, %r6, %r7",
		"st.global.u32 [%rd1+24], %r8",
		"ret",
	}, got)
	assert.Equal(t, 10, moved, "instructions that changed place")
	assert.Equal(t, blocks, fn.Blocks, "blocks keep their bounds")
}
