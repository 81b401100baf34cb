package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
)

// CombineKind is how an algorithm's updates combine (SIMD-X's ACC model).
type CombineKind int

const (
	// Voting needs any one update per vertex and may stop gathering early
	// (BFS, SSSP, WCC, k-core).
	Voting CombineKind = iota
	// Aggregation needs every update (PageRank).
	Aggregation
)

func (k CombineKind) String() string {
	if k == Aggregation {
		return "aggregation"
	}
	return "voting"
}

// Options are the algorithm parameters a run may set.
type Options struct {
	// Source is the start vertex of algorithms that have one.
	Source uint32
	// K is k-core's k.
	K uint32
	// Delta is SSSP's bucket width for delta-stepping under the host-driven
	// bsp and simdx loops (0: frontier Bellman-Ford, no buckets).
	Delta uint32
	// Seed seeds belief propagation's priors.
	Seed uint64
	// Scheduler is the scheduler the problem is set up for (Enact sets
	// it): PageRank pulls in sweeps under the bulk-synchronous schedulers
	// and pushes residuals under the task-parallel one.
	Scheduler string
}

// Algorithm is one registered algorithm: its kernels (module Kernel in
// kernels/, entries Kernel_<scheduler>_<variant>_<phase>) and how to set up
// its problem on a graph.
type Algorithm struct {
	Name, About string
	Kernel      string
	UsesSource  bool
	Combine     CombineKind
	// Pullable says direction-switching schedulers should pull when the
	// frontier is large: the ACC struct has a pull form whose gather stops
	// early (BFS). SSSP, SSWP and WCC have pull forms too, but each of their
	// pulls is a full sweep over every in-edge: on the H100 (rmat20) pulling
	// made SSSP 8x, SSWP 4.6x and WCC 5.6x slower than pushing only.
	Pullable bool
	// Schedulers, when set, are the only schedulers that can run the
	// algorithm: it is not an ACC algorithm and brings its own entries
	// (belief propagation, colouring).
	Schedulers []string
	// Setup builds the problem on g (already loaded and checked); nil
	// while the algorithm has no GPU kernels (Kernel is then empty).
	Setup func(g *graph.Graph, o Options) (*Problem, error)
	// CPU runs the CPU reference and checks it independently.
	CPU func(g *graph.Graph, o Options) CPUResult
}

// Field is one named figure of a run's summary.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Key and Number give the figure to programs: a snake_case name and
	// the number itself (JSON's "results" collects them).
	Key    string   `json:"key,omitempty"`
	Number *float64 `json:"number,omitempty"`
}

// figure is a Field that is also a number: text for people, key and value
// for programs.
func figure(key, name string, x float64, text string) Field {
	return Field{Name: name, Value: text, Key: key, Number: &x}
}

// Problem is one algorithm's state on one graph: what the kernels walk,
// the metadata they read and write (meta0..meta3 of WG_ACC_PARAMS), where
// the first frontier comes from, and how the result is checked.
type Problem struct {
	// Graph is what the kernels walk: out-edges in push, and its reverse in
	// pull. It may differ from the input (WCC and k-core symmetrise).
	Graph *graph.Graph
	// Meta are the metadata buffers, in kernel order (at most four).
	Meta     []*Array
	ParamU32 uint32
	ParamF32 float32
	// Start is the first frontier; nil means every vertex the algorithm's
	// active() selects (the filter phase finds them).
	Start []uint32
	// Pull makes every iteration a sweep over all vertices gathering over
	// in-edges (aggregation); otherwise iterations push from the frontier.
	Pull bool
	// Delta and Bucket are delta-stepping's bucket width and the bound
	// words (kernels/sssp.cu, meta2) of a problem that has buckets; the
	// host-driven loops that support them start the bound at Delta
	// (startBuckets) and raise it when a frontier empties (nextBucket).
	Delta  uint32
	Bucket *Array
	// PullThenPush is an aggregation whose state also moves by pushing
	// (PageRank's residual): SIMD-X pulls in its first iteration and while
	// the frontier's out-edges exceed the pull fraction, then pushes until
	// the frontier empties, each push preceded by the take entry
	// (<kernel>_simdx_none_take), and finishes with Finalize.
	PullThenPush bool
	// MaxIterations bounds the iterations; a run that reaches it fails.
	MaxIterations int
	// Check validates the downloaded metadata after a run of the given
	// number of iterations against graph/ref, and summarises it.
	Check func(iterations int) (ref.Report, []Field)
	// Notes say how the run differs from the plain definition (e.g. "the
	// directed input was symmetrised").
	Notes []string
	// Values returns the per-vertex result after a run (for --out).
	Values func() Values
	// Finalize names entries (full kernel names) a task-parallel scheduler
	// (or SIMD-X's pull-then-push) launches once after the queue drains, each over every vertex with a
	// grid-stride loop and the ACC parameters (PageRank's residual form
	// normalises its ranks).
	Finalize []string
	// Work is the work a work-efficient run does on this input, from the
	// result after the run, for the overwork ratio of speculative
	// schedulers: the edges walked (BFS, SSSP: the out-degrees of the
	// reached vertices), or the vertex count for colouring, whose work is
	// colour assignments. nil: the scheduler reports no overwork.
	Work func() (work float64, what string)
	// WorkCounted says the scheduler's measure of work done is the count
	// its kernels keep (colour assignments), not the edges they walk.
	WorkCounted bool
	// TaskFetch, when set, is fetch=auto's pop for Atos's CTA workers on
	// this problem (atosAutoFetch otherwise).
	TaskFetch int
	// Prelude, when set, is the problem's own first phase, which a
	// task-parallel scheduler runs before its workers start in every run
	// (timed), with state its Prepare set up once (untimed); its frontier
	// is the first tasks: PageRank's residual form pulls in bulk first.
	Prelude *Prelude
	// Custom runs a problem that does not fit the ACC contract (its state
	// lives on edges, or it has its own phases) with its own entries; only
	// schedulers that accept custom problems (bsp) run it, in place of
	// their own loop.
	Custom func(e *Enactment) error
}

// Values is an algorithm's per-vertex result: one of Uint32 or Float is
// set, with a name and what special values mean.
type Values struct {
	Name   string
	Note   string
	Uint32 []uint32
	Float  []float64
}

func uint32Values(name, note string, v []uint32) Values {
	return Values{Name: name, Note: note, Uint32: v}
}

func floatValues[F float32 | float64](name, note string, v []F) Values {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return Values{Name: name, Note: note, Float: out}
}

// Key is one setting of a scheduler's variants.
type Key struct {
	Name, About string
	Values      []string
	Default     string
	// Quiet keys are left out of the canonical spelling while at their
	// default: a key added to a scheduler that already has recorded
	// results, so that the point keys of earlier sweeps (which spell
	// every key) still name the same variants.
	Quiet bool
	// Measurement keys add untimed measurement (launches kept out of the
	// kernel time and the iteration statistics) and leave the timed
	// kernels as they are: variants that differ only in them time the
	// same work (Variant.Timed).
	Measurement bool
}

// Scheduler is one registered runtime.
type Scheduler struct {
	Name, About string
	Keys        []Key
	// Supports says why a variant cannot run an algorithm (nil: it can).
	Supports func(a *Algorithm, v Variant) error
	// Prepare allocates the scheduler's own buffers once per enactment
	// (in e.Buffers), Reset restores their initial state before every run
	// (untimed), and Run carries out one whole run (timed end to end).
	Prepare func(e *Enactment) error
	Reset   func(e *Enactment) error
	Run     func(e *Enactment) error
	// Variants are the registered named configurations; the corpus test
	// runs every one of them and every value of every key.
	Variants []string
	// Label, when set, names a variant's entries (the part between the
	// scheduler and the phase); keys that only change host decisions or
	// runtime parameters share entries.
	Label func(v Variant) string
}

var (
	algorithms = map[string]*Algorithm{}
	schedulers = map[string]*Scheduler{}
)

// RegisterAlgorithm adds an algorithm; it panics on a duplicate name (a
// broken invariant of the registrations in init functions).
func RegisterAlgorithm(a *Algorithm) {
	if _, dup := algorithms[a.Name]; dup {
		panic("scheduler: algorithm " + a.Name + " registered twice")
	}
	if a.CPU == nil {
		a.CPU = cpuReferences[a.Name]
	}
	algorithms[a.Name] = a
}

// RegisterScheduler adds a scheduler; it panics on a duplicate name or a
// registered variant that does not parse.
func RegisterScheduler(s *Scheduler) {
	if _, dup := schedulers[s.Name]; dup {
		panic("scheduler: scheduler " + s.Name + " registered twice")
	}
	schedulers[s.Name] = s
	for _, v := range s.Variants {
		if _, err := ParseVariant(v); err != nil {
			panic(fmt.Sprintf("scheduler: registered variant %q: %v", v, err))
		}
	}
}

// Algorithms returns every registered algorithm, sorted by name.
func Algorithms() []*Algorithm {
	out := make([]*Algorithm, 0, len(algorithms))
	for _, a := range algorithms {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Schedulers returns every registered scheduler, sorted by name.
func Schedulers() []*Scheduler {
	out := make([]*Scheduler, 0, len(schedulers))
	for _, s := range schedulers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupAlgorithm returns the algorithm with the given name; the error
// lists the known ones.
func LookupAlgorithm(name string) (*Algorithm, error) {
	if a, ok := algorithms[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown algorithm %q: use one of %s", name, strings.Join(AlgorithmNames(), ", "))
}

// AlgorithmNames lists the registered algorithms, sorted.
func AlgorithmNames() []string {
	var names []string
	for _, a := range Algorithms() {
		names = append(names, a.Name)
	}
	return names
}

// SchedulerNames lists the registered schedulers, sorted.
func SchedulerNames() []string {
	var names []string
	for _, s := range Schedulers() {
		names = append(names, s.Name)
	}
	return names
}

// Variant is a scheduler with a value for each of its keys.
type Variant struct {
	Scheduler *Scheduler
	values    map[string]string
}

// Get returns the value of key k.
func (v Variant) Get(k string) string { return v.values[k] }

// String is the canonical spelling: the scheduler's name, then every key
// in declaration order, e.g. "simdx:filter=jit,fusion=none" (a Quiet key
// only when it is not at its default).
func (v Variant) String() string {
	var parts []string
	for _, k := range v.Scheduler.Keys {
		if k.Quiet && v.values[k.Name] == k.Default {
			continue
		}
		parts = append(parts, k.Name+"="+v.values[k.Name])
	}
	if len(parts) == 0 {
		return v.Scheduler.Name
	}
	return v.Scheduler.Name + ":" + strings.Join(parts, ",")
}

// Timed is the variant with every measurement key at its default: the
// variant whose timed kernels are the same as v's.
func (v Variant) Timed() Variant {
	t := Variant{Scheduler: v.Scheduler, values: maps.Clone(v.values)}
	for _, k := range v.Scheduler.Keys {
		if k.Measurement {
			t.values[k.Name] = k.Default
		}
	}
	return t
}

// Label is the variant's part of entry names: "base" without keys,
// otherwise the values joined by '_' in key order.
func (v Variant) Label() string {
	if v.Scheduler.Label != nil {
		return v.Scheduler.Label(v)
	}
	if len(v.Scheduler.Keys) == 0 {
		return "base"
	}
	parts := make([]string, len(v.Scheduler.Keys))
	for i, k := range v.Scheduler.Keys {
		parts[i] = v.values[k.Name]
	}
	return strings.Join(parts, "_")
}

// ParseVariant reads "NAME" or "NAME:key=value,...": unnamed keys take
// their defaults; an unknown scheduler, key or value is an error that
// lists what is allowed.
func ParseVariant(s string) (Variant, error) {
	name, settings, _ := strings.Cut(strings.TrimSpace(s), ":")
	sch, ok := schedulers[name]
	if !ok {
		return Variant{}, fmt.Errorf("unknown scheduler %q: use one of %s", name, strings.Join(SchedulerNames(), ", "))
	}
	v := Variant{Scheduler: sch, values: map[string]string{}}
	for _, k := range sch.Keys {
		v.values[k.Name] = k.Default
	}
	if settings == "" {
		if strings.Contains(s, ":") {
			return Variant{}, fmt.Errorf("scheduler %q: nothing after ':'", s)
		}
		return v, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(settings, ",") {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return Variant{}, fmt.Errorf("scheduler %q: %q is not key=value", s, kv)
		}
		i := slices.IndexFunc(sch.Keys, func(k Key) bool { return k.Name == key })
		if i < 0 {
			return Variant{}, fmt.Errorf("scheduler %s has no key %q: its keys are %s", name, key, keyNames(sch))
		}
		if seen[key] {
			return Variant{}, fmt.Errorf("scheduler %q sets %s twice", s, key)
		}
		seen[key] = true
		if !slices.Contains(sch.Keys[i].Values, value) {
			return Variant{}, fmt.Errorf("scheduler %s: %s=%q is not allowed: use one of %s", name, key, value, strings.Join(sch.Keys[i].Values, ", "))
		}
		v.values[key] = value
	}
	return v, nil
}

func keyNames(s *Scheduler) string {
	if len(s.Keys) == 0 {
		return "none"
	}
	var names []string
	for _, k := range s.Keys {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// Entry is one runnable (algorithm, variant) pair of the registry.
type Entry struct {
	Algorithm *Algorithm
	Variant   Variant
}

// Entries lists every registered variant of every scheduler that supports
// every algorithm, ordered by algorithm then variant.
func Entries() []Entry {
	var out []Entry
	for _, a := range Algorithms() {
		if a.Setup == nil {
			continue
		}
		for _, s := range Schedulers() {
			for _, name := range s.Variants {
				v, err := ParseVariant(name)
				if err != nil {
					panic(err) // RegisterScheduler checked it
				}
				if Supports(a, v) == nil {
					out = append(out, Entry{a, v})
				}
			}
		}
	}
	return out
}

// Supports says why variant v cannot run algorithm a (nil: it can).
func Supports(a *Algorithm, v Variant) error {
	if a.Schedulers != nil && !slices.Contains(a.Schedulers, v.Scheduler.Name) {
		return fmt.Errorf("%s has its own entries and runs only under %s", a.Name, strings.Join(a.Schedulers, " or "))
	}
	if v.Scheduler.Supports != nil {
		return v.Scheduler.Supports(a, v)
	}
	return nil
}

// Prelude is a problem's own first phase (Problem.Prelude): Prepare sets
// up its state once (untimed); Run runs it in every run (timed) and names
// the vertices the scheduler's first tasks are.
type Prelude struct {
	Prepare func(e *Enactment) error
	Run     func(e *Enactment) (PreludeFrontier, error)
}

// PreludeFrontier is what a prelude leaves: the vertices stamped Stamp in
// Stamps (Active of them) are the first tasks; Edges is the work the
// prelude did, in edges walked, for the run's overwork.
type PreludeFrontier struct {
	Stamps kernels.DevPtr
	Stamp  uint32
	Active int
	Edges  float64
}
