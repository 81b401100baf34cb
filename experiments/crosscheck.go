package experiments

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/scheduler"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CrossCheck says how `sweep crosscheck` compares an experiment's
// simulated points with its measured ones, cell by cell (the point key
// without the configuration), in the style of Accel-Sim's validation.
type CrossCheck struct {
	// Times are the statistics compared (unit µs); the first is the
	// headline, the one the winners and rank correlations use. A name in
	// Derived is computed from the row; any other is a column.
	Times []string
	// Derived are statistics computed from a row's columns, each returning
	// false where the row lacks what it needs.
	Derived map[string]func(Row) (float64, bool)
	// Iterations, when set, is the column counting the run's iterations:
	// the report says how many cells ran a different number on the two
	// targets (a nondeterministic algorithm's rounds depend on timing).
	Iterations string
	// Group names the axes of one workload and Candidate the axis whose
	// values compete on it: the cells of a group are the same work done in
	// different ways (variants), and the question is whether the
	// simulator ranks them as the GPU does. Without them only the per-cell
	// error is reported.
	Group     []string
	Candidate string
	// Context are statistics printed beside the largest errors, and
	// tested for a trend in the error.
	Context []string
	// MayDiffer names parameters that may differ between the two targets
	// because the compared statistics do not depend on them (a time per
	// barrier round whatever the rounds per launch; a spin budget that a
	// completing run never reaches). Any other parameter must match.
	MayDiffer []string
	// RankingsOnly, when set, says why the halves' times are not
	// comparable cell by cell (each target runs its own graph sizes, as the
	// scheduler issues ask): the report then gives the rankings, (b) and
	// (c), and neither the per-cell error nor the scatter plots.
	RankingsOnly string
	// WhatIf are candidate fidelity fixes the report evaluates on the data:
	// each rewrites a simulated value, and the report gives (a)-(c) again
	// with it, so a fix is chosen by what it would change.
	WhatIf []WhatIf
	// Launches, when set, is the column counting a cell's kernel launches:
	// per scheduler, the report fits the measured time as a multiple of the
	// simulated one plus a cost per launch, over the cells whose launches
	// agree, so that an error in what the simulator charges per launch
	// shows apart from an error in the work the launches do.
	Launches string
}

// WhatIf is a model change tried on the simulated values after the fact.
type WhatIf struct {
	Name, About string
	// Stat is the statistic it rewrites.
	Stat string
	// Apply returns the simulated value the change would give for row.
	Apply func(sim Row, value float64) float64
}

// CrossOptions configure a cross-check.
type CrossOptions struct {
	// Inputs are data.csv files (or folders holding one) of experiments
	// with a CrossCheck: each file may hold simulated rows, measured rows
	// or both.
	Inputs []string
	// Config is the simulator configuration compared with the GPU.
	Config string
	// Out is the folder of the report (data.csv, figures, README.md).
	Out string
	// CellsOf, when given, are data.csv files (or folders) whose cells
	// alone are compared (an earlier plan's, say), so that cross-checks of
	// plans that grew compare like with like.
	CellsOf []string
	// Command and Commit are stated in the README.
	Command, Commit string
}

// crossPair is one cell's statistic on both targets.
type crossPair struct {
	experiment, stat, cell string
	group, candidate       string
	sim, hw                Row
	s, h                   float64
}

func (p crossPair) ratio() float64    { return p.s / p.h }
func (p crossPair) logRatio() float64 { return math.Log(p.s / p.h) }
func (p crossPair) absPctError() float64 {
	return math.Abs(p.s-p.h) / p.h * 100
}

// crossExperiment is what one experiment's rows give.
type crossExperiment struct {
	e     *Experiment
	pairs map[string][]crossPair // by statistic
	// Cells counted per side: ok on both, ok on one only, failed.
	both, simOnly, hwOnly, simFailed, hwFailed int
	simRows, hwRows                            []Row
}

// CrossResult summarises a cross-check (the README holds the rest).
type CrossResult struct {
	Pairs int
	// MAPE and Pearson of the first experiment's headline statistic.
	MAPE, LogPearson float64
	// WinnersAgree of WinnerGroups groups pick the same fastest candidate;
	// SpearmanMean is the mean rank correlation over groups of 3 or more.
	WinnersAgree, WinnerGroups int
	SpearmanMean               float64
	Files                      []string
}

// CrossCheckReport joins simulated and measured rows of the inputs by
// cell and writes the comparison to o.Out: data.csv (one row per cell and
// statistic), a log-log scatter per experiment and statistic, and
// README.md with (a) the error and correlation per cell, (b) how often the
// simulator picks the GPU's fastest candidate, (c) the rank correlation of
// the candidates, (d) the cells with the largest error and the trends in
// the error.
func CrossCheckReport(reg *Registry, o CrossOptions) (*CrossResult, error) {
	if o.Config == "" {
		o.Config = "h100"
	}
	if len(o.Inputs) == 0 {
		return nil, fmt.Errorf("crosscheck: no inputs (give the simulator's and the GPU's data.csv)")
	}
	byName := map[string]*crossExperiment{}
	var order []string
	for _, in := range o.Inputs {
		path, rows, err := readData(in)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			name := r["experiment"]
			x, ok := byName[name]
			if !ok {
				e, err := reg.Lookup(name)
				if err != nil {
					return nil, fmt.Errorf("crosscheck: %s: %w", path, err)
				}
				if e.CrossCheck == nil {
					return nil, fmt.Errorf("crosscheck: %s: experiment %s does not say how to compare its targets (no CrossCheck)", path, name)
				}
				x = &crossExperiment{e: e, pairs: map[string][]crossPair{}}
				byName[name] = x
				order = append(order, name)
			}
			switch {
			case r["target"] == TargetSim && r["config"] == o.Config:
				x.simRows = append(x.simRows, r)
			case r["target"] == TargetHW:
				x.hwRows = append(x.hwRows, r)
			}
		}
	}
	if len(o.CellsOf) > 0 {
		keep, err := cellsOf(o.CellsOf)
		if err != nil {
			return nil, err
		}
		for _, x := range byName {
			x.simRows, x.hwRows = keepCells(x.simRows, keep), keepCells(x.hwRows, keep)
		}
	}
	for _, name := range order {
		x := byName[name]
		if len(x.simRows) == 0 || len(x.hwRows) == 0 {
			return nil, fmt.Errorf("crosscheck: experiment %s has %d simulated rows (config %s) and %d measured rows: it needs both",
				name, len(x.simRows), o.Config, len(x.hwRows))
		}
		if err := x.pair(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	res := &CrossResult{}
	var files []string
	for _, name := range order {
		x := byName[name]
		if x.e.CrossCheck.RankingsOnly != "" {
			continue
		}
		for _, stat := range x.e.CrossCheck.Times {
			fs, err := crossScatter(x, stat, o.Config, o.Out)
			if err != nil {
				return nil, err
			}
			files = append(files, fs...)
		}
	}
	if err := writeAtomically(filepath.Join(o.Out, DataFile), func(w io.Writer) error {
		return writeCrossCSV(w, order, byName)
	}); err != nil {
		return nil, err
	}
	files = append(files, DataFile)
	first := byName[order[0]]
	head := first.pairs[first.e.CrossCheck.Times[0]]
	res.Pairs = len(head)
	res.MAPE, res.LogPearson = meanAbsPctError(head), pearson(logsOf(head))
	if g := first.groups(); len(g) > 0 {
		w := winners(g)
		res.WinnersAgree, res.WinnerGroups = w.agree, w.groups
		res.SpearmanMean = w.spearmanMean
	}
	if err := writeAtomically(filepath.Join(o.Out, "README.md"), func(w io.Writer) error {
		return writeCrossReadme(w, o, order, byName, files)
	}); err != nil {
		return nil, err
	}
	res.Files = append(files, "README.md")
	return res, nil
}

// cellsOf is the set of cells (point keys without the configuration) of
// every row of the data.csv files or folders, keyed by experiment and cell.
func cellsOf(inputs []string) (map[string]bool, error) {
	keep := map[string]bool{}
	for _, in := range inputs {
		path, rows, err := readData(in)
		if err != nil {
			return nil, fmt.Errorf("crosscheck: --cells-of: %w", err)
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("crosscheck: --cells-of %s holds no rows", path)
		}
		for _, r := range rows {
			keep[experimentCell(r)] = true
		}
	}
	return keep, nil
}

// experimentCell names a row's cell across experiments.
func experimentCell(r Row) string { return r["experiment"] + "\x00" + cellOf(r.Key()) }

// keepCells keeps the rows whose cell is in keep.
func keepCells(rows []Row, keep map[string]bool) []Row {
	var out []Row
	for _, r := range rows {
		if keep[experimentCell(r)] {
			out = append(out, r)
		}
	}
	return out
}

// repetitionParams differ between targets by design (the simulator runs once,
// deterministically; the GPU warms up and takes a median).
var repetitionParams = []string{"warmup", "repeat"}

// pair matches the experiment's simulated and measured rows by cell; a
// cell measured with other parameters on the two targets (more work per
// thread on the GPU, say) is not comparable, and is an error.
func (x *crossExperiment) pair() error {
	cc := x.e.CrossCheck
	sims := map[string]Row{}
	for _, r := range latestByKey(x.simRows) {
		sims[cellOf(r.Key())] = r
	}
	hws := map[string]Row{}
	for _, r := range latestByKey(x.hwRows) {
		hws[cellOf(r.Key())] = r
	}
	var cells []string
	for c := range sims {
		cells = append(cells, c)
	}
	for c := range hws {
		if _, ok := sims[c]; !ok {
			cells = append(cells, c)
		}
	}
	sort.Strings(cells)
	for _, c := range cells {
		s, h := sims[c], hws[c]
		sOK := s != nil && s["status"] == StatusOK
		hOK := h != nil && h["status"] == StatusOK
		switch {
		case s != nil && !sOK:
			x.simFailed++
		case h != nil && !hOK:
			x.hwFailed++
		}
		switch {
		case sOK && hOK:
			x.both++
		case sOK:
			x.simOnly++
			continue
		case hOK:
			x.hwOnly++
			continue
		default:
			continue
		}
		for _, prm := range x.e.Params {
			free := slices.Contains(repetitionParams, prm.Name) || slices.Contains(cc.MayDiffer, prm.Name)
			if !free && s[prm.Name] != h[prm.Name] {
				return fmt.Errorf("crosscheck: %s, cell %s: parameter %s is %s in simulation and %s on the GPU: run both halves with the same --param %s=...",
					x.e.Name, c, prm.Name, s[prm.Name], h[prm.Name], prm.Name)
			}
		}
		var group []string
		for _, a := range cc.Group {
			group = append(group, a+"="+s[a])
		}
		for _, stat := range cc.Times {
			sv, ok1 := cc.value(s, stat)
			hv, ok2 := cc.value(h, stat)
			if !ok1 || !ok2 || sv <= 0 || hv <= 0 {
				continue
			}
			x.pairs[stat] = append(x.pairs[stat], crossPair{
				experiment: x.e.Name, stat: stat, cell: c,
				group: strings.Join(group, ";"), candidate: s[cc.Candidate],
				sim: s, hw: h, s: sv, h: hv,
			})
		}
	}
	return nil
}

// value is a row's statistic: derived, or a column.
func (cc *CrossCheck) value(r Row, stat string) (float64, bool) {
	if f, ok := cc.Derived[stat]; ok {
		return f(r)
	}
	return r.Float(stat)
}

// iterationsDiffer counts the headline pairs whose two runs took a
// different number of iterations.
func (x *crossExperiment) iterationsDiffer() (differ, of int) {
	col := x.e.CrossCheck.Iterations
	if col == "" {
		return 0, 0
	}
	for _, p := range x.pairs[x.e.CrossCheck.Times[0]] {
		si, ok1 := p.sim.Float(col)
		hi, ok2 := p.hw.Float(col)
		if !ok1 || !ok2 {
			continue
		}
		of++
		if si != hi {
			differ++
		}
	}
	return differ, of
}

// groups splits the headline pairs by workload (nil without a Group).
func (x *crossExperiment) groups() map[string][]crossPair {
	cc := x.e.CrossCheck
	if len(cc.Group) == 0 || cc.Candidate == "" {
		return nil
	}
	out := map[string][]crossPair{}
	for _, p := range x.pairs[cc.Times[0]] {
		out[p.group] = append(out[p.group], p)
	}
	return out
}

// winnerStats is (b) and (c) over a set of groups.
type winnerStats struct {
	groups, agree, near int
	// spearman holds the rank correlation of each group of 3 or more.
	spearman     []float64
	spearmanMean float64
	disagree     []string
}

// nearFactor is how much slower on the GPU the simulator's pick may be
// than the GPU's own fastest for the pick to count as near.
const nearFactor = 1.10

// sameSimulatedRun: two candidates whose simulations are identical (the
// same time and the same thread-instructions; the simulator is
// deterministic) are one configuration under two names, such as Atos's
// fetch=auto and fetch=32 outside colouring, and a pick of either agrees
// with the other. On the GPU such twins differ only by noise.
func sameSimulatedRun(a, b crossPair) bool {
	return a.s == b.s && a.sim["thread_instructions"] == b.sim["thread_instructions"] && a.sim["commit"] == b.sim["commit"]
}

// sameTimedVariant: two scheduler variants that differ only in
// measurement keys (scheduler.Key.Measurement, such as edge's census, whose
// launch is kept out of the kernel time) time the same kernels; on the GPU
// they differ by noise and by what the untimed launch left in the caches.
func sameTimedVariant(a, b crossPair) bool {
	va, err1 := scheduler.ParseVariant(a.candidate)
	vb, err2 := scheduler.ParseVariant(b.candidate)
	return err1 == nil && err2 == nil && va.Timed().String() == vb.Timed().String()
}

func winners(groups map[string][]crossPair) winnerStats {
	var w winnerStats
	for _, g := range sortedKeys(groups) {
		ps := groups[g]
		if len(ps) < 2 {
			continue
		}
		w.groups++
		bs, bh := 0, 0
		for i, p := range ps {
			if p.s < ps[bs].s {
				bs = i
			}
			if p.h < ps[bh].h {
				bh = i
			}
		}
		switch {
		case bs == bh || sameSimulatedRun(ps[bs], ps[bh]) || sameTimedVariant(ps[bs], ps[bh]):
			w.agree++
			w.near++
		case ps[bs].h <= nearFactor*ps[bh].h:
			w.near++
			fallthrough
		default:
			w.disagree = append(w.disagree, fmt.Sprintf("%s: simulator picks %s (GPU %s µs), the GPU %s (%s µs; simulated %s µs)",
				g, ps[bs].candidate, fmtMicros(ps[bs].h), ps[bh].candidate, fmtMicros(ps[bh].h), fmtMicros(ps[bh].s)))
		}
		if len(ps) >= 3 {
			xs, ys := make([]float64, len(ps)), make([]float64, len(ps))
			for i, p := range ps {
				xs[i], ys[i] = p.s, p.h
			}
			w.spearman = append(w.spearman, spearman(xs, ys))
		}
	}
	if len(w.spearman) > 0 {
		w.spearmanMean = mean(w.spearman)
	}
	return w
}

func writeCrossCSV(w io.Writer, order []string, byName map[string]*crossExperiment) error {
	header := []string{"experiment", "stat", "cell", "group", "candidate", "sim_us", "hw_us", "sim_over_hw", "abs_pct_error"}
	var ctx []string
	for _, name := range order {
		for _, c := range byName[name].e.CrossCheck.Context {
			if !slices.Contains(ctx, c) {
				ctx = append(ctx, c)
			}
		}
	}
	for _, c := range ctx {
		header = append(header, "sim_"+c, "hw_"+c)
	}
	header = append(header, "sim_commit", "hw_commit", "hw_device")
	var rows []Row
	for _, name := range order {
		x := byName[name]
		for _, stat := range x.e.CrossCheck.Times {
			for _, p := range x.pairs[stat] {
				r := Row{
					"experiment": p.experiment, "stat": p.stat, "cell": p.cell, "group": p.group, "candidate": p.candidate,
					"sim_us": p.sim[stat], "hw_us": p.hw[stat],
					"sim_over_hw":   strconv.FormatFloat(p.ratio(), 'f', 4, 64),
					"abs_pct_error": strconv.FormatFloat(p.absPctError(), 'f', 1, 64),
					"sim_commit":    p.sim["commit"], "hw_commit": p.hw["commit"], "hw_device": p.hw["device"],
				}
				for _, c := range ctx {
					r["sim_"+c], r["hw_"+c] = p.sim[c], p.hw[c]
				}
				rows = append(rows, r)
			}
		}
	}
	return writeCSV(w, header, rows)
}

// writeCrossReadme writes the report's README: the inputs, (a) the error
// per cell, the figures, per experiment the breakdowns and (b) and (c),
// the what-ifs, (d) the largest errors and trends, and the columns of
// data.csv.
func writeCrossReadme(w io.Writer, o CrossOptions, order []string, byName map[string]*crossExperiment, files []string) error {
	writeCrossHeader(w, o, order, byName)
	writeCrossErrors(w, order, byName)
	for _, f := range files {
		if strings.HasSuffix(f, ".png") {
			fmt.Fprintf(w, "![%s](%s)\n\n", strings.TrimSuffix(f, ".png"), f)
		}
	}
	for _, name := range order {
		x := byName[name]
		writeCrossBreakdowns(w, name, x)
		if groups := x.groups(); len(groups) > 0 {
			ws := winners(groups)
			writeCrossWinners(w, name, x.e.CrossCheck, ws)
			writeCrossRanks(w, name, x.e.CrossCheck, groups, ws)
		}
		writeCrossBySize(w, name, x)
	}
	for _, name := range order {
		x := byName[name]
		for _, wi := range x.e.CrossCheck.WhatIf {
			writeWhatIf(w, x, wi)
		}
	}
	fmt.Fprintln(w, "\n## (d) The largest errors, and trends in the error")
	for _, name := range order {
		writeLargestErrors(w, name, byName[name])
	}
	fmt.Fprintln(w, "\n## Columns of data.csv")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "One row per cell and statistic: `sim_us` and `hw_us` the simulated and measured values, `sim_over_hw` their ratio, `abs_pct_error` |sim − hw| ÷ hw in percent; `group` is the workload and `candidate` the competing value (variant); `sim_*`/`hw_*` are context statistics of each side, and the commits and the GPU name where the data came from.")
	return nil
}

// writeCrossHeader writes the title, which names the GPUs the inputs were
// measured on (the device column of their hardware rows, not a fixed
// model), the command and commit, and where each experiment's rows came
// from.
func writeCrossHeader(w io.Writer, o CrossOptions, order []string, byName map[string]*crossExperiment) {
	var hwRows []Row
	for _, name := range order {
		hwRows = append(hwRows, byName[name].hwRows...)
	}
	gpus := strings.Join(distinctValues(hwRows, "device"), ", ")
	if gpus == "" {
		gpus = "the GPU"
	}
	fmt.Fprintf(w, "# Simulator vs %s: the cross-check\n\n", gpus)
	fmt.Fprintf(w, "How well the simulated `%s` predicts the GPU, cell by cell: every cell that ran and validated on both targets. "+
		"Written by `warpgraph sweep crosscheck` from the sweeps' data.csv files; do not edit by hand: rerun the command.\n\n", o.Config)
	if o.Command != "" {
		fmt.Fprintf(w, "- **Command:** `%s`\n", o.Command)
	}
	if o.Commit != "" {
		fmt.Fprintf(w, "- **Commit of this report:** `%s`\n", o.Commit)
	}
	if len(o.CellsOf) > 0 {
		fmt.Fprintf(w, "- **Cells:** only those that %s hold\n", strings.Join(o.CellsOf, ", "))
	}
	fmt.Fprintln(w, "- **Inputs:**")
	for _, name := range order {
		x := byName[name]
		fmt.Fprintf(w, "  - `%s`: simulated on %s (commit %s, %s); measured on %s (commit %s, %s, %s)\n", name,
			distinct(x.simRows, "machine"), distinct(x.simRows, "commit"), dateRange(x.simRows),
			distinct(x.hwRows, "device"), distinct(x.hwRows, "commit"), distinct(x.hwRows, "machine"), dateRange(x.hwRows))
	}
}

// writeCrossErrors writes (a): the error and correlation of each
// experiment's statistics over the cells, then how many cells each target
// ran, and in how many the iterations differ.
func writeCrossErrors(w io.Writer, order []string, byName map[string]*crossExperiment) {
	fmt.Fprintln(w, "\n## (a) Simulated vs measured time per cell")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "MAPE is the mean of |sim − hw| ÷ hw; r is Pearson's correlation of the times and r(log) of their logarithms (the cells span orders of magnitude, so r on raw times is dominated by the slowest few); the ratio is the geometric mean of sim ÷ hw (below 1: the simulator is fast), with the share of cells within 2× of the GPU.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| experiment | statistic | cells | MAPE | r | r(log) | sim ÷ hw (geomean) | within 2× |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, name := range order {
		x := byName[name]
		if why := x.e.CrossCheck.RankingsOnly; why != "" {
			fmt.Fprintf(w, "| %s | – | %d | not compared: %s | | | | |\n", name, len(x.pairs[x.e.CrossCheck.Times[0]]), why)
			continue
		}
		for _, stat := range x.e.CrossCheck.Times {
			ps := x.pairs[stat]
			if len(ps) == 0 {
				continue
			}
			xs, ys := timesOf(ps)
			fmt.Fprintf(w, "| %s | %s | %d | %.0f%% | %s | %s | %.3f | %.0f%% |\n", name, stat, len(ps),
				meanAbsPctError(ps), corr(pearson(xs, ys)), corr(pearson(logsOf(ps))), geomeanRatio(ps), withinFactor(ps, 2)*100)
		}
	}
	fmt.Fprintln(w)
	for _, name := range order {
		x := byName[name]
		fmt.Fprintf(w, "`%s`: %d cells ok on both targets; %d ok only in simulation, %d only on the GPU (not simulated, or failed there); %d failed in simulation, %d on the GPU (their errors are in the inputs' READMEs).\n\n",
			name, x.both, x.simOnly, x.hwOnly, x.simFailed, x.hwFailed)
		if differ, of := x.iterationsDiffer(); of > 0 {
			fmt.Fprintf(w, "In %d of %d of them the two targets ran a different number of %s: the algorithm's rounds depend on timing (in-place PageRank and label propagation see values written in the same sweep, speculative colouring's clashes, asynchronous schedulers), so a time per iteration separates the timing model's error from the run's path.\n\n",
				differ, of, x.e.CrossCheck.Iterations)
		}
	}
}

// candidateScheduler is the scheduler of a pair's candidate variant (the
// variant without its keys).
func candidateScheduler(p crossPair) string {
	s, _, _ := strings.Cut(p.candidate, ":")
	return s
}

// writeCrossBreakdowns writes the headline statistic's error per
// scheduler, the fit of work and launches per scheduler, and the error
// per group axis, for an experiment compared cell by cell.
func writeCrossBreakdowns(w io.Writer, name string, x *crossExperiment) {
	cc := x.e.CrossCheck
	if cc.RankingsOnly != "" {
		return
	}
	stat := cc.Times[0]
	if cc.Candidate != "" {
		writeBreakdown(w, name, stat, "scheduler", x.pairs[stat], candidateScheduler)
		if cc.Launches != "" {
			writeLaunchFit(w, name, stat, cc.Launches, x.pairs[stat], candidateScheduler)
		}
	}
	for _, a := range cc.Group {
		writeBreakdown(w, name, stat, a, x.pairs[stat], func(p crossPair) string { return p.sim[a] })
	}
}

// sizeOf is a pair's graph size as the power of two nearest its vertex
// count ("" when the row has none): grid:w=1000,h=1000's 10^6 vertices
// count as 2^20.
func sizeOf(p crossPair) string {
	n, ok := p.sim.Float("vertices")
	if !ok || n < 1 {
		return ""
	}
	return fmt.Sprintf("2^%d", int(math.Round(math.Log2(n))))
}

// writeCrossBySize writes the headline statistic's figures, (b) and (c)
// per graph size, when the experiment's cells span several sizes: a
// cross-check at scale is judged at each size separately.
func writeCrossBySize(w io.Writer, name string, x *crossExperiment) {
	cc := x.e.CrossCheck
	if cc.RankingsOnly != "" {
		return
	}
	stat := cc.Times[0]
	bySize := map[string][]crossPair{}
	for _, p := range x.pairs[stat] {
		if s := sizeOf(p); s != "" {
			bySize[s] = append(bySize[s], p)
		}
	}
	if len(bySize) < 2 {
		return
	}
	groups := x.groups()
	fmt.Fprintf(w, "\n`%s`, %s, by graph size (vertices, to the nearest power of two):\n\n", name, stat)
	fmt.Fprintln(w, "| size | cells | MAPE | r(log) | within 20% | sim ÷ hw (geomean) | fastest agrees | mean ρ (workloads) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, size := range sortedKeys(bySize) {
		ps := bySize[size]
		r := "–"
		if len(ps) >= 3 {
			r = corr(pearson(logsOf(ps)))
		}
		agree, rho := "–", "–"
		if len(groups) > 0 {
			sized := map[string][]crossPair{}
			for g, gp := range groups {
				if len(gp) > 0 && sizeOf(gp[0]) == size {
					sized[g] = gp
				}
			}
			ws := winners(sized)
			if ws.groups > 0 {
				agree = fmt.Sprintf("%d of %d", ws.agree, ws.groups)
			}
			if len(ws.spearman) > 0 {
				rho = fmt.Sprintf("%.3f (%d)", ws.spearmanMean, len(ws.spearman))
			}
		}
		fmt.Fprintf(w, "| %s | %d | %.0f%% | %s | %.0f%% | %.3f | %s | %s |\n", size, len(ps), meanAbsPctError(ps), r, withinPctError(ps, 20)*100, geomeanRatio(ps), agree, rho)
	}
	if cc.Candidate == "" {
		return
	}
	fmt.Fprintf(w, "\n`%s`, %s, by graph size and scheduler:\n\n| size | scheduler | cells | MAPE | sim ÷ hw (geomean) | within 20%% |\n|---|---|---|---|---|---|\n", name, stat)
	for _, size := range sortedKeys(bySize) {
		bySched := map[string][]crossPair{}
		for _, p := range bySize[size] {
			bySched[candidateScheduler(p)] = append(bySched[candidateScheduler(p)], p)
		}
		for _, sc := range sortedKeys(bySched) {
			ps := bySched[sc]
			fmt.Fprintf(w, "| %s | %s | %d | %.0f%% | %.3f | %.0f%% |\n", size, sc, len(ps), meanAbsPctError(ps), geomeanRatio(ps), withinPctError(ps, 20)*100)
		}
	}
}

// writeCrossWinners writes (b): in how many workloads the simulator picks
// the GPU's fastest candidate, and the workloads where it does not.
func writeCrossWinners(w io.Writer, name string, cc *CrossCheck, ws winnerStats) {
	fmt.Fprintf(w, "\n## (b) Does the simulator pick the GPU's fastest %s? (`%s`, %s)\n\n", cc.Candidate, name, cc.Times[0])
	fmt.Fprintf(w, "Per workload (%s), among the %ss that ran on both targets: **%d of %d (%.0f%%)** agree on the fastest (target ≥ 90%%; candidates whose simulations are identical, or that differ only in an untimed measurement key such as edge's census, count as one); %d of %d (%.0f%%) pick one within %.0f%% of the GPU's fastest on the GPU.\n\n",
		strings.Join(cc.Group, ", "), cc.Candidate, ws.agree, ws.groups, pct(ws.agree, ws.groups), ws.near, ws.groups, pct(ws.near, ws.groups), (nearFactor-1)*100)
	for _, d := range ws.disagree {
		fmt.Fprintf(w, "- %s\n", d)
	}
}

// writeCrossRanks writes (c): the summary of the rank correlations over
// the workloads, then per workload its ρ and each target's fastest
// candidate.
func writeCrossRanks(w io.Writer, name string, cc *CrossCheck, groups map[string][]crossPair, ws winnerStats) {
	fmt.Fprintf(w, "\n## (c) Rank correlation of the %ss (`%s`, %s)\n\n", cc.Candidate, name, cc.Times[0])
	if len(ws.spearman) > 0 {
		sorted := slices.Clone(ws.spearman)
		sort.Float64s(sorted)
		at := 0
		for _, v := range ws.spearman {
			if v >= 0.9 {
				at++
			}
		}
		fmt.Fprintf(w, "Spearman's ρ between simulated and measured times (equivalently, of the speed-ups between %ss) per workload with 3 or more: mean **%.3f**, median %.3f, min %.3f, max %.3f over %d workloads; %d of them reach 0.9 (target: ≥ 0.9).\n\n",
			cc.Candidate, ws.spearmanMean, median(sorted), sorted[0], sorted[len(sorted)-1], len(sorted), at)
	}
	fmt.Fprintf(w, "| workload | %ss | ρ | fastest (sim) | fastest (GPU) |\n|---|---|---|---|---|\n", cc.Candidate)
	for _, g := range sortedKeys(groups) {
		ps := groups[g]
		if len(ps) < 2 {
			continue
		}
		bs, bh := ps[0], ps[0]
		xs, ys := make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			xs[i], ys[i] = p.s, p.h
			if p.s < bs.s {
				bs = p
			}
			if p.h < bh.h {
				bh = p
			}
		}
		rho := "–"
		if len(ps) >= 3 {
			rho = fmt.Sprintf("%.2f", spearman(xs, ys))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", g, len(ps), rho, bs.candidate, bh.candidate)
	}
}

// writeLargestErrors writes an experiment's part of (d): the twelve cells
// of the headline statistic furthest from the GPU, with their context
// statistics, and the trends of the error with those statistics.
func writeLargestErrors(w io.Writer, name string, x *crossExperiment) {
	cc := x.e.CrossCheck
	stat := cc.Times[0]
	ps := slices.Clone(x.pairs[stat])
	if cc.RankingsOnly != "" {
		fmt.Fprintf(w, "\n`%s`: not compared (%s).\n", name, cc.RankingsOnly)
		return
	}
	if len(ps) == 0 {
		return
	}
	sort.SliceStable(ps, func(i, j int) bool { return math.Abs(ps[i].logRatio()) > math.Abs(ps[j].logRatio()) })
	fmt.Fprintf(w, "\n`%s`, %s: the cells whose simulated time is furthest from the GPU's (by |log(sim ÷ hw)|).\n\n", name, stat)
	head := "| cell | sim µs | GPU µs | sim ÷ hw |"
	sep := "|---|---|---|---|"
	for _, c := range cc.Context {
		head += " " + c + " |"
		sep += "---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, sep)
	for _, p := range ps[:min(12, len(ps))] {
		line := fmt.Sprintf("| %s | %s | %s | %.2f |", p.cell, fmtMicros(p.s), fmtMicros(p.h), p.ratio())
		for _, c := range cc.Context {
			v := p.sim[c]
			if f, ok := p.sim.Float(c); ok && f != math.Trunc(f) {
				v = strconv.FormatFloat(f, 'g', 3, 64)
			}
			line += " " + v + " |"
		}
		fmt.Fprintln(w, line)
	}
	if len(cc.Context) > 0 {
		writeErrorTrends(w, cc.Context, ps)
	}
}

// writeErrorTrends writes the rank correlation between the log error and
// each context statistic (simulated side) over the cells.
func writeErrorTrends(w io.Writer, context []string, ps []crossPair) {
	fmt.Fprintf(w, "\nTrends: Spearman's ρ between log(sim ÷ hw) and each statistic (simulated side) over all %d cells. A negative ρ with launches says the simulator grows too slowly with the number of launches (launch and host overhead under-charged); with global atomics, that atomic contention is under-charged.\n\n", len(ps))
	fmt.Fprintln(w, "| statistic | ρ with log(sim ÷ hw) | cells |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, c := range context {
		var xs, ys []float64
		for _, p := range ps {
			if v, ok := p.sim.Float(c); ok {
				xs = append(xs, v)
				ys = append(ys, p.logRatio())
			}
		}
		if len(xs) >= 3 {
			fmt.Fprintf(w, "| %s | %.2f | %d |\n", c, spearman(xs, ys), len(xs))
		}
	}
}

// writeWhatIf evaluates a candidate fix: the error, the winners and the
// rank correlation with the rewritten simulated values.
func writeWhatIf(w io.Writer, x *crossExperiment, wi WhatIf) {
	ps := slices.Clone(x.pairs[wi.Stat])
	if len(ps) == 0 {
		return
	}
	for i := range ps {
		ps[i].s = wi.Apply(ps[i].sim, ps[i].s)
	}
	fmt.Fprintf(w, "\n## What if: %s (`%s`, %s)\n\n%s\n\n", wi.Name, x.e.Name, wi.Stat, wi.About)
	fmt.Fprintln(w, "| | MAPE | r(log) | sim ÷ hw (geomean) | within 2× | fastest agrees | mean ρ |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	row := func(label string, ps []crossPair) {
		agree, rho := "–", "–"
		cc := x.e.CrossCheck
		if len(cc.Group) > 0 && cc.Candidate != "" && wi.Stat == cc.Times[0] {
			groups := map[string][]crossPair{}
			for _, p := range ps {
				groups[p.group] = append(groups[p.group], p)
			}
			ws := winners(groups)
			agree = fmt.Sprintf("%d of %d", ws.agree, ws.groups)
			if len(ws.spearman) > 0 {
				rho = fmt.Sprintf("%.3f", ws.spearmanMean)
			}
		}
		fmt.Fprintf(w, "| %s | %.0f%% | %.3f | %.3f | %.0f%% | %s | %s |\n", label, meanAbsPctError(ps), pearson(logsOf(ps)), geomeanRatio(ps), withinFactor(ps, 2)*100, agree, rho)
	}
	row("as simulated", x.pairs[wi.Stat])
	row("with the change", ps)
}

// writeBreakdown prints the error per value of a column (per scheduler,
// per graph): where the simulator is off, and in which direction.
func writeBreakdown(w io.Writer, name, stat, by string, ps []crossPair, key func(crossPair) string) {
	groups := map[string][]crossPair{}
	for _, p := range ps {
		groups[key(p)] = append(groups[key(p)], p)
	}
	keys := sortedKeys(groups)
	fmt.Fprintf(w, "\n`%s`, %s, by %s:\n\n| %s | cells | MAPE | sim ÷ hw (geomean) | r(log) | within 2× |\n|---|---|---|---|---|---|\n", name, stat, by, by)
	for _, k := range keys {
		g := groups[k]
		r := "–"
		if len(g) >= 3 {
			r = corr(pearson(logsOf(g)))
		}
		fmt.Fprintf(w, "| %s | %d | %.0f%% | %.3f | %s | %.0f%% |\n", k, len(g), meanAbsPctError(g), geomeanRatio(g), r, withinFactor(g, 2)*100)
	}
}

// launchFit is the measured time as work × the simulated time plus
// perLaunch µs per launch, fitted over cells by least squares on the
// relative error.
type launchFit struct {
	work, perLaunch float64
	cells           int
	fitMAPE         float64 // of the fit's prediction
	ratioMAPE       float64 // of the simulated time itself
}

// fitLaunches fits hw ≈ work·sim + perLaunch·launches over the pairs whose
// launch column agrees on both targets; ok is false with fewer than 5 such
// cells or a degenerate system (every cell with the same launches-to-time
// ratio).
func fitLaunches(ps []crossPair, launches string) (launchFit, bool) {
	var a11, a12, a22, b1, b2 float64
	type cell struct{ s, n, h float64 }
	var cells []cell
	for _, p := range ps {
		ns, ok1 := p.sim.Float(launches)
		nh, ok2 := p.hw.Float(launches)
		if !ok1 || !ok2 || ns != nh || p.h <= 0 {
			continue
		}
		// Weight 1/h: minimise the relative error of the prediction.
		x0, x1, y := p.s/p.h, ns/p.h, 1.0
		a11 += x0 * x0
		a12 += x0 * x1
		a22 += x1 * x1
		b1 += x0 * y
		b2 += x1 * y
		cells = append(cells, cell{p.s, ns, p.h})
	}
	det := a11*a22 - a12*a12
	if len(cells) < 5 || math.Abs(det) < 1e-12*a11*a22 {
		return launchFit{}, false
	}
	f := launchFit{work: (b1*a22 - b2*a12) / det, perLaunch: (a11*b2 - a12*b1) / det, cells: len(cells)}
	for _, c := range cells {
		f.fitMAPE += math.Abs(f.work*c.s+f.perLaunch*c.n-c.h) / c.h * 100
		f.ratioMAPE += math.Abs(c.s-c.h) / c.h * 100
	}
	f.fitMAPE /= float64(len(cells))
	f.ratioMAPE /= float64(len(cells))
	return f, true
}

// writeLaunchFit prints, per scheduler, the fit of the measured time to
// the simulated work and the launches.
func writeLaunchFit(w io.Writer, name, stat, launches string, ps []crossPair, key func(crossPair) string) {
	groups := map[string][]crossPair{}
	for _, p := range ps {
		groups[key(p)] = append(groups[key(p)], p)
	}
	var lines []string
	for _, k := range sortedKeys(groups) {
		if f, ok := fitLaunches(groups[k], launches); ok {
			lines = append(lines, fmt.Sprintf("| %s | %d | %.2f | %+.2f | %.0f%% | %.0f%% |", k, f.cells, f.work, f.perLaunch, f.ratioMAPE, f.fitMAPE))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n`%s`, %s, work and launches: per scheduler, over the cells that made as many launches (%s) on both targets, the least-squares fit (on relative error) of GPU µs ≈ *work* × simulated µs + *per launch* × launches. A work factor above 1 says the simulator does the launches' work too fast; a positive cost per launch, that it charges each launch too little (a negative one, too much); MAPE before and after says how much of the error the two terms explain.\n\n", name, stat, launches)
	fmt.Fprintln(w, "| scheduler | cells | work | per launch (µs) | MAPE of sim | MAPE of fit |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// crossScatter draws simulated against measured values of one statistic,
// log-log, with y = x and the 2× band, coloured by scheduler when the
// experiment has candidates.
func crossScatter(x *crossExperiment, stat, config, dir string) ([]string, error) {
	ps := x.pairs[stat]
	if len(ps) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s, sim %s vs GPU (%d cells)", x.e.Name, stat, config, len(ps))
	unit := "µs"
	if strings.HasSuffix(stat, "_per_iteration") {
		unit = "µs per iteration"
	}
	p.X.Label.Text = fmt.Sprintf("measured on the GPU (%s)", unit)
	p.Y.Label.Text = fmt.Sprintf("simulated, %s (%s)", config, unit)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range ps {
		lo = math.Min(lo, math.Min(q.s, q.h))
		hi = math.Max(hi, math.Max(q.s, q.h))
	}
	lo, hi = lo/1.5, hi*1.5
	for _, f := range []float64{1, 2, 0.5} {
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * f}, {X: hi, Y: hi * f}})
		if err != nil {
			return nil, err
		}
		line.Color = color.Gray{Y: 60}
		if f != 1 {
			line.Color = color.Gray{Y: 160}
			line.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		p.Add(line)
		if f == 1 {
			p.Legend.Add("y = x", line)
		} else if f == 2 {
			p.Legend.Add("2× either way", line)
		}
	}
	colourOf := func(q crossPair) string {
		if x.e.CrossCheck.Candidate == "" {
			return x.e.Name
		}
		return candidateScheduler(q)
	}
	var keys []string
	byKey := map[string]plotter.XYs{}
	for _, q := range ps {
		k := colourOf(q)
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], plotter.XY{X: q.h, Y: q.s})
	}
	sort.Strings(keys)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}
	for i, k := range keys {
		sc, err := plotter.NewScatter(byKey[k])
		if err != nil {
			return nil, err
		}
		sc.Color = palette[i%len(palette)]
		sc.Shape = shapes[i%len(shapes)]
		sc.Radius = vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (%d)", k, len(byKey[k])), sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	return saveAll(p, dir, "scatter-"+x.e.Name+"-"+strings.TrimSuffix(stat, "_us"), 16*vg.Centimeter, 14*vg.Centimeter)
}

func timesOf(ps []crossPair) (xs, ys []float64) {
	for _, p := range ps {
		xs = append(xs, p.s)
		ys = append(ys, p.h)
	}
	return xs, ys
}

func logsOf(ps []crossPair) (xs, ys []float64) {
	for _, p := range ps {
		xs = append(xs, math.Log(p.s))
		ys = append(ys, math.Log(p.h))
	}
	return xs, ys
}

func meanAbsPctError(ps []crossPair) float64 {
	if len(ps) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, p := range ps {
		sum += p.absPctError()
	}
	return sum / float64(len(ps))
}

func geomeanRatio(ps []crossPair) float64 {
	if len(ps) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, p := range ps {
		sum += p.logRatio()
	}
	return math.Exp(sum / float64(len(ps)))
}

// withinFactor is the share of pairs whose ratio lies in [1/f, f].
// withinPctError is the share of pairs whose simulated value is within
// pct percent of the measured one.
func withinPctError(ps []crossPair, pct float64) float64 {
	if len(ps) == 0 {
		return math.NaN()
	}
	n := 0
	for _, p := range ps {
		if p.absPctError() <= pct {
			n++
		}
	}
	return float64(n) / float64(len(ps))
}

func withinFactor(ps []crossPair, f float64) float64 {
	if len(ps) == 0 {
		return math.NaN()
	}
	n := 0
	for _, p := range ps {
		if r := p.ratio(); r >= 1/f && r <= f {
			n++
		}
	}
	return float64(n) / float64(len(ps))
}

// pearson is the linear correlation of xs and ys (NaN when either is
// constant or there are fewer than two).
func pearson(xs, ys []float64) float64 {
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN()
	}
	mx, my := mean(xs), mean(ys)
	var sxy, sxx, syy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	// A series constant up to rounding (its spread under 1e-9 of its
	// mean) has no correlation either: it would print as a noisy ±0.
	n := float64(len(xs))
	if sxx <= 1e-18*n*mx*mx || syy <= 1e-18*n*my*my {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// spearman is Pearson's correlation of the ranks (ties get their mean
// rank).
func spearman(xs, ys []float64) float64 { return pearson(ranks(xs), ranks(ys)) }

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = r
		}
		i = j + 1
	}
	return out
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// median of sorted values.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func pct(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return 100 * float64(a) / float64(b)
}

// corr prints a correlation, or "–" where it is undefined (a constant
// series, such as a conflict-free layout's times at every stride).
func corr(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func fmtMicros(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// sortedKeys lists a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
