package experiments

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/warpgraph/warpgraph/experiments/micro"
)

func init() { Default.Register(atomicPollExperiment()) }

// atomicPollExperiment isolates a persistent work queue's control line:
// workers fetching tickets with chains of atomicAdd on one word while idle
// warps poll a word beside it (or far from it) with volatile loads. The
// simhw cross-check finds every Atos variant simulated fast (geometric
// mean 0.74 of the H100) with the CTAs' time spent waiting for their
// fetching leader; whether polls on the head's line slow its atomics on
// the H100, and by how much, is the question.
func atomicPollExperiment() *Experiment {
	var lines []string
	for _, l := range micro.AtomicPollLines {
		lines = append(lines, l.Name)
	}
	return &Experiment{
		Name: "atomic-poll",
		About: "How volatile polls on a queue's control line slow the atomics on it: CTAs of 256 threads filling every SM (8 per SM on the H100); in each CTA one " +
			"worker fetches reps tickets from one head word by a chain of atomicAdd (each waits for the last), and pollers warps " +
			"poll the done count, on the head's line (same) or 4 KB away (other), until every worker is done.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "pollers", About: "polling warps per CTA (lane 0 each)", Values: ints(micro.AtomicPollers)},
			{Name: "line", About: "where the polls read: the head's line (same) or another line 4 KB away (other)", Values: lines},
		},
		Params: append([]Param{
			{Name: "reps", About: "tickets each worker fetches", Default: byTarget("32", "32")},
			{Name: "spin_budget", About: "polls before a poller gives up (0: unbounded, simulator only: its deadlock detector ends a hung launch)", Default: byTarget("10000000", "0")},
		}, timingParams...),
		Stats:      launchStats("poll", "the atomic_poll launch"),
		CrossCheck: &CrossCheck{Times: []string{"poll_us"}, MayDiffer: []string{"spin_budget"}},
		Run: func(ctx context.Context, env *Env, p Point) (Outcome, error) {
			dev, pollers, mp, err := startMicro(env, p, "pollers")
			if err != nil {
				return Outcome{}, err
			}
			i := slices.IndexFunc(micro.AtomicPollLines, func(l micro.AtomicPollLine) bool { return l.Name == p.Get("line") })
			if i < 0 {
				return Outcome{}, fmt.Errorf("atomic-poll: line %q is not one of %v", p.Get("line"), lines)
			}
			word := micro.AtomicPollLines[i].DoneWord
			budget, err := strconv.ParseUint(p.Get("spin_budget"), 10, 32)
			if err != nil {
				return Outcome{}, fmt.Errorf("spin_budget %q: %w", p.Get("spin_budget"), err)
			}
			ctas, err := micro.AtomicPollCTAs(dev)
			if err != nil {
				return Outcome{}, err
			}
			s, err := micro.AtomicPoll(ctx, dev, ctas, pollers, word, uint32(budget), mp)
			if err != nil {
				return Outcome{}, err
			}
			v := map[string]string{}
			launchValues("poll", s, v)
			return Outcome{Values: v, Valid: true, Validation: fmt.Sprintf("%d CTAs: head = done × reps, done a multiple of the CTAs, no poller gave up", ctas)}, nil
		},
		Table: []string{"config", "pollers", "line", "poll_us", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return lineFigure{
				title:  "ticket chains on one word, with polls on its line or another",
				xLabel: "polling warps per CTA (every SM full of CTAs of 8 warps)",
				yLabel: "kernel time (µs)",
				series: groupSeries(okRows(rows), func(r Row) string { return where(r) + ", polls on " + r["line"] + " line" }, "pollers", "poll_us"),
			}.save(dir, "atomic-poll")
		},
		Notes: []string{
			"Every point checks the head and done counters and that no poller ran out of its spin budget (kernels/atomic_poll.cu).",
			"With 0 pollers the workers' chains run alone; the two lines then differ only in where each CTA counts itself done (one atomicAdd per CTA).",
			"On the simulator the time is the kernel's event time (host.kernel_overhead_ns plus the cycles at the clock); on hardware the median event time of `repeat` launches after `warmup`.",
		},
	}
}
