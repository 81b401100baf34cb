package sim

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// PTX beyond the project's sm_70 target: redux.sync, match.all with a
// predicate destination, .f16 conversions and div with directed rounding,
// compiled for sm_80 from sim/testdata/sm80.cu and run in both modes.

// TestSM80TestdataFresh recompiles testdata/sm80.cu when clang++-16 is
// present and checks that the committed sm80.ptx matches.
func TestSM80TestdataFresh(t *testing.T) { checkTestdataFreshFor(t, "sm80", "sm_80", "+ptx70") }

func launchSM80(t *testing.T, d *Device, name string, grid, block int, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := d.Launch(ctx, testdataKernel(t, "sm80", name), kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
	require.NoError(t, err)
}

func TestReduxWarpReservation(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		const threads, active = 64, 21 // two warps; lanes 0-20 of each take part
		counts, signed := make([]uint32, threads), make([]int32, threads)
		for i := range counts {
			counts[i] = uint32(i*7%13 + 1)
			signed[i] = int32(i%11) - 6
		}
		tail := zeros[uint32](t, d, 1)
		base, out := zeros[uint32](t, d, threads), zeros[uint32](t, d, 16)
		launchSM80(t, d, "warp_reserve", 1, threads, tail, upload(t, d, counts), upload(t, d, signed), base, out, int32(active))

		got := download[uint32](t, d, out, 16)
		var grand uint32
		for w := range 2 {
			lanes := counts[32*w : 32*w+active]
			var add, or, xor uint32
			and, mn, mx := ^uint32(0), ^uint32(0), uint32(0)
			smin, smax := int32(math.MaxInt32), int32(math.MinInt32)
			for i, c := range lanes {
				add, and, or, xor = add+c, and&c, or|c, xor^c
				mn, mx = min(mn, c), max(mx, c)
				smin, smax = min(smin, signed[32*w+i]), max(smax, signed[32*w+i])
			}
			grand += add
			assert.Equal(t, []uint32{add, mn, mx, and, or, xor, uint32(smin), uint32(smax)}, got[8*w:8*w+8], "warp %d", w)
		}
		assert.Equal(t, []uint32{grand}, download[uint32](t, d, tail, 1), "one reservation per warp of its total")
		bases := download[uint32](t, d, base, threads)
		assert.ElementsMatch(t, []uint32{0, got[0]}, []uint32{bases[0], bases[32]}, "the warps' reservations do not overlap")
		for i := range threads {
			if i%32 < active {
				assert.Equal(t, bases[i/32*32], bases[i], "thread %d sees its warp's base", i)
			}
		}
	})
}

func TestMatchAllPredicate(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		keys := make([]uint32, 64)
		for i := range 32 {
			keys[i] = uint32(i % 3) // warp 0: three groups
			keys[32+i] = 9          // warp 1: one value
		}
		anyOut, allOut, pred := zeros[uint32](t, d, 64), zeros[uint32](t, d, 64), zeros[int32](t, d, 64)
		launchSM80(t, d, "match_groups", 1, 64, upload(t, d, keys), anyOut, allOut, pred)
		anyGot, allGot, predGot := download[uint32](t, d, anyOut, 64), download[uint32](t, d, allOut, 64), download[int32](t, d, pred, 64)
		for i := range 64 {
			var want uint32
			for j := range 32 {
				if keys[i/32*32+j] == keys[i] {
					want |= 1 << j
				}
			}
			assert.Equal(t, want, anyGot[i], "match.any, thread %d", i)
			if i < 32 {
				assert.Equal(t, uint32(0), allGot[i], "match.all over three values, thread %d", i)
				assert.Equal(t, int32(0), predGot[i], "thread %d", i)
			} else {
				assert.Equal(t, ^uint32(0), allGot[i], "match.all over one value, thread %d", i)
				assert.Equal(t, int32(1), predGot[i], "thread %d", i)
			}
		}
	})
}

func TestHalfConversions(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		// Inputs and their f16 encodings (round to nearest even), worked by
		// hand: 1/3 is 0x3555 (0.333251953125); 65520 is past the largest
		// f16 (65504) by half an ulp, so rounds to infinity; 4e-8 rounds to
		// the smallest subnormal 2^-24; 1e-8 to zero; 2049 ties to 2048.
		in := []float32{1.0 / 3, 65520, 4e-8, 1e-8, 2049, -2.5, 65504}
		want := []uint16{0x3555, 0x7C00, 0x0001, 0x0000, 0x6800, 0xC100, 0x7BFF}
		back := []float32{0.333251953125, float32(math.Inf(1)), float32(math.Ldexp(1, -24)), 0, 2048, -2.5, 65504}
		din := make([]float64, len(in))
		for i, v := range in {
			din[i] = float64(v)
		}
		n := len(in)
		hb, fb, db := zeros[uint16](t, d, n), zeros[float32](t, d, n), zeros[float32](t, d, n)
		launchSM80(t, d, "to_half", 1, n, upload(t, d, in), upload(t, d, din), hb, fb, db)
		assert.Equal(t, want, download[uint16](t, d, hb, n))
		assert.Equal(t, back, download[float32](t, d, fb, n))
		assert.Equal(t, back, download[float32](t, d, db, n))
	})
}

func TestDivDirectedRounding(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		a := []float32{1, -1, 2, 6, 1}
		b := []float32{3, 3, 3, 3, 10}
		// rn, rz, rm, rp of each quotient (IEEE bits worked by hand).
		want := [][4]uint32{
			{0x3EAAAAAB, 0x3EAAAAAA, 0x3EAAAAAA, 0x3EAAAAAB}, // 1/3
			{0xBEAAAAAB, 0xBEAAAAAA, 0xBEAAAAAB, 0xBEAAAAAA}, // -1/3
			{0x3F2AAAAB, 0x3F2AAAAA, 0x3F2AAAAA, 0x3F2AAAAB}, // 2/3
			{0x40000000, 0x40000000, 0x40000000, 0x40000000}, // 6/3 is exact
			{0x3DCCCCCD, 0x3DCCCCCC, 0x3DCCCCCC, 0x3DCCCCCD}, // 1/10
		}
		wantD := [][4]uint64{
			{0x3FD5555555555555, 0x3FD5555555555555, 0x3FD5555555555555, 0x3FD5555555555556},
			{0xBFD5555555555555, 0xBFD5555555555555, 0xBFD5555555555556, 0xBFD5555555555555},
			{0x3FE5555555555555, 0x3FE5555555555555, 0x3FE5555555555555, 0x3FE5555555555556},
			{0x4000000000000000, 0x4000000000000000, 0x4000000000000000, 0x4000000000000000},
			{0x3FB999999999999A, 0x3FB9999999999999, 0x3FB9999999999999, 0x3FB999999999999A},
		}
		n := len(a)
		da, db := make([]float64, n), make([]float64, n)
		for i := range a {
			da[i], db[i] = float64(a[i]), float64(b[i])
		}
		out, dout := zeros[uint32](t, d, 4*n), zeros[uint64](t, d, 4*n)
		launchSM80(t, d, "div_directed", 1, n, upload(t, d, a), upload(t, d, b), out, upload(t, d, da), upload(t, d, db), dout)
		got, gotD := download[uint32](t, d, out, 4*n), download[uint64](t, d, dout, 4*n)
		for i := range n {
			assert.Equal(t, want[i][:], got[4*i:4*i+4], "%g/%g f32 rn rz rm rp", a[i], b[i])
			assert.Equal(t, wantD[i][:], gotD[4*i:4*i+4], "%g/%g f64 rn rz rm rp", a[i], b[i])
		}
	})
}

// badModule has two kernels with three unsupported instructions between
// them, one in a device function both call.
const badModule = `
.version 7.0
.target sm_70
.address_size 64
.file 1 "./bad.cu"
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

// TestLoadReportsEveryUnsupportedInstruction: loading a module names
// every instruction it cannot run, each once, with its CUDA source line,
// even when the kernel launched is not the one that holds it.
func TestLoadReportsEveryUnsupportedInstruction(t *testing.T) {
	m, err := kernels.ParseModule("bad", []byte(badModule))
	require.NoError(t, err)
	d := tinyDevice(t)
	var first *kernels.Kernel
	for _, k := range m.Kernels {
		if k.Name == "first" {
			first = k
		}
	}
	require.NotNil(t, first)
	err = d.Load(first)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"(./bad.cu:3) `add.f16", "(./bad.cu:7) `add.rz.f32", "(./bad.cu:12) `sqrt.rp.f32"} {
		assert.Equal(t, 1, strings.Count(msg, want), "%q once in:\n%s", want, msg)
	}
}

// TestPrefetchLeavesErrorsToTheLaunch: a module parsed in the background
// before its first launch (Device.Prefetch) reports its unsupported
// instructions at that launch's load, as one parsed then would.
func TestPrefetchLeavesErrorsToTheLaunch(t *testing.T) {
	m, err := kernels.ParseModule("bad", []byte(badModule))
	require.NoError(t, err)
	d := tinyDevice(t)
	d.Prefetch(nil) // nothing to parse
	d.Prefetch(m)
	err = d.Load(m.Kernels[0])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(./bad.cu:12) `sqrt.rp.f32")
}
