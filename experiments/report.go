package experiments

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// ReportInfo is what a README states besides the data.
type ReportInfo struct {
	// Commands made the data (a sweep; or its shards' command and the
	// merge).
	Commands []string
	// Commit is the code that wrote the report (it may be later than the
	// points' when a finished sweep is rerun to redraw it).
	Commit string
	// NotRun are the keys of the plan's points missing from rows (a
	// report-only sweep of an unfinished plan).
	NotRun []string
	// SimThreads is the window engine's threads per point (0: the serial
	// engine).
	SimThreads int
}

// Report draws the experiment's plots from rows into dir and writes
// README.md: the command, commit, machine and date, what the data show,
// the figures, the table, and the failed points. It returns the files
// written.
func Report(e *Experiment, dir string, rows []Row, info ReportInfo) ([]string, error) {
	var files []string
	var plotErr error
	if e.Plot != nil {
		files, plotErr = safePlot(e, rows, dir)
	}
	err := writeAtomically(filepath.Join(dir, "README.md"), func(w io.Writer) error {
		return writeReadme(w, e, rows, info, files, plotErr)
	})
	if err != nil {
		return files, err
	}
	files = append(files, "README.md")
	if plotErr != nil {
		return files, fmt.Errorf("plotting %s: %w", e.Name, plotErr)
	}
	return files, nil
}

func writeReadme(w io.Writer, e *Experiment, rows []Row, info ReportInfo, plots []string, plotErr error) error {
	fmt.Fprintf(w, "# %s\n\n%s\n\n", e.Name, e.About)
	fmt.Fprintln(w, "Written by `warpgraph sweep` from `data.csv` (experiments/ in the commit below); do not edit by hand: rerun the command.")
	fmt.Fprintln(w)
	for _, c := range info.Commands {
		if c != "" {
			fmt.Fprintf(w, "- **Command:** `%s`\n", c)
		}
	}
	commits := distinct(rows, "commit")
	if info.Commit != "" && commits != "`"+info.Commit+"`" {
		commits += fmt.Sprintf(" (the points); this README and the plots: `%s`", info.Commit)
	}
	fmt.Fprintf(w, "- **Commit:** %s\n", commits)
	fmt.Fprintf(w, "- **Machine:** %s\n", distinct(rows, "machine"))
	fmt.Fprintf(w, "- **Device:** %s\n", distinct(rows, "device"))
	if info.SimThreads > 0 {
		threads := fmt.Sprintf("%d threads", info.SimThreads)
		if info.SimThreads == 1 {
			threads = "1 thread"
		}
		fmt.Fprintf(w, "- **Simulator engine:** the parallel window engine, %s per point (--sim-threads); its figures are the same for every thread count and may differ from the serial engine's\n", threads)
	}
	fmt.Fprintf(w, "- **Date:** %s\n", dateRange(rows))
	counts := map[string]int{}
	var wall float64
	for _, r := range rows {
		counts[r["status"]]++
		if v, ok := r.Float("wall_seconds"); ok {
			wall += v
		}
	}
	fmt.Fprintf(w, "- **Points:** %d (%d ok, %d invalid, %d failed); %.0f s of wall time in all\n",
		len(rows), counts[StatusOK], counts[StatusInvalid], counts[StatusError], wall)
	if n := len(info.NotRun); n > 0 {
		fmt.Fprintf(w, "- **Not run yet:** %d more points of the plan (rendered with --report-only; the same command without it runs them):", n)
		const shown = 10
		for i, k := range info.NotRun[:min(n, shown)] {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s `%s`", sep, k)
		}
		if n > shown {
			fmt.Fprintf(w, " and %d more", n-shown)
		}
		fmt.Fprintln(w)
	}
	if e.Findings != nil {
		if fs := e.Findings(rows); len(fs) > 0 {
			fmt.Fprintln(w, "\n## What it shows")
			fmt.Fprintln(w)
			for _, f := range fs {
				fmt.Fprintf(w, "- %s\n", f)
			}
		}
	}
	pngs := slices.DeleteFunc(slices.Clone(plots), func(f string) bool { return !strings.HasSuffix(f, ".png") })
	if len(pngs) > 0 || plotErr != nil {
		fmt.Fprintln(w, "\n## Figures")
		fmt.Fprintln(w)
		for _, f := range pngs {
			fmt.Fprintf(w, "![%s](%s)\n\n", strings.TrimSuffix(f, ".png"), f)
		}
		if len(plots) > len(pngs) {
			fmt.Fprintln(w, "Each figure is also in SVG beside its PNG.")
		}
		if plotErr != nil {
			fmt.Fprintf(w, "Plotting failed: %v\n", plotErr)
		}
	}
	if len(e.Table) > 0 {
		fmt.Fprintln(w, "\n## Table")
		fmt.Fprintln(w)
		writeMarkdownTable(w, e, rows)
	}
	var failed []Row
	for _, r := range rows {
		if r["status"] != StatusOK {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintln(w, "\n## Points that failed or did not validate")
		fmt.Fprintln(w)
		for _, r := range failed {
			why := r["error"]
			if why == "" {
				why = r["validation"]
			}
			if len(why) > 400 {
				why = why[:400] + "…"
			}
			fmt.Fprintf(w, "- `%s` (%s): %s\n", r.Key(), r["status"], why)
		}
	}
	if len(e.Notes) > 0 {
		fmt.Fprintln(w, "\n## Notes")
		fmt.Fprintln(w)
		for _, n := range e.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
	fmt.Fprintln(w, "\n## Columns of data.csv")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "One row per point, in sweep order. `key` identifies the point (its configuration and axis values); `status` is ok, invalid (ran, but disagrees with the reference) or error (with `error`); `wall_seconds`, `machine` and `date` are the host's.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| column | unit | meaning |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, a := range e.Axes {
		fmt.Fprintf(w, "| %s | | axis: %s |\n", a.Name, a.About)
	}
	for _, p := range e.Params {
		fmt.Fprintf(w, "| %s | | parameter: %s |\n", p.Name, p.About)
	}
	for _, s := range e.Stats {
		fmt.Fprintf(w, "| %s | %s | %s |\n", s.Name, s.Unit, s.About)
	}
	return nil
}

// writeMarkdownTable prints the experiment's table columns of every row,
// with units in the header.
func writeMarkdownTable(w io.Writer, e *Experiment, rows []Row) {
	units := map[string]string{}
	for _, s := range e.Stats {
		units[s.Name] = s.Unit
	}
	head := make([]string, len(e.Table))
	for i, c := range e.Table {
		head[i] = c
		if u := units[c]; u != "" {
			head[i] += " (" + u + ")"
		}
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range rows {
		cells := make([]string, len(e.Table))
		for i, c := range e.Table {
			cells[i] = strings.ReplaceAll(r[c], "|", "\\|")
			if cells[i] == "" {
				cells[i] = "–"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// distinct lists a column's values, most frequent first.
func distinct(rows []Row, col string) string {
	n := map[string]int{}
	for _, r := range rows {
		if v := r[col]; v != "" {
			n[v]++
		}
	}
	vals := make([]string, 0, len(n))
	for v := range n {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool {
		if n[vals[i]] != n[vals[j]] {
			return n[vals[i]] > n[vals[j]]
		}
		return vals[i] < vals[j]
	})
	if len(vals) == 0 {
		return "–"
	}
	for i, v := range vals {
		vals[i] = "`" + v + "`"
	}
	return strings.Join(vals, ", ")
}

func dateRange(rows []Row) string {
	var dates []string
	for _, r := range rows {
		if d := r["date"]; d != "" {
			dates = append(dates, d)
		}
	}
	if len(dates) == 0 {
		return "–"
	}
	slices.Sort(dates)
	if dates[0] == dates[len(dates)-1] {
		return dates[0]
	}
	return dates[0] + " to " + dates[len(dates)-1] + " (UTC)"
}

// safePlot draws the plots; a panic in the plotting library (it panics on
// some degenerate data) is an error, so the README is still written.
func safePlot(e *Experiment, rows []Row, dir string) (files []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return e.Plot(rows, dir)
}
