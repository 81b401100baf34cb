package scheduler_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// Every algorithm's CPU reference is checked by something independent of
// itself, and passes, on a skewed directed graph and an undirected one.
func TestEveryCPUReferenceIsCheckedIndependently(t *testing.T) {
	for _, spec := range []string{"rmat:scale=7,directed=1", "rmat:scale=7"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		require.NoError(t, err)
		for _, a := range scheduler.Algorithms() {
			require.NotNil(t, a.CPU, a.Name)
			params, err := a.ResolveParams(g, a.Select(scheduler.Params{"source": 0, "k": 3, "seed": 1}))
			require.NoError(t, err)
			r := a.CPU(g, params)
			assert.True(t, r.Checked, "%s on %s: %s", a.Name, spec, r.Method)
			assert.True(t, r.Validation.OK(), "%s on %s: %v", a.Name, spec, r.Validation.Err())
			assert.Positive(t, r.Validation.Checked, "%s on %s compared vertices", a.Name, spec)
		}
	}
}
