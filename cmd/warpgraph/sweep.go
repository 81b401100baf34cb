package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/experiments"
	"github.com/warpgraph/warpgraph/sim"
)

func init() { extraCommands = append(extraCommands, newSweepCommand) }

type sweepOptions struct {
	target, simMode, out, shard string
	configs, points, params     []string
	timeout                     time.Duration
	retryFailed, reportOnly     bool
	slurm                       bool
	shards, jobs                int
	slurmOpts, slurmBinary      string
	longestFirst                []string
	finishBy                    time.Duration
	threads                     *threadFlags
}

// sweepRegistry is the registry the sweep commands read (tests add their
// own experiments to a copy).
var sweepRegistry = experiments.Default

func newSweepCommand() *cobra.Command {
	var o sweepOptions
	cmd := &cobra.Command{
		Use:   "sweep NAME --target sim|hw [--config C] [--out DIR] [--points FILTER] [--shard i/n] [--slurm]",
		Short: "Run a named experiment (see sweep list): resumable, shardable, as a Slurm job array; data.csv, plots and README in results/NAME",
		Long: `Run a named experiment over its points and write results/NAME (or --out):
data.csv (one row per point: axes, parameters, statistics, validation,
commit, wall time, machine, date), plots (PNG and SVG) and README.md.

Each finished point is appended to data.csv and synced before the next
starts; a killed sweep loses at most the point that was running, and
rerunning the same command skips the points already recorded (failed ones
too, unless --retry-failed). A point that fails or does not validate is
recorded with its error and the sweep goes on; the command then exits 1.

--points keeps the points whose axes match: NAME=GLOB[|GLOB...] clauses
(NAME!=GLOB[|GLOB...]: match none), ';'-separated or repeated (e.g.
--points 'degree=1|2|4' --points config=h100 --points 'algorithm!=pr').
--shard i/n runs the i-th of n deterministic slices (1 <= i <= n) and
writes only data.csv and sweep.json; 'sweep merge' joins the shards.
--slurm writes OUT/sweep.sbatch, a job array of --shards tasks, instead of
running anything.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.target, "target", "sim", "sim (simulator) or hw (CUDA GPU)")
	f.StringSliceVar(&o.configs, "config", nil, "simulator configurations, comma-separated or repeated (default: the experiment's, see sweep list)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing, functional or sampled (some launches in detail, the rest functional with predicted cycles)")
	f.StringVar(&o.out, "out", "", "output folder (default results/NAME)")
	f.StringArrayVar(&o.points, "points", nil, "keep points matching NAME=GLOB[|GLOB...] or matching none of NAME!=GLOB[|GLOB...] (';'-separated or repeated)")
	f.StringArrayVar(&o.params, "param", nil, "set an experiment parameter, NAME=VALUE (repeatable; see sweep list)")
	f.StringVar(&o.shard, "shard", "", "run only shard i of n (i/n, 1 <= i <= n)")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit per point (default 1h in simulation, 5m on hardware)")
	f.BoolVar(&o.retryFailed, "retry-failed", false, "run again the points recorded with status error")
	f.BoolVar(&o.reportOnly, "report-only", false, "run nothing: write data.csv in sweep order, the plots and README.md from the points recorded so far (the README lists the points not run yet)")
	f.IntVar(&o.jobs, "jobs", 1, "simulator points run at once (one process, one goroutine each; 0: one per CPU, or with --sim-threads N one per N CPUs, at least one); the hardware runs one at a time; --jobs × --sim-threads may not exceed the CPUs")
	f.DurationVar(&o.finishBy, "finish-by", 0, "with --longest-first: start a point only if its earlier wall seconds say it ends within DURATION of the sweep's start (a point the files do not name counts as long as the longest they name); running points are never stopped; points left out end the sweep with status 6 and a line saying how many, and the same command resumes them (for a batch job's time limit)")
	f.StringArrayVar(&o.longestFirst, "longest-first", nil, "run the points longest first by their wall seconds in earlier sweeps' data.csv (a file or its folder; repeatable, a later file's figure for a point replacing an earlier one's; points none names go first), so that with several --jobs no long point starts last; rows are recorded in sweep order all the same")
	f.BoolVar(&o.slurm, "slurm", false, "write a Slurm batch script (a job array, one shard per task) to OUT/sweep.sbatch instead of running")
	f.IntVar(&o.shards, "shards", 4, "with --slurm: array tasks (shards)")
	f.StringVar(&o.slurmOpts, "slurm-opts", "", "with --slurm: sbatch options, e.g. \"--partition=gpu --time=02:00:00 --gres=gpu:1\"")
	f.StringVar(&o.slurmBinary, "slurm-binary", "", "with --slurm: the warpgraph binary the jobs run (default: this one)")
	o.threads = &threadFlags{}
	o.threads.register(f, true, "with --slurm each task asks N × --jobs CPUs (--cpus-per-task; 0: one thread per CPU that --slurm-opts asks); sweep.json and the README record the engine")
	cmd.AddCommand(newSweepListCommand(), newSweepMergeCommand(), newSweepJoinCommand(), newSweepCrossCheckCommand())
	return cmd
}

// planFor builds the sweep's plan from the flags.
func planFor(e *experiments.Experiment, o sweepOptions) (experiments.Plan, error) {
	if o.target != experiments.TargetSim && o.target != experiments.TargetHW {
		return experiments.Plan{}, badInput("unknown target %q: sweeps run on sim or hw", o.target)
	}
	pl := experiments.Plan{Experiment: e.Name, Target: o.target, Filter: o.points}
	if err := checkSimMode(o.target, o.simMode, o.simMode != string(sim.ModeTiming)); err != nil {
		return pl, err
	}
	if o.target == experiments.TargetSim {
		pl.Configs, pl.SimMode = o.configs, o.simMode
		if len(pl.Configs) == 0 {
			pl.Configs = e.Configs
		}
	} else if len(o.configs) > 0 {
		return pl, badInput("--config applies to --target sim")
	}
	for _, kv := range o.params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return pl, badInput("--param %q is not NAME=VALUE", kv)
		}
		if pl.Params == nil {
			pl.Params = map[string]string{}
		}
		pl.Params[k] = v
	}
	if o.shard != "" {
		i, n, err := experiments.ParseShard(o.shard)
		if err != nil {
			return pl, &inputError{err}
		}
		pl.Shard, pl.Shards = i, n
	}
	return pl, nil
}

func runSweep(cmd *cobra.Command, name string, o sweepOptions) error {
	e, err := sweepRegistry.Lookup(name)
	if err != nil {
		return &inputError{err}
	}
	pl, err := planFor(e, o)
	if err != nil {
		return err
	}
	// Enumerate now, so that a bad filter, parameter or target is an input
	// error before anything runs.
	if _, err := pl.Points(e); err != nil {
		return &inputError{err}
	}
	out := o.out
	if out == "" {
		out = filepath.Join("results", e.Name)
		if pl.Shards > 0 {
			out = experiments.ShardDir(out, pl.Shard, pl.Shards)
		}
	}
	if o.reportOnly && (o.slurm || o.retryFailed || pl.Shards > 0) {
		return badInput("--report-only runs nothing and reports a whole sweep: leave out --slurm, --retry-failed and --shard")
	}
	if !o.reportOnly {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return badInput("--out %s: %v", out, err)
		}
	}
	if err := o.threads.check(o.target, o.simMode, nil, nil); err != nil {
		return err
	}
	if err := o.threads.checkConfigs(o.target, o.simMode, pl.Configs); err != nil {
		return err
	}
	o.threads.note(cmd.ErrOrStderr())
	switch {
	case o.finishBy < 0:
		return badInput("--finish-by %s: give a positive time", o.finishBy)
	case o.finishBy > 0 && len(o.longestFirst) == 0:
		return badInput("--finish-by needs --longest-first: the points' earlier wall seconds say which can end in time")
	}
	var costs map[string]float64
	if len(o.longestFirst) > 0 {
		if o.reportOnly {
			return badInput("--report-only runs nothing: leave out --longest-first")
		}
		var err error
		if costs, err = experiments.CostsFrom(o.longestFirst...); err != nil {
			return badInput("--longest-first: %v", err)
		}
	}
	if o.slurm {
		return writeSlurm(cmd, e, o, out)
	}
	jobs, err := sweepJobs(o.jobs, o.threads, runtime.NumCPU())
	if err != nil {
		return err
	}
	if jobs > 1 && pl.Target != experiments.TargetSim {
		return badInput("--jobs %d with --target %s: only simulator points run in parallel (GPU runs at once would time each other)", jobs, pl.Target)
	}
	simThreads := 0
	if o.threads.window() && pl.Target == experiments.TargetSim && o.simMode != string(sim.ModeFunctional) {
		simThreads = o.threads.threads(runtime.NumCPU(), jobs)
	}
	// main cancels the context on SIGINT and SIGTERM.
	sum, err := experiments.Sweep(cmd.Context(), e, experiments.Options{
		Plan: pl, Out: out, Timeout: o.timeout, RetryFailed: o.retryFailed, Jobs: jobs, SimThreads: simThreads, ReportOnly: o.reportOnly,
		Costs: costs, FinishBy: o.finishBy,
		Progress: newSweepProgress(cmd.ErrOrStderr(), e.Name, jobs),
		Commit:   commitForRows(), Command: commandLine(cmd, name),
	})
	if err != nil {
		if errors.Is(err, experiments.ErrCostsNameNoPoint) {
			return badInput("--longest-first %s: %v", strings.Join(o.longestFirst, ", "), err)
		}
		var notStarted *experiments.NotStartedError
		if errors.As(err, &notStarted) {
			return fmt.Errorf("sweep %s stopped at --finish-by: %w; %d run now, finished points are in %s; the same command resumes", e.Name, err, sum.Ran, filepath.Join(out, experiments.DataFile))
		}
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("sweep %s interrupted: finished points are in %s; rerun the same command to resume", e.Name, filepath.Join(out, experiments.DataFile))
		}
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "sweep %s: %d points (%d recorded before, %d run now: %d ok, %d invalid, %d failed) in %s\n",
		e.Name, sum.Points, sum.Skipped, sum.Ran, sum.OK, sum.Invalid, sum.Errors, out)
	if sum.NotRun > 0 {
		fmt.Fprintf(w, "  %d points not run (--report-only): the same command without it runs them\n", sum.NotRun)
	}
	for _, f := range sum.Files {
		fmt.Fprintf(w, "  wrote %s\n", filepath.Join(out, f))
	}
	if sum.Invalid+sum.Errors > 0 {
		return fmt.Errorf("sweep %s: %d points failed or did not validate (their rows say why)", e.Name, sum.Invalid+sum.Errors)
	}
	return nil
}

// sweepJobs resolves --jobs on a host of cores CPUs: 0 is one point per
// CPU, or with --sim-threads N one per N CPUs (at least one); without
// --sim-threads the points share the CPUs (threadFlags.threads). More threads
// in all than CPUs is refused: the parallel engine's threads spin while
// they wait for each other.
func sweepJobs(jobs int, threads *threadFlags, cores int) (int, error) {
	switch {
	case jobs < 0:
		return 0, badInput("--jobs %d: give 1 or more points at once, or 0 for one per CPU", jobs)
	case !threads.given && jobs == 0:
		return cores, nil
	case !threads.given:
		return jobs, nil
	}
	perPoint := threads.threads(cores, 1)
	resolved := jobs
	if jobs == 0 {
		resolved = max(cores/perPoint, 1)
	}
	if resolved*perPoint <= cores {
		return resolved, nil
	}
	jobsSpelled, threadsSpelled := strconv.Itoa(jobs), strconv.Itoa(threads.n)
	if jobs == 0 {
		jobsSpelled += " (one point)"
	}
	if threads.n == 0 {
		threadsSpelled += fmt.Sprintf(" (one per CPU: %d)", perPoint)
	}
	fix := fmt.Sprintf("give --jobs %d at most, or 0 for that many", cores/perPoint)
	if perPoint > cores {
		fix = "lower --sim-threads"
	}
	return 0, badInput("--jobs %s × --sim-threads %s is %d threads, more than this host's %d CPUs: %s",
		jobsSpelled, threadsSpelled, resolved*perPoint, cores, fix)
}

// commitForRows is the commit stamped on rows: the one make device-build
// sets, else the binary's VCS stamp.
func commitForRows() string {
	if buildCommit != "unknown" && buildCommit != "" {
		return buildCommit
	}
	return experiments.BuildCommit()
}

// commandLine spells the command as given (flags in the order cobra
// reports them), for the README.
func commandLine(cmd *cobra.Command, name string) string {
	parts := []string{cmd.CommandPath(), experiments.ShellQuote(name)}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			for _, s := range v.GetSlice() {
				parts = append(parts, "--"+f.Name, experiments.ShellQuote(s))
			}
		default:
			if f.Value.Type() == "bool" {
				parts = append(parts, "--"+f.Name)
			} else {
				parts = append(parts, "--"+f.Name, experiments.ShellQuote(f.Value.String()))
			}
		}
	})
	return strings.Join(parts, " ")
}

func writeSlurm(cmd *cobra.Command, e *experiments.Experiment, o sweepOptions, out string) error {
	if o.shard != "" {
		return badInput("--slurm makes the shards itself: leave out --shard")
	}
	if o.shards < 1 {
		return badInput("--shards %d: at least 1", o.shards)
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	bin := o.slurmBinary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return err
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	var args []string
	args = append(args, "--target", o.target)
	if o.target == experiments.TargetSim {
		configs := o.configs
		if len(configs) == 0 {
			configs = e.Configs
		}
		args = append(args, "--config", strings.Join(configs, ","), "--sim-mode", o.simMode)
	}
	for _, p := range o.points {
		args = append(args, "--points", p)
	}
	for _, p := range o.params {
		args = append(args, "--param", p)
	}
	if o.timeout > 0 {
		args = append(args, "--timeout", o.timeout.String())
	}
	if o.retryFailed {
		args = append(args, "--retry-failed")
	}
	if o.jobs != 1 {
		args = append(args, "--jobs", strconv.Itoa(o.jobs))
	}
	if o.finishBy > 0 {
		args = append(args, "--finish-by", o.finishBy.String())
	}
	for _, path := range o.longestFirst {
		costs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		args = append(args, "--longest-first", costs)
	}
	job := experiments.SlurmJob{Experiment: e.Name, Shards: o.shards, Out: abs, Binary: bin, Workdir: wd,
		Args: args, Options: experiments.SlurmOptions(o.slurmOpts)}
	if o.threads.engine.name == engineSerial {
		job.Args = append(job.Args, "--sim-engine", engineSerial)
	}
	if o.threads.given {
		job.Args = append(job.Args, "--sim-threads", strconv.Itoa(o.threads.n))
		// 0 (one per CPU) takes the CPUs the task is given (--slurm-opts).
		if o.threads.n > 0 {
			job.CPUsPerTask = o.threads.n * max(o.jobs, 1)
			if experiments.SetsCPUsPerTask(job.Options) {
				return badInput("--slurm-opts sets --cpus-per-task, which --sim-threads %d sets to %d (--jobs × --sim-threads): leave it out", o.threads.n, job.CPUsPerTask)
			}
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return err
	}
	path := filepath.Join(abs, "sweep.sbatch")
	if err := os.WriteFile(path, []byte(job.Script()), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: a job array of %d shards\n  submit: sbatch %s\n  then:   %s sweep merge %s --out %s\n",
		path, o.shards, path, bin, filepath.Join(abs, fmt.Sprintf("shard-*-of-%d", o.shards)), abs)
	return nil
}

func newSweepListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the experiments with their axes, parameters and default configurations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			for _, e := range sweepRegistry.All() {
				fmt.Fprintf(w, "%s — %s\n", e.Name, e.About)
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintf(tw, "  targets\t%s\n", strings.Join(e.Targets, ", "))
				if len(e.Configs) > 0 {
					fmt.Fprintf(tw, "  configs\t%s\n", strings.Join(e.Configs, ", "))
				}
				for _, a := range e.Axes {
					vals := strings.Join(a.Values, ", ")
					if len(a.Values) == 0 {
						vals = "(the experiment lists the points)"
					}
					fmt.Fprintf(tw, "  axis %s\t%s: %s\n", a.Name, a.About, vals)
				}
				for _, p := range e.Params {
					fmt.Fprintf(tw, "  param %s\t%s (sim %s, hw %s)\n", p.Name, p.About, p.Default(experiments.TargetSim, ""), p.Default(experiments.TargetHW, ""))
				}
				for _, t := range e.Targets {
					pl := experiments.Plan{Experiment: e.Name, Target: t}
					if t == experiments.TargetSim {
						pl.Configs, pl.SimMode = e.Configs, "timing"
					}
					if pts, err := pl.Points(e); err == nil {
						fmt.Fprintf(tw, "  points on %s\t%d\n", t, len(pts))
					}
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
			return nil
		},
	}
}

func newSweepMergeCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR... [--out DIR]",
		Short: "Join the shards of a sweep (folders of --shard runs), checking for missing and duplicate points",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				out = filepath.Dir(filepath.Clean(dirs[0]))
			}
			sort.SliceStable(dirs, func(i, j int) bool { return shardOrder(dirs[i]) < shardOrder(dirs[j]) })
			res, err := experiments.Merge(sweepRegistry, dirs, out, mergeCommandLine(cmd, dirs), commitForRows())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shard folders of %s: %d points into %s\n", len(dirs), res.Plan.Experiment, res.Rows, out)
			for _, f := range res.Files {
				fmt.Fprintf(cmd.OutOrStdout(), "  wrote %s\n", filepath.Join(out, f))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (default: the folder holding the first shard folder)")
	return cmd
}

// shardOrder sorts shard-I-of-N folders by I (so shard 10 follows 9).
func shardOrder(dir string) string {
	var i, n int
	if _, err := fmt.Sscanf(filepath.Base(dir), "shard-%d-of-%d", &i, &n); err == nil {
		return fmt.Sprintf("%s/%09d", filepath.Dir(dir), i)
	}
	return dir
}

func mergeCommandLine(cmd *cobra.Command, dirs []string) string {
	parts := []string{cmd.CommandPath()}
	for _, d := range dirs {
		parts = append(parts, experiments.ShellQuote(d))
	}
	if f := cmd.Flags().Lookup("out"); f != nil && f.Changed {
		parts = append(parts, "--out", experiments.ShellQuote(f.Value.String()))
	}
	return strings.Join(parts, " ")
}

func newSweepCrossCheckCommand() *cobra.Command {
	var out, config string
	var cellsOf []string
	cmd := &cobra.Command{
		Use:   "crosscheck DATA... --out DIR [--config C] [--cells-of DATA]",
		Short: "Compare the simulated and measured points of experiments (data.csv files or their folders): error per cell, correlation, fastest-variant agreement, rank correlation",
		Long: `Join the simulator's rows (configuration --config) with the GPU's rows of
each experiment by cell (the point key without the configuration) and write
DIR/README.md, DIR/data.csv and a log-log scatter per statistic: (a) the
mean absolute percentage error and the correlation of simulated and
measured times, (b) per workload, whether the simulator picks the GPU's
fastest variant, (c) Spearman's rank correlation of the variants' times,
(d) the cells with the largest error and the trends in the error. The
experiment says which statistics are compared (e.g. simhw: kernel_us,
end_to_end_us). Inputs may hold one target each or both. --cells-of
compares only the cells another data.csv holds (an earlier plan's), so that
cross-checks of a plan that grew compare like with like.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput("crosscheck needs --out DIR")
			}
			res, err := experiments.CrossCheckReport(sweepRegistry, experiments.CrossOptions{
				Inputs: args, Config: config, Out: out, CellsOf: cellsOf, Commit: commitForRows(),
				Command: crossCheckCommandLine(args, out, config, cellsOf),
			})
			if err != nil {
				return &inputError{err}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "crosscheck: %d cells; headline MAPE %.0f%%, r(log) %.3f", res.Pairs, res.MAPE, res.LogPearson)
			if res.WinnerGroups > 0 {
				fmt.Fprintf(w, "; fastest variant agrees in %d of %d workloads; mean Spearman %.3f", res.WinnersAgree, res.WinnerGroups, res.SpearmanMean)
			}
			fmt.Fprintln(w)
			for _, f := range res.Files {
				fmt.Fprintf(w, "  wrote %s\n", filepath.Join(out, f))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the report's folder (README.md, data.csv, figures)")
	cmd.Flags().StringVar(&config, "config", "h100", "the simulator configuration whose rows are compared")
	cmd.Flags().StringArrayVar(&cellsOf, "cells-of", nil, "compare only the cells this data.csv (or its folder) holds, of either target (repeatable)")
	return cmd
}

func crossCheckCommandLine(args []string, out, config string, cellsOf []string) string {
	parts := []string{"warpgraph sweep crosscheck"}
	for _, a := range args {
		parts = append(parts, experiments.ShellQuote(a))
	}
	parts = append(parts, "--out", experiments.ShellQuote(out))
	if config != "h100" {
		parts = append(parts, "--config", experiments.ShellQuote(config))
	}
	for _, c := range cellsOf {
		parts = append(parts, "--cells-of", experiments.ShellQuote(c))
	}
	return strings.Join(parts, " ")
}

func newSweepJoinCommand() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "join SIM.csv HW.csv [--out FILE]",
		Short: "Join a simulator sweep's CSV with the hardware sweep's by point key: sim and hw columns side by side",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			var f *os.File
			if out != "" {
				var err error
				if f, err = os.Create(out); err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			n, err := experiments.Join(sweepRegistry, args[0], args[1], w)
			if err != nil {
				return err
			}
			if f != nil {
				if err := f.Close(); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "joined %d rows into %s\n", n, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the joined CSV here (default: stdout)")
	return cmd
}

// sweepProgress reports a sweep: a bar with points done, ETA and the
// running point on a terminal; one line per point otherwise.
type sweepProgress struct {
	w           io.Writer
	name        string
	bar         *progressbar.ProgressBar
	total, done int
	ran         int
	// jobs is how many points run at once; began holds the start of each
	// running point, by key.
	jobs  int
	began map[string]time.Time
	spent time.Duration
}

func newSweepProgress(w io.Writer, name string, jobs int) *sweepProgress {
	p := &sweepProgress{w: w, name: name, jobs: max(jobs, 1), began: map[string]time.Time{}}
	if f, ok := w.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		p.bar = progressbar.NewOptions(0,
			progressbar.OptionSetWriter(w),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionThrottle(200*time.Millisecond),
		)
	}
	return p
}

func (p *sweepProgress) Start(total, done int) {
	p.total, p.done = total, done
	if p.bar != nil {
		p.bar.ChangeMax(total)
		_ = p.bar.Set(done)
		return
	}
	fmt.Fprintf(p.w, "sweep %s: %d points, %d already recorded\n", p.name, total, done)
}

func (p *sweepProgress) Begin(pt experiments.Point) {
	p.began[pt.Key()] = time.Now()
	if p.bar != nil {
		if p.jobs > 1 {
			p.bar.Describe(fmt.Sprintf("%d running, latest %s", len(p.began), pt.Key()))
		} else {
			p.bar.Describe(pt.Key())
		}
	}
}

func (p *sweepProgress) End(pt experiments.Point, r experiments.Row) {
	took := time.Since(p.began[pt.Key()])
	delete(p.began, pt.Key())
	p.done++
	p.ran++
	p.spent += took
	if p.bar != nil {
		if r["status"] != experiments.StatusOK {
			_ = p.bar.Clear()
			fmt.Fprintf(p.w, "%s: %s: %s\n", pt.Key(), r["status"], firstLine(r["error"]+r["validation"]))
		}
		_ = p.bar.Add(1)
		return
	}
	eta := time.Duration(float64(p.spent) / float64(p.ran) * float64(p.total-p.done) / float64(p.jobs)).Round(time.Second)
	line := fmt.Sprintf("[%d/%d] %s: %s (%.1fs, ETA %s)", p.done, p.total, pt.Key(), r["status"], took.Seconds(), eta)
	if r["status"] != experiments.StatusOK {
		line += ": " + firstLine(r["error"]+" "+r["validation"])
	}
	fmt.Fprintln(p.w, line)
}

func (p *sweepProgress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n|"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
