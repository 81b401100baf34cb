package experiments

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hq sweep covers g, bg and w+b+g with both layouts for every W on the
// small graphs, a subset on the graphs, and the lecture's regular
// graphs on hardware.
func TestHQPoints(t *testing.T) {
	e, err := Default.Lookup("hq")
	require.NoError(t, err)
	sim := e.Points(TargetSim, "h100")
	count := map[string]int{}
	seen := map[string]bool{}
	for _, p := range sim {
		require.Len(t, p, len(e.Axes))
		count[p[0]]++
		seen[p[0]+"/"+p[1]+"/"+p[2]+"/"+p[3]+"/"+p[4]] = true
	}
	assert.Equal(t, map[string]int{"rmat12": 70, "grid64": 70, "rmat16": 14, "grid256": 14}, count)
	for w := 1; w <= 32; w++ {
		for _, layout := range []string{"naive", "interleaved"} {
			assert.True(t, seen["rmat12/wbg/"+layout+"/"+strconv.Itoa(w)+"/off"], "rmat12 %s W=%d", layout, w)
		}
	}
	for _, q := range []string{"g/-/-/off", "bg/-/-/off", "bg/-/-/cta", "wbg/interleaved/8/cta", "wbg/interleaved/8/round"} {
		assert.True(t, seen["rmat16/"+q], q)
	}
	hw := map[string]bool{}
	for _, p := range e.Points(TargetHW, "") {
		hw[p[0]] = true
	}
	assert.Equal(t, map[string]bool{"rmat20": true, "grid1000": true, "regular1m-d8": true, "regular100m-d4": true, "regular100m-d8": true}, hw)
}

// Two points of the sweep on the tiny configuration in timing mode: a
// whole validated BFS each, with counted bank conflicts, and the naive
// layout counting more of them than the interleaved one at W=8.
func TestHQSweepRunsOnTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("timing-mode BFS runs skipped in -short mode")
	}
	e, err := Default.Lookup("hq")
	require.NoError(t, err)
	dir := t.TempDir()
	pl := Plan{Experiment: "hq", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing",
		Filter: []string{"graph=grid64;queue=wbg;w=8;local=off"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	conflicts := map[string]float64{}
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		assert.Equal(t, "4096", r["vertices"])
		assert.Equal(t, "127", r["iterations"], "a 64x64 grid from a corner has 127 levels")
		assert.Equal(t, "127", r["launches"], "local=off: one launch per level")
		assert.Equal(t, "0", r["single_cta_levels"])
		c, ok := r.Float("bank_conflicts")
		require.True(t, ok)
		conflicts[r["layout"]] = c
	}
	assert.Less(t, conflicts["interleaved"], conflicts["naive"])
	assert.Equal(t, 2, sum.OK)
	assert.Contains(t, sum.Files, "README.md")
}
