package experiments

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { Default.Register(corpusExperiment()) }

// namedGraph is a generated graph by short name (the key uses the name;
// the spec column holds the full spec).
type namedGraph struct{ name, spec string }

// corpusGraphs are the small generated graphs of bsp-corpus.
var corpusGraphs = []namedGraph{
	{"rmat8", "rmat:scale=8"},
	{"grid16", "grid:w=16,h=16"},
	{"er256", "er:n=256,m=2048"},
}

func corpusExperiment() *Experiment {
	return withCells(&Experiment{
		Name: "bsp-corpus",
		About: "Every registered (algorithm, scheduler variant) cell of scheduler.Entries() on a few small generated " +
			"graphs, validated against the CPU reference, with the simulator's (or the GPU's) time and counters: the " +
			"corpus of the ACC framework as an experiment, growing as schedulers land.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"tiny"},
		Params:  wholeRunParams("threads per CTA", "1", "5"),
		Table:   []string{"config", "graph", "algorithm", "variant", "iterations", "launches", "kernel_us", "warp_execution_efficiency", "status"},
		Notes: []string{
			"Times on the simulator are simulated time as scheduler.Enact reports it, not the host's wall time.",
			"The default configuration is tiny (2 SMs): the corpus on it takes minutes; on h100 (--config h100) a host-driven SIMD-X cell of these small graphs takes about a minute, because every launch of a co-resident grid is simulated on all 132 SMs, so the whole corpus takes hours there.",
			"Sources are the vertex of maximum out-degree (as `warpgraph run`), k-core's k is ref.DefaultK, and every run is validated against graph/ref.",
		},
	}, corpusGraphs, maxDegreeSource)
}

// withCells makes e an experiment whose points are the registered cells
// on graphs (traversals from source): their axes, points, statistics,
// runner, plot and findings, named after e.
func withCells(e *Experiment, graphs []namedGraph, source func(*graph.Graph) uint32) *Experiment {
	e.Axes = cellAxes(graphs)
	e.Points = func(string, string) [][]string { return cellPoints(graphs) }
	e.Stats = cellStats
	e.Run = cellRunner(e.Name, graphs, source)
	e.Plot = func(rows []Row, dir string) ([]string, error) { return plotCells(rows, dir, e.Name) }
	e.Findings = cellFindings
	return e
}

// cellStats are the statistics of a point that is one registered cell's
// whole run (bsp-corpus, simhw).
var cellStats = []Stat{
	{"spec", "", "the graph's full spec"},
	{"vertices", "", "vertices of the input graph"},
	{"edges", "", "edges of the input graph"},
	{"source", "", "source vertex (the vertex of maximum out-degree) for algorithms with one"},
	{"end_to_end_us", "µs", "median end-to-end time as scheduler.Enact reports it (simulated time on the simulator)"},
	{"kernel_us", "µs", "median sum of the launches' device times"},
	{"cycles", "cycles", "simulated cycles of the last run (simulator only)"},
	{"iterations", "", "iterations of the last run"},
	{"launches", "", "kernel launches of the last run"},
	{"thread_instructions", "", "simulated thread-instructions"},
	{"warp_execution_efficiency", "", "simulated active lanes per warp-instruction ÷ 32"},
	{"global_atomics", "", "simulated global atomics"},
	{"frontiers", "", "frontier size after each iteration, space-separated"},
	{"summary", "", "the algorithm's own summary (reached vertices, depth, ...), name=value;..."},
	{"counters", "", "every counter of the run, name=value;... (simulator only)"},
}

// cellPoints lists every registered (algorithm, variant) cell on each
// graph: axes graph, algorithm, variant.
func cellPoints(graphs []namedGraph) [][]string {
	var out [][]string
	for _, g := range graphs {
		for _, e := range scheduler.Entries() {
			out = append(out, []string{g.name, e.Algorithm.Name, e.Variant.String()})
		}
	}
	return out
}

func graphList(graphs []namedGraph) string {
	var parts []string
	for _, g := range graphs {
		parts = append(parts, g.name+" = "+g.spec)
	}
	return strings.Join(parts, ", ")
}

// cellAxes are the axes of an experiment whose points are registered
// cells on graphs.
func cellAxes(graphs []namedGraph) []Axis {
	var names []string
	for _, g := range graphs {
		names = append(names, g.name)
	}
	return []Axis{
		{Name: "graph", About: "generated graph (" + graphList(graphs) + ")", Values: names},
		{Name: "algorithm", About: "registered algorithm with GPU kernels"},
		{Name: "variant", About: "scheduler variant (NAME or NAME:key=value,...)"},
	}
}

// cellRunner runs a point that is one registered cell's whole run on one
// of graphs, traversals from source(graph), validated against the CPU
// reference.
func cellRunner(experiment string, graphs []namedGraph, source func(*graph.Graph) uint32) func(context.Context, *Env, Point) (Outcome, error) {
	return func(ctx context.Context, env *Env, p Point) (Outcome, error) {
		for _, g := range graphs {
			if g.name == p.Get("graph") {
				c, err := startCell(p, g.spec)
				if err != nil {
					return Outcome{}, err
				}
				return enactCell(ctx, env, c, source(c.g))
			}
		}
		return Outcome{}, fmt.Errorf("%s: unknown graph %q", experiment, p.Get("graph"))
	}
}

// maxDegreeSource is the cell experiments' usual traversal source.
func maxDegreeSource(g *graph.Graph) uint32 { return g.MaxDegreeVertex() }

// enactCell runs a cell once set up, from source where the algorithm has
// one, and reads the cell statistics from the result.
func enactCell(ctx context.Context, env *Env, c cellRun, source uint32) (Outcome, error) {
	a, variant, ro, g, v := c.alg, c.variant, c.ro, c.g, c.values
	o := scheduler.Params{}
	if a.UsesSource() {
		o[scheduler.SourceParam] = source
		v["source"] = strconv.FormatUint(uint64(source), 10)
	}
	dev, err := env.Device()
	if err != nil {
		return Outcome{}, err
	}
	r, err := scheduler.Enact(ctx, dev, a, variant, g, o, ro)
	if err != nil {
		return Outcome{}, err
	}
	v["end_to_end_us"], v["kernel_us"] = micros(r.EndToEnd), micros(r.Kernel)
	if r.Total.Cycles > 0 {
		v["cycles"] = strconv.FormatUint(r.Total.Cycles, 10)
	}
	v["iterations"], v["launches"] = strconv.Itoa(len(r.Iterations)), strconv.Itoa(r.Launches)
	for _, c := range []string{"thread_instructions", "warp_execution_efficiency", "global_atomics"} {
		if x, ok := r.Total.Counters[c]; ok {
			v[c] = formatFloat(x)
		}
	}
	fronts := make([]string, len(r.Iterations))
	for i, it := range r.Iterations {
		fronts[i] = strconv.Itoa(it.FrontierOut)
	}
	v["frontiers"] = strings.Join(fronts, " ")
	sum := make([]string, len(r.Summary))
	for i, f := range r.Summary {
		sum[i] = f.Name + "=" + f.Value
	}
	v["summary"] = strings.Join(sum, ";")
	// The summary's figures by key (overwork, colours, queue_pushes...),
	// for experiments that declare them as columns.
	for _, f := range r.Summary {
		if _, taken := v[f.Key]; !taken && f.Number != nil {
			v[f.Key] = formatFloat(*f.Number)
		}
	}
	v["counters"] = countersCell(r.Total.Counters)
	return Outcome{Values: v, Valid: r.Validation.OK(), Validation: r.Validation.String()}, nil
}

// plotCells draws every cell's kernel time, one row per (algorithm,
// variant) and one marker per graph, as dir/name.{png,svg}.
func plotCells(rows []Row, dir, name string) ([]string, error) {
	rows = okRows(rows)
	var cats []string
	catAt := map[string]int{}
	var groups []dotGroup
	groupAt := map[string]int{}
	for _, r := range rows {
		c := r["algorithm"] + " " + compactVariant(r["variant"])
		if _, ok := catAt[c]; !ok {
			catAt[c] = len(cats)
			cats = append(cats, c)
		}
		gname := r["graph"]
		if len(distinctValues(rows, "config")) > 1 || r["target"] != TargetSim {
			gname = where(r) + ", " + gname
		}
		if _, ok := groupAt[gname]; !ok {
			groupAt[gname] = len(groups)
			groups = append(groups, dotGroup{label: gname})
		}
	}
	for i := range groups {
		groups[i].values = make([]float64, len(cats))
	}
	for _, r := range rows {
		gname := r["graph"]
		if len(distinctValues(rows, "config")) > 1 || r["target"] != TargetSim {
			gname = where(r) + ", " + gname
		}
		if v, ok := r.Float("kernel_us"); ok {
			groups[groupAt[gname]].values[catAt[r["algorithm"]+" "+compactVariant(r["variant"])]] = v
		}
	}
	title := "Every registered cell: kernel time"
	if len(rows) > 0 {
		title += " on " + where(rows[0])
	}
	return dotFigure{
		title:      title,
		xLabel:     "kernel time (µs)",
		logX:       true,
		categories: cats,
		groups:     groups,
	}.save(dir, name)
}

// distinctValues lists a column's values in first-seen order.
func distinctValues(rows []Row, col string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r[col]] {
			seen[r[col]] = true
			out = append(out, r[col])
		}
	}
	return out
}

// compactVariant shortens "simdx:filter=jit,direction=auto" to
// "simdx jit/auto" for axis labels.
func compactVariant(v string) string {
	name, settings, ok := strings.Cut(v, ":")
	if !ok {
		return v
	}
	var vals []string
	for _, kv := range strings.Split(settings, ",") {
		_, val, _ := strings.Cut(kv, "=")
		vals = append(vals, val)
	}
	return name + " " + strings.Join(vals, "/")
}

// rankedGroups groups the rows that validated and carry a time (a
// functional-mode row has none: it is counted apart) by key, in first-seen
// order, each group sorted by the column by, fastest first.
func rankedGroups(rows []Row, key func(Row) string, by string) (order []string, groups map[string][]Row, functional int) {
	groups = map[string][]Row{}
	for _, r := range okRows(rows) {
		if r["sim_mode"] == "functional" {
			functional++
			continue
		}
		k := key(r)
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, rs := range groups {
		sort.SliceStable(rs, func(i, j int) bool {
			a, _ := rs[i].Float(by)
			b, _ := rs[j].Float(by)
			return a < b
		})
	}
	return order, groups, functional
}

// cellFindings counts the cells that validated and names the fastest and
// slowest per graph.
func cellFindings(rows []Row) []string {
	ok := len(okRows(rows))
	out := []string{fmt.Sprintf("%d of %d cells ran and matched the CPU reference.", ok, len(rows))}
	order, byGraph, functional := rankedGroups(rows, func(r Row) string { return where(r) + ", " + r["graph"] }, "kernel_us")
	for _, k := range order {
		rs := byGraph[k]
		lo, hi := rs[0], rs[len(rs)-1]
		out = append(out, fmt.Sprintf("**%s**: fastest %s under %s (%s µs, %s iterations), slowest %s under %s (%s µs, %s iterations).",
			k, lo["algorithm"], lo["variant"], lo["kernel_us"], lo["iterations"], hi["algorithm"], hi["variant"], hi["kernel_us"], hi["iterations"]))
	}
	if functional > 0 {
		out = append(out, fmt.Sprintf("%d cells ran on the functional simulator: exact values and instruction counts, no kernel time (the end-to-end column is the simulated host clock alone), so they are not ranked.", functional))
	}
	return out
}
