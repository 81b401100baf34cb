//go:build cgo

package hw

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadAheadPTXIsFresh(t *testing.T) {
	clang, err := exec.LookPath("clang++-16")
	if err != nil {
		t.Skip("clang++-16 not installed; cannot check readahead.ptx")
	}
	const source = "readahead.cu"
	if _, err := os.Stat(source); err != nil {
		t.Skipf("%s not found from the working directory: %v", source, err)
	}
	out := filepath.Join(t.TempDir(), "k.ptx")
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70",
		"-Xclang", "-target-feature", "-Xclang", "+ptx64", "-O3", "-S", source, "-o", out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(fresh), string(readAheadPTX), "readahead.ptx is stale: regenerate it (command in readahead.cu)")
}

func TestReadAheadKernelSignature(t *testing.T) {
	assert.Equal(t, []int{0, 8, 16, 20, 24}, readAheadKernelEntry.ParamOffsets(), "queueReadAhead packs the arguments at these offsets")
	assert.Contains(t, string(readAheadPTX), ".visible .entry wg_read_ahead(")
	assert.LessOrEqual(t, readAheadBytes, readAheadFlag)
	assert.LessOrEqual(t, readAheadFlag+4, readAheadBufBytes)
}
