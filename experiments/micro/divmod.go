package micro

import (
	"context"
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/kernels"
)

// DivModInputs32 and DivModInputs64 are the (dividend, divisor) pairs the
// divmod_probe kernel divides: ordinary cases, division by zero and the most
// negative value divided by -1, where PTX leaves the result to the machine.
var (
	DivModInputs32 = [][2]uint32{
		{100, 7}, {0xFFFFFF9C, 7}, // 100/7 and -100/7
		{7, 0}, {0, 0}, {0xFFFFFFFF, 0}, {0x80000000, 0}, {0xFFFFFFF9, 0}, // x/0, including -7/0
		{0x80000000, 0xFFFFFFFF}, {5, 0xFFFFFFFF}, // INT_MIN/-1, 5/-1
	}
	DivModInputs64 = [][2]uint64{
		{100, 7}, {math.MaxUint64 - 99, 7},
		{7, 0}, {0, 0}, {math.MaxUint64, 0}, {1 << 40, 0}, {1 << 63, 0}, {math.MaxUint64 - 6, 0},
		{1 << 63, math.MaxUint64}, {1 << 40, math.MaxUint64},
	}
)

// DivModResult holds divmod_probe's outputs, one entry per input pair.
type DivModResult struct {
	Q32U, R32U, Q32S, R32S []uint32
	Q64U, R64U, Q64S, R64S []uint64
}

// DivModProbe runs divmod_probe on DivModInputs32/64 and returns what the
// device computed. It checks the ordinary (non-zero, non-overflowing)
// cases against Go's own arithmetic; the edge cases are reported as found.
func DivModProbe(ctx context.Context, dev kernels.Device) (*DivModResult, *Table, error) {
	k, err := kernels.Lookup("divmod_probe")
	if err != nil {
		return nil, nil, err
	}
	n := max(len(DivModInputs32), len(DivModInputs64))
	a32, b32 := make([]uint32, n), make([]uint32, n)
	a64, b64 := make([]uint64, n), make([]uint64, n)
	for i := range n {
		// Pad the shorter list with a harmless 1/1.
		a32[i], b32[i], a64[i], b64[i] = 1, 1, 1, 1
		if i < len(DivModInputs32) {
			a32[i], b32[i] = DivModInputs32[i][0], DivModInputs32[i][1]
		}
		if i < len(DivModInputs64) {
			a64[i], b64[i] = DivModInputs64[i][0], DivModInputs64[i][1]
		}
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	var in [4]kernels.DevPtr
	var errs [4]error
	in[0], errs[0] = kernels.Copy(mem, a32)
	in[1], errs[1] = kernels.Copy(mem, b32)
	in[2], errs[2] = kernels.Copy(mem, a64)
	in[3], errs[3] = kernels.Copy(mem, b64)
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	var out [8]kernels.DevPtr
	for i := range out {
		var err error
		if i < 4 {
			out[i], err = kernels.Slice[uint32](mem, n)
		} else {
			out[i], err = kernels.Slice[uint64](mem, n)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}
	if _, err := dev.Launch(ctx, k, cfg, in[0], in[1], in[2], in[3],
		out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], uint32(n)); err != nil {
		return nil, nil, err
	}
	r := &DivModResult{}
	dst32 := []*[]uint32{&r.Q32U, &r.R32U, &r.Q32S, &r.R32S}
	dst64 := []*[]uint64{&r.Q64U, &r.R64U, &r.Q64S, &r.R64S}
	for i, d := range dst32 {
		*d = make([]uint32, len(DivModInputs32))
		if err := kernels.Download(dev, *d, out[i]); err != nil {
			return nil, nil, err
		}
	}
	for i, d := range dst64 {
		*d = make([]uint64, len(DivModInputs64))
		if err := kernels.Download(dev, *d, out[4+i]); err != nil {
			return nil, nil, err
		}
	}
	if err := r.checkOrdinary(); err != nil {
		return nil, nil, err
	}
	t := &Table{Name: "divmod", Device: dev.Properties().Name,
		Columns: []string{"width", "a", "b", "a/b unsigned", "a%b unsigned", "a/b signed", "a%b signed"}}
	for i, p := range DivModInputs32 {
		t.add(32, fmt.Sprintf("%#x", p[0]), fmt.Sprintf("%#x", p[1]), fmt.Sprintf("%#x", r.Q32U[i]), fmt.Sprintf("%#x", r.R32U[i]), fmt.Sprintf("%#x", r.Q32S[i]), fmt.Sprintf("%#x", r.R32S[i]))
	}
	for i, p := range DivModInputs64 {
		t.add(64, fmt.Sprintf("%#x", p[0]), fmt.Sprintf("%#x", p[1]), fmt.Sprintf("%#x", r.Q64U[i]), fmt.Sprintf("%#x", r.R64U[i]), fmt.Sprintf("%#x", r.Q64S[i]), fmt.Sprintf("%#x", r.R64S[i]))
	}
	t.Notes = append(t.Notes, "Ordinary cases checked against Go; division by zero and MIN/-1 are reported as the device computed them.")
	return r, t, nil
}

// checkOrdinary compares the cases with a defined answer against Go.
func (r *DivModResult) checkOrdinary() error {
	for i, p := range DivModInputs32 {
		a, b := p[0], p[1]
		if b == 0 {
			continue
		}
		if r.Q32U[i] != a/b || r.R32U[i] != a%b {
			return fmt.Errorf("divmod: unsigned %d/%d gave %d rem %d", a, b, r.Q32U[i], r.R32U[i])
		}
		if sa, sb := int32(a), int32(b); !(sa == math.MinInt32 && sb == -1) {
			if int32(r.Q32S[i]) != sa/sb || int32(r.R32S[i]) != sa%sb {
				return fmt.Errorf("divmod: signed %d/%d gave %d rem %d", sa, sb, int32(r.Q32S[i]), int32(r.R32S[i]))
			}
		}
	}
	for i, p := range DivModInputs64 {
		a, b := p[0], p[1]
		if b == 0 {
			continue
		}
		if r.Q64U[i] != a/b || r.R64U[i] != a%b {
			return fmt.Errorf("divmod: unsigned 64-bit %d/%d gave %d rem %d", a, b, r.Q64U[i], r.R64U[i])
		}
		if sa, sb := int64(a), int64(b); !(sa == math.MinInt64 && sb == -1) {
			if int64(r.Q64S[i]) != sa/sb || int64(r.R64S[i]) != sa%sb {
				return fmt.Errorf("divmod: signed 64-bit %d/%d gave %d rem %d", sa, sb, int64(r.Q64S[i]), int64(r.R64S[i]))
			}
		}
	}
	return nil
}

// H100DivMod is what an NVIDIA H100 80GB HBM3 (driver 580.159.04, CUDA
// 13.0) computed for DivModInputs32/64 with divmod_probe, measured with
// `warpgraph micro divmod --target hw` on 2026-11-21 (results/hw-h100/).
// The simulator must reproduce it exactly. Note the 64-bit rows whose
// operands fit 32 bits: clang's division takes a 32-bit path there, so a
// small dividend over 0 gives 0xFFFFFFFF rather than all 64 ones.
var H100DivMod = DivModResult{
	Q32U: []uint32{0xe, 0x24924916, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x0, 0x0},
	R32U: []uint32{0x2, 0x2, 0x7, 0x0, 0xffffffff, 0x80000000, 0xfffffff9, 0x80000000, 0x5},
	Q32S: []uint32{0xe, 0xfffffff2, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x80000000, 0xfffffffb},
	R32S: []uint32{0x2, 0xfffffffe, 0x7, 0x0, 0xffffffff, 0x80000000, 0xfffffff9, 0x0, 0x0},
	Q64U: []uint64{0xe, 0x2492492492492484, 0xffffffff, 0xffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0x0, 0x0},
	R64U: []uint64{0x2, 0x0, 0x7, 0x0, 0xffffffffffffffff, 0x10000000000, 0x8000000000000000, 0xfffffffffffffff9, 0x8000000000000000, 0x10000000000},
	Q64S: []uint64{0xe, 0xfffffffffffffff2, 0xffffffff, 0xffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0x8000000000000000, 0xffffff0000000000},
	R64S: []uint64{0x2, 0xfffffffffffffffe, 0x7, 0x0, 0xffffffffffffffff, 0x10000000000, 0x8000000000000000, 0xfffffffffffffff9, 0x0, 0x0},
}

func divModBenchmark() *Benchmark {
	return &Benchmark{
		Name: "divmod",
		run: func(ctx context.Context, dev kernels.Device, _ Settings) (*Table, error) {
			_, t, err := DivModProbe(ctx, dev)
			return t, err
		},
	}
}
