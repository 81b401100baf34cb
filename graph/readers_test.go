package graph

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantCSR is the exact CSR a reader must produce.
type wantCSR struct {
	offsets, targets, weights []uint32
	directed                  bool
}

func assertCSR(t *testing.T, want wantCSR, g *Graph) {
	t.Helper()
	require.NotNil(t, g)
	assert.Equal(t, want.offsets, g.Offsets, "offsets")
	assert.Equal(t, want.targets, g.Targets, "targets")
	assert.Equal(t, want.weights, g.Weights, "weights")
	assert.Equal(t, want.directed, g.Directed, "directed")
	assert.NoError(t, g.Validate())
}

func TestReadFileSamples(t *testing.T) {
	tests := []struct {
		file string
		want wantCSR
	}{
		{"small.mtx", wantCSR{
			offsets: []uint32{0, 2, 3, 4, 5}, targets: []uint32{1, 2, 3, 3, 0},
			weights: []uint32{7, 1, 3, 2, 0}, directed: true}},
		{"sym_pattern.mtx", wantCSR{
			// 2-1 and 3-2 stored both ways; the diagonal 3-3 once.
			offsets: []uint32{0, 1, 3, 5}, targets: []uint32{1, 0, 2, 1, 2}}},
		{"real.mtx", wantCSR{
			// 2 x 3 gives 3 vertices; 2.5 -> 3, 1.49 -> 1, 1e2 -> 100.
			offsets: []uint32{0, 2, 3, 3}, targets: []uint32{0, 2, 0},
			weights: []uint32{100, 3, 1}, directed: true}},
		{"snap.txt", wantCSR{
			// "# Nodes: 6" makes 6 vertices although the largest id is 3.
			offsets: []uint32{0, 2, 3, 3, 4, 4, 4}, targets: []uint32{1, 2, 0, 1}, directed: true}},
		{"weighted.el", wantCSR{
			offsets: []uint32{0, 1, 2, 3}, targets: []uint32{2, 1, 0},
			weights: []uint32{5, 0, 2}, directed: true}},
		{"small.graph", wantCSR{
			offsets: []uint32{0, 2, 4, 7, 8}, targets: []uint32{1, 2, 0, 2, 0, 1, 3, 2}}},
		{"weighted.graph", wantCSR{
			offsets: []uint32{0, 1, 3, 4, 4}, targets: []uint32{1, 0, 2, 1},
			weights: []uint32{7, 7, 1, 1}}},
		{"small.gr", wantCSR{
			offsets: []uint32{0, 2, 3, 4, 5}, targets: []uint32{1, 2, 3, 1, 0},
			weights: []uint32{10, 5, 1, 3, 0}, directed: true}},
		{"small.wgc", wantCSR{
			// The golden cache holds small.gr's graph.
			offsets: []uint32{0, 2, 3, 4, 5}, targets: []uint32{1, 2, 3, 1, 0},
			weights: []uint32{10, 5, 1, 3, 0}, directed: true}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			g, err := ReadFile(filepath.Join("testdata", tc.file), ReadOptions{})
			require.NoError(t, err)
			assertCSR(t, tc.want, g)
		})
	}
}

// readerCase is an input for one reader and what must come out of it.
type readerCase struct {
	name  string
	input string
	// want is the expected graph, or wantErr the fragments that the error
	// must contain (file:line: and the problem).
	want    *wantCSR
	wantErr []string
	// wantIs, when set, is a sentinel the error must wrap.
	wantIs error
	// wantNot lists fragments the error must not contain (a limit that was
	// not the one hit).
	wantNot []string
}

type readFunc func(io.Reader, string, ReadOptions) (*Graph, error)

func runReaderCases(t *testing.T, read readFunc, file string, tests []readerCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := read(strings.NewReader(tc.input), file, ReadOptions{})
			if tc.want != nil {
				require.NoError(t, err)
				assertCSR(t, *tc.want, g)
				return
			}
			require.Error(t, err)
			assert.Nil(t, g)
			for _, frag := range tc.wantErr {
				assert.Contains(t, err.Error(), frag)
			}
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
			for _, frag := range tc.wantNot {
				assert.NotContains(t, err.Error(), frag)
			}
		})
	}
}

const mmInt = "%%MatrixMarket matrix coordinate integer general\n"
const mmReal = "%%MatrixMarket matrix coordinate real general\n"
const mmPattern = "%%MatrixMarket matrix coordinate pattern general\n"

var matrixMarketCases = []readerCase{
	{name: "empty matrix", input: mmPattern + "0 0 0\n", want: &wantCSR{offsets: []uint32{0}, targets: []uint32{}, directed: true}},
	{name: "isolated vertices and comments between entries", input: mmPattern + "% c\n5 5 1\n\n% mid\n1 5\n",
		want: &wantCSR{offsets: []uint32{0, 1, 1, 1, 1, 1}, targets: []uint32{4}, directed: true}},
	{name: "upper case banner words, no final newline", input: "%%MatrixMarket MATRIX Coordinate Pattern General\n2 2 1\n2 1",
		want: &wantCSR{offsets: []uint32{0, 0, 1}, targets: []uint32{0}, directed: true}},
	{name: "symmetric integer", input: "%%MatrixMarket matrix coordinate integer symmetric\n2 2 1\n2 1 9\n",
		want: &wantCSR{offsets: []uint32{0, 1, 2}, targets: []uint32{1, 0}, weights: []uint32{9, 9}}},
	{name: "real rounding", input: mmReal + "1 1 4\n1 1 0.5\n1 1 0.49999\n1 1 +7.5e0\n1 1 -0\n",
		want: &wantCSR{offsets: []uint32{0, 4}, targets: []uint32{0, 0, 0, 0}, weights: []uint32{1, 0, 8, 0}, directed: true}},
	{name: "largest weight", input: mmInt + "1 1 1\n1 1 4294967295\n",
		want: &wantCSR{offsets: []uint32{0, 1}, targets: []uint32{0}, weights: []uint32{math.MaxUint32}, directed: true}},

	{name: "empty file", input: "", wantErr: []string{"m.mtx: ", "missing the %%MatrixMarket banner"}},
	{name: "no banner", input: "3 3 1\n1 1\n", wantErr: []string{"m.mtx:1: ", "missing the %%MatrixMarket banner"}},
	{name: "short banner", input: "%%MatrixMarket matrix coordinate\n", wantErr: []string{"m.mtx:1: ", "banner must be"}},
	{name: "array format", input: "%%MatrixMarket matrix array real general\n3 3\n", wantErr: []string{"m.mtx:1: ", `unsupported format "array"`}},
	{name: "complex field", input: "%%MatrixMarket matrix coordinate complex general\n", wantErr: []string{"m.mtx:1: ", `unsupported field "complex"`}},
	{name: "hermitian", input: "%%MatrixMarket matrix coordinate real hermitian\n", wantErr: []string{"m.mtx:1: ", `unsupported symmetry "hermitian"`}},
	{name: "skew-symmetric real is undirected with signs dropped", input: "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 -2.5\n3 2 4\n",
		want: &wantCSR{offsets: []uint32{0, 1, 3, 4}, targets: []uint32{1, 0, 2, 1}, weights: []uint32{3, 3, 4, 4}}},
	{name: "skew-symmetric integer", input: "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -7\n",
		want: &wantCSR{offsets: []uint32{0, 1, 2}, targets: []uint32{1, 0}, weights: []uint32{7, 7}}},
	{name: "skew-symmetric lone minus sign", input: "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -\n", wantErr: []string{"m.mtx:3: ", "weight"}},
	{name: "skew-symmetric must be square", input: "%%MatrixMarket matrix coordinate real skew-symmetric\n2 3 0\n", wantErr: []string{"m.mtx:2: ", "skew-symmetric matrix must be square"}},
	{name: "vector object", input: "%%MatrixMarket vector coordinate real general\n", wantErr: []string{"m.mtx:1: ", `unsupported object "vector"`}},
	{name: "missing size line", input: mmInt + "% only a comment\n", wantErr: []string{"m.mtx:2: ", "missing the size line"}},
	{name: "size line with two numbers", input: mmInt + "3 3\n", wantErr: []string{"m.mtx:2: ", "size line must be"}},
	{name: "non-numeric size", input: mmInt + "3 x 1\n", wantErr: []string{"m.mtx:2: ", `bad cols count "x"`}},
	{name: "symmetric not square", input: "%%MatrixMarket matrix coordinate pattern symmetric\n2 3 0\n", wantErr: []string{"m.mtx:2: ", "must be square"}},
	{name: "truncated", input: mmInt + "3 3 4\n1 2 1\n", wantErr: []string{"m.mtx:2: ", "truncated file", "declares 4 entries", "holds 1"}},
	{name: "too many entries", input: mmPattern + "3 3 2\n1 2\n2 3\n3 1\n", wantErr: []string{"m.mtx:5: ", "more entries than the 2"}},
	{name: "row out of range", input: mmPattern + "3 3 1\n4 1\n", wantErr: []string{"m.mtx:3: ", "row 4 out of range 1..3"}},
	{name: "column zero", input: mmPattern + "3 3 1\n1 0\n", wantErr: []string{"m.mtx:3: ", "column 0 out of range 1..3"}},
	{name: "column beyond cols of a rectangle", input: mmPattern + "3 2 1\n1 3\n", wantErr: []string{"m.mtx:3: ", "column 3 out of range 1..2"}},
	{name: "negative id", input: mmPattern + "3 3 1\n-1 2\n", wantErr: []string{"m.mtx:3: ", `negative vertex id "-1"`}},
	{name: "non-numeric id", input: mmPattern + "3 3 1\n1 b\n", wantErr: []string{"m.mtx:3: ", `non-numeric vertex id "b"`}},
	{name: "negative weight", input: mmInt + "3 3 2\n1 2 1\n2 3 -3\n", wantErr: []string{"m.mtx:4: ", `negative weight "-3"`}},
	{name: "negative real weight", input: mmReal + "3 3 1\n1 2 -0.2\n", wantErr: []string{"m.mtx:3: ", `negative weight "-0.2"`}},
	{name: "non-numeric weight", input: mmInt + "3 3 1\n1 2 heavy\n", wantErr: []string{"m.mtx:3: ", `non-numeric weight "heavy"`}},
	{name: "real weight in an integer matrix", input: mmInt + "3 3 1\n1 2 2.5\n", wantErr: []string{"m.mtx:3: ", `non-integer weight "2.5"`}},
	{name: "NaN weight", input: mmReal + "3 3 1\n1 2 NaN\n", wantErr: []string{"m.mtx:3: ", `weight "NaN" is not finite`}},
	{name: "Inf weight", input: mmReal + "3 3 1\n1 2 +Inf\n", wantErr: []string{"m.mtx:3: ", `weight "+Inf" is not finite`}},
	{name: "weight above 32 bits", input: mmInt + "3 3 1\n1 2 4294967296\n", wantErr: []string{"m.mtx:3: ", `weight "4294967296" does not fit 32 bits`}},
	{name: "real weight rounding above 32 bits", input: mmReal + "3 3 1\n1 2 4294967295.5\n", wantErr: []string{"m.mtx:3: ", "does not fit 32 bits"}},
	{name: "huge real weight", input: mmReal + "3 3 1\n1 2 1e400\n", wantErr: []string{"m.mtx:3: ", "does not fit 32 bits"}},
	{name: "missing weight", input: mmInt + "3 3 1\n1 2\n", wantErr: []string{"m.mtx:3: ", "missing weight"}},
	{name: "extra field", input: mmPattern + "3 3 1\n1 2 3\n", wantErr: []string{"m.mtx:3: ", "more than 2 fields"}},
	{name: "rows beyond 32 bits", input: mmPattern + "3000000000 3 0\n", wantErr: []string{"m.mtx:2: ", "3000000000"}, wantIs: ErrTooManyVertices},
	{name: "rows beyond 64 bits", input: mmPattern + "99999999999999999999999 3 0\n", wantErr: []string{"m.mtx:2: "}, wantIs: ErrTooManyVertices},
	{name: "huge declared vertices with little data", input: mmPattern + "2000000000 2000000000 0\n", wantErr: []string{"m.mtx:2: ", "per byte"}, wantIs: ErrVerticesOutOfProportion, wantNot: []string{"2^31"}},
	{name: "10^8 declared vertices for one entry names the proportion limit", input: mmPattern + "100000000 100000000 1\n1 2\n",
		wantErr: []string{"m.mtx:2: ", "100000000 vertices", "more than 64 per byte"}, wantIs: ErrVerticesOutOfProportion, wantNot: []string{"2^31"}},
	{name: "entries beyond 32 bits", input: mmPattern + "3 3 9999999999\n1 1\n", wantErr: []string{"m.mtx:2: "}, wantIs: ErrTooManyEdges},
	{name: "huge declared entries with little data", input: mmPattern + "3 3 2000000000\n1 1\n", wantErr: []string{"m.mtx:2: ", "truncated file", "holds 1"}},
}

func TestReadMatrixMarket(t *testing.T) {
	runReaderCases(t, ReadMatrixMarket, "m.mtx", matrixMarketCases)
}

var edgeListCases = []readerCase{
	{name: "empty", input: "", want: &wantCSR{offsets: []uint32{0}, targets: []uint32{}, directed: true}},
	{name: "only comments", input: "# hello\n% world\n", want: &wantCSR{offsets: []uint32{0}, targets: []uint32{}, directed: true}},
	{name: "header without edges", input: "# Nodes: 2 Edges: 0\n", want: &wantCSR{offsets: []uint32{0, 0, 0}, targets: []uint32{}, directed: true}},
	{name: "self-loops and duplicates kept, no final newline", input: "1 1\n0 1\n0 1", want: &wantCSR{offsets: []uint32{0, 2, 3}, targets: []uint32{1, 1, 1}, directed: true}},
	{name: "leading zeros and tabs", input: "\t007\t0002 \n", want: &wantCSR{offsets: []uint32{0, 0, 0, 0, 0, 0, 0, 0, 1}, targets: []uint32{2}, directed: true}},
	{name: "header comment after the first edge is just a comment", input: "0 1\n# Nodes: 1\n", want: &wantCSR{offsets: []uint32{0, 1, 1}, targets: []uint32{1}, directed: true}},

	{name: "one column", input: "0 1\n2\n", wantErr: []string{"e.el:2: ", "1 column"}},
	{name: "four columns", input: "0 1 2 3\n", wantErr: []string{"e.el:1: ", "more than 3 columns"}},
	{name: "weight missing after a weighted first line", input: "0 1 5\n1 2\n", wantErr: []string{"e.el:2: ", "missing weight", "line 1"}},
	{name: "weight after an unweighted first line", input: "# c\n0 1\n1 2 5\n", wantErr: []string{"e.el:3: ", `unexpected third column "5"`, "line 2"}},
	{name: "negative id", input: "0 1\n-1 2\n", wantErr: []string{"e.el:2: ", `negative vertex id "-1"`}},
	{name: "non-numeric id", input: "a b\n", wantErr: []string{"e.el:1: ", `non-numeric vertex id "a"`}},
	{name: "negative weight", input: "0 1 1\n1 2 -3\n", wantErr: []string{"e.el:2: ", `negative weight "-3"`}},
	{name: "non-numeric weight", input: "0 1 x1\n", wantErr: []string{"e.el:1: ", `non-numeric weight "x1"`}},
	{name: "NaN weight", input: "0 1 nan\n", wantErr: []string{"e.el:1: ", `non-integer weight "nan"`}},
	{name: "fractional weight", input: "0 1 3\n0 1 2.5\n", wantErr: []string{"e.el:2: ", `non-integer weight "2.5"`}},
	{name: "exponent weight", input: "0 1 1e2\n", wantErr: []string{"e.el:1: ", `non-integer weight "1e2"`}},
	{name: "long garbage is shortened in the message", input: "0 1 " + strings.Repeat("x", 5000) + "\n",
		wantErr: []string{"e.el:1: ", `non-numeric weight "` + strings.Repeat("x", 40) + `"...`}},
	{name: "id beyond 32 bits", input: "0 3000000000\n", wantErr: []string{"e.el:1: ", "3000000000"}, wantIs: ErrTooManyVertices},
	{name: "id beyond 64 bits", input: "0 99999999999999999999999\n", wantErr: []string{"e.el:1: ", "too large"}},
	{name: "huge id with little data", input: "0 2000000000\n", wantErr: []string{"e.el: ", "per byte"}, wantIs: ErrVerticesOutOfProportion, wantNot: []string{"2^31"}},
	{name: "id at or above the declared nodes", input: "# Nodes: 3 Edges: 1\n0 3\n", wantErr: []string{"e.el:2: ", "vertex id 3 out of range", "(line 1) declares 3 nodes"}},
	{name: "declared nodes beyond 32 bits", input: "# Nodes: 3000000000 Edges: 1\n0 1\n", wantErr: []string{"e.el:1: "}, wantIs: ErrTooManyVertices},
	{name: "declared nodes beyond 64 bits", input: "# Nodes: 99999999999999999999999\n0 1\n", wantErr: []string{"e.el:1: "}, wantIs: ErrTooManyVertices},
	{name: "huge declared sizes with little data", input: "# Nodes: 2000000000 Edges: 2000000000\n0 1\n", wantErr: []string{"e.el:1: ", "per byte"}, wantIs: ErrVerticesOutOfProportion, wantNot: []string{"2^31"}},
}

func TestReadEdgeList(t *testing.T) {
	runReaderCases(t, ReadEdgeList, "e.el", edgeListCases)
}

var metisCases = []readerCase{
	{name: "no vertices", input: "0 0\n", want: &wantCSR{offsets: []uint32{0}, targets: []uint32{}}},
	{name: "isolated vertices as blank lines", input: "3 1\n\n3\n2\n",
		want: &wantCSR{offsets: []uint32{0, 0, 1, 2}, targets: []uint32{2, 1}}},
	{name: "comments between vertex lines and trailing blank lines", input: "%a\n2 1\n% b\n2\n%c\n1\n\n\n",
		want: &wantCSR{offsets: []uint32{0, 1, 2}, targets: []uint32{1, 0}}},
	{name: "vertex sizes and two vertex weights", input: "2 1 110 2\n7 1 1 2\n8 2 2 1\n",
		want: &wantCSR{offsets: []uint32{0, 1, 2}, targets: []uint32{1, 0}}},
	{name: "fmt 001 edge weights, unsorted neighbours", input: "3 2 001\n3 4 2 6\n1 6\n1 4\n",
		want: &wantCSR{offsets: []uint32{0, 2, 3, 4}, targets: []uint32{1, 2, 0, 0}, weights: []uint32{6, 4, 6, 4}}},
	{name: "CRLF", input: "2 1\r\n2\r\n1\r\n", want: &wantCSR{offsets: []uint32{0, 1, 2}, targets: []uint32{1, 0}}},

	{name: "empty file", input: "", wantErr: []string{"g.graph: ", "missing the header line"}},
	{name: "header with one number", input: "4\n", wantErr: []string{"g.graph:1: ", "header must be"}},
	{name: "header with five numbers", input: "4 1 0 1 9\n", wantErr: []string{"g.graph:1: ", "header must be"}},
	{name: "non-numeric vertex count", input: "x 3\n", wantErr: []string{"g.graph:1: ", `bad vertex count "x"`}},
	{name: "fmt digit 2", input: "2 1 2\n2\n1\n", wantErr: []string{"g.graph:1: ", `fmt "2" must be made of 0 and 1`}},
	{name: "fmt with four digits", input: "2 1 1111\n", wantErr: []string{"g.graph:1: ", "more than 3 digits"}},
	{name: "bad ncon", input: "2 1 010 0\n", wantErr: []string{"g.graph:1: ", `bad ncon "0"`}},
	{name: "too few adjacency entries", input: "3 2\n2\n1\n\n", wantErr: []string{"g.graph:1: ", "2*2 = 4 adjacency entries", "hold 2"}},
	{name: "too many adjacency entries", input: "2 0\n2\n1\n", wantErr: []string{"g.graph:2: ", "more than the 2*0 = 0 adjacency entries"}},
	{name: "fewer vertex lines", input: "3 1\n2\n1\n", wantErr: []string{"g.graph:3: ", "truncated file: 2 vertex lines", "declares 3 vertices"}},
	{name: "more vertex lines", input: "2 1\n2\n1\n1\n", wantErr: []string{"g.graph:4: ", "more vertex lines than the 2 vertices"}},
	{name: "neighbour out of range", input: "2 1\n3\n1\n", wantErr: []string{"g.graph:2: ", "neighbour 3 out of range 1..2"}},
	{name: "neighbour zero", input: "2 1\n0\n1\n", wantErr: []string{"g.graph:2: ", "neighbour 0 out of range 1..2"}},
	{name: "non-numeric neighbour", input: "2 1\n2\nx\n", wantErr: []string{"g.graph:3: ", `non-numeric vertex id "x"`}},
	{name: "missing edge weight", input: "2 1 1\n2\n1 5\n", wantErr: []string{"g.graph:2: ", "neighbour 2 has no edge weight"}},
	{name: "negative edge weight", input: "2 1 1\n2 -3\n1 -3\n", wantErr: []string{"g.graph:2: ", `negative weight "-3"`}},
	{name: "missing vertex weight", input: "2 1 010 2\n5\n1 1 1\n", wantErr: []string{"g.graph:2: ", "missing vertex weight 2 of 2"}},
	{name: "non-numeric vertex size", input: "2 1 100\nbig 2\n1 1\n", wantErr: []string{"g.graph:2: ", `bad vertex size "big"`}},
	{name: "edge listed at one endpoint only", input: "3 1\n2\n3\n\n", wantErr: []string{"g.graph:2: ", "vertex 1 lists neighbour 2, but vertex 2 (line 3) does not list 1"}},
	{name: "asymmetry after comments names the vertex's own line", input: "% c\n4 2\n% d\n2\n1\n%e\n3\n3\n",
		wantErr: []string{"g.graph:8: ", "vertex 4 lists neighbour 3, but vertex 3 (line 7) does not list 4"}},
	{name: "vertices beyond 32 bits", input: "3000000000 1\n", wantErr: []string{"g.graph:1: "}, wantIs: ErrTooManyVertices},
	{name: "edges beyond 32 bits", input: "3 2000000000\n", wantErr: []string{"g.graph:1: "}, wantIs: ErrTooManyEdges},
	{name: "huge declared sizes with little data", input: "2000000000 1000000000\n2\n1\n", wantErr: []string{"g.graph:3: ", "truncated file: 2 vertex lines", "declares 2000000000 vertices"}},
}

func TestReadMETIS(t *testing.T) {
	runReaderCases(t, ReadMETIS, "g.graph", metisCases)
}

var dimacsCases = []readerCase{
	{name: "no arcs", input: "p sp 2 0\n", want: &wantCSR{offsets: []uint32{0, 0, 0}, targets: []uint32{}, weights: []uint32{}, directed: true}},
	{name: "CRLF, comments anywhere, parallel arcs kept", input: "c x\r\np sp 2 2\r\n\r\na 1 2 4\r\nc y\r\na 1 2 3\r\n",
		want: &wantCSR{offsets: []uint32{0, 2, 2}, targets: []uint32{1, 1}, weights: []uint32{4, 3}, directed: true}},

	{name: "arc before the problem line", input: "c x\na 1 2 3\n", wantErr: []string{"road.gr:2: ", "arc before the problem line"}},
	{name: "missing problem line", input: "c only comments\n", wantErr: []string{"road.gr: ", "missing the problem line"}},
	{name: "second problem line", input: "p sp 2 0\np sp 2 0\n", wantErr: []string{"road.gr:2: ", "second problem line", "line 1"}},
	{name: "other problem", input: "p max 3 2\n", wantErr: []string{"road.gr:1: ", `unsupported problem "max"`}},
	{name: "short problem line", input: "p sp 3\n", wantErr: []string{"road.gr:1: ", "problem line must be"}},
	{name: "too few arcs", input: "p sp 3 2\na 1 2 1\n", wantErr: []string{"road.gr:2: ", "truncated file: 1 arcs", "declares 2"}},
	{name: "too many arcs", input: "p sp 3 1\na 1 2 1\na 2 3 1\n", wantErr: []string{"road.gr:3: ", "more arcs than the 1"}},
	{name: "id out of range", input: "p sp 3 1\na 1 4 1\n", wantErr: []string{"road.gr:2: ", "vertex 4 out of range 1..3"}},
	{name: "id zero", input: "p sp 3 1\na 0 1 1\n", wantErr: []string{"road.gr:2: ", "vertex 0 out of range 1..3"}},
	{name: "negative weight", input: "c\np sp 3 2\na 1 2 1\na 2 3 -3\n", wantErr: []string{"road.gr:4: ", `negative weight "-3"`}},
	{name: "non-numeric weight", input: "p sp 3 1\na 1 2 w\n", wantErr: []string{"road.gr:2: ", `non-numeric weight "w"`}},
	{name: "real weight", input: "p sp 3 1\na 1 2 1.5\n", wantErr: []string{"road.gr:2: ", `non-integer weight "1.5"`}},
	{name: "weight above 32 bits", input: "p sp 3 1\na 1 2 99999999999\n", wantErr: []string{"road.gr:2: ", "does not fit 32 bits"}},
	{name: "short arc line", input: "p sp 3 1\na 1 2\n", wantErr: []string{"road.gr:2: ", "arc line must be"}},
	{name: "unknown line type", input: "p sp 3 1\ne 1 2\n", wantErr: []string{"road.gr:2: ", `unknown line type "e"`}},
	{name: "vertices beyond 32 bits", input: "p sp 3000000000 0\n", wantErr: []string{"road.gr:1: "}, wantIs: ErrTooManyVertices},
	{name: "arcs beyond 32 bits", input: "p sp 3 3000000000\n", wantErr: []string{"road.gr:1: "}, wantIs: ErrTooManyEdges},
	{name: "huge declared vertices with little data", input: "p sp 2000000000 0\n", wantErr: []string{"road.gr:1: ", "per byte"}, wantIs: ErrVerticesOutOfProportion, wantNot: []string{"2^31"}},
	{name: "huge declared arcs with little data", input: "p sp 3 2000000000\na 1 2 1\n", wantErr: []string{"road.gr:2: ", "truncated file: 1 arcs"}},
}

func TestReadDIMACS(t *testing.T) {
	runReaderCases(t, ReadDIMACS, "road.gr", dimacsCases)
}

func TestReadFileErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nope.mtx")
		_, err := ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.ErrorIs(t, err, fs.ErrNotExist)
		assert.Contains(t, err.Error(), path)
	})
	t.Run("missing cache file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "nope.wgc")
		_, err := ReadFile(path, ReadOptions{})
		assert.ErrorIs(t, err, fs.ErrNotExist)
		assert.Contains(t, err.Error(), path)
	})
	t.Run("unknown extension lists the known ones", func(t *testing.T) {
		_, err := ReadFile("graph.csv", ReadOptions{})
		require.Error(t, err)
		for _, ext := range []string{`".csv"`, ".mtx", ".el", ".txt", ".edges", ".snap", ".tsv", ".graph", ".metis", ".gr", ".wgc"} {
			assert.Contains(t, err.Error(), ext)
		}
	})
	t.Run("error names the path and line", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "road.gr")
		require.NoError(t, os.WriteFile(path, []byte("p sp 3 1\na 1 2 -3\n"), 0o644))
		_, err := ReadFile(path, ReadOptions{})
		require.Error(t, err)
		assert.Equal(t, path+`:2: negative weight "-3"`, err.Error())
		var re *ReadError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, int64(2), re.Line)
	})
	t.Run("extension case does not matter", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "G.MTX")
		require.NoError(t, os.WriteFile(path, []byte(mmPattern+"1 1 1\n1 1\n"), 0o644))
		g, err := ReadFile(path, ReadOptions{})
		require.NoError(t, err)
		assert.Equal(t, 1, g.NumEdges())
	})
}

func TestReadFileProgress(t *testing.T) {
	var text bytes.Buffer
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "%d %d\n", i%1000, (i*7)%1000)
	}
	path := filepath.Join(t.TempDir(), "big.el")
	require.NoError(t, os.WriteFile(path, text.Bytes(), 0o644))
	type call struct{ done, total int64 }
	var calls []call
	_, err := ReadFile(path, ReadOptions{Progress: func(done, total int64) { calls = append(calls, call{done, total}) }})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(calls), 3)
	size := int64(text.Len())
	assert.Equal(t, call{size, size}, calls[len(calls)-1], "the last call reports the whole file")
	for i := 1; i < len(calls); i++ {
		assert.Equal(t, size, calls[i].total)
		assert.Greater(t, calls[i].done, calls[i-1].done)
		if i < len(calls)-1 {
			assert.GreaterOrEqual(t, calls[i].done-calls[i-1].done, int64(progressStep), "at most one call per MiB")
		}
	}
}

// emptyReader returns (0, nil) forever, which a parser must not spin on.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// failingReader delivers its text, then an error instead of io.EOF.
type failingReader struct{ text []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.text) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

// validPrefix starts a valid input of each format, so that only the read
// error can stop the reader.
var validPrefix = map[string]string{
	"mtx": mmPattern + "3 3 5\n1 1\n", "el": "0 1\n", "metis": "3 3\n2\n", "dimacs": "p sp 2 1\n", "cache": cacheMagic,
}

func TestReadersStopOnBrokenReaders(t *testing.T) {
	readers := map[string]readFunc{"mtx": ReadMatrixMarket, "el": ReadEdgeList, "metis": ReadMETIS, "dimacs": ReadDIMACS, "cache": ReadCache}
	for name, read := range readers {
		t.Run(name+" no progress", func(t *testing.T) {
			_, err := read(emptyReader{}, "x", ReadOptions{})
			require.Error(t, err)
			assert.ErrorIs(t, err, io.ErrNoProgress)
		})
		t.Run(name+" read error", func(t *testing.T) {
			_, err := read(&failingReader{text: []byte(validPrefix[name])}, "x", ReadOptions{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "disk on fire")
		})
	}
}

func TestReadMETISLineLongerThanBuffer(t *testing.T) {
	// A hub whose adjacency line is several times the read buffer.
	const leaves = 200000
	var text strings.Builder
	fmt.Fprintf(&text, "%d %d\n", leaves+1, leaves)
	for v := 2; v <= leaves+1; v++ {
		fmt.Fprintf(&text, "%d ", v)
	}
	text.WriteString("\n")
	for v := 2; v <= leaves+1; v++ {
		text.WriteString("1\n")
	}
	require.Greater(t, text.Len(), 2*lineBufferSize)
	g, err := ReadMETIS(strings.NewReader(text.String()), "hub.graph", ReadOptions{})
	require.NoError(t, err)
	assert.Equal(t, leaves, g.OutDegree(0))
	assert.Equal(t, uint32(leaves), g.Neighbors(0)[leaves-1])
	assert.Equal(t, []uint32{0}, g.Neighbors(leaves))
}

// TestParseWeightMatchesParseFloat checks the fast decimal path against the
// definition: strconv.ParseFloat, then math.Round.
func TestParseWeightMatchesParseFloat(t *testing.T) {
	inputs := []string{"0", "1", "0.5", "1.5", "2.5", "0.49999", "0.4999999999999", "2.4999999999999",
		"123456789012345", "1234567890123456", "4294967295", "4294967295.4", "4294967295.5", "4294967296",
		"7.", "007.5", "12345678901234.5", "99999999999999.5", "0.0000000000009", "1.99999999999995",
		"3.14159", "1e3", "1.5E2", "0x10", ".5", "5.5.5", "1_0", "+3", "-3", "-0.0", "inf", "NaN"}
	for i := 0; i < 2000; i++ {
		inputs = append(inputs, strconv.FormatFloat(float64(i)*1.37+0.005*float64(i%7), 'f', i%9, 64))
	}
	for _, in := range inputs {
		got, problem := parseWeight([]byte(in), true)
		f, err := strconv.ParseFloat(in, 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			assert.Equal(t, weightNotNumeric, problem, in)
		case math.IsNaN(f) || math.IsInf(f, 0) && err == nil:
			assert.Equal(t, weightNotFinite, problem, in)
		case f < 0:
			assert.Equal(t, weightNegative, problem, in)
		case math.Round(f) > math.MaxUint32:
			assert.Equal(t, weightTooLarge, problem, in)
		default:
			if assert.Equal(t, weightOK, problem, in) {
				assert.Equal(t, uint32(math.Round(f)), got, in)
			}
		}
	}
}
