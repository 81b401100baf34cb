package experiments

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { Default.Register(wsegExperiment()) }

// wsegVariants are the pull mappings compared: warp segmentation and
// virtual warps of every size the source measures.
var wsegVariants = []string{"wseg", "vwc:k=2", "vwc:k=4", "vwc:k=8", "vwc:k=16", "vwc:k=32"}

// wsegAlgorithms are the source's programs (its CC is our WCC).
var wsegAlgorithms = []string{"bfs", "wcc", "pr", "sssp", "sswp"}

func wsegExperiment() *Experiment {
	return &Experiment{
		Name: "wseg",
		About: "Warp segmentation vs virtual-warp-centric mapping (CuSha authors): BFS, WCC, PageRank, SSSP and SSWP as " +
			"pull sweeps over in-edges under scheduler wseg and vwc:k=2…32, on a scale-free and a grid graph: warp " +
			"execution efficiency (simulator) and time.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "graph", About: "rmat or grid; the specs are the rmat_spec and grid_spec parameters", Values: []string{"rmat", "grid"}},
			{Name: "algorithm", About: "registered algorithm", Values: wsegAlgorithms},
			{Name: "variant", About: "pull mapping", Values: wsegVariants},
		},
		Params: append([]Param{
			{Name: "rmat_spec", About: "the scale-free graph", Default: byTarget("rmat:scale=20+perm=1", "rmat:scale=16+perm=1")},
			{Name: "grid_spec", About: "the grid graph", Default: byTarget("grid:w=1000,h=1000", "grid:w=256,h=256")},
			{Name: "source", About: "source vertex of BFS, SSSP and SSWP, or max: the vertex of maximum out-degree (vertex 0 of rmat:scale=16+perm=1 is isolated)", Default: byTarget("0", "max")},
		}, wholeRunParams("threads per CTA", "1", "5")...),
		Stats: []Stat{
			{"spec", "", "the graph's full spec"},
			{"vertices", "", "vertices of the input graph"},
			{"edges", "", "edges of the input graph"},
			{"source_vertex", "", "the source vertex used (BFS, SSSP and SSWP; the others ignore it)"},
			{"sweeps", "", "pull sweeps (iterations) of the last run"},
			{"end_to_end_us", "µs", "median end-to-end time as scheduler.Enact reports it (simulated time on the simulator)"},
			{"kernel_us", "µs", "median sum of the sweeps' device times (0 in functional simulation)"},
			{"cycles", "cycles", "simulated cycles of the last run (timing simulation only)"},
			{"warp_execution_efficiency", "", "active lanes per warp-instruction ÷ 32 over every sweep (simulator only)"},
			{"efficiency_per_sweep", "", "warp execution efficiency of each sweep, space-separated (simulator only)"},
			{"warp_instructions", "", "simulated warp-instructions"},
			{"thread_instructions", "", "simulated thread-instructions"},
			{"summary", "", "the algorithm's own summary, name=value;..."},
		},
		Run:      runWsegPoint,
		Table:    []string{"config", "graph", "algorithm", "variant", "sweeps", "warp_execution_efficiency", "warp_instructions", "kernel_us", "status"},
		Plot:     plotWseg,
		Findings: wsegFindings,
		Notes: []string{
			"Every point runs scheduler.Enact and is validated against graph/ref; a sweep is one launch over every vertex, repeated until no vertex stays active.",
			"Warp execution efficiency is exact on the simulator in both modes (thread-instructions ÷ (32 × warp-instructions), whole kernels: search, reduction and bookkeeping included); hardware rows leave it empty: the CUDA driver API has no instruction counters (a profiler such as Nsight Compute would be needed).",
			"PageRank, SSSP, SSWP and WCC update in place (Gauss-Seidel), so the number of sweeps depends on the order in which warps run, which differs between mappings and grids (WCC on the grid: 8 sweeps under vwc:k=32, 256 under wseg in functional simulation); the findings therefore compare warp-instructions per sweep.",
			"Times on the simulator are simulated time (timing mode only; functional mode counts instructions but has no clock); on hardware the median of `repeat` runs after `warmup`.",
			"Warp segmentation launches one thread per vertex (a warp per 32 vertices), VWC-k k threads per vertex: on small graphs wseg's grid cannot fill a large GPU (rmat scale 16: 65,536 threads for the H100's 270,336 slots), which the simulated times include.",
			"The source's speedups (1.2–2.9× over the best VWC) were measured on a GTX 780 with push-style CuSha kernels; ours are pull sweeps of the ACC algorithms.",
		},
	}
}

func runWsegPoint(ctx context.Context, env *Env, p Point) (Outcome, error) {
	c, source, err := startSpecCell("wseg", "source", p)
	if err != nil {
		return Outcome{}, err
	}
	a, variant, ro, g, v := c.alg, c.variant, c.ro, c.g, c.values
	dev, err := env.Device()
	if err != nil {
		return Outcome{}, err
	}
	r, err := scheduler.Enact(ctx, dev, a, variant, g, a.Select(scheduler.Params{scheduler.SourceParam: source}), ro)
	if err != nil {
		return Outcome{}, err
	}
	for key, x := range map[string]string{
		"source_vertex": strconv.FormatUint(uint64(source), 10), "sweeps": strconv.Itoa(len(r.Iterations)), "end_to_end_us": micros(r.EndToEnd), "kernel_us": micros(r.Kernel),
	} {
		v[key] = x
	}
	if r.Total.Cycles > 0 {
		v["cycles"] = strconv.FormatUint(r.Total.Cycles, 10)
	}
	if eff, ok := scheduler.WarpExecutionEfficiency(r.Total); ok {
		v["warp_execution_efficiency"] = formatFloat(eff)
		per := make([]string, len(r.Iterations))
		for i, it := range r.Iterations {
			per[i] = strconv.FormatFloat(it.Statistics["warp_execution_efficiency"], 'f', 4, 64)
		}
		v["efficiency_per_sweep"] = strings.Join(per, " ")
	}
	for _, c := range []string{"warp_instructions", "thread_instructions"} {
		if x, ok := r.Total.Counters[c]; ok {
			v[c] = formatFloat(x)
		}
	}
	sum := make([]string, len(r.Summary))
	for i, f := range r.Summary {
		sum[i] = f.Name + "=" + f.Value
	}
	v["summary"] = strings.Join(sum, ";")
	return Outcome{Values: v, Valid: r.Validation.OK(), Validation: r.Validation.String()}, nil
}

// wsegCell groups the rows of one machine, graph and algorithm.
type wsegCell struct {
	label string
	rows  []Row
}

func wsegCells(rows []Row) []wsegCell {
	var out []wsegCell
	at := map[string]int{}
	for _, r := range okRows(rows) {
		k := where(r) + ", " + r["graph"] + ", " + r["algorithm"]
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, wsegCell{label: k})
		}
		out[i].rows = append(out[i].rows, r)
	}
	return out
}

// bestVWC is the VWC row with the best value of col (largest when high,
// smallest otherwise), and the warp segmentation row.
func bestVWC(rs []Row, col string, high bool) (best, wseg Row, ok bool) {
	bestV := math.NaN()
	for _, r := range rs {
		x, has := r.Float(col)
		if !has || !high && x <= 0 {
			continue
		}
		if r["variant"] == "wseg" {
			wseg = r
			continue
		}
		if math.IsNaN(bestV) || high && x > bestV || !high && x < bestV {
			bestV, best = x, r
		}
	}
	return best, wseg, best != nil && wseg != nil
}

func wsegFindings(rows []Row) []string {
	var out []string
	var speedups []float64
	for _, c := range wsegCells(rows) {
		// The best VWC is only known once every k ran.
		if len(c.rows) < len(wsegVariants) {
			out = append(out, fmt.Sprintf("**%s**: incomplete (%d of %d variants ran), not compared.", c.label, len(c.rows), len(wsegVariants)))
			continue
		}
		var parts []string
		if best, ws, ok := bestVWC(c.rows, "warp_execution_efficiency", true); ok {
			parts = append(parts, fmt.Sprintf("warp execution efficiency %s under wseg vs %s under the best VWC (%s)",
				percent(ws, "warp_execution_efficiency"), percent(best, "warp_execution_efficiency"), best["variant"]))
		}
		// In-place sweeps converge in as many sweeps as the order of
		// updates allows, which differs between mappings: the instruction
		// cost of a mapping is per sweep.
		perSweep := make([]Row, len(c.rows))
		for i, r := range c.rows {
			perSweep[i] = Row{"variant": r["variant"]}
			warps, ok1 := r.Float("warp_instructions")
			sweeps, ok2 := r.Float("sweeps")
			if ok1 && ok2 && sweeps > 0 {
				perSweep[i]["per_sweep"] = formatFloat(warps / sweeps)
			}
		}
		if best, ws, ok := bestVWC(perSweep, "per_sweep", false); ok {
			b, _ := best.Float("per_sweep")
			w, _ := ws.Float("per_sweep")
			parts = append(parts, fmt.Sprintf("%.3g warp-instructions per sweep under wseg vs %.3g under the leanest VWC (%s): %.2f× as many",
				w, b, best["variant"], w/b))
		}
		if best, ws, ok := bestVWC(c.rows, "kernel_us", false); ok {
			b, _ := best.Float("kernel_us")
			w, _ := ws.Float("kernel_us")
			speedups = append(speedups, b/w)
			parts = append(parts, fmt.Sprintf("kernel time %s µs under wseg vs %s µs under the fastest VWC (%s): %.2f× ",
				ws["kernel_us"], best["kernel_us"], best["variant"], b/w)+speedWord(b/w))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("**%s**: %s.", c.label, strings.Join(parts, "; ")))
		}
	}
	if len(speedups) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range speedups {
			lo, hi = math.Min(lo, s), math.Max(hi, s)
		}
		out = append(out, fmt.Sprintf("Over all cells wseg's speedup over the fastest VWC ranges %.2f–%.2f× (the source reports 1.2–2.9×).", lo, hi))
	}
	if n := len(rows) - len(okRows(rows)); n > 0 {
		out = append(out, fmt.Sprintf("%d points failed or did not validate (listed below).", n))
	}
	return out
}

func percent(r Row, col string) string {
	x, _ := r.Float(col)
	return fmt.Sprintf("%.1f%%", 100*x)
}

func speedWord(s float64) string {
	if s >= 1 {
		return "(wseg faster)"
	}
	return "(VWC faster)"
}

// plotWseg draws warp execution efficiency, and kernel time where the
// rows have it, one row per (graph, algorithm), one marker per variant.
func plotWseg(rows []Row, dir string) ([]string, error) {
	var files []string
	for _, m := range []struct {
		col, title, xLabel, name string
		logX                     bool
	}{
		{"warp_execution_efficiency", "Warp execution efficiency", "active lanes per warp-instruction ÷ 32", "wseg-efficiency", false},
		{"kernel_us", "Kernel time", "kernel time (µs)", "wseg-time", true},
	} {
		cells := wsegCells(rows)
		fig := dotFigure{title: m.title, xLabel: m.xLabel, logX: m.logX}
		for _, variant := range wsegVariants {
			fig.groups = append(fig.groups, dotGroup{label: variant, values: make([]float64, len(cells))})
		}
		drawn := false
		for j, c := range cells {
			fig.categories = append(fig.categories, c.label)
			for i := range fig.groups {
				fig.groups[i].values[j] = math.NaN()
			}
			for _, r := range c.rows {
				x, ok := r.Float(m.col)
				if !ok || m.logX && x <= 0 {
					continue
				}
				for i, variant := range wsegVariants {
					if r["variant"] == variant {
						fig.groups[i].values[j] = x
						drawn = true
					}
				}
			}
		}
		if !drawn {
			continue
		}
		written, err := fig.save(dir, m.name)
		if err != nil {
			return nil, err
		}
		files = append(files, written...)
	}
	return files, nil
}
