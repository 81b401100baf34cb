package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { Default.Register(barrierExperiment()) }

// barrierSerial is the serial form of SIMD-X's monitor barrier
// (wg_monitor_sync_serial, kernel global_barrier): CTA 0's thread 0 polls
// the arrival flags one after another. The other implementations are the
// grid barriers a fused scheduler picks (scheduler.BarrierKinds, kernels
// grid_barrier_<kind>).
const barrierSerial = "monitor-serial"

// barrierImpls are the barrier axis: every global barrier of
// kernels/lib/barrier.cuh.
var barrierImpls = append([]string{barrierSerial}, scheduler.BarrierKinds...)

// barrierGrids are the grid axis: grid sizes relative to the device, so
// that a point means the same on every machine and the simulated and
// measured h100 join by key. "limit" is the co-resident limit (occupancy
// × SMs, from the device's occupancy of the implementation's kernel),
// "sms" one CTA per SM, and "limit+1" one CTA past the limit: the
// deadlock boundary.
var barrierGrids = []string{"1", "sms", "limit/4", "limit/2", "limit", "limit+1"}

// barrierGrid resolves a grid axis value on a device with sms SMs and a
// co-resident limit of limit CTAs.
func barrierGrid(v string, limit, sms int) (int, error) {
	switch v {
	case "1":
		return 1, nil
	case "sms":
		return min(sms, limit), nil
	case "limit/4":
		return max(1, limit/4), nil
	case "limit/2":
		return max(1, limit/2), nil
	case "limit":
		return limit, nil
	case "limit+1":
		return limit + 1, nil
	}
	return 0, fmt.Errorf("unknown grid %q: use one of %s", v, strings.Join(barrierGrids, ", "))
}

// barrierKernel is the kernel that times an implementation.
func barrierKernel(impl string) (string, error) {
	if impl == barrierSerial {
		return "global_barrier", nil
	}
	if !slices.Contains(scheduler.BarrierKinds, impl) {
		return "", fmt.Errorf("unknown barrier %q: use one of %s", impl, strings.Join(barrierImpls, ", "))
	}
	return "grid_barrier_" + impl, nil
}

// Outcomes of a barrier point.
const (
	barrierCompleted = "completed"  // every launch crossed every round and validated
	barrierDeadlock  = "deadlock"   // the simulator's detector diagnosed it (spin budget 0)
	barrierSpinAbort = "spin-abort" // a wait ran out of its spin budget and aborted the grid
	barrierRefused   = "refused"    // the cooperative launch was refused before it ran
)

func barrierExperiment() *Experiment {
	stats := []Stat{
		{"ctas", "CTAs", "the grid the point launched"},
		{"ctas_per_sm", "CTAs", "co-resident CTAs per SM: the device's occupancy of the kernel at this block size"},
		{"limit_ctas", "CTAs", "the co-resident limit: ctas_per_sm × SMs"},
		{"outcome", "", "completed, deadlock (the simulator's detector, spin budget 0), spin-abort (a wait ran out of its budget) or refused (a cooperative launch past the limit)"},
		{"us_per_round", "µs", "one barrier round: (rounds-round launch − 1-round launch) ÷ (rounds − 1), which cancels launching and retiring the grid"},
		{"cycles_per_round", "cycles", "the same in simulated cycles (simulator only)"},
	}
	stats = append(stats, launchStats("launch", "the rounds-round launch (median on hardware)")...)
	stats = append(stats,
		Stat{"one_round_us", "µs", "the 1-round launch (median on hardware)"},
		Stat{"end_us", "µs", "past the limit: how long the launch ran before the abort or the diagnosis"},
	)
	return &Experiment{
		Name: "barrier",
		About: "The global barriers of kernels/lib/barrier.cuh: the cost of one round against the grid size, up to the " +
			"co-resident limit (occupancy × SMs), and the deadlock boundary one CTA past it, where the resident CTAs wait " +
			"for one that cannot start (SIMD-X's deadlock). monitor-serial is SIMD-X's monitor barrier as global_barrier.cu " +
			"crosses it (CTA 0's thread 0 polls the flags one by one); monitor, counter, tree and coop are the barriers " +
			"of the fused schedulers (`simdx:fusion=all,barrier=KIND`).",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"gtx780ti", "v100", "h100"},
		Axes: []Axis{
			{Name: "barrier", About: "the implementation (kernels/lib/barrier.cuh)", Values: barrierImpls},
			{Name: "grid", About: "CTAs: one, one per SM, a quarter, half and all of the co-resident limit, and one past it", Values: barrierGrids},
		},
		Params: []Param{
			{Name: "rounds", About: "barrier rounds per timed launch (a 1-round launch is subtracted)", Default: byTarget("100", "4")},
			{Name: "block", About: "threads per CTA", Default: byTarget("128", "128")},
			{Name: "spin_budget", About: "polls per wait before the kernel aborts (0: unbounded, simulator only: its deadlock detector ends a hung launch)", Default: byTarget("1000000", "0")},
			{Name: "warmup", About: "untimed launches before timing (hardware; 0 in simulation)", Default: byTarget("3", "0")},
			{Name: "repeat", About: "timed launches, median reported (hardware; 1 in simulation)", Default: byTarget("10", "1")},
		},
		Stats:    stats,
		Run:      runBarrier,
		Table:    []string{"config", "barrier", "grid", "ctas", "outcome", "us_per_round", "cycles_per_round", "end_us", "status"},
		Plot:     plotBarrier,
		Findings: barrierFindings,
		CrossCheck: &CrossCheck{
			Times:     []string{"us_per_round"},
			Group:     []string{"grid"},
			Candidate: "barrier",
			Context:   []string{"ctas"},
			// Cost per round: the rounds per launch cancel out, and a
			// completing barrier never reaches its spin budget.
			MayDiffer: []string{"rounds", "spin_budget"},
		},
		Notes: []string{
			"The simulator half: `warpgraph sweep barrier --target sim` (gtx780ti, v100, h100; timing mode). The hardware half: `warpgraph sweep barrier --target hw --out DIR` with DIR a copy of this folder, so that its rows join these and the README and figures cover both.",
			"Times on the simulator are simulated device time (cycles ÷ the configuration's clock), not wall time; on hardware the median event time of `repeat` launches after `warmup`. Rounds are few in simulation (4) and many on hardware (100): compare the cost per round, not whole launches.",
			"Every completed launch is validated: every CTA adds to a per-round counter before the barrier and reads it after (each must see the whole grid's sum), and the barrier's state must be back at rest (scheduler.CheckBarrierState; for monitor-serial the release generation and the arrival flags).",
			"One CTA past the limit the expected ends are: on the simulator with spin budget 0, the deadlock detector's diagnosis (a DeadlockError naming the spinning loads and the CTA that cannot start); on hardware, the spin-budget abort (a SpinBudgetError); for coop, launched cooperatively, the driver's (or simulator's) refusal before anything runs (a LaunchResourceError). Such a point is ok, not failed; one that completes past the limit is recorded as invalid (the limit would be wrong).",
			"The limit comes from the device's occupancy of each kernel: on the simulator from kernels/attrs/<gpu>.json where the kernel was measured, else from the configuration's limits; on hardware from the CUDA occupancy API.",
		},
	}
}

func runBarrier(ctx context.Context, env *Env, p Point) (Outcome, error) {
	dev, err := env.Device()
	if err != nil {
		return Outcome{}, err
	}
	impl := p.Get("barrier")
	name, err := barrierKernel(impl)
	if err != nil {
		return Outcome{}, err
	}
	var rounds, block, warmup, repeat int
	for _, x := range []struct {
		name string
		into *int
	}{{"rounds", &rounds}, {"block", &block}, {"warmup", &warmup}, {"repeat", &repeat}} {
		if *x.into, err = p.Int(x.name); err != nil {
			return Outcome{}, err
		}
	}
	budget, err := strconv.ParseUint(p.Get("spin_budget"), 10, 32)
	if err != nil {
		return Outcome{}, fmt.Errorf("spin_budget %q: %w", p.Get("spin_budget"), err)
	}
	if rounds < 2 {
		return Outcome{}, fmt.Errorf("rounds %d: need at least 2 (a 1-round launch is subtracted)", rounds)
	}
	k, err := kernels.Lookup(name)
	if err != nil {
		return Outcome{}, err
	}
	perSM, err := dev.Occupancy(k, block, 0)
	if err != nil {
		return Outcome{}, fmt.Errorf("occupancy of %s at %d threads: %w", name, block, err)
	}
	sms := dev.Properties().SMs
	limit := perSM * sms
	if limit < 1 {
		return Outcome{}, fmt.Errorf("%s: not one CTA of %d threads fits an SM", name, block)
	}
	grid, err := barrierGrid(p.Get("grid"), limit, sms)
	if err != nil {
		return Outcome{}, err
	}
	v := map[string]string{"ctas": strconv.Itoa(grid), "ctas_per_sm": strconv.Itoa(perSM), "limit_ctas": strconv.Itoa(limit)}
	run := barrierRun{impl: impl, grid: grid, block: block, budget: uint32(budget), warmup: warmup, repeat: repeat}

	if grid > limit {
		run.warmup, run.repeat = 0, 1
		run.rounds = rounds
		stats, err := run.launch(ctx, dev)
		out := barrierOutcome(err)
		if out == "" {
			return Outcome{}, fmt.Errorf("%s with %d CTAs, one past the co-resident limit of %d: %w", impl, grid, limit, err)
		}
		v["outcome"] = out
		if out == barrierCompleted {
			return Outcome{Values: v, Validation: fmt.Sprintf(
				"completed with %d CTAs, one past the co-resident limit of %d: the limit is wrong", grid, limit)}, nil
		}
		if out != barrierRefused && stats.Elapsed > 0 {
			v["end_us"] = micros(stats.Elapsed)
		}
		want := barrierExpected(impl)
		valid := slices.Contains(want, out)
		why := shorten(err.Error(), 600)
		verdict := "as expected"
		if !valid {
			verdict = "expected " + strings.Join(want, " or ")
		}
		return Outcome{Values: v, Valid: valid, Validation: fmt.Sprintf("%d CTAs, one past the co-resident limit of %d: %s, %s: %s",
			grid, limit, out, verdict, why)}, nil
	}

	run.rounds = rounds
	full, err := run.launch(ctx, dev)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s, %d CTAs (co-resident limit %d), %d rounds: %w", impl, grid, limit, rounds, err)
	}
	run.rounds = 1
	one, err := run.launch(ctx, dev)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s, %d CTAs (co-resident limit %d), 1 round: %w", impl, grid, limit, err)
	}
	v["outcome"] = barrierCompleted
	launchValues("launch", full, v)
	v["one_round_us"] = micros(one.Elapsed)
	n := rounds - 1
	v["us_per_round"] = micros((full.Elapsed - one.Elapsed) / time.Duration(n))
	if full.Cycles > 0 && one.Cycles > 0 {
		v["cycles_per_round"] = strconv.FormatInt((int64(full.Cycles)-int64(one.Cycles))/int64(n), 10)
	}
	return Outcome{Values: v, Valid: true, Validation: fmt.Sprintf(
		"completed %d and 1 rounds over %d CTAs (%d launches), each validated: round counters, no early exit, barrier state at rest",
		rounds, grid, 2*(max(warmup, 0)+max(repeat, 1)))}, nil
}

// barrierExpected are the outcomes that are correct one CTA past the
// limit: a cooperative launch is refused; any other hangs, which the
// simulator's detector (budget 0) or the spin budget ends.
func barrierExpected(impl string) []string {
	if scheduler.BarrierCooperative(impl) {
		return []string{barrierRefused}
	}
	return []string{barrierDeadlock, barrierSpinAbort}
}

// barrierOutcome classifies a launch's error ("" for an error that is a
// failure of the point itself).
func barrierOutcome(err error) string {
	var spin *kernels.SpinBudgetError
	var res *kernels.LaunchResourceError
	var dead *kernels.DeadlockError
	switch {
	case err == nil:
		return barrierCompleted
	case errors.As(err, &dead):
		return barrierDeadlock
	case errors.As(err, &spin):
		return barrierSpinAbort
	case errors.As(err, &res):
		return barrierRefused
	}
	return ""
}

// shorten makes an error fit a CSV cell for a CSV cell: one line, at most n bytes.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// barrierRun is one timing of an implementation.
type barrierRun struct {
	impl                string
	grid, block, rounds int
	budget              uint32
	warmup, repeat      int
}

// launch runs warmup untimed and repeat timed launches (every one
// validated) and returns the median timed one; on an error, the failed
// launch's statistics (the time until an abort).
func (r barrierRun) launch(ctx context.Context, dev kernels.Device) (kernels.LaunchStats, error) {
	if r.impl != barrierSerial {
		return micro.GridBarrier(ctx, dev, micro.GridBarrierRun{Kind: r.impl, Grid: r.grid, Block: r.block,
			Rounds: r.rounds, SpinBudget: r.budget, Cooperative: scheduler.BarrierCooperative(r.impl),
			Warmup: r.warmup, Repeat: r.repeat})
	}
	// global_barrier counts generations from 1 in every launch: each
	// launch gets fresh buffers (GlobalBarrier allocates them).
	var timed []kernels.LaunchStats
	for i := range max(r.warmup, 0) + max(r.repeat, 1) {
		s, err := micro.GlobalBarrier(ctx, dev, micro.BarrierRun{Grid: r.grid, Block: r.block, Rounds: r.rounds, SpinBudget: r.budget})
		if err != nil {
			return s, err
		}
		if i >= r.warmup {
			timed = append(timed, s)
		}
	}
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].Elapsed < timed[j].Elapsed })
	return timed[len(timed)/2], nil
}

// barrierMachines groups rows by machine (where), in first-seen order.
func barrierMachines(rows []Row) ([]string, map[string][]Row) {
	var order []string
	by := map[string][]Row{}
	for _, r := range rows {
		w := where(r)
		if _, ok := by[w]; !ok {
			order = append(order, w)
		}
		by[w] = append(by[w], r)
	}
	return order, by
}

// slug makes a machine name a file-name part.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// plotBarrier draws, per machine, the cost per round against the grid,
// one line per implementation, and one dot plot of every machine's cost
// per round at its co-resident limit.
func plotBarrier(rows []Row, dir string) ([]string, error) {
	order, by := barrierMachines(okRows(rows))
	var files []string
	for _, m := range order {
		rs := by[m]
		var ss []series
		for _, impl := range barrierImpls {
			var mine []Row
			for _, r := range rs {
				if r["barrier"] == impl {
					mine = append(mine, r)
				}
			}
			s := groupSeries(mine, func(Row) string { return impl }, "ctas", "us_per_round")
			if len(s) == 0 {
				s = []series{{label: impl}} // keeps every implementation's colour the same in every figure
			}
			s[0].group = impl
			s[0].dashed = impl == barrierSerial
			ss = append(ss, s[0])
		}
		title := m + ": global barrier, cost per round"
		if lim, past := barrierBoundary(rs); lim != "" {
			title += fmt.Sprintf("\nlimit %s CTAs; one past it: %s", lim, past)
		}
		var ticks []float64
		for _, s := range ss {
			for _, x := range s.xs {
				if !slices.Contains(ticks, x) {
					ticks = append(ticks, x)
				}
			}
		}
		f, err := lineFigure{
			title:  title,
			xLabel: "CTAs in the grid (" + barrierBlocks(rs) + " threads each)",
			yLabel: "time per barrier round (µs)",
			logX:   true, logY: true, xTicks: ticks,
			series: ss,
		}.save(dir, "barrier-"+slug(m))
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	var groups []dotGroup
	for _, m := range order {
		g := dotGroup{label: m}
		if lim, _ := barrierBoundary(by[m]); lim != "" {
			g.label += " (" + lim + " CTAs)"
		}
		for _, impl := range barrierImpls {
			val := math.NaN()
			for _, r := range by[m] {
				if r["barrier"] == impl && r["grid"] == "limit" {
					if x, ok := r.Float("us_per_round"); ok {
						val = x
					}
				}
			}
			g.values = append(g.values, val)
		}
		groups = append(groups, g)
	}
	f, err := dotFigure{
		title:      "Cost of one barrier round at the co-resident limit",
		xLabel:     "time per barrier round (µs)",
		logX:       true,
		categories: barrierImpls,
		groups:     groups,
	}.save(dir, "barrier-limit")
	return append(files, f...), err
}

// barrierBlocks is the block size of a machine's rows ("mixed" when
// they differ).
func barrierBlocks(rows []Row) string {
	b := ""
	for _, r := range rows {
		switch {
		case b == "":
			b = r["block"]
		case r["block"] != b:
			return "mixed"
		}
	}
	return b
}

// barrierBoundary says, from a machine's rows, its co-resident limit (the
// limit point's CTAs; "" when it did not run) and how the points past it
// ended ("2113: deadlock ×4, refused ×1").
func barrierBoundary(rows []Row) (limit, past string) {
	counts := map[string]int{}
	var outs []string
	grid := ""
	for _, r := range rows {
		switch r["grid"] {
		case "limit":
			limit = r["ctas"]
		case "limit+1":
			if _, ok := counts[r["outcome"]]; !ok {
				outs = append(outs, r["outcome"])
			}
			counts[r["outcome"]]++
			grid = r["ctas"]
		}
	}
	if len(outs) == 0 {
		return limit, "nothing ran past it"
	}
	parts := make([]string, len(outs))
	for i, o := range outs {
		parts[i] = fmt.Sprintf("%s ×%d", o, counts[o])
	}
	return limit, grid + ": " + strings.Join(parts, ", ")
}

// barrierFindings summarise, per machine, the cost at the limit, how it
// grows with the grid, which implementation is fastest where, the
// deadlock boundary, and (with both targets) the simulated h100 against
// the GPU.
func barrierFindings(rows []Row) []string {
	var out []string
	order, by := barrierMachines(rows)
	perRound := func(rs []Row, impl, grid string) (float64, Row, bool) {
		for _, r := range rs {
			if r["barrier"] == impl && r["grid"] == grid && r["status"] == StatusOK {
				if x, ok := r.Float("us_per_round"); ok {
					return x, r, true
				}
			}
		}
		return 0, nil, false
	}
	for _, m := range order {
		rs := by[m]
		// Cost at the limit, fastest first.
		type cost struct {
			impl string
			us   float64
		}
		var at []cost
		limit := ""
		for _, impl := range barrierImpls {
			if x, r, ok := perRound(rs, impl, "limit"); ok {
				at = append(at, cost{impl, x})
				limit = r["ctas"] + " CTAs (" + r["ctas_per_sm"] + " per SM)"
			}
		}
		if len(at) > 0 {
			sort.SliceStable(at, func(i, j int) bool { return at[i].us < at[j].us })
			parts := make([]string, len(at))
			for i, c := range at {
				parts[i] = fmt.Sprintf("%s %s µs", c.impl, strconv.FormatFloat(c.us, 'f', 2, 64))
			}
			line := fmt.Sprintf("**%s**, at the co-resident limit of %s: %s", m, limit, strings.Join(parts, " < "))
			if len(at) > 1 && at[0].us > 0 {
				line += fmt.Sprintf(" per round; the slowest takes %.1f× the fastest", at[len(at)-1].us/at[0].us)
			}
			out = append(out, line+".")
		}
		// Growth from one CTA per SM to the limit, and the winner per grid.
		var growth []string
		for _, impl := range barrierImpls {
			lo, rlo, ok1 := perRound(rs, impl, "sms")
			hi, rhi, ok2 := perRound(rs, impl, "limit")
			if ok1 && ok2 && lo > 0 && rlo["ctas"] != rhi["ctas"] {
				growth = append(growth, fmt.Sprintf("%s %.1f×", impl, hi/lo))
			}
		}
		var winners []string
		same := true
		seen := map[string]bool{}
		first := ""
		for _, g := range barrierGrids {
			best, bestUS, ctas := "", math.Inf(1), ""
			for _, impl := range barrierImpls {
				if x, r, ok := perRound(rs, impl, g); ok && x < bestUS {
					best, bestUS, ctas = impl, x, r["ctas"]
				}
			}
			if best == "" || seen[ctas] {
				continue // two grid values can name one size (sms = limit/4 at 4 CTAs per SM)
			}
			seen[ctas] = true
			if first == "" {
				first = best
			}
			same = same && best == first
			winners = append(winners, fmt.Sprintf("%s at %s", best, ctas))
		}
		if same && len(winners) > 1 {
			winners = []string{first + " at every grid"}
		}
		if len(growth) > 0 || len(winners) > 0 {
			line := fmt.Sprintf("**%s**:", m)
			if len(growth) > 0 {
				line += " from one CTA per SM to the limit a round costs " + strings.Join(growth, ", ") + " as much"
				if len(winners) > 0 {
					line += ";"
				}
			}
			if len(winners) > 0 {
				line += " fastest: " + strings.Join(winners, ", ")
			}
			out = append(out, line+".")
		}
		// The deadlock boundary.
		completes := 0
		limits := 0
		for _, r := range rs {
			if r["grid"] == "limit" {
				limits++
				if r["status"] == StatusOK {
					completes++
				}
			}
		}
		if lim, past := barrierBoundary(rs); lim != "" || limits > 0 {
			expected := 0
			total := 0
			var ends []string
			for _, r := range rs {
				if r["grid"] != "limit+1" {
					continue
				}
				total++
				if r["status"] == StatusOK {
					expected++
				}
				if e, ok := r.Float("end_us"); ok {
					ends = append(ends, fmt.Sprintf("%s after %s µs", r["barrier"], strconv.FormatFloat(e, 'f', 0, 64)))
				}
			}
			line := fmt.Sprintf("**%s**, the deadlock boundary: %d of %d implementations complete at the limit (%s CTAs); one CTA past it, %s (%d of %d the expected end)",
				m, completes, limits, lim, past, expected, total)
			if len(ends) > 0 {
				line += "; the launch ended " + strings.Join(ends, ", ")
			}
			out = append(out, line+".")
		}
	}
	// The simulated h100 against a measured GPU, cell by cell.
	var sim, hw []Row
	for _, r := range okRows(rows) {
		switch {
		case r["target"] == TargetSim && r["config"] == "h100":
			sim = append(sim, r)
		case r["target"] == TargetHW:
			hw = append(hw, r)
		}
	}
	if len(sim) > 0 && len(hw) > 0 {
		var ratios []string
		var lo, hi float64 = math.Inf(1), math.Inf(-1)
		for _, h := range hw {
			hv, ok := h.Float("us_per_round")
			if !ok || hv <= 0 || h["grid"] != "limit" {
				continue
			}
			for _, s := range sim {
				if s["barrier"] == h["barrier"] && s["grid"] == h["grid"] {
					if sv, ok := s.Float("us_per_round"); ok {
						ratios = append(ratios, fmt.Sprintf("%s %.2f×", h["barrier"], sv/hv))
						lo, hi = math.Min(lo, sv/hv), math.Max(hi, sv/hv)
					}
				}
			}
		}
		if len(ratios) > 0 {
			out = append(out, fmt.Sprintf("**sim h100 vs %s**, cost per round at the limit, simulated ÷ measured: %s (range %.2f–%.2f×).",
				where(hw[0]), strings.Join(ratios, ", "), lo, hi))
		}
	}
	if n := len(rows) - len(okRows(rows)); n > 0 {
		out = append(out, fmt.Sprintf("%d points failed or did not validate (listed below).", n))
	}
	return out
}
