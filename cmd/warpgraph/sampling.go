package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/warpgraph/warpgraph/sim"
)

// --sim-mode sampled (sim.ModeSampled): what a sampled run prints, and
// where the mode applies.

// samplingReport is a sampled run's "sampling" object in --json: the
// device's report (sim.SamplingReport) and the table's line.
type samplingReport struct {
	Summary string `json:"summary"`
	*sim.SamplingReport
}

// sampling returns the sampled simulator's report so far, nil for any
// other device or mode.
func (e *deviceEnv) sampling() *samplingReport {
	if e == nil || e.sim == nil {
		return nil
	}
	r, ok := e.sim.SamplingReport()
	if !ok {
		return nil
	}
	return &samplingReport{Summary: samplingLine(r), SamplingReport: &r}
}

// samplingLine says, in one line, what a sampled run simulated in detail
// and its estimated error.
func samplingLine(r sim.SamplingReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d launches simulated in detail, the rest functionally with predicted cycles", r.Detailed, r.Launches)
	if r.Stopped > 0 {
		fmt.Fprintf(&b, "; %d of them in detailed and functional stretches (%.3g ms in detail, %.3g ms charged to functional stretches%s)",
			r.Stopped, 1e3*r.StoppedDetailSeconds, 1e3*r.ExtrapolatedSeconds, stretchCharges(r.Kernels))
		if r.Swung > 0 {
			fmt.Fprintf(&b, ", %d of which ran the rest in detail once the pace had swung %gx both ways", r.Swung, float64(sim.SampleSwing))
		}
	}
	if r.HeldOut > 0 {
		fmt.Fprintf(&b, "; held-out prediction error median %.1f%%, max %.1f%% (%d launches)", 100*r.HeldOutMedianError, 100*r.HeldOutMaxError, r.HeldOut)
	}
	if r.HeldOutFar > 0 || r.PredictedFar > 0 {
		fmt.Fprintf(&b, "; beyond %gx the sampled work: %d predicted, %d held out", sim.SampleFarFactor, r.PredictedFar, r.HeldOutFar)
		if r.HeldOutFar > 0 {
			fmt.Fprintf(&b, " (error median %.0f%%)", 100*r.HeldOutFarMedianError)
		}
	}
	switch {
	case r.EstimatedError < 0:
		b.WriteString("; estimated error unknown (no prediction could be checked)")
	case r.Detailed == r.Launches && r.Stopped == 0:
		b.WriteString("; estimated error ±0% (every launch in detail)")
	default:
		fmt.Fprintf(&b, "; estimated error ±%.2f%% of the simulated time", 100*r.EstimatedError)
	}
	if r.Stopped > 0 {
		// Measured against full timing, stretches missed by more than
		// their estimate where warps race (results/sampled).
		b.WriteString(" (the stretches' part of it sees changes of pace only, not other work that racing warps do in functional stretches)")
	}
	return b.String()
}

// stretchCharges says what the kernels run in stretches were charged by
// (sim.KernelSampling.StretchCharge): ", by warp-instructions (2 kernels)
// and changes (1)".
func stretchCharges(ks []sim.KernelSampling) string {
	n := map[string]int{}
	for _, k := range ks {
		if k.StretchCharge != "" {
			n[k.StretchCharge]++
		}
	}
	var parts []string
	for _, c := range []struct{ key, words string }{{sim.ChargeWarpInstructions, "warp-instructions"}, {sim.ChargeChanges, "changes"}} {
		if n[c.key] > 0 {
			unit := "kernels"
			if n[c.key] == 1 {
				unit = "kernel"
			}
			parts = append(parts, fmt.Sprintf("%s (%d %s)", c.words, n[c.key], unit))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ", by " + strings.Join(parts, " and ")
}

// addSamplingRows adds a sampled run's rows to run's table.
func addSamplingRows(t *table, s *samplingReport) {
	if s == nil {
		return
	}
	t.add("sampled", s.Summary)
	var kernels []string
	for _, k := range s.Kernels {
		var why []string
		for _, reason := range slices.Sorted(maps.Keys(k.Reasons)) {
			why = append(why, fmt.Sprintf("%s %d", reason, k.Reasons[reason]))
		}
		line := fmt.Sprintf("%s %d/%d (%s)", k.Kernel, k.Detailed, k.Launches, strings.Join(why, ", "))
		if k.Stopped > 0 {
			line = fmt.Sprintf("%s %d/%d (%s; %d in stretches)", k.Kernel, k.Detailed, k.Launches, strings.Join(why, ", "), k.Stopped)
		}
		kernels = append(kernels, line)
	}
	t.add("sampled kernels", strings.Join(kernels, "; "))
	t.add("note", "sampled mode: times add predicted cycles; memory and contention counters count only the launches simulated in detail")
}

// checkSimMode refuses --sim-mode where no simulator runs (the CPU
// reference has its own message) and an unknown mode.
func checkSimMode(target, mode string, given bool) error {
	switch {
	case target == "sim":
		if _, err := sim.ParseMode(mode); err != nil {
			return &inputError{err}
		}
	case target == "hw" && given:
		return badInput("--sim-mode %s applies to --target sim; --target hw runs on the GPU", mode)
	}
	return nil
}
