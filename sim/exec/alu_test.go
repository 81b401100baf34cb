package exec

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ALU opcode tests: every case is a PTX snippet run by 64 threads, each on
// its own inputs (a, b, c), compared with a Go reference. Inputs reach the
// snippet as %rd1-3 (u64), %r1-3 (their low halves), %r4-6 (their high
// halves), %f1-3 (low halves as f32), %fd1-3 (as f64) and %p1 (c != 0);
// the snippet leaves its result in the register named by res.

const aluTemplate = `
.version 7.0
.target sm_70
.address_size 64
.visible .entry alu(.param .u64 out, .param .u64 in)
{
	.reg .pred %p<8>;
	.reg .b16 %h<8>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<32>;
	.reg .f32 %f<16>;
	.reg .f64 %fd<16>;
	ld.param.u64 %rd20, [out];
	ld.param.u64 %rd21, [in];
	mov.u32 %r15, %tid.x;
	mul.wide.u32 %rd22, %r15, 24;
	add.s64 %rd23, %rd21, %rd22;
	ld.global.u64 %rd1, [%rd23];
	ld.global.u64 %rd2, [%rd23+8];
	ld.global.u64 %rd3, [%rd23+16];
	cvt.u32.u64 %r1, %rd1;
	cvt.u32.u64 %r2, %rd2;
	cvt.u32.u64 %r3, %rd3;
	mov.b64 {%r12, %r4}, %rd1;
	mov.b64 {%r12, %r5}, %rd2;
	mov.b64 {%r12, %r6}, %rd3;
	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	mov.b32 %f3, %r3;
	mov.b64 %fd1, %rd1;
	mov.b64 %fd2, %rd2;
	mov.b64 %fd3, %rd3;
	setp.ne.u64 %p1, %rd3, 0;
	mov.u64 %rd10, 0;
BODY
	mul.wide.u32 %rd24, %r15, 8;
	add.s64 %rd25, %rd20, %rd24;
	st.global.u64 [%rd25], %rd10;
	ret;
}`

// intVals are the integer inputs: edges of every width.
var intVals = []uint64{
	0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 100, 0x80, 0xFF, 0x8000,
	0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0xFFFFFFF9, 0x12345678, 0x9ABCDEF0, 0x0F0F0F0F,
	1 << 63, 1<<63 - 1, math.MaxUint64, 0xFFFFFFFF00000000, 1 << 32, 0xDEADBEEFCAFEBABE,
	0xFFFFFFFFFFFFFFF9, 5, 0x00000001FFFFFFFF, 0x8000000080000000,
}

func f32b(f float32) uint64 { return uint64(math.Float32bits(f)) }

// f32Vals are float32 inputs (bits), specials included.
var f32Vals = []uint64{
	f32b(0), f32b(float32(math.Copysign(0, -1))), f32b(1), f32b(-1), f32b(1.5), f32b(-2.25), f32b(3), f32b(0.1),
	f32b(1e-40), f32b(-1e-41), 0x7FC00000, f32b(float32(math.Inf(1))), f32b(float32(math.Inf(-1))), f32b(math.MaxFloat32),
	f32b(1.1754944e-38), f32b(1e30), f32b(-1e30), f32b(16777217), f32b(0.5), f32b(2), f32b(100.75), f32b(-0.3),
	f32b(7), f32b(1.0 / 3), f32b(1e-20), f32b(123456.78), f32b(-5e-39), f32b(4), f32b(2147483648), f32b(-2147483904),
	f32b(4294967296), f32b(-0.5),
}

var f64Vals = []uint64{
	math.Float64bits(0), math.Float64bits(math.Copysign(0, -1)), math.Float64bits(1), math.Float64bits(-1),
	math.Float64bits(1.5), math.Float64bits(-2.25), math.Float64bits(0.1), math.Float64bits(1e-310),
	math.Float64bits(math.NaN()), math.Float64bits(math.Inf(1)), math.Float64bits(math.Inf(-1)), math.Float64bits(math.MaxFloat64),
	math.Float64bits(1e300), math.Float64bits(-1e300), math.Float64bits(3.4028235677973366e38), math.Float64bits(1e-45),
	math.Float64bits(0.5), math.Float64bits(2), math.Float64bits(-0.3), math.Float64bits(1.0 / 3),
	math.Float64bits(16777217), math.Float64bits(1 + 1.0/(1<<24)), math.Float64bits(1 + 3.0/(1<<25)), math.Float64bits(-1 - 1.0/(1<<24)),
	math.Float64bits(2.5), math.Float64bits(-2.5), math.Float64bits(3.5), math.Float64bits(9.2233720368547758e18),
	math.Float64bits(-9.3e18), math.Float64bits(4.5e15), math.Float64bits(1e20), math.Float64bits(-0.75),
}

type inputSet int

const (
	intIn inputSet = iota
	f32In
	f64In
)

// triple returns thread t's inputs.
func triple(set inputSet, t int) (a, b, c uint64) {
	vals := intVals
	switch set {
	case f32In:
		vals = f32Vals
	case f64In:
		vals = f64Vals
	}
	n := len(vals)
	return vals[t%n], vals[(t/n+t*5+1)%n], vals[(t*11+7)%n]
}

type aluCase struct {
	name string
	in   inputSet
	body string
	res  string // r10, rd10, p2, f10, fd10
	ref  func(a, b, c uint64) uint64
	// tol, for approximate float results: relative error allowed.
	tol float64
}

func u32(v uint64) uint32 { return uint32(v) }
func s32(v uint64) int32  { return int32(uint32(v)) }
func hi32(v uint64) uint64 {
	return v >> 32
}
func ff(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func fd(v uint64) float64 { return math.Float64frombits(v) }

// nan32 canonicalises NaN results as the hardware does.
func nan32(f float32) uint64 {
	if f != f {
		return 0x7FFFFFFF
	}
	return f32b(f)
}

func bo(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// exactFMA32 is x*y+z rounded once.
func exactFMA32(x, y, z float32) float32 {
	if math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) || x != x || y != y || z != z {
		return float32(float64(x)*float64(y) + float64(z))
	}
	p := new(big.Float).SetPrec(400).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(400).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(400).SetFloat64(float64(z)))
	f, _ := p.Float32()
	if f == 0 && p.Signbit() {
		return float32(math.Copysign(0, -1))
	}
	if f == 0 && p.Sign() == 0 {
		return float32(float64(x)*float64(y) + float64(z)) // exact zero: IEEE sign rules
	}
	return f
}

func satInt(v *big.Int, lo, hi int64) int64 {
	if v.Cmp(big.NewInt(lo)) < 0 {
		return lo
	}
	if v.Cmp(big.NewInt(hi)) > 0 {
		return hi
	}
	return v.Int64()
}

// f2i converts with PTX semantics: round by mode, saturate, NaN -> 0.
func f2i(f float64, mode string, signed bool, n int) uint64 {
	if f != f {
		return 0
	}
	switch mode {
	case "rni":
		f = math.RoundToEven(f)
	case "rzi":
		f = math.Trunc(f)
	case "rmi":
		f = math.Floor(f)
	case "rpi":
		f = math.Ceil(f)
	}
	bf, _ := new(big.Float).SetFloat64(f).Int(nil)
	if math.IsInf(f, 1) {
		bf = new(big.Int).Lsh(big.NewInt(1), 70)
	} else if math.IsInf(f, -1) {
		bf = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 70))
	}
	if signed {
		lo, hi := big.NewInt(-1), big.NewInt(1)
		lo.Lsh(lo, uint(n-1))
		hi.Lsh(hi, uint(n-1)).Sub(hi, big.NewInt(1))
		if bf.Cmp(lo) < 0 {
			bf = lo
		} else if bf.Cmp(hi) > 0 {
			bf = hi
		}
		return uint64(bf.Int64()) & (1<<uint(n) - 1 | bo(n == 64)*math.MaxUint64)
	}
	hi := new(big.Int).Lsh(big.NewInt(1), uint(n))
	hi.Sub(hi, big.NewInt(1))
	if bf.Sign() < 0 {
		return 0
	}
	if bf.Cmp(hi) > 0 {
		bf = hi
	}
	return bf.Uint64()
}

// i2f32 converts an exact integer to float32 with a rounding mode.
func i2f(v *big.Int, mode big.RoundingMode, prec uint) *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(mode).SetInt(v)
}

func bigS(v uint64, n int) *big.Int {
	return big.NewInt(int64(v<<(64-uint(n))) >> (64 - uint(n)))
}
func bigU(v uint64) *big.Int { return new(big.Int).SetUint64(v) }

// f64to32 rounds a float64 to float32 with a mode: Go's conversion rounds
// to nearest even (subnormals included); a directed mode steps to the
// neighbour on the required side when the nearest one is on the wrong side.
func f64to32(x float64, mode big.RoundingMode) float32 {
	r := float32(x)
	if x != x {
		return r
	}
	d := float64(r)
	switch mode {
	case big.ToZero:
		if math.Abs(d) > math.Abs(x) {
			r = math.Nextafter32(r, 0)
		}
	case big.ToNegativeInf:
		if d > x {
			r = math.Nextafter32(r, float32(math.Inf(-1)))
		}
	case big.ToPositiveInf:
		if d < x {
			r = math.Nextafter32(r, float32(math.Inf(1)))
		}
	}
	return r
}

func fminPTX(a, b float64, isMax bool) (float64, bool) {
	switch {
	case a != a && b != b:
		return 0, true
	case a != a:
		return b, false
	case b != b:
		return a, false
	}
	if a == 0 && b == 0 {
		if isMax == math.Signbit(a) {
			return b, false
		}
		return a, false
	}
	if isMax {
		return math.Max(a, b), false
	}
	return math.Min(a, b), false
}

var aluCases = []aluCase{
	// Integer add/sub and saturation.
	{name: "add.s32", body: "add.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) + u32(b)) }},
	{name: "add.u64", body: "add.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return a + b }},
	{name: "sub.s32", body: "sub.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) - u32(b)) }},
	{name: "sub.s64", body: "sub.s64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return a - b }},
	{name: "add.sat.s32", body: "add.sat.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(satInt(big.NewInt(int64(s32(a))+int64(s32(b))), math.MinInt32, math.MaxInt32)))
	}},
	{name: "sub.sat.s32", body: "sub.sat.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(satInt(big.NewInt(int64(s32(a))-int64(s32(b))), math.MinInt32, math.MaxInt32)))
	}},
	{name: "add.s32 immediate", body: "add.s32 %r10, %r1, -5;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) - 5) }},
	// Multiplication.
	{name: "mul.lo.s32", body: "mul.lo.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) * u32(b)) }},
	{name: "mul.hi.s32", body: "mul.hi.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32((int64(s32(a)) * int64(s32(b))) >> 32))
	}},
	{name: "mul.hi.u32", body: "mul.hi.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return (uint64(u32(a)) * uint64(u32(b))) >> 32
	}},
	{name: "mul.wide.s32", body: "mul.wide.s32 %rd10, %r1, %r2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(int64(s32(a)) * int64(s32(b))) }},
	{name: "mul.wide.u32", body: "mul.wide.u32 %rd10, %r1, %r2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a)) * uint64(u32(b)) }},
	{name: "mul.wide.u16", body: "cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2; mul.wide.u16 %r10, %h1, %h2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(uint16(a)) * uint32(uint16(b)))
	}},
	{name: "mul.lo.u64", body: "mul.lo.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return a * b }},
	{name: "mul.hi.u64", body: "mul.hi.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { h, _ := bits.Mul64(a, b); return h }},
	{name: "mul.hi.s64", body: "mul.hi.s64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		p := new(big.Int).Mul(big.NewInt(int64(a)), big.NewInt(int64(b)))
		return uint64(new(big.Int).Rsh(p, 64).Int64())
	}},
	{name: "mad.lo.s32", body: "mad.lo.s32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a)*u32(b) + u32(c)) }},
	{name: "mad.hi.u32", body: "mad.hi.u32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32((uint64(u32(a))*uint64(u32(b)))>>32) + u32(c))
	}},
	{name: "mad.wide.s32", body: "mad.wide.s32 %rd10, %r1, %r2, %rd3;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(int64(s32(a))*int64(s32(b))) + c }},
	{name: "mad.wide.u32", body: "mad.wide.u32 %rd10, %r1, %r2, %rd3;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a))*uint64(u32(b)) + c }},
	{name: "mad.lo.s64", body: "mad.lo.s64 %rd10, %rd1, %rd2, %rd3;", res: "rd10", ref: func(a, b, c uint64) uint64 { return a*b + c }},
	{name: "mul24.lo.s32", body: "mul24.lo.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x, y := int64(int32(u32(a)<<8)>>8), int64(int32(u32(b)<<8)>>8)
		return uint64(uint32(x * y))
	}},
	{name: "mul24.hi.u32", body: "mul24.hi.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32((uint64(u32(a)&0xFFFFFF) * uint64(u32(b)&0xFFFFFF)) >> 16))
	}},
	{name: "mad24.lo.u32", body: "mad24.lo.u32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64((u32(a)&0xFFFFFF)*(u32(b)&0xFFFFFF) + u32(c))
	}},
	// Division and remainder, by zero included.
	{name: "div.u32", body: "div.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if u32(b) == 0 {
			return 0xFFFFFFFF
		}
		return uint64(u32(a) / u32(b))
	}},
	{name: "rem.u32", body: "rem.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if u32(b) == 0 {
			return uint64(u32(a))
		}
		return uint64(u32(a) % u32(b))
	}},
	{name: "div.s32", body: "div.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x, y := s32(a), s32(b)
		switch {
		case y == 0: // -1 whatever the sign of x, as the H100 computes it
			return 0xFFFFFFFF
		case x == math.MinInt32 && y == -1:
			return uint64(uint32(x))
		}
		return uint64(uint32(x / y))
	}},
	{name: "rem.s32", body: "rem.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x, y := s32(a), s32(b)
		switch {
		case y == 0:
			return uint64(uint32(x))
		case y == -1:
			return 0
		}
		return uint64(uint32(x % y))
	}},
	{name: "div.u64", body: "div.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if b == 0 {
			return math.MaxUint64
		}
		return a / b
	}},
	{name: "rem.u64", body: "rem.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if b == 0 {
			return a
		}
		return a % b
	}},
	{name: "div.s64", body: "div.s64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		x, y := int64(a), int64(b)
		switch {
		case y == 0: // -1 whatever the sign of x, as the H100 computes it
			return math.MaxUint64
		case x == math.MinInt64 && y == -1:
			return a
		}
		return uint64(x / y)
	}},
	{name: "rem.s64", body: "rem.s64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		x, y := int64(a), int64(b)
		switch {
		case y == 0:
			return a
		case y == -1:
			return 0
		}
		return uint64(x % y)
	}},
	// Abs, neg, min, max, sad.
	{name: "abs.s32", body: "abs.s32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x := s32(a)
		if x < 0 {
			x = -x
		}
		return uint64(uint32(x))
	}},
	{name: "abs.s64", body: "abs.s64 %rd10, %rd1;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if int64(a) < 0 {
			return -a
		}
		return a
	}},
	{name: "neg.s32", body: "neg.s32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(-u32(a)) }},
	{name: "neg.s64", body: "neg.s64 %rd10, %rd1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return -a }},
	{name: "min.s32", body: "min.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(uint32(min(s32(a), s32(b)))) }},
	{name: "max.u32", body: "max.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(max(u32(a), u32(b))) }},
	{name: "max.s32", body: "max.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(uint32(max(s32(a), s32(b)))) }},
	{name: "min.u32", body: "min.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(min(u32(a), u32(b))) }},
	{name: "min.u64", body: "min.u64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return min(a, b) }},
	{name: "max.s64", body: "max.s64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(max(int64(a), int64(b))) }},
	{name: "sad.s32", body: "sad.s32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		d := int64(s32(a)) - int64(s32(b))
		if d < 0 {
			d = -d
		}
		return uint64(uint32(d) + u32(c))
	}},
	{name: "sad.u32", body: "sad.u32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x, y := u32(a), u32(b)
		d := x - y
		if y > x {
			d = y - x
		}
		return uint64(d + u32(c))
	}},
	// Logic and shifts.
	{name: "and.b32", body: "and.b32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) & u32(b)) }},
	{name: "or.b64", body: "or.b64 %rd10, %rd1, %rd2;", res: "rd10", ref: func(a, b, c uint64) uint64 { return a | b }},
	{name: "xor.b32", body: "xor.b32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) ^ u32(b)) }},
	{name: "not.b32", body: "not.b32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(^u32(a)) }},
	{name: "not.b64", body: "not.b64 %rd10, %rd1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return ^a }},
	{name: "cnot.b32", body: "cnot.b32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return bo(u32(a) == 0) }},
	{name: "shl.b32", body: "shl.b32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if u32(b) >= 32 {
			return 0
		}
		return uint64(u32(a) << u32(b))
	}},
	{name: "shl.b64", body: "shl.b64 %rd10, %rd1, %r2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if u32(b) >= 64 {
			return 0
		}
		return a << u32(b)
	}},
	{name: "shr.u32", body: "shr.u32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if u32(b) >= 32 {
			return 0
		}
		return uint64(u32(a) >> u32(b))
	}},
	{name: "shr.s32", body: "shr.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		s := min(u32(b), 31)
		return uint64(uint32(s32(a) >> s))
	}},
	{name: "shr.u64", body: "shr.u64 %rd10, %rd1, %r2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if u32(b) >= 64 {
			return 0
		}
		return a >> u32(b)
	}},
	{name: "shr.s64", body: "shr.s64 %rd10, %rd1, %r2;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		return uint64(int64(a) >> min(u32(b), 63))
	}},
	{name: "shf.l.wrap.b32", body: "shf.l.wrap.b32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		n := u32(c) & 31
		return uint64(uint32((uint64(u32(b))<<32 | uint64(u32(a))) << n >> 32))
	}},
	{name: "shf.r.clamp.b32", body: "shf.r.clamp.b32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		n := min(u32(c), 32)
		return uint64(uint32((uint64(u32(b))<<32 | uint64(u32(a))) >> n))
	}},
	{name: "shf.l.clamp.b32", body: "shf.l.clamp.b32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		n := min(u32(c), 32)
		return uint64(uint32((uint64(u32(b))<<32 | uint64(u32(a))) << n >> 32))
	}},
	{name: "shf.r.wrap.b32", body: "shf.r.wrap.b32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		n := u32(c) & 31
		return uint64(uint32((uint64(u32(b))<<32 | uint64(u32(a))) >> n))
	}},
	// Bit fields and counts.
	{name: "popc.b32", body: "popc.b32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(bits.OnesCount32(u32(a))) }},
	{name: "popc.b64", body: "popc.b64 %r10, %rd1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(bits.OnesCount64(a)) }},
	{name: "clz.b32", body: "clz.b32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(bits.LeadingZeros32(u32(a))) }},
	{name: "clz.b64", body: "clz.b64 %r10, %rd1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(bits.LeadingZeros64(a)) }},
	{name: "brev.b32", body: "brev.b32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(bits.Reverse32(u32(a))) }},
	{name: "brev.b64", body: "brev.b64 %rd10, %rd1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return bits.Reverse64(a) }},
	{name: "bfe.u32", body: "bfe.u32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 { return bfeRef(a, b, c, 32, false) }},
	{name: "bfe.s32", body: "bfe.s32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 { return bfeRef(a, b, c, 32, true) }},
	{name: "bfe.u64", body: "bfe.u64 %rd10, %rd1, %r2, %r3;", res: "rd10", ref: func(a, b, c uint64) uint64 { return bfeRef(a, b, c, 64, false) }},
	{name: "bfe.s64", body: "bfe.s64 %rd10, %rd1, %r2, %r3;", res: "rd10", ref: func(a, b, c uint64) uint64 { return bfeRef(a, b, c, 64, true) }},
	{name: "bfi.b32", body: "bfi.b32 %r10, %r1, %r2, %r3, %r6;", res: "r10", ref: func(a, b, c uint64) uint64 { return bfiRef(a, b, c, hi32(c), 32) }},
	{name: "bfi.b64", body: "bfi.b64 %rd10, %rd1, %rd2, %r3, %r6;", res: "rd10", ref: func(a, b, c uint64) uint64 { return bfiRef(a, b, c, hi32(c), 64) }},
	{name: "bfind.u32", body: "bfind.u32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if u32(a) == 0 {
			return 0xFFFFFFFF
		}
		return uint64(31 - bits.LeadingZeros32(u32(a)))
	}},
	{name: "bfind.s32", body: "bfind.s32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		x := u32(a)
		if s32(a) < 0 {
			x = ^x
		}
		if x == 0 {
			return 0xFFFFFFFF
		}
		return uint64(31 - bits.LeadingZeros32(x))
	}},
	{name: "bfind.shiftamt.u64", body: "bfind.shiftamt.u64 %r10, %rd1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if a == 0 {
			return 0xFFFFFFFF
		}
		return uint64(bits.LeadingZeros64(a))
	}},
	{name: "prmt.b32", body: "prmt.b32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		src := uint64(u32(b))<<32 | uint64(u32(a))
		var r uint32
		for i := 0; i < 4; i++ {
			sel := (u32(c) >> (4 * i)) & 0xF
			byt := uint32(src>>(8*(sel&7))) & 0xFF
			if sel&8 != 0 {
				if byt&0x80 != 0 {
					byt = 0xFF
				} else {
					byt = 0
				}
			}
			r |= byt << (8 * i)
		}
		return uint64(r)
	}},
	// Comparison and selection.
	{name: "setp.lt.s32", body: "setp.lt.s32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(s32(a) < s32(b)) }},
	{name: "setp.le.s32", body: "setp.le.s32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(s32(a) <= s32(b)) }},
	{name: "setp.gt.u32", body: "setp.gt.u32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) > u32(b)) }},
	{name: "setp.ge.u32", body: "setp.ge.u32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) >= u32(b)) }},
	{name: "setp.eq.s32", body: "setp.eq.s32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) == u32(b)) }},
	{name: "setp.ne.b32", body: "setp.ne.b32 %p2, %r1, 7;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) != 7) }},
	{name: "setp.lo.s32", body: "setp.lo.s32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) < u32(b)) }},
	{name: "setp.hs.u64", body: "setp.hs.u64 %p2, %rd1, %rd2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(a >= b) }},
	{name: "setp.lt.s64", body: "setp.lt.s64 %p2, %rd1, %rd2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(int64(a) < int64(b)) }},
	{name: "setp.gt.u64", body: "setp.gt.u64 %p2, %rd1, %rd2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(a > b) }},
	{name: "setp.ls.u32", body: "setp.ls.u32 %p2, %r1, %r2;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(u32(a) <= u32(b)) }},
	{name: "setp.lt.and.s32 two results", body: `setp.lt.and.s32 %p2|%p3, %r1, %r2, %p1;
	selp.u32 %r10, 1, 0, %p2;
	selp.u32 %r11, 2, 0, %p3;
	or.b32 %r10, %r10, %r11;`, res: "r10", ref: func(a, b, c uint64) uint64 {
		lt, p := s32(a) < s32(b), c != 0
		return bo(lt && p) | 2*bo(!lt && p)
	}},
	{name: "setp.ne.or.u64", body: "setp.ne.or.u64 %p2, %rd1, %rd2, %p1;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(a != b || c != 0) }},
	{name: "setp.ge.xor.s32 negated", body: "setp.ge.xor.s32 %p2, %r1, %r2, !%p1;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo((s32(a) >= s32(b)) != (c == 0)) }},
	{name: "set.lt.u32.s32", body: "set.lt.u32.s32 %r10, %r1, %r2;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if s32(a) < s32(b) {
			return 0xFFFFFFFF
		}
		return 0
	}},
	{name: "selp.b32", body: "selp.b32 %r10, %r1, %r2, %p1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if c != 0 {
			return uint64(u32(a))
		}
		return uint64(u32(b))
	}},
	{name: "selp.b64", body: "selp.b64 %rd10, %rd1, %rd2, !%p1;", res: "rd10", ref: func(a, b, c uint64) uint64 {
		if c == 0 {
			return a
		}
		return b
	}},
	{name: "slct.s32.s32", body: "slct.s32.s32 %r10, %r1, %r2, %r3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if s32(c) >= 0 {
			return uint64(u32(a))
		}
		return uint64(u32(b))
	}},
	{name: "pred logic", body: `setp.lt.u32 %p2, %r1, %r2;
	and.pred %p3, %p1, %p2;
	or.pred %p4, %p1, %p2;
	xor.pred %p5, %p1, %p2;
	not.pred %p6, %p5;
	selp.u32 %r10, 1, 0, %p3;
	selp.u32 %r11, 2, 0, %p4;
	add.s32 %r10, %r10, %r11;
	selp.u32 %r11, 4, 0, %p5;
	add.s32 %r10, %r10, %r11;
	selp.u32 %r11, 8, 0, %p6;
	add.s32 %r10, %r10, %r11;`, res: "r10", ref: func(a, b, c uint64) uint64 {
		p1, p2 := c != 0, u32(a) < u32(b)
		return bo(p1 && p2) + 2*bo(p1 || p2) + 4*bo(p1 != p2) + 8*bo(p1 == p2)
	}},
	// Conversions between integers.
	{name: "cvt.u64.u32", body: "cvt.u64.u32 %rd10, %r1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a)) }},
	{name: "cvt.s64.s32", body: "cvt.s64.s32 %rd10, %r1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return uint64(int64(s32(a))) }},
	{name: "cvt.u32.u64", body: "cvt.u32.u64 %r10, %rd1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a)) }},
	{name: "cvt.s32.s16", body: "cvt.u16.u32 %h1, %r1; cvt.s32.s16 %r10, %h1;", res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(uint32(int32(int16(a)))) }},
	{name: "cvt.u32.u8", body: "cvt.u32.u8 %r10, %h0;", res: "r10", ref: func(a, b, c uint64) uint64 { return 0 }},
	{name: "cvt.sat.s16.s32", body: "cvt.sat.s16.s32 %h1, %r1; cvt.s32.s16 %r10, %h1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(satInt(big.NewInt(int64(s32(a))), math.MinInt16, math.MaxInt16)))
	}},
	{name: "cvt.sat.u32.s64", body: "cvt.sat.u32.s64 %r10, %rd1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(satInt(big.NewInt(int64(a)), 0, math.MaxUint32)))
	}},
	{name: "cvt.sat.s32.u32", body: "cvt.sat.s32.u32 %r10, %r1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(min(u32(a), math.MaxInt32))
	}},
	{name: "mov pack and unpack", body: `mov.b64 {%r7, %r8}, %rd1;
	mov.b64 %rd10, {%r8, %r7};`, res: "rd10", ref: func(a, b, c uint64) uint64 { return a<<32 | a>>32 }},
	{name: "mov.b32 pack of b16", body: `cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2;
	mov.b32 %r10, {%h1, %h2};`, res: "r10", ref: func(a, b, c uint64) uint64 { return uint64(uint16(b))<<16 | uint64(uint16(a)) }},
	{name: "add.cc and addc (64-bit add in halves)", body: `add.cc.u32 %r7, %r1, %r2;
	addc.u32 %r8, %r4, %r5;
	mov.b64 %rd10, {%r7, %r8};`, res: "rd10", ref: func(a, b, c uint64) uint64 { return a + b }},
	{name: "sub.cc and subc (64-bit sub in halves)", body: `sub.cc.u32 %r7, %r1, %r2;
	subc.u32 %r8, %r4, %r5;
	mov.b64 %rd10, {%r7, %r8};`, res: "rd10", ref: func(a, b, c uint64) uint64 { return a - b }},

	// Float32.
	{name: "add.f32", in: f32In, body: "add.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) + ff(b)) }},
	{name: "sub.f32", in: f32In, body: "sub.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) - ff(b)) }},
	{name: "mul.f32", in: f32In, body: "mul.rn.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) * ff(b)) }},
	{name: "add.ftz.f32", in: f32In, body: "add.ftz.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		return nan32(ftzRef(ftzRef(ff(a)) + ftzRef(ff(b))))
	}},
	{name: "mul.sat.f32", in: f32In, body: "mul.sat.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		r := ff(a) * ff(b)
		switch {
		case r != r || r < 0:
			r = 0
		case r > 1:
			r = 1
		}
		return f32b(r)
	}},
	{name: "fma.rn.f32", in: f32In, body: "fma.rn.f32 %f10, %f1, %f2, %f3;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(exactFMA32(ff(a), ff(b), ff(c))) }},
	{name: "mad.rn.f32", in: f32In, body: "mad.rn.f32 %f10, %f1, %f2, %f3;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(exactFMA32(ff(a), ff(b), ff(c))) }},
	{name: "div.rn.f32", in: f32In, body: "div.rn.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) / ff(b)) }},
	{name: "div.full.f32", in: f32In, body: "div.full.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) / ff(b)) }, tol: 1e-6},
	{name: "div.approx.f32", in: f32In, body: "div.approx.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(ff(a) / ff(b)) }, tol: 1e-6},
	{name: "abs.f32", in: f32In, body: "abs.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) &^ 0x80000000) }},
	{name: "neg.f32", in: f32In, body: "neg.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return uint64(u32(a) ^ 0x80000000) }},
	{name: "min.f32", in: f32In, body: "min.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		r, nan := fminPTX(float64(ff(a)), float64(ff(b)), false)
		if nan {
			return 0x7FFFFFFF
		}
		return f32b(float32(r))
	}},
	{name: "max.f32", in: f32In, body: "max.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		r, nan := fminPTX(float64(ff(a)), float64(ff(b)), true)
		if nan {
			return 0x7FFFFFFF
		}
		return f32b(float32(r))
	}},
	{name: "rcp.rn.f32", in: f32In, body: "rcp.rn.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(1 / ff(a)) }},
	{name: "rcp.approx.f32", in: f32In, body: "rcp.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(1 / ff(a)) }, tol: 1e-6},
	{name: "sqrt.rn.f32", in: f32In, body: "sqrt.rn.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Sqrt(float64(ff(a))))) }},
	{name: "sqrt.approx.f32", in: f32In, body: "sqrt.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Sqrt(float64(ff(a))))) }, tol: 1e-6},
	{name: "rsqrt.approx.f32", in: f32In, body: "rsqrt.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(1 / math.Sqrt(float64(ff(a))))) }, tol: 1e-6},
	{name: "ex2.approx.f32", in: f32In, body: "ex2.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Exp2(float64(ff(a))))) }, tol: 1e-6},
	{name: "ex2.approx.ftz.f32", in: f32In, body: "ex2.approx.ftz.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		return nan32(ftzRef(float32(math.Exp2(float64(ftzRef(ff(a)))))))
	}, tol: 1e-6},
	{name: "lg2.approx.f32", in: f32In, body: "lg2.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Log2(float64(ff(a))))) }, tol: 1e-6},
	{name: "sin.approx.f32", in: f32In, body: "sin.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Sin(float64(ff(a))))) }, tol: 1e-6},
	{name: "cos.approx.f32", in: f32In, body: "cos.approx.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.Cos(float64(ff(a))))) }, tol: 1e-6},
	{name: "copysign.f32", in: f32In, body: "copysign.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		return uint64(u32(b)&^0x80000000 | u32(a)&0x80000000)
	}},
	{name: "testp.finite.f32", in: f32In, body: "testp.finite.f32 %p2, %f1;", res: "p2", ref: func(a, b, c uint64) uint64 {
		x := float64(ff(a))
		return bo(!math.IsInf(x, 0) && x == x)
	}},
	{name: "testp.subnormal.f32", in: f32In, body: "testp.subnormal.f32 %p2, %f1;", res: "p2", ref: func(a, b, c uint64) uint64 {
		x := u32(a)
		return bo(x&0x7F800000 == 0 && x&0x7FFFFF != 0)
	}},
	{name: "testp.notanumber.f32", in: f32In, body: "testp.notanumber.f32 %p2, %f1;", res: "p2", ref: func(a, b, c uint64) uint64 { return bo(ff(a) != ff(a)) }},
	{name: "set.gt.f32.f32", in: f32In, body: "set.gt.f32.f32 %f10, %f1, %f2;", res: "f10", ref: func(a, b, c uint64) uint64 {
		if ff(a) > ff(b) {
			return f32b(1)
		}
		return 0
	}},
	{name: "slct.b32.f32", in: f32In, body: "slct.b32.f32 %r10, %r1, %r2, %f3;", res: "r10", ref: func(a, b, c uint64) uint64 {
		if ff(c) >= 0 {
			return uint64(u32(a))
		}
		return uint64(u32(b))
	}},
	// Float conversions.
	{name: "cvt.rni.s32.f32", in: f32In, body: "cvt.rni.s32.f32 %r10, %f1;", res: "r10", ref: func(a, b, c uint64) uint64 { return f2i(float64(ff(a)), "rni", true, 32) }},
	{name: "cvt.rzi.s32.f32", in: f32In, body: "cvt.rzi.s32.f32 %r10, %f1;", res: "r10", ref: func(a, b, c uint64) uint64 { return f2i(float64(ff(a)), "rzi", true, 32) }},
	{name: "cvt.rmi.u32.f32", in: f32In, body: "cvt.rmi.u32.f32 %r10, %f1;", res: "r10", ref: func(a, b, c uint64) uint64 { return f2i(float64(ff(a)), "rmi", false, 32) }},
	{name: "cvt.rpi.s64.f32", in: f32In, body: "cvt.rpi.s64.f32 %rd10, %f1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return f2i(float64(ff(a)), "rpi", true, 64) }},
	{name: "cvt.rzi.u64.f64", in: f64In, body: "cvt.rzi.u64.f64 %rd10, %fd1;", res: "rd10", ref: func(a, b, c uint64) uint64 { return f2i(fd(a), "rzi", false, 64) }},
	{name: "cvt.rni.s32.f64", in: f64In, body: "cvt.rni.s32.f64 %r10, %fd1;", res: "r10", ref: func(a, b, c uint64) uint64 { return f2i(fd(a), "rni", true, 32) }},
	{name: "cvt.rzi.s16.f32", in: f32In, body: "cvt.rzi.s16.f32 %h1, %f1; cvt.s32.s16 %r10, %h1;", res: "r10", ref: func(a, b, c uint64) uint64 {
		return uint64(uint32(int32(int16(f2i(float64(ff(a)), "rzi", true, 16)))))
	}},
	{name: "cvt.rn.f32.s32", body: "cvt.rn.f32.s32 %f10, %r1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigS(a, 32), big.ToNearestEven, 24).Float32()
		return f32b(f)
	}},
	{name: "cvt.rz.f32.u32", body: "cvt.rz.f32.u32 %f10, %r1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigU(uint64(u32(a))), big.ToZero, 24).Float32()
		return f32b(f)
	}},
	{name: "cvt.rm.f32.s64", body: "cvt.rm.f32.s64 %f10, %rd1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigS(a, 64), big.ToNegativeInf, 24).Float32()
		return f32b(f)
	}},
	{name: "cvt.rp.f32.u64", body: "cvt.rp.f32.u64 %f10, %rd1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigU(a), big.ToPositiveInf, 24).Float32()
		return f32b(f)
	}},
	{name: "cvt.rn.f32.u64", body: "cvt.rn.f32.u64 %f10, %rd1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigU(a), big.ToNearestEven, 24).Float32()
		return f32b(f)
	}},
	{name: "cvt.rn.f64.s64", body: "cvt.rn.f64.s64 %fd10, %rd1;", res: "fd10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigS(a, 64), big.ToNearestEven, 53).Float64()
		return math.Float64bits(f)
	}},
	{name: "cvt.rz.f64.u64", body: "cvt.rz.f64.u64 %fd10, %rd1;", res: "fd10", ref: func(a, b, c uint64) uint64 {
		f, _ := i2f(bigU(a), big.ToZero, 53).Float64()
		return math.Float64bits(f)
	}},
	{name: "cvt.f64.f32", in: f32In, body: "cvt.f64.f32 %fd10, %f1;", res: "fd10", ref: func(a, b, c uint64) uint64 {
		x := float64(ff(a))
		if x != x {
			return math.Float64bits(x)
		}
		return math.Float64bits(x)
	}},
	{name: "cvt.rn.f32.f64", in: f64In, body: "cvt.rn.f32.f64 %f10, %fd1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(f64to32(fd(a), big.ToNearestEven)) }},
	{name: "cvt.rz.f32.f64", in: f64In, body: "cvt.rz.f32.f64 %f10, %fd1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(f64to32(fd(a), big.ToZero)) }},
	{name: "cvt.rm.f32.f64", in: f64In, body: "cvt.rm.f32.f64 %f10, %fd1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(f64to32(fd(a), big.ToNegativeInf)) }},
	{name: "cvt.rp.f32.f64", in: f64In, body: "cvt.rp.f32.f64 %f10, %fd1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(f64to32(fd(a), big.ToPositiveInf)) }},
	{name: "cvt.rni.f32.f32", in: f32In, body: "cvt.rni.f32.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 { return nan32(float32(math.RoundToEven(float64(ff(a))))) }},
	{name: "cvt.rmi.f64.f64", in: f64In, body: "cvt.rmi.f64.f64 %fd10, %fd1;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(math.Floor(fd(a))) }},
	{name: "cvt.sat.f32.f32", in: f32In, body: "cvt.sat.f32.f32 %f10, %f1;", res: "f10", ref: func(a, b, c uint64) uint64 {
		x := ff(a)
		switch {
		case x != x || x < 0:
			x = 0
		case x > 1:
			x = 1
		}
		return f32b(x)
	}},
	// Float64.
	{name: "add.f64", in: f64In, body: "add.f64 %fd10, %fd1, %fd2;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(fd(a) + fd(b)) }},
	{name: "mul.f64", in: f64In, body: "mul.rn.f64 %fd10, %fd1, %fd2;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(fd(a) * fd(b)) }},
	{name: "fma.rn.f64", in: f64In, body: "fma.rn.f64 %fd10, %fd1, %fd2, %fd3;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(math.FMA(fd(a), fd(b), fd(c))) }},
	{name: "div.rn.f64", in: f64In, body: "div.rn.f64 %fd10, %fd1, %fd2;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(fd(a) / fd(b)) }},
	{name: "sqrt.rn.f64", in: f64In, body: "sqrt.rn.f64 %fd10, %fd1;", res: "fd10", ref: func(a, b, c uint64) uint64 { return math.Float64bits(math.Sqrt(fd(a))) }},
	{name: "neg.f64", in: f64In, body: "neg.f64 %fd10, %fd1;", res: "fd10", ref: func(a, b, c uint64) uint64 { return a ^ 1<<63 }},
	{name: "max.f64", in: f64In, body: "max.f64 %fd10, %fd1, %fd2;", res: "fd10", ref: func(a, b, c uint64) uint64 {
		r, nan := fminPTX(fd(a), fd(b), true)
		if nan {
			return math.Float64bits(math.NaN())
		}
		return math.Float64bits(r)
	}},
}

// Float32 comparisons: every operator, ordered and unordered.
func init() {
	cmps := []struct {
		op string
		f  func(x, y float64) bool
	}{
		{"eq", func(x, y float64) bool { return x == y }},
		{"ne", func(x, y float64) bool { return x == x && y == y && x != y }},
		{"lt", func(x, y float64) bool { return x < y }},
		{"le", func(x, y float64) bool { return x <= y }},
		{"gt", func(x, y float64) bool { return x > y }},
		{"ge", func(x, y float64) bool { return x >= y }},
		{"equ", func(x, y float64) bool { return x != x || y != y || x == y }},
		{"neu", func(x, y float64) bool { return x != y }},
		{"ltu", func(x, y float64) bool { return x != x || y != y || x < y }},
		{"leu", func(x, y float64) bool { return x != x || y != y || x <= y }},
		{"gtu", func(x, y float64) bool { return x != x || y != y || x > y }},
		{"geu", func(x, y float64) bool { return x != x || y != y || x >= y }},
		{"num", func(x, y float64) bool { return x == x && y == y }},
		{"nan", func(x, y float64) bool { return x != x || y != y }},
	}
	for _, c := range cmps {
		aluCases = append(aluCases,
			aluCase{name: "setp." + c.op + ".f32", in: f32In, body: fmt.Sprintf("setp.%s.f32 %%p2, %%f1, %%f2;", c.op), res: "p2",
				ref: func(a, b, _ uint64) uint64 { return bo(c.f(float64(ff(a)), float64(ff(b)))) }},
			aluCase{name: "setp." + c.op + ".f64", in: f64In, body: fmt.Sprintf("setp.%s.f64 %%p2, %%fd1, %%fd2;", c.op), res: "p2",
				ref: func(a, b, _ uint64) uint64 { return bo(c.f(fd(a), fd(b))) }})
	}
}

func ftzRef(f float32) float32 {
	b := math.Float32bits(f)
	if b&0x7F800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return f
}

func bfeRef(a, b, c uint64, n int, signed bool) uint64 {
	pos, ln := int(b&0xFF), int(c&0xFF)
	if n == 32 {
		a = uint64(u32(a))
	}
	var sbit uint64
	if signed && ln > 0 {
		sbit = (a >> uint(min(pos+ln-1, n-1))) & 1
	}
	var r uint64
	for i := 0; i < n; i++ {
		bit := sbit
		if i < ln && pos+i < n {
			bit = (a >> uint(pos+i)) & 1
		}
		r |= bit << uint(i)
	}
	return r
}

func bfiRef(a, b, c, d uint64, n int) uint64 {
	pos, ln := int(c&0xFF), int(d&0xFF)
	r := b
	if n == 32 {
		r = uint64(u32(b))
	}
	for i := 0; i < ln && pos+i < n; i++ {
		r = r&^(1<<uint(pos+i)) | ((a>>uint(i))&1)<<uint(pos+i)
	}
	return r
}

// resultTail moves the case's result into %rd10.
func resultTail(res string) string {
	switch res {
	case "rd10":
		return ""
	case "r10":
		return "cvt.u64.u32 %rd10, %r10;"
	case "f10":
		return "mov.b32 %r10, %f10; cvt.u64.u32 %rd10, %r10;"
	case "fd10":
		return "mov.b64 %rd10, %fd10;"
	case "p2":
		return "selp.u64 %rd10, 1, 0, %p2;"
	}
	panic("bad result register " + res)
}

func closeEnough(got, want uint64, res string, tol float64) bool {
	if got == want {
		return true
	}
	if tol == 0 {
		return false
	}
	var g, w float64
	if res == "f10" {
		g, w = float64(ff(got)), float64(ff(want))
	} else {
		g, w = fd(got), fd(want)
	}
	if g != g && w != w {
		return true
	}
	if math.IsInf(w, 0) || w == 0 {
		return g == w || math.Abs(g-w) < 1e-37
	}
	return math.Abs(g-w) <= tol*math.Abs(w)
}

func TestALU(t *testing.T) {
	const threads = 64
	for _, tc := range aluCases {
		t.Run(tc.name, func(t *testing.T) {
			both(t, func(t *testing.T, fast bool) {
				src := strings.Replace(aluTemplate, "BODY", "\t"+tc.body+"\n\t"+resultTail(tc.res), 1)
				m := newMachine(t, src, fast)
				in := make([]uint64, 3*threads)
				for i := 0; i < threads; i++ {
					in[3*i], in[3*i+1], in[3*i+2] = triple(tc.in, i)
				}
				pin, pout := m.allocU64(in...), m.zeros(8*threads)
				_, err := m.launch("alu", d1(1, threads), pout, pin)
				require.NoError(t, err)
				out := m.u64s(pout, threads)
				for i := 0; i < threads; i++ {
					a, b, c := in[3*i], in[3*i+1], in[3*i+2]
					want := tc.ref(a, b, c)
					if !closeEnough(out[i], want, tc.res, tc.tol) {
						t.Errorf("thread %d: %s with a=%#x b=%#x c=%#x: got %#x, want %#x", i, tc.body, a, b, c, out[i], want)
					}
				}
			})
		})
	}
}
