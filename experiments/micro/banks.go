package micro

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// BankStrides are the strides (in 4-byte words) between consecutive lanes:
// conflict degree s in the plain layout.
var BankStrides = []int{1, 2, 4, 8, 16, 32}

// BankStride reads shared memory at each stride in the plain and the padded
// layout and checks every thread's sum against the formula of
// kernels/bank_stride.cu.
func BankStride(ctx context.Context, dev kernels.Device, strides []int, grid, block int, p Params) (*Table, error) {
	plain, err := kernels.Lookup("bank_stride")
	if err != nil {
		return nil, err
	}
	padded, err := kernels.Lookup("bank_stride_padded")
	if err != nil {
		return nil, err
	}
	threads := grid * block
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	out, err := kernels.Slice[uint32](mem, threads)
	if err != nil {
		return nil, err
	}
	got := make([]uint32, threads)
	t := &Table{Name: "bank_stride", Device: dev.Properties().Name}
	for _, s := range strides {
		var costs [2]kernels.LaunchStats
		for i, k := range []*kernels.Kernel{plain, padded} {
			st, err := dev.Launch(ctx, k, p.launch(grid, block), out, uint32(s), uint32(p.Reps))
			if err != nil {
				return nil, fmt.Errorf("bank_stride stride %d: %w", s, err)
			}
			if err := kernels.Download(dev, got, out); err != nil {
				return nil, err
			}
			if err := firstMismatch(k.Name, got, func(g int) uint32 { return bankExpected(g%32, s, p.Reps) }); err != nil {
				return nil, fmt.Errorf("stride %d: %w", s, err)
			}
			costs[i] = st
		}
		if t.Columns == nil {
			u := costUnit(costs[0])
			t.Columns = []string{"stride", "expected degree", "plain (" + u + ")", "padded (" + u + ")", "plain/padded"}
			if _, ok := worstConflictDegree(costs[0]); ok {
				t.Columns = append(t.Columns, "simulated degree plain/padded")
			}
			t.Columns = append(t.Columns, "validated")
		}
		row := []any{s, gcd(s, 32), cost(costs[0]), cost(costs[1]), ratio(costs[0], costs[1])}
		if plainDeg, ok := worstConflictDegree(costs[0]); ok {
			paddedDeg, _ := worstConflictDegree(costs[1])
			row = append(row, fmt.Sprintf("%d/%d", plainDeg, paddedDeg))
		}
		t.add(append(row, "all sums exact")...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d CTAs of %d threads, %d shared reads per thread; the padded layout is conflict-free.", grid, block, p.Reps))
	return t, nil
}

func bankExpected(lane, stride, reps int) uint32 {
	var sum uint32
	for r := 0; r < reps; r++ {
		sum += uint32((lane*stride + 32*r) % 1024)
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// worstConflictDegree is the highest bank-conflict degree a simulated
// launch recorded (bank_conflict_degree_N counters); hardware reports none.
func worstConflictDegree(s kernels.LaunchStats) (int, bool) {
	worst, found := 0, false
	for d := 1; d <= 32; d++ {
		v, ok := s.Counters[fmt.Sprintf("bank_conflict_degree_%d", d)]
		found = found || ok
		if v > 0 {
			worst = d
		}
	}
	return worst, found
}

func bankStrideBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "bank_stride",
		Defaults: map[Setting]PerTarget{Reps: {HW: 4096, Sim: 32}},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			grid := 2
			if !s.Simulated {
				grid = 4 * dev.Properties().SMs
			}
			p := s.timing()
			p.Reps = s.Reps
			return BankStride(ctx, dev, BankStrides, grid, 256, p)
		},
	}
}
