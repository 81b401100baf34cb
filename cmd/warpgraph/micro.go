package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { extraCommands = append(extraCommands, newMicroCommand) }

var microNames = []string{"stream", "atomic_contention", "bank_stride", "global_barrier", "barriers", "divmod", "launch_overhead", "load_latency", "atomic_spread", "partition_latency", "loaded_latency", "shared_add"}

type microOptions struct {
	target, simMode, config string
	reps, warmup, repeat    int
	elements                int
	iterations              int
	ctas                    int
	spinBudget              int64
	barriers                []string
	grids                   []int
	noBoundary              bool
	timeout                 time.Duration
	heartbeat               time.Duration
	asJSON                  bool
	progress                io.Writer
	// monitor is --monitor and --monitor-hold: one monitor watches each
	// benchmark's fresh device in turn.
	monitor *monitorFlags
	// profile is --profile and --trace: one profile over every
	// benchmark's device.
	profile *profileFlags
}

func newMicroCommand() *cobra.Command {
	var o microOptions
	cmd := &cobra.Command{
		Use:   "micro NAME|all [--target hw|sim]",
		Short: "Run a microbenchmark (" + strings.Join(microNames, ", ") + ") and print its validated table",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names := []string{args[0]}
			if args[0] == "all" {
				names = microNames
			} else if !slices.Contains(microNames, args[0]) {
				return badInput("unknown microbenchmark %q: use one of %s or all", args[0], strings.Join(microNames, ", "))
			}
			if o.target != "hw" && o.target != "sim" {
				return badInput("unknown target %q: microbenchmarks run on hw or sim", o.target)
			}
			if err := o.check(); err != nil {
				return err
			}
			o.progress = cmd.ErrOrStderr()
			timeout := o.timeout
			if timeout <= 0 {
				timeout = time.Hour
				if o.target == "hw" {
					timeout = 5 * time.Minute
				}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			err := runMicros(ctx, cmd.OutOrStdout(), names, o)
			if perr := o.profile.report(profileOut(cmd, o.asJSON)); err == nil {
				err = perr
			}
			o.monitor.holdIfAsked(cmd.Context(), cmd.ErrOrStderr())
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "hw", "hw (CUDA GPU) or sim (simulator)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing (default) or functional")
	f.StringVar(&o.config, "config", "h100", "simulator configuration: a shipped name (h100, v100, gtx780ti, tiny), a YAML file, or an inline override (h100+sms=16+memory.l2_slices=20)")
	f.IntVar(&o.reps, "reps", 0, "work per thread inside the kernel (load_latency: timed walks round each chain; 0: a default per benchmark and target)")
	f.IntVar(&o.warmup, "warmup", 3, "untimed launches before timing (hardware)")
	f.IntVar(&o.repeat, "repeat", 10, "timed launches; the median is reported (hardware)")
	f.IntVar(&o.elements, "elements", 0, "stream: elements (0: 16M on hw, 1M in simulation)")
	f.IntVar(&o.ctas, "ctas", 1, "atomic_contention, shared_add: CTAs of 1024 threads, each on its own slots (1: WolfGraph's one CTA; 0: two per SM, every SM full); atomic_spread: its CTAs (0 or 1: every SM full); loaded_latency: its CTAs, one per SM (0 or 1: every SM)")
	f.IntVar(&o.iterations, "iterations", 0, "launch_overhead: timed iterations per pattern (0: 2000 on hw, 10 in simulation); --warmup untimed ones go first (at least 100 on hw)")
	f.StringSliceVar(&o.barriers, "barrier", nil, "barriers: the grid barriers to measure, comma-separated ("+strings.Join(scheduler.BarrierKinds, ", ")+"; default all)")
	f.IntSliceVar(&o.grids, "grids", []int{132, 1056, 0}, "barriers: grids (CTAs of 128 threads) to time each barrier at; 0 = its co-resident limit; grids past the limit are skipped")
	f.BoolVar(&o.noBoundary, "no-boundary", false, "barriers: time the --grids only, without the deadlock boundary (the limit and one CTA past it): a quick sweep, or a long simulation split into parts")
	f.Int64Var(&o.spinBudget, "spin-budget", -1, "global_barrier, barriers: polls per wait before the kernel aborts (0 = unbounded, simulator only; default 1000000 on hw, 5000 in simulation: enough for the h100 barrier at its limit, where a worker polls about 2,400 times)")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit for all launches (default 5m on hw, where it guards the GPU; 1h in simulation, where global_barrier at h100 scale in timing mode takes many minutes: use --config tiny or --sim-mode functional for a quick look)")
	f.DurationVar(&o.heartbeat, "heartbeat", 10*time.Second, heartbeatHelp)
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of tables")
	o.monitor = &monitorFlags{}
	o.monitor.register(f)
	o.profile = &profileFlags{}
	o.profile.register(f)
	return cmd
}

// runMicros runs the named benchmarks, each on a fresh device, and prints
// their tables.
func runMicros(ctx context.Context, out io.Writer, names []string, o microOptions) error {
	var tables []microJSON
	for _, name := range names {
		t, launches, err := runMicroOnFreshDevice(ctx, name, o)
		if err != nil {
			return fmt.Errorf("micro %s: %w", name, err)
		}
		if !o.asJSON {
			if err := t.Write(out); err != nil {
				return err
			}
			fmt.Fprintln(out)
		}
		config := ""
		if o.target == "sim" {
			config = o.config
		}
		tables = append(tables, microJSON{t, launches, newProvenance(config, nil)})
	}
	if o.asJSON {
		return writeJSON(out, tables)
	}
	return nil
}

// orDefault picks the per-target default when the flag was left at 0:
// hardware needs long kernels to time, a simulation needs short ones.
func orDefault(v int, hw, sim int, target string) int {
	if v > 0 {
		return v
	}
	if target == "hw" {
		return hw
	}
	return sim
}

// spinBudget is --spin-budget, or its per-target default.
func spinBudget(o microOptions) (uint32, error) {
	budget := o.spinBudget
	if budget < 0 {
		budget = int64(orDefault(0, 1_000_000, 5_000, o.target))
	}
	if budget > math.MaxUint32 {
		return 0, badInput("--spin-budget %d does not fit 32 bits", budget)
	}
	if budget == 0 && o.target == "hw" {
		return 0, badInput("--spin-budget 0 (unbounded) would hang a GPU when the grid is too large: it is for the simulator only")
	}
	return uint32(budget), nil
}

// runMicroOnFreshDevice opens a device for one benchmark and closes it
// after, so that no state (caches, the simulator's clock and memory, a
// GPU context's allocations) carries from one benchmark of `micro all` to
// the next: each gives what it gives alone.
// It also returns every launch's statistics, for --json.
func runMicroOnFreshDevice(ctx context.Context, name string, o microOptions) (*micro.Table, []launchRecord, error) {
	env, err := openDevice(runOptions{target: o.target, simMode: o.simMode, config: o.config, monitor: o.monitor, profile: o.profile, progress: o.progress})
	if err != nil {
		return nil, nil, err
	}
	defer env.close()
	watch := newLaunchWatch(o.progress, o.heartbeat)
	watch.record = o.asJSON
	env.dev = watchDevice(env.dev, watch)
	watch.begin()
	defer watch.end()
	t, err := runMicro(ctx, env, name, o)
	return t, watch.takeRecords(), err
}

// microJSON is one benchmark in micro --json: its table, and the
// statistics of every launch behind it, in launch order.
type microJSON struct {
	*micro.Table
	Launches   []launchRecord `json:"launches"`
	Provenance *provenance    `json:"provenance"`
}

// The stream's default sizes: hardware needs a long kernel to time; a
// simulation of 16M elements would take minutes.
const (
	streamElementsHW  = 1 << 24
	streamElementsSim = 1 << 20
)

func runMicro(ctx context.Context, env *deviceEnv, name string, o microOptions) (*micro.Table, error) {
	p := micro.Params{Warmup: o.warmup, Repeat: o.repeat}
	if o.target == "sim" {
		p.Warmup, p.Repeat = 0, 1 // the simulator is deterministic
	}
	switch name {
	case "stream":
		t, _, err := micro.Stream(ctx, env.dev, orDefault(o.elements, streamElementsHW, streamElementsSim, o.target), 256, p)
		if err == nil && o.elements == 0 {
			// The defaults differ (a simulation of 16M elements takes
			// minutes), so the tables say how to compare them.
			t.Notes = append(t.Notes, fmt.Sprintf("Default size: %d elements on hw, %d in simulation; the simulated L2 holds the smaller run, so compare a simulated table with a hardware one at the same --elements.", streamElementsHW, streamElementsSim))
		}
		return t, err
	case "atomic_contention", "shared_add":
		p.Reps = orDefault(o.reps, 256, 8, o.target)
		if name == "shared_add" && p.Reps > micro.SharedAddMaxReps {
			return nil, badInput("--reps %d: shared_add adds at most %d times per thread, so that every slot's sum is exact as a float", p.Reps, micro.SharedAddMaxReps)
		}
		p.CTAs = o.ctas
		if o.ctas == 0 {
			p.CTAs = micro.AtomicCTAsFullGPU(env.dev)
		}
		if name == "shared_add" {
			return micro.SharedAdd(ctx, env.dev, micro.AtomicDegrees, p)
		}
		return micro.AtomicContention(ctx, env.dev, micro.AtomicDegrees, p)
	case "bank_stride":
		p.Reps = orDefault(o.reps, 4096, 32, o.target)
		grid := orDefault(0, 4*env.dev.Properties().SMs, 2, o.target)
		return micro.BankStride(ctx, env.dev, micro.BankStrides, grid, 256, p)
	case "global_barrier":
		budget, err := spinBudget(o)
		if err != nil {
			return nil, err
		}
		return micro.BarrierStudy(ctx, env.dev, 128, orDefault(o.reps, 20, 1, o.target), budget, o.target == "sim")
	case "barriers":
		budget, err := spinBudget(o)
		if err != nil {
			return nil, err
		}
		for _, b := range o.barriers {
			if !slices.Contains(scheduler.BarrierKinds, b) {
				return nil, badInput("unknown barrier %q: use %s", b, strings.Join(scheduler.BarrierKinds, ", "))
			}
		}
		for _, g := range o.grids {
			if g < 0 {
				return nil, badInput("--grids %d: a grid is a positive number of CTAs, or 0 for the co-resident limit", g)
			}
		}
		return micro.Barriers(ctx, env.dev, micro.BarrierSweep{Kinds: o.barriers, Grids: o.grids, Block: 128,
			Rounds: orDefault(o.reps, 100, 2, o.target), SpinBudget: budget, Unbounded: o.target == "sim",
			SkipBoundary: o.noBoundary, Warmup: p.Warmup, Repeat: p.Repeat})
	case "divmod":
		_, t, err := micro.DivModProbe(ctx, env.dev)
		return t, err
	case "atomic_spread":
		p.Reps = orDefault(o.reps, 8, 2, o.target)
		ctas := o.ctas
		if ctas <= 1 { // one CTA has no spread: the default fills the GPU
			ctas = micro.AtomicCTAsFullGPU(env.dev)
		}
		return micro.AtomicSpread(ctx, env.dev, micro.AtomicSpreadStrides, ctas, p)
	case "load_latency":
		p.Reps = o.reps
		return micro.LoadLatency(ctx, env.dev, micro.LoadLatencyFootprints, p)
	case "loaded_latency":
		p.Reps = o.reps
		p.CTAs = o.ctas
		if sms := env.dev.Properties().SMs; o.ctas > sms {
			return nil, badInput("--ctas %d: loaded_latency runs at most one CTA per SM (%d)", o.ctas, sms)
		}
		return micro.LoadedLatency(ctx, env.dev, micro.LoadedLatencyWarps, p)
	case "partition_latency":
		p.Reps = o.reps
		t, _, err := micro.PartitionLatency(ctx, env.dev, micro.PartitionSMs(env.dev), p)
		return t, err
	case "launch_overhead":
		if o.target == "hw" {
			p.Warmup = max(p.Warmup, 100) // first launches load the module and warm the driver's paths
		}
		return micro.LaunchOverhead(ctx, env.dev, orDefault(o.iterations, 2000, 10, o.target), p)
	}
	return nil, badInput("unknown microbenchmark %q", name)
}

// check rejects values that the flags' help does not give a meaning.
func (o microOptions) check() error {
	switch {
	case o.reps < 0:
		return badInput("--reps %d is negative (0 picks each benchmark's default)", o.reps)
	case o.elements < 0:
		return badInput("--elements %d is negative (0 picks the default for the target)", o.elements)
	case o.iterations < 0:
		return badInput("--iterations %d is negative (0 picks the default for the target)", o.iterations)
	case o.ctas < 0:
		return badInput("--ctas %d is negative (0: every SM full)", o.ctas)
	case o.warmup < 0:
		return badInput("--warmup %d is negative", o.warmup)
	case o.repeat < 1:
		return badInput("--repeat %d: at least one timed launch", o.repeat)
	case checkSpinBudget(o.spinBudget, o.target) != nil:
		return checkSpinBudget(o.spinBudget, o.target)
	case o.heartbeat < 0:
		return badInput("--heartbeat %s is negative (0 turns progress off)", o.heartbeat)
	case o.timeout < 0:
		return badInput("--timeout %s is negative", o.timeout)
	}
	if err := o.profile.check(o.target, o.simMode); err != nil {
		return err
	}
	return o.monitor.check(o.target, o.simMode)
}
