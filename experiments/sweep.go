package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

// Progress hears about a sweep as it runs (a bar on a terminal, lines in
// a log). Calls come from the sweep's goroutine, in order.
type Progress interface {
	// Start announces the points of this run, done of them already
	// finished by an earlier run.
	Start(total, done int)
	// Begin and End bracket one point; End gets the row recorded.
	Begin(p Point)
	End(p Point, r Row)
	Finish()
}

// Opener opens the device of a point.
type Opener func(target, config, simMode string) (kernels.Device, error)

// OpenDevice opens the simulator with a configuration and mode, or the
// first GPU (device 0) for TargetHW.
func OpenDevice(target, config, simMode string) (kernels.Device, error) {
	return openDevice(target, config, simMode)
}

// windowEngine returns an Opener whose simulators run on the parallel
// window engine with threads threads (sim.WithThreads).
func windowEngine(threads int) Opener {
	return func(target, config, simMode string) (kernels.Device, error) {
		return openDevice(target, config, simMode, sim.WithThreads(threads))
	}
}

// openSystem opens gpus devices as one system: simulated GPUs of the
// configuration's system (each on the window engine with threads
// threads when threads > 0), or CUDA devices 0..gpus-1.
func openSystem(target, config, simMode string, gpus, threads int) (kernels.System, error) {
	switch target {
	case TargetSim:
		m, err := sim.ParseMode(simMode)
		if err != nil {
			return nil, err
		}
		opts := []sim.Option{sim.WithMode(m)}
		if threads > 0 {
			opts = append(opts, sim.WithThreads(threads))
		}
		return sim.OpenSystem(config, gpus, opts...)
	case TargetHW:
		ordinals := make([]int, gpus)
		for i := range ordinals {
			ordinals[i] = i
		}
		return hw.OpenSystem(ordinals)
	}
	return nil, fmt.Errorf("unknown target %q: use sim or hw", target)
}

func openDevice(target, config, simMode string, simOpts ...sim.Option) (kernels.Device, error) {
	switch target {
	case TargetSim:
		m, err := sim.ParseMode(simMode)
		if err != nil {
			return nil, err
		}
		return sim.Open(config, append([]sim.Option{sim.WithMode(m)}, simOpts...)...)
	case TargetHW:
		return hw.Open(0)
	}
	return nil, fmt.Errorf("unknown target %q: use sim or hw", target)
}

// Options configure a sweep.
type Options struct {
	Plan Plan
	// Out is the output folder (data.csv, sweep.json, plots, README.md).
	Out string
	// Timeout bounds each point (0: 1 h in simulation, 5 min on hardware).
	Timeout time.Duration
	// RetryFailed runs again the points recorded with status error; by
	// default every recorded point counts as finished.
	RetryFailed bool
	// Open opens a point's device (nil: OpenDevice, or the window engine
	// with SimThreads).
	Open Opener
	// SimThreads > 0 runs the simulator points on the parallel window
	// engine with that many threads each (sim.WithThreads; 0: the serial
	// engine). Rows do not depend on the count; sweep.json and the README
	// record it, as the engine's figures may differ from the serial one's.
	SimThreads int
	Progress   Progress
	// Commit, Machine and Now stamp every row (zero: BuildCommit, Machine,
	// time.Now).
	Commit, Machine string
	Now             func() time.Time
	// Command is the command line, for the README.
	Command string
	// Jobs is how many points run at once (0 or 1: one after another).
	// Only simulator points may run in parallel: a GPU timed by several
	// processes at once measures their interference.
	Jobs int
	// Costs, when set, orders the points to run by their expected wall
	// seconds, longest first (points it does not name go first, as their
	// cost is unknown; ties keep the plan's order), so that with several
	// jobs no long point starts last. Rows are recorded in sweep order all
	// the same. CostsFrom reads it from an earlier sweep's data.csv.
	Costs map[string]float64
	// ReportOnly runs nothing: it writes data.csv in sweep order and the
	// report from the points recorded so far, the README naming the
	// points of the plan not run yet (a sweep gathered elsewhere, or one
	// whose last points do not fit the time at hand).
	ReportOnly bool
	// FinishBy, when positive (with Costs), starts a point only if it is
	// expected to end within FinishBy of the sweep's start: Now plus its
	// cost, a point Costs does not name counting as long as the longest it
	// names. Running points are never stopped. Points left unstarted make
	// Sweep return a *NotStartedError once the others are recorded; the
	// same sweep run again resumes with them.
	FinishBy time.Duration
}

// ErrFinishBy is what a *NotStartedError wraps.
var ErrFinishBy = errors.New("points left unstarted: expected to end past the sweep's time limit")

// NotStartedError is Sweep's error when Options.FinishBy left points
// unstarted.
type NotStartedError struct {
	Points   int
	FinishBy time.Duration
}

func (e *NotStartedError) Error() string {
	return fmt.Sprintf("%d points not started: by their earlier wall seconds they would end more than %s after the sweep began", e.Points, e.FinishBy)
}

func (e *NotStartedError) Unwrap() error { return ErrFinishBy }

// Summary counts what a sweep did.
type Summary struct {
	Points, Skipped, Ran, OK, Invalid, Errors int
	// NotRun are the points a ReportOnly sweep found unrecorded.
	NotRun int
	// NotStarted are the points Options.FinishBy left out.
	NotStarted int
	// Files are the files written besides data.csv and sweep.json (plots
	// and README.md of a complete, unsharded sweep).
	Files []string
}

// DataFile and PlanFile are the names of a sweep's CSV and plan in its
// output folder.
const (
	DataFile = "data.csv"
	PlanFile = "sweep.json"
)

// planFile is sweep.json: the plan and the command that made the data.
type planFile struct {
	Plan
	Command string `json:"command,omitempty"`
	// SimThreads is the window engine's threads per point; absent: the
	// serial engine made the figures.
	SimThreads int `json:"sim_threads,omitempty"`
}

// engine names the simulator engine that made a sweep's figures.
func engine(simThreads int) string {
	if simThreads > 0 {
		return "the parallel window engine (--sim-engine window, the default)"
	}
	return "the serial engine (--sim-engine serial)"
}

// Sweep runs every point of the plan that the output folder does not
// hold yet, appending each to data.csv as it finishes. A point that fails
// or does not validate is recorded with its error and the sweep goes on.
// When ctx ends, the running point is dropped (not recorded) and Sweep
// returns ctx's error: rerunning it resumes there. Once every point is in,
// data.csv is rewritten in sweep order and, unless the plan is a shard,
// the plots and README.md are written beside it.
func Sweep(ctx context.Context, e *Experiment, o Options) (*Summary, error) {
	points, err := o.Plan.Points(e)
	if err != nil {
		return nil, err
	}
	o.defaults()
	if o.Costs != nil && !slices.ContainsFunc(points, func(p Point) bool { _, ok := o.Costs[p.Key()]; return ok }) {
		return nil, fmt.Errorf("%w: none of this sweep's %d points (a data.csv of another experiment, target or configuration?)", ErrCostsNameNoPoint, len(points))
	}
	if o.FinishBy < 0 || o.FinishBy > 0 && o.Costs == nil {
		return nil, fmt.Errorf("a time limit of %s needs the points' earlier wall seconds (Costs) to know which can end in time", o.FinishBy)
	}
	if o.ReportOnly && o.RetryFailed {
		return nil, fmt.Errorf("a report-only sweep runs nothing, so it cannot retry failed points")
	}
	if o.Jobs > 1 && o.Plan.Target != TargetSim {
		return nil, fmt.Errorf("%d parallel jobs on target %s: only simulator points may run in parallel (concurrent GPU runs time each other's interference)", o.Jobs, o.Plan.Target)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	st, rows, err := openStore(filepath.Join(o.Out, DataFile), Header(e))
	if err != nil {
		return nil, err
	}
	defer st.close()
	simThreads, err := o.engineOver(rows)
	if err != nil {
		return nil, err
	}
	done := map[string]Row{}
	for _, r := range rows {
		done[r.Key()] = r
	}
	sum := &Summary{Points: len(points)}
	var todo []Point
	for _, p := range points {
		r, ok := done[p.Key()]
		if ok {
			if err := sameSettings(p, r); err != nil {
				return nil, fmt.Errorf("%s: %w", st.path, err)
			}
		}
		if !ok || o.RetryFailed && r["status"] == StatusError {
			todo = append(todo, p)
			continue
		}
		sum.Skipped++
	}
	// Written once the recorded points are known to match: a sweep that
	// refuses the folder leaves its plan as it was.
	if err := writePlan(o.Out, planFile{o.Plan, o.Command, simThreads}); err != nil {
		return nil, err
	}
	var notRun []string
	if o.ReportOnly {
		for _, p := range todo {
			notRun = append(notRun, p.Key())
		}
		sum.NotRun, todo = len(todo), nil
	}
	if o.Progress != nil && !o.ReportOnly {
		o.Progress.Start(len(points), sum.Skipped)
		defer o.Progress.Finish()
	}
	record := func(p Point, r Row) error {
		if err := st.append(r); err != nil {
			return err
		}
		done[p.Key()] = r
		sum.Ran++
		switch r["status"] {
		case StatusOK:
			sum.OK++
		case StatusInvalid:
			sum.Invalid++
		default:
			sum.Errors++
		}
		if o.Progress != nil {
			o.Progress.End(p, r)
		}
		return nil
	}
	if o.Costs != nil {
		longestFirst(todo, o.Costs)
	}
	notStarted, err := runPoints(ctx, e, todo, o, record)
	if err != nil {
		return sum, err
	}
	if notStarted > 0 {
		sum.NotStarted = notStarted
		return sum, &NotStartedError{Points: notStarted, FinishBy: o.FinishBy}
	}
	// Every point is in: rewrite the file in sweep order, one row per
	// point (rows of points outside this plan, from earlier sweeps into
	// the same folder, follow in key order).
	all := make([]Row, 0, len(done))
	for _, r := range done {
		all = append(all, r)
	}
	order := map[string]int{}
	for _, p := range points {
		order[p.Key()] = p.Index
	}
	sortRows(all, order)
	if err := writeAtomically(st.path, func(w io.Writer) error { return writeCSV(w, st.header, all) }); err != nil {
		return sum, err
	}
	if o.Plan.Shards == 0 {
		files, err := Report(e, o.Out, all, ReportInfo{Commands: []string{o.Command}, Commit: o.Commit, NotRun: notRun, SimThreads: simThreads})
		sum.Files = files
		if err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// ErrCostsNameNoPoint is Sweep's error for Options.Costs that name none of
// the plan's points.
var ErrCostsNameNoPoint = errors.New("the costs to order by name no point of this sweep")

// longestFirst orders points by costs, longest first, the points costs
// does not name before all others; ties keep their order.
func longestFirst(points []Point, costs map[string]float64) {
	cost := func(p Point) float64 {
		if c, ok := costs[p.Key()]; ok {
			return c
		}
		return math.Inf(1)
	}
	sort.SliceStable(points, func(i, j int) bool { return cost(points[i]) > cost(points[j]) })
}

// CostsFrom reads the wall seconds of earlier sweeps' points from their
// data.csv files (each a file or its folder), by point key, for
// Options.Costs; a later file's figure for a point replaces an earlier
// one's.
func CostsFrom(paths ...string) (map[string]float64, error) {
	costs := map[string]float64{}
	for _, in := range paths {
		path, rows, err := readData(in)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			s, err := strconv.ParseFloat(r["wall_seconds"], 64)
			if err != nil || s < 0 {
				return nil, fmt.Errorf("%s: point %s has no wall_seconds to order by (%q)", path, r.Key(), r["wall_seconds"])
			}
			costs[r.Key()] = s
		}
	}
	return costs, nil
}

// readData reads a sweep's rows from in, its data.csv or the folder that
// holds it, and returns the file's path with them.
func readData(in string) (string, []Row, error) {
	path := in
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		path = filepath.Join(in, DataFile)
	}
	_, rows, err := ReadCSV(path)
	return path, rows, err
}

// runPoints runs the points, o.Jobs at a time, and records each finished
// one (from this goroutine, so the store and Progress see one caller). It
// stops at ctx's end without recording the points then running: a rerun
// runs them again. With o.FinishBy it starts, whenever a job is free, the
// first point in todo's order that is expected to end in time, and
// returns how many it left unstarted.
func runPoints(ctx context.Context, e *Experiment, todo []Point, o Options, record func(Point, Row) error) (notStarted int, err error) {
	jobs := max(o.Jobs, 1)
	type result struct {
		p Point
		r Row
	}
	results := make(chan result)
	fits := o.fitsIn()
	started := make([]bool, len(todo))
	first := 0 // todo[:first] have all started
	nextToStart := func() int {
		for first < len(todo) && started[first] {
			first++
		}
		for i := first; i < len(todo); i++ {
			if !started[i] && fits(todo[i]) {
				return i
			}
		}
		return -1
	}
	running := 0
	var firstErr error
	for {
		for firstErr == nil && ctx.Err() == nil && running < jobs {
			i := nextToStart()
			if i < 0 {
				break
			}
			p := todo[i]
			started[i] = true
			running++
			if o.Progress != nil {
				o.Progress.Begin(p)
			}
			go func() { results <- result{p, runPoint(ctx, e, p, o)} }()
		}
		if running == 0 {
			break
		}
		res := <-results
		running--
		if firstErr != nil || ctx.Err() != nil {
			// Cancelled while running: the point is not finished.
			continue
		}
		if err := record(res.p, res.r); err != nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return 0, firstErr
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	for _, s := range started {
		if !s {
			notStarted++
		}
	}
	return notStarted, nil
}

// fitsIn returns whether a point, started now, is expected to end
// within FinishBy of this call (always, without FinishBy).
func (o Options) fitsIn() func(Point) bool {
	if o.FinishBy <= 0 {
		return func(Point) bool { return true }
	}
	longest := 0.0
	for _, c := range o.Costs {
		longest = max(longest, c)
	}
	deadline := o.Now().Add(o.FinishBy)
	return func(p Point) bool {
		c, ok := o.Costs[p.Key()]
		if !ok {
			c = longest
		}
		return !o.Now().Add(time.Duration(c * float64(time.Second))).After(deadline)
	}
}

func (o *Options) defaults() {
	if o.Out == "" {
		o.Out = filepath.Join("results", o.Plan.Experiment)
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Hour
		if o.Plan.Target == TargetHW {
			o.Timeout = 5 * time.Minute
		}
	}
	if o.Open == nil {
		o.Open = OpenDevice
		if o.SimThreads > 0 {
			o.Open = windowEngine(o.SimThreads)
		}
	}
	if o.Commit == "" {
		o.Commit = BuildCommit()
	}
	if o.Machine == "" {
		o.Machine = Machine()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// engineOver returns the window engine's threads to record in sweep.json
// beside the rows already in the output folder: a sweep does not mix the
// engines' figures in one data.csv, and a report-only one keeps the
// engine that made them.
func (o Options) engineOver(rows []Row) (int, error) {
	if len(rows) == 0 || o.Plan.Target != TargetSim {
		return o.SimThreads, nil
	}
	before, err := readPlan(o.Out)
	if errors.Is(err, fs.ErrNotExist) {
		return o.SimThreads, nil
	}
	if err != nil {
		return 0, err
	}
	if o.ReportOnly {
		return before.SimThreads, nil
	}
	if (before.SimThreads > 0) != (o.SimThreads > 0) {
		return 0, fmt.Errorf("the points in %s were simulated on %s, this sweep uses %s, whose figures may differ: use another --out, or that engine",
			o.Out, engine(before.SimThreads), engine(o.SimThreads))
	}
	return o.SimThreads, nil
}

// sameSettings refuses to count a recorded row as the point when it was
// made with other parameters or another simulator mode.
func sameSettings(p Point, r Row) error {
	if r["sim_mode"] != p.SimMode {
		return fmt.Errorf("point %s was recorded in simulator mode %q, this sweep uses %q: use another --out", p.Key(), r["sim_mode"], p.SimMode)
	}
	for _, v := range p.Params {
		if r[v.Name] != v.Value {
			return fmt.Errorf("point %s was recorded with %s=%s, this sweep uses %s=%s: use another --out", p.Key(), v.Name, r[v.Name], v.Name, v.Value)
		}
	}
	return nil
}

// runPoint measures one point and returns its row; errors and panics
// become rows with status error.
func runPoint(ctx context.Context, e *Experiment, p Point, o Options) Row {
	env := &Env{open: func() (kernels.Device, error) { return o.Open(p.Target, p.Config, p.SimMode) },
		openSystem: func(gpus int) (kernels.System, error) {
			return openSystem(p.Target, p.Config, p.SimMode, gpus, o.SimThreads)
		}}
	defer env.close()
	pctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	out, err := safeRun(pctx, e, env, p)
	wall := time.Since(start)
	r := Row{
		"experiment": e.Name, "key": p.Key(), "target": p.Target, "config": p.Config, "sim_mode": p.SimMode,
		"commit": o.Commit, "machine": o.Machine,
		"wall_seconds": strconv.FormatFloat(wall.Seconds(), 'f', 3, 64),
		"date":         o.Now().UTC().Format(time.RFC3339),
	}
	if env.dev != nil {
		r["device"] = env.dev.Properties().Name
	}
	if env.sys != nil {
		devs := env.sys.Devices()
		r["device"] = fmt.Sprintf("%d × %s", len(devs), devs[0].Properties().Name)
	}
	for _, vs := range [][]Value{p.Axes, p.Params} {
		for _, v := range vs {
			r[v.Name] = v.Value
		}
	}
	switch {
	case err != nil:
		r["status"], r["error"] = StatusError, err.Error()
		if errors.Is(err, context.DeadlineExceeded) && pctx.Err() != nil {
			r["error"] = fmt.Sprintf("point time limit %s: %v", o.Timeout, err)
		}
	case !out.Valid:
		r["status"] = StatusInvalid
	default:
		r["status"] = StatusOK
	}
	r["validation"] = out.Validation
	for _, s := range e.Stats {
		if v, ok := out.Values[s.Name]; ok {
			r[s.Name] = v
		}
	}
	return r
}

func safeRun(ctx context.Context, e *Experiment, env *Env, p Point) (out Outcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	return e.Run(ctx, env, p)
}

func writePlan(dir string, pf planFile) error {
	return writeAtomically(filepath.Join(dir, PlanFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(pf)
	})
}

func readPlan(dir string) (planFile, error) {
	var pf planFile
	data, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		return pf, err
	}
	if err := json.Unmarshal(data, &pf); err != nil {
		return pf, fmt.Errorf("%s: %w", filepath.Join(dir, PlanFile), err)
	}
	return pf, nil
}

// BuildCommit is the VCS revision the running binary was built from
// (short, with "-dirty" for uncommitted changes), or "unknown" (go test
// and go run binaries carry none).
func BuildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// Machine names the host: its name, OS/architecture and CPU count (no
// commas, so that the volatile columns split on them).
func Machine() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return strings.ReplaceAll(fmt.Sprintf("%s %s/%s %d-CPU", host, runtime.GOOS, runtime.GOARCH, runtime.NumCPU()), ",", ";")
}
