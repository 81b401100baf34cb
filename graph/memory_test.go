package graph

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withMemory makes the process appear to have free bytes (under
// RLIMIT_AS) for the rest of the test, and checks every need.
func withMemory(t *testing.T, free uint64) {
	t.Helper()
	saved, floor := memoryBounds, memoryCheckFloor
	t.Cleanup(func() { memoryBounds, memoryCheckFloor = saved, floor })
	memoryCheckFloor = 0
	memoryBounds = func() []MemoryBound {
		return []MemoryBound{
			{Name: "RLIMIT_AS", Limit: free + 1<<30, Used: 1 << 30},
			{Name: "MemAvailable", Limit: 64 << 30},
		}
	}
}

// TestGraphsTooLargeForMemoryAreRefused: generating, reading or
// transforming a graph that does not fit fails with a MemoryError naming
// the work, its estimate and the bounds, instead of Go's fatal
// out-of-memory; a graph that fits loads.
func TestGraphsTooLargeForMemoryAreRefused(t *testing.T) {
	dir := t.TempDir()
	var edges strings.Builder
	for i := range 20000 {
		edges.WriteString("0 ")
		edges.WriteString(strings.Repeat("1", 1+i%3))
		edges.WriteString("\n")
	}
	el := filepath.Join(dir, "long.el")
	require.NoError(t, os.WriteFile(el, []byte(edges.String()), 0o644))
	mtx := filepath.Join(dir, "declared.mtx")
	require.NoError(t, os.WriteFile(mtx, []byte("%%MatrixMarket matrix coordinate pattern general\n% c\n9 9 30000\n"+strings.Repeat("1 2\n", 30000)), 0o644))
	wgc := filepath.Join(dir, "g.wgc")
	g, err := Load("grid:w=300,h=300", LoadOptions{})
	require.NoError(t, err)
	var cache bytes.Buffer
	require.NoError(t, WriteCache(&cache, g))
	require.NoError(t, os.WriteFile(wgc, cache.Bytes(), 0o644))
	gz := filepath.Join(dir, "g.wgc.gz")
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, err = zw.Write(cache.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(gz, zipped.Bytes(), 0o644))

	tests := []struct {
		spec string
		free uint64
		want []string
	}{
		{"rmat:scale=16", 1 << 20, []string{"generating rmat:scale=16,", "needs about 32 MiB of memory, more than the 1 MiB available",
			"(the smallest of: RLIMIT_AS 1.0 GiB less 1.0 GiB in use; MemAvailable 64.0 GiB)"}},
		{"er:n=1000,m=100000", 1 << 20, []string{"generating er:n=1000,m=100000,"}},
		{"grid:w=1000,h=1000", 1 << 20, []string{"generating grid:w=1000,h=1000,"}},
		{"regular:n=100000,d=8", 1 << 20, []string{"generating regular:n=100000,d=8,"}},
		{el + "+sym", 400 << 10, []string{"long.el+sym: transformation sym of 112 vertices and 20000 edges needs about"}},
		{el, 100 << 10, []string{"long.el:", "not enough memory: holding", "edges needs about"}},
		{mtx, 100 << 10, []string{"declared.mtx:3: not enough memory: holding 30000 edges needs about 234 KiB"}},
		{wgc, 100 << 10, []string{"g.wgc: not enough memory: a CSR of 90000 vertices and 358800 edges"}},
		{gz, 100 << 10, []string{"g.wgc.gz: not enough memory: a CSR of 90000 vertices"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.spec), func(t *testing.T) {
			withMemory(t, 1<<40)
			_, err := Load(tc.spec, LoadOptions{})
			require.NoError(t, err, "it fits where there is memory")

			withMemory(t, tc.free)
			_, err = Load(tc.spec, LoadOptions{})
			var memory *MemoryError
			require.ErrorAs(t, err, &memory)
			assert.Equal(t, tc.free, memory.Available())
			assert.Greater(t, memory.Need, tc.free)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestBuildChecksMemory: Build, behind every text reader and +sym,
// checks the CSR it is about to allocate.
func TestBuildChecksMemory(t *testing.T) {
	withMemory(t, 1000)
	_, err := Build(&EdgeList{NumVertices: 100, Src: make([]uint32, 100), Dst: make([]uint32, 100)}, BuildOptions{Symmetrize: true})
	var memory *MemoryError
	require.ErrorAs(t, err, &memory)
	assert.Contains(t, err.Error(), "a CSR of 100 vertices and up to 200 edges needs about")
}

func TestMemoryBoundFree(t *testing.T) {
	assert.Equal(t, uint64(3), MemoryBound{Limit: 10, Used: 7}.Free())
	assert.Equal(t, uint64(0), MemoryBound{Limit: 10, Used: 12}.Free(), "already past the limit")
	assert.Equal(t, "MemAvailable 512 MiB", MemoryBound{Name: "MemAvailable", Limit: 512 << 20}.String())
	assert.Equal(t, "RLIMIT_AS 2.9 GiB less 1.5 GiB in use", MemoryBound{Name: "RLIMIT_AS", Limit: 3000000 << 10, Used: 1536 << 20}.String())
}

// TestSystemMemoryBounds: on Linux the bounds hold MemAvailable at least,
// and an address-space limit when the process has one.
func TestSystemMemoryBounds(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	names := map[string]bool{}
	for _, b := range systemMemoryBounds() {
		names[b.Name] = true
		assert.Positive(t, b.Limit, b.Name)
	}
	assert.True(t, names["MemAvailable"])
}
