package experiments

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

func init() { Default.Register(archSweepExperiment()) }

// archSMs are the SM counts of the sweep: the H100's 132 and about a
// half, a quarter and an eighth of it.
var archSMs = []int{16, 33, 66, 132}

// archMemories are the memory systems each SM count is combined with, as
// inline overrides of the h100 (sim/configs_override.go): its own, a
// quarter and four times its L2 slices (each slice has an atomic unit and a
// DRAM channel, so atomic and L2 bandwidth scale with them), and a quarter
// and four times the atomic units' throughput (operations per cycle per
// slice and the per-address hold together, so a single hot address slows
// or speeds up too), derived from the shipped h100's values so that they
// follow its fit.
var archMemories = func() []string {
	cfg, err := sim.ConfigByName("h100")
	if err != nil {
		panic("experiments: the embedded h100 configuration does not load: " + err.Error())
	}
	ops, hold, line := cfg.Memory.AtomicOpsPerCycle, cfg.Memory.AtomicSameAddressCycles, cfg.Memory.AtomicSameLineCycles
	atomics := func(opsBy, holdBy float64) string {
		return "+memory.atomic_ops_per_cycle=" + formatFloat(ops*opsBy) + "+memory.atomic_same_address_cycles=" + formatFloat(hold*holdBy) +
			"+memory.atomic_same_line_cycles=" + formatFloat(line*holdBy)
	}
	return []string{"", "+memory.l2_slices=20", "+memory.l2_slices=320", atomics(0.25, 4), atomics(4, 0.25)}
}()

// archConfigs are the machines: every memory system with every SM count.
func archConfigs() []string {
	var out []string
	for _, m := range archMemories {
		for _, n := range archSMs {
			out = append(out, fmt.Sprintf("h100+sms=%d%s", n, m))
		}
	}
	return out
}

// archVariants are the schedulers that compete: level-synchronous BSP,
// SIMD-X host-driven and fused into one persistent kernel, and Atos's
// persistent and per-generation task queue.
var archVariants = []string{"bsp", "simdx", "simdx:fusion=all", "atos", "atos:mode=discrete"}

func archSweepExperiment() *Experiment {
	return &Experiment{
		Name: "arch-sweep",
		About: "An architecture-research example: BFS under five competing schedulers (bsp, SIMD-X host-driven and " +
			"fused, Atos persistent and discrete) on h100 variants with 16, 33, 66 and 132 SMs, each with the h100's " +
			"memory system, a quarter or four times its L2 slices, and a quarter or four times its atomic throughput " +
			"(inline configuration overrides such as h100+sms=16+memory.l2_slices=20): which scheduler wins on which machine.",
		Targets: []string{TargetSim},
		Configs: archConfigs(),
		Axes: []Axis{
			{Name: "graph", About: "rmat or grid; the specs are the rmat_spec and grid_spec parameters", Values: []string{"rmat", "grid"}},
			{Name: "variant", About: "scheduler variant", Values: archVariants},
		},
		Params: append([]Param{
			{Name: "algorithm", About: "the registered algorithm every point runs", Default: byTarget("bfs", "bfs")},
			{Name: "rmat_spec", About: "the scale-free graph", Default: byTarget("rmat:scale=14+perm=1", "rmat:scale=14+perm=1")},
			{Name: "grid_spec", About: "the mesh", Default: byTarget("grid:w=32,h=32", "grid:w=32,h=32")},
			{Name: "source", About: "source vertex, or max: the vertex of maximum out-degree", Default: byTarget("max", "max")},
			{Name: "ctas_per_sm", About: "the grid of grid-stride and persistent phases is this many CTAs per SM of the machine (0: as many as can be co-resident, each scheduler's default)", Default: byTarget("1", "1")},
		}, wholeRunParams("threads per CTA", "1", "5")...),
		Stats: []Stat{
			{"spec", "", "the graph's full spec"},
			{"vertices", "", "vertices of the input graph"},
			{"edges", "", "edges of the input graph"},
			{"source_vertex", "", "the source vertex used"},
			{"sms", "", "SMs of the machine"},
			{"l2_slices", "", "L2 slices of the machine (each with an atomic unit and a DRAM channel)"},
			{"atomic_ops_per_cycle", "ops/cycle", "lane operations one slice's atomic unit starts per cycle"},
			{"atomic_same_address_cycles", "cycles", "cycles an atomic holds its address"},
			{"atomic_same_line_cycles", "cycles", "cycles an atomic holds its address after a request on the same line (0: no distinction)"},
			{"grid", "CTAs", "the grid of grid-stride and persistent phases (0: each scheduler's default)"},
			{"end_to_end_us", "µs", "simulated end-to-end time: kernels, launches, copies and host decisions (simulated host clock)"},
			{"kernel_us", "µs", "simulated device time of the launches"},
			{"cycles", "cycles", "simulated cycles of the launches"},
			{"iterations", "", "iterations (levels, generations or persistent launches) the scheduler reports"},
			{"launches", "", "kernel launches"},
			{"global_atomics", "", "simulated global atomic lane operations"},
			{"max_same_address_serialization_global", "operations", "the most atomics one L2 atomic unit queued on one address"},
			{"l2_hit_rate", "", "simulated L2 hit rate"},
			{"warp_execution_efficiency", "", "simulated active lanes per warp-instruction ÷ 32"},
			{"achieved_occupancy", "", "simulated resident warps ÷ warp slots, over the launches"},
			{"counters", "", "every counter of the run, name=value;..."},
		},
		Run: runArchSweep,
		Table: []string{"config", "graph", "variant", "kernel_us", "end_to_end_us", "launches", "global_atomics",
			"max_same_address_serialization_global", "status"},
		Plot:     plotArchSweep,
		Findings: archSweepFindings,
		Notes: []string{
			"Each machine is an inline override of the shipped h100 (`--config h100+sms=16+memory.l2_slices=20`, sim/configs/README.md): the `config` column is exactly what ran, and every other key is the h100's. A machine's memory system is its configuration without its `sms=` part; the figures draw one panel per memory system and graph.",
			"L2 capacity follows the slice count (the slice size stays 640 KB); both graphs fit in the smallest L2 (20 slices, 12.5 MB) many times over, so the L2 settings act through the number of atomic units, DRAM channels and slice ports rather than capacity. The total DRAM bandwidth (`memory.dram_bandwidth_gb_per_s`) stays the h100's and is split over the slices' channels, so 320 slices give each channel a quarter of its bandwidth and a line that misses in L2 takes longer to arrive. That is the likely reason the fused SIMD-X kernel gets slower with more slices: on the 32×32 grid it reads megabytes from DRAM although the graph is a few kilobytes (`l2_hit_rate` and `dram_read_bytes` in `counters`), which deserves a look at the simulator's L2 (not investigated here). The atomic settings scale the h100's `memory.atomic_ops_per_cycle` and its hold costs (`memory.atomic_same_address_cycles`, `memory.atomic_same_line_cycles`) together, as the h100 stood at the points' commit; the machine's name gives the values.",
			"Grid-stride and persistent phases get one CTA of 256 threads per SM (`ctas_per_sm`=1), so every scheduler sees the machine's SM count the same way; the schedulers' default, every co-resident slot (8 CTAs per SM at 256 threads), costs the simulator about ten times as much wall time for the persistent kernels (each idle worker polls), and would not fit this sweep in 25 minutes on a 2-core machine.",
			"The graphs are small enough for timing mode: the whole sweep (200 points) took 24 minutes of wall time on a shared 2-core machine. R-MAT scale 14 (16,384 vertices, 425,980 edges, 4 levels from the vertex of maximum out-degree) has frontiers of thousands of vertices, enough work for the larger machines; the 32×32 grid (61 levels of a few dozen vertices) is latency- and synchronisation-bound, so more SMs cannot help it.",
			"Times are simulated, not wall time; every run is validated against graph/ref. The host costs in end-to-end time (launch, read-back, copies) are the h100's calibrated host clock and do not change with the machine.",
		},
	}
}

func runArchSweep(ctx context.Context, env *Env, p Point) (Outcome, error) {
	c, source, err := startSpecCell("arch-sweep", "source", p)
	if err != nil {
		return Outcome{}, err
	}
	a, variant, ro, g, v := c.alg, c.variant, c.ro, c.g, c.values
	cfg, err := sim.LoadConfig(p.Config)
	if err != nil {
		return Outcome{}, err
	}
	perSM, err := p.Int("ctas_per_sm")
	if err != nil || perSM < 0 {
		return Outcome{}, fmt.Errorf("arch-sweep: ctas_per_sm %q: want 0 or more", p.Get("ctas_per_sm"))
	}
	dev, err := env.Device()
	if err != nil {
		return Outcome{}, err
	}
	ro.Grid = perSM * dev.Properties().SMs
	r, err := scheduler.Enact(ctx, dev, a, variant, g, a.Select(scheduler.Params{scheduler.SourceParam: source}), ro)
	if err != nil {
		return Outcome{}, err
	}
	for key, x := range map[string]string{
		"source_vertex":              strconv.FormatUint(uint64(source), 10),
		"sms":                        strconv.Itoa(dev.Properties().SMs),
		"l2_slices":                  strconv.Itoa(cfg.Memory.L2Slices),
		"atomic_ops_per_cycle":       formatFloat(cfg.Memory.AtomicOpsPerCycle),
		"atomic_same_address_cycles": formatFloat(cfg.Memory.AtomicSameAddressCycles),
		"atomic_same_line_cycles":    formatFloat(cfg.Memory.AtomicSameLineCycles),
		"grid":                       strconv.Itoa(ro.Grid),
		"end_to_end_us":              micros(r.EndToEnd),
		"kernel_us":                  micros(r.Kernel),
		"iterations":                 strconv.Itoa(len(r.Iterations)),
		"launches":                   strconv.Itoa(r.Launches),
	} {
		v[key] = x
	}
	if r.Total.Cycles > 0 {
		v["cycles"] = strconv.FormatUint(r.Total.Cycles, 10)
	}
	for _, c := range []string{"global_atomics", "max_same_address_serialization_global", "l2_hit_rate", "warp_execution_efficiency", "achieved_occupancy"} {
		if x, ok := r.Total.Counters[c]; ok {
			v[c] = formatFloat(x)
		}
	}
	v["counters"] = countersCell(r.Total.Counters)
	return Outcome{Values: v, Valid: r.Validation.OK(), Validation: r.Validation.String()}, nil
}

var smsSetting = regexp.MustCompile(`\+sms=[0-9]+`)

// archMemory names a machine's memory system: its configuration without
// the SM count ("h100+sms=16+memory.l2_slices=20" gives
// "h100+memory.l2_slices=20").
func archMemory(config string) string {
	return smsSetting.ReplaceAllString(config, "")
}

// archMemoryLabel is archMemory for people: the base alone is "h100
// memory", and the override's keys lose their "memory." prefix.
func archMemoryLabel(memory string) string {
	base, rest, ok := strings.Cut(memory, "+")
	if !ok {
		return base + " memory"
	}
	return strings.ReplaceAll(strings.ReplaceAll(rest, "memory.", ""), "+", ", ")
}

// archShortLabel shortens a memory label's keys for a panel title.
var archShortLabel = strings.NewReplacer("l2_slices", "L2 slices", "atomic_ops_per_cycle", "atomic ops/cycle",
	"atomic_same_address_cycles", "cycles/address", "atomic_same_line_cycles", "cycles/address on one line").Replace

// archSeries groups ok rows by graph and memory system (a panel), then
// by variant (a line); panels and lines keep the order of their first row.
type archPanel struct {
	graph, memory string
	lines         []archLine
}

type archLine struct {
	variant string
	rows    []Row // by SM count
}

func archPanels(rows []Row) []archPanel {
	var out []archPanel
	at := map[string]int{}
	var graphs, memories []string
	for _, r := range okRows(rows) {
		m := archMemory(r["config"])
		if !slices.Contains(graphs, r["graph"]) {
			graphs = append(graphs, r["graph"])
		}
		if !slices.Contains(memories, m) {
			memories = append(memories, m)
		}
	}
	// Graphs outermost, as the figures' rows.
	for _, g := range graphs {
		for _, m := range memories {
			at[g+"\x00"+m] = len(out)
			out = append(out, archPanel{graph: g, memory: m})
		}
	}
	for _, r := range okRows(rows) {
		pn := &out[at[r["graph"]+"\x00"+archMemory(r["config"])]]
		i := slices.IndexFunc(pn.lines, func(l archLine) bool { return l.variant == r["variant"] })
		if i < 0 {
			i = len(pn.lines)
			pn.lines = append(pn.lines, archLine{variant: r["variant"]})
		}
		pn.lines[i].rows = append(pn.lines[i].rows, r)
	}
	for i := range out {
		for j := range out[i].lines {
			slices.SortStableFunc(out[i].lines[j].rows, func(a, b Row) int {
				x, _ := a.Float("sms")
				y, _ := b.Float("sms")
				return int(x - y)
			})
		}
	}
	return out
}

// archWinner is the variant with the least col among rows (one machine
// and graph), and the runner-up's time over the winner's.
func archWinner(rows []Row, col string) (best Row, margin float64, ok bool) {
	var second float64 = math.Inf(1)
	bestT := math.Inf(1)
	for _, r := range rows {
		t, has := r.Float(col)
		if !has || t <= 0 {
			continue
		}
		switch {
		case t < bestT:
			second, bestT, best = bestT, t, r
		case t < second:
			second = t
		}
	}
	if best == nil {
		return nil, 0, false
	}
	return best, second / bestT, true
}

// archCells groups ok rows by (graph, config): one machine and graph.
func archCells(rows []Row) (order []string, cells map[string][]Row) {
	cells = map[string][]Row{}
	for _, r := range okRows(rows) {
		k := r["graph"] + "\x00" + r["config"]
		if _, ok := cells[k]; !ok {
			order = append(order, k)
		}
		cells[k] = append(cells[k], r)
	}
	return order, cells
}

func archSweepFindings(rows []Row) []string {
	ok := okRows(rows)
	out := []string{fmt.Sprintf("%d of %d points ran and matched the CPU reference.", len(ok), len(rows))}
	var perPanel []string // the winner at each SM count, after the summaries
	order, cells := archCells(rows)
	winner := map[string]map[string]string{} // metric -> cell -> variant
	for _, metric := range []struct{ col, what string }{{"kernel_us", "kernel time"}, {"end_to_end_us", "end-to-end time"}} {
		winner[metric.col] = map[string]string{}
		// One line per panel: the winner at each SM count.
		for _, pn := range archPanels(rows) {
			var parts []string
			for _, n := range archSMsOf(pn) {
				cfg := archConfigOf(pn, n)
				best, margin, found := archWinner(cells[pn.graph+"\x00"+cfg], metric.col)
				if !found {
					continue
				}
				winner[metric.col][pn.graph+"\x00"+cfg] = best["variant"]
				parts = append(parts, fmt.Sprintf("%d SMs %s (%s µs, next %.2f× slower)", n, best["variant"], best[metric.col], margin))
			}
			if len(parts) > 0 {
				perPanel = append(perPanel, fmt.Sprintf("**%s, %s**, fastest by %s: %s.", pn.graph, archMemoryLabel(pn.memory), metric.what, strings.Join(parts, "; ")))
			}
		}
	}
	// How the winner moves: along SM counts within a memory system, and
	// between memory systems at one SM count.
	for _, metric := range []struct{ col, what string }{{"kernel_us", "kernel time"}, {"end_to_end_us", "end-to-end time"}} {
		w := winner[metric.col]
		alongSMs, panels := 0, 0
		var changes []string
		for _, pn := range archPanels(rows) {
			// Runs of one winner over consecutive SM counts.
			type run struct {
				variant string
				sms     []string
			}
			var runs []run
			for _, n := range archSMsOf(pn) {
				v, found := w[pn.graph+"\x00"+archConfigOf(pn, n)]
				if !found {
					continue
				}
				if len(runs) == 0 || runs[len(runs)-1].variant != v {
					runs = append(runs, run{variant: v})
				}
				runs[len(runs)-1].sms = append(runs[len(runs)-1].sms, strconv.Itoa(n))
			}
			if len(runs) == 0 {
				continue
			}
			panels++
			if len(runs) > 1 {
				alongSMs++
				seq := make([]string, len(runs))
				for i, r := range runs {
					seq[i] = fmt.Sprintf("%s (%s SMs)", r.variant, strings.Join(r.sms, ", "))
				}
				changes = append(changes, fmt.Sprintf("%s, %s: %s", pn.graph, archMemoryLabel(pn.memory), strings.Join(seq, " → ")))
			}
		}
		line := fmt.Sprintf("By %s, the winner changes with the SM count in %d of %d (graph, memory system) series", metric.what, alongSMs, panels)
		if len(changes) > 0 {
			line += ": " + strings.Join(changes, "; ")
		}
		out = append(out, line+".")
		// Against the h100's own memory system at the same SM count.
		differ, compared := 0, 0
		var which []string
		for _, k := range order {
			graph, cfg, _ := strings.Cut(k, "\x00")
			ref := smsOnly(cfg)
			if ref == cfg {
				continue
			}
			v, ok1 := w[k]
			base, ok2 := w[graph+"\x00"+ref]
			if !ok1 || !ok2 {
				continue
			}
			compared++
			if v != base {
				differ++
				which = append(which, fmt.Sprintf("%s %s (%s instead of %s)", graph, cfg, v, base))
			}
		}
		if compared > 0 {
			line := fmt.Sprintf("By %s, changing the memory system at a fixed SM count changes the winner in %d of %d machines", metric.what, differ, compared)
			if len(which) > 0 {
				line += ": " + strings.Join(which, "; ")
			}
			out = append(out, line+".")
		}
	}
	out = append(out, perPanel...)
	// Scaling: what 8.25× the SMs buys each variant, per panel.
	for _, pn := range archPanels(rows) {
		var parts []string
		for _, l := range pn.lines {
			if len(l.rows) < 2 {
				continue
			}
			lo, hi := l.rows[0], l.rows[len(l.rows)-1]
			a, ok1 := lo.Float("kernel_us")
			b, ok2 := hi.Float("kernel_us")
			if ok1 && ok2 && b > 0 {
				parts = append(parts, fmt.Sprintf("%s %.2f×", l.variant, a/b))
			}
		}
		if len(parts) > 0 {
			lo, hi := archSMsOf(pn)[0], archSMsOf(pn)[len(archSMsOf(pn))-1]
			out = append(out, fmt.Sprintf("**%s, %s**: kernel-time speedup from %d to %d SMs: %s.", pn.graph, archMemoryLabel(pn.memory), lo, hi, strings.Join(parts, ", ")))
		}
	}
	// Memory sensitivity at the largest SM count: each variant's kernel
	// time on every other memory system over its time on the h100's.
	byKey := map[string]Row{}
	for _, r := range ok {
		byKey[r["graph"]+"\x00"+r["config"]+"\x00"+r["variant"]] = r
	}
	for _, pn := range archPanels(rows) {
		sms := archSMsOf(pn)
		if len(sms) == 0 || !strings.Contains(pn.memory, "+") { // the base's own memory system
			continue
		}
		n := sms[len(sms)-1]
		cfg := archConfigOf(pn, n)
		ref := smsOnly(cfg)
		var parts []string
		for _, l := range pn.lines {
			r, ok1 := byKey[pn.graph+"\x00"+cfg+"\x00"+l.variant]
			b, ok2 := byKey[pn.graph+"\x00"+ref+"\x00"+l.variant]
			if !ok1 || !ok2 {
				continue
			}
			x, _ := r.Float("kernel_us")
			y, _ := b.Float("kernel_us")
			if y > 0 {
				parts = append(parts, fmt.Sprintf("%s %.2f×", l.variant, x/y))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("**%s, %s** at %d SMs: kernel time ÷ the h100 memory system's: %s.", pn.graph, archMemoryLabel(pn.memory), n, strings.Join(parts, ", ")))
		}
	}
	if n := len(rows) - len(ok); n > 0 {
		out = append(out, fmt.Sprintf("%d points failed or did not validate (listed below).", n))
	}
	return out
}

// smsOnly is a configuration with every override but the SM count
// dropped ("h100+sms=16+memory.l2_slices=20" gives "h100+sms=16").
func smsOnly(config string) string {
	base, _, _ := strings.Cut(config, "+")
	if m := smsSetting.FindString(config); m != "" {
		return base + m
	}
	return base
}

// archSMsOf lists a panel's SM counts, ascending.
func archSMsOf(pn archPanel) []int {
	var out []int
	for _, l := range pn.lines {
		for _, r := range l.rows {
			if n, ok := r.Float("sms"); ok && !slices.Contains(out, int(n)) {
				out = append(out, int(n))
			}
		}
	}
	slices.Sort(out)
	return out
}

// archConfigOf is the configuration of a panel's machine with n SMs.
func archConfigOf(pn archPanel, n int) string {
	for _, l := range pn.lines {
		for _, r := range l.rows {
			if m, ok := r.Float("sms"); ok && int(m) == n {
				return r["config"]
			}
		}
	}
	return ""
}

// plotArchSweep draws, for kernel and end-to-end time, one panel per graph
// (rows) and memory system (columns): time against SMs, a line per
// variant, every panel on the same log scale.
func plotArchSweep(rows []Row, dir string) ([]string, error) {
	var files []string
	for _, m := range []struct{ col, what, name string }{
		{"kernel_us", "kernel time", "arch-sweep-kernel"},
		{"end_to_end_us", "end-to-end time", "arch-sweep-e2e"},
	} {
		f, err := archFigure(rows, m.col, m.what, m.name, dir)
		if err != nil {
			return files, err
		}
		files = append(files, f...)
	}
	return files, nil
}

func archFigure(rows []Row, col, what, name, dir string) ([]string, error) {
	panels := archPanels(rows)
	if len(panels) == 0 {
		return nil, nil
	}
	first := panels[0].lines[0].rows[0]
	algorithm := first["algorithm"]
	base, _, _ := strings.Cut(first["config"], "+")
	var graphs, memories []string
	for _, pn := range panels {
		if !slices.Contains(graphs, pn.graph) {
			graphs = append(graphs, pn.graph)
		}
		if !slices.Contains(memories, pn.memory) {
			memories = append(memories, pn.memory)
		}
	}
	var variants []string
	lo, hi := math.Inf(1), math.Inf(-1)
	var ticks []float64
	for _, pn := range panels {
		for _, l := range pn.lines {
			if !slices.Contains(variants, l.variant) {
				variants = append(variants, l.variant)
			}
			for _, r := range l.rows {
				if y, ok := r.Float(col); ok && y > 0 {
					lo, hi = math.Min(lo, y), math.Max(hi, y)
				}
				if x, ok := r.Float("sms"); ok && !slices.Contains(ticks, x) {
					ticks = append(ticks, x)
				}
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, nil
	}
	// Variants in the sweep's order where known.
	slices.SortStableFunc(variants, func(a, b string) int {
		return archVariantRank(a) - archVariantRank(b)
	})
	slices.Sort(ticks)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	style := func(variant string) (color.Color, draw.GlyphDrawer, []vg.Length) {
		i := slices.Index(variants, variant)
		var dashes []vg.Length
		if i%2 == 1 {
			dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		return palette[i%len(palette)], shapes[i%len(shapes)], dashes
	}
	plots := make([][]*plot.Plot, len(graphs))
	legendThumbs := map[string][]plot.Thumbnailer{}
	for gi, g := range graphs {
		plots[gi] = make([]*plot.Plot, len(memories))
		for mi, m := range memories {
			p := plot.New()
			p.Title.Text = g + ", " + archShortLabel(archMemoryLabel(m))
			p.Title.TextStyle.Font.Size = vg.Points(9)
			p.X.Label.Text = "SMs"
			p.Y.Label.Text = what + " (µs)"
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker = valueTicks(ticks)
			p.Y.Tick.Marker = logTicks{}
			p.X.Min, p.X.Max = ticks[0]/1.15, ticks[len(ticks)-1]*1.15
			p.Y.Min, p.Y.Max = lo/1.2, hi*1.2
			p.Add(plotter.NewGrid())
			for _, pn := range panels {
				if pn.graph != g || pn.memory != m {
					continue
				}
				for _, l := range pn.lines {
					var xys plotter.XYs
					for _, r := range l.rows {
						x, okx := r.Float("sms")
						y, oky := r.Float(col)
						if okx && oky && y > 0 {
							xys = append(xys, plotter.XY{X: x, Y: y})
						}
					}
					if len(xys) == 0 {
						continue
					}
					line, points, err := plotter.NewLinePoints(xys)
					if err != nil {
						return nil, err
					}
					c, shape, dashes := style(l.variant)
					line.Color, points.Color, points.Shape = c, c, shape
					line.Width, line.Dashes = vg.Points(1.3), dashes
					p.Add(line, points)
					legendThumbs[l.variant] = []plot.Thumbnailer{line, points}
				}
			}
			plots[gi][mi] = p
		}
	}
	// The legend in the sweep's variant order.
	legend := plot.NewLegend()
	for _, v := range variants {
		if th, ok := legendThumbs[v]; ok {
			legend.Add(v, th...)
		}
	}
	panelW, panelH := 7.5*vg.Centimeter, 6.5*vg.Centimeter
	legendW := 4.5 * vg.Centimeter
	titleH := 1.2 * vg.Centimeter
	w := panelW*vg.Length(len(memories)) + legendW
	h := panelH*vg.Length(len(graphs)) + titleH
	var files []string
	for _, ext := range plotFormats {
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return files, err
		}
		dc := draw.New(c)
		title := plot.New().Title.TextStyle
		title.XAlign, title.YAlign = draw.XCenter, draw.YTop
		title.Font.Size = vg.Points(12)
		dc.FillText(title, vg.Point{X: w / 2, Y: h - vg.Points(6)},
			fmt.Sprintf("%s %s by SMs on simulated %s variants", strings.ToUpper(algorithm), what, base))
		area := draw.Crop(dc, 0, -legendW, 0, -titleH)
		tiles := draw.Tiles{Rows: len(graphs), Cols: len(memories), PadX: vg.Millimeter * 3, PadY: vg.Millimeter * 3,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(plots, tiles, area)
		for i := range plots {
			for j := range plots[i] {
				plots[i][j].Draw(canvases[i][j])
			}
		}
		legend.Top, legend.Left = true, true
		legend.Draw(draw.Crop(dc, w-legendW+vg.Millimeter*3, 0, 0, -titleH-vg.Millimeter*6))
		file := name + "." + ext
		if err := writeTo(filepath.Join(dir, file), c); err != nil {
			return files, fmt.Errorf("saving %s: %w", file, err)
		}
		files = append(files, file)
	}
	return files, nil
}

// archVariantRank orders variants as the sweep lists them (others last).
func archVariantRank(v string) int {
	if i := slices.Index(archVariants, v); i >= 0 {
		return i
	}
	return len(archVariants)
}
