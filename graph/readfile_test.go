package graph

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gzipTo writes data gzip-compressed to dir/name.
func gzipTo(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	_, err := z.Write(data)
	require.NoError(t, err)
	require.NoError(t, z.Close())
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

// Every format reads the same graph from its .gz as from the plain file.
func TestReadFileGzipMatchesPlain(t *testing.T) {
	dir := t.TempDir()
	for _, file := range []string{"small.mtx", "sym_pattern.mtx", "real.mtx", "snap.txt", "weighted.el", "small.graph", "weighted.graph", "small.gr", "small.wgc"} {
		t.Run(file, func(t *testing.T) {
			plainPath := filepath.Join("testdata", file)
			data, err := os.ReadFile(plainPath)
			require.NoError(t, err)
			plain, err := ReadFile(plainPath, ReadOptions{})
			require.NoError(t, err)
			gz, err := ReadFile(gzipTo(t, dir, file+".gz", data), ReadOptions{})
			require.NoError(t, err)
			assert.Equal(t, plain, gz)
		})
	}
}

func TestReadFileGzipThroughSpecs(t *testing.T) {
	dir := t.TempDir()
	path := gzipTo(t, dir, "G.MTX.GZ", []byte(mmPattern+"3 3 2\n1 2\n2 3\n"))
	g, err := Load(path+"+sym", LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, g.NumVertices())
	assert.Equal(t, 4, g.NumEdges(), "symmetrized")
}

func TestReadFileGzipErrors(t *testing.T) {
	dir := t.TempDir()
	t.Run("a parse error names the compressed file and the line", func(t *testing.T) {
		path := gzipTo(t, dir, "road.gr.gz", []byte("p sp 3 1\na 1 2 -3\n"))
		_, err := ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.Equal(t, path+`:2: negative weight "-3"`, err.Error())
	})
	t.Run("not gzip", func(t *testing.T) {
		path := filepath.Join(dir, "plain.el.gz")
		require.NoError(t, os.WriteFile(path, []byte("0 1\n"), 0o644))
		_, err := ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "not a gzip stream")
	})
	t.Run("truncated stream", func(t *testing.T) {
		full := gzipTo(t, dir, "full.el.gz", bytes.Repeat([]byte("0 1\n1 2\n"), 5000))
		data, err := os.ReadFile(full)
		require.NoError(t, err)
		path := filepath.Join(dir, "cut.el.gz")
		require.NoError(t, os.WriteFile(path, data[:len(data)-10], 0o644))
		_, err = ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
	})
	t.Run("corrupt trailer", func(t *testing.T) {
		full := gzipTo(t, dir, "crc.el.gz", []byte("0 1\n"))
		data, err := os.ReadFile(full)
		require.NoError(t, err)
		data[len(data)-8] ^= 0xff // the CRC-32 of the trailer
		path := filepath.Join(dir, "badcrc.el.gz")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		_, err = ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "gzip: invalid checksum")
	})
	t.Run("unknown inner extension", func(t *testing.T) {
		_, err := ReadFile(gzipTo(t, dir, "g.csv.gz", []byte("0 1\n")), ReadOptions{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `".csv"`)
		assert.Contains(t, err.Error(), ".gz")
	})
}

// Progress counts compressed bytes and ends at the file's size.
func TestReadFileGzipProgress(t *testing.T) {
	path := gzipTo(t, t.TempDir(), "p.el.gz", bytes.Repeat([]byte("0 1\n1 2\n"), 1000))
	st, err := os.Stat(path)
	require.NoError(t, err)
	var last [2]int64
	calls := 0
	_, err = ReadFile(path, ReadOptions{Progress: func(done, total int64) { last = [2]int64{done, total}; calls++ }})
	require.NoError(t, err)
	assert.Positive(t, calls)
	assert.Equal(t, [2]int64{st.Size(), st.Size()}, last)
}
