package exec

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var specialRegs = []string{
	"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
	"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z",
	"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
	"%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
	"%dynamic_smem_size", "%total_smem_size", "WARP_SZ",
}

func TestSpecialRegisters(t *testing.T) {
	var body strings.Builder
	for k, r := range specialRegs {
		fmt.Fprintf(&body, "\tmov.u32 %%r1, %s;\n\tst.global.u32 [%%rd3+%d], %%r1;\n", r, 4*k)
	}
	n := len(specialRegs)
	src := `
.version 7.0
.target sm_70
.address_size 64
.visible .entry specials(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 sh[40];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	mov.u32 %r3, %tid.z;
	mad.lo.s32 %r2, %r3, 4, %r2;
	mad.lo.s32 %r1, %r2, 6, %r1;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ctaid.y;
	mad.lo.s32 %r2, %r3, 2, %r2;
	mad.lo.s32 %r1, %r2, 48, %r1;
	mul.wide.u32 %rd2, %r1, ` + fmt.Sprint(4*n) + `;
	add.s64 %rd3, %rd1, %rd2;
	st.shared.u32 [sh], %r1;
` + body.String() + `
	mov.u64 %rd4, %clock64;
	mov.u32 %r1, %clock;
	mov.u64 %rd5, %clock64;
	setp.lt.u64 %p1, %rd4, %rd5;
	ret;
}`
	src = strings.Replace(src, ".reg .b64 %rd<8>;", ".reg .b64 %rd<8>;\n\t.reg .pred %p<2>;", 1)
	m := newMachine(t, src, true)
	// Block 6x4x2 (48 threads: a full warp and one of 16), grid 2x3x1.
	const threads = 48 * 6
	out := m.zeros(4 * n * threads)
	rc := runCfg{grid: [3]int{2, 3, 1}, block: [3]int{6, 4, 2}, dyn: 24, sms: 3, resident: 2}
	_, err := m.launch("specials", rc, out)
	require.NoError(t, err)
	got := m.u32s(out, n*threads)
	prog, _ := m.mod.Program("specials")
	total := uint32(prog.Entry.DynamicSharedOffset + 24)
	for cy := 0; cy < 3; cy++ {
		for cx := 0; cx < 2; cx++ {
			for tz := 0; tz < 2; tz++ {
				for ty := 0; ty < 4; ty++ {
					for tx := 0; tx < 6; tx++ {
						lin := tx + 6*ty + 24*tz
						l := uint32(lin % 32)
						g := (cx+2*cy)*48 + lin
						want := []uint32{
							uint32(tx), uint32(ty), uint32(tz), 6, 4, 2,
							uint32(cx), uint32(cy), 0, 2, 3, 1,
							l, uint32(lin / 32), 64, 0, 3,
							1 << l, uint32(2<<l - 1), 1<<l - 1, ^uint32(1<<l - 1), ^uint32(2<<l - 1),
							24, total, 32,
						}
						rec := got[g*n : g*n+n]
						smid := rec[15]
						want[15] = smid
						assert.Less(t, smid, uint32(3))
						assert.Equal(t, want, rec, "CTA (%d,%d) thread (%d,%d,%d)", cx, cy, tx, ty, tz)
					}
				}
			}
		}
	}
}

// TestAtomicVariants: the 32 lanes of one warp apply an atomic to one
// address in lane order; each lane's old value and the final value are
// checked against that order.
func TestAtomicVariants(t *testing.T) {
	type ref func(old, b, c uint64) uint64
	f32op := func(f func(x, y float32) float32) ref {
		return func(o, b, _ uint64) uint64 { return uint64(math.Float32bits(f(ff(o), ff(b)))) }
	}
	tests := []struct {
		inst  string // %rd5 address, %rd6/%r6 operand b, %rd7/%r7 operand c, result %r8/%rd8
		wide  bool
		space string
		init  uint64
		op    func(lane int) (b, c uint64)
		ref   ref
	}{
		{"atom.global.add.u32 %r8, [%rd5], %r6;", false, "global", 5, func(l int) (uint64, uint64) { return uint64(l * 3), 0 }, func(o, b, c uint64) uint64 { return uint64(uint32(o + b)) }},
		{"atom.shared.add.u64 %rd8, [%rd5], %rd6;", true, "shared", 1 << 40, func(l int) (uint64, uint64) { return 1<<33 + uint64(l), 0 }, func(o, b, c uint64) uint64 { return o + b }},
		{"atom.global.add.f32 %r8, [%rd5], %r6;", false, "global", uint64(math.Float32bits(0.25)), func(l int) (uint64, uint64) { return uint64(math.Float32bits(float32(l) / 8)), 0 }, f32op(func(x, y float32) float32 { return x + y })},
		{"atom.global.add.f64 %rd8, [%rd5], %rd6;", true, "global", math.Float64bits(1.5), func(l int) (uint64, uint64) { return math.Float64bits(float64(l) * 0.1), 0 }, func(o, b, c uint64) uint64 { return math.Float64bits(fd(o) + fd(b)) }},
		{"atom.shared.min.s32 %r8, [%rd5], %r6;", false, "shared", 100, func(l int) (uint64, uint64) { return uint64(uint32(int32(50 - 7*l))), 0 }, func(o, b, c uint64) uint64 { return uint64(uint32(min(s32(o), s32(b)))) }},
		{"atom.global.max.u32 %r8, [%rd5], %r6;", false, "global", 0x80000000, func(l int) (uint64, uint64) { return uint64(l) * 0x0A000000, 0 }, func(o, b, c uint64) uint64 { return uint64(max(u32(o), u32(b))) }},
		{"atom.global.min.u64 %rd8, [%rd5], %rd6;", true, "global", math.MaxUint64, func(l int) (uint64, uint64) { return uint64(1000-l) << 33, 0 }, func(o, b, c uint64) uint64 { return min(o, b) }},
		{"atom.global.max.s64 %rd8, [%rd5], %rd6;", true, "global", uint64(1<<63) + 5, func(l int) (uint64, uint64) { return uint64(int64(l-16) << 40), 0 }, func(o, b, c uint64) uint64 { return uint64(max(int64(o), int64(b))) }},
		{"atom.global.inc.u32 %r8, [%rd5], %r6;", false, "global", 3, func(l int) (uint64, uint64) { return 10, 0 }, func(o, b, c uint64) uint64 {
			if u32(o) >= u32(b) {
				return 0
			}
			return o + 1
		}},
		{"atom.shared.dec.u32 %r8, [%rd5], %r6;", false, "shared", 2, func(l int) (uint64, uint64) { return 6, 0 }, func(o, b, c uint64) uint64 {
			if u32(o) == 0 || u32(o) > u32(b) {
				return b
			}
			return o - 1
		}},
		{"atom.global.and.b32 %r8, [%rd5], %r6;", false, "global", 0xFFFFFFFF, func(l int) (uint64, uint64) { return uint64(^uint32(1 << l)), 0 }, func(o, b, c uint64) uint64 { return o & b }},
		{"atom.global.or.b64 %rd8, [%rd5], %rd6;", true, "global", 0, func(l int) (uint64, uint64) { return 1 << (2 * l), 0 }, func(o, b, c uint64) uint64 { return o | b }},
		{"atom.global.xor.b32 %r8, [%rd5], %r6;", false, "global", 0x5555, func(l int) (uint64, uint64) { return uint64(l * 0x01010101), 0 }, func(o, b, c uint64) uint64 { return o ^ b }},
		{"atom.global.exch.b64 %rd8, [%rd5], %rd6;", true, "global", 77, func(l int) (uint64, uint64) { return uint64(l) << 50, 0 }, func(o, b, c uint64) uint64 { return b }},
		{"atom.global.cas.b32 %r8, [%rd5], %r6, %r7;", false, "global", 0, func(l int) (uint64, uint64) { return uint64(l / 2), uint64(l/2 + 1) }, func(o, b, c uint64) uint64 {
			if u32(o) == u32(b) {
				return c
			}
			return o
		}},
		{"atom.shared.cas.b64 %rd8, [%rd5], %rd6, %rd7;", true, "shared", 1 << 40, func(l int) (uint64, uint64) { return 1<<40 + uint64(l), 1<<40 + uint64(l) + 1 }, func(o, b, c uint64) uint64 {
			if o == b {
				return c
			}
			return o
		}},
		{"atom.global.min.f32 %r8, [%rd5], %r6;", false, "global", uint64(math.Float32bits(3)), func(l int) (uint64, uint64) { return uint64(math.Float32bits(float32(10-l) / 3)), 0 }, f32op(func(x, y float32) float32 { return float32(math.Min(float64(x), float64(y))) })},
		{"red.global.add.u32 [%rd5], %r6;", false, "global", 9, func(l int) (uint64, uint64) { return uint64(l), 0 }, func(o, b, c uint64) uint64 { return uint64(uint32(o + b)) }},
		{"atom.add.u32 %r8, [%rd5], %r6;", false, "generic", 1, func(l int) (uint64, uint64) { return 2, 0 }, func(o, b, c uint64) uint64 { return o + b }},
		{"atom.exch.b32 %r8, [%rd5], %r6;", false, "generic-shared", 1, func(l int) (uint64, uint64) { return uint64(l + 40), 0 }, func(o, b, c uint64) uint64 { return b }},
	}
	for _, tc := range tests {
		t.Run(tc.inst, func(t *testing.T) {
			addr := map[string]string{
				"global":         "mov.u64 %rd5, %rd2;",
				"generic":        "mov.u64 %rd5, %rd2;",
				"shared":         "mov.u64 %rd5, sh;",
				"generic-shared": "mov.u64 %rd9, sh; cvta.shared.u64 %rd5, %rd9;",
			}[tc.space]
			src := `
.version 7.0
.target sm_70
.address_size 64
.visible .entry atomics(.param .u64 out, .param .u64 cell, .param .u64 ops)
{
	.reg .b32 %r<10>;
	.reg .b64 %rd<12>;
	.shared .align 8 .b8 sh[8];
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [cell];
	ld.param.u64 %rd3, [ops];
	mov.u32 %r1, %laneid;
	setp.ne.u32 %p1, %r1, 0;
	ld.global.u64 %rd10, [%rd2];
	@!%p1 st.shared.u64 [sh], %rd10;
	mul.wide.u32 %rd4, %r1, 16;
	add.s64 %rd4, %rd3, %rd4;
	ld.global.u64 %rd6, [%rd4];
	ld.global.u64 %rd7, [%rd4+8];
	cvt.u32.u64 %r6, %rd6;
	cvt.u32.u64 %r7, %rd7;
	mov.u64 %rd8, 0;
	mov.u32 %r8, 0;
	` + addr + `
	` + tc.inst + `
	cvt.u64.u32 %rd11, %r8;
	` + map[bool]string{false: "", true: "mov.u64 %rd11, %rd8;"}[tc.wide] + `
	mul.wide.u32 %rd9, %r1, 8;
	add.s64 %rd9, %rd1, %rd9;
	st.global.u64 [%rd9], %rd11;
	bar.sync 0;
	ld.shared.u64 %rd10, [sh];
	@!%p1 st.global.u64 [%rd1+256], %rd10;
	ret;
}`
			src = strings.Replace(src, ".reg .b64 %rd<12>;", ".reg .b64 %rd<12>;\n\t.reg .pred %p<2>;", 1)
			both(t, func(t *testing.T, fast bool) {
				m := newMachine(t, src, fast)
				ops := make([]uint64, 64)
				for l := 0; l < 32; l++ {
					ops[2*l], ops[2*l+1] = tc.op(l)
				}
				out, cell, pops := m.zeros(8*33), m.allocU64(tc.init), m.allocU64(ops...)
				_, err := m.launch("atomics", d1(1, 32), out, cell, pops)
				require.NoError(t, err)
				got := m.u64s(out, 33)
				final := m.u64s(cell, 1)[0]
				if strings.Contains(tc.space, "shared") {
					final = got[32]
				}
				v := tc.init
				mask := uint64(math.MaxUint64)
				if !tc.wide {
					mask = 0xFFFFFFFF
				}
				for l := 0; l < 32; l++ {
					b, c := tc.op(l)
					if !strings.HasPrefix(tc.inst, "red") {
						assert.Equal(t, v&mask, got[l], "old value seen by lane %d", l)
					}
					v = tc.ref(v, b, c) & mask
				}
				assert.Equal(t, v, final&mask, "final value")
			})
		})
	}
}
