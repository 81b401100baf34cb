package scheduler

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSimdxRunsBPClassified checks that simdx runs belief propagation in
// the Classified form, that only the classes' bounds may change, and that
// classifyBy deals vertices by the degree it is given.
func TestSimdxRunsBPClassified(t *testing.T) {
	bp, err := LookupAlgorithm("bp")
	require.NoError(t, err)
	for name, refused := range map[string]string{
		"simdx":                    "",
		"simdx:medium=4,large=16":  "",
		"simdx:barrier=tree":       "barrier=tree does not apply",
		"simdx:filter=ballot":      "filter=ballot does not apply",
		"simdx:fusion=all":         "fusion=all does not apply",
		"simdx:direction=push":     "direction=push does not apply",
		"simdx:bin=32":             "bin=32 does not apply",
		"simdx:medium=64,large=16": "must not be medium from a degree above where it is large",
	} {
		v, err := ParseVariant(name)
		require.NoError(t, err, name)
		if refused == "" {
			require.NoError(t, Supports(bp, v), name)
			form, err := v.FormOf(bp)
			require.NoError(t, err)
			assert.Equal(t, Classified, form, name)
			continue
		}
		assert.ErrorContains(t, Supports(bp, v), refused, name)
	}

	degrees := []int{0, 5, 40, 300, 31, 32, 256, 255}
	lists, lens := classifyBy(len(degrees), func(v int) int { return degrees[v] }, listTuning{MediumFrom: 32, LargeFrom: 256})
	n := len(degrees)
	assert.Equal(t, [3]uint32{3, 3, 2}, lens)
	assert.Equal(t, []uint32{0, 1, 4}, lists[:3])
	assert.Equal(t, []uint32{2, 5, 7}, lists[n:n+3])
	assert.Equal(t, []uint32{3, 6}, lists[2*n:2*n+2])
}
