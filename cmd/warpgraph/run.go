package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/scheduler"
)

// Targets an algorithm can run on.
var targets = []string{"cpu", "sim", "hw"}

type runOptions struct {
	algo, spec, target, scheduler string
	simMode, config               string
	source                        int64
	sources                       int
	k                             uint32
	delta                         uint32
	seed                          uint64
	block, grid                   int
	warmup, repeat                int
	tuning                        scheduler.Tuning
	spinBudget                    int64
	perIteration                  bool
	outFile, outFormat            string
	timeout                       time.Duration
	heartbeat                     time.Duration
	asJSON                        bool
	// monitor is --monitor and --monitor-hold (nil: the command has
	// none).
	monitor *monitorFlags
	// profile is --profile and --trace (nil: the command has none).
	profile *profileFlags
	// progress, when not nil, reports the device's launches while a
	// device run lasts (--heartbeat).
	progress io.Writer
	// set records which flags the user gave (the rest hold defaults).
	set map[string]bool
}

// field is one named figure of a run's summary, kept in order for tables.
type field = scheduler.Field

type validation struct {
	OK bool `json:"ok"`
	// Checked is false when nothing independent of the result was checked
	// (the CPU reference of an algorithm without a certificate).
	Checked   bool   `json:"checked"`
	Method    string `json:"method"`
	Tolerance string `json:"tolerance"`
	Detail    string `json:"detail"`
}

// iterationRow is one iteration of a device run, for --per-iteration.
type iterationRow struct {
	scheduler.IterationStats
	KernelSeconds float64            `json:"kernel_seconds,omitempty"`
	Cycles        uint64             `json:"cycles,omitempty"`
	Counters      map[string]float64 `json:"counters,omitempty"`
}

// runResult is what `warpgraph run` prints: the same shape for every target,
// with device figures (simulated cycles and counters, measured GPU time)
// present when the target has them. Times are in seconds.
type runResult struct {
	Algorithm string  `json:"algorithm"`
	Scheduler string  `json:"scheduler,omitempty"`
	Graph     string  `json:"graph"`
	Vertices  int     `json:"vertices"`
	Edges     int     `json:"edges"`
	Source    *uint32 `json:"source,omitempty"`
	K         *uint32 `json:"k,omitempty"`
	// Delta is SSSP's delta-stepping bucket width (absent: no buckets).
	Delta *uint32 `json:"delta,omitempty"`
	// Seed is bp's prior seed.
	Seed    *uint64 `json:"seed,omitempty"`
	Target  string  `json:"target"`
	SimMode string  `json:"sim_mode,omitempty"`
	Config  string  `json:"config,omitempty"`
	Device  string  `json:"device,omitempty"`
	Block   int     `json:"block,omitempty"`
	Grid    int     `json:"grid,omitempty"`
	Warmup  int     `json:"warmup,omitempty"`
	Repeat  int     `json:"repeat,omitempty"`
	// SpinBudget is the polls a spinning wait may make (0: unbounded);
	// device runs only.
	SpinBudget *uint32 `json:"spin_budget,omitempty"`
	// Tuning is the scheduler's numeric settings (SIMD-X's).
	Tuning      *scheduler.Tuning `json:"tuning,omitempty"`
	LoadSeconds float64           `json:"load_seconds"`
	// HostSeconds is the wall time of the whole command's run: set-up,
	// every repetition, copies and validation.
	HostSeconds float64 `json:"host_seconds"`
	// EndToEndSeconds is the median, over the timed repetitions, of the
	// algorithm's time as Gunrock reports it (scheduler.Timing);
	// KernelSeconds the median of the summed launch times.
	EndToEndSeconds     float64   `json:"end_to_end_seconds,omitempty"`
	KernelSeconds       float64   `json:"kernel_seconds,omitempty"`
	RunsEndToEndSeconds []float64 `json:"runs_end_to_end_seconds,omitempty"`
	Cycles              uint64    `json:"cycles,omitempty"`
	Iterations          int       `json:"iterations,omitempty"`
	Launches            int       `json:"launches,omitempty"`
	Summary             []field   `json:"summary"`
	// Results holds the summary's figures as numbers, by snake_case key
	// (reached, max_depth, components, sweeps, ...).
	Results      map[string]float64 `json:"results,omitempty"`
	Notes        []string           `json:"notes,omitempty"`
	Counters     map[string]float64 `json:"counters,omitempty"`
	PerIteration []iterationRow     `json:"per_iteration,omitempty"`
	// Sources, SourcesSeed, PerSource and SourceStats describe a
	// --sources K run: the drawn sources, each one's figures, and the
	// mean, median, min and max of every figure over them.
	Sources     []uint32          `json:"sources,omitempty"`
	SourcesSeed *uint64           `json:"sources_seed,omitempty"`
	PerSource   []sourceRun       `json:"per_source,omitempty"`
	SourceStats map[string]spread `json:"source_stats,omitempty"`
	Validation  validation        `json:"validation"`
	// Provenance names the code, configuration, seed and host behind
	// the result (provenance.go).
	Provenance *provenance `json:"provenance,omitempty"`
	// values is the per-vertex result, for --out (not in the JSON).
	values *scheduler.Values
}

func newRunCommand() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run --algo A --graph SPEC [--target cpu|sim|hw] [--scheduler S]",
		Short: "Run a graph algorithm on the CPU reference, the simulator or a GPU, and validate the result",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.set = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { o.set[f.Name] = true })
			o.progress = cmd.ErrOrStderr()
			err := runAndPrint(cmd, o)
			// --profile: after the run, a failed one too (a deadlock's
			// profile shows where the warps spun).
			if perr := o.profile.report(profileOut(cmd, o.asJSON)); err == nil {
				err = perr
			}
			// --monitor-hold: the page stays up after a failed run too,
			// which is when its state is most worth a look.
			o.monitor.holdIfAsked(cmd.Context(), cmd.ErrOrStderr())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.algo, "algo", "", "algorithm: "+strings.Join(scheduler.AlgorithmNames(), ", "))
	f.StringVar(&o.spec, "graph", "", "graph spec: a file or a generator (rmat:scale=16)")
	f.StringVar(&o.target, "target", "cpu", "where to run: cpu (reference), sim (simulator), hw (CUDA GPU)")
	f.StringVar(&o.scheduler, "scheduler", "bsp", "scheduler variant for sim and hw: "+strings.Join(scheduler.SchedulerNames(), ", ")+" (NAME or NAME:key=value,...)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing (cycle-level, the default) or functional (exact values, no cycles)")
	f.StringVar(&o.config, "config", "h100", "simulator configuration: a shipped name (h100, v100, gtx780ti, tiny), a YAML file, or an inline override (h100+sms=16+memory.l2_slices=20)")
	f.Int64Var(&o.source, "source", -1, "source vertex for bfs, sssp and sswp (default: the vertex of maximum out-degree)")
	f.IntVar(&o.sources, "sources", 0, "run bfs, sssp or sswp from K random sources (Graph500: distinct, each with an out-edge, drawn with --seed) and report each one's figures and their mean, median, min and max")
	f.Uint32Var(&o.delta, "delta", 0, "sssp under bsp or simdx (fusion=none): delta-stepping with buckets of this width (0: frontier Bellman-Ford, no buckets)")
	f.Uint32Var(&o.k, "k", ref.DefaultK, "k for kcore: report the k-core's members (on a directed graph, of the graph as stored: reciprocal edges count twice; add +sym to the spec for the undirected k-core)")
	f.Uint64Var(&o.seed, "seed", 1, "seed for bp's node priors and for --sources' draw")
	f.IntVar(&o.block, "block", 256, "threads per CTA for device runs (a multiple of 32)")
	f.IntVar(&o.grid, "grid", 0, "CTAs of grid-stride and persistent phases (default: as many as can be co-resident)")
	f.IntVar(&o.warmup, "warmup", 0, "untimed whole runs before the timed ones (device targets)")
	f.IntVar(&o.repeat, "repeat", 1, "timed whole runs, state reset between them; times are their median (device targets)")
	f.IntVar(&o.tuning.BinSize, "bin-size", 64, "simdx: entries of the online filter's thread bins")
	f.IntVar(&o.tuning.MediumFrom, "medium-from", 32, "simdx: out-degree from which a warp processes a vertex")
	f.IntVar(&o.tuning.LargeFrom, "large-from", 256, "simdx: out-degree from which a CTA processes a vertex")
	f.Float64Var(&o.tuning.PullFraction, "pull-fraction", 0.3, "simdx, and atos's PageRank prelude: pull while the frontier's out-edges exceed this fraction of all edges")
	f.IntVar(&o.tuning.WQueues, "w-queues", 8, "hq: warp-level queues W (1..32); thread t inserts into queue t % W")
	f.IntVar(&o.tuning.QueueCapacity, "queue-capacity", 0, "atos: task-queue capacity in tasks, an overflow then fails the run; 0: sized from the graph, doubled and the run restarted on overflow")
	f.Int64Var(&o.spinBudget, "spin-budget", -1, "polls a spinning wait (a fused kernel's grid barrier) may make before the run gives up; -1: 1048576 on hw, unbounded (0) on sim, where the deadlock detector ends a hung launch; 0 is refused on hw")
	f.StringVar(&o.outFile, "out", "", "write the per-vertex result (depth, distance, width, label, membership, rank, belief, colour) to FILE, with a header naming the algorithm, graph, source, target and scheduler (--out-format)")
	f.StringVar(&o.outFormat, "out-format", "text", "--out's format: text ('#' header lines, then 'vertex value' lines) or binary (magic, a JSON header, then little-endian uint32 or float64 values)")
	f.BoolVar(&o.perIteration, "per-iteration", false, "print the per-iteration table (always in --json when given)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "host timeout for a device run (a hung GPU kernel ends the process)")
	f.DurationVar(&o.heartbeat, "heartbeat", 10*time.Second, heartbeatHelp)
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of a table")
	o.monitor = &monitorFlags{}
	o.monitor.register(f)
	o.profile = &profileFlags{}
	o.profile.register(f)
	return cmd
}

func runAndPrint(cmd *cobra.Command, o runOptions) error {
	res, err := runAlgorithm(cmd.Context(), o)
	if err != nil {
		printStoppedIterations(cmd.Context(), cmd.OutOrStdout(), o, err)
		return err
	}
	res.Provenance = runProvenance(o)
	if o.outFile != "" {
		if err := writeValues(o.outFile, o.outFormat, res); err != nil {
			return err
		}
	}
	if err := printRun(cmd.OutOrStdout(), res, o.asJSON, o.perIteration); err != nil {
		return err
	}
	if !res.Validation.OK {
		return failedValidation("%s on %s failed validation: %s", res.Algorithm, res.Target, res.Validation.Detail)
	}
	return nil
}

// check rejects flag values that are out of range or do not apply.
func (o runOptions) check(a *scheduler.Algorithm) error {
	switch {
	case o.source < -1:
		return badInput("--source %d is not a vertex: vertex ids are not negative", o.source)
	case o.set["source"] && !a.UsesSource:
		return badInput("--source does not apply to %s: it has no source vertex", a.Name)
	case o.set["k"] && a.Name != "kcore":
		return badInput("--k applies only to kcore")
	case o.set["delta"] && a.Name != "sssp":
		return badInput("--delta applies only to sssp")
	case o.sources < 0:
		return badInput("--sources %d is negative (give the number of random sources)", o.sources)
	case o.set["sources"] && !a.UsesSource:
		return badInput("--sources does not apply to %s: it has no source vertex", a.Name)
	case o.set["sources"] && o.set["source"]:
		return badInput("--sources draws the sources: give it or --source, not both")
	case o.sources > 0 && o.outFile != "":
		return badInput("--out writes one run's result: use --source N, not --sources")
	case o.set["seed"] && a.Name != "bp" && o.sources == 0:
		return badInput("--seed applies only to bp and to --sources")
	case o.block <= 0 || o.block%32 != 0:
		return badInput("--block %d is not a positive multiple of the warp size (32)", o.block)
	case o.grid < 0:
		return badInput("--grid %d is negative (0 sizes the grid from occupancy)", o.grid)
	case o.warmup < 0:
		return badInput("--warmup %d is negative", o.warmup)
	case o.repeat < 1:
		return badInput("--repeat %d: at least one timed run", o.repeat)
	case o.outFormat != "text" && o.outFormat != "binary":
		return badInput("--out-format %q: use text or binary", o.outFormat)
	case o.set["out-format"] && o.outFile == "":
		return badInput("--out-format applies only with --out FILE")
	case o.heartbeat < 0:
		return badInput("--heartbeat %s is negative (0 turns progress off)", o.heartbeat)
	case o.timeout <= 0:
		return badInput("--timeout %s must be positive", o.timeout)
	case checkSpinBudget(o.spinBudget, o.target) != nil:
		return checkSpinBudget(o.spinBudget, o.target)
	case o.tuning.BinSize <= 0:
		return badInput("--bin-size %d must be positive", o.tuning.BinSize)
	case o.tuning.MediumFrom <= 0 || o.tuning.LargeFrom < o.tuning.MediumFrom:
		return badInput("--medium-from %d and --large-from %d: need 0 < medium-from <= large-from", o.tuning.MediumFrom, o.tuning.LargeFrom)
	case o.tuning.PullFraction <= 0 || o.tuning.PullFraction > 1:
		return badInput("--pull-fraction %g must lie in (0, 1]", o.tuning.PullFraction)
	case o.tuning.WQueues < 1 || o.tuning.WQueues > 32:
		return badInput("--w-queues %d must lie in 1..32 (one queue per lane of a warp at most)", o.tuning.WQueues)
	case o.set["w-queues"] && !strings.HasPrefix(o.scheduler, "hq"):
		return badInput("--w-queues applies only to the hq scheduler")
	case o.tuning.QueueCapacity < 0:
		return badInput("--queue-capacity %d must not be negative (0: sized from the graph, grown on overflow)", o.tuning.QueueCapacity)
	case o.set["queue-capacity"] && !strings.HasPrefix(o.scheduler, "atos"):
		return badInput("--queue-capacity applies only to the atos scheduler")
	}
	if err := o.monitor.check(o.target, o.simMode); err != nil {
		return err
	}
	if err := o.profile.check(o.target, o.simMode); err != nil {
		return err
	}
	if !strings.HasPrefix(o.scheduler, "simdx") {
		for _, name := range []string{"bin-size", "medium-from", "large-from"} {
			if o.set[name] {
				return badInput("--%s applies only to the simdx scheduler", name)
			}
		}
		// Atos's PageRank pulls in bulk first, by SIMD-X's rule.
		if o.set["pull-fraction"] && !(strings.HasPrefix(o.scheduler, "atos") && o.algo == "pr") {
			return badInput("--pull-fraction applies only to the simdx scheduler and to atos's PageRank")
		}
	}
	if o.target == "cpu" {
		for _, name := range []string{"scheduler", "grid", "warmup", "repeat", "block", "sim-mode", "config", "bin-size", "medium-from", "large-from", "pull-fraction", "w-queues", "queue-capacity", "spin-budget", "heartbeat", "delta"} {
			if o.set[name] {
				return badInput("--%s applies to device runs (--target sim or hw), not to the CPU reference", name)
			}
		}
	}
	return nil
}

// budget is the spin budget for the target: -1 picks 2^20 polls on
// hardware and unbounded on the simulator.
func (o runOptions) budget() uint32 {
	switch {
	case o.spinBudget >= 0:
		return uint32(o.spinBudget)
	case o.target == "hw":
		return 1 << 20
	}
	return 0
}

func runAlgorithm(ctx context.Context, o runOptions) (*runResult, error) {
	if o.algo == "" {
		return nil, badInput("--algo is required: one of %s", strings.Join(scheduler.AlgorithmNames(), ", "))
	}
	a, err := scheduler.LookupAlgorithm(o.algo)
	if err != nil {
		return nil, &inputError{err}
	}
	if !slices.Contains(targets, o.target) {
		return nil, badInput("unknown target %q: use one of %s", o.target, strings.Join(targets, ", "))
	}
	if err := o.check(a); err != nil {
		return nil, err
	}
	var env *deviceEnv
	var watch *launchWatch
	var variant scheduler.Variant
	if o.target != "cpu" {
		if a.Setup == nil {
			return nil, badInput("algorithm %s has no GPU kernel yet, so it runs only with --target cpu", a.Name)
		}
		if variant, err = scheduler.ParseVariant(o.scheduler); err != nil {
			return nil, &inputError{err}
		}
		if err := scheduler.Supports(a, variant); err != nil {
			return nil, badInput("scheduler %s cannot run %s: %v", variant, a.Name, err)
		}
		if o.delta > 0 {
			if err := scheduler.SupportsDelta(variant); err != nil {
				return nil, badInput("--delta %d: %v", o.delta, err)
			}
		}
		// Open the device before loading a large graph, so a missing
		// driver or a bad configuration is reported at once.
		if env, err = openDevice(o); err != nil {
			return nil, err
		}
		defer env.close()
		watch = newWatch(o)
		env.dev = watchDevice(env.dev, watch)
	}
	g, parsed, took, err := loadGraph(o.spec)
	if err != nil {
		return nil, err
	}
	// After the load, whose own progress bar would fight with this line.
	watch.begin()
	defer watch.end()
	if o.sources > 0 {
		return runSources(ctx, a, variant, env, o, g, parsed, took)
	}
	return runLoaded(ctx, a, variant, env, o, g, parsed, took)
}

func runLoaded(ctx context.Context, a *scheduler.Algorithm, variant scheduler.Variant, env *deviceEnv, o runOptions, g *graph.Graph, parsed graph.Spec, took time.Duration) (*runResult, error) {
	res := &runResult{Algorithm: a.Name, Graph: parsed.String(), Vertices: g.NumVertices(), Edges: g.NumEdges(),
		Target: o.target, LoadSeconds: took.Seconds()}
	opts := scheduler.Options{K: o.k, Seed: o.seed, Delta: o.delta}
	if a.UsesSource {
		if g.NumVertices() == 0 {
			return nil, badInput("graph %s has no vertices, so %s has no source", parsed.String(), a.Name)
		}
		opts.Source = g.MaxDegreeVertex()
		if o.source >= 0 {
			if o.source >= int64(g.NumVertices()) {
				return nil, badInput("--source %d is not a vertex: the graph has vertices 0..%d", o.source, g.NumVertices()-1)
			}
			opts.Source = uint32(o.source)
		}
		res.Source = &opts.Source
	}
	if a.Name == "bp" {
		res.Seed = &opts.Seed
	}
	if a.Name == "sssp" && opts.Delta > 0 {
		res.Delta = &opts.Delta
	}
	if a.Name == "kcore" {
		res.K = &opts.K
		if g.Directed {
			res.Notes = append(res.Notes, directedKCoreNote)
		}
	}
	start := time.Now()
	if o.target == "cpu" {
		c := a.CPU(g, opts)
		res.Iterations, res.Summary = c.Iterations, c.Summary
		res.Validation = validation{OK: c.Validation.OK(), Checked: c.Checked, Method: c.Method, Tolerance: c.Validation.Tolerance, Detail: c.Validation.String()}
		res.values = &c.Values
		res.HostSeconds = time.Since(start).Seconds()
		return res, nil
	}
	env.describe(res)
	res.Scheduler, res.Block, res.Grid, res.Warmup, res.Repeat = variant.String(), o.block, o.grid, o.warmup, o.repeat
	budget := o.budget()
	res.SpinBudget = &budget
	if variant.Scheduler.Name == "simdx" {
		res.Tuning = &o.tuning
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r, err := scheduler.Enact(ctx, env.dev, a, variant, g, opts, scheduler.RunOptions{Block: o.block, Grid: o.grid, Warmup: o.warmup, Repeat: o.repeat, Tuning: o.tuning, SpinBudget: o.budget()})
	if err != nil {
		return nil, err
	}
	res.HostSeconds = time.Since(start).Seconds()
	if env.timed() {
		res.EndToEndSeconds, res.KernelSeconds = r.EndToEnd.Seconds(), r.Kernel.Seconds()
		for _, t := range r.Runs {
			res.RunsEndToEndSeconds = append(res.RunsEndToEndSeconds, t.EndToEnd.Seconds())
		}
	}
	res.Cycles, res.Counters = r.Total.Cycles, r.Total.Counters
	res.Iterations, res.Launches = len(r.Iterations), r.Launches
	res.Summary, res.Notes, res.values = r.Summary, append(res.Notes, r.Notes...), r.Values
	if o.perIteration || o.asJSON {
		for _, it := range r.Iterations {
			res.PerIteration = append(res.PerIteration, iterationRow{it, it.Stats.Elapsed.Seconds(), it.Stats.Cycles, it.Stats.Counters})
		}
	}
	res.Validation = validation{OK: r.Validation.OK(), Checked: true, Method: "CPU reference", Tolerance: r.Validation.Tolerance, Detail: r.Validation.String()}
	return res, nil
}

// newWatch makes a run's launch watch; tests replace it to set the
// timings.
var newWatch = func(o runOptions) *launchWatch { return newLaunchWatch(o.progress, o.heartbeat) }

// directedKCoreNote says what k-core means on a directed graph, where it
// is easily misread.
const directedKCoreNote = "directed graph: a vertex's degree is its in- plus out-edges, so a reciprocal pair u->v, v->u counts twice; add +sym to the graph spec for the k-core of the undirected simple graph"

func printRun(w io.Writer, r *runResult, asJSON, perIteration bool) error {
	if asJSON {
		for _, f := range r.Summary {
			if f.Key != "" && f.Number != nil {
				if r.Results == nil {
					r.Results = map[string]float64{}
				}
				r.Results[f.Key] = *f.Number
			}
		}
		return writeJSON(w, r)
	}
	t := &table{}
	t.add("algorithm", r.Algorithm)
	t.add("graph", fmt.Sprintf("%s (%d vertices, %d edges)", r.Graph, r.Vertices, r.Edges))
	if r.Source != nil {
		t.add("source", *r.Source)
	}
	if r.K != nil {
		t.add("k", *r.K)
	}
	if r.Delta != nil {
		t.add("delta", *r.Delta)
	}
	target := r.Target
	if r.SimMode != "" {
		target += fmt.Sprintf(" (%s, config %s)", r.SimMode, r.Config)
	}
	t.add("target", target)
	if r.Device != "" {
		t.add("device", r.Device)
	}
	if r.Scheduler != "" {
		t.add("scheduler", fmt.Sprintf("%s, block %d", r.Scheduler, r.Block))
	}
	t.add("load time", seconds(r.LoadSeconds))
	t.add("run time (host)", seconds(r.HostSeconds))
	if len(r.Sources) > 0 {
		t.add("sources", fmt.Sprintf("%d random, distinct, each with an out-edge (seed %d): figures below", len(r.Sources), *r.SourcesSeed))
	} else if r.Target != "cpu" && r.SimMode != "functional" {
		runs := ""
		if r.Repeat > 1 {
			runs = fmt.Sprintf(" (median of %d runs after %d warm-up)", r.Repeat, r.Warmup)
		}
		what := "end-to-end time"
		if r.Target == "sim" {
			what = "end-to-end time (simulated)"
		}
		t.add(what, seconds(r.EndToEndSeconds)+runs)
		t.add("kernel time", seconds(r.KernelSeconds))
	}
	if r.Cycles > 0 {
		t.add("cycles", r.Cycles)
	}
	if r.Iterations > 0 {
		t.add("iterations", r.Iterations)
	}
	if r.Launches > 0 {
		t.add("launches", r.Launches)
	}
	for _, f := range r.Summary {
		t.add(f.Name, f.Value)
	}
	for _, n := range r.Notes {
		t.add("note", n)
	}
	addCounterRows(t, r.Counters)
	verdict := "PASS"
	switch {
	case !r.Validation.OK:
		verdict = "FAIL"
	case !r.Validation.Checked:
		verdict = "NOT CHECKED"
	}
	t.add("validation", fmt.Sprintf("%s (%s): %s", verdict, r.Validation.Method, r.Validation.Detail))
	if err := t.write(w); err != nil {
		return err
	}
	if len(r.PerSource) > 0 {
		if err := writeSourceTables(w, r); err != nil {
			return err
		}
	}
	if !perIteration || len(r.PerIteration) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return writeIterationTable(w, r.PerIteration, r.SimMode != "functional")
}

// writeIterationTable writes the per-iteration table; timed is false where
// runs have no kernel time (functional simulation).
func writeIterationTable(w io.Writer, rows []iterationRow, timed bool) error {
	it := &table{}
	// A scheduler's own statistics follow the common columns, one column
	// per key that any iteration reports.
	var extra []string
	for _, row := range rows {
		for k := range row.Statistics {
			if !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	header := []any{"iteration", "phases", "direction", "filter", "frontier in", "frontier out", "launches", "kernel time", "cycles"}
	for _, k := range extra {
		header = append(header, strings.ReplaceAll(k, "_", " "))
	}
	it.add(header...)
	for _, row := range rows {
		cycles := "-"
		if row.Cycles > 0 {
			cycles = fmt.Sprint(row.Cycles)
		}
		filter := row.Filter
		if row.Overflow {
			filter += " (bin overflow)"
		}
		if filter == "" {
			filter = "-"
		}
		kernel := seconds(row.KernelSeconds)
		if !timed {
			kernel = "-"
		}
		cells := []any{row.Iteration, row.Phases, row.Direction, filter, row.FrontierIn, row.FrontierOut, row.Launches, kernel, cycles}
		for _, k := range extra {
			if x, ok := row.Statistics[k]; ok {
				cells = append(cells, strconv.FormatFloat(x, 'g', 6, 64))
			} else {
				cells = append(cells, "-")
			}
		}
		it.add(cells...)
	}
	return it.write(w)
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond).String()
}

// checkSpinBudget checks a --spin-budget: -1 for the target's default,
// 0..2^32-1 polls, and never 0 (unbounded) on hardware.
func checkSpinBudget(budget int64, target string) error {
	switch {
	case budget < -1 || budget > math.MaxUint32:
		return badInput("--spin-budget %d: use -1 (the default for the target) or 0..%d", budget, uint32(math.MaxUint32))
	case budget == 0 && target == "hw":
		return badInput("--spin-budget 0 (unbounded) would let a grid that cannot be co-resident hang the GPU: give a budget")
	}
	return nil
}
