package micro

import (
	"context"
	"errors"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// BarrierRun is one launch of the global_barrier kernel.
type BarrierRun struct {
	Grid, Block int
	Rounds      int
	SpinBudget  uint32
	Cooperative bool
	Stats       kernels.LaunchStats
}

// GlobalBarrier launches the software global barrier (SIMD-X) with a grid of
// grid CTAs, crosses it rounds times and checks the kernel's own
// bookkeeping. When a wait runs out of its spin budget the kernel raises its
// abort flag and the error is a *kernels.SpinBudgetError; a cooperative
// launch larger than what can be co-resident is refused by the device with a
// *kernels.LaunchResourceError before anything runs.
func GlobalBarrier(ctx context.Context, dev kernels.Device, run BarrierRun) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	k, err := kernels.Lookup("global_barrier")
	if err != nil {
		return stats, err
	}
	if run.Grid < 1 || run.Rounds < 1 {
		return stats, fmt.Errorf("global_barrier: grid %d and rounds %d must be positive", run.Grid, run.Rounds)
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	arrive, err := kernels.Copy(mem, make([]uint32, run.Grid))
	if err != nil {
		return stats, err
	}
	release, err := kernels.Copy(mem, []uint32{0})
	if err != nil {
		return stats, err
	}
	counters, err := kernels.Copy(mem, make([]uint32, run.Rounds))
	if err != nil {
		return stats, err
	}
	mismatches, err := kernels.Copy(mem, []uint32{0})
	if err != nil {
		return stats, err
	}
	abort, err := kernels.Copy(mem, []int32{0})
	if err != nil {
		return stats, err
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(run.Grid), Block: kernels.D1(run.Block), Cooperative: run.Cooperative}
	stats, err = dev.Launch(ctx, k, cfg, arrive, release, counters, mismatches, uint32(run.Rounds), run.SpinBudget, abort)
	if err != nil {
		return stats, err
	}
	flag := []int32{0}
	if err := kernels.Download(dev, flag, abort); err != nil {
		return stats, err
	}
	if flag[0] != 0 {
		return stats, &kernels.SpinBudgetError{Kernel: k.Name, Budget: run.SpinBudget,
			Detail: fmt.Sprintf("a wait at the global barrier gave up: %d CTAs were launched and not all of them could be resident at once", run.Grid)}
	}
	var word [1]uint32
	if err := kernels.Download(dev, word[:], mismatches); err != nil {
		return stats, err
	}
	if word[0] != 0 {
		return stats, fmt.Errorf("global_barrier: %d CTA-rounds saw an incomplete round after the barrier", word[0])
	}
	got := make([]uint32, run.Rounds)
	if err := kernels.Download(dev, got, counters); err != nil {
		return stats, err
	}
	g := uint32(run.Grid)
	if err := firstMismatch("global_barrier counters", got, func(int) uint32 { return g * (g + 1) / 2 }); err != nil {
		return stats, err
	}
	if err := kernels.Download(dev, word[:], release); err != nil {
		return stats, err
	}
	if int(word[0]) != run.Rounds {
		return stats, fmt.Errorf("global_barrier: release generation %d after %d rounds", word[0], run.Rounds)
	}
	flags := make([]uint32, run.Grid)
	if err := kernels.Download(dev, flags, arrive); err != nil {
		return stats, err
	}
	if err := firstMismatch("global_barrier arrival flags", flags, func(int) uint32 { return 0 }); err != nil {
		return stats, err
	}
	return stats, nil
}

// CoResidentLimit is how many CTAs of k can be resident on the whole device
// at once: the grid size above which a global barrier deadlocks.
func CoResidentLimit(dev kernels.Device, k *kernels.Kernel, block int) (int, error) {
	per, err := dev.Occupancy(k, block, 0)
	if err != nil {
		return 0, err
	}
	return per * dev.Properties().SMs, nil
}

// BarrierStudy runs the SIMD-X deadlock study: the barrier at the
// co-resident limit (completes), one CTA past it with a finite spin budget
// (ends by the budget), a cooperative launch one CTA past it (refused before
// it runs) and, where the device has a deadlock detector (the simulator),
// the barrier with an unbounded budget at the limit (completes: no false
// alarm) and one CTA past it (diagnosed as a deadlock).
func BarrierStudy(ctx context.Context, dev kernels.Device, block, rounds int, budget uint32, unbounded bool) (*Table, error) {
	k, err := kernels.Lookup("global_barrier")
	if err != nil {
		return nil, err
	}
	limit, err := CoResidentLimit(dev, k, block)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "global_barrier", Device: dev.Properties().Name,
		Columns: []string{"CTAs", "launch", "spin budget", "outcome", "cost"}}
	cases := []BarrierRun{
		{Grid: limit, Block: block, Rounds: rounds, SpinBudget: budget},
		{Grid: limit, Block: block, Rounds: rounds, SpinBudget: budget, Cooperative: true},
		{Grid: limit + 1, Block: block, Rounds: rounds, SpinBudget: budget},
		{Grid: limit + 1, Block: block, Rounds: rounds, SpinBudget: budget, Cooperative: true},
	}
	if unbounded {
		// With no budget only the deadlock detector can end a hung launch:
		// it must fire one CTA past the limit and stay quiet at the limit.
		cases = append(cases,
			BarrierRun{Grid: limit, Block: block, Rounds: rounds, SpinBudget: 0},
			BarrierRun{Grid: limit + 1, Block: block, Rounds: rounds, SpinBudget: 0})
	}
	for _, c := range cases {
		stats, err := GlobalBarrier(ctx, dev, c)
		kind := "normal"
		if c.Cooperative {
			kind = "cooperative"
		}
		outcome := fmt.Sprintf("completed %d rounds, validated", c.Rounds)
		var spin *kernels.SpinBudgetError
		var res *kernels.LaunchResourceError
		var dead *kernels.DeadlockError
		switch {
		case err == nil:
		case errors.As(err, &spin):
			outcome = "aborted by its spin budget"
		case errors.As(err, &res):
			outcome = "refused before launch"
		case errors.As(err, &dead):
			outcome = "deadlock detected"
		default:
			return nil, fmt.Errorf("global_barrier with %d CTAs: %w", c.Grid, err)
		}
		if err != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%d CTAs, %s launch, budget %d: %v", c.Grid, kind, c.SpinBudget, err))
		}
		cst := "-"
		if err == nil || spin != nil {
			cst = cost(stats) + " " + costUnit(stats)
		}
		t.add(c.Grid, kind, c.SpinBudget, outcome, cst)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("co-resident limit = occupancy × SMs = %d CTAs of %d threads.", limit, block))
	return t, nil
}
