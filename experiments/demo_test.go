package experiments

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// The main job's plan names registered algorithms, parseable graphs and
// variants, and runs only on its own graphs.
func TestDemoPlanIsRunnable(t *testing.T) {
	plan := DemoPlan()
	for _, spec := range plan.Graphs {
		_, err := graph.ParseSpec(spec)
		assert.NoError(t, err, spec)
	}
	for _, algo := range append([]string{plan.Algorithm}, plan.CPU...) {
		_, err := scheduler.LookupAlgorithm(algo)
		assert.NoError(t, err, algo)
	}
	require.NotEmpty(t, plan.Runs)
	for _, run := range plan.Runs {
		assert.Contains(t, plan.Graphs, run.Graph)
		_, err := scheduler.ParseVariant(run.Variant)
		assert.NoError(t, err, run.Variant)
	}
}
