package exec

import (
	"math"

	"github.com/warpgraph/warpgraph/sim/ptx"
)

// IEEE 754 binary16 (PTX .f16): 1 sign bit, 5 exponent bits (bias 15), 10
// fraction bits. Every f16 value is exact in float64, so conversions go
// through float64 and round once.

// CanonicalNaN16 is the NaN that PTX f16 results carry.
const CanonicalNaN16 = 0x7FFF

// maxHalf is the largest finite f16 value.
const maxHalf = 65504

// halfToFloat64 decodes f16 bits.
func halfToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1F
	frac := float64(h & 0x3FF)
	switch exp {
	case 0: // zero or subnormal: frac × 2^-24
		return sign * math.Ldexp(frac, -24)
	case 0x1F:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// float64ToHalf rounds x to f16 with rounding mode rnd (.rn when none;
// .rz, .rm, .rp directed), saturating overflow to the largest finite value
// where the direction says so, as IEEE 754 prescribes.
func float64ToHalf(x float64, rnd ptx.Rounding) uint16 {
	if x != x {
		return CanonicalNaN16
	}
	var sign uint16
	mag := x
	if math.Signbit(x) {
		sign, mag = 0x8000, -x
	}
	if math.IsInf(mag, 0) {
		return sign | 0x7C00
	}
	// The rounding of the magnitude: rm and rp mirror for negative values.
	up := func(frac float64) bool { // frac in [0,1): round the magnitude up?
		switch rnd {
		case ptx.RoundRZ, ptx.RoundRZI:
			return false
		case ptx.RoundRM, ptx.RoundRMI:
			return sign != 0 && frac > 0
		case ptx.RoundRP, ptx.RoundRPI:
			return sign == 0 && frac > 0
		}
		return frac > 0.5
	}
	// The quantum at mag's binade: 2^-24 below the normal range.
	e := -14
	if mag >= math.Ldexp(1, -14) {
		_, e2 := math.Frexp(mag) // mag = f × 2^e2, f in [0.5, 1)
		e = e2 - 1
	}
	q := math.Ldexp(1, e-10)
	m := mag / q // exact: a power-of-two scaling
	n := math.Floor(m)
	frac := m - n
	if up(frac) || frac == 0.5 && isNearest(rnd) && math.Mod(n, 2) == 1 {
		n++
	}
	v := n * q
	if v > maxHalf {
		toInf := isNearest(rnd) || sign == 0 && (rnd == ptx.RoundRP || rnd == ptx.RoundRPI) || sign != 0 && (rnd == ptx.RoundRM || rnd == ptx.RoundRMI)
		if toInf {
			return sign | 0x7C00
		}
		v = maxHalf
	}
	if v < math.Ldexp(1, -14) {
		return sign | uint16(v*math.Ldexp(1, 24))
	}
	_, e2 := math.Frexp(v)
	e = e2 - 1
	return sign | uint16(e+15)<<10 | uint16(v/math.Ldexp(1, e-10)-1024)
}

// isNearest reports whether rnd rounds to nearest even (also when none is
// given).
func isNearest(rnd ptx.Rounding) bool {
	switch rnd {
	case ptx.RoundRZ, ptx.RoundRZI, ptx.RoundRM, ptx.RoundRMI, ptx.RoundRP, ptx.RoundRPI:
		return false
	}
	return true
}
