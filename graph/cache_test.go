package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateCacheGolden = flag.Bool("update-wgc", false, "rewrite testdata/small.wgc from testdata/small.gr")

func cacheBytes(t *testing.T, g *Graph) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteCache(&buf, g))
	return buf.Bytes()
}

// resealCache recomputes the checksum after a test edits a cache image, so
// that the edit reaches the checks behind the checksum.
func resealCache(b []byte) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	crc := crc32.Update(crc32.Checksum(b[:32], tab), tab, b[cacheHeaderSize:])
	binary.LittleEndian.PutUint32(b[32:], crc)
}

func sampleGraphs(t *testing.T) map[string]*Graph {
	t.Helper()
	gr, err := ReadFile(filepath.Join("testdata", "small.gr"), ReadOptions{})
	require.NoError(t, err)
	sym, err := ReadFile(filepath.Join("testdata", "sym_pattern.mtx"), ReadOptions{})
	require.NoError(t, err)
	return map[string]*Graph{
		"weighted directed":     gr,
		"unweighted undirected": sym,
		"no vertices":           {Offsets: []uint32{0}, Targets: []uint32{}, Directed: true},
		"weighted, no edges":    {Offsets: []uint32{0, 0, 0}, Targets: []uint32{}, Weights: []uint32{}},
	}
}

func assertSameGraph(t *testing.T, want, got *Graph) {
	t.Helper()
	require.NotNil(t, got)
	assert.Equal(t, want.Offsets, got.Offsets)
	assert.Equal(t, want.Targets, got.Targets)
	assert.Equal(t, want.Weights, got.Weights)
	assert.Equal(t, want.Weighted(), got.Weighted())
	assert.Equal(t, want.Directed, got.Directed)
}

func TestCacheRoundTrip(t *testing.T) {
	for name, g := range sampleGraphs(t) {
		t.Run(name+" through a reader", func(t *testing.T) {
			got, err := ReadCache(bytes.NewReader(cacheBytes(t, g)), "g.wgc", ReadOptions{})
			require.NoError(t, err)
			assertSameGraph(t, g, got)
		})
		t.Run(name+" through a file", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.wgc")
			require.NoError(t, WriteCacheFile(path, g))
			got, err := ReadCacheFile(path)
			require.NoError(t, err)
			assertSameGraph(t, g, got)
			// The arrays are capped, so appending to one cannot overwrite
			// its neighbour in the shared buffer.
			assert.Equal(t, len(got.Offsets), cap(got.Offsets))
			assert.Equal(t, len(got.Targets), cap(got.Targets))
			entries, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left behind")
		})
	}
}

func TestCacheGoldenFile(t *testing.T) {
	g, err := ReadFile(filepath.Join("testdata", "small.gr"), ReadOptions{})
	require.NoError(t, err)
	golden := filepath.Join("testdata", "small.wgc")
	if *updateCacheGolden {
		require.NoError(t, WriteCacheFile(golden, g))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	// A change here breaks every cache on disk: bump CacheVersion instead.
	assert.Equal(t, want, cacheBytes(t, g), "cache format changed; run go test -update-wgc only together with a CacheVersion bump")
}

func TestCacheRejectsDamage(t *testing.T) {
	g, err := ReadFile(filepath.Join("testdata", "small.gr"), ReadOptions{})
	require.NoError(t, err)
	good := cacheBytes(t, g)
	tests := []struct {
		name    string
		damage  func(b []byte) []byte
		wantErr string
		wantIs  error
	}{
		{"payload bit flip", func(b []byte) []byte { b[len(b)-3] ^= 0x10; return b }, "checksum mismatch", nil},
		{"directed flag flip", func(b []byte) []byte { b[12] ^= cacheFlagDirected; return b }, "checksum mismatch", nil},
		{"bad magic", func(b []byte) []byte { copy(b, "MTX\r\n\x1a\n\x00"); return b }, "bad magic", nil},
		{"text-mode copy", func(b []byte) []byte { return append(b[:4:4], b[5:]...) }, "bad magic", nil},
		{"other version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 2); return b }, "version 2 is not supported (this build reads version 1)", nil},
		{"unknown flag", func(b []byte) []byte { b[12] |= 0x80; return b }, "unknown cache flags 0x80", nil},
		{"reserved field", func(b []byte) []byte { b[37] = 1; return b }, "reserved header field", nil},
		{"empty file", func(b []byte) []byte { return nil }, "truncated cache: 0 bytes", nil},
		{"truncated header", func(b []byte) []byte { return b[:20] }, "truncated cache: 20 bytes", nil},
		{"truncated payload", func(b []byte) []byte { return b[:len(b)-1] }, "truncated cache: the header declares 60 payload bytes, the file holds 59", nil},
		{"trailing bytes", func(b []byte) []byte { return append(b, 0, 0, 0, 0) }, "trailing bytes after the declared 60-byte payload", nil},
		{"huge declared vertices, little data", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], MaxVertices-1); return b }, "truncated cache", nil},
		{"huge declared edges, little data", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[24:], MaxEdges); return b }, "truncated cache", nil},
		{"vertices beyond 32 bits", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<40); return b }, "1099511627776", ErrTooManyVertices},
		{"edges beyond 32 bits", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[24:], 1<<32); return b }, "4294967296", ErrTooManyEdges},
		{"valid checksum, target out of range", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[cacheHeaderSize+4*5:], 99) // the first target
			resealCache(b)
			return b
		}, "cache holds an invalid graph", nil},
		{"valid checksum, decreasing offsets", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[cacheHeaderSize+4:], 4)
			resealCache(b)
			return b
		}, "offsets decrease", nil},
	}
	for _, tc := range tests {
		damaged := tc.damage(bytes.Clone(good))
		check := func(t *testing.T, g *Graph, err error) {
			require.Error(t, err)
			assert.Nil(t, g)
			assert.Contains(t, err.Error(), "bad.wgc")
			assert.Contains(t, err.Error(), tc.wantErr)
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
		}
		t.Run(tc.name+" through a reader", func(t *testing.T) {
			g, err := ReadCache(bytes.NewReader(damaged), "bad.wgc", ReadOptions{})
			check(t, g, err)
		})
		t.Run(tc.name+" through a file", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.wgc")
			require.NoError(t, os.WriteFile(path, damaged, 0o644))
			g, err := ReadCacheFile(path)
			check(t, g, err)
		})
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.limit {
		n := w.limit
		w.limit = 0
		return n, errors.New("disk full")
	}
	w.limit -= len(p)
	return len(p), nil
}

func TestWriteCacheErrors(t *testing.T) {
	t.Run("invalid graph", func(t *testing.T) {
		err := WriteCache(&bytes.Buffer{}, &Graph{Offsets: []uint32{0, 2}, Targets: []uint32{0}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "invalid graph")
	})
	t.Run("writer fails in the header", func(t *testing.T) {
		g := sampleGraphs(t)["weighted directed"]
		assert.ErrorContains(t, WriteCache(&failingWriter{limit: 10}, g), "disk full")
	})
	t.Run("writer fails in the payload", func(t *testing.T) {
		g := sampleGraphs(t)["weighted directed"]
		assert.ErrorContains(t, WriteCache(&failingWriter{limit: cacheHeaderSize + 8}, g), "disk full")
	})
	t.Run("file in a missing directory", func(t *testing.T) {
		g := sampleGraphs(t)["weighted directed"]
		err := WriteCacheFile(filepath.Join(t.TempDir(), "no", "such", "dir", "g.wgc"), g)
		assert.ErrorContains(t, err, "g.wgc")
	})
}

func TestReadFileCacheProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.wgc")
	require.NoError(t, WriteCacheFile(path, sampleGraphs(t)["weighted directed"]))
	st, err := os.Stat(path)
	require.NoError(t, err)
	var last [2]int64
	g, err := ReadFile(path, ReadOptions{Progress: func(done, total int64) { last = [2]int64{done, total} }})
	require.NoError(t, err)
	assert.Equal(t, 5, g.NumEdges())
	assert.Equal(t, [2]int64{st.Size(), st.Size()}, last)
}
