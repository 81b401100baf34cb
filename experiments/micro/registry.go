package micro

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/warpgraph/warpgraph/kernels"
)

// Setting names a knob of the command line that a benchmark may read; its
// value is the flag's name.
type Setting string

// The settings. An integer setting left at 0 (the spin budget: at -1)
// takes the benchmark's default for the target.
const (
	Reps       Setting = "reps"
	Elements   Setting = "elements"
	Iterations Setting = "iterations"
	CTAs       Setting = "ctas"
	SpinBudget Setting = "spin-budget"
	BarrierSet Setting = "barrier"
	Grids      Setting = "grids"
	NoBoundary Setting = "no-boundary"
	Tables     Setting = "tables"
	Offsets    Setting = "offsets"
	Base       Setting = "base"
)

// Settings are the values a run of a benchmark is given.
type Settings struct {
	// Simulated is true on the simulator, false on a GPU.
	Simulated bool
	// Warmup and Repeat are the untimed and timed launches per
	// configuration on a GPU (the median is reported); a simulation runs
	// once, as the simulator is deterministic.
	Warmup, Repeat                   int
	Reps, Elements, Iterations, CTAs int
	SpinBudget                       int64
	Barriers                         []string
	Grids                            []int
	NoBoundary                       bool
	// Tables are table sizes in KB (random_gather, random_atomic); none:
	// their defaults.
	Tables []int
	// Offsets are the byte offsets of the second line (atomic_line_pairs);
	// none: its default.
	Offsets []int
	// Base is the byte offset of atomic_line_pairs' first line.
	Base int

	// defaulted lists the settings that took the benchmark's default.
	defaulted []Setting
}

// Defaulted says whether s took the benchmark's default for the target.
func (v Settings) Defaulted(s Setting) bool {
	for _, d := range v.defaulted {
		if d == s {
			return true
		}
	}
	return false
}

// timing are the drivers' Params of these settings' launches: warmup and
// repeat (each benchmark adds the reps and CTAs it reads).
func (v Settings) timing() Params {
	return Params{Warmup: v.Warmup, Repeat: v.Repeat}
}

// spinBudget is the spin budget as the kernels take it.
func (v Settings) spinBudget() (uint32, error) {
	switch {
	case v.SpinBudget > math.MaxUint32:
		return 0, settingError("--spin-budget %d does not fit 32 bits", v.SpinBudget)
	case v.SpinBudget == 0 && !v.Simulated:
		return 0, settingError("--spin-budget 0 (unbounded) would hang a GPU when the grid is too large: it is for the simulator only")
	}
	return uint32(v.SpinBudget), nil
}

// PerTarget is a setting's default on each target: a GPU needs long
// kernels to time, a simulation short ones.
type PerTarget struct{ HW, Sim int }

// Benchmark is one microbenchmark: the defaults it gives the settings it
// reads, what those settings mean to it, and how it runs.
type Benchmark struct {
	Name string
	// Defaults are the per-target values of settings left at 0 (the spin
	// budget: at -1).
	Defaults map[Setting]PerTarget
	// Help says what a setting means to this benchmark, for the flags'
	// help; a setting it reads plainly needs none.
	Help map[Setting]string
	// WallClock says its table holds host wall-clock times, which differ
	// from run to run.
	WallClock bool
	run       func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error)
}

// Run resolves s against the benchmark's defaults and runs it on dev. An
// error from settings the benchmark cannot run with is a *SettingError.
func (b *Benchmark) Run(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
	if s.Simulated {
		s.Warmup, s.Repeat = 0, 1 // the simulator is deterministic
	}
	pick := func(set Setting, v *int) {
		if d, ok := b.Defaults[set]; ok && *v == 0 {
			*v = d.HW
			if s.Simulated {
				*v = d.Sim
			}
			s.defaulted = append(s.defaulted, set)
		}
	}
	pick(Reps, &s.Reps)
	pick(Elements, &s.Elements)
	pick(Iterations, &s.Iterations)
	pick(CTAs, &s.CTAs)
	if d, ok := b.Defaults[SpinBudget]; ok && s.SpinBudget < 0 {
		s.SpinBudget = int64(d.HW)
		if s.Simulated {
			s.SpinBudget = int64(d.Sim)
		}
		s.defaulted = append(s.defaulted, SpinBudget)
	}
	return b.run(ctx, dev, s)
}

// SettingError is a setting a benchmark cannot run with: the caller's
// input, not the device, is at fault.
type SettingError struct{ err error }

func (e *SettingError) Error() string { return e.err.Error() }
func (e *SettingError) Unwrap() error { return e.err }

func settingError(format string, args ...any) error {
	return &SettingError{fmt.Errorf(format, args...)}
}

// Registry holds the benchmarks in the order `micro all` runs them.
type Registry struct {
	list []*Benchmark
}

// Register adds b; it panics on a duplicate or a benchmark without a run
// function, broken invariants of the registrations.
func (r *Registry) Register(b *Benchmark) {
	if b.run == nil {
		panic("micro: " + b.Name + " registered without a run function")
	}
	if _, err := r.Lookup(b.Name); err == nil {
		panic("micro: " + b.Name + " registered twice")
	}
	r.list = append(r.list, b)
}

// Lookup returns the benchmark with the given name; the error lists the
// known ones.
func (r *Registry) Lookup(name string) (*Benchmark, error) {
	for _, b := range r.list {
		if b.Name == name {
			return b, nil
		}
	}
	return nil, settingError("unknown microbenchmark %q: use one of %s or all", name, strings.Join(r.Names(), ", "))
}

// Names lists the benchmarks in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.list))
	for i, b := range r.list {
		names[i] = b.Name
	}
	return names
}

// Help joins what s means to each benchmark that says, benchmarks that
// say the same thing sharing a clause: "a, b: what; c: other".
func (r *Registry) Help(s Setting) string {
	var helps []string
	names := map[string][]string{}
	for _, b := range r.list {
		h, ok := b.Help[s]
		if !ok {
			continue
		}
		if _, seen := names[h]; !seen {
			helps = append(helps, h)
		}
		names[h] = append(names[h], b.Name)
	}
	clauses := make([]string, len(helps))
	for i, h := range helps {
		clauses[i] = strings.Join(names[h], ", ") + ": " + h
	}
	return strings.Join(clauses, "; ")
}

// Default holds the shipped benchmarks, in the order they were added
// (the order of `micro all`, which the committed tables follow).
var Default = &Registry{}

func init() {
	for _, b := range []*Benchmark{
		streamBenchmark(), atomicContentionBenchmark(), bankStrideBenchmark(),
		globalBarrierBenchmark(), barriersBenchmark(), divModBenchmark(),
		launchOverheadBenchmark(), loadLatencyBenchmark(), atomicSpreadBenchmark(),
		partitionLatencyBenchmark(), loadedLatencyBenchmark(), sharedAddBenchmark(),
		gatherBenchmark(), scatterBenchmark(), linePairsBenchmark(),
	} {
		Default.Register(b)
	}
}
