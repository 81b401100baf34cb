package micro

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// Table is a microbenchmark's result: one row per configuration, with the
// device's measurement (time on hardware, cycles in simulation) beside the
// validation of the final memory contents.
type Table struct {
	Name    string     `json:"name"`
	Device  string     `json:"device"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
	// Notes explain how to read the table (units, what was validated).
	Notes []string `json:"notes,omitempty"`
}

func (t *Table) add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = formatCell(c)
	}
	t.Rows = append(t.Rows, row)
}

func formatCell(c any) string {
	switch v := c.(type) {
	case time.Duration:
		return fmt.Sprintf("%.3f", float64(v)/float64(time.Microsecond))
	case float64:
		return fmt.Sprintf("%.3g", v)
	default:
		return fmt.Sprint(v)
	}
}

// Write prints the table aligned, with its notes below.
func (t *Table) Write(w io.Writer) error {
	fmt.Fprintf(w, "%s on %s\n", t.Name, t.Device)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t")+"\t")
	for _, r := range t.Rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range t.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	return nil
}

// cost is what a launch cost on the device in the unit it measures: the
// median time in microseconds on hardware, cycles in a timing simulation,
// thread-instructions in a functional simulation (which has no time).
func cost(s kernels.LaunchStats) string {
	switch {
	case s.Elapsed > 0:
		return formatCell(s.Elapsed)
	case s.Cycles > 0:
		return fmt.Sprint(s.Cycles)
	default:
		return fmt.Sprintf("%.0f", s.Counters["thread_instructions"])
	}
}

// costUnit names cost's unit for a device's stats.
func costUnit(s kernels.LaunchStats) string {
	switch {
	case s.Elapsed > 0:
		return "µs"
	case s.Cycles > 0:
		return "cycles"
	default:
		return "thread-inst"
	}
}

// Params are the knobs every microbenchmark shares.
type Params struct {
	// Reps is the work per thread inside the kernel (atomics, reads,
	// barrier crossings), so one launch is long enough to time.
	Reps int
	// Warmup and Repeat are the untimed and timed launches per
	// configuration on hardware (the median is reported).
	Warmup, Repeat int
	// CTAs is the grid of benchmarks whose CTAs work side by side on
	// their own data (atomic_contention); 0 means the benchmark's own
	// default.
	CTAs int
}

func (p Params) launch(grid, block int) kernels.LaunchConfig {
	return kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block), Warmup: p.Warmup, Repeat: p.Repeat}
}

func firstMismatch(name string, got []uint32, want func(i int) uint32) error {
	for i, g := range got {
		if w := want(i); g != w {
			return fmt.Errorf("%s: word %d is %d, want %d", name, i, g, w)
		}
	}
	return nil
}
