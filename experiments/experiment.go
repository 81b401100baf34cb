package experiments

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/warpgraph/warpgraph/kernels"
)

// Targets a sweep can run on.
const (
	TargetSim = "sim"
	TargetHW  = "hw"
)

// Axis is one dimension of an experiment: a name (a CSV column and a part
// of every point key) and, for a plain grid of points, its values in sweep
// order.
type Axis struct {
	Name, About string
	Values      []string
}

// Param is a setting that holds for a whole sweep (work per thread, grid
// size): not part of the point key, but a CSV column of every row, so that
// a resumed sweep can refuse rows made with other settings.
type Param struct {
	Name, About string
	// Default gives the value on a target and simulator configuration
	// (config is "" on hardware): hardware needs long kernels to time, a
	// simulation short ones.
	Default func(target, config string) string
}

// Stat is one statistic a point yields: a CSV column.
type Stat struct {
	Name, Unit, About string
}

// Outcome is what one point measured.
type Outcome struct {
	// Values holds the statistics by Stat name; a missing one is an empty
	// cell (a figure the target cannot measure, such as cycles on hardware).
	Values map[string]string
	// Valid says whether the result matched the host or CPU reference;
	// Validation says what was checked and how it came out.
	Valid      bool
	Validation string
}

// Env is what one point runs with: its device, opened on first use and
// closed by the harness when the point ends, so that no state (caches,
// allocations) carries from one point to the next and a shard measures
// exactly what the whole sweep would.
type Env struct {
	open func() (kernels.Device, error)
	dev  kernels.Device
	// openSystem opens gpus devices of the point's target as one system.
	openSystem func(gpus int) (kernels.System, error)
	sys        kernels.System
}

// System opens the point's devices as a system of gpus devices (the
// simulator's configuration must describe a system at least that large;
// on hardware, CUDA devices 0..gpus-1). A point opens either Device or
// System.
func (e *Env) System(gpus int) (kernels.System, error) {
	if e.dev != nil || e.sys != nil {
		return nil, fmt.Errorf("the point's devices are already open")
	}
	sys, err := e.openSystem(gpus)
	if err != nil {
		return nil, err
	}
	e.sys = sys
	return sys, nil
}

// Device opens the point's device (the simulator with the point's
// configuration, or the GPU).
func (e *Env) Device() (kernels.Device, error) {
	if e.dev == nil {
		dev, err := e.open()
		if err != nil {
			return nil, err
		}
		e.dev = dev
	}
	return e.dev, nil
}

func (e *Env) close() {
	if e.sys != nil {
		_ = e.sys.Close()
		e.sys = nil
	}
	if e.dev != nil {
		_ = e.dev.Close()
		e.dev = nil
	}
}

// Experiment is a named, parameterised sweep.
type Experiment struct {
	Name, About string
	// Targets are the targets it runs on (TargetSim, TargetHW).
	Targets []string
	// Configs are the simulator configurations a sweep on the simulator
	// covers unless --config names others.
	Configs []string
	// Axes are the point dimensions in key order. Without Points, the
	// points are their cartesian product (the first axis varies slowest).
	Axes []Axis
	// Points, when set, lists the axis values of every point on a target
	// and configuration, each in Axes order (for sweeps that are not a
	// grid, such as every registered algorithm-variant pair).
	Points func(target, config string) [][]string
	Params []Param
	Stats  []Stat
	// Run measures one point.
	Run func(ctx context.Context, env *Env, p Point) (Outcome, error)
	// Table names the columns of the README's table (axes, params, stats,
	// config, status).
	Table []string
	// Plot draws the rows into dir and returns the file names it wrote.
	Plot func(rows []Row, dir string) ([]string, error)
	// Findings state what the rows show, for the README, computed from the
	// data so that they stay true when the data change.
	Findings func(rows []Row) []string
	// Notes say how to read the results (units, what was scaled down).
	Notes []string
	// CrossCheck, when set, says how `sweep crosscheck` compares the
	// experiment's simulated points with its measured ones.
	CrossCheck *CrossCheck
}

// Supports says whether the experiment runs on target.
func (e *Experiment) Supports(target string) bool {
	for _, t := range e.Targets {
		if t == target {
			return true
		}
	}
	return false
}

// axisNames lists the axes.
func (e *Experiment) axisNames() []string {
	names := make([]string, len(e.Axes))
	for i, a := range e.Axes {
		names[i] = a.Name
	}
	return names
}

// Registry holds experiments by name.
type Registry struct {
	byName map[string]*Experiment
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Experiment{}} }

// Register adds e; it panics on a duplicate or malformed experiment, a
// broken invariant of the registrations.
func (r *Registry) Register(e *Experiment) {
	if _, dup := r.byName[e.Name]; dup {
		panic("experiments: " + e.Name + " registered twice")
	}
	if err := e.check(); err != nil {
		panic(fmt.Sprintf("experiments: %s: %v", e.Name, err))
	}
	r.byName[e.Name] = e
}

// Lookup returns the experiment with the given name; the error lists the
// known ones.
func (r *Registry) Lookup(name string) (*Experiment, error) {
	if e, ok := r.byName[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("unknown experiment %q: use one of %s", name, strings.Join(r.Names(), ", "))
}

// Names lists the registered experiments, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All returns the registered experiments, sorted by name.
func (r *Registry) All() []*Experiment {
	var out []*Experiment
	for _, n := range r.Names() {
		out = append(out, r.byName[n])
	}
	return out
}

// Default is the registry of warpgraph's experiments (atomics, banks,
// bsp-corpus, ...), filled by this package's init functions.
var Default = NewRegistry()

// reserved are the CSV columns the harness writes itself.
var reserved = map[string]bool{
	"experiment": true, "key": true, "target": true, "config": true, "sim_mode": true, "device": true,
	"status": true, "validation": true, "error": true, "commit": true, "wall_seconds": true, "machine": true, "date": true,
}

// check rejects names that would collide in the CSV header or break keys.
func (e *Experiment) check() error {
	if e.Name == "" || strings.ContainsAny(e.Name, " /;=,") {
		return fmt.Errorf("bad name %q", e.Name)
	}
	if e.Run == nil {
		return fmt.Errorf("no Run")
	}
	if len(e.Targets) == 0 {
		return fmt.Errorf("no targets")
	}
	seen := map[string]bool{}
	for _, names := range [][]string{e.axisNames(), paramNames(e.Params), statNames(e.Stats)} {
		for _, n := range names {
			if n == "" || reserved[n] || seen[n] || strings.ContainsAny(n, " ;=,") {
				return fmt.Errorf("column %q is empty, reserved, repeated or has one of ' ;=,'", n)
			}
			seen[n] = true
		}
	}
	for _, c := range e.Table {
		if !seen[c] && !reserved[c] {
			return fmt.Errorf("table column %q is not a column", c)
		}
	}
	if e.Points == nil {
		for _, a := range e.Axes {
			if len(a.Values) == 0 {
				return fmt.Errorf("axis %s has no values", a.Name)
			}
		}
	}
	return nil
}

func paramNames(ps []Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func statNames(ss []Stat) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
