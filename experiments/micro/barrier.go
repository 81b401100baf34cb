package micro

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
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
// abort flag and the error is a *kernels.SpinBudgetError
// (scheduler.LaunchSpinning); a cooperative launch larger than what can be
// co-resident is refused by the device with a *kernels.LaunchResourceError
// before anything runs.
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
	cfg := kernels.LaunchConfig{Grid: kernels.D1(run.Grid), Block: kernels.D1(run.Block), Cooperative: run.Cooperative}
	stats, err = scheduler.LaunchSpinning(ctx, dev, k, cfg, run.SpinBudget, arrive, release, counters, mismatches, uint32(run.Rounds))
	if err != nil {
		return stats, err
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

// outcome classifies a barrier launch's error for the tables: "" for an
// error that is a failure of the study itself.
func outcome(err error, rounds int) string {
	var spin *kernels.SpinBudgetError
	var res *kernels.LaunchResourceError
	var dead *kernels.DeadlockError
	switch {
	case err == nil:
		return fmt.Sprintf("completed %d rounds, validated", rounds)
	case errors.As(err, &spin):
		return "aborted by its spin budget"
	case errors.As(err, &res):
		return "refused before launch"
	case errors.As(err, &dead):
		return "deadlock detected"
	}
	return ""
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
	limit, err := scheduler.CoResidentGrid(dev, k, block, 0)
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
		kind := launchKind(c.Cooperative)
		out := outcome(err, c.Rounds)
		if out == "" {
			return nil, fmt.Errorf("global_barrier with %d CTAs: %w", c.Grid, err)
		}
		if err != nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%d CTAs, %s launch, budget %d: %v", c.Grid, kind, c.SpinBudget, err))
		}
		cst := "-"
		var spin *kernels.SpinBudgetError
		if err == nil || errors.As(err, &spin) {
			cst = cost(stats) + " " + costUnit(stats)
		}
		t.add(c.Grid, kind, c.SpinBudget, out, cst)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("co-resident limit = occupancy × SMs = %d CTAs of %d threads.", limit, block))
	return t, nil
}

func launchKind(cooperative bool) string {
	if cooperative {
		return "cooperative"
	}
	return "normal"
}

// GridBarrierRun is one configuration of a grid_barrier_<kind> kernel
// (the barriers of kernels/lib/barrier.cuh).
type GridBarrierRun struct {
	// Kind is one of scheduler.BarrierKinds.
	Kind        string
	Grid, Block int
	Rounds      int
	SpinBudget  uint32
	// Cooperative launches cooperatively (what coop is meant for).
	Cooperative bool
	// Warmup untimed and Repeat (at least 1) timed launches run back to
	// back on the same barrier state (each completed launch leaves it
	// ready for the next; the counters are zeroed before each); the
	// result has the median cost. Every launch is validated.
	Warmup, Repeat int
}

// GridBarrier runs the library barrier run.Kind over run.Grid CTAs and
// checks, after every launch, the kernel's counters and mismatches and the
// barrier's state (scheduler.CheckBarrierState). Errors: a
// *kernels.SpinBudgetError when a wait gave up (its stats are returned
// too: the time until the abort), a *kernels.LaunchResourceError for a
// cooperative grid that cannot be co-resident, and on the simulator with
// budget 0 a *kernels.DeadlockError.
func GridBarrier(ctx context.Context, dev kernels.Device, run GridBarrierRun) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	name := "grid_barrier_" + run.Kind
	words, err := scheduler.BarrierStateWords(run.Kind, run.Grid)
	if err != nil {
		return stats, err
	}
	if run.Rounds < 1 {
		return stats, fmt.Errorf("%s: %d rounds: need at least 1", name, run.Rounds)
	}
	k, err := kernels.Lookup(name)
	if err != nil {
		return stats, err
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	state, err := kernels.Copy(mem, make([]uint32, words))
	if err != nil {
		return stats, err
	}
	counters, err := kernels.Slice[uint32](mem, run.Rounds)
	if err != nil {
		return stats, err
	}
	mismatches, err := kernels.Slice[uint32](mem, 1)
	if err != nil {
		return stats, err
	}
	spin, err := scheduler.NewSpin(dev, run.SpinBudget)
	if err != nil {
		return stats, err
	}
	defer spin.Free()
	cfg := kernels.LaunchConfig{Grid: kernels.D1(run.Grid), Block: kernels.D1(run.Block), Cooperative: run.Cooperative}
	g := uint32(run.Grid)
	want := g * (g + 1) / 2
	got := make([]uint32, run.Rounds)
	st := make([]uint32, words)
	var timed []kernels.LaunchStats
	launches := max(run.Warmup, 0) + max(run.Repeat, 1)
	for i := range launches {
		if err := dev.Memset(counters, 0, 4*run.Rounds); err != nil {
			return stats, err
		}
		if err := dev.Memset(mismatches, 0, 4); err != nil {
			return stats, err
		}
		s, err := spin.Launch(ctx, k, cfg, state, counters, mismatches, uint32(run.Rounds))
		if err != nil {
			return s, err
		}
		var m [1]uint32
		if err := kernels.Download(dev, m[:], mismatches); err != nil {
			return stats, err
		}
		if m[0] != 0 {
			return stats, fmt.Errorf("%s: %d CTA-rounds saw an incomplete round after the barrier", name, m[0])
		}
		if err := kernels.Download(dev, got, counters); err != nil {
			return stats, err
		}
		if err := firstMismatch(name+" counters", got, func(int) uint32 { return want }); err != nil {
			return stats, err
		}
		if err := kernels.Download(dev, st, state); err != nil {
			return stats, err
		}
		if err := scheduler.CheckBarrierState(run.Kind, run.Grid, (i+1)*run.Rounds, st); err != nil {
			return stats, fmt.Errorf("%s: %w", name, err)
		}
		if i >= run.Warmup {
			timed = append(timed, s)
		}
	}
	return medianStats(timed), nil
}

// perRound is the cost of one barrier round in cost's unit: the
// difference between a launch of rounds rounds and one of a single round,
// divided by rounds-1, so that launching and retiring the grid (a large
// part of a short launch) cancel out; with one round, the whole launch.
func perRound(full, one kernels.LaunchStats, rounds int) string {
	if rounds <= 1 {
		one = kernels.LaunchStats{}
		rounds = 2
	}
	n := rounds - 1
	switch {
	case full.Elapsed > 0:
		return formatCell((full.Elapsed - one.Elapsed) / time.Duration(n))
	case full.Cycles > 0:
		return fmt.Sprint((int64(full.Cycles) - int64(one.Cycles)) / int64(n))
	default:
		return fmt.Sprintf("%.0f", (full.Counters["thread_instructions"]-one.Counters["thread_instructions"])/float64(n))
	}
}

// BarrierSweep configures Barriers.
type BarrierSweep struct {
	// Kinds are the barriers to measure (scheduler.BarrierKinds when empty).
	Kinds []string
	// Grids are the CTA counts to time each barrier at; 0 stands for the
	// barrier's co-resident limit. Grids past the limit are left out (they
	// cannot complete): the boundary rows show what happens there.
	Grids         []int
	Block, Rounds int
	SpinBudget    uint32
	// Unbounded adds a row per barrier with spin budget 0 one CTA past the
	// limit, which only a device with a deadlock detector (the simulator)
	// may run: it must end in a DeadlockError.
	Unbounded bool
	// SkipBoundary times the grids only: no limit row unless asked for,
	// no row past the limit (a quick cost sweep, or a long simulation
	// split into parts).
	SkipBoundary bool
	// Warmup and Repeat are the untimed and timed launches per grid
	// (hardware; the median is reported).
	Warmup, Repeat int
}

// Barriers measures the grid barriers of kernels/lib/barrier.cuh: per kind,
// the cost of a round at each grid (every launch validated), then (unless
// SkipBoundary) the deadlock boundary: at the co-resident limit the barrier
// completes (the limit is then always among the timed grids), one CTA more
// ends by the spin budget (coop, launched cooperatively, is refused before
// it runs) and, with Unbounded, in the simulator's DeadlockError.
func Barriers(ctx context.Context, dev kernels.Device, s BarrierSweep) (*Table, error) {
	kinds := s.Kinds
	if len(kinds) == 0 {
		kinds = scheduler.BarrierKinds
	}
	if s.Block <= 0 || s.Rounds <= 0 {
		return nil, fmt.Errorf("barriers: block %d and rounds %d must be positive", s.Block, s.Rounds)
	}
	t := &Table{Name: "barriers", Device: dev.Properties().Name,
		Columns: []string{"barrier", "CTAs", "launch", "spin budget", "outcome", "cost", "per round"}}
	var limits []string
	unit := ""
	for _, kind := range kinds {
		if _, err := scheduler.BarrierStateWords(kind, 1); err != nil {
			return nil, err
		}
		k, err := kernels.Lookup("grid_barrier_" + kind)
		if err != nil {
			return nil, err
		}
		limit, err := scheduler.CoResidentGrid(dev, k, s.Block, 0)
		if err != nil {
			return nil, err
		}
		limits = append(limits, fmt.Sprintf("%s %d", kind, limit))
		coop := scheduler.BarrierCooperative(kind)
		var grids, skipped []int
		for _, g := range s.Grids {
			switch {
			case g == 0:
				g = limit
			case g < 0:
				return nil, fmt.Errorf("barriers: grid %d", g)
			case g > limit:
				if !slices.Contains(skipped, g) {
					skipped = append(skipped, g)
				}
				continue
			}
			if !slices.Contains(grids, g) {
				grids = append(grids, g)
			}
		}
		if !s.SkipBoundary && !slices.Contains(grids, limit) {
			grids = append(grids, limit)
		}
		slices.Sort(grids)
		if len(skipped) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: grids %v are past its co-resident limit of %d CTAs and were not timed.", kind, skipped, limit))
		}
		type row struct {
			grid   int
			budget uint32
			coop   bool
		}
		rows := make([]row, 0, len(grids)+2)
		for _, g := range grids {
			rows = append(rows, row{g, s.SpinBudget, coop})
		}
		if !s.SkipBoundary {
			rows = append(rows, row{limit + 1, s.SpinBudget, coop})
			if s.Unbounded && !coop {
				rows = append(rows, row{limit + 1, 0, false})
			}
		}
		for _, r := range rows {
			run := GridBarrierRun{Kind: kind, Grid: r.grid, Block: s.Block, Rounds: s.Rounds, SpinBudget: r.budget, Cooperative: r.coop}
			if r.grid <= limit {
				run.Warmup, run.Repeat = s.Warmup, s.Repeat
			}
			stats, err := GridBarrier(ctx, dev, run)
			out := outcome(err, s.Rounds)
			if out == "" {
				return nil, fmt.Errorf("barrier %s with %d CTAs: %w", kind, r.grid, err)
			}
			if r.grid <= limit && err != nil {
				return nil, fmt.Errorf("barrier %s at %d CTAs, within the co-resident limit of %d: %w", kind, r.grid, limit, err)
			}
			if r.grid > limit && err == nil {
				return nil, fmt.Errorf("barrier %s completed with %d CTAs, one past the co-resident limit of %d: the limit is wrong", kind, r.grid, limit)
			}
			if err != nil {
				t.Notes = append(t.Notes, fmt.Sprintf("%s, %d CTAs, %s launch, budget %d: %v", kind, r.grid, launchKind(r.coop), r.budget, err))
			}
			cst, per := "-", "-"
			if err == nil {
				var one kernels.LaunchStats
				if s.Rounds > 1 {
					run.Rounds = 1
					if one, err = GridBarrier(ctx, dev, run); err != nil {
						return nil, fmt.Errorf("barrier %s at %d CTAs, one round: %w", kind, r.grid, err)
					}
				}
				cst, per, unit = cost(stats), perRound(stats, one, s.Rounds), costUnit(stats)
			} else if spin := (*kernels.SpinBudgetError)(nil); errors.As(err, &spin) {
				cst = cost(stats) // the time until every wait had given up
			}
			t.add(kind, r.grid, launchKind(r.coop), r.budget, out, cst, per)
		}
	}
	if unit != "" {
		t.Columns[5] += " (" + unit + ")"
		t.Columns[6] += " (" + unit + ")"
	}
	how := "per round is the whole launch (one round)"
	if s.Rounds > 1 {
		how = fmt.Sprintf("per round is (cost - cost of a 1-round launch) / %d, which cancels launching the grid", s.Rounds-1)
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("%d rounds per launch, CTAs of %d threads; cost is the whole launch (the median of the timed launches on hardware); %s.", s.Rounds, s.Block, how),
		"co-resident limits (occupancy × SMs): "+strings.Join(limits, ", ")+"; an abort's cost is the time until every wait had given up.",
		"monitor: SIMD-X/b40c (CTA 0 polls one flag per CTA with all its threads, releases a generation word); counter: one atomic counter with sense reversal; tree: combining tree of fan-in 8; coop: the cooperative-groups algorithm (one arrival word, bit 31 the sense), launched cooperatively.")
	return t, nil
}

// barrierSpinBudget is the barriers' default spin budget per target.
var barrierSpinBudget = PerTarget{HW: 1_000_000, Sim: 5_000}

const spinBudgetHelp = "polls per wait before the kernel aborts (0 = unbounded, simulator only; default 1000000 on hw, 5000 in simulation: enough for the h100 barrier at its limit, where a worker polls about 2,400 times)"

func globalBarrierBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "global_barrier",
		Defaults: map[Setting]PerTarget{Reps: {HW: 20, Sim: 1}, SpinBudget: barrierSpinBudget},
		Help:     map[Setting]string{SpinBudget: spinBudgetHelp},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			budget, err := s.spinBudget()
			if err != nil {
				return nil, err
			}
			return BarrierStudy(ctx, dev, 128, s.Reps, budget, s.Simulated)
		},
	}
}

func barriersBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "barriers",
		Defaults: map[Setting]PerTarget{Reps: {HW: 100, Sim: 2}, SpinBudget: barrierSpinBudget},
		Help: map[Setting]string{
			SpinBudget: spinBudgetHelp,
			BarrierSet: "the grid barriers to measure, comma-separated (" + strings.Join(scheduler.BarrierKinds, ", ") + "; default all)",
			Grids:      "grids (CTAs of 128 threads) to time each barrier at; 0 = its co-resident limit; grids past the limit are skipped",
			NoBoundary: "time the --grids only, without the deadlock boundary (the limit and one CTA past it): a quick sweep, or a long simulation split into parts",
		},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			budget, err := s.spinBudget()
			if err != nil {
				return nil, err
			}
			for _, b := range s.Barriers {
				if !slices.Contains(scheduler.BarrierKinds, b) {
					return nil, settingError("unknown barrier %q: use %s", b, strings.Join(scheduler.BarrierKinds, ", "))
				}
			}
			for _, g := range s.Grids {
				if g < 0 {
					return nil, settingError("--grids %d: a grid is a positive number of CTAs, or 0 for the co-resident limit", g)
				}
			}
			return Barriers(ctx, dev, BarrierSweep{Kinds: s.Barriers, Grids: s.Grids, Block: 128,
				Rounds: s.Reps, SpinBudget: budget, Unbounded: s.Simulated,
				SkipBoundary: s.NoBoundary, Warmup: s.Warmup, Repeat: s.Repeat})
		},
	}
}
