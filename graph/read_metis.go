package graph

import (
	"fmt"
	"io"
	"slices"
)

// ReadMETIS reads a METIS graph file: a header "n m [fmt [ncon]]", then
// one line per vertex listing its 1-based neighbours (a blank line is a
// vertex without neighbours), with '%' comment lines anywhere. fmt has up
// to three 0/1 digits: vertex sizes, vertex weights (ncon of them, default
// 1) and edge weights. Vertex sizes and weights are checked and skipped;
// edge weights, when present, become the graph's weights. METIS lists each
// undirected edge at both endpoints, so the result is undirected as stored:
// the reader checks that there are 2*m adjacency entries and that every
// edge appears at both of its endpoints.
func ReadMETIS(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	lr := newLineReader(r, name, opt)
	h, err := readMETISHeader(lr)
	if err != nil {
		return nil, err
	}
	offsets, entries := lr.preallocation(h.n+1, 1), lr.preallocation(2*h.m, 2) // "1\n" is the shortest entry
	if err := lr.checkMemory(h.line, fmt.Sprintf("a CSR of %d vertices and %d edges", offsets-1, entries),
		withSlack(csrNeed(int64(offsets-1), int64(entries), h.edgeWeights))); err != nil {
		return nil, err
	}
	g := &Graph{Offsets: make([]uint32, 1, offsets)}
	g.Targets = make([]uint32, 0, entries)
	if h.edgeWeights {
		g.Weights = make([]uint32, 0, cap(g.Targets))
	}
	var vertices uint64
	// The vertex count at each comment line between the header and the
	// last vertex line: with it, vertexLine finds any vertex's line for
	// the symmetry check without a line number per vertex.
	var comments []uint64
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		c := firstByte(line)
		if c == '%' {
			if vertices < h.n {
				comments = append(comments, vertices)
			}
			continue
		}
		if vertices == h.n {
			if c == 0 {
				continue // trailing blank lines carry nothing
			}
			return nil, lr.errorf("more vertex lines than the %d vertices the header (line %d) declares", h.n, h.line)
		}
		if c != 0 {
			if err := readMETISVertex(lr, line, h, g); err != nil {
				return nil, err
			}
		}
		g.Offsets = append(g.Offsets, uint32(len(g.Targets)))
		vertices++
	}
	if err := lr.failure(); err != nil {
		return nil, err
	}
	if vertices < h.n {
		return nil, &ReadError{File: lr.name, Line: lr.line, Msg: fmt.Sprintf("truncated file: %d vertex lines, the header (line %d) declares %d vertices", vertices, h.line, h.n)}
	}
	if entries := uint64(len(g.Targets)); entries != 2*h.m {
		return nil, &ReadError{File: lr.name, Line: h.line, Msg: fmt.Sprintf("the header declares %d edges, so 2*%d = %d adjacency entries, but the vertex lines hold %d", h.m, h.m, 2*h.m, entries)}
	}
	g.sortAndDedupe(false)
	if err := checkMETISSymmetry(g, lr.name, func(v uint32) int64 { return metisVertexLine(h.line, comments, v) }); err != nil {
		return nil, err
	}
	return g, nil
}

// metisVertexLine is the line of vertex v (0-based): vertex lines follow
// the header one per line, blank ones included, and only comment lines
// come between them; comments holds the vertex count at each of those.
func metisVertexLine(header int64, comments []uint64, v uint32) int64 {
	before, _ := slices.BinarySearch(comments, uint64(v)+1)
	return header + 1 + int64(v) + int64(before)
}

type metisHeader struct {
	n, m        uint64
	vertexSizes bool
	ncon        int // vertex weights per vertex, 0 when the file has none
	edgeWeights bool
	line        int64
}

func readMETISHeader(lr *lineReader) (metisHeader, error) {
	var h metisHeader
	var line []byte
	for {
		var ok bool
		line, ok = lr.next()
		if !ok {
			if err := lr.failure(); err != nil {
				return h, err
			}
			return h, &ReadError{File: lr.name, Line: lr.line, Msg: "missing the header line \"n m [fmt [ncon]]\""}
		}
		if c := firstByte(line); c != 0 && c != '%' {
			break
		}
	}
	h.line = lr.line
	var toks [4][]byte
	pos := 0
	for i := range toks {
		toks[i], pos = nextField(line, pos)
	}
	if len(toks[1]) == 0 || !blank(line, pos) {
		return h, lr.errorf("header must be \"n m [fmt [ncon]]\" (found %s)", quoteToken(line))
	}
	n, ok := parseID(toks[0])
	if !ok {
		if isInteger(toks[0]) && toks[0][0] != '-' {
			return h, lr.wrapf(ErrTooManyVertices, "header declares %s vertices", toks[0])
		}
		return h, lr.errorf("header: bad vertex count %s", quoteToken(toks[0]))
	}
	m, ok := parseID(toks[1])
	if !ok {
		if isInteger(toks[1]) && toks[1][0] != '-' {
			return h, lr.wrapf(ErrTooManyEdges, "header declares %s edges", toks[1])
		}
		return h, lr.errorf("header: bad edge count %s", quoteToken(toks[1]))
	}
	if n > MaxVertices {
		return h, lr.wrapf(ErrTooManyVertices, "header declares %d vertices", n)
	}
	if m > MaxEdges/2 {
		return h, lr.wrapf(ErrTooManyEdges, "header declares %d undirected edges, stored twice", m)
	}
	h.n, h.m = n, m
	if f := toks[2]; len(f) > 0 {
		if len(f) > 3 {
			return h, lr.errorf("header: fmt %s has more than 3 digits", quoteToken(f))
		}
		var digits [3]byte
		copy(digits[3-len(f):], f)
		for _, d := range digits {
			if d != 0 && d != '0' && d != '1' {
				return h, lr.errorf("header: fmt %s must be made of 0 and 1 digits", quoteToken(f))
			}
		}
		h.vertexSizes = digits[0] == '1'
		if digits[1] == '1' {
			h.ncon = 1
		}
		h.edgeWeights = digits[2] == '1'
	}
	if nc := toks[3]; len(nc) > 0 {
		v, ok := parseID(nc)
		if !ok || v == 0 || v > 1<<20 {
			return h, lr.errorf("header: bad ncon %s (want a count of vertex weights, 1..%d)", quoteToken(nc), 1<<20)
		}
		if h.ncon > 0 {
			h.ncon = int(v)
		}
	}
	return h, nil
}

// readMETISVertex appends the neighbours (and edge weights) on one vertex
// line to g.
func readMETISVertex(lr *lineReader, line []byte, h metisHeader, g *Graph) error {
	pos := 0
	var tok []byte
	if h.vertexSizes {
		tok, pos = nextField(line, pos)
		if !isInteger(tok) {
			return lr.errorf("bad vertex size %s", quoteToken(tok))
		}
	}
	for k := 0; k < h.ncon; k++ {
		tok, pos = nextField(line, pos)
		if len(tok) == 0 {
			return lr.errorf("missing vertex weight %d of %d", k+1, h.ncon)
		}
		if !isInteger(tok) {
			return lr.errorf("non-numeric vertex weight %s", quoteToken(tok))
		}
	}
	for {
		tok, pos = nextField(line, pos)
		if len(tok) == 0 {
			return nil
		}
		id, ok := parseID(tok)
		if !ok {
			return lr.errorf("neighbour: %s", idProblem(tok))
		}
		if id < 1 || id > h.n {
			return lr.errorf("neighbour %d out of range 1..%d", id, h.n)
		}
		if uint64(len(g.Targets)) == 2*h.m {
			return lr.errorf("more than the 2*%d = %d adjacency entries the header (line %d) declares", h.m, 2*h.m, h.line)
		}
		if h.edgeWeights {
			var wTok []byte
			wTok, pos = nextField(line, pos)
			if len(wTok) == 0 {
				return lr.errorf("neighbour %d has no edge weight", id)
			}
			w, problem := parseWeight(wTok, false)
			if problem != weightOK {
				return lr.errorf("%s", problem.describe(wTok))
			}
			g.Weights = append(g.Weights, w)
		}
		g.Targets = append(g.Targets, uint32(id-1))
	}
}

// checkMETISSymmetry checks that every listed edge u-v is also listed at v:
// an undirected Graph relies on it (its reverse is itself). Targets are
// sorted, so each check is a binary search. The error names u's line and
// v's, which lineOf gives.
func checkMETISSymmetry(g *Graph, name string, lineOf func(v uint32) int64) error {
	for u := 0; u < g.NumVertices(); u++ {
		for _, v := range g.Neighbors(uint32(u)) {
			if _, found := slices.BinarySearch(g.Neighbors(v), uint32(u)); !found {
				return &ReadError{File: name, Line: lineOf(uint32(u)), Msg: fmt.Sprintf(
					"vertex %d lists neighbour %d, but vertex %d (line %d) does not list %d (METIS lists every edge at both endpoints)",
					u+1, v+1, v+1, lineOf(v), u+1)}
			}
		}
	}
	return nil
}
