package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments/micro"
)

func init() { extraCommands = append(extraCommands, newMicroCommand) }

// microRegistry holds the benchmarks `micro` runs.
var microRegistry = micro.Default

type microOptions struct {
	target, simMode, config string
	reps, warmup, repeat    int
	elements                int
	iterations              int
	ctas, base              int
	spinBudget              int64
	barriers                []string
	grids                   []int
	tables, offsets         []int
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
	// threads is --sim-threads: every benchmark's device runs on the
	// parallel engine.
	threads *threadFlags
	// simModeSet: --sim-mode was given.
	simModeSet bool
	// gpus is peer_copy's and peer_latency's system size (--gpus).
	gpus int
}

func newMicroCommand() *cobra.Command {
	var o microOptions
	cmd := &cobra.Command{
		Use:   "micro NAME|all [--target hw|sim]",
		Short: "Run a microbenchmark (" + strings.Join(microRegistry.Names(), ", ") + ", or " + peerCopyName + " and " + peerLatencyName + " between --gpus devices) and print its validated table",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names := []string{args[0]}
			peer := args[0] == peerCopyName || args[0] == peerLatencyName
			if cmd.Flags().Changed("gpus") && !peer {
				return badInput("--gpus applies to %s and %s only", peerCopyName, peerLatencyName)
			}
			if args[0] == "all" {
				names = microRegistry.Names()
			} else if peer {
				return runPeer(cmd, args[0], o)
			} else if _, err := microRegistry.Lookup(args[0]); err != nil {
				return &inputError{err}
			}
			if o.target != "hw" && o.target != "sim" {
				return badInput("unknown target %q: microbenchmarks run on hw or sim", o.target)
			}
			o.simModeSet = cmd.Flags().Changed("sim-mode")
			if err := o.check(); err != nil {
				return err
			}
			if err := o.threads.checkConfigs(o.target, o.simMode, []string{o.config}); err != nil {
				return err
			}
			o.threads.note(cmd.ErrOrStderr())
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
	f.IntVar(&o.gpus, "gpus", 2, "peer_copy and peer_latency: the devices of the system (CUDA devices 0..N-1, or N GPUs of a simulated system's configuration, e.g. h100-x8-nvlink)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing (default), functional or sampled (some launches in detail, the rest functional; kernels that read a clock always in detail)")
	f.StringVar(&o.config, "config", "h100", "simulator configuration: a shipped name (h100, v100, gtx780ti, tiny), a YAML file, or an inline override (h100+sms=16+memory.l2_slices=20)")
	// Each setting's help says what it means to the benchmarks that read
	// it, as they register it.
	help := func(s micro.Setting) (string, string) { return string(s), microRegistry.Help(s) }
	name, about := help(micro.Reps)
	f.IntVar(&o.reps, name, 0, "work per thread inside the kernel ("+about+"; 0: a default per benchmark and target)")
	f.IntVar(&o.warmup, "warmup", 3, "untimed launches before timing (hardware)")
	f.IntVar(&o.repeat, "repeat", 10, "timed launches; the median is reported (hardware)")
	name, about = help(micro.Elements)
	f.IntVar(&o.elements, name, 0, about)
	name, about = help(micro.CTAs)
	f.IntVar(&o.ctas, name, 1, about)
	name, about = help(micro.Iterations)
	f.IntVar(&o.iterations, name, 0, about)
	name, about = help(micro.BarrierSet)
	f.StringSliceVar(&o.barriers, name, nil, about)
	name, about = help(micro.Grids)
	f.IntSliceVar(&o.grids, name, []int{132, 1056, 0}, about)
	name, about = help(micro.NoBoundary)
	f.BoolVar(&o.noBoundary, name, false, about)
	name, about = help(micro.Tables)
	f.IntSliceVar(&o.tables, name, nil, about)
	name, about = help(micro.Offsets)
	f.IntSliceVar(&o.offsets, name, nil, about)
	name, about = help(micro.Base)
	f.IntVar(&o.base, name, 0, about)
	name, about = help(micro.SpinBudget)
	f.Int64Var(&o.spinBudget, name, -1, about)
	f.DurationVar(&o.timeout, "timeout", 0, "time limit for all launches (default 5m on hw, where it guards the GPU; 1h in simulation, where global_barrier at h100 scale in timing mode takes many minutes: use --config tiny or --sim-mode functional for a quick look)")
	f.DurationVar(&o.heartbeat, "heartbeat", 10*time.Second, heartbeatHelp)
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of tables")
	o.monitor = &monitorFlags{}
	o.monitor.register(f)
	o.profile = &profileFlags{}
	o.profile.register(f)
	o.threads = &threadFlags{}
	o.threads.register(f, false, "")
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

// runMicroOnFreshDevice opens a device for one benchmark and closes it
// after, so that no state (caches, the simulator's clock and memory, a
// GPU context's allocations) carries from one benchmark of `micro all` to
// the next: each gives what it gives alone.
// It also returns every launch's statistics, for --json.
func runMicroOnFreshDevice(ctx context.Context, name string, o microOptions) (*micro.Table, []launchRecord, error) {
	env, err := openDevice(runOptions{target: o.target, simMode: o.simMode, config: o.config, monitor: o.monitor, profile: o.profile, threads: o.threads, progress: o.progress})
	if err != nil {
		return nil, nil, err
	}
	defer env.close()
	watch := newLaunchWatch(o.progress, o.heartbeat)
	watch.record = o.asJSON
	env.dev = watchDevice(env.dev, watch, nil)
	watch.begin()
	defer watch.end()
	t, err := runMicro(ctx, env, name, o)
	if s := env.sampling(); s != nil && t != nil {
		t.Notes = append(t.Notes, "sampled: "+s.Summary)
	}
	return t, watch.takeRecords(), err
}

// microJSON is one benchmark in micro --json: its table, and the
// statistics of every launch behind it, in launch order.
type microJSON struct {
	*micro.Table
	Launches   []launchRecord `json:"launches"`
	Provenance *provenance    `json:"provenance"`
}

// runMicro runs the named benchmark on env's device with the flags'
// settings; a setting it cannot run with is the caller's input error.
func runMicro(ctx context.Context, env *deviceEnv, name string, o microOptions) (*micro.Table, error) {
	b, err := microRegistry.Lookup(name)
	if err != nil {
		return nil, &inputError{err}
	}
	t, err := b.Run(ctx, env.dev, micro.Settings{
		Simulated: o.target == "sim", Warmup: o.warmup, Repeat: o.repeat,
		Reps: o.reps, Elements: o.elements, Iterations: o.iterations, CTAs: o.ctas,
		SpinBudget: o.spinBudget, Barriers: o.barriers, Grids: o.grids, NoBoundary: o.noBoundary,
		Tables: o.tables, Offsets: o.offsets, Base: o.base,
	})
	var bad *micro.SettingError
	if errors.As(err, &bad) {
		return nil, &inputError{err}
	}
	return t, err
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
	if err := checkSimMode(o.target, o.simMode, o.simModeSet); err != nil {
		return err
	}
	if err := o.profile.check(o.target, o.simMode); err != nil {
		return err
	}
	if err := o.monitor.check(o.target, o.simMode); err != nil {
		return err
	}
	return o.threads.check(o.target, o.simMode, o.monitor, o.profile)
}
