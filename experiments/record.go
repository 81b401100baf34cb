package experiments

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// recorder is a device that remembers the statistics of every launch, so
// that an experiment built on a driver that returns a formatted table
// (experiments/micro) still records exact cycles and counters.
type recorder struct {
	kernels.Device
	launches []launchRecord
}

type launchRecord struct {
	kernel string
	stats  kernels.LaunchStats
}

func (r *recorder) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	s, err := r.Device.Launch(ctx, k, cfg, args...)
	if err == nil {
		r.launches = append(r.launches, launchRecord{k.Name, s})
	}
	return s, err
}

// byKernel returns the statistics of the launches of the named kernel, in
// order.
func (r *recorder) byKernel(name string) []kernels.LaunchStats {
	var out []kernels.LaunchStats
	for _, l := range r.launches {
		if l.kernel == name {
			out = append(out, l.stats)
		}
	}
	return out
}

// formatFloat is the CSV spelling of a number: the shortest that reads
// back exactly, so that equal measurements give equal cells.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// micros is a duration in microseconds, to the nanosecond.
func micros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 3, 64)
}

// launchValues are the columns every launch fills: time in µs (simulated
// time on the simulator, the median event time on hardware), cycles (the
// simulator only) and all counters as one "name=value;..." cell.
func launchValues(prefix string, s kernels.LaunchStats, into map[string]string) {
	into[prefix+"_us"] = micros(s.Elapsed)
	if s.Cycles > 0 {
		into[prefix+"_cycles"] = strconv.FormatUint(s.Cycles, 10)
	}
	into[prefix+"_counters"] = countersCell(s.Counters)
}

// countersCell spells counters as "name=value;..." sorted by name.
func countersCell(c map[string]float64) string {
	names := make([]string, 0, len(c))
	for n, v := range c {
		if v == 0 && strings.HasPrefix(n, "bank_conflict_degree_") {
			continue // 32 buckets, mostly empty: the non-zero ones say it all
		}
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + formatFloat(c[n])
	}
	return strings.Join(parts, ";")
}

// launchStats are the Stat declarations launchValues fills.
func launchStats(prefix, what string) []Stat {
	return []Stat{
		{prefix + "_us", "µs", what + ": simulated time (cycles ÷ clock) or the median measured event time"},
		{prefix + "_cycles", "cycles", what + ": simulated cycles (simulator only)"},
		{prefix + "_counters", "", what + ": every counter of the launch, name=value;... (simulator only)"},
	}
}

// worstConflictDegree is the highest bank-conflict degree with accesses
// (bank_conflict_degree_N counters); ok is false without such counters.
func worstConflictDegree(c map[string]float64) (int, bool) {
	worst, found := 0, false
	for name, v := range c {
		d, err := strconv.Atoi(strings.TrimPrefix(name, "bank_conflict_degree_"))
		if err != nil || !strings.HasPrefix(name, "bank_conflict_degree_") {
			continue
		}
		found = true
		if v > 0 && d > worst {
			worst = d
		}
	}
	return worst, found
}

// ratio divides two durations, or "" when either is zero.
func ratio(num, den time.Duration) string {
	if num <= 0 || den <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(num)/float64(den), 'f', 4, 64)
}
