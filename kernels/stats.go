package kernels

import "strings"

// Counters of several launches combine by kind, so a driver that launches a
// kernel many times (one BFS level per launch) reports figures that mean
// the same as one launch's:
//   - counters named max_* and the device constant "sms" take the maximum;
//   - the ratios in derivedCounters are recomputed from their summed parts
//     (a sum or average of per-launch ratios would weigh a 10-cycle launch
//     like a 10,000-cycle one);
//   - every other counter is a count or an amount and adds up.

// derivedCounters recompute a ratio from counters that add up. A ratio
// whose parts the device did not report is dropped rather than guessed.
var derivedCounters = map[string]func(c map[string]float64) (float64, bool){
	"ipc_total": func(c map[string]float64) (float64, bool) { return ratio(c, "warp_instructions", "cycles") },
	"ipc": func(c map[string]float64) (float64, bool) {
		v, ok := ratio(c, "warp_instructions", "cycles")
		if !ok || c["sms"] == 0 {
			return 0, false
		}
		return v / c["sms"], true
	},
	"warp_execution_efficiency": func(c map[string]float64) (float64, bool) {
		v, ok := ratio(c, "thread_instructions", "warp_instructions")
		return v / 32, ok
	},
	"achieved_occupancy": func(c map[string]float64) (float64, bool) {
		return ratio(c, "resident_warp_cycles", "warp_slot_cycles")
	},
	"l1_hit_rate": func(c map[string]float64) (float64, bool) { return ratio(c, "l1_read_hits", "l1_reads") },
	"l2_hit_rate": func(c map[string]float64) (float64, bool) { return ratio(c, "l2_read_hits", "l2_reads") },
}

func ratio(c map[string]float64, num, den string) (float64, bool) {
	d, ok := c[den]
	if !ok {
		return 0, false
	}
	if d == 0 {
		return 0, true
	}
	return c[num] / d, true
}

// Add folds another launch into s: times and cycles add, Samples append,
// and Counters combine by the rules above.
func (s *LaunchStats) Add(o LaunchStats) {
	s.Elapsed += o.Elapsed
	s.Cycles += o.Cycles
	s.Samples = append(s.Samples, o.Samples...)
	if len(o.Counters) == 0 {
		return
	}
	if s.Counters == nil {
		s.Counters = map[string]float64{}
	}
	for name, v := range o.Counters {
		if _, derived := derivedCounters[name]; derived {
			continue
		}
		if name == "sms" || strings.HasPrefix(name, "max_") {
			s.Counters[name] = max(s.Counters[name], v)
			continue
		}
		s.Counters[name] += v
	}
	for name, f := range derivedCounters {
		if _, reported := o.Counters[name]; !reported {
			continue
		}
		if v, ok := f(s.Counters); ok {
			s.Counters[name] = v
		} else {
			delete(s.Counters, name)
		}
	}
}
