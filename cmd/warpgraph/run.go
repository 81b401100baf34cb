package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// Targets an algorithm can run on.
var targets = []string{"cpu", "sim", "hw"}

type runOptions struct {
	algo, spec, target string
	simMode, config    string
	source             int64
	k                  uint32
	seed               uint64
	block              int
	timeout            time.Duration
	asJSON             bool
}

// field is one named figure of a run's summary, kept in order for tables.
type field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type validation struct {
	OK        bool   `json:"ok"`
	Method    string `json:"method"`
	Tolerance string `json:"tolerance"`
	Detail    string `json:"detail"`
}

// runResult is what `warpgraph run` prints: the same shape for every target,
// with device figures (simulated cycles and counters, measured GPU time)
// present when the target has them.
type runResult struct {
	Algorithm     string             `json:"algorithm"`
	Graph         string             `json:"graph"`
	Vertices      int                `json:"vertices"`
	Edges         int                `json:"edges"`
	Source        *uint32            `json:"source,omitempty"`
	Target        string             `json:"target"`
	SimMode       string             `json:"sim_mode,omitempty"`
	Config        string             `json:"config,omitempty"`
	Device        string             `json:"device,omitempty"`
	LoadSeconds   float64            `json:"load_seconds"`
	HostSeconds   float64            `json:"host_seconds"`
	DeviceSeconds float64            `json:"device_seconds,omitempty"`
	Cycles        uint64             `json:"cycles,omitempty"`
	Iterations    int                `json:"iterations,omitempty"`
	Summary       []field            `json:"summary"`
	Counters      map[string]float64 `json:"counters,omitempty"`
	Validation    validation         `json:"validation"`
}

func (r *runResult) note(name string, format string, args ...any) {
	r.Summary = append(r.Summary, field{name, fmt.Sprintf(format, args...)})
}

func (r *runResult) validate(method string, rep ref.Report) {
	r.Validation = validation{OK: rep.OK(), Method: method, Tolerance: rep.Tolerance, Detail: rep.String()}
}

// algorithm is one entry of the run catalog.
type algorithm struct {
	name, about string
	usesSource  bool
	cpu         func(g *graph.Graph, o runOptions, src uint32, r *runResult) error
	// device runs the algorithm's GPU driver on sim or hw; nil while the
	// algorithm has no kernel yet.
	device func(ctx context.Context, env *deviceEnv, g *graph.Graph, o runOptions, src uint32, r *runResult) error
}

var algorithms = map[string]*algorithm{}

func register(a *algorithm) { algorithms[a.name] = a }

func algorithmNames() []string {
	names := make([]string, 0, len(algorithms))
	for n := range algorithms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newRunCommand() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run --algo A --graph SPEC [--target cpu|sim|hw]",
		Short: "Run a graph algorithm on the CPU reference, the simulator or a GPU, and validate the result",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := runAlgorithm(cmd.Context(), o)
			if err != nil {
				return err
			}
			if err := printRun(cmd.OutOrStdout(), res, o.asJSON); err != nil {
				return err
			}
			if !res.Validation.OK {
				return fmt.Errorf("%s on %s failed validation: %s", res.Algorithm, res.Target, res.Validation.Detail)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.algo, "algo", "", "algorithm: "+strings.Join(algorithmNames(), ", "))
	f.StringVar(&o.spec, "graph", "", "graph spec: a file or a generator (rmat:scale=16)")
	f.StringVar(&o.target, "target", "cpu", "where to run: cpu (reference), sim (simulator), hw (CUDA GPU)")
	f.StringVar(&o.simMode, "sim-mode", "timing", "simulator mode: timing (cycle-level, the default) or functional (exact values, no cycles)")
	f.StringVar(&o.config, "config", "h100", "simulator configuration: a shipped name (h100, v100, gtx780ti, tiny) or a YAML file")
	f.Int64Var(&o.source, "source", -1, "source vertex for bfs, sssp and sswp (default: the vertex of maximum out-degree)")
	f.Uint32Var(&o.k, "k", ref.DefaultK, "k for kcore: report the k-core's size")
	f.Uint64Var(&o.seed, "seed", 1, "seed for bp's node priors")
	f.IntVar(&o.block, "block", 256, "threads per CTA for device runs")
	f.DurationVar(&o.timeout, "timeout", 10*time.Minute, "host timeout for a device run (a hung GPU kernel ends the process)")
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of a table")
	return cmd
}

func runAlgorithm(ctx context.Context, o runOptions) (*runResult, error) {
	a, ok := algorithms[o.algo]
	if !ok {
		if o.algo == "" {
			return nil, badInput("--algo is required: one of %s", strings.Join(algorithmNames(), ", "))
		}
		return nil, badInput("unknown algorithm %q: use one of %s", o.algo, strings.Join(algorithmNames(), ", "))
	}
	if !slices.Contains(targets, o.target) {
		return nil, badInput("unknown target %q: use one of %s", o.target, strings.Join(targets, ", "))
	}
	if o.target != "cpu" && a.device == nil {
		return nil, badInput("algorithm %s has no GPU kernel yet, so it runs only with --target cpu", a.name)
	}
	var env *deviceEnv
	if o.target != "cpu" {
		// Open the device before loading a large graph, so a missing
		// driver or a bad configuration is reported at once.
		var err error
		if env, err = openDevice(o); err != nil {
			return nil, err
		}
		defer env.close()
	}
	g, parsed, took, err := loadGraph(o.spec)
	if err != nil {
		return nil, err
	}
	return runLoaded(ctx, a, env, o, g, parsed, took)
}

// runOnGraph runs an algorithm on the CPU target on a graph already loaded.
func runOnGraph(ctx context.Context, o runOptions, g *graph.Graph, parsed graph.Spec, took time.Duration) (*runResult, error) {
	a, ok := algorithms[o.algo]
	if !ok || o.target != "cpu" {
		return nil, fmt.Errorf("runOnGraph: %q on %q is not a CPU algorithm", o.algo, o.target)
	}
	return runLoaded(ctx, a, nil, o, g, parsed, took)
}

func runLoaded(ctx context.Context, a *algorithm, env *deviceEnv, o runOptions, g *graph.Graph, parsed graph.Spec, took time.Duration) (*runResult, error) {
	res := &runResult{Algorithm: a.name, Graph: parsed.String(), Vertices: g.NumVertices(), Edges: g.NumEdges(),
		Target: o.target, LoadSeconds: took.Seconds()}
	var src uint32
	if a.usesSource {
		if g.NumVertices() == 0 {
			return nil, badInput("graph %s has no vertices, so %s has no source", parsed.String(), a.name)
		}
		src = g.MaxDegreeVertex()
		if o.source >= 0 {
			if o.source >= int64(g.NumVertices()) {
				return nil, badInput("--source %d is not a vertex: the graph has vertices 0..%d", o.source, g.NumVertices()-1)
			}
			src = uint32(o.source)
		}
		res.Source = &src
	}
	start := time.Now()
	var err error
	if o.target == "cpu" {
		err = a.cpu(g, o, src, res)
	} else {
		env.describe(res)
		ctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		err = a.device(ctx, env, g, o, src, res)
	}
	if err != nil {
		return nil, err
	}
	res.HostSeconds = time.Since(start).Seconds()
	return res, nil
}

func printRun(w io.Writer, r *runResult, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	t := &table{}
	t.add("algorithm", r.Algorithm)
	t.add("graph", fmt.Sprintf("%s (%d vertices, %d edges)", r.Graph, r.Vertices, r.Edges))
	if r.Source != nil {
		t.add("source", *r.Source)
	}
	target := r.Target
	if r.SimMode != "" {
		target += fmt.Sprintf(" (%s, config %s)", r.SimMode, r.Config)
	}
	t.add("target", target)
	if r.Device != "" {
		t.add("device", r.Device)
	}
	t.add("load time", seconds(r.LoadSeconds))
	t.add("run time (host)", seconds(r.HostSeconds))
	if r.DeviceSeconds > 0 {
		t.add("device time", seconds(r.DeviceSeconds))
	}
	if r.Cycles > 0 {
		t.add("cycles", r.Cycles)
	}
	if r.Iterations > 0 {
		t.add("iterations", r.Iterations)
	}
	for _, f := range r.Summary {
		t.add(f.Name, f.Value)
	}
	addCounterRows(t, r.Counters)
	verdict := "PASS"
	if !r.Validation.OK {
		verdict = "FAIL"
	}
	t.add("validation", fmt.Sprintf("%s (%s): %s", verdict, r.Validation.Method, r.Validation.Detail))
	return t.write(w)
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond).String()
}
