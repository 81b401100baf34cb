package experiments

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/experiments/micro"
)

func init() { Default.Register(banksExperiment()) }

func banksExperiment() *Experiment {
	stats := []Stat{{"expected_degree", "lanes", "conflict degree of the plain layout: gcd(stride, 32)"}}
	stats = append(stats, launchStats("plain", "shared reads at the stride")...)
	stats = append(stats, launchStats("padded", "the same reads in the padded, conflict-free layout")...)
	stats = append(stats,
		Stat{"plain_over_padded", "", "plain time ÷ padded time (> 1: conflicts cost)"},
		Stat{"plain_degree", "lanes", "simulated worst bank-conflict degree of the plain launch"},
		Stat{"padded_degree", "lanes", "simulated worst bank-conflict degree of the padded launch"},
		Stat{"plain_bank_conflicts", "passes", "simulated extra shared-memory passes of the plain launch"},
		Stat{"grid_ctas", "CTAs", "the grid the point ran"},
	)
	return &Experiment{
		Name: "banks",
		About: "Shared-memory bank conflicts by stride: each lane reads shared memory at word stride s (conflict degree " +
			"gcd(s, 32) across the 32 four-byte banks) in the plain layout, and the same reads in a padded layout that is " +
			"conflict-free at every stride.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"gtx780ti", "h100"},
		Axes:    []Axis{{Name: "stride", About: "words between consecutive lanes' reads", Values: ints(micro.BankStrides)}},
		Params: append([]Param{
			{Name: "reps", About: "shared reads per thread", Default: byTarget("4096", "256")},
			{Name: "grid", About: "CTAs (0: four per SM)", Default: byTarget("0", "0")},
			{Name: "block", About: "threads per CTA", Default: byTarget("256", "256")},
		}, timingParams...),
		Stats: stats,
		// The simulator-vs-GPU cross-check (simhw) compares both launches.
		CrossCheck: &CrossCheck{Times: []string{"plain_us", "padded_us"}},
		Run:        runBanks,
		Table:      []string{"config", "stride", "expected_degree", "plain_degree", "padded_degree", "plain_us", "padded_us", "plain_over_padded", "status"},
		Plot:       plotBanks,
		Findings: func(rows []Row) []string {
			out := ratioFindings(rows, where, "stride", "plain_over_padded", "padded", "plain", "padded_us", "plain_us")
			exact := 0
			n := 0
			for _, r := range okRows(rows) {
				if r["plain_degree"] == "" {
					continue
				}
				n++
				if r["plain_degree"] == r["expected_degree"] && r["padded_degree"] == "1" {
					exact++
				}
			}
			if n > 0 {
				out = append(out, fmt.Sprintf("The simulated worst conflict degree equals gcd(stride, 32) in the plain layout and 1 in the padded one at %d of %d simulated points.", exact, n))
			}
			return out
		},
		Notes: []string{
			"Times on the simulator are simulated device time (cycles ÷ the configuration's clock), not wall time; on hardware the median event time of `repeat` launches after `warmup`.",
			"Both targets run four CTAs of 256 threads per SM, so every SM has the warps to overlap conflicts as on hardware; the simulator does 256 reads per thread (4096 on hardware, to be long enough to time), so compare time per read or the plain/padded ratio across targets, not absolute times.",
			"Every point checks every thread's sum against the formula of kernels/bank_stride.cu; a mismatch is recorded as an error (experiments/micro reports it as one).",
			"The issue's second half, bank conflicts by queue layout, needs the hierarchical-queue kernels, which have not landed yet.",
		},
	}
}

func runBanks(ctx context.Context, env *Env, p Point) (Outcome, error) {
	dev, stride, mp, err := startMicro(env, p, "stride")
	if err != nil {
		return Outcome{}, err
	}
	grid, err := p.Int("grid")
	if err != nil {
		return Outcome{}, err
	}
	if grid == 0 {
		grid = 4 * dev.Properties().SMs
	}
	block, err := p.Int("block")
	if err != nil {
		return Outcome{}, err
	}
	rec := &recorder{Device: dev}
	tab, err := micro.BankStride(ctx, rec, []int{stride}, grid, block, mp)
	if err != nil {
		return Outcome{}, err
	}
	plain, padded := rec.byKernel("bank_stride"), rec.byKernel("bank_stride_padded")
	if len(plain) != 1 || len(padded) != 1 {
		return Outcome{}, fmt.Errorf("banks: expected one plain and one padded launch, saw %d and %d", len(plain), len(padded))
	}
	v := map[string]string{
		"expected_degree":   strconv.Itoa(gcd(stride, 32)),
		"plain_over_padded": ratio(plain[0].Elapsed, padded[0].Elapsed),
		"grid_ctas":         strconv.Itoa(grid),
	}
	launchValues("plain", plain[0], v)
	launchValues("padded", padded[0], v)
	if d, ok := worstConflictDegree(plain[0].Counters); ok {
		v["plain_degree"] = strconv.Itoa(d)
	}
	if d, ok := worstConflictDegree(padded[0].Counters); ok {
		v["padded_degree"] = strconv.Itoa(d)
	}
	if c, ok := plain[0].Counters["bank_conflicts"]; ok {
		v["plain_bank_conflicts"] = formatFloat(c)
	}
	return Outcome{Values: v, Valid: true, Validation: lastCell(tab)}, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func plotBanks(rows []Row, dir string) ([]string, error) {
	var ss []series
	for _, kind := range []string{"plain", "padded"} {
		for _, s := range groupSeries(okRows(rows), func(r Row) string { return where(r) + ", " + kind }, "stride", kind+"_us") {
			s.dashed = kind == "padded"
			s.group = strings.TrimSuffix(s.label, ", "+kind)
			ss = append(ss, s)
		}
	}
	strides := make([]float64, len(micro.BankStrides))
	for i, s := range micro.BankStrides {
		strides[i] = float64(s)
	}
	files, err := lineFigure{
		title:  "Shared-memory reads by stride: plain vs padded layout",
		xLabel: "stride between lanes (4-byte words)",
		yLabel: "kernel time (µs)",
		logX:   true, logY: true, xTicks: strides,
		series: sortSeries(ss),
	}.save(dir, "banks")
	if err != nil {
		return files, err
	}
	more, err := lineFigure{
		title:  "Cost of bank conflicts: plain ÷ padded time",
		xLabel: "stride between lanes (4-byte words)",
		yLabel: "plain time ÷ padded time",
		logX:   true, logY: true, xTicks: strides, refY: 1,
		series: groupSeries(okRows(rows), where, "stride", "plain_over_padded"),
	}.save(dir, "banks-ratio")
	return append(files, more...), err
}
