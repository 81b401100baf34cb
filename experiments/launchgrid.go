package experiments

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/experiments/micro"
)

func init() { Default.Register(launchGridExperiment()) }

// launchGridExperiment times an empty kernel over growing grids: what a
// launch costs beyond its work. The simulator charges every launch
// host.kernel_overhead_ns (measured with one CTA) plus its CTAs' dispatch;
// the simhw cross-check's per-launch fit finds the SIMD-X, VWC and
// edge-centric cells 2.7-4.0 µs short per launch, which a grid-size
// dependent launch cost on the H100 would explain.
func launchGridExperiment() *Experiment {
	return &Experiment{
		Name: "launch-grid",
		About: "What a launch costs beyond its work: launch_increment (only thread 0 of CTA 0 touches memory) over grids of 1 to 16,896 CTAs " +
			"(one per H100 SM, then 8, 32 and 128 per SM) of 256 or 1024 threads; the kernel's event time.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "grid", About: "CTAs", Values: ints(micro.LaunchGridSizes)},
			{Name: "block", About: "threads per CTA", Values: []string{"256", "1024"}},
		},
		// Its differences are a few µs, and a launch's event time varies by
		// about 1 µs: 10 launches after 3 left medians 0.5-2 µs apart
		// between two runs, and the first point ran on a GPU whose clock
		// was still rising from idle. 2,000 warm-up launches and 200 timed
		// ones take 20 ms a point.
		Params:     timingParamsOf("2000", "200"),
		Stats:      launchStats("launch", "the launch_increment launch"),
		CrossCheck: &CrossCheck{Times: []string{"launch_us"}},
		Run: func(ctx context.Context, env *Env, p Point) (Outcome, error) {
			dev, err := env.Device()
			if err != nil {
				return Outcome{}, err
			}
			grid, err := p.Int("grid")
			if err != nil {
				return Outcome{}, err
			}
			block, err := p.Int("block")
			if err != nil {
				return Outcome{}, err
			}
			mp, err := timingOf(p)
			if err != nil {
				return Outcome{}, err
			}
			s, err := micro.LaunchGrid(ctx, dev, grid, block, mp)
			if err != nil {
				return Outcome{}, err
			}
			v := map[string]string{}
			launchValues("launch", s, v)
			return Outcome{Values: v, Valid: true, Validation: fmt.Sprintf("the counter counted every launch of %d CTAs", grid)}, nil
		},
		Table: []string{"config", "grid", "block", "launch_us", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return lineFigure{
				title:  "an empty kernel's event time by grid size",
				xLabel: "CTAs in the grid",
				yLabel: "kernel time (µs)",
				logX:   true,
				series: groupSeries(okRows(rows), func(r Row) string { return where(r) + ", " + r["block"] + " threads per CTA" }, "grid", "launch_us"),
			}.save(dir, "launch-grid")
		},
		Notes: []string{
			"Every point checks that the counter, which thread 0 of CTA 0 increments, equals the launches made.",
			"On the simulator the time is the kernel's event time (host.kernel_overhead_ns plus the cycles at the clock: the CTAs' dispatch and their few instructions); on hardware the median event time of `repeat` launches after `warmup`.",
		},
	}
}
