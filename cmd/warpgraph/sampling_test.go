package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/sim"
)

// TestSampledModeWhereItDoesNotApply: --sim-mode sampled (and any
// --sim-mode) is refused in one line, exit 2, where no simulator runs or
// where a flag needs every launch's cycles.
func TestSampledModeWhereItDoesNotApply(t *testing.T) {
	bfs := []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4"}
	sampled := append(append([]string{}, bfs...), "--target", "sim", "--config", "tiny", "--sim-mode", "sampled")
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"run on hw", append(bfs, "--target", "hw", "--sim-mode", "sampled"), "--sim-mode sampled applies to --target sim"},
		{"run on the cpu", append(bfs, "--sim-mode", "sampled"), "--sim-mode applies to device runs"},
		{"profile", append(sampled, "--profile"), "--sim-mode sampled simulates only some launches in detail"},
		{"trace", append(sampled, "--trace", "t"), "--sim-mode sampled simulates only some launches in detail"},
		{"monitor", append(sampled, "--monitor"), "--sim-mode sampled runs most launches without it"},
		{"unknown mode", append(bfs, "--target", "sim", "--sim-mode", "sample"), `want "timing", "functional" or "sampled"`},
		{"micro on hw", []string{"micro", "stream", "--sim-mode", "sampled"}, "--sim-mode sampled applies to --target sim"},
		{"sweep on hw", []string{"sweep", "simhw", "--target", "hw", "--sim-mode", "sampled", "--out", t.TempDir()}, "--sim-mode sampled applies to --target sim"},
		{"sweep unknown mode", []string{"sweep", "simhw", "--sim-mode", "fast", "--out", t.TempDir()}, "unknown mode"},
		{"inside in timing mode", append(bfs, "--target", "sim", "--config", "tiny", "--sample-inside"), "--sample-inside applies to --target sim --sim-mode sampled"},
		{"inside on hw", append(bfs, "--target", "hw", "--sample-inside=4"), "--sample-inside applies to --target sim --sim-mode sampled"},
		{"inside negative", append(sampled, "--sample-inside=-1"), "--sample-inside -1 must be a positive ratio"},
		{"slice without inside", append(sampled, "--sample-slice=4"), "--sample-slice applies with --sample-inside"},
		{"slice negative", append(sampled, "--sample-inside", "--sample-slice=-1"), "--sample-slice -1: use 1 to 65536 instructions"},
		{"slice too long", append(sampled, "--sample-inside", "--sample-slice=65537"), "--sample-slice 65537: use 1 to 65536 instructions"},
		{"rounds without inside", append(sampled, "--sample-rounds=0"), "--sample-rounds applies with --sample-inside"},
		{"rounds negative", append(sampled, "--sample-inside", "--sample-rounds=-2"), "--sample-rounds -2: use a pace of 0 or more"},
		{"rounds not a number", append(sampled, "--sample-inside", "--sample-rounds=NaN"), "--sample-rounds NaN: use a pace of 0 or more"},
		{"stops only without inside", append(sampled, "--sample-stops-only"), "--sample-stops-only applies with --sample-inside"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, status, stderr)
			assert.Contains(t, stderr, tc.mention)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
		})
	}
}

// TestRunSampledSaysSo: a sampled run's table and JSON say that it is
// sampled, what ran in detail and the estimated error, beside its times.
func TestRunSampledSaysSo(t *testing.T) {
	run := []string{"run", "--algo", "bfs", "--graph", "grid:w=12,h=12", "--target", "sim", "--config", "tiny", "--sim-mode", "sampled"}
	stdout, stderr, status := runCLI(t, run...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Regexp(t, `sim \(sampled, config tiny, parallel engine on \d+ threads\)`, stdout)
	assert.Regexp(t, `(?m)^end-to-end time \(simulated\) +\S+`, stdout)
	assert.Regexp(t, `(?m)^sampled +\d+ of \d+ launches simulated in detail, .*estimated error ±\d+\.\d+% of the simulated time`, stdout)
	assert.Regexp(t, `(?m)^sampled kernels +bfs\.bfs_bsp_base_push \d+/\d+ \(.*warm-up 3`, stdout)
	assert.Contains(t, stdout, "PASS")

	for _, extra := range [][]string{nil, {"--sources", "2"}} {
		stdout, stderr, status = runCLI(t, append(append(run, "--json"), extra...)...)
		require.Equal(t, exitSuccess, status, stderr)
		var res struct {
			SimMode  string  `json:"sim_mode"`
			EndToEnd float64 `json:"end_to_end_seconds"`
			Sampling *struct {
				Summary        string  `json:"summary"`
				Launches       int     `json:"launches"`
				Detailed       int     `json:"detailed"`
				EstimatedError float64 `json:"estimated_error"`
				Kernels        []struct {
					Kernel   string         `json:"kernel"`
					Launches int            `json:"launches"`
					Reasons  map[string]int `json:"reasons"`
				} `json:"kernels"`
			} `json:"sampling"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &res))
		assert.Equal(t, "sampled", res.SimMode)
		require.NotNil(t, res.Sampling, "%v", extra)
		assert.Contains(t, res.Sampling.Summary, "launches simulated in detail")
		assert.Less(t, res.Sampling.Detailed, res.Sampling.Launches)
		require.Len(t, res.Sampling.Kernels, 1)
		assert.Equal(t, 3, res.Sampling.Kernels[0].Reasons["warm-up"])
		if extra == nil {
			assert.Positive(t, res.EndToEnd)
		}
	}

	// Timing and functional runs carry no sampling object.
	stdout, stderr, status = runCLI(t, "run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--target", "sim", "--config", "tiny", "--json")
	require.Equal(t, exitSuccess, status, stderr)
	assert.NotContains(t, stdout, `"sampling"`)
}

// TestMicroSampledSaysSo: micro in sampled mode notes it under each table.
func TestMicroSampledSaysSo(t *testing.T) {
	stdout, stderr, status := runCLI(t, "micro", "stream", "--target", "sim", "--config", "tiny", "--sim-mode", "sampled", "--elements", "4096")
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "sampled: ")
	assert.Contains(t, stdout, "launches simulated in detail")
}

// TestStretchChargesNameWhatEachKernelWasChargedBy: the sampled line says
// how many kernels' functional stretches were charged by warp-instructions
// and how many by changes, and nothing where no kernel ran in stretches.
func TestStretchChargesNameWhatEachKernelWasChargedBy(t *testing.T) {
	assert.Empty(t, stretchCharges([]sim.KernelSampling{{Kernel: "a"}}))
	assert.Equal(t, ", by warp-instructions (2 kernels) and changes (1 kernel)", stretchCharges([]sim.KernelSampling{
		{Kernel: "a", StretchCharge: "changes"}, {Kernel: "b", StretchCharge: "warp_instructions"},
		{Kernel: "c"}, {Kernel: "d", StretchCharge: "warp_instructions"}}))
	assert.Equal(t, ", by changes (1 kernel)", stretchCharges([]sim.KernelSampling{{Kernel: "a", StretchCharge: "changes"}}))
}
