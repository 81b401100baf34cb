package graph

import (
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

// ReadFile reads a graph file, choosing the format by extension (case
// does not matter): .mtx Matrix Market; .el .txt .edges .snap .tsv edge
// list; .graph .metis METIS; .gr DIMACS; .wgc the binary CSR cache. A
// missing file gives an error that wraps fs.ErrNotExist.
func ReadFile(path string, opt ReadOptions) (*Graph, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range graphFormats {
		for _, e := range f.exts {
			if e != ext {
				continue
			}
			if ext == ".wgc" {
				return readCacheFile(path, opt)
			}
			file, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("graph: %w", err)
			}
			defer file.Close()
			return f.read(file, path, opt)
		}
	}
	var known []string
	for _, f := range graphFormats {
		known = append(known, strings.Join(f.exts, " ")+" ("+f.name+")")
	}
	return nil, fmt.Errorf("graph: %s: unknown graph file extension %q; known: %s", path, ext, strings.Join(known, ", "))
}
