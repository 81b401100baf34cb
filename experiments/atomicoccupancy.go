package experiments

import (
	"context"
	"fmt"
	"strconv"
)

func init() { Default.Register(atomicOccupancyExperiment()) }

// atomicOccupancyDegrees are the synchronisation degrees the occupancy
// curve is measured at: distinct addresses, a few lanes per address, a
// warp per address, and several warps per address.
var atomicOccupancyDegrees = []int{1, 4, 32, 128, 512}

// atomicOccupancyCTAs are the CTAs of 1024 threads that issue the atomics:
// from one SM's worth to two per SM of a 132-SM GPU.
var atomicOccupancyCTAs = []int{1, 4, 16, 33, 66, 132, 264}

// atomicOccupancyExperiment measures global atomic throughput when only
// part of the GPU issues atomics, at several same-address degrees: the
// atomics experiment's gpu geometry is every SM full, which is where the
// L2 atomic units' model was fitted; graph kernels issue their atomics
// from fewer SMs and at other degrees.
func atomicOccupancyExperiment() *Experiment {
	stats := launchStats("global", "atomicMin into global memory")
	stats = append(stats,
		Stat{"global_lane_ops_per_ns", "lane operations/ns", "atomicMin lane operations (CTAs × 1024 × reps) per ns of the global launch"},
		Stat{"worst_serialization_global", "accesses", "simulated worst same-address serialisation of the global launch"},
	)
	return &Experiment{
		Name: "atomic-occupancy",
		About: "Global atomicMin throughput against how much of the GPU issues it: 1 to 264 CTAs of 1024 threads (one SM's " +
			"worth to two per SM of the H100), each CTA on its own slots, at synchronisation degrees 1 to 512 (threads per " +
			"address). The curve's shape between one SM and every SM, not only its ends, is what a model of the L2's " +
			"atomic units must follow.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "ctas", About: "CTAs of 1024 threads issuing atomics (each on its own slots)", Values: ints(atomicOccupancyCTAs)},
			{Name: "degree", About: "synchronisation degree: threads per address", Values: ints(atomicOccupancyDegrees)},
		},
		Params: append([]Param{
			{Name: "reps", About: "atomicMin per thread", Default: byTarget("32", "32")},
		}, timingParams...),
		Stats:      stats,
		CrossCheck: &CrossCheck{Times: []string{"global_us"}},
		Run:        runAtomicOccupancy,
		Table:      []string{"config", "ctas", "degree", "global_us", "global_lane_ops_per_ns", "worst_serialization_global", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			ctas := make([]float64, len(atomicOccupancyCTAs))
			for i, c := range atomicOccupancyCTAs {
				ctas[i] = float64(c)
			}
			return lineFigure{
				title:  "global atomicMin throughput against the CTAs issuing it (1024 threads each), per degree",
				xLabel: "CTAs of 1024 threads",
				yLabel: "lane operations per ns",
				logX:   true, logY: true, xTicks: ctas,
				series: groupSeries(okRows(rows), func(r Row) string { return where(r) + ", degree " + r["degree"] }, "ctas", "global_lane_ops_per_ns"),
			}.save(dir, "atomic-occupancy")
		},
		Notes: []string{
			"Every point checks every output slot against the host formula of kernels/atomic_contention.cu (the atomics experiment's kernels, whose shared-memory launch also runs and is not reported here).",
			"Times on the simulator are simulated device time (cycles ÷ the configuration's clock); on hardware the median event time of `repeat` launches after `warmup`.",
		},
	}
}

func runAtomicOccupancy(ctx context.Context, env *Env, p Point) (Outcome, error) {
	dev, degree, mp, err := startMicro(env, p, "degree")
	if err != nil {
		return Outcome{}, err
	}
	if mp.CTAs, err = p.Int("ctas"); err != nil {
		return Outcome{}, err
	}
	if mp.CTAs < 1 {
		return Outcome{}, fmt.Errorf("atomic-occupancy: ctas must be at least 1, got %d", mp.CTAs)
	}
	_, global, tab, err := contentionLaunches(ctx, dev, degree, mp)
	if err != nil {
		return Outcome{}, err
	}
	v := map[string]string{}
	launchValues("global", global, v)
	if ns := float64(global.Elapsed.Nanoseconds()); ns > 0 {
		ops := float64(mp.CTAs) * 1024 * float64(mp.Reps)
		v["global_lane_ops_per_ns"] = strconv.FormatFloat(ops/ns, 'g', 6, 64)
	}
	worstSerialization("global", global, v)
	return Outcome{Values: v, Valid: true, Validation: lastCell(tab)}, nil
}
