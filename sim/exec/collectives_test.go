package exec

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reduxPTX reduces tid-5 (signed) and tid (unsigned) over the lanes with
// tid < 20 (member mask 0xFFFFF), and runs match.all with a predicate
// destination over a value equal on every lane of a group of four lanes
// (tid/4) and over one equal on all lanes.
const reduxPTX = `
.version 7.0
.target sm_80
.address_size 64
.visible .entry collect(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 48;
	add.s64 %rd1, %rd1, %rd2;
	setp.ge.u32 %p1, %r1, 20;
	@%p1 bra SKIP;
	sub.s32 %r2, %r1, 5;
	redux.sync.add.s32 %r3, %r2, 0xFFFFF;
	redux.sync.min.s32 %r4, %r2, 0xFFFFF;
	redux.sync.max.u32 %r5, %r1, 0xFFFFF;
	redux.sync.min.u32 %r6, %r2, 0xFFFFF;
	redux.sync.and.b32 %r7, %r2, 0xFFFFF;
	redux.sync.or.b32 %r8, %r1, 0xFFFFF;
	redux.sync.xor.b32 %r9, %r1, 0xFFFFF;
	st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
	st.global.v2.u32 [%rd1+16], {%r7, %r8};
	st.global.u32 [%rd1+24], %r9;
SKIP:
	shr.u32 %r10, %r1, 2;
	match.all.sync.b32 %r11|%p2, %r10, 0xFFFFFFFF;
	match.all.sync.b32 %r12|%p3, 7, 0xFFFFFFFF;
	selp.u32 %r13, 1, 0, %p2;
	selp.u32 %r14, 1, 0, %p3;
	st.global.u32 [%rd1+28], %r11;
	st.global.u32 [%rd1+32], %r13;
	st.global.u32 [%rd1+36], %r12;
	st.global.u32 [%rd1+40], %r14;
	ret;
}`

func TestReduxAndMatchAll(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, reduxPTX, fast)
		out := m.zeros(48 * 32)
		_, err := m.launch("collect", d1(1, 32), out)
		require.NoError(t, err)
		got := m.u32s(out, 12*32)
		var add, xor, or uint32
		and := ^uint32(0)
		for l := range 20 {
			add += uint32(l - 5)
			and &= uint32(l - 5)
			or |= uint32(l)
			xor ^= uint32(l)
		}
		for l := range 32 {
			row := got[12*l : 12*l+12]
			if l < 20 {
				assert.Equal(t, []uint32{add, uint32(0xFFFFFFFB), 19, 0, and, or, xor}, row[:7], "lane %d: add.s32 min.s32 max.u32 min.u32 and or xor", l)
			}
			assert.Equal(t, uint32(0), row[7], "lane %d: match.all over differing values gives 0", l)
			assert.Equal(t, uint32(0), row[8], "lane %d: match.all's predicate is false", l)
			assert.Equal(t, fullMask, row[9], "lane %d: match.all over equal values gives the mask", l)
			assert.Equal(t, uint32(1), row[10], "lane %d: match.all's predicate is true when every member agrees", l)
		}
	})
}

// twoBadEntries has three unsupported instructions: one in each entry and
// one in a device function both call. Each is reported once, with its PTX
// line, CUDA source line and text.
const twoBadEntries = `
.version 7.0
.target sm_70
.address_size 64
.file 1 "./k.cu"
.func helper()
{
	.reg .b16 %h<2>;
	.loc 1 3 5
	add.f16 %h1, %h1, %h1;
	ret;
}
.visible .entry first()
{
	.reg .f32 %f<2>;
	.loc 1 7 5
	add.rz.f32 %f1, %f1, %f1;
	call.uni helper, ();
	ret;
}
.visible .entry second()
{
	.reg .f32 %f<2>;
	.loc 1 12 5
	sqrt.rp.f32 %f1, %f1;
	call.uni helper, ();
	ret;
}`

func TestCheckReportsEveryUnsupportedInstruction(t *testing.T) {
	m := newMachine(t, twoBadEntries, true)
	err := m.mod.Check()
	require.Error(t, err)
	var list LoadErrors
	require.True(t, errors.As(err, &list), "%v", err)
	assert.Len(t, list, 3, "%v", err)
	msg := err.Error()
	assert.Contains(t, msg, "3 instructions cannot run")
	for _, want := range []string{
		"PTX line 10 (./k.cu:3) `add.f16 %h1, %h1, %h1`",
		"PTX line 17 (./k.cu:7) `add.rz.f32 %f1, %f1, %f1`",
		"PTX line 25 (./k.cu:12) `sqrt.rp.f32 %f1, %f1`",
	} {
		assert.Equal(t, 1, strings.Count(msg, want), "%q once in:\n%s", want, msg)
	}
}

// shflCases are shfl.sync's four modes with constant lane operands and
// clamps (full width, and segments of 16 and 8 lanes), against the PTX
// ISA's definition computed here; lanes 28-31 do not take part, so that a
// source lane may be inactive (its register still reads).
var shflCases = []struct {
	mode string
	b, c int
}{
	{"up", 3, 0x0}, {"up", 1, 0x1000}, {"down", 5, 0x1f}, {"down", 2, 0x1807},
	{"bfly", 12, 0x1f}, {"bfly", 1, 0x1f}, {"idx", 7, 0x1f}, {"idx", 3, 0x1807}, {"idx", 40, 0x1f},
}

// init adds every mode with lane operands and clamps that reach past both
// ends, over the whole warp and in segments of 8 and 16 lanes.
func init() {
	for _, mode := range []string{"up", "down", "bfly", "idx"} {
		for _, b := range []int{0, 1, 5, 16, 27, 31, 33} {
			for _, c := range []int{0x0, 0x7, 0x1b, 0x1f, 0x1800, 0x1807, 0x1000, 0x100f} {
				shflCases = append(shflCases, struct {
					mode string
					b, c int
				}{mode, b, c})
			}
		}
	}
}

func shflRef(mode string, l, b, c int) (int, bool) {
	clamp, seg := c&31, c>>8&31
	maxLane, minLane := l&seg|clamp&^seg, l&seg
	b &= 31
	var j int
	var ok bool
	switch mode {
	case "up":
		j = l - b
		ok = j >= maxLane
	case "down":
		j = l + b
		ok = j <= maxLane
	case "bfly":
		j = l ^ b
		ok = j <= maxLane
	default:
		j = minLane | b&^seg
		ok = j <= maxLane
	}
	if !ok {
		j = l
	}
	return j, ok
}

func TestShflWithConstantAndRegisterOperands(t *testing.T) {
	for _, tc := range shflCases {
		src := `
.version 7.0
.target sm_80
.address_size 64
.visible .entry sh(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 8;
	add.s64 %rd1, %rd1, %rd2;
	mad.lo.u32 %r2, %r1, 7, 100;
	setp.ge.u32 %p1, %r1, 28;
	@%p1 bra DONE;
	mov.u32 %r5, B;
	mov.u32 %r6, C;
	shfl.sync.MODE.b32 %r3|%p2, %r2, LANE, CLAMP, 0x0FFFFFFF;
	selp.u32 %r4, 1, 0, %p2;
	st.global.u32 [%rd1], %r3;
	st.global.u32 [%rd1+4], %r4;
DONE:
	ret;
}`
		// The operands as constants, the lane in a register, and both in
		// registers.
		for _, operands := range [][2]string{{strconv.Itoa(tc.b), strconv.Itoa(tc.c)}, {"%r5", strconv.Itoa(tc.c)}, {"%r5", "%r6"}} {
			r := strings.NewReplacer("MODE", tc.mode, "LANE", operands[0], "CLAMP", operands[1], "B", strconv.Itoa(tc.b), "C", strconv.Itoa(tc.c))
			both(t, func(t *testing.T, fast bool) {
				m := newMachine(t, r.Replace(src), fast)
				out := m.zeros(8 * 32)
				_, err := m.launch("sh", d1(1, 32), out)
				require.NoError(t, err)
				got := m.u32s(out, 64)
				for l := range 28 {
					j, ok := shflRef(tc.mode, l, tc.b, tc.c)
					assert.Equal(t, uint32(100+7*j), got[2*l], "%s b=%d c=%#x lane %d", tc.mode, tc.b, tc.c, l)
					assert.Equal(t, b2u32(ok), got[2*l+1], "%s b=%d c=%#x lane %d: in range", tc.mode, tc.b, tc.c, l)
				}
			})
		}
	}
}

func b2u32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
