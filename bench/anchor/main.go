// Command anchor measures simulator speed against MGPUSim as an anchor, in
// one process: for each size it runs MGPUSim v4's vectoradd sample workload
// in timing mode on its default GPU (r9nano, GCN3) and warpgraph's stream
// kernel, the same computation (one element per thread: two loads, an add,
// a store), in timing mode on the simulated h100, validates both results,
// and prints simulated thread-instructions per wall second for both side by
// side. It lives in its own module (bench/anchor) so that warpgraph never
// depends on MGPUSim or akita/v4. Run it with `make bench-anchor`.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// result is one simulator's run of the vector-add workload.
type result struct {
	Simulator string
	// Lanes is the width of the simulator's thread group: a GCN3
	// wavefront (64) or a warp (32).
	Lanes int
	// Items is the number of work-items (threads), one element each.
	Items int
	// GroupInstructions are wavefront- or warp-instructions executed.
	GroupInstructions uint64
	// VectorGroupInstructions are MGPUSim's wavefront-instructions issued to
	// vector units (VALU, vector memory, LDS); zero for warpgraph, whose
	// warps have no separate scalar unit.
	VectorGroupInstructions uint64
	// ThreadInstructions is the sum over GroupInstructions of active lanes.
	ThreadInstructions uint64
	// SimTime is the kernel's simulated duration; Cycles its cycles where
	// the simulator reports them.
	SimTime time.Duration
	Cycles  uint64
	// SetupWall is the wall time to build the simulated platform (and, for
	// warpgraph, lower the kernel); KernelWall is the wall time the
	// kernel's simulation took; RunWall adds the host side to it (copies,
	// and MGPUSim's simulated PCIe transfers).
	SetupWall, KernelWall, RunWall time.Duration
	// Validated says what was checked; empty if the check did not pass.
	Validated string
}

// Rate is simulated thread-instructions per wall second of the kernel.
func (r result) Rate() float64 {
	if r.KernelWall <= 0 {
		return 0
	}
	return float64(r.ThreadInstructions) / r.KernelWall.Seconds()
}

type options struct {
	sizes   []int
	block   int
	repeat  int
	timeout time.Duration
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "anchor:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("anchor", flag.ContinueOnError)
	sizes := fs.String("sizes", "65536", "comma-separated work-item counts (each a multiple of 64)")
	block := fs.Int("block", 64, "warpgraph's CTA size in threads (MGPUSim's vectoradd uses workgroups of 64)")
	repeat := fs.Int("repeat", 3, "runs of each simulator per size, alternating; the run with the median kernel wall time is reported")
	timeout := fs.Duration("timeout", 30*time.Minute, "wall-clock limit for each warpgraph launch")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o := options{block: *block, repeat: *repeat, timeout: *timeout}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || n%mgpusimLanes != 0 {
			return fmt.Errorf("--sizes: %q: want a positive multiple of %d", s, mgpusimLanes)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.repeat <= 0 {
		return fmt.Errorf("--repeat %d: want at least 1", o.repeat)
	}
	if o.block <= 0 {
		return fmt.Errorf("--block %d: want a positive CTA size", o.block)
	}
	fmt.Fprintf(w, "anchor: vector add (c[i] = a[i] + b[i], one element per thread) in timing mode, both simulators in this process\n")
	fmt.Fprintf(w, "machine: %d CPUs, GOMAXPROCS %d, %s %s/%s; median of %d runs each\n\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH, o.repeat)
	var rows []result
	var errs []error
	for _, n := range o.sizes {
		pair, err := measure(context.Background(), n, o)
		rows = append(rows, pair...)
		errs = append(errs, err)
	}
	writeTable(w, rows)
	return errors.Join(errs...)
}

// measure runs both simulators on n work-items o.repeat times,
// alternating, MGPUSim first, and returns each one's run with the median
// kernel wall time (wall time on a shared machine is noisy; the simulated
// counts must not differ between runs). The first error ends the runs.
func measure(ctx context.Context, n int, o options) ([]result, error) {
	var ms, gs []result
	for range o.repeat {
		runtime.GC()
		m, err := runMGPUSim(n)
		if err != nil {
			return []result{m, {Simulator: "warpgraph sim " + warpgraphConfig, Items: n}}, err
		}
		runtime.GC()
		lctx, cancel := context.WithTimeout(ctx, o.timeout)
		g, err := runWarpgraph(lctx, n, o.block)
		cancel()
		if err != nil {
			return []result{m, g}, err
		}
		ms, gs = append(ms, m), append(gs, g)
	}
	m, merr := median(ms)
	g, gerr := median(gs)
	return []result{m, g}, errors.Join(merr, gerr)
}

// median returns the run with the median kernel wall time, after checking
// that every run simulated the same instructions.
func median(rs []result) (result, error) {
	for _, r := range rs[1:] {
		if r.ThreadInstructions != rs[0].ThreadInstructions || r.GroupInstructions != rs[0].GroupInstructions {
			return rs[0], fmt.Errorf("%s, %d items: runs differ in instructions: %d/%d vs %d/%d",
				r.Simulator, r.Items, r.GroupInstructions, r.ThreadInstructions, rs[0].GroupInstructions, rs[0].ThreadInstructions)
		}
	}
	sorted := slices.SortedFunc(slices.Values(rs), func(a, b result) int { return cmp.Compare(a.KernelWall, b.KernelWall) })
	return sorted[len(sorted)/2], nil
}

func writeTable(w io.Writer, rows []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "items\tsimulator\tlanes\tgroup-instr\tthread-instr\tthr-instr/item\tsim kernel µs\tsetup wall s\tkernel wall s\trun wall s\tthread-instr/wall-s\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%.1f\t%.2f\t%.3f\t%.3f\t%.3f\t%s\t\n",
			r.Items, r.Simulator, r.Lanes, r.GroupInstructions, r.ThreadInstructions,
			float64(r.ThreadInstructions)/float64(max(r.Items, 1)),
			float64(r.SimTime)/float64(time.Microsecond), r.SetupWall.Seconds(), r.KernelWall.Seconds(), r.RunWall.Seconds(), si(r.Rate()))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for i := 0; i+1 < len(rows); i += 2 {
		m, g := rows[i], rows[i+1]
		ratio := "n/a"
		if m.Rate() > 0 {
			ratio = fmt.Sprintf("%.2fx", g.Rate()/m.Rate())
		}
		fmt.Fprintf(w, "%d items: warpgraph/MGPUSim thread-instructions per wall second = %s\n", m.Items, ratio)
		for _, r := range []result{m, g} {
			v := r.Validated
			if v == "" {
				v = "NOT VALIDATED"
			}
			fmt.Fprintf(w, "  %s: %s\n", r.Simulator, v)
		}
		if m.VectorGroupInstructions > 0 {
			fmt.Fprintf(w, "  MGPUSim: %d of its %d wavefront-instructions went to vector units, %d to the scalar, branch and special units\n",
				m.VectorGroupInstructions, m.GroupInstructions, m.GroupInstructions-m.VectorGroupInstructions)
		}
	}
	fmt.Fprint(w, `
What is counted:
  group-instr   MGPUSim: GCN3 wavefront-instructions (64 lanes) issued by the CUs, scalar ones included;
                warpgraph: warp-instructions (32 lanes) executed (counter warp_instructions).
  thread-instr  the sum over those instructions of active lanes (MGPUSim: bits set in EXEC at issue;
                warpgraph: counter thread_instructions). Both kernels compute one element per work-item,
                but compile to different instruction counts (GCN3 code vs clang's PTX).
  sim kernel    simulated kernel time: MGPUSim's driver LaunchKernelCommand span (the sample's kernel_time),
                warpgraph's launch Elapsed (its cycles plus the configuration's host.kernel_overhead_ns).
  setup wall    building the simulated GPU (warpgraph: also lowering the PTX, by a warm-up launch of n = 0).
  kernel wall   wall time spent simulating the kernel (median run); thread-instr/wall-s divides by it.
  run wall      the whole workload: MGPUSim adds host-device copies it simulates over PCIe;
                warpgraph's copies are untimed memory writes.
`)
}

// si formats a rate with a K/M/G suffix.
func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fK", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
