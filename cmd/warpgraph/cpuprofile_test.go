package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCPUProfile checks that --cpu-profile writes a profile (pprof's
// gzipped protocol buffer) for any command, and that a file it cannot
// create is bad input, with one line.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	var stderr bytes.Buffer
	status := runMain(newRootCommand, []string{"run", "--algo", "bfs", "--graph", "rmat:scale=8", "--target", "sim", "--config", "tiny", "--cpu-profile", path}, &stderr)
	require.Equal(t, exitSuccess, status, stderr.String())
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = gzip.NewReader(f)
	require.NoError(t, err, "a pprof profile is gzipped")

	stderr.Reset()
	status = runMain(newRootCommand, []string{"info", "--graph", "rmat:scale=4", "--cpu-profile", filepath.Join(t.TempDir(), "no", "such", "dir.prof")}, &stderr)
	require.Equal(t, exitBadInput, status)
	require.Regexp(t, `^warpgraph: --cpu-profile: open .*: no such file or directory\n$`, stderr.String())
}
