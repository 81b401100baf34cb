package graph

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// FuzzParseSpec checks the graph-spec parser on arbitrary strings: it
// never panics, refuses with a one-line *SpecError, and what it accepts
// has a canonical form that parses back to itself. It parses only (no
// graph is generated or read), so that it runs a million inputs in well
// under two minutes on two cores.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"rmat:scale=16", "rmat:scale=3,ef=4,a=0.5,b=0.2,c=0.1,seed=9,directed=1,w=none",
		"rmat: scale = 5 , directed=true", "rmat:scale=5,weights=2..8", "rmat:scale=3,weights=0..0",
		"grid:w=640,h=480", "grid:h=2,w=3,w=none,seed=0", "grid:w=3,h=2,w=1..9",
		"er:n=100,m=400", "er:n=3,m=6,directed=1,seed=18446744073709551615",
		"regular:n=10,d=3,weights=none",
		"grid:w=4,h=4+sym+simple+rw=3+unweighted+perm=18446744073709551615",
		"testdata/small.mtx+sym", "testdata/nope.el+perm=1", "road.gr+sym+perm=7", "a+b+sym", "rmat:scale=4+perm=2+degsort",
		"rmta:scale=3", "rmat:scale=3,,ef=2", "rmat:=3", "rmat:scale=3+", "C:\\g.mtx", "./x:y.mtx",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("ParseSpec(%q): %v is not a *SpecError", s, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseSpec(%q): the error has more than one line: %q", s, err)
			}
			return
		}
		canonical := spec.String()
		again, err := ParseSpec(canonical)
		if err != nil {
			t.Fatalf("ParseSpec(%q) gave %q, which does not parse: %v", s, canonical, err)
		}
		if again.String() != canonical {
			t.Fatalf("ParseSpec(%q) gave %q, which parses to %q", s, canonical, again.String())
		}
	})
}
