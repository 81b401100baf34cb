package experiments

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InputError is a problem with what Merge or Join was given — folders of
// different sweeps, missing or duplicate points, a CSV of the wrong target
// or one file given twice — rather than a failure while working (a write):
// commands exit with status 2 (bad input) on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// badInput returns an InputError with a formatted message.
func badInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// MergeResult says what Merge wrote.
type MergeResult struct {
	Plan  Plan
	Rows  int
	Files []string
}

// Merge joins the data.csv files of a sweep's shards (each folder written
// by Sweep with --shard) into out: it checks that every folder belongs to
// the same sweep, that no point appears twice and that none is missing,
// then writes data.csv in sweep order, sweep.json, the plots and
// README.md.
func Merge(reg *Registry, dirs []string, out, command, commit string) (*MergeResult, error) {
	if len(dirs) == 0 {
		return nil, badInput("merge needs at least one shard folder")
	}
	var plan Plan
	var shardCommand string
	var simThreads int
	var e *Experiment
	var rows []Row
	from := map[string]string{} // key -> folder
	var dups []string
	for i, dir := range dirs {
		pf, err := readPlan(dir)
		if err != nil {
			return nil, badInput("shard folder %s: %w", dir, err)
		}
		if i == 0 {
			plan, shardCommand, simThreads = pf.Plan, pf.Command, pf.SimThreads
			if e, err = reg.Lookup(plan.Experiment); err != nil {
				return nil, badInput("%s: %w", dir, err)
			}
		} else if !plan.sameSweep(pf.Plan) {
			return nil, badInput("%s holds another sweep than %s (experiment, target, configurations, mode, parameters or filter differ)", dir, dirs[0])
		} else if (pf.SimThreads > 0) != (simThreads > 0) {
			return nil, badInput("%s was simulated on %s and %s on %s, whose figures may differ", dir, engine(pf.SimThreads), dirs[0], engine(simThreads))
		}
		header, got, err := ReadCSV(filepath.Join(dir, DataFile))
		if err != nil {
			return nil, &InputError{err}
		}
		if !slices.Equal(header, Header(e)) {
			return nil, badInput("%s: its columns are not those experiment %s writes now", filepath.Join(dir, DataFile), e.Name)
		}
		for _, r := range latestByKey(got) {
			if prev, ok := from[r.Key()]; ok {
				dups = append(dups, fmt.Sprintf("%s (in %s and %s)", r.Key(), prev, dir))
				continue
			}
			from[r.Key()] = dir
			rows = append(rows, r)
		}
	}
	whole := plan.Whole()
	points, err := whole.Points(e)
	if err != nil {
		return nil, &InputError{err}
	}
	order := map[string]int{}
	var missing []string
	for _, p := range points {
		order[p.Key()] = p.Index
		if _, ok := from[p.Key()]; !ok {
			missing = append(missing, p.Key())
		}
	}
	var extra []string
	for _, r := range rows {
		if _, ok := order[r.Key()]; !ok {
			extra = append(extra, r.Key())
		}
	}
	var problems []string
	if len(dups) > 0 {
		problems = append(problems, fmt.Sprintf("%d duplicate points: %s", len(dups), listSome(dups)))
	}
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d points missing: %s", len(missing), len(points), listSome(missing)))
	}
	if len(extra) > 0 {
		problems = append(problems, fmt.Sprintf("%d points that the sweep does not have: %s", len(extra), listSome(extra)))
	}
	if len(problems) > 0 {
		return nil, badInput("merging %s: %s", e.Name, strings.Join(problems, "; "))
	}
	sortRows(rows, order)
	header := Header(e)
	if err := writeAtomically(filepath.Join(out, DataFile), func(w io.Writer) error { return writeCSV(w, header, rows) }); err != nil {
		return nil, err
	}
	if err := writePlan(out, planFile{whole, shardCommand, simThreads}); err != nil {
		return nil, err
	}
	files, err := Report(e, out, rows, ReportInfo{Commands: []string{shardCommand + "  (the first shard's; the shards differ only in --shard and --out)", command}, Commit: commit, SimThreads: simThreads})
	return &MergeResult{Plan: whole, Rows: len(rows), Files: files}, err
}

// listSome names the first few items of a list.
func listSome(items []string) string {
	const most = 8
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + fmt.Sprintf(" and %d more", len(items)-most)
}

// Join matches the rows of a simulator sweep with those of a hardware
// sweep of the same experiment by point cell (the key without the
// configuration) and writes one CSV row per simulated point: the axes,
// then the simulator's and the hardware's parameters, statistics and
// status side by side (prefixed sim_ and hw_), and for every time column
// (unit µs) the ratio simulated/measured. A cell with no partner has empty
// cells on that side; hardware rows with no simulated partner follow.
func Join(reg *Registry, simPath, hwPath string, w io.Writer) (int, error) {
	if sameFile(simPath, hwPath) {
		return 0, badInput("join: %s and %s are the same file: give the simulator's CSV, then the hardware's", simPath, hwPath)
	}
	_, simRows, err := ReadCSV(simPath)
	if err != nil {
		return 0, &InputError{err}
	}
	_, hwRows, err := ReadCSV(hwPath)
	if err != nil {
		return 0, &InputError{err}
	}
	name := ""
	for _, rs := range [][]Row{simRows, hwRows} {
		for _, r := range rs {
			if name == "" {
				name = r["experiment"]
			} else if r["experiment"] != name {
				return 0, badInput("join: rows of experiments %s and %s", name, r["experiment"])
			}
		}
	}
	if name == "" {
		return 0, badInput("join: %s and %s hold no rows", simPath, hwPath)
	}
	e, err := reg.Lookup(name)
	if err != nil {
		return 0, &InputError{err}
	}
	for _, r := range simRows {
		if r["target"] != TargetSim {
			return 0, badInput("join: %s has a %s row (%s); give the simulator's CSV first", simPath, r["target"], r.Key())
		}
	}
	hwByCell := map[string]Row{}
	for _, r := range hwRows {
		if r["target"] != TargetHW {
			return 0, badInput("join: %s has a %s row (%s); give the hardware CSV second", hwPath, r["target"], r.Key())
		}
		hwByCell[cellOf(r.Key())] = r
	}
	side := append(paramNames(e.Params), statNames(e.Stats)...)
	side = append(side, "status", "commit", "date")
	header := append([]string{"experiment", "cell"}, e.axisNames()...)
	header = append(header, "sim_config", "sim_mode", "sim_device")
	for _, c := range side {
		header = append(header, "sim_"+c)
	}
	header = append(header, "hw_device")
	for _, c := range side {
		header = append(header, "hw_"+c)
	}
	var timeCols []string
	for _, s := range e.Stats {
		if s.Unit == "µs" {
			timeCols = append(timeCols, s.Name)
			header = append(header, "sim_over_hw_"+s.Name)
		}
	}
	joined := func(sim, hw Row) Row {
		out := Row{"experiment": name}
		base := sim
		if base == nil {
			base = hw
		}
		out["cell"] = cellOf(base.Key())
		for _, a := range e.axisNames() {
			out[a] = base[a]
		}
		if sim != nil {
			out["sim_config"], out["sim_mode"], out["sim_device"] = sim["config"], sim["sim_mode"], sim["device"]
			for _, c := range side {
				out["sim_"+c] = sim[c]
			}
		}
		if hw != nil {
			out["hw_device"] = hw["device"]
			for _, c := range side {
				out["hw_"+c] = hw[c]
			}
		}
		if sim != nil && hw != nil {
			for _, c := range timeCols {
				s, ok1 := sim.Float(c)
				h, ok2 := hw.Float(c)
				if ok1 && ok2 && h > 0 {
					out["sim_over_hw_"+c] = formatFloat(float64(int64(s/h*10000+0.5)) / 10000)
				}
			}
		}
		return out
	}
	var rows []Row
	used := map[string]bool{}
	for _, r := range latestByKey(simRows) {
		hw := hwByCell[cellOf(r.Key())]
		if hw != nil {
			used[hw.Key()] = true
		}
		rows = append(rows, joined(r, hw))
	}
	for _, r := range latestByKey(hwRows) {
		if !used[r.Key()] {
			rows = append(rows, joined(nil, r))
		}
	}
	return len(rows), writeCSV(w, header, rows)
}

// sameFile says whether two paths name one existing file (any spelling).
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
