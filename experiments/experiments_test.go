package experiments

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The registered experiments run one small point each on the tiny
// configuration (timing mode: the statistics they record need cycles).
func TestRegisteredExperimentsRunOnTheSimulator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		filter []string
		params map[string]string
		check  func(t *testing.T, r Row)
	}{
		{"atomics", []string{"geometry=cta;degree=4|512"}, map[string]string{"reps": "2"}, func(t *testing.T, r Row) {
			assert.NotEmpty(t, r["shared_cycles"])
			assert.NotEmpty(t, r["global_us"])
			assert.Contains(t, r["shared_counters"], "shared_atomics=")
			assert.Equal(t, "4", r["worst_serialization_shared"], "degree 4: four lanes per address")
		}},
		{"atomic-occupancy", []string{"ctas=1|4;degree=32"}, map[string]string{"reps": "2"}, func(t *testing.T, r Row) {
			assert.Equal(t, "1", r["ctas"])
			assert.NotEmpty(t, r["global_cycles"])
			worst, ok := r.Float("worst_serialization_global")
			require.True(t, ok)
			assert.True(t, worst > 1 && worst <= 32, "degree 32: up to a warp's lanes per address, got %v", worst)
			ops, ok := r.Float("global_lane_ops_per_ns")
			require.True(t, ok)
			us, ok := r.Float("global_us")
			require.True(t, ok)
			assert.InDelta(t, 1024*2/(us*1000), ops, 1e-3*ops, "one CTA of 1024 threads, 2 atomics each")
		}},
		{"atomic-spread", []string{"stride=4|4096"}, map[string]string{"reps": "2"}, func(t *testing.T, r Row) {
			assert.NotEmpty(t, r["spread_cycles"])
			assert.Contains(t, r["validation"], "exact")
		}},
		{"banks", []string{"stride=8|32"}, map[string]string{"reps": "4", "grid": "1", "block": "64"}, func(t *testing.T, r Row) {
			assert.Equal(t, "8", r["expected_degree"])
			assert.Equal(t, "8", r["plain_degree"])
			assert.Equal(t, "1", r["padded_degree"])
			assert.Equal(t, "1", r["grid_ctas"])
		}},
		{"bsp-corpus", []string{"graph=grid16;algorithm=bfs|pr;variant=bsp"}, nil, func(t *testing.T, r Row) {
			assert.Equal(t, "256", r["vertices"])
			assert.NotEmpty(t, r["cycles"])
			assert.NotEmpty(t, r["frontiers"])
			assert.Contains(t, r["validation"], "OK")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Default.Lookup(tc.name)
			require.NoError(t, err)
			dir := t.TempDir()
			pl := Plan{Experiment: tc.name, Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing", Filter: tc.filter, Params: tc.params}
			sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
			require.NoError(t, err)
			_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
			require.NoError(t, err)
			require.Len(t, rows, 2)
			for _, r := range rows {
				require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
			}
			assert.Equal(t, 2, sum.OK)
			tc.check(t, rows[0])
			assert.Contains(t, sum.Files, "README.md")
			assert.FileExists(t, filepath.Join(dir, sum.Files[0]))
		})
	}
}
