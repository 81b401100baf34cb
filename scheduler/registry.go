package scheduler

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
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

// Form is a way an algorithm can be run, each with its own setup: the
// ACC struct's entries, or a form one family of schedulers runs. A
// scheduler lists the forms it accepts in order of preference; it runs an
// algorithm in the first of them the algorithm provides.
type Form int

const (
	// ACC is the ACC struct's entries (WG_ACC_ENTRIES and the scheduler
	// families' own entry lines), run by every ACC scheduler.
	ACC Form = iota
	// PullThenPush is an aggregation whose state also moves by pushing
	// (PageRank's residual): SIMD-X pulls in its first iteration and while
	// the frontier's out-edges exceed the pull fraction, then pushes until
	// the frontier empties, each push preceded by the take entry
	// (<kernel>_simdx_none_take), and finishes with the problem's
	// Finalize entries.
	PullThenPush
	// Tasks is a task-parallel form with entries of its own (PageRank's
	// residual push, colouring's assign-or-check tasks).
	Tasks
	// Own is an algorithm that runs its own phases (Problem.Custom): its
	// state does not fit the ACC contract (belief propagation's lives on
	// edges) or it has rounds of its own (colouring's assign and detect).
	Own
	// Forest is connected components as a forest of parent pointers:
	// entries <kernel>_afforest_{link_round,compress,sample,link_rest}
	// that link trees by hooking roots and flatten them by pointer
	// jumping (scheduler/forest.go), meta0 the parents.
	Forest
	// Classified is an algorithm with its own phases (Problem.Custom)
	// whose vertex passes take the vertices in lists by degree class, a
	// thread per small vertex, a warp per medium one, a CTA per large
	// one: SIMD-X's task mapping (the class bounds are the variant's
	// medium and large keys), which simdx runs without fusion.
	Classified
)

func (f Form) String() string {
	return [...]string{"acc", "pull-then-push", "tasks", "own", "forest", "classified"}[f]
}

// Setup builds an algorithm's problem on g (already loaded and checked)
// with resolved parameters.
type Setup func(g *graph.Graph, p Params) (*Problem, error)

// Capability is something a scheduler variant may offer beyond running
// an algorithm's form; an algorithm parameter may require one.
type Capability string

// Buckets is delta-stepping: a host-driven loop that raises a bucket bound
// when a frontier empties (scheduler/delta.go).
const Buckets Capability = "delta-stepping buckets"

// Algorithm is one registered algorithm: its kernels (module Kernel in
// kernels/, entries Kernel_<scheduler>_<variant>_<phase>), its parameters,
// its forms and their setups, and its CPU reference.
type Algorithm struct {
	Name, About string
	Kernel      string
	Combine     CombineKind
	// Params are the algorithm's parameters (source vertex, k, seed, ...).
	Params []Param
	// Gathers says the ACC struct has the pull members (identity, reduce,
	// combine_pull) that pull sweeps combine with.
	Gathers bool
	// Pullable says direction-switching schedulers should pull when the
	// frontier is large: the ACC struct's gather stops early (BFS). Other
	// gathers sweep every in-edge of every vertex, which costs more than
	// pushing from the frontier.
	Pullable bool
	// Setups are the algorithm's forms; nil while the algorithm has no GPU
	// kernels (Kernel is then empty).
	Setups map[Form]Setup
	// Requires are what a scheduler variant must offer to run the
	// algorithm at all (coreness: Buckets).
	Requires []Capability
	// Partition, when set, says how the multi-GPU driver runs the ACC
	// form on a partitioned graph (mgpu.go).
	Partition *PartitionedForm
	// CPU runs the CPU reference and checks it independently.
	CPU func(g *graph.Graph, p Params) CPUResult
}

// Forms lists the forms the algorithm provides, in Form order.
func (a *Algorithm) Forms() []Form {
	var out []Form
	for f := ACC; f <= Classified; f++ {
		if a.Setups[f] != nil {
			out = append(out, f)
		}
	}
	return out
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
	// Buckets, when set, are delta-stepping's (Buckets capability).
	Buckets *DeltaBuckets
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
	// Finish, when set, is the enactor's finalize hook: the schedulers
	// whose loops end by draining a queue or a frontier without a last
	// sweep (Atos, SIMD-X's pull-then-push) call it once at the end of
	// every run, timed (PageRank's residual form normalises its ranks).
	Finish func(e *Enactment) error
	// Work is the work a work-efficient run does on this input, from the
	// result after the run, for the overwork ratio of speculative
	// schedulers: the edges walked (BFS, SSSP: the out-degrees of the
	// reached vertices), or the vertex count for colouring, whose work is
	// colour assignments. nil: the scheduler reports no overwork.
	Work func() (work float64, what string)
	// Tasks are the task-parallel form's settings (Atos's business).
	Tasks TaskSettings
	// Module, when set, replaces the algorithm's Kernel in the names of the
	// scheduler's entries (<Module>_<scheduler>_<variant>_<phase>): a
	// second set of entries the problem picks for its input (colouring's
	// without the hub paths, on graphs whose degrees never reach them).
	Module string
	// Custom runs a problem of the Own form with its own entries, in place
	// of the scheduler's loop.
	Custom func(e *Enactment) error
}

// Values is an algorithm's per-vertex result: one of Uint32 or Float is
// set, with a name and what special values mean.
type Values struct {
	Name   string
	Note   string
	Uint32 []uint32
	Float  []float64
	// Unreached, for a traversal's result, is the value of a vertex it did
	// not reach (nil for other results).
	Unreached *uint32
}

func uint32Values(name, note string, v []uint32) Values {
	return Values{Name: name, Note: note, Uint32: v}
}

// traversalValues are a traversal's values, unreached marking the
// vertices it did not reach.
func traversalValues(name, note string, v []uint32, unreached uint32) Values {
	return Values{Name: name, Note: note, Uint32: v, Unreached: &unreached}
}

// ComponentEdges is the number of edges in the component a traversal
// reached, as Graph500 counts them for its TEPS: the out-edges of the
// reached vertices, each undirected edge once (a symmetric graph stores it
// both ways; a self-loop, stored once, counts once). ok is false for
// results that are not a traversal's.
func ComponentEdges(g *graph.Graph, v Values) (edges float64, ok bool) {
	if v.Unreached == nil || len(v.Uint32) != g.NumVertices() {
		return 0, false
	}
	arcs, loops := 0, 0
	for u, x := range v.Uint32 {
		if x == *v.Unreached {
			continue
		}
		for _, w := range g.Targets[g.Offsets[u]:g.Offsets[u+1]] {
			if w == uint32(u) {
				loops++
			} else {
				arcs++
			}
		}
	}
	if g.Directed {
		return float64(arcs + loops), true
	}
	return float64(arcs/2 + loops), true
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
	// Range, when set, makes the key numeric: any number in the range
	// (Values is then empty). A numeric key is a run-time setting: it
	// selects no entry, so the default Label leaves it out.
	Range *KeyRange
}

// KeyRange bounds a numeric key's values.
type KeyRange struct {
	Min, Max float64
	// OpenMin excludes Min itself.
	OpenMin bool
	// Whole keys take whole numbers only.
	Whole bool
}

// allows says whether value is one of the key's values, returning its
// canonical spelling (a number as strconv writes it).
func (k Key) allows(value string) (string, bool) {
	if k.Range == nil {
		return value, slices.Contains(k.Values, value)
	}
	x, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(x) || x < k.Range.Min || k.Range.OpenMin && x == k.Range.Min || x > k.Range.Max || k.Range.Whole && x != math.Trunc(x) {
		return "", false
	}
	return strconv.FormatFloat(x, 'g', -1, 64), true
}

// allowed describes the key's values for an error message.
func (k Key) allowed() string {
	if k.Range == nil {
		return "use one of " + strings.Join(k.Values, ", ")
	}
	what := "a number"
	if k.Range.Whole {
		what = "a whole number"
	}
	open := "["
	if k.Range.OpenMin {
		open = "("
	}
	return fmt.Sprintf("use %s in %s%s, %s]", what, open, strconv.FormatFloat(k.Range.Min, 'f', -1, 64), strconv.FormatFloat(k.Range.Max, 'f', -1, 64))
}

// Scheduler is one registered runtime.
type Scheduler struct {
	Name, About string
	Keys        []Key
	// Forms are the algorithm forms the scheduler runs, in order of
	// preference (nil: ACC alone).
	Forms []Form
	// Offers says why a variant lacks a capability (nil: it has it); a
	// capability missing from the map is one the scheduler never offers.
	Offers map[Capability]func(v Variant) error
	// Supports says why a variant cannot run an algorithm in the form it
	// would run it in (nil: it can).
	Supports func(a *Algorithm, v Variant) error
	// Prepare allocates the scheduler's own buffers once per enactment
	// (in e.Buffers), Reset restores their initial state before every run
	// (untimed), and Run carries out one whole run (timed end to end).
	Prepare func(e *Enactment) error
	Reset   func(e *Enactment) error
	Run     func(e *Enactment) error
	// Collect, when set, runs after every run, untimed: it puts the
	// result where the check reads it (the multi-GPU driver gathers its
	// devices' values on the first).
	Collect func(e *Enactment) error
	// CoLaunches, when set, says whether a variant run on several devices
	// co-launches kernels that reach each other's memory
	// (kernels.PeerSystem), which sampled simulation does not model.
	CoLaunches func(v Variant) bool
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
		panic("scheduler: algorithm " + a.Name + " has no CPU reference")
	}
	for _, p := range a.Params {
		if (p.Kind == Uint32Param || p.Kind == FloatParam) && !(p.Min <= p.Default && p.Default <= p.Max) {
			panic(fmt.Sprintf("scheduler: %s's parameter %s: default %g outside [%g, %g]", a.Name, p.Name, p.Default, p.Min, p.Max))
		}
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

// Number returns the value of numeric key k.
func (v Variant) Number(k string) float64 {
	x, err := strconv.ParseFloat(v.values[k], 64)
	if err != nil {
		panic(fmt.Sprintf("scheduler: key %s of %s is not numeric", k, v.Scheduler.Name)) // ParseVariant checked it
	}
	return x
}

// Int returns the value of whole-number key k.
func (v Variant) Int(k string) int { return int(v.Number(k)) }

// Offers says why the variant lacks capability c (nil: it has it).
func (v Variant) Offers(c Capability) error {
	if check, ok := v.Scheduler.Offers[c]; ok {
		return check(v)
	}
	return fmt.Errorf("%s has no %s", v.Scheduler.Name, c)
}

// FormOf is the form the variant runs a in: the first of its scheduler's
// forms that a provides.
func (v Variant) FormOf(a *Algorithm) (Form, error) {
	accepted := v.Scheduler.Forms
	if accepted == nil {
		accepted = []Form{ACC}
	}
	for _, f := range accepted {
		if a.Setups[f] != nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s runs in the %s form(s); %s runs %s", a.Name, formList(a.Forms()), v.Scheduler.Name, formList(accepted))
}

func formList(forms []Form) string {
	var names []string
	for _, f := range forms {
		names = append(names, f.String())
	}
	if len(names) == 0 {
		return "no"
	}
	return strings.Join(names, ", ")
}

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
	var parts []string
	for _, k := range v.Scheduler.Keys {
		if k.Range == nil {
			parts = append(parts, v.values[k.Name])
		}
	}
	if len(parts) == 0 {
		return "base"
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
		canonical, ok := sch.Keys[i].allows(value)
		if !ok {
			return Variant{}, fmt.Errorf("scheduler %s: %s=%q is not allowed: %s", name, key, value, sch.Keys[i].allowed())
		}
		v.values[key] = canonical
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
		if a.Setups == nil {
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

// Supports says why variant v cannot run algorithm a (nil: it can): a
// provides none of the forms the scheduler runs, the variant lacks a
// capability a requires, or the scheduler's own check refuses it.
func Supports(a *Algorithm, v Variant) error {
	if _, err := v.FormOf(a); err != nil {
		return err
	}
	for _, c := range a.Requires {
		if err := v.Offers(c); err != nil {
			return fmt.Errorf("%s needs %s: %w", a.Name, c, err)
		}
	}
	if v.Scheduler.Supports != nil {
		return v.Scheduler.Supports(a, v)
	}
	return nil
}

// DeltaBuckets are a problem's delta-stepping buckets: their width and
// the bound words (kernels/sssp.cu, meta2); the host-driven loops that
// offer the Buckets capability start the bound at Delta (startBuckets) and
// raise it when a frontier empties (nextBucket).
type DeltaBuckets struct {
	Delta uint32
	Bound *Array
	// Note says what the buckets are when they are not delta-stepping's.
	Note string
}

// TaskSettings are what a problem tells the task-parallel scheduler.
type TaskSettings struct {
	// Fetch, when set, is fetch=auto's pop for CTA workers on this
	// problem (atosAutoFetch otherwise).
	Fetch int
	// WorkCounted says the measure of work done is the count the kernels
	// keep (colour assignments), not the edges they walk.
	WorkCounted bool
	// ResidentCTAWorkers keeps persistent CTA workers on the co-resident
	// grid under launch=fit, for a problem whose CTA workers measured
	// faster with every slot filled (colouring: results/atos-launch).
	ResidentCTAWorkers bool
	// Prelude, when set, is the problem's own first phase, run before the
	// workers start in every run (timed), with state its Prepare set up
	// once (untimed); its frontier is the first tasks: PageRank's residual
	// form pulls in bulk first.
	Prelude *Prelude
	// AcrossDevices, when set, is the task form atos runs across GPUs for a
	// problem whose Prelude or Finish runs on one device: it rewrites the
	// problem (Notes; Prelude and Finish cleared) and says how the run
	// starts and ends across the devices.
	AcrossDevices func(p *Problem) *TasksAcross
}

// TasksAcross is a task form's start and finish across the devices of a
// system.
type TasksAcross struct {
	// Carries, when set, starts the workers as the one-device Prelude of
	// pulls does (the pull-then-push form's pull entry in counting mode),
	// each device pulling over its own vertices' in-edges while the
	// vertices left active hold more than the pull fraction of the edges;
	// then the seeding entry (<kernel>_atos_base_seed) queues the last
	// pull's active vertices. A pull reads only the carries the pull before
	// wrote (the first, only what every copy holds at the start): Carries
	// says where pull i writes them, 32-bit words from word `at` of
	// metadata buffer `meta`, one a vertex, which every device sends the
	// others after each pull.
	Carries func(iteration int) (meta, at int)
	// Finish, when set, is the finishing pass.
	Finish *FinishAcross
}

// FinishAcross is a finishing pass across the devices of a system: each
// kernel, in turn, grid-strided over the vertices on every device's own
// copy of the metadata, in which meta0 starts at 0 at the vertices the
// device does not own (so that a pass over a copy, e.g. a sum, sees only
// the device's own), and after the kernel named TotalAfter the Total slot
// set on every device to the devices' sum.
type FinishAcross struct {
	Kernels    []string
	TotalAfter string
	Total      SlotSums
}

// needsGather refuses an algorithm whose ACC struct has no pull members
// (Gathers), which pull sweeps combine with, or whose module lacks the
// variant's entry for phase.
func needsGather(a *Algorithm, v Variant, phase string) error {
	if !a.Gathers {
		return fmt.Errorf("%s combines updates with the ACC pull members (identity, reduce, combine_pull), which %s does not have", v.Scheduler.Name, a.Name)
	}
	return entryExists(a, v, phase)
}

// entryExists says which entry of a's module the variant's phase needs
// when the kernel catalog lacks it.
func entryExists(a *Algorithm, v Variant, phase string) error {
	name := fmt.Sprintf("%s_%s_%s_%s", a.Kernel, v.Scheduler.Name, v.Label(), phase)
	if _, err := kernels.Lookup(name); err != nil {
		return fmt.Errorf("%s has no entry %s for %s", a.Name, name, v)
	}
	return nil
}

// Prelude is a problem's own first phase (TaskSettings.Prelude): Prepare sets
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
