package experiments

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Speedups compare rows of one host whatever GPU count its rows name, and
// the plots draw from them.
func TestMultiGPUSpeedupsAcrossSystemSizes(t *testing.T) {
	row := func(gpus, method, us, eff string) Row {
		return Row{"target": TargetHW, "device": gpus + " × NVIDIA H200", "graph": "rmat", "algorithm": "bfs", "gpus": gpus,
			"method": method, "end_to_end_us": us, "communication_efficiency": eff, "status": "ok"}
	}
	rows := []Row{row("1", "vr-online", "100", ""), row("2", "all", "80", "0.1"), row("2", "vr-online", "50", "1"), row("4", "vr-online", "40", "1"),
		row("1", "atos", "200", ""), row("4", "atos", "50", "")}
	sped := multiGPUSpeedups(rows)
	require.Len(t, sped, 6)
	for _, r := range sped {
		if r["gpus"] == "4" {
			want := map[string]string{"vr-online": "2.5", "atos": "4"}[r["method"]] // atos over its own one GPU
			assert.Equal(t, want, r["speedup"], r["method"])
		}
	}
	files, err := plotMultiGPU(rows, t.TempDir())
	require.NoError(t, err)
	assert.Len(t, files, 4, "speedup and efficiency, PNG and SVG")
	findings := multiGPUFindings(rows)
	require.Len(t, findings, 2)
	assert.Contains(t, findings[1], "rmat bfs 2.50× (vr-online)", "the fastest by time, not by speedup")
}

// Each graph and algorithm has one one-GPU point per family (vr-online for
// the exchanges, atos for the workers) and every method on several GPUs.
func TestMultiGPUPointsIncludeAtos(t *testing.T) {
	points := multiGPUPoints(TargetHW, "")
	count := map[string]int{}
	for _, p := range points {
		count[p[2]+" "+p[3]]++
	}
	assert.Equal(t, 10, count["1 vr-online"])
	assert.Equal(t, 10, count["1 atos"])
	assert.Equal(t, 0, count["1 all"])
	assert.Equal(t, 10, count["8 atos"])
}
