package experiments

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atos-table1 runs Table 1's workers on its four graphs: every point
// validates, the overwork and colours reach their columns, and the
// findings name each (graph, algorithm)'s winner by its Table 1 column.
func TestAtosTable1RunsTheWorkersWithOverwork(t *testing.T) {
	e, err := Default.Lookup("atos-table1")
	require.NoError(t, err)
	require.Len(t, e.Points(TargetSim, "tiny"), 4*3*len(atosTable1Workers))
	dir := t.TempDir()
	pl := Plan{Experiment: "atos-table1", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing",
		Filter: []string{"graph=rmat|grid2;algorithm=bfs|color;variant=bsp|atos:mode=persistent,worker=warp*"},
		Params: map[string]string{"rmat_spec": "rmat:scale=6+perm=1", "grid_spec": "grid:w=4,h=4", "rmat2_spec": "rmat:scale=5",
			"grid2_spec": "grid:w=16,h=2", "grid": "2"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 8, sum.OK, "two graphs × two algorithms × two workers")
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		if r["algorithm"] == "color" {
			assert.NotEmpty(t, r["colours"], r.Key())
			assert.NotEmpty(t, r["overwork"], r.Key())
		}
		if r["variant"] != "bsp" {
			w, ok := r.Float("overwork")
			assert.True(t, ok && w >= 1, "%s: overwork %q", r.Key(), r["overwork"])
			assert.NotEmpty(t, r["queue_pops"], r.Key())
		}
	}
	findings := strings.Join(atosTable1Findings(rows), "\n")
	assert.Contains(t, findings, "8 of 8 cells")
	for _, g := range []string{"rmat, bfs", "grid2, color"} {
		assert.Contains(t, findings, "tiny, "+g+"**: ")
	}
	assert.Contains(t, findings, "persist-warp")
}
