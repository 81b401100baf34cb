package experiments

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edge-cache on small graphs: both caches validate, the shared cache's
// updates land in shared atomics and the baseline's in global ones, and in
// PageRank (every edge proposes) the measured synchronisation degree is
// the layout's bound in every iteration.
func TestEdgeCacheRunsOnTheSimulator(t *testing.T) {
	e, err := Default.Lookup("edge-cache")
	require.NoError(t, err)
	dir := t.TempDir()
	pl := Plan{Experiment: "edge-cache", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing",
		Filter: []string{"graph=rmat"}, Params: map[string]string{"rmat": "rmat:scale=7+perm=1", "block": "64"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, 2, sum.OK)
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		shared, ok := r.Float("shared_shared_atomics")
		require.True(t, ok)
		assert.Positive(t, shared, r.Key())
		assert.Equal(t, "0", r["global_shared_atomics"], r.Key())
		ratio, ok := r.Float("global_over_shared")
		require.True(t, ok)
		assert.Positive(t, ratio)
		iterations, ok := r.Float("census_iterations")
		require.True(t, ok)
		degrees := strings.Fields(r["sync_degrees"])
		assert.Len(t, degrees, int(iterations))
		if r["algorithm"] == "pr" {
			for _, d := range degrees {
				assert.Equal(t, r["sync_degree_bound"], d, "PageRank: every edge proposes")
			}
		}
	}
}

func TestCompressRuns(t *testing.T) {
	assert.Equal(t, "1 4×3 2", compressRuns("1 4 4 4 2"))
	assert.Equal(t, "", compressRuns(""))
	assert.Equal(t, "256×2", compressRuns("256 256"))
}
