package exec

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

func TestHalfDecodeKnownValues(t *testing.T) {
	tests := []struct {
		bits uint16
		want float64
	}{
		{0x3C00, 1}, {0xC000, -2}, {0x7BFF, 65504}, {0x0400, math.Ldexp(1, -14)},
		{0x0001, math.Ldexp(1, -24)}, {0x03FF, 1023 * math.Ldexp(1, -24)}, {0x3555, 0.333251953125},
		{0x8000, math.Copysign(0, -1)}, {0x7C00, math.Inf(1)}, {0xFC00, math.Inf(-1)},
	}
	for _, tc := range tests {
		got := halfToFloat64(tc.bits)
		assert.Equal(t, math.Float64bits(tc.want), math.Float64bits(got), "%#04x", tc.bits)
	}
	assert.True(t, math.IsNaN(halfToFloat64(0x7E00)))
}

func TestHalfRoundTripsEveryValue(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		if h&0x7C00 == 0x7C00 && h&0x3FF != 0 {
			assert.Equal(t, uint16(CanonicalNaN16), float64ToHalf(halfToFloat64(uint16(h)), ptx.RoundRN))
			continue
		}
		for _, rnd := range []ptx.Rounding{ptx.RoundNone, ptx.RoundRN, ptx.RoundRZ, ptx.RoundRM, ptx.RoundRP} {
			require.Equal(t, uint16(h), float64ToHalf(halfToFloat64(uint16(h)), rnd), "%#04x rounding %v", h, rnd)
		}
	}
}

// TestHalfRoundingAgainstNeighbours checks float64ToHalf against the two
// f16 values around x, found by search in the sorted table of every
// finite f16 value (an oracle that shares no arithmetic with the encoder).
func TestHalfRoundingAgainstNeighbours(t *testing.T) {
	var finite []float64
	for h := 0; h < 1<<16; h++ {
		if v := halfToFloat64(uint16(h)); !math.IsInf(v, 0) && !math.IsNaN(v) && !(v == 0 && math.Signbit(v)) {
			finite = append(finite, v)
		}
	}
	sort.Float64s(finite)
	want := func(x float64, rnd ptx.Rounding) float64 {
		i := sort.SearchFloat64s(finite, x) // finite[i] >= x
		if i < len(finite) && finite[i] == x {
			return x
		}
		below, above := math.Inf(-1), math.Inf(1)
		if i > 0 {
			below = finite[i-1]
		}
		if i < len(finite) {
			above = finite[i]
		}
		switch rnd {
		case ptx.RoundRZ:
			if x > 0 {
				return max(below, 0)
			}
			return min(above, 0)
		case ptx.RoundRM:
			return below
		case ptx.RoundRP:
			return above
		}
		// Nearest even; past the largest value, IEEE's overflow threshold
		// is 65520 (where the next, unrepresentable value would be even).
		if math.Abs(x) >= 65520 {
			return math.Copysign(math.Inf(1), x)
		}
		if math.IsInf(below, 0) || math.IsInf(above, 0) {
			return math.Max(math.Min(x, maxHalf), -maxHalf)
		}
		switch db, da := x-below, above-x; {
		case db < da:
			return below
		case da < db:
			return above
		}
		if float64ToHalf(below, ptx.RoundRN)&1 == 0 {
			return below
		}
		return above
	}
	r := rand.New(rand.NewPCG(11, 10))
	xs := []float64{65519.99, 65520, 70000, -70000, 1e-9, -1e-9, math.Ldexp(1, -25), math.Ldexp(3, -26), 2049, 2051, -2051, 0.1, 1.0 / 3}
	for range 20000 {
		xs = append(xs, math.Ldexp(r.Float64()*2-1, r.IntN(44)-28))
	}
	for _, x := range xs {
		for _, rnd := range []ptx.Rounding{ptx.RoundRN, ptx.RoundRZ, ptx.RoundRM, ptx.RoundRP} {
			w := want(x, rnd)
			got := halfToFloat64(float64ToHalf(x, rnd))
			if got != w && !(got == 0 && w == 0) {
				t.Fatalf("float64ToHalf(%v, %v) = %v, want %v", x, rnd, got, w)
			}
		}
	}
}

func TestCvtHalf(t *testing.T) {
	f32bits := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	tests := []struct {
		name     string
		rnd      ptx.Rounding
		dst, src ptx.Type
		mods     ptx.Mods
		in, want uint64
	}{
		{"f16 to f32 is exact", ptx.RoundNone, ptx.TypeF32, ptx.TypeF16, 0, 0x3555, f32bits(0.333251953125)},
		{"f16 subnormal to f32", ptx.RoundNone, ptx.TypeF32, ptx.TypeF16, 0, 0x0001, f32bits(float32(math.Ldexp(1, -24)))},
		{"f16 NaN to f32 is canonical", ptx.RoundNone, ptx.TypeF32, ptx.TypeF16, 0, 0x7E01, CanonicalNaN32},
		{"f32 to f16 rn", ptx.RoundRN, ptx.TypeF16, ptx.TypeF32, 0, f32bits(1.0 / 3), 0x3555},
		{"f32 to f16 rp", ptx.RoundRP, ptx.TypeF16, ptx.TypeF32, 0, f32bits(1.0 / 3), 0x3556},
		{"f32 overflow to f16 rn is inf", ptx.RoundRN, ptx.TypeF16, ptx.TypeF32, 0, f32bits(1e6), 0x7C00},
		{"f32 overflow to f16 rz is max", ptx.RoundRZ, ptx.TypeF16, ptx.TypeF32, 0, f32bits(-1e6), 0xFBFF},
		{"f32 to f16 saturates", ptx.RoundRN, ptx.TypeF16, ptx.TypeF32, ptx.ModSat, f32bits(-3), 0},
		{"f64 to f16", ptx.RoundRN, ptx.TypeF16, ptx.TypeF64, 0, math.Float64bits(-2.5), 0xC100},
		{"f16 to f64", ptx.RoundNone, ptx.TypeF64, ptx.TypeF16, 0, 0xC100, math.Float64bits(-2.5)},
		{"s32 to f16 rn", ptx.RoundRN, ptx.TypeF16, ptx.TypeS32, 0, uint64(0xFFFFF7FF), 0xE800}, // -2049 ties to even -2048
		{"f16 to s32 rzi", ptx.RoundRZI, ptx.TypeS32, ptx.TypeF16, 0, 0xC100, uint64(0xFFFFFFFE)},
		{"f16 to u8 rni saturates", ptx.RoundRNI, ptx.TypeU8, ptx.TypeF16, 0, 0x5CB0, 0xFF}, // 300 saturates to 255
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &ptx.Inst{Op: ptx.OpCvt, Type: tc.dst, SrcType: tc.src, Rounding: tc.rnd, Mods: tc.mods}
			assert.Equal(t, tc.want, cvt(in, tc.in))
		})
	}
}
