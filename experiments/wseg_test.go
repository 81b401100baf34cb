package experiments

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small wseg sweep in functional mode: every point validates, records
// its efficiency per sweep, and warp segmentation comes out more SIMD
// efficient than a warp per vertex on the scale-free graph.
func TestWsegSweepComparesMappings(t *testing.T) {
	e, err := Default.Lookup("wseg")
	require.NoError(t, err)
	dir := t.TempDir()
	pl := Plan{Experiment: "wseg", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "functional",
		Filter: []string{"graph=rmat;algorithm=sssp|pr;variant=wseg|vwc:k=32"},
		Params: map[string]string{"rmat_spec": "rmat:scale=8+perm=1", "grid_spec": "grid:w=8,h=8", "source": "max"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 4, sum.OK)
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	efficiency := map[string]float64{}
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		assert.Equal(t, "256", r["vertices"])
		assert.NotEmpty(t, r["efficiency_per_sweep"])
		x, ok := r.Float("warp_execution_efficiency")
		require.True(t, ok, r.Key())
		efficiency[r["algorithm"]+" "+r["variant"]] = x
	}
	for _, alg := range []string{"sssp", "pr"} {
		assert.Greater(t, efficiency[alg+" wseg"], efficiency[alg+" vwc:k=32"], alg)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "warp execution efficiency")
	assert.Contains(t, sum.Files, "wseg-efficiency.png")
}

func TestWsegFindingsCompareWithTheBestVirtualWarp(t *testing.T) {
	row := func(variant, eff, us, warps string) Row {
		return Row{"status": StatusOK, "target": TargetSim, "config": "h100", "graph": "rmat", "algorithm": "bfs",
			"variant": variant, "warp_execution_efficiency": eff, "kernel_us": us, "warp_instructions": warps, "sweeps": "10"}
	}
	rows := []Row{row("wseg", "0.9", "50", "3000"), row("vwc:k=2", "0.4", "100", "2000"), row("vwc:k=4", "0.5", "90", "2500"),
		row("vwc:k=8", "0.6", "80", "4000"), row("vwc:k=16", "0.5", "85", "5000"), row("vwc:k=32", "0.3", "120", "9000")}
	got := wsegFindings(rows)
	require.Len(t, got, 2)
	assert.Contains(t, got[0], "90.0% under wseg vs 60.0% under the best VWC (vwc:k=8)")
	assert.Contains(t, got[0], "300 warp-instructions per sweep under wseg vs 200 under the leanest VWC (vwc:k=2): 1.50× as many")
	assert.Contains(t, got[0], "50 µs under wseg vs 80 µs under the fastest VWC (vwc:k=8): 1.60× (wseg faster)")
	assert.Contains(t, got[1], "1.60–1.60×")
	partial := wsegFindings(rows[:3])
	require.Len(t, partial, 1)
	assert.Contains(t, partial[0], "incomplete (3 of 6 variants ran)")
}
