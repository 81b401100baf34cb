package experiments

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/kernels"
)

func init() { Default.Register(atomicsExperiment()) }

// ints spells integers as axis values.
func ints(vs []int) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Itoa(v)
	}
	return out
}

// byTarget is a parameter default: one value on hardware, another in
// simulation.
func byTarget(hw, sim string) func(target, config string) string {
	return func(target, _ string) string {
		if target == TargetHW {
			return hw
		}
		return sim
	}
}

// timingParams are the launch repetitions of a micro experiment on
// hardware (the simulator is deterministic: one launch, no warm-up).
var timingParams = timingParamsOf("3", "10")

// timingParamsOf is timingParams with other hardware defaults.
func timingParamsOf(warmup, repeat string) []Param {
	return []Param{
		{Name: "warmup", About: "untimed launches before timing (hardware; 0 in simulation)", Default: byTarget(warmup, "0")},
		{Name: "repeat", About: "timed launches, median reported (hardware; 1 in simulation)", Default: byTarget(repeat, "1")},
	}
}

// startMicro opens a micro point's device and reads its integer axis and
// its reps, warmup and repeat.
func startMicro(env *Env, p Point, axis string) (kernels.Device, int, micro.Params, error) {
	dev, err := env.Device()
	if err != nil {
		return nil, 0, micro.Params{}, err
	}
	v, err := p.Int(axis)
	if err != nil {
		return nil, 0, micro.Params{}, err
	}
	mp, err := microParams(p)
	return dev, v, mp, err
}

// microParams reads reps, warmup and repeat.
func microParams(p Point) (micro.Params, error) {
	mp, err := timingOf(p)
	if err != nil {
		return mp, err
	}
	mp.Reps, err = p.Int("reps")
	return mp, err
}

// timingOf reads warmup and repeat (timingParams).
func timingOf(p Point) (micro.Params, error) {
	var mp micro.Params
	var err error
	if mp.Warmup, err = p.Int("warmup"); err != nil {
		return mp, err
	}
	mp.Repeat, err = p.Int("repeat")
	return mp, err
}

func atomicsExperiment() *Experiment {
	stats := []Stat{}
	stats = append(stats, launchStats("shared", "atomicMin into shared memory")...)
	stats = append(stats, launchStats("global", "atomicMin into global memory")...)
	stats = append(stats,
		Stat{"global_over_shared", "", "global time ÷ shared time (> 1: shared atomics are faster)"},
		Stat{"worst_serialization_shared", "accesses", "simulated worst same-address serialisation of the shared launch"},
		Stat{"worst_serialization_global", "accesses", "simulated worst same-address serialisation of the global launch"},
	)
	return &Experiment{
		Name: "atomics",
		About: "WolfGraph's atomic mini-benchmark: CTAs of 1024 threads issue atomicMin into shared or into global " +
			"memory; the synchronisation degree is how many threads share each address (1…512); one CTA (WolfGraph's geometry) or every SM full. Shared atomics are " +
			"native on Maxwell and later and lock-based on Kepler (gtx780ti), where they lose to global ones at high degree.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"gtx780ti", "h100"},
		Axes: []Axis{
			{Name: "geometry", About: "cta: WolfGraph's one CTA of 1024 threads (one SM issues every atomic); gpu: two such CTAs per SM, every SM full, each CTA on its own slots (the L2 slices' atomic units are the limit)", Values: []string{"cta", "gpu"}},
			{Name: "degree", About: "synchronisation degree: threads per address", Values: ints(micro.AtomicDegrees)},
		},
		Params: append([]Param{
			{Name: "reps", About: "atomicMin per thread, geometry cta", Default: byTarget("256", "256")},
			{Name: "gpu_reps", About: "atomicMin per thread, geometry gpu (264 CTAs on the H100: 8.6M lane operations at 32)", Default: byTarget("32", "32")},
		}, timingParams...),
		Stats: stats,
		// The simulator-vs-GPU cross-check (simhw) compares both launches.
		CrossCheck: &CrossCheck{Times: []string{"shared_us", "global_us"}},
		Run:        runAtomics,
		Table:      []string{"config", "geometry", "degree", "shared_us", "global_us", "global_over_shared", "worst_serialization_shared", "status"},
		Plot:       plotAtomics,
		Findings: func(rows []Row) []string {
			return ratioFindings(rows, whereGeometry, "degree", "global_over_shared", "shared", "global", "shared_us", "global_us")
		},
		Notes: []string{
			"Times on the simulator are simulated device time (cycles ÷ the configuration's clock), not wall time; on hardware the median event time of `repeat` launches after `warmup`.",
			"Every point checks every output slot against the host formula of kernels/atomic_contention.cu; a mismatch is recorded as an error (experiments/micro reports it as one).",
			"WolfGraph (on a GTX 780 Ti, Kepler's lock-based shared atomics) reports shared atomicMin losing to global near degree 256; the gtx780ti configuration models that lock-based scheme (sim/configs/gtx780ti.yaml).",
			"Each point opens a fresh device, so no cache state carries between points; the figures can differ slightly from `warpgraph micro atomic_contention`, which runs every degree on one device.",
		},
	}
}

func runAtomics(ctx context.Context, env *Env, p Point) (Outcome, error) {
	dev, degree, mp, err := startMicro(env, p, "degree")
	if err != nil {
		return Outcome{}, err
	}
	switch g := p.Get("geometry"); g {
	case "cta":
		mp.CTAs = 1
	case "gpu":
		mp.CTAs = micro.AtomicCTAsFullGPU(dev)
		if mp.Reps, err = p.Int("gpu_reps"); err != nil {
			return Outcome{}, err
		}
	default:
		return Outcome{}, fmt.Errorf("atomics: unknown geometry %q (cta or gpu)", g)
	}
	shared, global, tab, err := contentionLaunches(ctx, dev, degree, mp)
	if err != nil {
		return Outcome{}, err
	}
	v := map[string]string{"global_over_shared": ratio(global.Elapsed, shared.Elapsed)}
	launchValues("shared", shared, v)
	launchValues("global", global, v)
	worstSerialization("shared", shared, v)
	worstSerialization("global", global, v)
	return Outcome{Values: v, Valid: true, Validation: lastCell(tab)}, nil
}

// contentionLaunches runs atomic_contention at one degree (micro.
// AtomicContention: its shared and its global launch, every slot checked)
// and returns the two launches' statistics and the validated table.
func contentionLaunches(ctx context.Context, dev kernels.Device, degree int, mp micro.Params) (shared, global kernels.LaunchStats, tab *micro.Table, err error) {
	rec := &recorder{Device: dev}
	if tab, err = micro.AtomicContention(ctx, rec, []int{degree}, mp); err != nil {
		return shared, global, nil, err
	}
	s, g := rec.byKernel("atomic_contention_shared"), rec.byKernel("atomic_contention_global")
	if len(s) != 1 || len(g) != 1 {
		return shared, global, nil, fmt.Errorf("atomic_contention: expected one shared and one global launch, saw %d and %d", len(s), len(g))
	}
	return s[0], g[0], tab, nil
}

// worstSerialization records a launch's simulated worst same-address
// serialisation in the space (shared or global), where it was counted.
func worstSerialization(space string, s kernels.LaunchStats, into map[string]string) {
	if v, ok := s.Counters["max_same_address_serialization_"+space]; ok {
		into["worst_serialization_"+space] = formatFloat(v)
	}
}

// lastCell is the validation cell of a one-row micro table.
func lastCell(t *micro.Table) string {
	if len(t.Rows) == 0 || len(t.Rows[0]) == 0 {
		return ""
	}
	r := t.Rows[0]
	return r[len(r)-1]
}

// whereGeometry names a row's machine and benchmark geometry.
func whereGeometry(r Row) string {
	if g := r["geometry"]; g != "" {
		return where(r) + ", " + g
	}
	return where(r)
}

func plotAtomics(rows []Row, dir string) ([]string, error) {
	var ss []series
	for _, kind := range []string{"shared", "global"} {
		for _, s := range groupSeries(okRows(rows), func(r Row) string { return whereGeometry(r) + ", " + kind }, "degree", kind+"_us") {
			s.dashed = kind == "global"
			s.group = strings.TrimSuffix(s.label, ", "+kind)
			ss = append(ss, s)
		}
	}
	degrees := make([]float64, len(micro.AtomicDegrees))
	for i, d := range micro.AtomicDegrees {
		degrees[i] = float64(d)
	}
	files, err := lineFigure{
		title:  "atomicMin, CTAs of 1024 threads (cta: one; gpu: every SM full): shared vs global",
		xLabel: "synchronisation degree (threads per address)",
		yLabel: "kernel time (µs)",
		logX:   true, logY: true, xTicks: degrees,
		series: sortSeries(ss),
	}.save(dir, "atomics")
	if err != nil {
		return files, err
	}
	more, err := lineFigure{
		title:  "global ÷ shared atomicMin time (below 1: global is faster)",
		xLabel: "synchronisation degree (threads per address)",
		yLabel: "global time ÷ shared time",
		logX:   true, logY: true, xTicks: degrees, refY: 1,
		series: groupSeries(okRows(rows), whereGeometry, "degree", "global_over_shared"),
	}.save(dir, "atomics-ratio")
	return append(files, more...), err
}

// sortSeries orders series by label, so that a machine's lines sit
// together in the legend.
func sortSeries(ss []series) []series {
	out := append([]series(nil), ss...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].label < out[j-1].label; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// okRows keeps the rows that ran and validated.
func okRows(rows []Row) []Row {
	var out []Row
	for _, r := range rows {
		if r["status"] == StatusOK {
			out = append(out, r)
		}
	}
	return out
}

// ratioFindings summarises, per machine, how a time ratio numerator ÷
// denominator (column ratioCol, > 1 when the first kind is faster) moves
// along an axis: its ends, its range, and where it first drops below 1.
func ratioFindings(rows []Row, where func(Row) string, axis, ratioCol, first, second, firstCol, secondCol string) []string {
	var out []string
	var order []string
	byWhere := map[string][]Row{}
	for _, r := range okRows(rows) {
		w := where(r)
		if _, ok := byWhere[w]; !ok {
			order = append(order, w)
		}
		byWhere[w] = append(byWhere[w], r)
	}
	for _, w := range order {
		// Rows recorded by another sweep into the folder follow in key
		// order (degree=16 before degree=2): order them by the axis.
		rs := slices.Clone(byWhere[w])
		sort.SliceStable(rs, func(i, j int) bool {
			a, _ := rs[i].Float(axis)
			b, _ := rs[j].Float(axis)
			return a < b
		})
		lo, hi := rs[0], rs[len(rs)-1]
		line := fmt.Sprintf("**%s**: %s %s → %s µs and %s %s → %s µs from %s %s to %s; %s/%s time ratio %s → %s (range %s)",
			w, first, lo[firstCol], hi[firstCol], second, lo[secondCol], hi[secondCol], axis, lo[axis], hi[axis],
			second, first, lo[ratioCol], hi[ratioCol], columnRange(rs, ratioCol))
		var below []string
		for _, r := range rs {
			if v, ok := r.Float(ratioCol); ok && v < 1 {
				below = append(below, r[axis])
			}
		}
		switch {
		case len(below) == 0:
			line += fmt.Sprintf("; %s is faster at every %s", first, axis)
		case len(below) == len(rs):
			line += fmt.Sprintf("; %s is faster at every %s", second, axis)
		default:
			line += fmt.Sprintf("; %s is faster only at %s %s", second, axis, strings.Join(below, ", "))
		}
		out = append(out, line+".")
	}
	if n := len(rows) - len(okRows(rows)); n > 0 {
		out = append(out, fmt.Sprintf("%d points failed or did not validate (listed below).", n))
	}
	return out
}

// columnRange is "min–max" of a numeric column.
func columnRange(rows []Row, col string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if v, ok := r.Float(col); ok {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		return "–"
	}
	return strconv.FormatFloat(lo, 'g', 3, 64) + "–" + strconv.FormatFloat(hi, 'g', 3, 64)
}
