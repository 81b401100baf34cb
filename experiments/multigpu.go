package experiments

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

func init() { Default.Register(multiGPUExperiment()) }

// multiGPUCounts are the system sizes swept, up to what the configuration
// (or the host) has.
var multiGPUCounts = []int{1, 2, 4, 8}

var multiGPUMethods = []string{scheduler.ExchangeAll, scheduler.ExchangeMaximalSubset, scheduler.ExchangeRefineOffline, scheduler.ExchangeRefineOnline, scheduler.ExchangeRefinePut, multiGPUAtos}

// multiGPUAtos is the method that is not an exchange: Atos's persistent
// warp workers across the GPUs (atos:worker=warp), with its own one-GPU
// point (the same workers on a system of one) as its baseline.
const multiGPUAtos = "atos"

// multiGPUFamily is what a method's speedup is over: the one-GPU point of
// mgpu (vr-online) or of atos.
func multiGPUFamily(method string) string {
	if method == multiGPUAtos {
		return multiGPUAtos
	}
	return "mgpu"
}

func multiGPUExperiment() *Experiment {
	return &Experiment{
		Name: "multigpu",
		About: "Multi-GPU bulk-synchronous pull (vertex refinement, the warp-segmentation source's second half): BFS, WCC, " +
			"PageRank, SSSP and SSWP on 1, 2, 4 and 8 GPUs with the source's four exchange methods (all, ms, vr-offline, vr-online), one-sided puts (vr-put) and Atos's asynchronous workers across the GPUs (atos): " +
			"speedup over one GPU, communication efficiency, bytes per link, time in exchange.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100-x8-nvlink", "gtx780ti-x4-pcie"},
		Axes: []Axis{
			{Name: "graph", About: "rmat or grid; the specs are the rmat_spec and grid_spec parameters", Values: []string{"rmat", "grid"}},
			{Name: "algorithm", About: "registered algorithm with a partitioned form", Values: wsegAlgorithms},
			{Name: "gpus", About: "devices the graph is partitioned over", Values: []string{"1", "2", "4", "8"}},
			{Name: "method", About: "exchange method, or atos (one GPU exchanges nothing: its points run vr-online and atos)", Values: multiGPUMethods},
		},
		Points: multiGPUPoints,
		Params: append([]Param{
			{Name: "rmat_spec", About: "the scale-free graph: a spec or a .wgc file", Default: byTarget("rmat:scale=22+perm=1", "rmat:scale=18+perm=1")},
			{Name: "grid_spec", About: "the mesh: a spec or a .wgc file", Default: byTarget("grid:w=2000,h=2000", "grid:w=512,h=512")},
			{Name: "source", About: "source vertex of BFS, SSSP and SSWP, max (the vertex of maximum out-degree) or auto (vertex 0 where it has out-edges, else max: vertex 0 of rmat:scale=12 and 18+perm=1 is isolated)", Default: byTarget("auto", "auto")},
			{Name: "partition", About: "how the vertices are split: range or hash", Default: byTarget(graph.PartitionRange, graph.PartitionRange)},
			{Name: "mapping", About: "each device's sweep: wseg or vwc8", Default: byTarget("wseg", "wseg")},
		}, wholeRunParams("threads per CTA", "2", "10")...),
		Stats: []Stat{
			{"spec", "", "the graph's full spec"},
			{"vertices", "", "vertices of the input graph"},
			{"source_vertex", "", "the traversal's source vertex (the source parameter resolved)"},
			{"edges", "", "edges of the input graph"},
			{"link", "", "the interconnect"},
			{"iterations", "", "sweeps of the last run"},
			{"end_to_end_us", "µs", "median end-to-end time (simulated on the simulator): sweeps, exchanges, every launch and read-back"},
			{"kernel_us", "µs", "median sum of every device's launches' times"},
			{"compute_us", "µs", "the last run's time in sweeps (each the slowest device's), read-backs included"},
			{"exchange_us", "µs", "the last run's time in exchanges: packing, peer copies, applying"},
			{"exchange_share", "", "exchange ÷ (compute + exchange)"},
			{"values_transferred", "", "values sent between devices"},
			{"useful_updates", "", "sent values that changed a copy the receiver reads"},
			{"communication_efficiency", "", "useful updates ÷ values transferred"},
			{"efficiency_per_iteration", "", "communication efficiency of each exchange, space-separated"},
			{"bytes_moved", "bytes", "bytes sent between devices"},
			{"bytes_busiest_link_max", "bytes", "the most one pair of devices carried in one exchange"},
		},
		Run:      runMultiGPUPoint,
		Table:    []string{"config", "graph", "algorithm", "gpus", "method", "iterations", "end_to_end_us", "exchange_share", "communication_efficiency", "bytes_moved", "status"},
		Plot:     plotMultiGPU,
		Findings: multiGPUFindings,
		Notes: []string{
			"scheduler mgpu: each GPU holds the in-edges of the vertices it owns and every vertex's value; an iteration is a pull sweep on every GPU at once (warp segmentation), then an exchange of the values other GPUs read, the sender packing them, a peer copy, the receiver storing them.",
			"all sends every vertex's value to every other GPU (Medusa), ms every boundary value (Totem's maximal subset), vr-offline the boundary values the sweep changed (found by a pass over the boundary lists), vr-online the same values listed by the sweep itself (a ballot and one atomicAdd per warp into each receiver's outbox), vr-put vr-offline's values stored by the senders' kernels straight into the receivers' inboxes across the link (co-launches, no copies).",
			"atos runs Atos's persistent warp workers on every GPU at once (atos:worker=warp, one co-launch): a worker applies an edge's update on the destination's owner, across the link when remote, and pushes improved vertices into their owners' queues; no host step, no exchange (bytes_moved is what the link carried, on the simulator); its speedups are over its own one-GPU point, the same workers on a system of one GPU (faster on hubs than the one-device workers of a plain --gpus 1 run, whose lanes each walk their own task's edges: results/multigpu-atos).",
			"A transferred value is useful when it changes a copy its receiver reads; vertex refinement sends only those (efficiency 1 for BFS, SSSP, SSWP and WCC; PageRank sends the ranks that changed by more than the tolerance).",
			"On the simulator each GPU is the configuration's whole GPU and the link is modelled (sim/configs/README.md, system:); a sweep costs its slowest GPU's time.",
			"Every point is validated against graph/ref; speedups are over the same graph and algorithm on one GPU of the same machine.",
		},
	}
}

// multiGPUPoints lists the points: every graph, algorithm and GPU count up
// to the simulated system's (every count on hardware: a host with fewer
// GPUs keeps its own with --points 'gpus=1|2|4'), each method on several
// GPUs and one point on one GPU (nothing is exchanged there, so the
// methods would repeat it).
func multiGPUPoints(target, config string) [][]string {
	most := multiGPUCounts[len(multiGPUCounts)-1]
	if target == TargetSim {
		if cfg, err := sim.ConfigByName(config); err == nil {
			most = cfg.System.MaxGPUs()
		}
	}
	var out [][]string
	for _, g := range []string{"rmat", "grid"} {
		for _, a := range wsegAlgorithms {
			for _, n := range multiGPUCounts {
				if n > most {
					continue
				}
				methods := multiGPUMethods
				if n == 1 {
					methods = []string{scheduler.ExchangeRefineOnline, multiGPUAtos}
				}
				for _, m := range methods {
					out = append(out, []string{g, a, strconv.Itoa(n), m})
				}
			}
		}
	}
	return out
}

func runMultiGPUPoint(ctx context.Context, env *Env, p Point) (Outcome, error) {
	spec, err := specParam("multigpu", p)
	if err != nil {
		return Outcome{}, err
	}
	gpus, err := p.Int("gpus")
	if err != nil {
		return Outcome{}, err
	}
	a, ro, g, v, err := wholeRunSetup(p, spec)
	if err != nil {
		return Outcome{}, err
	}
	spelled := fmt.Sprintf("mgpu:exchange=%s,mapping=%s", p.Get("method"), p.Get("mapping"))
	if p.Get("method") == multiGPUAtos {
		spelled = "atos:worker=warp"
	}
	variant, err := scheduler.ParseVariant(spelled)
	if err != nil {
		return Outcome{}, err
	}
	params := scheduler.Params{}
	if a.UsesSource() {
		source, err := sourceParam("multigpu", "source", p, g)
		if err != nil {
			return Outcome{}, err
		}
		params[scheduler.SourceParam] = source
		v["source_vertex"] = strconv.FormatUint(uint64(source), 10)
	}
	sys, err := env.System(gpus)
	if err != nil {
		return Outcome{}, err
	}
	ro.System, ro.Partition = sys, p.Get("partition")
	r, err := scheduler.Enact(ctx, sys.Devices()[0], a, variant, g, a.Select(params), ro)
	if err != nil {
		return Outcome{}, err
	}
	v["link"] = sys.Link()
	v["iterations"] = strconv.Itoa(len(r.Iterations))
	v["end_to_end_us"], v["kernel_us"] = micros(r.EndToEnd), micros(r.Kernel)
	var compute, exchange, busiest float64
	var per []string
	for _, it := range r.Iterations {
		compute += it.Statistics["compute_ns"]
		exchange += it.Statistics["exchange_ns"]
		busiest = math.Max(busiest, it.Statistics["bytes_busiest_link"])
		if eff, ok := it.Statistics["communication_efficiency"]; ok {
			per = append(per, strconv.FormatFloat(eff, 'f', 4, 64))
		}
	}
	if gpus > 1 {
		v["compute_us"] = strconv.FormatFloat(compute/1e3, 'f', 3, 64)
		v["exchange_us"] = strconv.FormatFloat(exchange/1e3, 'f', 3, 64)
		v["bytes_busiest_link_max"] = formatFloat(busiest)
		v["efficiency_per_iteration"] = strings.Join(per, " ")
		for _, f := range r.Summary {
			switch f.Key {
			case "values_transferred", "useful_updates", "communication_efficiency", "exchange_share":
				if f.Number != nil {
					v[f.Key] = formatFloat(*f.Number)
				}
			}
		}
		v["bytes_moved"] = strconv.FormatUint(uint64(sumStat(r.Iterations, "bytes_moved")+sumStat(r.Iterations, "link_bytes")), 10)
	}
	return Outcome{Values: v, Valid: r.Validation.OK(), Validation: r.Validation.String()}, nil
}

func sumStat(its []scheduler.IterationStats, key string) float64 {
	total := 0.0
	for _, it := range its {
		total += it.Statistics[key]
	}
	return total
}

// multiGPUMachine names a row's machine without its GPU count (rows of
// one host name their system, "4 × NVIDIA H200", by the GPUs they used).
func multiGPUMachine(r Row) string {
	w := where(r)
	if _, rest, ok := strings.Cut(w, " × "); ok && r["target"] == TargetHW {
		return rest
	}
	return w
}

// multiGPUSpeedups adds speedup (one GPU's end-to-end time over the
// row's) to every valid row of a machine, graph, algorithm and method
// family (multiGPUFamily) that has its one-GPU point.
func multiGPUSpeedups(rows []Row) []Row {
	base := map[string]float64{}
	cell := func(r Row) string {
		return multiGPUMachine(r) + "|" + r["graph"] + "|" + r["algorithm"] + "|" + multiGPUFamily(r["method"])
	}
	for _, r := range rows {
		if t, ok := r.Float("end_to_end_us"); ok && r["gpus"] == "1" && r["status"] == "ok" && t > 0 {
			base[cell(r)] = t
		}
	}
	var out []Row
	for _, r := range rows {
		t, ok := r.Float("end_to_end_us")
		b, has := base[cell(r)]
		if !ok || !has || t <= 0 || r["status"] != "ok" {
			continue
		}
		c := Row{}
		for k, x := range r {
			c[k] = x
		}
		c["speedup"] = formatFloat(b / t)
		out = append(out, c)
	}
	return out
}

func plotMultiGPU(rows []Row, dir string) ([]string, error) {
	sped := multiGPUSpeedups(rows)
	var files []string
	machines := map[string]bool{}
	for _, r := range sped {
		machines[multiGPUMachine(r)] = true
	}
	var names []string
	for m := range machines {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		for _, gname := range []string{"rmat", "grid"} {
			var sel []Row
			for _, r := range sped {
				if multiGPUMachine(r) == m && r["graph"] == gname {
					sel = append(sel, r)
				}
			}
			if len(sel) < 2 {
				continue // no point on several GPUs: nothing to draw
			}
			// A one-GPU point belongs to every line of its family.
			var lines []Row
			for _, r := range sel {
				if r["gpus"] != "1" || r["method"] == multiGPUAtos {
					lines = append(lines, r)
					continue
				}
				for _, meth := range multiGPUMethods {
					if multiGPUFamily(meth) != multiGPUFamily(r["method"]) {
						continue
					}
					c := Row{}
					for k, x := range r {
						c[k] = x
					}
					c["method"] = meth
					lines = append(lines, c)
				}
			}
			fig := lineFigure{title: fmt.Sprintf("%s, %s: speedup over one GPU", m, gname), xLabel: "GPUs", yLabel: "speedup",
				logX: true, xTicks: []float64{1, 2, 4, 8}, refY: 1,
				series: groupSeries(lines, func(r Row) string { return r["algorithm"] + " " + r["method"] }, "gpus", "speedup")}
			f, err := fig.save(dir, fileSafe("multigpu-speedup-"+m+"-"+gname))
			if err != nil {
				return files, err
			}
			files = append(files, f...)
			eff := lineFigure{title: fmt.Sprintf("%s, %s: communication efficiency", m, gname), xLabel: "GPUs", yLabel: "useful ÷ transferred",
				logX: true, xTicks: []float64{2, 4, 8},
				series: groupSeries(sel, func(r Row) string { return r["algorithm"] + " " + r["method"] }, "gpus", "communication_efficiency")}
			f, err = eff.save(dir, fileSafe("multigpu-efficiency-"+m+"-"+gname))
			if err != nil {
				return files, err
			}
			files = append(files, f...)
		}
	}
	return files, nil
}

// fileSafe keeps letters, digits, dots and dashes of a file name.
func fileSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteRune('-')
		}
	}
	return b.String()
}

// multiGPUFindings states, per machine, each method's median communication
// efficiency, the fastest method of each graph and algorithm on the most
// GPUs with its speedup, and which method was fastest how often.
func multiGPUFindings(rows []Row) []string {
	sped := multiGPUSpeedups(rows)
	type key struct{ machine, method string }
	effs := map[key][]float64{}
	most := map[string]int{}
	for _, r := range sped {
		n, _ := strconv.Atoi(r["gpus"])
		most[multiGPUMachine(r)] = max(most[multiGPUMachine(r)], n)
		if e, ok := r.Float("communication_efficiency"); ok {
			k := key{multiGPUMachine(r), r["method"]}
			effs[k] = append(effs[k], e)
		}
	}
	var out []string
	var machines []string
	for m := range most {
		machines = append(machines, m)
	}
	sort.Strings(machines)
	for _, m := range machines {
		var parts []string
		for _, meth := range multiGPUMethods {
			if e := effs[key{m, meth}]; len(e) > 0 {
				sort.Float64s(e)
				parts = append(parts, fmt.Sprintf("%s %.1f%%", meth, 100*median(e)))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("%s: median communication efficiency %s.", m, strings.Join(parts, ", ")))
		}
		// The fastest method of each graph and algorithm on the most GPUs.
		wins := map[string]int{}
		best := map[string]Row{}
		for _, r := range sped {
			if multiGPUMachine(r) != m || r["gpus"] != strconv.Itoa(most[m]) || most[m] == 1 {
				continue
			}
			// By time: atos's speedups are over its own one-GPU point.
			c := r["graph"] + " " + r["algorithm"]
			if b, ok := best[c]; !ok || num(r, "end_to_end_us") < num(b, "end_to_end_us") {
				best[c] = r
			}
		}
		var cells []string
		for c, r := range best {
			wins[r["method"]]++
			cells = append(cells, fmt.Sprintf("%s %.2f× (%s)", c, num(r, "speedup"), r["method"]))
		}
		sort.Strings(cells)
		if len(cells) > 0 {
			var w []string
			for _, meth := range multiGPUMethods {
				if wins[meth] > 0 {
					w = append(w, fmt.Sprintf("%s %d", meth, wins[meth]))
				}
			}
			out = append(out, fmt.Sprintf("%s, %d GPUs: the fastest method per graph and algorithm, with its speedup over one GPU (atos over its own one-GPU workers, the exchanges over vr-online's one-GPU sweep): %s; fastest method: %s.",
				m, most[m], strings.Join(cells, ", "), strings.Join(w, ", ")))
		}
	}
	return out
}

func num(r Row, k string) float64 {
	x, _ := r.Float(k)
	return x
}
