package exec

import (
	"errors"
	"math"
	"math/bits"

	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Scalar semantics: one lane's result of an ALU instruction. The hot
// instructions have specialised loops in warp.go; this is the reference
// they must agree with (the tests run every opcode both ways).

// sx sign-extends the low n bits of v.
func sx(v uint64, n int) int64 {
	s := uint(64 - n)
	return int64(v<<s) >> s
}

// zx zero-extends the low n bits of v.
func zx(v uint64, n int) uint64 {
	if n >= 64 {
		return v
	}
	return v & (1<<uint(n) - 1)
}

// ival reads v as a value of integer type t, extended to 64 bits by t's
// signedness.
func ival(t ptx.Type, v uint64) uint64 {
	if t == ptx.TypePred {
		return v & 1
	}
	if t.IsSigned() {
		return uint64(sx(v, t.Bits()))
	}
	return zx(v, t.Bits())
}

func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func f64(v uint64) float64 { return math.Float64frombits(v) }

// CanonicalNaN32 is the NaN an f32 arithmetic instruction produces, as on
// NVIDIA hardware.
const CanonicalNaN32 = 0x7FFFFFFF

// r32 returns the bits of an f32 result, canonicalising NaN.
func r32(f float32) uint64 {
	if f != f {
		return CanonicalNaN32
	}
	return uint64(math.Float32bits(f))
}

func r64(f float64) uint64 { return math.Float64bits(f) }

// ftz32 flushes an f32 subnormal to a zero of the same sign.
func ftz32(f float32) float32 {
	if b := math.Float32bits(f); b&0x7F800000 == 0 && b&0x007FFFFF != 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return f
}

func sat01(f float64) float64 {
	switch {
	case f != f:
		return 0
	case f < 0:
		return 0
	case f > 1:
		return 1
	}
	return f
}

// DivByZero is the single table of integer division by zero. PTX leaves
// the result unspecified; these are the values an H100 (driver 580, CUDA
// 13) returned for the divmod_probe kernel (results/hw-h100/README.md):
//
//	x / 0 = all ones (0xFFFFFFFF for 32 bits), signed or unsigned, whatever x
//	x % 0 = x
//
// So a signed x/0 is -1 even for negative x.
func DivByZero(t ptx.Type, x uint64) (q, r uint64) {
	n := t.Bits()
	return zx(math.MaxUint64, n), zx(x, n)
}

// divRem is integer division truncating toward zero.
func divRem(t ptx.Type, a, b uint64) (q, r uint64) {
	n := t.Bits()
	if zx(b, n) == 0 {
		return DivByZero(t, a)
	}
	if t.IsSigned() {
		x, y := sx(a, n), sx(b, n)
		if y == -1 { // avoid the Go overflow case; x / -1 wraps
			return zx(uint64(-x), n), 0
		}
		return zx(uint64(x/y), n), zx(uint64(x%y), n)
	}
	x, y := zx(a, n), zx(b, n)
	return x / y, x % y
}

// mulHi is the high half of the double-width product of two n-bit values.
func mulHi(t ptx.Type, a, b uint64) uint64 {
	n := t.Bits()
	if n == 64 {
		hi, _ := bits.Mul64(a, b)
		if t.IsSigned() {
			// Signed correction of the unsigned high half.
			if int64(a) < 0 {
				hi -= b
			}
			if int64(b) < 0 {
				hi -= a
			}
		}
		return hi
	}
	if t.IsSigned() {
		p := sx(a, n) * sx(b, n)
		return zx(uint64(p>>uint(n)), n)
	}
	p := zx(a, n) * zx(b, n)
	return zx(p>>uint(n), n)
}

// mulWide is the full product of two n-bit values (n <= 32) in 2n bits.
func mulWide(t ptx.Type, a, b uint64) uint64 {
	n := t.Bits()
	if t.IsSigned() {
		return zx(uint64(sx(a, n)*sx(b, n)), 2*n)
	}
	return zx(zx(a, n)*zx(b, n), 2*n)
}

func satS32(v int64) uint64 {
	return uint64(uint32(int32(min(max(v, math.MinInt32), math.MaxInt32))))
}

// FmaF32 is a*b+c rounded once to float32 (round to nearest even). The
// product of two float32 values is exact in float64; the float64 sum is
// corrected with its exact error (TwoSum), which only matters when the sum
// falls exactly halfway between two float32 values.
func FmaF32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	r := float32(s)
	if math.IsInf(s, 0) || s != s || math.IsInf(p, 0) {
		return float32(math.FMA(float64(a), float64(b), cc))
	}
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e == 0 {
		return r
	}
	d := float64(r)
	if d == s {
		return r
	}
	var other float32
	if d < s {
		other = math.Nextafter32(r, float32(math.Inf(1)))
	} else {
		other = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if math.Abs(s-d) != math.Abs(float64(other)-s) {
		return r // not a tie: s already rounds correctly
	}
	// s is a tie; the exact value lies on e's side of it.
	if (e > 0) == (float64(other) > d) {
		return other
	}
	return r
}

// roundF32 rounds x to float32 with rounding mode rnd (rn when none).
func roundF32(x float64, rnd ptx.Rounding) float32 {
	r := float32(x)
	if x != x {
		return r
	}
	d := float64(r)
	switch rnd {
	case ptx.RoundRZ, ptx.RoundRZI:
		if math.Abs(d) > math.Abs(x) {
			r = math.Nextafter32(r, 0)
		}
	case ptx.RoundRM, ptx.RoundRMI:
		if d > x {
			r = math.Nextafter32(r, float32(math.Inf(-1)))
		}
	case ptx.RoundRP, ptx.RoundRPI:
		if d < x {
			r = math.Nextafter32(r, float32(math.Inf(1)))
		}
	}
	return r
}

// intToFloat converts an integer (signed when signed) to float32 (f32dst)
// or float64 with rounding rnd (rn when none), exactly: the magnitude is
// rounded once to the destination's precision.
func intToFloat(v uint64, signed, f32dst bool, rnd ptx.Rounding) uint64 {
	neg := signed && int64(v) < 0
	mag := v
	if neg {
		mag = -v
		// Rounding the magnitude of a negative value mirrors rm and rp.
		switch rnd {
		case ptx.RoundRM:
			rnd = ptx.RoundRP
		case ptx.RoundRP:
			rnd = ptx.RoundRM
		}
	}
	prec := 53
	if f32dst {
		prec = 24
	}
	f := roundMag(mag, prec, rnd)
	if neg {
		f = -f
	}
	if f32dst {
		return uint64(math.Float32bits(float32(f))) // exact: f has <= 24 significant bits
	}
	return math.Float64bits(f)
}

// roundMag rounds an integer magnitude to prec significant bits: toward
// zero (rz, rm), away from zero (rp) or to nearest even.
func roundMag(mag uint64, prec int, rnd ptx.Rounding) float64 {
	l := bits.Len64(mag)
	if l <= prec {
		return float64(mag)
	}
	shift := uint(l - prec)
	t := mag >> shift
	rest := mag & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	up := false
	switch rnd {
	case ptx.RoundRZ, ptx.RoundRM:
	case ptx.RoundRP:
		up = rest != 0
	default:
		up = rest > half || rest == half && t&1 == 1
	}
	if up {
		t++
	}
	return math.Ldexp(float64(t), int(shift))
}

// floatToInt converts f to an integer type with rounding rnd (an integer
// rounding; none means toward zero), saturating to the type's range; NaN
// gives 0.
func floatToInt(f float64, t ptx.Type, rnd ptx.Rounding) uint64 {
	if f != f {
		return 0
	}
	switch rnd {
	case ptx.RoundRNI, ptx.RoundRN:
		f = math.RoundToEven(f)
	case ptx.RoundRMI, ptx.RoundRM:
		f = math.Floor(f)
	case ptx.RoundRPI, ptx.RoundRP:
		f = math.Ceil(f)
	default:
		f = math.Trunc(f)
	}
	n := t.Bits()
	if t.IsSigned() {
		lo := -math.Ldexp(1, n-1)
		hi := math.Ldexp(1, n-1)
		switch {
		case f < lo:
			return zx(uint64(int64(-1)<<uint(n-1)), n)
		case f >= hi:
			return zx(uint64(1)<<uint(n-1)-1, n)
		}
		return zx(uint64(int64(f)), n)
	}
	hi := math.Ldexp(1, n)
	switch {
	case f <= 0:
		return 0
	case f >= hi:
		return zx(math.MaxUint64, n)
	}
	if f >= math.Ldexp(1, 63) {
		return uint64(f-math.Ldexp(1, 63)) + 1<<63
	}
	return uint64(f)
}

// roundIntegral rounds f to an integral value (cvt.rni/rzi/rmi/rpi.fX.fX).
func roundIntegral(f float64, rnd ptx.Rounding) float64 {
	switch rnd {
	case ptx.RoundRNI:
		return math.RoundToEven(f)
	case ptx.RoundRZI:
		return math.Trunc(f)
	case ptx.RoundRMI:
		return math.Floor(f)
	case ptx.RoundRPI:
		return math.Ceil(f)
	}
	return f
}

// cvt is the cvt instruction for one lane.
func cvt(in *ptx.Inst, a uint64) uint64 {
	dt, st := in.Type, in.SrcType
	if dt == ptx.TypeF16 || st == ptx.TypeF16 {
		return cvtHalf(in, a)
	}
	ftz := in.Mods.Has(ptx.ModFtz)
	sat := in.Mods.Has(ptx.ModSat)
	switch {
	case dt.IsInt() && st.IsInt():
		v := ival(st, a)
		if sat {
			n := dt.Bits()
			if dt.IsSigned() {
				lo, hi := int64(-1)<<uint(n-1), int64(1)<<uint(n-1)-1
				if st.IsSigned() {
					v = uint64(min(max(int64(v), lo), hi))
				} else if v > uint64(hi) {
					v = uint64(hi)
				}
			} else {
				hi := zx(math.MaxUint64, n)
				if st.IsSigned() && int64(v) < 0 {
					v = 0
				} else if v > hi {
					v = hi
				}
			}
		}
		return zx(v, dt.Bits())
	case dt.IsInt() && st.IsFloat():
		var f float64
		if st == ptx.TypeF32 {
			x := f32(a)
			if ftz {
				x = ftz32(x)
			}
			f = float64(x)
		} else {
			f = f64(a)
		}
		return floatToInt(f, dt, in.Rounding)
	case dt.IsFloat() && st.IsInt():
		v := ival(st, a)
		r := intToFloat(v, st.IsSigned(), dt == ptx.TypeF32, in.Rounding)
		if sat {
			if dt == ptx.TypeF32 {
				return r32(float32(sat01(float64(f32(r)))))
			}
			return r64(sat01(f64(r)))
		}
		return r
	default: // float to float
		var x float64
		if st == ptx.TypeF32 {
			s := f32(a)
			if ftz {
				s = ftz32(s)
			}
			x = float64(s)
		} else {
			x = f64(a)
		}
		x = roundIntegral(x, in.Rounding)
		if sat {
			x = sat01(x)
		}
		if dt == ptx.TypeF32 {
			var r float32
			if st == ptx.TypeF64 && in.Rounding >= ptx.RoundRN && in.Rounding <= ptx.RoundRP {
				r = roundF32(x, in.Rounding)
			} else {
				r = float32(x)
			}
			if ftz {
				r = ftz32(r)
			}
			if x != x {
				return CanonicalNaN32
			}
			return uint64(math.Float32bits(r))
		}
		return r64(x)
	}
}

// isDirected reports whether rnd is .rz, .rm or .rp.
func isDirected(rnd ptx.Rounding) bool {
	return rnd == ptx.RoundRZ || rnd == ptx.RoundRM || rnd == ptx.RoundRP
}

// divNearest is x/y rounded to nearest in float64 and the side the exact
// quotient lies on: +1 above q, -1 below, 0 when q is exact. The remainder
// x - q*y of a correctly rounded quotient is exact in float64 (barring
// underflow), so one fused multiply-add gives its sign.
func divNearest(x, y float64) (q float64, side int) {
	q = x / y
	switch {
	case q != q || math.IsInf(x, 0) || math.IsInf(y, 0) || y == 0:
		return q, 0 // NaN, infinite operands, division by zero: exact
	case math.IsInf(q, 0): // overflow: the exact quotient is finite
		if q > 0 {
			return q, -1
		}
		return q, 1
	case q == 0:
		if x == 0 {
			return q, 0
		}
		if math.Signbit(x) != math.Signbit(y) { // underflow to -0
			return q, -1
		}
		return q, 1
	}
	r := math.FMA(-q, y, x)
	if r == 0 {
		return q, 0
	}
	if (r > 0) == (y > 0) {
		return q, 1
	}
	return q, -1
}

// divF64Directed is x/y with directed rounding rnd (.rz, .rm, .rp).
func divF64Directed(x, y float64, rnd ptx.Rounding) float64 {
	q, side := divNearest(x, y)
	if side == 0 {
		return q
	}
	switch rnd {
	case ptx.RoundRZ:
		if (side < 0) != math.Signbit(q) { // q is farther from zero than the quotient
			return math.Nextafter(q, 0)
		}
	case ptx.RoundRM:
		if side < 0 {
			return math.Nextafter(q, math.Inf(-1))
		}
	case ptx.RoundRP:
		if side > 0 {
			return math.Nextafter(q, math.Inf(1))
		}
	}
	return q
}

// divF32Directed is x/y with directed rounding rnd (.rz, .rm, .rp). The
// float64 quotient of two float32 values neither overflows nor underflows.
// When it is not a float32 value, the exact quotient lies strictly between
// the same two float32 values and roundF32 decides; when it is, the side
// of the exact quotient decides.
func divF32Directed(x, y float32, rnd ptx.Rounding) float32 {
	q, side := divNearest(float64(x), float64(y))
	r := float32(q)
	if float64(r) != q {
		return roundF32(q, rnd)
	}
	if side == 0 {
		return r
	}
	switch rnd {
	case ptx.RoundRZ:
		if (side < 0) != math.Signbit(q) {
			return math.Nextafter32(r, 0)
		}
	case ptx.RoundRM:
		if side < 0 {
			return math.Nextafter32(r, float32(math.Inf(-1)))
		}
	case ptx.RoundRP:
		if side > 0 {
			return math.Nextafter32(r, float32(math.Inf(1)))
		}
	}
	return r
}

// cvtHalf is cvt to or from .f16 for one lane: the source is read
// exactly as a float64 (integers beyond 2^53 round, far beyond f16's
// range), then rounded once to the destination.
func cvtHalf(in *ptx.Inst, a uint64) uint64 {
	dt, st := in.Type, in.SrcType
	ftz := in.Mods.Has(ptx.ModFtz)
	var x float64
	switch {
	case st == ptx.TypeF16:
		x = halfToFloat64(uint16(a))
	case st == ptx.TypeF32:
		s := f32(a)
		if ftz {
			s = ftz32(s)
		}
		x = float64(s)
	case st == ptx.TypeF64:
		x = f64(a)
	case st.IsSigned():
		x = float64(int64(ival(st, a)))
	default:
		x = float64(ival(st, a))
	}
	switch {
	case dt.IsInt():
		return floatToInt(x, dt, in.Rounding)
	case dt == ptx.TypeF16:
		x = roundIntegral(x, in.Rounding)
		if in.Mods.Has(ptx.ModSat) {
			x = sat01(x)
		}
		return uint64(float64ToHalf(x, in.Rounding))
	case dt == ptx.TypeF32:
		if x != x {
			return CanonicalNaN32
		}
		r := float32(x) // exact: every f16 value is an f32 value
		if in.Mods.Has(ptx.ModSat) {
			r = float32(sat01(float64(r)))
		}
		return r32(r)
	}
	if in.Mods.Has(ptx.ModSat) {
		x = sat01(x)
	}
	return r64(x)
}

// fminmax is min/max on floats: a NaN operand is ignored (both NaN: NaN),
// -0 orders below +0; with .NaN a NaN operand gives NaN.
func fminmax(a, b float64, isMax, nanMode bool) (float64, bool) {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return math.NaN(), true
	case an || bn:
		if nanMode {
			return math.NaN(), true
		}
		if an {
			return b, false
		}
		return a, false
	}
	if a == b { // signed zeros
		if isMax {
			if math.Signbit(a) {
				return b, false
			}
			return a, false
		}
		if math.Signbit(a) {
			return a, false
		}
		return b, false
	}
	if (a < b) != isMax {
		return a, false
	}
	return b, false
}

// compare evaluates a setp/set comparison of two values of type t.
func compare(cmp ptx.CmpOp, t ptx.Type, ftz bool, a, b uint64) bool {
	if t.IsFloat() {
		var x, y float64
		if t == ptx.TypeF32 {
			fa, fb := f32(a), f32(b)
			if ftz {
				fa, fb = ftz32(fa), ftz32(fb)
			}
			x, y = float64(fa), float64(fb)
		} else {
			x, y = f64(a), f64(b)
		}
		nan := x != x || y != y
		switch cmp {
		case ptx.CmpEq:
			return x == y
		case ptx.CmpNe:
			return !nan && x != y
		case ptx.CmpLt:
			return x < y
		case ptx.CmpLe:
			return x <= y
		case ptx.CmpGt:
			return x > y
		case ptx.CmpGe:
			return x >= y
		case ptx.CmpEqu:
			return nan || x == y
		case ptx.CmpNeu:
			return x != y
		case ptx.CmpLtu:
			return !(x >= y)
		case ptx.CmpLeu:
			return !(x > y)
		case ptx.CmpGtu:
			return !(x <= y)
		case ptx.CmpGeu:
			return !(x < y)
		case ptx.CmpNum:
			return !nan
		case ptx.CmpNan:
			return nan
		}
		return false
	}
	n := t.Bits()
	ua, ub := zx(a, n), zx(b, n)
	sa, sb := sx(a, n), sx(b, n)
	signed := t.IsSigned()
	switch cmp {
	case ptx.CmpEq:
		return ua == ub
	case ptx.CmpNe:
		return ua != ub
	case ptx.CmpLt:
		if signed {
			return sa < sb
		}
		return ua < ub
	case ptx.CmpLe:
		if signed {
			return sa <= sb
		}
		return ua <= ub
	case ptx.CmpGt:
		if signed {
			return sa > sb
		}
		return ua > ub
	case ptx.CmpGe:
		if signed {
			return sa >= sb
		}
		return ua >= ub
	case ptx.CmpLo:
		return ua < ub
	case ptx.CmpLs:
		return ua <= ub
	case ptx.CmpHi:
		return ua > ub
	case ptx.CmpHs:
		return ua >= ub
	}
	return false
}

// boolOp combines a comparison with a predicate.
func boolOp(op ptx.BoolOp, r bool, p uint64) bool {
	q := p&1 != 0
	switch op {
	case ptx.BoolAnd:
		return r && q
	case ptx.BoolOr:
		return r || q
	case ptx.BoolXor:
		return r != q
	}
	return r
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// checkScalar reports what evalScalar cannot do for in.
func checkScalar(in *ptx.Inst) error {
	t := in.Type
	switch in.Op {
	case ptx.OpMov, ptx.OpAnd, ptx.OpOr, ptx.OpXor, ptx.OpNot, ptx.OpCnot, ptx.OpSelp, ptx.OpCvt:
		return nil
	case ptx.OpAdd, ptx.OpSub, ptx.OpMul, ptx.OpMad, ptx.OpFma, ptx.OpDiv:
		if t.IsFloat() && !(in.Op == ptx.OpDiv && isDirected(in.Rounding)) {
			switch in.Rounding {
			case ptx.RoundNone, ptx.RoundRN:
			default:
				return errors.New("float " + in.Op.String() + " with directed rounding ." + in.Rounding.String())
			}
		}
		if in.Op == ptx.OpFma && !t.IsFloat() {
			return errors.New("integer fma")
		}
		return nil
	case ptx.OpRem, ptx.OpMul24, ptx.OpMad24, ptx.OpShl, ptx.OpShr, ptx.OpShf, ptx.OpPopc, ptx.OpClz, ptx.OpBrev,
		ptx.OpBfe, ptx.OpBfi, ptx.OpBfind, ptx.OpPrmt, ptx.OpSad:
		if !t.IsInt() {
			return errors.New(in.Op.String() + " on ." + t.String())
		}
		return nil
	case ptx.OpAbs, ptx.OpNeg, ptx.OpMin, ptx.OpMax, ptx.OpSetp, ptx.OpSet, ptx.OpSlct:
		return nil
	case ptx.OpRcp, ptx.OpSqrt, ptx.OpRsqrt, ptx.OpSin, ptx.OpCos, ptx.OpEx2, ptx.OpLg2, ptx.OpTanh, ptx.OpCopysign, ptx.OpTestp:
		if !t.IsFloat() {
			return errors.New(in.Op.String() + " on ." + t.String())
		}
		return nil
	}
	return errors.New(in.Op.String())
}

// evalScalar computes one lane of an ALU instruction from its sources.
func evalScalar(in *ptx.Inst, a, b, c, d uint64) uint64 {
	t := in.Type
	n := t.Bits()
	ftz := in.Mods.Has(ptx.ModFtz)
	sat := in.Mods.Has(ptx.ModSat)
	if t.IsFloat() {
		return evalFloat(in, a, b, c)
	}
	switch in.Op {
	case ptx.OpMov:
		return a
	case ptx.OpCvt:
		return cvt(in, a)
	case ptx.OpAdd:
		if sat && t == ptx.TypeS32 {
			return satS32(sx(a, 32) + sx(b, 32))
		}
		return zx(a+b, n)
	case ptx.OpSub:
		if sat && t == ptx.TypeS32 {
			return satS32(sx(a, 32) - sx(b, 32))
		}
		return zx(a-b, n)
	case ptx.OpMul:
		switch {
		case in.Mods.Has(ptx.ModHi):
			return mulHi(t, a, b)
		case in.Mods.Has(ptx.ModWide):
			return mulWide(t, a, b)
		}
		return zx(a*b, n)
	case ptx.OpMad:
		switch {
		case in.Mods.Has(ptx.ModHi):
			if sat && t == ptx.TypeS32 {
				return satS32(sx(mulHi(t, a, b), 32) + sx(c, 32))
			}
			return zx(mulHi(t, a, b)+c, n)
		case in.Mods.Has(ptx.ModWide):
			return zx(mulWide(t, a, b)+c, 2*n)
		}
		return zx(a*b+c, n)
	case ptx.OpMul24, ptx.OpMad24:
		var p int64
		if t.IsSigned() {
			p = sx(a, 24) * sx(b, 24)
		} else {
			p = int64(zx(a, 24) * zx(b, 24))
		}
		var r uint64
		if in.Mods.Has(ptx.ModHi) {
			r = zx(uint64(p>>16), 32)
		} else {
			r = zx(uint64(p), 32)
		}
		if in.Op == ptx.OpMad24 {
			if sat && t == ptx.TypeS32 {
				return satS32(sx(r, 32) + sx(c, 32))
			}
			r = zx(r+c, 32)
		}
		return r
	case ptx.OpDiv:
		q, _ := divRem(t, a, b)
		return q
	case ptx.OpRem:
		_, r := divRem(t, a, b)
		return r
	case ptx.OpAbs:
		v := sx(a, n)
		if v < 0 {
			v = -v
		}
		return zx(uint64(v), n)
	case ptx.OpNeg:
		return zx(-a, n)
	case ptx.OpMin, ptx.OpMax:
		isMax := in.Op == ptx.OpMax
		var r uint64
		if t.IsSigned() {
			x, y := sx(a, n), sx(b, n)
			if (x < y) != isMax {
				r = uint64(x)
			} else {
				r = uint64(y)
			}
			if in.Mods.Has(ptx.ModReluMax) && int64(r) < 0 {
				r = 0
			}
		} else {
			x, y := zx(a, n), zx(b, n)
			if (x < y) != isMax {
				r = x
			} else {
				r = y
			}
		}
		return zx(r, n)
	case ptx.OpSad:
		var diff uint64
		if t.IsSigned() {
			x, y := sx(a, n), sx(b, n)
			if x > y {
				diff = uint64(x - y)
			} else {
				diff = uint64(y - x)
			}
		} else {
			x, y := zx(a, n), zx(b, n)
			if x > y {
				diff = x - y
			} else {
				diff = y - x
			}
		}
		return zx(diff+c, n)
	case ptx.OpAnd:
		return zx(a&b, n)
	case ptx.OpOr:
		return zx(a|b, n)
	case ptx.OpXor:
		return zx(a^b, n)
	case ptx.OpNot:
		if t == ptx.TypePred {
			return (a ^ 1) & 1
		}
		return zx(^a, n)
	case ptx.OpCnot:
		return b2u(zx(a, n) == 0)
	case ptx.OpShl:
		s := uint32(b)
		if s >= uint32(n) {
			return 0
		}
		return zx(a<<s, n)
	case ptx.OpShr:
		s := uint32(b)
		if t.IsSigned() {
			if s >= uint32(n) {
				s = uint32(n) - 1
			}
			return zx(uint64(sx(a, n)>>s), n)
		}
		if s >= uint32(n) {
			return 0
		}
		return zx(a, n) >> s
	case ptx.OpShf:
		s := uint32(c)
		if in.Mods.Has(ptx.ModClamp) {
			s = min(s, 32)
		} else {
			s &= 31
		}
		v := zx(b, 32)<<32 | zx(a, 32)
		if in.Mods.Has(ptx.ModLeft) {
			return zx((v<<s)>>32, 32)
		}
		return zx(v>>s, 32)
	case ptx.OpPopc:
		return uint64(bits.OnesCount64(zx(a, n)))
	case ptx.OpClz:
		return uint64(bits.LeadingZeros64(zx(a, n)) - (64 - n))
	case ptx.OpBrev:
		return bits.Reverse64(zx(a, n)) >> uint(64-n)
	case ptx.OpBfe:
		pos, ln := int(b&0xff), int(c&0xff)
		msb := n - 1
		var sbit uint64
		if t.IsSigned() && ln > 0 {
			sbit = (a >> uint(min(pos+ln-1, msb))) & 1
		}
		var r uint64
		for i := 0; i <= msb; i++ {
			var bit uint64
			if i < ln && pos+i <= msb {
				bit = (a >> uint(pos+i)) & 1
			} else {
				bit = sbit
			}
			r |= bit << uint(i)
		}
		return r
	case ptx.OpBfi:
		pos, ln := int(c&0xff), int(d&0xff)
		msb := n - 1
		r := zx(b, n)
		for i := 0; i < ln && pos+i <= msb; i++ {
			bit := (a >> uint(i)) & 1
			r = r&^(1<<uint(pos+i)) | bit<<uint(pos+i)
		}
		return r
	case ptx.OpBfind:
		v := zx(a, n)
		if t.IsSigned() && sx(a, n) < 0 {
			v = zx(^a, n)
		}
		if v == 0 {
			return 0xFFFFFFFF
		}
		pos := uint64(bits.Len64(v) - 1)
		if in.Mods.Has(ptx.ModShiftAmt) {
			return uint64(n-1) - pos
		}
		return pos
	case ptx.OpPrmt:
		src := zx(b, 32)<<32 | zx(a, 32)
		var r uint64
		for i := 0; i < 4; i++ {
			sel := (c >> uint(4*i)) & 0xf
			byt := (src >> (8 * (sel & 7))) & 0xff
			if sel&8 != 0 {
				if byt&0x80 != 0 {
					byt = 0xff
				} else {
					byt = 0
				}
			}
			r |= byt << uint(8*i)
		}
		return r
	case ptx.OpSet:
		r := boolOp(in.Bool, compare(in.Cmp, in.SrcType, ftz, a, b), c)
		if r {
			return zx(math.MaxUint64, n)
		}
		return 0
	case ptx.OpSelp, ptx.OpSlct:
		return selectOperand(in, a, b, c)
	}
	return 0
}

// selectOperand is selp (predicate c picks a) and slct (c >= 0 picks a),
// which integer and float instructions share.
func selectOperand(in *ptx.Inst, a, b, c uint64) uint64 {
	if in.Op == ptx.OpSelp && c&1 != 0 || in.Op == ptx.OpSlct && slctCond(in, c) {
		return a
	}
	return b
}

func slctCond(in *ptx.Inst, c uint64) bool {
	if in.SrcType == ptx.TypeF32 {
		f := f32(c)
		if in.Mods.Has(ptx.ModFtz) {
			f = ftz32(f)
		}
		return f >= 0
	}
	return sx(c, 32) >= 0
}

// evalFloat is evalScalar for float types.
func evalFloat(in *ptx.Inst, a, b, c uint64) uint64 {
	t := in.Type
	ftz := in.Mods.Has(ptx.ModFtz)
	sat := in.Mods.Has(ptx.ModSat)
	switch in.Op {
	case ptx.OpMov:
		return a
	case ptx.OpCvt:
		return cvt(in, a)
	case ptx.OpSelp, ptx.OpSlct:
		return selectOperand(in, a, b, c)
	case ptx.OpSet:
		// set.cmp.f32.stype: 1.0f or 0.0f.
		if boolOp(in.Bool, compare(in.Cmp, in.SrcType, ftz, a, b), c) {
			if t == ptx.TypeF32 {
				return uint64(math.Float32bits(1))
			}
			return math.Float64bits(1)
		}
		return 0
	case ptx.OpAbs:
		if t == ptx.TypeF32 {
			x := f32(a)
			if ftz {
				x = ftz32(x)
			}
			return uint64(math.Float32bits(x) &^ 0x80000000)
		}
		return a &^ (1 << 63)
	case ptx.OpNeg:
		if t == ptx.TypeF32 {
			x := f32(a)
			if ftz {
				x = ftz32(x)
			}
			return uint64(math.Float32bits(x) ^ 0x80000000)
		}
		return a ^ (1 << 63)
	case ptx.OpCopysign:
		if t == ptx.TypeF32 {
			return zx(b, 32)&^0x80000000 | zx(a, 32)&0x80000000
		}
		return b&^(1<<63) | a&(1<<63)
	case ptx.OpTestp:
		var x float64
		sub := false
		if t == ptx.TypeF32 {
			x = float64(f32(a))
			bb := uint32(a)
			sub = bb&0x7F800000 == 0 && bb&0x007FFFFF != 0
		} else {
			x = f64(a)
			sub = a&0x7FF0000000000000 == 0 && a&0x000FFFFFFFFFFFFF != 0
		}
		switch in.Testp {
		case ptx.TestpFinite:
			return b2u(!math.IsInf(x, 0) && x == x)
		case ptx.TestpInfinite:
			return b2u(math.IsInf(x, 0))
		case ptx.TestpNumber:
			return b2u(x == x)
		case ptx.TestpNotANumber:
			return b2u(x != x)
		case ptx.TestpNormal:
			return b2u(x == x && !math.IsInf(x, 0) && x != 0 && !sub)
		case ptx.TestpSubnormal:
			return b2u(sub)
		}
		return 0
	}
	if t == ptx.TypeF32 {
		x, y, z := f32(a), f32(b), f32(c)
		if ftz {
			x, y, z = ftz32(x), ftz32(y), ftz32(z)
		}
		var r float32
		switch in.Op {
		case ptx.OpAdd:
			r = x + y
		case ptx.OpSub:
			r = x - y
		case ptx.OpMul:
			r = x * y
		case ptx.OpMad, ptx.OpFma:
			r = FmaF32(x, y, z)
		case ptx.OpDiv:
			if isDirected(in.Rounding) {
				r = divF32Directed(x, y, in.Rounding)
			} else {
				r = x / y
			}
		case ptx.OpMin, ptx.OpMax:
			v, isNaN := fminmax(float64(x), float64(y), in.Op == ptx.OpMax, in.Mods.Has(ptx.ModNaN))
			if isNaN {
				return CanonicalNaN32
			}
			r = float32(v)
			if in.Mods.Has(ptx.ModReluMax) && (r < 0 || r != r) {
				r = 0
			}
		case ptx.OpRcp:
			r = 1 / x
		case ptx.OpSqrt:
			r = float32(math.Sqrt(float64(x)))
		case ptx.OpRsqrt:
			r = float32(1 / math.Sqrt(float64(x)))
		case ptx.OpSin:
			r = float32(math.Sin(float64(x)))
		case ptx.OpCos:
			r = float32(math.Cos(float64(x)))
		case ptx.OpEx2:
			r = float32(math.Exp2(float64(x)))
		case ptx.OpLg2:
			r = float32(math.Log2(float64(x)))
		case ptx.OpTanh:
			r = float32(math.Tanh(float64(x)))
		}
		if sat {
			r = float32(sat01(float64(r)))
		}
		if ftz {
			r = ftz32(r)
		}
		return r32(r)
	}
	x, y, z := f64(a), f64(b), f64(c)
	var r float64
	switch in.Op {
	case ptx.OpAdd:
		r = x + y
	case ptx.OpSub:
		r = x - y
	case ptx.OpMul:
		r = x * y
	case ptx.OpMad, ptx.OpFma:
		r = math.FMA(x, y, z)
	case ptx.OpDiv:
		r = x / y
		if isDirected(in.Rounding) {
			r = divF64Directed(x, y, in.Rounding)
		}
	case ptx.OpMin, ptx.OpMax:
		r, _ = fminmax(x, y, in.Op == ptx.OpMax, in.Mods.Has(ptx.ModNaN))
		if in.Mods.Has(ptx.ModReluMax) && (r < 0 || r != r) {
			r = 0
		}
	case ptx.OpRcp:
		r = 1 / x
	case ptx.OpSqrt:
		r = math.Sqrt(x)
	case ptx.OpRsqrt:
		r = 1 / math.Sqrt(x)
	case ptx.OpSin:
		r = math.Sin(x)
	case ptx.OpCos:
		r = math.Cos(x)
	case ptx.OpEx2:
		r = math.Exp2(x)
	case ptx.OpLg2:
		r = math.Log2(x)
	case ptx.OpTanh:
		r = math.Tanh(x)
	}
	if sat {
		r = sat01(r)
	}
	return r64(r)
}

// checkAtom reports an atomic operation and type the executor does not
// support.
func checkAtom(in *ptx.Inst) error {
	t := in.Type
	switch in.Atom {
	case ptx.AtomAdd:
		if t.IsInt() || t == ptx.TypeF32 || t == ptx.TypeF64 {
			return nil
		}
	case ptx.AtomMin, ptx.AtomMax:
		if t.IsInt() || t == ptx.TypeF32 || t == ptx.TypeF64 {
			return nil
		}
	case ptx.AtomInc, ptx.AtomDec:
		if t == ptx.TypeU32 {
			return nil
		}
	case ptx.AtomAnd, ptx.AtomOr, ptx.AtomXor, ptx.AtomExch, ptx.AtomCas:
		if t.Size() == 4 || t.Size() == 8 {
			return nil
		}
	}
	return errors.New("atom." + in.Atom.String() + "." + t.String())
}

// atomApply is the new memory value of an atomic operation on old with
// operands b (and c for cas).
func atomApply(in *ptx.Inst, old, b, c uint64) uint64 {
	t := in.Type
	n := t.Bits()
	switch in.Atom {
	case ptx.AtomAdd:
		switch t {
		case ptx.TypeF32:
			// atom.add.f32 rounds to nearest even and flushes subnormal
			// inputs and results to zero (PTX ISA).
			return r32(ftz32(ftz32(f32(old)) + ftz32(f32(b))))
		case ptx.TypeF64:
			return r64(f64(old) + f64(b))
		}
		return zx(old+b, n)
	case ptx.AtomMin, ptx.AtomMax:
		isMax := in.Atom == ptx.AtomMax
		switch {
		case t == ptx.TypeF32:
			v, isNaN := fminmax(float64(f32(old)), float64(f32(b)), isMax, false)
			if isNaN {
				return CanonicalNaN32
			}
			return r32(float32(v))
		case t == ptx.TypeF64:
			v, _ := fminmax(f64(old), f64(b), isMax, false)
			return r64(v)
		case t.IsSigned():
			x, y := sx(old, n), sx(b, n)
			if (y < x) != isMax && y != x {
				return zx(uint64(y), n)
			}
			return zx(uint64(x), n)
		default:
			x, y := zx(old, n), zx(b, n)
			if (y < x) != isMax && y != x {
				return y
			}
			return x
		}
	case ptx.AtomInc:
		o, lim := zx(old, 32), zx(b, 32)
		if o >= lim {
			return 0
		}
		return o + 1
	case ptx.AtomDec:
		o, lim := zx(old, 32), zx(b, 32)
		if o == 0 || o > lim {
			return lim
		}
		return o - 1
	case ptx.AtomAnd:
		return zx(old&b, n)
	case ptx.AtomOr:
		return zx(old|b, n)
	case ptx.AtomXor:
		return zx(old^b, n)
	case ptx.AtomExch:
		return zx(b, n)
	case ptx.AtomCas:
		if zx(old, n) == zx(b, n) {
			return zx(c, n)
		}
		return zx(old, n)
	}
	return old
}
