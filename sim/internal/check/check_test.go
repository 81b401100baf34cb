package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProblemsReportEveryFieldAtOnce(t *testing.T) {
	var p Problems
	p.Positive("ways", 0)
	p.Positive("sets", 4)
	p.PowerOfTwo("banks", 12)
	p.PowerOfTwo("banks", 0)
	p.NotNegative("latency", -1)
	p.SectorsPerLine("sector", 64, "line", 32)
	p.SectorsPerLine("sector", 1, "line", 128)
	err := p.Err("test configuration")
	require.Error(t, err)
	for _, want := range []string{"invalid test configuration", "ways must be positive, got 0",
		"banks must be a power of two, got 12", "latency must not be negative, got -1",
		"sector (64) must not exceed line (32)", "at most 32 sectors, got 128/1"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "sets")
	var none Problems
	none.Positive("ok", 1)
	assert.NoError(t, none.Err("x"))
}
