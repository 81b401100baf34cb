//go:build cgo

package hw

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadAheadPTXIsFresh(t *testing.T) {
	checkPTXFresh(t, "readahead.cu", string(readAheadPTX))
}

func TestReadAheadKernelSignature(t *testing.T) {
	assert.Equal(t, []int{0, 8, 16, 20, 24}, readAheadKernelEntry.ParamOffsets(), "queueReadAhead packs the arguments at these offsets")
	assert.Contains(t, string(readAheadPTX), ".visible .entry wg_read_ahead(")
	assert.LessOrEqual(t, readAheadBytes, readAheadFlag)
	assert.LessOrEqual(t, readAheadFlag+4, readAheadBufBytes)
}
