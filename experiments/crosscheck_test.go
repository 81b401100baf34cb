package experiments

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crossExperimentForTest times candidates b on workloads a: on the GPU
// candidate w is fastest everywhere; the simulator agrees on a=1 and a=2
// (times off by a constant factor 2) and reverses the order on a=3.
func crossExperimentForTest() *Experiment {
	e := fakeExperiment(nil)
	e.Name = "fakecross"
	order := map[string]float64{"x": 4, "y": 3, "z": 2, "w": 1}
	e.Run = func(_ context.Context, _ *Env, p Point) (Outcome, error) {
		a, _ := p.Int("a")
		t := 10 * float64(a) * order[p.Get("b")]
		if p.Target == TargetSim {
			t *= 2
			if a == 3 {
				t = 100 / order[p.Get("b")]
			}
		}
		return Outcome{Values: map[string]string{"t_us": strconv.FormatFloat(t, 'f', -1, 64)}, Valid: true, Validation: "checked"}, nil
	}
	e.CrossCheck = &CrossCheck{Times: []string{"t_us"}, Group: []string{"a"}, Candidate: "b",
		WhatIf: []WhatIf{{Name: "half the time", About: "The simulator runs twice as long.", Stat: "t_us",
			Apply: func(_ Row, v float64) float64 { return v / 2 }}}}
	return e
}

// sweepBothTargets runs e on the simulated tiny (timing mode) and on the
// fake GPU, into dir/sim and dir/hw.
func sweepBothTargets(t *testing.T, e *Experiment, dir string) (simDir, hwDir string) {
	t.Helper()
	simDir, hwDir = filepath.Join(dir, "sim"), filepath.Join(dir, "hw")
	_, err := Sweep(context.Background(), e, Options{Plan: Plan{Experiment: e.Name, Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing"}, Out: simDir, Now: fixedClock})
	require.NoError(t, err)
	_, err = Sweep(context.Background(), e, Options{Plan: Plan{Experiment: e.Name, Target: TargetHW}, Out: hwDir, Now: fixedClock})
	require.NoError(t, err)
	return simDir, hwDir
}

func TestCrossCheckReportsErrorWinnersAndRanks(t *testing.T) {
	reg := NewRegistry()
	e := crossExperimentForTest()
	reg.Register(e)
	dir := t.TempDir()
	simDir, hwDir := sweepBothTargets(t, e, dir)
	_, err := CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: filepath.Join(dir, "x")})
	require.ErrorContains(t, err, "parameter scale is 10 in simulation and 100 on the GPU", "cells made with other work are not compared")
	hwDir = filepath.Join(dir, "hw-same")
	_, err = Sweep(context.Background(), e, Options{Plan: Plan{Experiment: e.Name, Target: TargetHW, Params: map[string]string{"scale": "10"}}, Out: hwDir, Now: fixedClock})
	require.NoError(t, err)

	out := filepath.Join(dir, "cross")
	res, err := CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, filepath.Join(hwDir, DataFile)}, Config: "tiny", Out: out})
	require.NoError(t, err)
	assert.Equal(t, 12, res.Pairs)
	assert.Equal(t, 3, res.WinnerGroups)
	assert.Equal(t, 2, res.WinnersAgree, "a=3 is reversed")
	// Spearman: 1, 1 and -1 on the three workloads.
	assert.InDelta(t, 1.0/3, res.SpearmanMean, 1e-9)
	// a=1,2: sim = 2 hw (100% error); a=3: 100/o vs 30 o for o = 4..1.
	want := 0.0
	for _, o := range []float64{4, 3, 2, 1} {
		want += 100 + 100 + math.Abs(100/o-30*o)/(30*o)*100
	}
	assert.InDelta(t, want/12, res.MAPE, 1e-6)
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "**2 of 3 (67%)** agree on the fastest")
	title, _, _ := strings.Cut(string(readme), "\n")
	require.Empty(t, distinctValues(readRowsForTest(t, hwDir), "device")[0], "the fake GPU has no name")
	assert.Equal(t, "# Simulator vs the GPU: the cross-check", title, "the title names no GPU the points were not measured on")
	assert.Contains(t, string(readme), "a=3: simulator picks x")
	assert.FileExists(t, filepath.Join(out, "scatter-fakecross-t.png"))
	// The what-if halves every simulated time: a=1,2 become exact, a=3
	// keeps its reversed order, so the MAPE falls and the winners stay.
	halved := 0.0
	for _, o := range []float64{4, 3, 2, 1} {
		halved += math.Abs(50/o-30*o) / (30 * o) * 100
	}
	assert.Contains(t, string(readme), "## What if: half the time")
	assert.Contains(t, string(readme), fmt.Sprintf("| as simulated | %.0f%% |", want/12))
	assert.Contains(t, string(readme), fmt.Sprintf("| with the change | %.0f%% |", halved/12))
	_, rows, err := ReadCSV(filepath.Join(out, DataFile))
	require.NoError(t, err)
	assert.Len(t, rows, 12)

	// --cells-of compares only the cells an earlier plan held: here the
	// hardware points of workloads a=1 and a=3 (either target's rows name
	// cells).
	early := filepath.Join(dir, "early")
	_, err = Sweep(context.Background(), e, Options{Plan: Plan{Experiment: e.Name, Target: TargetHW, Params: map[string]string{"scale": "10"},
		Filter: []string{"a=1|3"}}, Out: early, Now: fixedClock})
	require.NoError(t, err)
	some, err := CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: filepath.Join(dir, "some"), CellsOf: []string{early}})
	require.NoError(t, err)
	assert.Equal(t, 8, some.Pairs)
	assert.Equal(t, 2, some.WinnerGroups)
	assert.Equal(t, 1, some.WinnersAgree, "a=1 agrees, a=3 is reversed")
	readme, err = os.ReadFile(filepath.Join(dir, "some", "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "- **Cells:** only those that "+early+" hold")
	_, err = CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: filepath.Join(dir, "none"), CellsOf: []string{filepath.Join(dir, "missing")}})
	assert.ErrorContains(t, err, "--cells-of", "a --cells-of file that cannot be read is an error that names the flag")

	// An experiment with rows on one target only, or none that says how to
	// compare, is an error that names it.
	_, err = CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir}, Config: "tiny", Out: out})
	assert.ErrorContains(t, err, "0 measured rows")
	plain := fakeExperiment(nil)
	reg2 := NewRegistry()
	plain.Name = "fakecross"
	reg2.Register(plain)
	_, err = CrossCheckReport(reg2, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: out})
	assert.ErrorContains(t, err, "no CrossCheck")
}

// An experiment whose targets run different sizes by design compares the
// rankings only: its size parameter may differ, and the report gives the
// winners and rank correlations without per-cell errors or scatter plots.
func TestCrossCheckRankingsOnly(t *testing.T) {
	reg := NewRegistry()
	e := crossExperimentForTest()
	e.CrossCheck.MayDiffer = []string{"scale"}
	e.CrossCheck.RankingsOnly = "each target runs its own size"
	reg.Register(e)
	dir := t.TempDir()
	simDir, hwDir := sweepBothTargets(t, e, dir)
	out := filepath.Join(dir, "cross")
	res, err := CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: out})
	require.NoError(t, err, "the scale differs, as the experiment allows")
	assert.Equal(t, 2, res.WinnersAgree)
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "**2 of 3 (67%)** agree on the fastest")
	assert.Contains(t, string(readme), "not compared: each target runs its own size")
	assert.NotContains(t, string(readme), "| t_us | 12 |", "no per-cell error")
	assert.NoFileExists(t, filepath.Join(out, "scatter-fakecross-t.png"))
}

func TestSpearmanAveragesTies(t *testing.T) {
	assert.Equal(t, []float64{1.5, 1.5, 3}, ranks([]float64{2, 2, 5}))
	assert.InDelta(t, 1, spearman([]float64{1, 2, 3}, []float64{10, 20, 300}), 1e-12)
	assert.InDelta(t, -1, spearman([]float64{1, 2, 3}, []float64{3, 2, 1}), 1e-12)
}

// Two candidates whose simulations are identical are one configuration
// under two names: the simulator's pick of one agrees with the GPU's pick
// of the other (on the GPU they differ only by noise). Candidates that
// merely tie in time but ran different instructions still disagree.
func TestPearsonOfAConstantSeriesIsUndefined(t *testing.T) {
	// 18.106 µs computed from cycles by different paths differs in the last
	// bits: still constant, so no correlation (not a printed -0.000).
	noisy := []float64{18.106, 18.106 + 1e-14, 18.106 - 1e-14, 18.106}
	assert.True(t, math.IsNaN(pearson(noisy, []float64{1, 2, 3, 4})))
	assert.True(t, math.IsNaN(pearson([]float64{0, 0, 0}, []float64{1, 2, 3})))
	assert.InDelta(t, 1, pearson([]float64{1e-9, 2e-9, 3e-9}, []float64{1, 2, 3}), 1e-12, "small values are not constant")
}

func TestWinnersCountIdenticalSimulationsAsOne(t *testing.T) {
	pair := func(c string, s, h float64, insts string) crossPair {
		return crossPair{candidate: c, s: s, h: h, sim: Row{"thread_instructions": insts, "commit": "abc"}}
	}
	twins := map[string][]crossPair{"g": {pair("auto", 10, 5.2, "100"), pair("32", 10, 5.0, "100"), pair("slow", 30, 20, "300")}}
	w := winners(twins)
	assert.Equal(t, 1, w.agree, "auto and 32 are the same simulated run")
	assert.Empty(t, w.disagree)

	distinct := map[string][]crossPair{"g": {pair("a", 10, 5.2, "100"), pair("b", 10, 5.0, "101"), pair("slow", 30, 20, "300")}}
	w = winners(distinct)
	assert.Equal(t, 0, w.agree, "same time, different work: two configurations")
	assert.Len(t, w.disagree, 1)
}

// Variants that differ only in a measurement key (edge's census: an
// untimed launch before each sweep) time the same kernels: a pick of one
// agrees with the other. Variants that differ in a timed key do not.
func TestWinnersCountMeasurementOnlyVariantsAsOne(t *testing.T) {
	pair := func(c string, s, h float64, insts string) crossPair {
		return crossPair{candidate: c, s: s, h: h, sim: Row{"thread_instructions": insts, "commit": "abc"}}
	}
	census := map[string][]crossPair{"g": {
		pair("edge:cache=shared,census=on", 10.0, 5.3, "100"),
		pair("edge:cache=shared,census=off", 10.1, 5.0, "101"),
		pair("bsp", 30, 20, "300")}}
	w := winners(census)
	assert.Equal(t, 1, w.agree, "census on and off time the same kernels")
	assert.Empty(t, w.disagree)

	cache := map[string][]crossPair{"g": {
		pair("edge:cache=shared,census=off", 10.0, 5.3, "100"),
		pair("edge:cache=global,census=off", 10.1, 5.0, "101"),
		pair("bsp", 30, 20, "300")}}
	w = winners(cache)
	assert.Equal(t, 0, w.agree, "shared and global caching are two configurations")
	assert.Len(t, w.disagree, 1)
}

// A derived statistic (time per iteration) is compared like a column, and
// the report counts the cells whose two runs took different iterations.
func TestCrossCheckDerivedPerIterationTime(t *testing.T) {
	e := fakeExperiment(nil)
	e.Name = "fakeiter"
	e.Params = nil
	e.Stats = append(e.Stats, Stat{"iterations", "", "rounds"})
	e.Run = func(_ context.Context, _ *Env, p Point) (Outcome, error) {
		// Both targets take 10 µs per iteration; the simulator runs a=3
		// for twice the iterations, so its total time is 2× off there.
		a, _ := p.Int("a")
		iters := a
		if p.Target == TargetSim && a == 3 {
			iters = 2 * a
		}
		return Outcome{Values: map[string]string{"t_us": strconv.Itoa(10 * iters), "iterations": strconv.Itoa(iters)}, Valid: true, Validation: "checked"}, nil
	}
	e.CrossCheck = &CrossCheck{
		Times: []string{"t_us", "t_per_iteration_us"},
		Derived: map[string]func(Row) (float64, bool){"t_per_iteration_us": func(r Row) (float64, bool) {
			us, ok1 := r.Float("t_us")
			n, ok2 := r.Float("iterations")
			return us / n, ok1 && ok2 && n > 0
		}},
		Iterations: "iterations", Group: []string{"a"}, Candidate: "b",
	}
	reg := NewRegistry()
	reg.Register(e)
	dir := t.TempDir()
	simDir, hwDir := sweepBothTargets(t, e, dir)
	out := filepath.Join(dir, "cross")
	res, err := CrossCheckReport(reg, CrossOptions{Inputs: []string{simDir, hwDir}, Config: "tiny", Out: out})
	require.NoError(t, err)
	// Headline t_us: a=3's four cells 100% off, the other eight exact.
	assert.InDelta(t, 100.0*4/12, res.MAPE, 1e-9)
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "| fakeiter | t_per_iteration_us | 12 | 0% |", "per iteration every cell agrees")
	assert.Contains(t, string(readme), "In 4 of 12 of them the two targets ran a different number of iterations")
	assert.FileExists(t, filepath.Join(out, "scatter-fakeiter-t_per_iteration.png"))
}

// TestFitLaunchesSeparatesWorkFromLaunchCost: cells whose measured time is
// 1.3 × the simulated one plus 2 µs per launch give back those two terms;
// a cell whose launch counts differ between the targets is left out, and
// fewer than five usable cells give no fit.
func TestFitLaunchesSeparatesWorkFromLaunchCost(t *testing.T) {
	var ps []crossPair
	for i, c := range []struct{ sim, launches float64 }{{10, 1}, {40, 3}, {25, 10}, {100, 4}, {7, 20}, {60, 60}} {
		n := strconv.FormatFloat(c.launches, 'g', -1, 64)
		ps = append(ps, crossPair{
			cell: strconv.Itoa(i), s: c.sim, h: 1.3*c.sim + 2*c.launches,
			sim: Row{"launches": n}, hw: Row{"launches": n},
		})
	}
	// A cell that ran more launches on the GPU: left out, though it would
	// pull the fit far off.
	ps = append(ps, crossPair{cell: "odd", s: 10, h: 500, sim: Row{"launches": "1"}, hw: Row{"launches": "2"}})
	f, ok := fitLaunches(ps, "launches")
	require.True(t, ok)
	assert.Equal(t, 6, f.cells)
	assert.InDelta(t, 1.3, f.work, 1e-9)
	assert.InDelta(t, 2.0, f.perLaunch, 1e-9)
	assert.InDelta(t, 0, f.fitMAPE, 1e-9)
	assert.Greater(t, f.ratioMAPE, 20.0, "the simulated time alone is off")

	_, ok = fitLaunches(ps[:4], "launches")
	assert.False(t, ok, "four cells are too few")
	_, ok = fitLaunches(ps, "no_such_column")
	assert.False(t, ok)
}

// readRowsForTest reads dir's data.csv.
func readRowsForTest(t *testing.T, dir string) []Row {
	t.Helper()
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	return rows
}

// TestCrossCheckReadmeRegeneratesCommittedReport rebuilds a committed
// cross-check from its committed inputs: the README must come out byte for
// byte as committed (the report's writer is refactored against it; a
// change that is meant to alter the prose regenerates the file with the
// command it names).
func TestCrossCheckReadmeRegeneratesCommittedReport(t *testing.T) {
	const dir = "../results/banks-geometry"
	want, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	out := t.TempDir()
	_, err = CrossCheckReport(Default, CrossOptions{
		Inputs:  []string{filepath.Join(dir, "sim"), filepath.Join(dir, "hw-h200")},
		Config:  "h100",
		Out:     out,
		Command: "warpgraph sweep crosscheck results/banks-geometry/sim results/banks-geometry/hw-h200 --out results/banks-geometry",
		Commit:  "2344f66",
	})
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// A cross-check over several graph sizes is reported per size: the error
// table, the fastest-candidate agreement and the rank correlation of each
// size's own cells (grid:w=1000,h=1000's 10^6 vertices count as 2^20).
func TestCrossCheckBySize(t *testing.T) {
	e := fakeExperiment(nil)
	e.Name = "fakesize"
	e.CrossCheck = &CrossCheck{Times: []string{"t_us"}, Group: []string{"graph"}, Candidate: "variant"}
	pair := func(graph, vertices, variant string, s, h float64) crossPair {
		row := Row{"graph": graph, "vertices": vertices, "variant": variant}
		return crossPair{stat: "t_us", group: "graph=" + graph, candidate: variant, sim: row, hw: row, s: s, h: h}
	}
	x := &crossExperiment{e: e, pairs: map[string][]crossPair{"t_us": {
		// 2^18: the simulator orders a < b < c as the GPU does, within 10%.
		pair("small", "262144", "a", 10, 10), pair("small", "262144", "b", 22, 20), pair("small", "262144", "c", 27, 30),
		// 2^20: it reverses a and b, 50% off on one.
		pair("large", "1000000", "a", 30, 20), pair("large", "1000000", "b", 25, 25),
	}}}
	var b strings.Builder
	writeCrossBySize(&b, "fakesize", x)
	out := b.String()
	assert.Contains(t, out, "| 2^18 | 3 | 7% |")
	assert.Contains(t, out, "| 100% | ")
	assert.Contains(t, out, "| 1 of 1 | 1.000 (1) |")
	assert.Contains(t, out, "| 2^20 | 2 | 25% | – | 50% |")
	assert.Contains(t, out, "| 0 of 1 | – |", "two candidates give no rank correlation")
	assert.Contains(t, out, "by graph size and scheduler")
	assert.Contains(t, out, "| 2^20 | b | 1 | 0% | 1.000 | 100% |", "each size's cells per scheduler")

	// One size: no table.
	x.pairs["t_us"] = x.pairs["t_us"][:3]
	b.Reset()
	writeCrossBySize(&b, "fakesize", x)
	assert.Empty(t, b.String())
}
