package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// The reader benchmarks parse about 32 MB of text generated in memory, so
// they measure parsing and CSR building, not the disk; b.SetBytes makes
// `go test -bench` print the throughput in MB/s.

const (
	benchTextBytes = 32 << 20
	benchVertices  = 1 << 20
)

// benchRand is a xorshift64* stream: deterministic, and enough for ids.
type benchRand uint64

func (r *benchRand) below(n uint64) uint64 {
	*r ^= *r >> 12
	*r ^= *r << 25
	*r ^= *r >> 27
	return (uint64(*r) * 2685821657736338717 >> 32) % n
}

// benchText writes lines from line(rng, buf) until the text holds
// benchTextBytes.
func benchText(header string, line func(r *benchRand, b []byte) []byte) []byte {
	text := make([]byte, 0, benchTextBytes+4096)
	text = append(text, header...)
	r := benchRand(88172645463325252)
	for len(text) < benchTextBytes {
		text = line(&r, text)
	}
	return text
}

// countLines counts the entries of a generated text for the size line.
func countLines(text []byte) int { return bytes.Count(text, []byte{'\n'}) }

var matrixMarketBenchTexts = sync.OnceValue(func() map[string][]byte {
	entry := func(weight func(r *benchRand, b []byte) []byte) func(r *benchRand, b []byte) []byte {
		return func(r *benchRand, b []byte) []byte {
			b = strconv.AppendUint(b, r.below(benchVertices)+1, 10)
			b = append(b, ' ')
			b = strconv.AppendUint(b, r.below(benchVertices)+1, 10)
			if weight != nil {
				b = append(b, ' ')
				b = weight(r, b)
			}
			return append(b, '\n')
		}
	}
	texts := map[string][]byte{}
	for _, field := range []struct {
		name   string
		weight func(r *benchRand, b []byte) []byte
	}{
		{"pattern", nil},
		{"integer", func(r *benchRand, b []byte) []byte { return strconv.AppendUint(b, r.below(1000), 10) }},
		{"real", func(r *benchRand, b []byte) []byte {
			return strconv.AppendFloat(b, float64(r.below(1000000))/1000, 'f', -1, 64)
		}},
		{"real exponent", func(r *benchRand, b []byte) []byte {
			return strconv.AppendFloat(b, float64(r.below(1000000))/1000, 'e', 12, 64)
		}},
	} {
		body := benchText("", entry(field.weight))
		fieldName := field.name
		if fieldName == "real exponent" {
			fieldName = "real"
		}
		header := "%%MatrixMarket matrix coordinate " + fieldName + " general\n% generated\n" +
			strconv.Itoa(benchVertices) + " " + strconv.Itoa(benchVertices) + " " + strconv.Itoa(countLines(body)) + "\n"
		texts[field.name] = append([]byte(header), body...)
	}
	return texts
})

func BenchmarkReadMatrixMarket(b *testing.B) {
	for _, field := range []string{"pattern", "integer", "real", "real exponent"} {
		b.Run(field, func(b *testing.B) {
			text := matrixMarketBenchTexts()[field]
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ReadMatrixMarket(bytes.NewReader(text), "bench.mtx", ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var edgeListBenchTexts = sync.OnceValue(func() map[string][]byte {
	edge := func(weighted bool) func(r *benchRand, b []byte) []byte {
		return func(r *benchRand, b []byte) []byte {
			b = strconv.AppendUint(b, r.below(benchVertices), 10)
			b = append(b, '\t')
			b = strconv.AppendUint(b, r.below(benchVertices), 10)
			if weighted {
				b = append(b, '\t')
				b = strconv.AppendUint(b, r.below(100)+1, 10)
			}
			return append(b, '\n')
		}
	}
	header := "# Directed graph: bench.txt\n# Nodes: " + strconv.Itoa(benchVertices) + " Edges: 0\n# FromNodeId\tToNodeId\n"
	return map[string][]byte{
		"snap":     benchText(header, edge(false)),
		"weighted": benchText("", edge(true)),
	}
})

func BenchmarkReadEdgeList(b *testing.B) {
	for _, kind := range []string{"snap", "weighted"} {
		b.Run(kind, func(b *testing.B) {
			text := edgeListBenchTexts()[kind]
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ReadEdgeList(bytes.NewReader(text), "bench.el", ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadCache16M times ReadCacheFile on a weighted graph of 2^24
// edges (about 132 MB); the file is written once, outside the timing, and
// stays in the page cache, so this measures the load, not the disk.
func BenchmarkLoadCache16M(b *testing.B) {
	const vertices, edges = 1 << 20, 1 << 24
	list := &EdgeList{NumVertices: vertices, Src: make([]uint32, edges), Dst: make([]uint32, edges), Weights: make([]uint32, edges)}
	r := benchRand(2463534242)
	for i := range list.Src {
		list.Src[i] = uint32(r.below(vertices))
		list.Dst[i] = uint32(r.below(vertices))
		list.Weights[i] = uint32(r.below(255) + 1)
	}
	g, err := Build(list, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	list = nil
	path := filepath.Join(b.TempDir(), "16m.wgc")
	if err := WriteCacheFile(path, g); err != nil {
		b.Fatal(err)
	}
	g = nil
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		loaded, err := ReadCacheFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if loaded.NumEdges() != edges {
			b.Fatalf("loaded %d edges, want %d", loaded.NumEdges(), edges)
		}
	}
}
