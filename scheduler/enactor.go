package scheduler

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
)

// RunOptions are the settings of one enactment that are not the
// algorithm's.
type RunOptions struct {
	// Block is the CTA size, a multiple of the warp size (the kernels'
	// ballots and shuffles need whole warps); 0 means 256.
	Block int
	// Warmup whole runs go untimed, then Repeat (at least 1) are timed;
	// the state is reset before each. Results report the medians.
	Warmup, Repeat int
	// Grid forces the grid of grid-stride and persistent phases; 0 sizes
	// it from the device's occupancy.
	Grid int
	// SpinBudget bounds every wait of a kernel that spins (fused kernels'
	// grid barriers): a wait that polls this often gives up, and the run
	// ends in a *kernels.SpinBudgetError. 0 means unbounded, which only the
	// simulator may run (its deadlock detector ends a hung launch): on
	// hardware a grid that cannot be co-resident would hang the GPU.
	SpinBudget uint32
	// System, when set, is the system the run spans; its first device is
	// the enactment's. With more than one device only variants that offer
	// Partitioned may run, and the vertices are split by Partition
	// (graph.PartitionRange or graph.PartitionHash; "" is range); atos's
	// warp workers run their form across devices on a system of one too.
	System    kernels.System
	Partition string
}

// IterationStats describes one iteration of a run.
type IterationStats struct {
	Iteration int `json:"iteration"`
	// Phases are the entries launched, e.g. "push" or "filter+push".
	Phases string `json:"phases"`
	// Direction is push or pull.
	Direction string `json:"direction"`
	// Filter is the frontier filter that produced the iteration's output,
	// and Overflow says some thread activated more vertices than a thread
	// bin holds (SIMD-X: the online filter overflowed, or would have).
	Filter      string `json:"filter,omitempty"`
	Overflow    bool   `json:"overflow,omitempty"`
	FrontierIn  int    `json:"frontier_in"`
	FrontierOut int    `json:"frontier_out"`
	Launches    int    `json:"launches"`
	// Statistics are a scheduler's own per-iteration figures by snake_case
	// key (queue pushes and pops, synchronisation degree, ...): what the
	// scheduler measured, on either target.
	Statistics map[string]float64 `json:"statistics,omitempty"`
	// Stats combines the iteration's launches.
	Stats kernels.LaunchStats `json:"-"`
}

// Timing is one timed run.
type Timing struct {
	// EndToEnd runs from before the first launch until the result is final
	// on the device: every launch, read-back and host decision included,
	// initial upload and final download excluded (Gunrock's definition).
	// On the simulator it is the simulated host clock's advance: kernel
	// times plus the configured launch, synchronisation and copy overheads
	// (sim/configs, host:), calibrated on the H100.
	EndToEnd time.Duration
	// Kernel is the sum of the launches' device times.
	Kernel time.Duration
}

// Result is an enactment: the last timed run's iterations and statistics,
// every timed run's timing and their medians, and the validation.
type Result struct {
	Algorithm  string
	Variant    string
	Iterations []IterationStats
	// Total combines every launch of the last timed run.
	Total    kernels.LaunchStats
	Launches int
	Runs     []Timing
	// Median over Runs of each time.
	EndToEnd, Kernel time.Duration
	Validation       ref.Report
	// Params are the algorithm's parameters as the run resolved them.
	Params  Params
	Summary []Field
	Notes   []string
	// Values is the per-vertex result (nil when the problem has none).
	Values *Values
}

// Enactment is one algorithm under one scheduler variant on one device:
// what a strategy reads and records while it runs.
type Enactment struct {
	Ctx       context.Context
	Dev       kernels.Device
	Algorithm *Algorithm
	Variant   Variant
	// Form is the algorithm's form the variant runs.
	Form    Form
	Problem *Problem
	Options RunOptions
	Buffers *Buffers
	// State is the scheduler's own (frontiers, queues), set by Prepare.
	State any
	// Notes say how the run departs from what was asked (e.g. a smaller
	// CTA for a kernel that needs more registers); results carry them.
	Notes []string

	out, in    *deviceGraph
	cleanups   []func()
	statistics []Field
	// derived computes figures from the downloaded result, after the check
	// (a scheduler's overwork needs the final values).
	derived    func() []Field
	iterations []IterationStats
	total      kernels.LaunchStats
	launches   int
}

// deviceGraph is a CSR in device memory.
type deviceGraph struct {
	offsets, targets, weights kernels.DevPtr
	n                         int
}

// Plan is an algorithm under a scheduler variant with its parameters,
// checked once: the form the variant runs it in, the parameters' kinds and
// ranges, and the capabilities they need.
type Plan struct {
	Algorithm *Algorithm
	Variant   Variant
	Form      Form
	// Params are the given values; Enact resolves the rest on the graph.
	Params Params
}

// NewPlan checks that variant v can run algorithm a with the given
// parameters (before any graph is loaded).
func NewPlan(a *Algorithm, v Variant, given Params) (*Plan, error) {
	if a.Setups == nil {
		return nil, fmt.Errorf("algorithm %s has no GPU kernels yet: it runs only on the CPU reference", a.Name)
	}
	if err := a.CheckParams(given); err != nil {
		return nil, err
	}
	form, err := v.FormOf(a)
	if err != nil {
		return nil, err
	}
	if err := Supports(a, v); err != nil {
		return nil, err
	}
	for _, d := range a.Params {
		x, ok := given[d.Name]
		if !ok || d.Requires == "" || x == d.normalise(d.Default) {
			continue
		}
		if err := v.Offers(d.Requires); err != nil {
			return nil, fmt.Errorf("--%s %v: %w", d.Name, x, err)
		}
	}
	return &Plan{Algorithm: a, Variant: v, Form: form, Params: given}, nil
}

// Enact runs algorithm a under variant v on g with the given parameters
// (NewPlan, then Plan.Enact).
func Enact(ctx context.Context, dev kernels.Device, a *Algorithm, v Variant, g *graph.Graph, given Params, ro RunOptions) (*Result, error) {
	plan, err := NewPlan(a, v, given)
	if err != nil {
		return nil, fmt.Errorf("%s under %s: %w", a.Name, v, err)
	}
	return plan.Enact(ctx, dev, g, ro)
}

// Enact sets up the plan's problem on g, runs it Warmup+Repeat times from
// the initial state, validates the final result and returns the
// statistics.
func (plan *Plan) Enact(ctx context.Context, dev kernels.Device, g *graph.Graph, ro RunOptions) (*Result, error) {
	a, v := plan.Algorithm, plan.Variant
	if ro.Block == 0 {
		ro.Block = 256
	}
	if warp := dev.Properties().WarpSize; ro.Block <= 0 || warp > 0 && ro.Block%warp != 0 {
		return nil, fmt.Errorf("block of %d threads is not a positive multiple of the warp size %d", ro.Block, warp)
	}
	if ro.Warmup < 0 || ro.Repeat < 0 || ro.Grid < 0 {
		return nil, fmt.Errorf("warm-up %d, repeat %d and grid %d must not be negative", ro.Warmup, ro.Repeat, ro.Grid)
	}
	ro.Repeat = max(ro.Repeat, 1)
	if ro.System != nil {
		devs := ro.System.Devices()
		if len(devs) == 0 || devs[0] != dev {
			return nil, fmt.Errorf("the system's first device must be the one the run is enacted on")
		}
		if len(devs) > 1 {
			if err := v.Offers(Partitioned); err != nil {
				return nil, fmt.Errorf("%d GPUs: %w", len(devs), err)
			}
		}
	}
	params, err := a.ResolveParams(g, plan.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	p, err := a.Setups[plan.Form](g, params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	if len(p.Meta) > 4 {
		return nil, fmt.Errorf("%s: %d metadata buffers, the ACC entries take at most 4", a.Name, len(p.Meta))
	}
	e := &Enactment{Ctx: ctx, Dev: dev, Algorithm: a, Variant: v, Form: plan.Form, Problem: p, Options: ro, Buffers: NewBuffers(dev)}
	defer func() {
		for _, f := range e.cleanups {
			f()
		}
		e.Buffers.Free()
	}()
	e.out = e.upload(p.Graph)
	for _, m := range p.Meta {
		m.ptr = e.Buffers.Bytes(len(m.init), a.Name+" "+m.Name)
	}
	if err := e.Buffers.Err(); err != nil {
		return nil, err
	}
	s := v.Scheduler
	if s.Prepare != nil {
		if err := s.Prepare(e); err != nil {
			return nil, err
		}
	}
	res := &Result{Algorithm: a.Name, Variant: v.String(), Params: params}
	if err := e.runAll(res); err != nil {
		return nil, err
	}
	res.Iterations, res.Total, res.Launches = e.iterations, e.total, e.launches
	res.Notes = append(slices.Clone(p.Notes), e.Notes...) // runs may add notes (a queue that grew)
	res.EndToEnd = medianOf(res.Runs, func(t Timing) time.Duration { return t.EndToEnd })
	res.Kernel = medianOf(res.Runs, func(t Timing) time.Duration { return t.Kernel })
	for _, m := range p.Meta {
		m.got = make([]byte, len(m.init))
		e.Buffers.Download(m.got, m.ptr, a.Name+" "+m.Name)
	}
	if err := e.Buffers.Err(); err != nil {
		return nil, err
	}
	res.Validation, res.Summary = p.Check(len(res.Iterations))
	res.Summary = append(res.Summary, e.statistics...)
	if e.derived != nil {
		res.Summary = append(res.Summary, e.derived()...)
	}
	if p.Values != nil {
		v := p.Values()
		res.Values = &v
	}
	return res, nil
}

// runAll runs the enactment Warmup+Repeat times from the initial state,
// recording the timed runs' timings in res.
func (e *Enactment) runAll(res *Result) error {
	a, v, p, s, dev, ro := e.Algorithm, e.Variant, e.Problem, e.Variant.Scheduler, e.Dev, e.Options
	for run := 0; run < ro.Warmup+ro.Repeat; run++ {
		e.iterations, e.total, e.launches, e.statistics = nil, kernels.LaunchStats{}, 0, nil
		for _, m := range p.Meta {
			e.Buffers.Upload(m.ptr, m.init, a.Name+" "+m.Name)
		}
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		if s.Reset != nil {
			if err := s.Reset(e); err != nil {
				return err
			}
		}
		marker, marks := dev.(kernels.RunMarker)
		if marks {
			marker.MarkRun(run, run >= ro.Warmup, true)
		}
		start, simStart := time.Now(), simulatedHost(dev)
		// A system of several devices keeps the time of their steps; one
		// device's own clock is the time of everything it ran.
		several := ro.System != nil && len(ro.System.Devices()) > 1
		if several {
			simStart = ro.System.Clock()
		}
		if err := s.Run(e); err != nil {
			return &StoppedRunError{Err: fmt.Errorf("%s under %s: %w", a.Name, v, err), Iterations: slices.Clone(e.iterations), Run: run}
		}
		wall := time.Since(start)
		if marks {
			marker.MarkRun(run, run >= ro.Warmup, false)
		}
		t := Timing{EndToEnd: wall, Kernel: e.total.Elapsed}
		if several { // the system's clock: simulated, or the wall
			t.EndToEnd = ro.System.Clock() - simStart
		} else if clock, ok := dev.(hostClock); ok { // the simulator: its own host clock, not ours
			t.EndToEnd = clock.HostClock() - simStart
		}
		if s.Collect != nil {
			if err := s.Collect(e); err != nil {
				return err
			}
		}
		if run < ro.Warmup {
			continue
		}
		res.Runs = append(res.Runs, t)
	}
	return nil
}

// StoppedRunError is the error of a run that ended part-way (a failed or
// interrupted launch): the error, and the iterations that run finished
// before it, for a partial per-iteration table.
type StoppedRunError struct {
	Err        error
	Iterations []IterationStats
	// Run is the whole run that stopped, counting from 0 (warm-up runs
	// first).
	Run int
}

func (e *StoppedRunError) Error() string { return e.Err.Error() }
func (e *StoppedRunError) Unwrap() error { return e.Err }

// hostClock is the simulator's modelled host time (launch and copy
// overheads from its configuration, plus the kernels' simulated time).
type hostClock interface{ HostClock() time.Duration }

func simulatedHost(dev kernels.Device) time.Duration {
	if c, ok := dev.(hostClock); ok {
		return c.HostClock()
	}
	return 0
}

func medianOf(runs []Timing, f func(Timing) time.Duration) time.Duration {
	s := make([]time.Duration, len(runs))
	for i, r := range runs {
		s[i] = f(r)
	}
	return kernels.Median(s)
}

// reserver is a device that can make room for allocations ahead
// (sim.Device.Reserve).
type reserver interface{ Reserve(bytes int) }

func (e *Enactment) upload(g *graph.Graph) *deviceGraph {
	if r, ok := e.Buffers.dev.(reserver); ok {
		// The graph's arrays and a quarter more for the buffers a run
		// allocates after them, so the simulator's image is made once
		// rather than copied as it grows.
		words := len(g.Offsets) + len(g.Targets)
		if g.Weighted() {
			words += len(g.Weights)
		}
		r.Reserve(5 * words)
	}
	d := &deviceGraph{n: g.NumVertices()}
	d.offsets = e.Buffers.Copy(g.Offsets, "row offsets")
	d.targets = e.Buffers.Copy(g.Targets, "column indices")
	if g.Weighted() {
		d.weights = e.Buffers.Copy(g.Weights, "edge weights")
	}
	return d
}

// InEdges returns the device copy of the problem graph's reverse (its
// in-edges), uploading it on first use; an undirected graph is its own.
func (e *Enactment) inEdges() (*deviceGraph, error) {
	if e.in == nil {
		if !e.Problem.Graph.Directed {
			e.in = e.out
		} else {
			e.in = e.upload(e.Problem.Graph.Reverse())
		}
	}
	return e.in, e.Buffers.Err()
}

// Kernel returns the entry of this algorithm, variant and phase:
// <algorithm>_<scheduler>_<variant label>_<phase>.
func (e *Enactment) Kernel(phase string) (*kernels.Kernel, error) {
	return kernels.Lookup(fmt.Sprintf("%s_%s_%s_%s", e.module(), e.Variant.Scheduler.Name, e.Variant.Label(), phase))
}

// module is the prefix of this problem's entries: the algorithm's Kernel,
// or the problem's Module where it names another set.
func (e *Enactment) module() string {
	if e.Problem.Module != "" {
		return e.Problem.Module
	}
	return e.Algorithm.Kernel
}

// accArgs are the leading arguments of every ACC entry (WG_ACC_PARAMS).
func (e *Enactment) accArgs(g *deviceGraph, iteration int) []any {
	meta := make([]kernels.DevPtr, len(e.Problem.Meta))
	for i, m := range e.Problem.Meta {
		meta[i] = m.ptr
	}
	return e.accArgsWith(g, meta, iteration)
}

// accArgsWith are accArgs with the metadata at meta (a device's own copy,
// for the multi-GPU driver).
func (e *Enactment) accArgsWith(g *deviceGraph, meta []kernels.DevPtr, iteration int) []any {
	args := []any{g.offsets, g.targets, g.weights, uint32(g.n)}
	for i := range 4 {
		var p kernels.DevPtr
		if i < len(meta) {
			p = meta[i]
		}
		args = append(args, p)
	}
	return append(args, uint32(iteration), e.Problem.ParamU32, e.Problem.ParamF32)
}

// launch runs k over grid CTAs of Options.Block threads and adds the
// launch to the run's totals and to it.
func (e *Enactment) launch(it *IterationStats, k *kernels.Kernel, grid int, args ...any) error {
	st, err := e.launchOn(e.Dev, it.Iteration, k, grid, args...)
	if err != nil {
		return err
	}
	it.Stats.Add(st)
	it.Launches++
	return nil
}

// launchOn runs k on dev over grid CTAs of Options.Block threads in
// iteration iteration.
func (e *Enactment) launchOn(dev kernels.Device, iteration int, k *kernels.Kernel, grid int, args ...any) (kernels.LaunchStats, error) {
	cfg := kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(e.Options.Block)}
	st, err := dev.Launch(e.Ctx, k, cfg, args...)
	if err != nil {
		return st, fmt.Errorf("iteration %d: %w", iteration, err)
	}
	return st, nil
}

// Statistic adds a figure of the whole run (overwork, queue totals, ...)
// to the result's summary; the last timed run's figures are kept.
func (e *Enactment) Statistic(key, name string, x float64, text string) {
	e.statistics = append(e.statistics, figure(key, name, x, text))
}

// overwork reports the run's work done against Problem.Work's
// work-efficient figure (computed from the downloaded result, after the
// check); done is edges walked, or the problem's counted work.
func (e *Enactment) overwork(done float64) {
	if e.Problem.Work == nil {
		return
	}
	e.derived = func() []Field {
		work, what := e.Problem.Work()
		if work == 0 {
			return nil
		}
		return []Field{figure("overwork", "overwork", done/work, fmt.Sprintf("%.3fx (%.0f ÷ %.0f %s)", done/work, done, work, what))}
	}
}

// Set records one of the iteration's scheduler statistics.
func (it *IterationStats) Set(key string, x float64) {
	if it.Statistics == nil {
		it.Statistics = map[string]float64{}
	}
	it.Statistics[key] = x
}

// record closes an iteration.
func (e *Enactment) record(it IterationStats) {
	e.total.Add(it.Stats)
	e.launches += it.Launches
	e.iterations = append(e.iterations, it)
}

// readCount reads one uint32 counter from the device, checking it against
// a bound the kernels can never exceed.
func (e *Enactment) readCount(p kernels.DevPtr, bound int, what string) (int, error) {
	return readCountOn(e.Dev, p, bound, what)
}

// readCountOn is readCount on dev.
func readCountOn(dev kernels.Device, p kernels.DevPtr, bound int, what string) (int, error) {
	var word [1]uint32
	if err := kernels.Download(dev, word[:], p); err != nil {
		return 0, err
	}
	if int64(word[0]) > int64(bound) {
		return 0, fmt.Errorf("%s is %d, more than the %d possible: a kernel wrote out of bounds", what, word[0], bound)
	}
	return int(word[0]), nil
}

// gridStrideGrid is the grid of a phase that loops over n items with a
// grid-stride loop: enough CTAs to cover n once, at most what can be
// co-resident (or Options.Grid when set), and at least one.
func (e *Enactment) gridStrideGrid(k *kernels.Kernel, n int) (int, error) {
	if e.Options.Grid > 0 {
		return e.Options.Grid, nil
	}
	limit, err := CoResidentGrid(e.Dev, k, e.Options.Block, 0)
	if err != nil {
		return 0, err
	}
	return max(1, min(limit, (n+e.Options.Block-1)/e.Options.Block)), nil
}

// CoResidentGrid is how many CTAs of k can be resident on the whole device
// at once: the largest grid a kernel that synchronises across CTAs may use.
func CoResidentGrid(dev kernels.Device, k *kernels.Kernel, block, dynamicSmem int) (int, error) {
	per, err := dev.Occupancy(k, block, dynamicSmem)
	if err != nil {
		return 0, fmt.Errorf("occupancy of %s at %d threads: %w", k.Name, block, err)
	}
	if per <= 0 {
		return 0, &kernels.LaunchResourceError{Kernel: k.Name, Detail: fmt.Sprintf("not one CTA of %d threads fits an SM", block)}
	}
	return per * dev.Properties().SMs, nil
}

// iterationLimit fails a run that reached the problem's iteration bound.
func (e *Enactment) iterationLimit(iteration int) error {
	if max := e.Problem.MaxIterations; max > 0 && iteration >= max {
		return fmt.Errorf("no convergence after %d iterations", iteration)
	}
	return nil
}

// sweepUntilQuiet runs an aggregation algorithm's pull sweeps: sweep
// launches iteration's sweep over every vertex and returns how many stayed
// active; the run ends when none did.
func (e *Enactment) sweepUntilQuiet(sweep func(it *IterationStats) (active int, err error)) error {
	n := e.Problem.Graph.NumVertices()
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		it := IterationStats{Iteration: iteration, Direction: "pull", Phases: "pull", FrontierIn: n}
		active, err := sweep(&it)
		if err != nil {
			return err
		}
		it.FrontierOut = active
		e.record(it)
		if active == 0 {
			return nil
		}
	}
}
