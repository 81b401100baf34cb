package exec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/warpgraph/warpgraph/sim/ptx"
)

// directedOK checks r against the exact quotient q (a big.Rat): rm gives
// the largest value <= q, rp the smallest >= q, rz the one of them nearer
// zero. next(r, dir) is the neighbouring value of the result's format.
func directedOK(q *big.Rat, r float64, rnd ptx.Rounding, next func(float64, float64) float64) bool {
	rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return false
	}
	le := func(f float64) bool { return rat(f).Cmp(q) <= 0 } // f <= q
	ge := func(f float64) bool { return rat(f).Cmp(q) >= 0 }
	below := func() bool { // r is the largest value <= q
		up := next(r, math.Inf(1))
		return le(r) && (math.IsInf(up, 1) || !le(up))
	}
	above := func() bool {
		down := next(r, math.Inf(-1))
		return ge(r) && (math.IsInf(down, -1) || !ge(down))
	}
	switch rnd {
	case ptx.RoundRM:
		return below()
	case ptx.RoundRP:
		return above()
	}
	if q.Sign() >= 0 {
		return below()
	}
	return above()
}

func TestDivDirectedRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	next32 := func(f, to float64) float64 { return float64(math.Nextafter32(float32(f), float32(to))) }
	modes := []ptx.Rounding{ptx.RoundRZ, ptx.RoundRM, ptx.RoundRP}
	pairs32 := [][2]float32{{1, 3}, {-1, 3}, {2, 3}, {1, -10}, {7, 7}, {-0.5, 2}, {1e-45, 3}, {3e38, 0.5}, {1, 1e38}}
	for range 20000 {
		x := float32(math.Ldexp(r.Float64()*2-1, r.IntN(200)-100))
		y := float32(math.Ldexp(r.Float64()*2-1, r.IntN(200)-100))
		pairs32 = append(pairs32, [2]float32{x, y})
	}
	for _, p := range pairs32 {
		if p[1] == 0 {
			continue
		}
		q := new(big.Rat).Quo(new(big.Rat).SetFloat64(float64(p[0])), new(big.Rat).SetFloat64(float64(p[1])))
		for _, rnd := range modes {
			got := divF32Directed(p[0], p[1], rnd)
			if math.IsInf(float64(got), 0) && math.Abs(float64(p[0])/float64(p[1])) > math.MaxFloat32 {
				continue // overflow to infinity: checked below
			}
			if !directedOK(q, float64(got), rnd, next32) {
				t.Fatalf("div.%v.f32 %g / %g = %g (%#x): not the directed rounding of the quotient", rnd, p[0], p[1], got, math.Float32bits(got))
			}
		}
	}
	pairs64 := [][2]float64{{1, 3}, {-1, 3}, {2, 3}, {1, -10}, {1, 49}, {-7, 7}, {math.SmallestNonzeroFloat64, 3}}
	for range 20000 {
		x := math.Ldexp(r.Float64()*2-1, r.IntN(400)-200)
		y := math.Ldexp(r.Float64()*2-1, r.IntN(400)-200)
		pairs64 = append(pairs64, [2]float64{x, y})
	}
	for _, p := range pairs64 {
		if p[1] == 0 {
			continue
		}
		q := new(big.Rat).Quo(new(big.Rat).SetFloat64(p[0]), new(big.Rat).SetFloat64(p[1]))
		for _, rnd := range modes {
			got := divF64Directed(p[0], p[1], rnd)
			if !directedOK(q, got, rnd, math.Nextafter) {
				t.Fatalf("div.%v.f64 %g / %g = %g: not the directed rounding of the quotient", rnd, p[0], p[1], got)
			}
		}
	}
	// Overflow: toward zero stays finite, away from zero is infinite.
	if got := divF64Directed(math.MaxFloat64, 0.5, ptx.RoundRZ); got != math.MaxFloat64 {
		t.Errorf("div.rz.f64 overflow = %g, want MaxFloat64", got)
	}
	if got := divF64Directed(math.MaxFloat64, 0.5, ptx.RoundRP); !math.IsInf(got, 1) {
		t.Errorf("div.rp.f64 overflow = %g, want +Inf", got)
	}
	if got := divF64Directed(-math.MaxFloat64, 0.5, ptx.RoundRP); got != -math.MaxFloat64 {
		t.Errorf("div.rp.f64 negative overflow = %g, want -MaxFloat64", got)
	}
	if got := divF32Directed(3e38, 0.5, ptx.RoundRZ); got != math.MaxFloat32 {
		t.Errorf("div.rz.f32 overflow = %g, want MaxFloat32", got)
	}
	if got := divF32Directed(3e38, 0.5, ptx.RoundRP); !math.IsInf(float64(got), 1) {
		t.Errorf("div.rp.f32 overflow = %g, want +Inf", got)
	}
}
