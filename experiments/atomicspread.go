package experiments

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/experiments/micro"
)

func init() { Default.Register(atomicSpreadExperiment()) }

// atomicSpreadExperiment maps the L2's address-to-slice hashing from the
// outside: every SM full, each CTA hammering one word, the CTAs' words a
// stride apart. Strides whose words pile onto few slices are slow.
func atomicSpreadExperiment() *Experiment {
	return &Experiment{
		Name: "atomic-spread",
		About: "How the L2 spreads addresses over its slices, seen through global atomics: two CTAs of 1024 threads per SM, " +
			"CTA b doing atomicMin on the word at b × stride. When the CTAs' words share few slices, those slices' atomic " +
			"units serialise everything; a stride that spreads them over every slice is fast.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes:    []Axis{{Name: "stride", About: "bytes between consecutive CTAs' words", Values: ints(micro.AtomicSpreadStrides)}},
		Params: append([]Param{
			{Name: "reps", About: "atomicMin per thread", Default: byTarget("8", "8")},
		}, timingParams...),
		Stats:      launchStats("spread", "the atomic_spread launch"),
		CrossCheck: &CrossCheck{Times: []string{"spread_us"}},
		Run: func(ctx context.Context, env *Env, p Point) (Outcome, error) {
			dev, stride, mp, err := startMicro(env, p, "stride")
			if err != nil {
				return Outcome{}, err
			}
			rec := &recorder{Device: dev}
			tab, err := micro.AtomicSpread(ctx, rec, []int{stride}, micro.AtomicCTAsFullGPU(dev), mp)
			if err != nil {
				return Outcome{}, err
			}
			launches := rec.byKernel("atomic_spread")
			if len(launches) != 1 {
				return Outcome{}, fmt.Errorf("atomic-spread: expected one launch, saw %d", len(launches))
			}
			v := map[string]string{}
			launchValues("spread", launches[0], v)
			return Outcome{Values: v, Valid: true, Validation: lastCell(tab)}, nil
		},
		Table: []string{"config", "stride", "spread_us", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return lineFigure{
				title:  "atomicMin, every SM full, CTA b on the word at b × stride",
				xLabel: "stride between the CTAs' words (bytes)",
				yLabel: "kernel time (µs)",
				logX:   true, logY: true,
				series: groupSeries(okRows(rows), where, "stride", "spread_us"),
			}.save(dir, "atomic-spread")
		},
		Notes: []string{
			"Every point checks every CTA's word against the host formula (kernels/atomic_contention.cu, atomic_spread).",
			"On the simulator the time is the kernel's event time (host.kernel_overhead_ns plus the cycles at the clock); on hardware the median event time of `repeat` launches after `warmup`.",
		},
	}
}
