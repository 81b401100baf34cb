package graph

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets check the readers' contract on arbitrary bytes: they
// never panic or hang, and whatever they accept is a valid graph. They are
// seeded from testdata and the tables of readers_test.go.

func seedReaderFuzz(f *testing.F, globs []string, cases []readerCase) {
	for _, glob := range globs {
		paths, err := filepath.Glob(filepath.Join("testdata", glob))
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, tc := range cases {
		f.Add([]byte(tc.input))
	}
}

func fuzzReader(f *testing.F, read readFunc) {
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := read(bytes.NewReader(data), "fuzz", ReadOptions{})
		if err != nil {
			return
		}
		if verr := g.Validate(); verr != nil {
			t.Fatalf("accepted input gives an invalid graph: %v", verr)
		}
	})
}

func FuzzReadMatrixMarket(f *testing.F) {
	seedReaderFuzz(f, []string{"*.mtx"}, matrixMarketCases)
	fuzzReader(f, ReadMatrixMarket)
}

func FuzzReadEdgeList(f *testing.F) {
	seedReaderFuzz(f, []string{"*.txt", "*.el"}, edgeListCases)
	fuzzReader(f, ReadEdgeList)
}

func FuzzReadMETIS(f *testing.F) {
	seedReaderFuzz(f, []string{"*.graph"}, metisCases)
	fuzzReader(f, ReadMETIS)
}

func FuzzReadDIMACS(f *testing.F) {
	seedReaderFuzz(f, []string{"*.gr"}, dimacsCases)
	fuzzReader(f, ReadDIMACS)
}

func FuzzReadCache(f *testing.F) {
	seedReaderFuzz(f, []string{"*.wgc"}, nil)
	// Valid caches of other shapes give the mutator more to start from.
	for _, g := range []*Graph{
		{Offsets: []uint32{0}, Targets: []uint32{}, Directed: true},
		{Offsets: []uint32{0, 1, 2}, Targets: []uint32{1, 0}},
		{Offsets: []uint32{0, 0, 1}, Targets: []uint32{0}, Weights: []uint32{7}, Directed: true},
	} {
		var buf bytes.Buffer
		if err := WriteCache(&buf, g); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inputs := [][]byte{data}
		if len(data) >= cacheHeaderSize {
			// Most mutations only break the checksum; a resealed copy
			// takes them on to the size and graph checks behind it.
			sealed := bytes.Clone(data)
			resealCache(sealed)
			inputs = append(inputs, sealed)
		}
		for _, in := range inputs {
			g, err := ReadCache(bytes.NewReader(in), "fuzz", ReadOptions{})
			if err != nil {
				continue
			}
			if verr := g.Validate(); verr != nil {
				t.Fatalf("accepted input gives an invalid graph: %v", verr)
			}
		}
	})
}
