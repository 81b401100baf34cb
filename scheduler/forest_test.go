package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// afforest runs WCC, whose module has the Forest entries, and refuses an
// algorithm whose module lacks them, naming the first missing entry.
func TestAfforestNeedsItsEntries(t *testing.T) {
	v, err := ParseVariant("afforest")
	require.NoError(t, err)
	wcc, err := LookupAlgorithm("wcc")
	require.NoError(t, err)
	assert.NoError(t, v.Scheduler.Supports(wcc, v))
	bfs, err := LookupAlgorithm("bfs")
	require.NoError(t, err)
	assert.EqualError(t, v.Scheduler.Supports(bfs, v), "bfs has no entry bfs_afforest_link_round for afforest")
	assert.Error(t, Supports(bfs, v), "bfs has no Forest form")
}
