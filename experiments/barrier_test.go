package experiments

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBarrierGridFollowsTheDevice(t *testing.T) {
	tests := []struct {
		grid       string
		limit, sms int
		want       int
	}{
		{"1", 2112, 132, 1},
		{"sms", 2112, 132, 132},
		{"limit/4", 2112, 132, 528},
		{"limit/2", 1280, 80, 640},
		{"limit", 240, 15, 240},
		{"limit+1", 240, 15, 241},
		{"sms", 8, 16, 8},    // fewer CTAs fit than there are SMs
		{"limit/4", 2, 2, 1}, // never an empty grid
	}
	for _, tc := range tests {
		t.Run(tc.grid, func(t *testing.T) {
			got, err := barrierGrid(tc.grid, tc.limit, tc.sms)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := barrierGrid("limit*2", 8, 2)
	assert.ErrorContains(t, err, "limit+1")
}

// The sweep on the tiny configuration (2 SMs, 4 CTAs of 128 threads
// each: a limit of 8): within the limit every barrier completes and costs
// something per round; one CTA past it the detector diagnoses the
// deadlock, and the cooperative launch is refused; both are ok points.
func TestBarrierSweepFindsTheDeadlockBoundary(t *testing.T) {
	e, err := Default.Lookup("barrier")
	require.NoError(t, err)
	dir := t.TempDir()
	pl := Plan{Experiment: "barrier", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing",
		Filter: []string{"barrier=monitor-serial|counter|coop;grid=sms|limit|limit+1"},
		Params: map[string]string{"rounds": "2"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 9, sum.OK, "every point, the deadlocks too, is ok")
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	byKey := map[string]Row{}
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s %s", r.Key(), r["error"], r["validation"])
		assert.Equal(t, "8", r["limit_ctas"], r.Key())
		assert.Equal(t, "4", r["ctas_per_sm"], r.Key())
		byKey[r["barrier"]+" "+r["grid"]] = r
	}
	for _, impl := range []string{"monitor-serial", "counter", "coop"} {
		at := byKey[impl+" limit"]
		assert.Equal(t, "8", at["ctas"])
		assert.Equal(t, barrierCompleted, at["outcome"])
		x, ok := at.Float("cycles_per_round")
		require.True(t, ok, impl)
		assert.Positive(t, x, impl)
		assert.Equal(t, "2", byKey[impl+" sms"]["ctas"])
		past := byKey[impl+" limit+1"]
		assert.Equal(t, "9", past["ctas"])
		assert.Empty(t, past["us_per_round"])
		if impl == "coop" {
			assert.Equal(t, barrierRefused, past["outcome"])
			assert.Empty(t, past["end_us"])
		} else {
			assert.Equal(t, barrierDeadlock, past["outcome"], past["validation"])
			assert.NotEmpty(t, past["end_us"])
		}
		assert.Contains(t, past["validation"], "as expected")
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "the deadlock boundary: 3 of 3 implementations complete at the limit (8 CTAs); one CTA past it, 9: deadlock ×2, refused ×1 (3 of 3 the expected end)")
	assert.Contains(t, sum.Files, "barrier-sim-tiny.png")
	assert.Contains(t, sum.Files, "barrier-limit.png")
}

func TestBarrierFindingsCompareImplementationsAndTargets(t *testing.T) {
	row := func(target, config, impl, grid, ctas, us, outcome string) Row {
		return Row{"status": StatusOK, "target": target, "config": config, "device": "NVIDIA H100", "barrier": impl, "grid": grid,
			"ctas": ctas, "ctas_per_sm": "16", "us_per_round": us, "outcome": outcome}
	}
	rows := []Row{
		row(TargetSim, "h100", "counter", "sms", "132", "2", barrierCompleted),
		row(TargetSim, "h100", "counter", "limit", "2112", "4", barrierCompleted),
		row(TargetSim, "h100", "tree", "sms", "132", "1", barrierCompleted),
		row(TargetSim, "h100", "tree", "limit", "2112", "8", barrierCompleted),
		row(TargetSim, "h100", "tree", "limit+1", "2113", "", barrierDeadlock),
		row(TargetHW, "", "counter", "limit", "2112", "8", barrierCompleted),
		row(TargetHW, "", "tree", "limit", "2112", "10", barrierCompleted),
		{"status": StatusInvalid, "target": TargetHW, "barrier": "tree", "grid": "limit+1", "ctas": "2113", "outcome": barrierCompleted, "device": "NVIDIA H100"},
	}
	got := barrierFindings(rows)
	require.Len(t, got, 8)
	assert.Equal(t, "**sim h100**, at the co-resident limit of 2112 CTAs (16 per SM): counter 4.00 µs < tree 8.00 µs per round; the slowest takes 2.0× the fastest.", got[0])
	assert.Equal(t, "**sim h100**: from one CTA per SM to the limit a round costs counter 2.0×, tree 8.0× as much; fastest: tree at 132, counter at 2112.", got[1])
	assert.Contains(t, got[2], "2 of 2 implementations complete at the limit (2112 CTAs); one CTA past it, 2113: deadlock ×1 (1 of 1 the expected end)")
	assert.Contains(t, got[5], "0 of 1 the expected end")
	assert.Equal(t, "**sim h100 vs NVIDIA H100**, cost per round at the limit, simulated ÷ measured: counter 0.50×, tree 0.80× (range 0.50–0.80×).", got[6])
	assert.Equal(t, "1 points failed or did not validate (listed below).", got[7])
}
