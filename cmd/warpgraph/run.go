package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// Targets an algorithm can run on.
var targets = []string{"cpu", "sim", "hw"}

type runOptions struct {
	algo, spec, target, scheduler string
	simMode, config               string
	// params are the algorithm-parameter flags the registry declares
	// (--source, --k, ...), as given, by name.
	params             map[string]string
	sources            int
	block, grid        int
	warmup, repeat     int
	spinBudget         int64
	checkBounds        bool
	perIteration       bool
	outFile, outFormat string
	// hostCalls is --host-calls: the file the device calls' log goes to.
	hostCalls string
	timeout   time.Duration
	heartbeat time.Duration
	asJSON    bool
	// monitor is --monitor and --monitor-hold (nil: the command has
	// none).
	monitor *monitorFlags
	// profile is --profile and --trace (nil: the command has none).
	profile *profileFlags
	// threads is --sim-threads (nil: the command has none).
	threads *threadFlags
	// sampleInside is --sample-inside: sampled mode runs each detailed
	// launch in detailed and functional stretches, a functional stretch
	// making the progress of this many detailed ones (0: off).
	sampleInside int
	// sampleSlice is --sample-slice: the instructions a warp runs per turn
	// in those functional stretches (0: the simulator's default).
	sampleSlice int
	// sampleRoundsPace is --sample-rounds: the detailed pace (warp-
	// instructions a cycle) from which those stretches run in rounds on
	// the threads (default sim.SampleRoundsIssue).
	sampleRoundsPace float64
	// sampleStopsOnly is --sample-stops-only: every stretch in detail.
	sampleStopsOnly bool
	// progress, when not nil, reports the device's launches while a
	// device run lasts (--heartbeat).
	progress io.Writer
	// gpus is --gpus: the devices the run spans (1: one device, no
	// partition); partition is --partition, how the vertices are split.
	gpus      int
	partition string
	// devices is --devices (hw), and ordinals the list it gives.
	devices  string
	ordinals []int
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
	// Params are the algorithm's other parameters as the run resolved
	// them (k-core's k, SSSP's delta, ...).
	Params  map[string]any `json:"params,omitempty"`
	Target  string         `json:"target"`
	SimMode string         `json:"sim_mode,omitempty"`
	// SimEngine is the timing engine (window or serial) and SimThreads
	// the window engine's threads, which change no figure.
	SimEngine  string `json:"sim_engine,omitempty"`
	SimThreads int    `json:"sim_threads,omitempty"`
	Config     string `json:"config,omitempty"`
	Device     string `json:"device,omitempty"`
	// GPUs is the devices a --gpus run spanned, and Link their
	// interconnect.
	GPUs   int    `json:"gpus,omitempty"`
	Link   string `json:"link,omitempty"`
	Block  int    `json:"block,omitempty"`
	Grid   int    `json:"grid,omitempty"`
	Warmup int    `json:"warmup,omitempty"`
	Repeat int    `json:"repeat,omitempty"`
	// SpinBudget is the polls a spinning wait may make (0: unbounded);
	// device runs only.
	SpinBudget  *uint32 `json:"spin_budget,omitempty"`
	LoadSeconds float64 `json:"load_seconds"`
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
	Sampling     *samplingReport    `json:"sampling,omitempty"`
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
	// hostCalls is the device calls' log (--host-calls; nil: none).
	hostCalls *hostCallLog
}

func newRunCommand() *cobra.Command {
	o := runOptions{params: map[string]string{}}
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
	f.StringVar(&o.scheduler, "scheduler", scheduler.DefaultVariant, "scheduler variant for sim and hw: "+strings.Join(scheduler.SchedulerNames(), ", ")+" (NAME or NAME:key=value,...)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing (cycle-level, the default), functional (exact values, no cycles) or sampled (some launches in detail, the rest functional with predicted cycles)")
	f.IntVar(&o.sampleInside, "sample-inside", 0, "with --sim-mode sampled: run each launch simulated in detail in detailed and functional stretches, a functional stretch making N detailed stretches' progress and charged at their rate (--sample-inside=N; alone, N = 8; larger N, less wall time and more error; an asynchronous kernel may do other work in its functional stretches: sim's package comment)")
	f.Lookup("sample-inside").NoOptDefVal = strconv.Itoa(sim.SampleFunctionalRatio)
	f.IntVar(&o.sampleSlice, "sample-slice", 0, fmt.Sprintf("with --sample-inside: the instructions a warp runs per turn in the functional stretches (default %d: short turns keep an asynchronous kernel's races, and so its work, close to the detailed stretches'; functional mode's own turn is 256)", sim.SampleStretchSlice))
	f.Float64Var(&o.sampleRoundsPace, "sample-rounds", sim.SampleRoundsIssue, "with --sample-inside: run a functional stretch after a detailed one that issued fewer than this many warp-instructions a cycle in issue-time order, its turns one after another on one thread, instead of in rounds on the simulator's threads (another SM's stores seen a round later); 0, the default: every stretch in rounds (the figures are the same at every thread count either way)")
	f.BoolVar(&o.sampleStopsOnly, "sample-stops-only", false, "with --sample-inside: run every stretch in detail, the timing model stopped and resumed as the stretches make it but no functional stretch between: against full timing, what the stops alone change (a diagnostic of the sampling method; as slow as full timing)")
	f.StringVar(&o.config, "config", "h100", "simulator configuration: a shipped name (h100, v100, gtx780ti, tiny), a YAML file, or an inline override (h100+sms=16+memory.l2_slices=20)")
	registerParamFlags(f, o.params)
	f.IntVar(&o.sources, "sources", 0, "run a traversal from K random sources (Graph500: distinct, each with an out-edge, drawn with --seed) and report each one's figures and their mean, median, min and max; on a timed target also GTEPS (Graph500's edges of the reached component per end-to-end second) and its harmonic mean")
	f.IntVar(&o.block, "block", 256, "threads per CTA for device runs (a multiple of 32)")
	f.IntVar(&o.grid, "grid", 0, "CTAs of grid-stride and persistent phases (default: as many as can be co-resident)")
	f.IntVar(&o.warmup, "warmup", 0, "untimed whole runs before the timed ones (device targets)")
	f.IntVar(&o.repeat, "repeat", 1, "timed whole runs, state reset between them; times are their median (device targets)")
	f.BoolVar(&o.checkBounds, "sim-check-bounds", false, "simulator: check every kernel access to global memory against the bytes its buffer was allocated with, and fail the launch, naming the thread, the instruction and the buffer, at the first one past a buffer's end (the GPU, and the simulator without this flag, let an overrun into a buffer's padding or a neighbour pass)")
	f.Int64Var(&o.spinBudget, "spin-budget", -1, "polls a spinning wait (a fused kernel's grid barrier) may make before the run gives up; -1: 1048576 on hw, unbounded (0) on sim, where the deadlock detector ends a hung launch; 0 is refused on hw")
	f.StringVar(&o.outFile, "out", "", "write the per-vertex result (depth, distance, width, label, membership, rank, belief, colour) to FILE, with a header naming the algorithm, graph, source, target and scheduler (--out-format)")
	f.StringVar(&o.outFormat, "out-format", "text", "--out's format: text ('#' header lines, then 'vertex value' lines) or binary (magic, a JSON header, then little-endian uint32 or float64 values)")
	f.StringVar(&o.hostCalls, "host-calls", "", "write every device call of each whole run (launches, copies, memsets, occupancy queries) to FILE as CSV: the run, whether it is timed, the call, when it began from the run's start, how long it took and the host's own time before it; on the simulator on its simulated host clock, on hardware on the wall clock, so that the two show where end-to-end time goes beyond the kernels")
	f.BoolVar(&o.perIteration, "per-iteration", false, "print the per-iteration table (always in --json when given)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "host timeout for a device run (a hung GPU kernel ends the process)")
	f.DurationVar(&o.heartbeat, "heartbeat", 10*time.Second, heartbeatHelp)
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of a table")
	o.monitor = &monitorFlags{}
	o.monitor.register(f)
	o.profile = &profileFlags{}
	o.profile.register(f)
	o.threads = &threadFlags{}
	o.threads.register(f, false, "")
	registerGPUFlags(f, &o)
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
	if res.hostCalls != nil {
		if err := res.hostCalls.write(o.hostCalls); err != nil {
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

// check rejects flag values that are out of range or do not apply, and
// returns the algorithm's parameters as given.
func (o runOptions) check(a *scheduler.Algorithm) (scheduler.Params, error) {
	given, err := o.algorithmParams(a)
	if err != nil {
		return nil, err
	}
	switch {
	case o.sources < 0:
		return nil, badInput("--sources %d is negative (give the number of random sources)", o.sources)
	case o.set["sources"] && !a.UsesSource():
		return nil, badInput("--sources does not apply to %s: it has no source vertex", a.Name)
	case o.set["sources"] && o.set[scheduler.SourceParam]:
		return nil, badInput("--sources draws the sources: give it or --source, not both")
	case o.sources > 0 && o.outFile != "":
		return nil, badInput("--out writes one run's result: use --source N, not --sources")
	case o.block <= 0 || o.block%32 != 0:
		return nil, badInput("--block %d is not a positive multiple of the warp size (32)", o.block)
	case o.grid < 0:
		return nil, badInput("--grid %d is negative (0 sizes the grid from occupancy)", o.grid)
	case o.warmup < 0:
		return nil, badInput("--warmup %d is negative", o.warmup)
	case o.repeat < 1:
		return nil, badInput("--repeat %d: at least one timed run", o.repeat)
	case o.outFormat != "text" && o.outFormat != "binary":
		return nil, badInput("--out-format %q: use text or binary", o.outFormat)
	case o.set["out-format"] && o.outFile == "":
		return nil, badInput("--out-format applies only with --out FILE")
	case o.hostCalls != "" && o.target == "cpu":
		return nil, badInput("--host-calls records a device's calls: use --target sim or hw")
	case o.hostCalls != "" && o.sources > 0:
		return nil, badInput("--host-calls records one traversal's runs: leave out --sources")
	case o.hostCalls != "" && o.gpus > 1:
		return nil, badInput("--host-calls records one device's calls: leave out --gpus")
	case o.outFile != "" && checkWritable(o.outFile) != nil:
		return nil, badInput("--out: %v", checkWritable(o.outFile))
	case o.hostCalls != "" && checkWritable(o.hostCalls) != nil:
		return nil, badInput("--host-calls: %v", checkWritable(o.hostCalls))
	case o.heartbeat < 0:
		return nil, badInput("--heartbeat %s is negative (0 turns progress off)", o.heartbeat)
	case o.timeout <= 0:
		return nil, badInput("--timeout %s must be positive", o.timeout)
	case checkSpinBudget(o.spinBudget, o.target) != nil:
		return nil, checkSpinBudget(o.spinBudget, o.target)
	}
	if err := checkSimMode(o.target, o.simMode, o.set["sim-mode"]); err != nil {
		return nil, err
	}
	switch {
	case o.sampleInside < 0:
		return nil, badInput("--sample-inside %d must be a positive ratio (0: off)", o.sampleInside)
	case o.sampleInside > 0 && (o.target != "sim" || o.simMode != "sampled"):
		return nil, badInput("--sample-inside applies to --target sim --sim-mode sampled")
	case o.sampleSlice < 0 || o.sampleSlice > maxSampleSlice:
		return nil, badInput("--sample-slice %d: use 1 to %d instructions (0: the default, %d)", o.sampleSlice, maxSampleSlice, sim.SampleStretchSlice)
	case o.sampleSlice > 0 && o.sampleInside == 0:
		return nil, badInput("--sample-slice applies with --sample-inside")
	case o.set["sample-rounds"] && o.sampleInside == 0:
		return nil, badInput("--sample-rounds applies with --sample-inside")
	case o.sampleRoundsPace < 0 || math.IsNaN(o.sampleRoundsPace):
		return nil, badInput("--sample-rounds %g: use a pace of 0 or more warp-instructions a cycle", o.sampleRoundsPace)
	case o.sampleStopsOnly && o.sampleInside == 0:
		return nil, badInput("--sample-stops-only applies with --sample-inside")
	}
	if err := o.monitor.check(o.target, o.simMode); err != nil {
		return nil, err
	}
	if err := o.profile.check(o.target, o.simMode); err != nil {
		return nil, err
	}
	if err := o.threads.check(o.target, o.simMode, o.monitor, o.profile); err != nil {
		return nil, err
	}
	if err := o.checkGPUs(); err != nil {
		return nil, err
	}
	if o.checkBounds && o.target != "sim" {
		return nil, badInput("--sim-check-bounds checks the simulator's accesses: use it with --target sim")
	}
	if o.target == "cpu" {
		for _, name := range []string{"scheduler", "grid", "warmup", "repeat", "block", "sim-mode", "config", "spin-budget", "heartbeat", "sim-threads", "sim-engine"} {
			if o.set[name] {
				return nil, badInput("--%s applies to device runs (--target sim or hw), not to the CPU reference", name)
			}
		}
	}
	return given, nil
}

// algorithmParams reads the algorithm-parameter flags the user gave: each
// must be one the algorithm declares (the draw's --seed applies to
// --sources too), of its kind and in its range.
func (o runOptions) algorithmParams(a *scheduler.Algorithm) (scheduler.Params, error) {
	given := scheduler.Params{}
	for _, d := range scheduler.DeclaredParams() {
		text, ok := o.params[d.Name]
		if !ok {
			continue
		}
		p := a.Param(d.Name)
		if p == nil {
			if d.Name == sourcesSeedParam && o.sources > 0 {
				continue
			}
			return nil, badInput("--%s applies only to %s", d.Name, strings.Join(d.Algorithms, ", "))
		}
		if p.Requires != "" && o.target == "cpu" {
			return nil, badInput("--%s applies to device runs (--target sim or hw), not to the CPU reference: it needs a scheduler's %s", d.Name, p.Requires)
		}
		x, err := p.ParseValue(text)
		if err != nil {
			return nil, &inputError{err}
		}
		given[d.Name] = x
	}
	return given, nil
}

// sourcesSeedParam is the parameter whose flag also seeds --sources' draw.
const sourcesSeedParam = "seed"

// maxSampleSlice bounds --sample-slice. Turns past functional mode's own
// (256) only serve to compare against it; larger values are refused as
// mistakes.
const maxSampleSlice = 1 << 16

// sourcesSeed seeds --sources' draw: --seed, or 1.
func (o runOptions) sourcesSeed() (uint64, error) {
	text, ok := o.params[sourcesSeedParam]
	if !ok {
		return 1, nil
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, badInput("--seed %q is not a whole number in 0..%d", text, uint64(math.MaxUint64))
	}
	return seed, nil
}

// registerParamFlags adds a flag for every algorithm parameter the
// registry declares, its help naming the algorithms that take it; the
// values land in params, by name, as given. --seed is always there: it
// also seeds --sources' draw.
func registerParamFlags(f *pflag.FlagSet, params map[string]string) {
	declared := scheduler.DeclaredParams()
	for _, d := range declared {
		help := strings.Join(d.Algorithms, ", ") + ": " + d.About
		switch {
		case d.Name == sourcesSeedParam:
			help += "; also seeds --sources' draw (default 1)"
		case d.Kind == scheduler.VertexParam:
		default:
			help += fmt.Sprintf(" (default %g)", d.Default)
		}
		f.Var(&paramFlag{name: d.Name, kind: d.Kind.String(), into: params}, d.Name, help)
	}
	if !slices.ContainsFunc(declared, func(d scheduler.DeclaredParam) bool { return d.Name == sourcesSeedParam }) {
		f.Var(&paramFlag{name: sourcesSeedParam, kind: "uint64", into: params}, sourcesSeedParam, "seeds --sources' draw (default 1)")
	}
}

// paramFlag is one algorithm-parameter flag: it keeps the text, which the
// algorithm's declaration parses once the algorithm is known.
type paramFlag struct {
	name, kind string
	into       map[string]string
}

func (p *paramFlag) String() string {
	if p == nil || p.into == nil {
		return ""
	}
	return p.into[p.name]
}
func (p *paramFlag) Set(s string) error { p.into[p.name] = s; return nil }
func (p *paramFlag) Type() string       { return p.kind }

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
	given, err := o.check(a)
	if err != nil {
		return nil, err
	}
	var env *deviceEnv
	var watch *launchWatch
	var calls *hostCallLog
	var plan *scheduler.Plan
	if o.target != "cpu" {
		if a.Setups == nil {
			return nil, badInput("algorithm %s has no GPU kernel yet, so it runs only with --target cpu", a.Name)
		}
		variant, err := scheduler.ParseVariant(o.scheduler)
		if err != nil {
			return nil, &inputError{err}
		}
		if plan, err = scheduler.NewPlan(a, variant, given); err != nil {
			return nil, badInput("scheduler %s cannot run %s: %v", variant, a.Name, err)
		}
		if o.gpus > 1 {
			if err := variant.Offers(scheduler.Partitioned); err != nil {
				return nil, badInput("--gpus %d: scheduler %s: %v (use mgpu, or atos:worker=warp)", o.gpus, variant, err)
			}
			if o.target == "sim" && o.simMode == "sampled" && scheduler.CoLaunchesAcrossDevices(variant) {
				return nil, badInput("--gpus %d: %s co-launches kernels on every device, which sampled mode does not simulate: use --sim-mode timing or functional", o.gpus, variant)
			}
		}
		// Open the device before loading a large graph, so a missing
		// driver or a bad configuration is reported at once.
		if env, err = openDevice(o); err != nil {
			return nil, err
		}
		o.threads.note(o.progress)
		defer env.close()
		prefetchModule(env.dev, a.Name)
		if env.system == nil {
			// The heartbeat follows one device; a multi-GPU run has none.
			watch = newWatch(o)
			if o.hostCalls != "" {
				calls = newHostCallLog(env.dev)
			}
			env.dev = watchDevice(env.dev, watch, calls)
		}
	}
	g, parsed, took, err := loadGraph(o.spec)
	if err != nil {
		return nil, err
	}
	if o.gpus > g.NumVertices() {
		return nil, badInput("--gpus %d: the graph has %d vertices, at most one device per vertex", o.gpus, g.NumVertices())
	}
	paceGC(g)
	// After the load, whose own progress bar would fight with this line.
	watch.begin()
	defer watch.end()
	if o.sources > 0 {
		return runSources(ctx, a, plan, env, o, given, g, parsed, took)
	}
	res, err := runLoaded(ctx, a, plan, env, o, given, g, parsed, took)
	if res != nil {
		res.hostCalls = calls
	}
	return res, err
}

// runLoaded runs a on the loaded graph: on the CPU reference (plan nil) or
// under plan on the device.
func runLoaded(ctx context.Context, a *scheduler.Algorithm, plan *scheduler.Plan, env *deviceEnv, o runOptions, given scheduler.Params, g *graph.Graph, parsed graph.Spec, took time.Duration) (*runResult, error) {
	res := &runResult{Algorithm: a.Name, Graph: parsed.String(), Vertices: g.NumVertices(), Edges: g.NumEdges(),
		Target: o.target, LoadSeconds: took.Seconds()}
	params, err := a.ResolveParams(g, given)
	if err != nil {
		return nil, &inputError{err}
	}
	res.describeParams(a, params)
	start := time.Now()
	if plan == nil {
		c := a.CPU(g, params)
		res.Iterations, res.Summary, res.Notes = c.Iterations, c.Summary, c.Notes
		res.Validation = validation{OK: c.Validation.OK(), Checked: c.Checked, Method: c.Method, Tolerance: c.Validation.Tolerance, Detail: c.Validation.String()}
		res.values = &c.Values
		res.HostSeconds = time.Since(start).Seconds()
		return res, nil
	}
	env.describe(res)
	res.Scheduler, res.Block, res.Grid, res.Warmup, res.Repeat = plan.Variant.String(), o.block, o.grid, o.warmup, o.repeat
	budget := o.budget()
	res.SpinBudget = &budget
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r, err := plan.Enact(ctx, env.dev, g, scheduler.RunOptions{Block: o.block, Grid: o.grid, Warmup: o.warmup, Repeat: o.repeat, SpinBudget: budget,
		System: env.system, Partition: o.partition})
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
	res.Sampling = env.sampling()
	res.Summary, res.Notes, res.values = r.Summary, append(res.Notes, r.Notes...), r.Values
	if o.perIteration || o.asJSON {
		for _, it := range r.Iterations {
			res.PerIteration = append(res.PerIteration, iterationRow{it, it.Stats.Elapsed.Seconds(), it.Stats.Cycles, it.Stats.Counters})
		}
	}
	res.Validation = validation{OK: r.Validation.OK(), Checked: true, Method: "CPU reference", Tolerance: r.Validation.Tolerance, Detail: r.Validation.String()}
	return res, nil
}

// describeParams records the resolved parameters: the source vertex on its
// own, the rest by name.
func (r *runResult) describeParams(a *scheduler.Algorithm, params scheduler.Params) {
	for _, d := range a.Params {
		if d.Name == scheduler.SourceParam && a.UsesSource() {
			source := params.Uint32(d.Name)
			r.Source = &source
			continue
		}
		if r.Params == nil {
			r.Params = map[string]any{}
		}
		r.Params[d.Name] = params[d.Name]
	}
}

// newWatch makes a run's launch watch; tests replace it to set the
// timings.
var newWatch = func(o runOptions) *launchWatch { return newLaunchWatch(o.progress, o.heartbeat) }

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
	for _, name := range slices.Sorted(maps.Keys(r.Params)) {
		t.add(name, r.Params[name])
	}
	target := r.Target
	switch {
	case r.SimEngine == engineWindow:
		target += fmt.Sprintf(" (%s, config %s, parallel engine on %d threads)", r.SimMode, r.Config, r.SimThreads)
	case r.SimEngine == engineSerial:
		target += fmt.Sprintf(" (%s, config %s, serial engine)", r.SimMode, r.Config)
	case r.SimMode != "":
		target += fmt.Sprintf(" (%s, config %s)", r.SimMode, r.Config)
	}
	t.add("target", target)
	if r.Device != "" {
		dev := r.Device
		if r.GPUs > 1 {
			dev = fmt.Sprintf("%d × %s; link: %s", r.GPUs, r.Device, r.Link)
		}
		t.add("device", dev)
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
	addSamplingRows(t, r.Sampling)
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

// prefetchModule starts parsing the kernel module named after the
// algorithm on a device that can (the simulator), while the graph loads.
func prefetchModule(dev kernels.Device, name string) {
	p, ok := dev.(interface{ Prefetch(*kernels.Module) })
	if !ok {
		return
	}
	go func() {
		for _, m := range kernels.Modules() {
			if m.Name == name {
				p.Prefetch(m)
			}
		}
	}()
}
