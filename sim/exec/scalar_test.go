package exec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// TestFmaF32 checks the single rounding against exact arithmetic on random
// operands chosen so that products and addends overlap, including many
// exact ties of the float64 sum.
func TestFmaF32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func() float32 {
		m := 1 + r.Float64()
		e := r.IntN(40) - 20
		f := float32(math.Ldexp(m, e))
		if r.IntN(2) == 0 {
			f = -f
		}
		return f
	}
	ties := 0
	for i := 0; i < 200000; i++ {
		a, b := rnd(), rnd()
		var c float32
		if i%2 == 0 {
			// c cancels most of a*b, leaving a low-order tail.
			c = -float32(float64(a) * float64(b))
			c = math.Nextafter32(c, float32(r.IntN(2)*2-1))
		} else {
			c = rnd()
		}
		want := exactFMA32(a, b, c)
		got := FmaF32(a, b, c)
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("FmaF32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
		if float32(math.FMA(float64(a), float64(b), float64(c))) != want {
			ties++ // float64 FMA then float32 would have double-rounded
		}
	}
	t.Logf("%d double-rounding cases among the random samples", ties)

	// Constructed ties: a*b = 2^-24 (1 - 2^-40) and c in [1, 2) with an odd
	// mantissa. The float64 sum rounds to c + 2^-24, exactly halfway
	// between two float32 values, so rounding it again picks the even
	// neighbour above; the exact value lies below the tie.
	u := math.Ldexp(1, -20)
	a := float32(1 + u)
	b := float32(math.Ldexp(1-u, -24))
	for _, c := range []float32{float32(1 + 3*math.Ldexp(1, -23)), float32(1.5 + math.Ldexp(1, -23)), float32(1 + math.Ldexp(1, -23))} {
		for _, sign := range []float32{1, -1} {
			want := exactFMA32(sign*a, b, sign*c)
			assert.Equal(t, sign*c, want)
			assert.Equal(t, want, FmaF32(sign*a, b, sign*c), "a=%g b=%g c=%g", sign*a, b, sign*c)
			naive := float32(math.FMA(float64(sign*a), float64(b), float64(sign*c)))
			assert.NotEqual(t, want, naive, "double rounding would differ (the case bites)")
		}
	}
}

func TestIntToFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	modes := map[ptx.Rounding]big.RoundingMode{ptx.RoundRN: big.ToNearestEven, ptx.RoundRZ: big.ToZero, ptx.RoundRM: big.ToNegativeInf, ptx.RoundRP: big.ToPositiveInf}
	for i := 0; i < 20000; i++ {
		v := r.Uint64() >> uint(r.IntN(64))
		for rnd, mode := range modes {
			for _, signed := range []bool{false, true} {
				var bi *big.Int
				if signed {
					bi = big.NewInt(int64(v))
				} else {
					bi = new(big.Int).SetUint64(v)
				}
				w32, _ := new(big.Float).SetPrec(24).SetMode(mode).SetInt(bi).Float32()
				w64, _ := new(big.Float).SetPrec(53).SetMode(mode).SetInt(bi).Float64()
				g32 := intToFloat(v, signed, true, rnd)
				g64 := intToFloat(v, signed, false, rnd)
				if uint32(g32) != math.Float32bits(w32) || g64 != math.Float64bits(w64) {
					t.Fatalf("intToFloat(%#x, signed %v, %s) = %g / %g, want %g / %g", v, signed, rnd, math.Float32frombits(uint32(g32)), math.Float64frombits(g64), w32, w64)
				}
			}
		}
	}
}

func TestDivByZeroTable(t *testing.T) {
	tests := []struct {
		ty   ptx.Type
		x    uint64
		q, r uint64
	}{
		{ptx.TypeU32, 7, 0xFFFFFFFF, 7},
		{ptx.TypeS32, 7, 0xFFFFFFFF, 7},
		{ptx.TypeS32, 0xFFFFFFF9, 0xFFFFFFFF, 0xFFFFFFF9}, // -7/0 is -1 on the H100
		{ptx.TypeS32, 0, 0xFFFFFFFF, 0},
		{ptx.TypeU64, 1 << 40, math.MaxUint64, 1 << 40},
		{ptx.TypeS64, 1 << 63, math.MaxUint64, 1 << 63},
	}
	for _, tc := range tests {
		q, r := DivByZero(tc.ty, tc.x)
		assert.Equal(t, []uint64{tc.q, tc.r}, []uint64{q, r}, "%s %#x / 0", tc.ty, tc.x)
	}
}
