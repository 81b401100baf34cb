package experiments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arch-sweep on inline overrides of tiny: each row names the override it
// ran, records the machine it got, validates, and the report finds a
// winner per machine and draws both figures.
func TestArchSweepRunsOnOverrides(t *testing.T) {
	e, err := Default.Lookup("arch-sweep")
	require.NoError(t, err)
	dir := t.TempDir()
	configs := []string{"tiny+sms=1", "tiny+sms=2", "tiny+sms=1+memory.l2_slices=1", "tiny+sms=2+memory.l2_slices=1"}
	pl := Plan{Experiment: "arch-sweep", Target: TargetSim, Configs: configs, SimMode: "timing",
		Filter: []string{"graph=grid;variant=bsp|atos"}, Params: map[string]string{"grid_spec": "grid:w=8,h=8", "block": "64"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	assert.Equal(t, 8, sum.OK)
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	require.Len(t, rows, 8)
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		assert.Contains(t, configs, r["config"])
		assert.True(t, strings.HasPrefix(r.Key(), "config="+r["config"]+";"), r.Key())
		assert.Equal(t, "warpgraph sim "+r["config"], r["device"])
		sms := strings.TrimPrefix(smsSetting.FindString(r["config"]), "+sms=")
		assert.Equal(t, sms, r["sms"], "the machine got the override's SM count")
		assert.Equal(t, r["sms"], r["grid"], "one CTA per SM")
		if strings.Contains(r["config"], "l2_slices=1") {
			assert.Equal(t, "1", r["l2_slices"])
		} else {
			assert.Equal(t, "4", r["l2_slices"], "tiny's own")
		}
		assert.NotEmpty(t, r["kernel_us"])
		assert.NotEmpty(t, r["cycles"])
	}
	assert.Contains(t, sum.Files, "arch-sweep-kernel.png")
	assert.Contains(t, sum.Files, "arch-sweep-e2e.png")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "**grid, tiny memory**, fastest by kernel time: 1 SMs")
	assert.Contains(t, string(readme), "**grid, l2_slices=1**, fastest by kernel time")
	assert.Contains(t, string(readme), "changes the winner in")
}

func TestArchMemory(t *testing.T) {
	for _, tc := range []struct{ config, memory, label, smsOnly string }{
		{"h100+sms=16", "h100", "h100 memory", "h100+sms=16"},
		{"h100+sms=132+memory.l2_slices=20", "h100+memory.l2_slices=20", "l2_slices=20", "h100+sms=132"},
		{"h100+memory.atomic_ops_per_cycle=2.64+sms=33+memory.atomic_same_address_cycles=0.375",
			"h100+memory.atomic_ops_per_cycle=2.64+memory.atomic_same_address_cycles=0.375",
			"atomic_ops_per_cycle=2.64, atomic_same_address_cycles=0.375", "h100+sms=33"},
		{"h100", "h100", "h100 memory", "h100"},
	} {
		assert.Equal(t, tc.memory, archMemory(tc.config), tc.config)
		assert.Equal(t, tc.label, archMemoryLabel(archMemory(tc.config)), tc.config)
		assert.Equal(t, tc.smsOnly, smsOnly(tc.config), tc.config)
	}
	assert.Len(t, archConfigs(), len(archSMs)*len(archMemories))
	assert.Equal(t, "+memory.atomic_ops_per_cycle=0.1125+memory.atomic_same_address_cycles=22+memory.atomic_same_line_cycles=10", archMemories[3], "a quarter of the h100's atomic throughput")
	assert.Equal(t, "+memory.atomic_ops_per_cycle=1.8+memory.atomic_same_address_cycles=1.375+memory.atomic_same_line_cycles=0.625", archMemories[4], "four times")
	assert.Equal(t, "h100+sms=16", archConfigs()[0])
}

// The findings name each machine's winner and where it changes.
func TestArchSweepFindings(t *testing.T) {
	row := func(config, sms, variant, kernel string) Row {
		return Row{"status": StatusOK, "graph": "rmat", "config": config, "sms": sms, "variant": variant,
			"kernel_us": kernel, "end_to_end_us": kernel}
	}
	rows := []Row{
		row("h100+sms=16", "16", "bsp", "100"), row("h100+sms=16", "16", "atos", "50"),
		row("h100+sms=132", "132", "bsp", "20"), row("h100+sms=132", "132", "atos", "40"),
		row("h100+sms=16+memory.l2_slices=20", "16", "bsp", "40"), row("h100+sms=16+memory.l2_slices=20", "16", "atos", "60"),
		row("h100+sms=132+memory.l2_slices=20", "132", "bsp", "30"), row("h100+sms=132+memory.l2_slices=20", "132", "atos", "45"),
	}
	findings := archSweepFindings(rows)
	got := strings.Join(findings, "\n")
	assert.True(t, strings.HasPrefix(findings[1], "By kernel time, the winner changes"), "summaries come first")
	assert.Contains(t, got, "**rmat, h100 memory**, fastest by kernel time: 16 SMs atos (50 µs, next 2.00× slower); 132 SMs bsp (20 µs, next 2.00× slower).")
	assert.Contains(t, got, "By kernel time, the winner changes with the SM count in 1 of 2 (graph, memory system) series: rmat, h100 memory: atos (16 SMs) → bsp (132 SMs).")
	assert.Contains(t, got, "By kernel time, changing the memory system at a fixed SM count changes the winner in 1 of 2 machines: rmat h100+sms=16+memory.l2_slices=20 (bsp instead of atos).")
	assert.Contains(t, got, "**rmat, h100 memory**: kernel-time speedup from 16 to 132 SMs: bsp 5.00×, atos 1.25×.")
	assert.Contains(t, got, "**rmat, l2_slices=20** at 132 SMs: kernel time ÷ the h100 memory system's: bsp 1.50×, atos 1.12×.")
}
