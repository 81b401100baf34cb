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
	rows := []Row{row("1", "vr-online", "100", ""), row("2", "all", "80", "0.1"), row("2", "vr-online", "50", "1"), row("4", "vr-online", "40", "1")}
	sped := multiGPUSpeedups(rows)
	require.Len(t, sped, 4)
	for _, r := range sped {
		if r["gpus"] == "4" {
			assert.Equal(t, "2.5", r["speedup"])
		}
	}
	files, err := plotMultiGPU(rows, t.TempDir())
	require.NoError(t, err)
	assert.Len(t, files, 4, "speedup and efficiency, PNG and SVG")
	findings := multiGPUFindings(rows)
	require.Len(t, findings, 2)
	assert.Contains(t, findings[1], "rmat bfs 2.50× (vr-online)")
}
