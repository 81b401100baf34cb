package experiments

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { Default.Register(hqExperiment()) }

// hqGraph is a graph of the hq experiment: its short name (the axis
// value), spec, source ("max": the vertex of maximum out-degree) and which
// points it gets (full: every W of both layouts).
type hqGraph struct {
	name, spec, source string
	target             string
	full               bool
}

// hqGraphs: the simulator graphs (a subset of W: a run of rmat16
// takes about two minutes of wall time here in timing mode), smaller ones
// with every W, and the hardware graphs, with the lecture's regular graphs
// (10^8 vertices: 3.2 or 1.6 GB of edges, generated in each point).
var hqGraphs = []hqGraph{
	{"rmat12", "rmat:scale=12+perm=1", "max", TargetSim, true},
	{"grid64", "grid:w=64,h=64", "0", TargetSim, true},
	{"rmat16", "rmat:scale=16+perm=1", "max", TargetSim, false},
	{"grid256", "grid:w=256,h=256", "0", TargetSim, false},
	{"rmat20", "rmat:scale=20+perm=1", "0", TargetHW, true},
	{"grid1000", "grid:w=1000,h=1000", "0", TargetHW, true},
	{"regular1m-d8", "regular:n=1000000,d=8,w=none", "0", TargetHW, true},
	{"regular100m-d4", "regular:n=100000000,d=4,w=none", "0", TargetHW, false},
	{"regular100m-d8", "regular:n=100000000,d=8,w=none", "0", TargetHW, false},
}

// hqSubsetW are the W of graphs without the full sweep.
var hqSubsetW = []int{1, 4, 8, 32}

// hqPoints lists a graph's points: g and bg (no w-queues: W and layout
// "-"), w+b+g for both layouts over W, all with one multi-CTA launch per
// level (local=off, so the queues alone differ), and the single-CTA
// arrangements (local=cta: the lecture's, until the b-queue overflows;
// local=round: until a level outputs more than one vertex per thread) for
// bg and for w+b+g interleaved at W=8.
func hqPoints(g hqGraph) [][]string {
	out := [][]string{
		{g.name, "g", "-", "-", "off"},
		{g.name, "bg", "-", "-", "off"},
	}
	ws := hqSubsetW
	if g.full {
		ws = nil
		for w := 1; w <= 32; w++ {
			ws = append(ws, w)
		}
	}
	for _, layout := range []string{"naive", "interleaved"} {
		for _, w := range ws {
			out = append(out, []string{g.name, "wbg", layout, strconv.Itoa(w), "off"})
		}
	}
	for _, local := range []string{"cta", "round"} {
		out = append(out, []string{g.name, "bg", "-", "-", local}, []string{g.name, "wbg", "interleaved", "8", local})
	}
	return out
}

func hqExperiment() *Experiment {
	return &Experiment{
		Name: "hq",
		About: "Hierarchical privatised frontier queues (ECE 508, lecture 7) for BFS: g-only vs b+g vs w+b+g, naive vs " +
			"interleaved w-queue layout, W = 1…32 w-queues: time and counted bank conflicts (scheduler hq).",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "graph", About: "graph (" + hqGraphList() + ")"},
			{Name: "queue", About: "g: a global atomic per insert; bg: b-queue then g-queue; wbg: w-queues, b-queue, g-queue"},
			{Name: "layout", About: "w-queue layout (naive: queue q contiguous; interleaved: slot i of queue q at i*W+q); - without w-queues"},
			{Name: "w", About: "w-queues W (thread t inserts into t % W); - without w-queues"},
			{Name: "local", About: "off: one multi-CTA launch per level; cta: one CTA runs levels alone until a level's output overflows the b-queue; round: until it exceeds one vertex per thread"},
		},
		Points: func(target, _ string) [][]string {
			var out [][]string
			for _, g := range hqGraphs {
				if g.target == target {
					out = append(out, hqPoints(g)...)
				}
			}
			return out
		},
		Params: wholeRunParams("threads per CTA", "2", "10"),
		Stats: []Stat{
			{"spec", "", "the graph's full spec"},
			{"vertices", "", "vertices"},
			{"edges", "", "stored edges"},
			{"source", "", "BFS source"},
			{"end_to_end_us", "µs", "median end-to-end BFS time as scheduler.Enact reports it (simulated on the simulator)"},
			{"kernel_us", "µs", "median sum of the launches' device times"},
			{"cycles", "cycles", "simulated cycles (simulator only)"},
			{"bank_conflicts", "passes", "simulated extra shared-memory passes (timing mode only)"},
			{"shared_atomics", "", "simulated shared-memory atomic lane operations"},
			{"global_atomics", "", "simulated global atomic lane operations"},
			{"warp_execution_efficiency", "", "simulated active lanes per warp-instruction ÷ 32"},
			{"iterations", "", "BFS levels"},
			{"launches", "", "kernel launches"},
			{"single_cta_levels", "", "levels run by the single-CTA kernel"},
			{"w_overflows", "", "inserts that found their w-queue full"},
			{"b_overflows", "", "inserts that found the b-queue full"},
			{"counters", "", "every counter of the run, name=value;... (simulator only)"},
		},
		Run: runHQ,
		Table: []string{"config", "graph", "queue", "layout", "w", "local", "kernel_us", "end_to_end_us", "bank_conflicts",
			"w_overflows", "b_overflows", "single_cta_levels", "status"},
		Plot:     plotHQ,
		Findings: hqFindings,
		Notes: []string{
			"W is the run-time key queues (`warpgraph run --scheduler hq:...,queues=W`); every w-queue holds 2048/W entries, the b-queue 2048.",
			"Every point is one whole BFS validated against graph/ref; times on the simulator are simulated time, not wall time.",
			"local=off runs every level as one multi-CTA launch, so g, bg and wbg differ only in the queues; local=cta adds the lecture's single-CTA kernel (one CTA until a level overflows the b-queue), local=round the same kernel handing over once a level outputs more than one vertex per thread.",
			"The simulator half uses the issue's rmat:scale=16+perm=1 and grid:w=256,h=256 for W in {1, 4, 8, 32} only (timing-mode BFS at that size takes minutes of wall time per point), and rmat:scale=12+perm=1 and grid:w=64,h=64 for every W from 1 to 32.",
			"Two kinds of shared access depend on the layout: the inserts, and reading the w-queues out at each flush. Interleaved, the lanes that share a queue take consecutive slots W words apart, so inserts hardly conflict. A multi-CTA flush reads the w-queue words in memory order and stores each entry straight to its g-queue slot (the lecture's 'why not copy w-queue directly to g-queue? try it?'); results/hq-sim/HISTORY.md records how an earlier flush through the b-queue compared. The single-CTA kernel still consolidates into the b-queue (its next frontier).",
			"R-MAT sources on the simulator are the vertex of maximum out-degree (vertex 0 of rmat:scale=16+perm=1 reaches no other vertex); grids and the hardware graphs start at vertex 0, as the issue asks.",
		},
	}
}

func hqGraphList() string {
	var parts []string
	for _, g := range hqGraphs {
		parts = append(parts, g.name+" = "+g.spec)
	}
	return strings.Join(parts, ", ")
}

// hqVariant spells a point's scheduler variant and W (0: the default, for
// variants without w-queues).
func hqVariant(p Point) (string, int, error) {
	queue, layout, local := p.Get("queue"), p.Get("layout"), p.Get("local")
	v := "hq:queue=" + queue + ",local=" + local
	if queue != "wbg" {
		return v, 0, nil
	}
	w, err := p.Int("w")
	if err != nil {
		return "", 0, err
	}
	return v + ",layout=" + layout, w, nil
}

func runHQ(ctx context.Context, env *Env, p Point) (Outcome, error) {
	var hg *hqGraph
	for i := range hqGraphs {
		if hqGraphs[i].name == p.Get("graph") {
			hg = &hqGraphs[i]
		}
	}
	if hg == nil {
		return Outcome{}, fmt.Errorf("hq: unknown graph %q", p.Get("graph"))
	}
	name, w, err := hqVariant(p)
	if err != nil {
		return Outcome{}, err
	}
	if w > 0 {
		name = fmt.Sprintf("%s,queues=%d", name, w)
	}
	variant, err := scheduler.ParseVariant(name)
	if err != nil {
		return Outcome{}, err
	}
	ro := scheduler.RunOptions{}
	if err := wholeRunOptions(p, &ro); err != nil {
		return Outcome{}, err
	}
	g, v, err := loadWholeRunGraph(hg.spec)
	if err != nil {
		return Outcome{}, err
	}
	o := scheduler.Params{scheduler.SourceParam: g.MaxDegreeVertex()}
	if hg.source != "max" {
		s, err := strconv.ParseUint(hg.source, 10, 32)
		if err != nil {
			return Outcome{}, fmt.Errorf("hq: graph %s: source %q: %w", hg.name, hg.source, err)
		}
		o[scheduler.SourceParam] = uint32(s)
	}
	bfs, err := scheduler.LookupAlgorithm("bfs")
	if err != nil {
		return Outcome{}, err
	}
	dev, err := env.Device()
	if err != nil {
		return Outcome{}, err
	}
	r, err := scheduler.Enact(ctx, dev, bfs, variant, g, o, ro)
	if err != nil {
		return Outcome{}, err
	}
	for key, x := range map[string]string{
		"source":        strconv.FormatUint(uint64(o.Uint32(scheduler.SourceParam)), 10),
		"end_to_end_us": micros(r.EndToEnd), "kernel_us": micros(r.Kernel),
		"iterations": strconv.Itoa(len(r.Iterations)), "launches": strconv.Itoa(r.Launches),
	} {
		v[key] = x
	}
	if r.Total.Cycles > 0 {
		v["cycles"] = strconv.FormatUint(r.Total.Cycles, 10)
	}
	for _, c := range []string{"bank_conflicts", "shared_atomics", "global_atomics", "warp_execution_efficiency"} {
		if x, ok := r.Total.Counters[c]; ok {
			v[c] = formatFloat(x)
		}
	}
	for _, f := range r.Summary {
		switch f.Key {
		case "single_cta_levels", "w_overflows", "b_overflows":
			if f.Number != nil {
				v[f.Key] = formatFloat(*f.Number)
			}
		}
	}
	v["counters"] = countersCell(r.Total.Counters)
	return Outcome{Values: v, Valid: r.Validation.OK(), Validation: r.Validation.String()}, nil
}

// hqLabel names a row's configuration for findings.
func hqLabel(r Row) string {
	switch r["queue"] {
	case "wbg":
		return fmt.Sprintf("w+b+g %s W=%s", r["layout"], r["w"])
	case "bg":
		return "b+g"
	}
	return "g-only"
}

func hqFindings(rows []Row) []string {
	var out []string
	ok := okRows(rows)
	out = append(out, fmt.Sprintf("%d of %d points ran and matched the CPU reference.", len(ok), len(rows)))
	groups := map[string][]Row{}
	var order []string
	for _, r := range ok {
		k := where(r) + ", " + r["graph"]
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		rs := groups[k]
		find := func(queue, layout, w, local string) (Row, bool) {
			for _, r := range rs {
				if r["queue"] == queue && r["layout"] == layout && r["w"] == w && r["local"] == local {
					return r, true
				}
			}
			return nil, false
		}
		// The three queue kinds with one launch per level.
		var parts []string
		for _, c := range [][4]string{{"g", "-", "-", "off"}, {"bg", "-", "-", "off"}, {"wbg", "interleaved", "8", "off"}, {"wbg", "naive", "8", "off"}} {
			if r, found := find(c[0], c[1], c[2], c[3]); found {
				parts = append(parts, fmt.Sprintf("%s %s µs", hqLabel(r), r["kernel_us"]))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("**%s**, one launch per level, kernel time: %s.", k, strings.Join(parts, ", ")))
		}
		// Fastest configuration with one launch per level.
		var best Row
		for _, r := range rs {
			if r["local"] != "off" {
				continue
			}
			t, okT := r.Float("kernel_us")
			b, okB := best.Float("kernel_us")
			if okT && (best == nil || !okB || t < b) {
				best = r
			}
		}
		if best != nil {
			out = append(out, fmt.Sprintf("**%s**: fastest with one launch per level: %s (%s µs).", k, hqLabel(best), best["kernel_us"]))
		}
		// Layouts: bank conflicts where W is a power of two.
		fewer, total := 0, 0
		var detail []string
		for _, w := range []int{2, 4, 8, 16, 32} {
			n, okN := find("wbg", "naive", strconv.Itoa(w), "off")
			i, okI := find("wbg", "interleaved", strconv.Itoa(w), "off")
			if !okN || !okI || n["bank_conflicts"] == "" || i["bank_conflicts"] == "" {
				continue
			}
			nc, _ := n.Float("bank_conflicts")
			ic, _ := i.Float("bank_conflicts")
			total++
			if ic < nc {
				fewer++
			}
			detail = append(detail, fmt.Sprintf("W=%d %s vs %s", w, n["bank_conflicts"], i["bank_conflicts"]))
		}
		if total > 0 {
			out = append(out, fmt.Sprintf("**%s**: the interleaved layout counted fewer bank conflicts than the naive one at %d of %d power-of-two W>1 (naive vs interleaved: %s).",
				k, fewer, total, strings.Join(detail, "; ")))
		}
		// The single-CTA arrangement.
		if off, found := find("wbg", "interleaved", "8", "off"); found {
			parts := []string{fmt.Sprintf("%s µs with one launch per level (%s launches)", off["end_to_end_us"], off["launches"])}
			for _, local := range []string{"cta", "round"} {
				if r, found := find("wbg", "interleaved", "8", local); found {
					parts = append(parts, fmt.Sprintf("%s µs with local=%s (%s launches, %s of %s levels in one CTA)",
						r["end_to_end_us"], local, r["launches"], r["single_cta_levels"], r["iterations"]))
				}
			}
			out = append(out, fmt.Sprintf("**%s**: w+b+g interleaved W=8 end to end: %s.", k, strings.Join(parts, "; ")))
		}
	}
	return out
}

func plotHQ(rows []Row, dir string) ([]string, error) {
	rows = okRows(rows)
	var wbg []Row
	for _, r := range rows {
		if r["queue"] == "wbg" && r["local"] == "off" {
			wbg = append(wbg, r)
		}
	}
	label := func(r Row) string { return where(r) + ", " + r["graph"] + ", " + r["layout"] }
	style := func(ss []series) []series {
		for i := range ss {
			ss[i].dashed = strings.HasSuffix(ss[i].label, ", naive")
			ss[i].group = strings.TrimSuffix(strings.TrimSuffix(ss[i].label, ", naive"), ", interleaved")
		}
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].label < ss[j].label })
		return ss
	}
	ticks := []float64{1, 2, 4, 8, 16, 32}
	var files []string
	conflicts := style(groupSeries(wbg, label, "w", "bank_conflicts"))
	if len(conflicts) > 0 {
		f, err := lineFigure{title: "w+b+g queues: bank conflicts by W (dashed: naive layout)", xLabel: "w-queues W",
			yLabel: "bank conflicts (extra passes)", logX: true, logY: true, xTicks: ticks, series: conflicts}.save(dir, "hq-conflicts")
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	times := style(groupSeries(wbg, label, "w", "kernel_us"))
	f, err := lineFigure{title: "w+b+g queues: kernel time by W (dashed: naive layout)", xLabel: "w-queues W",
		yLabel: "kernel time (µs)", logX: true, logY: true, xTicks: ticks, series: times}.save(dir, "hq-time")
	if err != nil {
		return nil, err
	}
	return append(files, f...), nil
}
