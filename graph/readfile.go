package graph

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// graphFormats maps a file extension to its reader. ReadFile and its error
// for an unknown extension both use it, so the list cannot go stale.
var graphFormats = []struct {
	exts []string
	name string
	read func(io.Reader, string, ReadOptions) (*Graph, error)
}{
	{[]string{".mtx"}, "Matrix Market", ReadMatrixMarket},
	{[]string{".el", ".txt", ".edges", ".snap", ".tsv"}, "edge list", ReadEdgeList},
	{[]string{".graph", ".metis"}, "METIS", ReadMETIS},
	{[]string{".gr"}, "DIMACS shortest path", ReadDIMACS},
	{[]string{".wgc"}, "warpgraph CSR cache", ReadCache},
}

// gzipExt marks a gzip-compressed graph file: the extension before it picks
// the format (g.mtx.gz is Matrix Market).
const gzipExt = ".gz"

// ReadFile reads a graph file, choosing the format by extension (case
// does not matter): .mtx Matrix Market; .el .txt .edges .snap .tsv edge
// list; .graph .metis METIS; .gr DIMACS; .wgc the binary CSR cache. Any of
// them may be gzip-compressed with .gz appended (g.mtx.gz), as public
// collections ship them; it is decompressed while it is read. A missing
// file gives an error that wraps fs.ErrNotExist.
func ReadFile(path string, opt ReadOptions) (*Graph, error) {
	ext := strings.ToLower(filepath.Ext(path))
	compressed := ext == gzipExt
	if compressed {
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	}
	for _, f := range graphFormats {
		for _, e := range f.exts {
			if e != ext {
				continue
			}
			if ext == ".wgc" && !compressed {
				return readCacheFile(path, opt)
			}
			file, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("graph: %w", err)
			}
			defer file.Close()
			if !compressed {
				return f.read(file, path, opt)
			}
			return readGzip(file, path, opt, f.read)
		}
	}
	var known []string
	for _, f := range graphFormats {
		known = append(known, strings.Join(f.exts, " ")+" ("+f.name+")")
	}
	return nil, fmt.Errorf("graph: %s: unknown graph file extension %q; known: %s, each optionally followed by %s (gzip)", path, ext, strings.Join(known, ", "), gzipExt)
}

// readGzip decompresses file while read parses it. Progress counts the
// compressed bytes against the compressed size, the only total known in
// advance. A corrupt stream is a ReadError naming the file.
func readGzip(file *os.File, path string, opt ReadOptions, read func(io.Reader, string, ReadOptions) (*Graph, error)) (*Graph, error) {
	var counted io.Reader = file
	if opt.Progress != nil {
		total := inputSize(file)
		c := &countingReader{r: file, report: opt.Progress, total: total}
		counted = c
		opt.Progress = nil // the parser sees decompressed bytes; report compressed ones
		defer c.finish()
	}
	z, err := gzip.NewReader(counted)
	if err != nil {
		return nil, &ReadError{File: path, Msg: "not a gzip stream", Err: err}
	}
	defer z.Close()
	g, err := read(z, path, opt)
	if err != nil {
		return nil, err
	}
	// The parser stops at its format's end; a truncated or corrupt tail
	// (checked by the gzip trailer's CRC) must still fail.
	if _, err := io.Copy(io.Discard, z); err != nil {
		return nil, &ReadError{File: path, Msg: "corrupt gzip stream", Err: err}
	}
	return g, nil
}

// countingReader reports the bytes read from a compressed file.
type countingReader struct {
	r           io.Reader
	report      func(done, total int64)
	done, total int64
	lastReport  int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.done-c.lastReport >= progressStep {
		c.lastReport = c.done
		c.report(c.done, c.total)
	}
	return n, err
}

func (c *countingReader) finish() { c.report(c.done, max(c.total, c.done)) }
