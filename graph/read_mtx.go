package graph

import (
	"fmt"
	"io"
	"strings"
)

// ReadMatrixMarket reads a Matrix Market coordinate file: `pattern`,
// `integer` or `real` values, `general`, `symmetric` or `skew-symmetric`.
// Ids are 1-based and the graph has max(rows, cols) vertices; entry (i, j)
// is the edge i-1 -> j-1. A symmetric matrix becomes an undirected graph
// with each entry stored in both directions. A skew-symmetric one (A^T =
// -A, only the lower triangle stored) does too, with each value's sign
// dropped: its non-zero pattern is symmetric, and a graph weight is a
// magnitude. Real values are rounded to the nearest
// integer; every weight must be a non-negative integer that fits uint32.
// name labels errors ("file:line: problem").
func ReadMatrixMarket(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	lr := newLineReader(r, name, opt)
	h, err := readMatrixMarketHeader(lr)
	if err != nil {
		return nil, err
	}
	list := &EdgeList{}
	prealloc := lr.preallocation(h.entries, 4) // "1 1\n" is the shortest entry
	weighted := h.field != "pattern"
	if err := lr.preallocateEdges(list, prealloc, weighted, h.sizeLine); err != nil {
		return nil, err
	}
	wantFields := 2
	if weighted {
		wantFields = 3
	}
	allowReal := h.field == "real"
	var count uint64
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		c := firstByte(line)
		if c == 0 || c == '%' {
			continue
		}
		if count == h.entries {
			return nil, lr.errorf("more entries than the %d the size line (line %d) declares", h.entries, h.sizeLine)
		}
		rowTok, pos := nextField(line, 0)
		colTok, pos := nextField(line, pos)
		row, rowOK := parseID(rowTok)
		col, colOK := parseID(colTok)
		if !rowOK {
			return nil, lr.errorf("row: %s", idProblem(rowTok))
		}
		if !colOK {
			return nil, lr.errorf("column: %s", idProblem(colTok))
		}
		if row < 1 || row > h.rows {
			return nil, lr.errorf("row %d out of range 1..%d", row, h.rows)
		}
		if col < 1 || col > h.cols {
			return nil, lr.errorf("column %d out of range 1..%d", col, h.cols)
		}
		var w uint32
		if weighted {
			var valTok []byte
			valTok, pos = nextField(line, pos)
			if h.skew && len(valTok) > 1 && valTok[0] == '-' {
				valTok = valTok[1:] // the upper triangle's value is the negation
			}
			var problem weightProblem
			if w, problem = parseWeight(valTok, allowReal); problem != weightOK {
				return nil, lr.errorf("%s", problem.describe(valTok))
			}
		}
		if !blank(line, pos) {
			return nil, lr.errorf("%s entry has more than %d fields", h.field, wantFields)
		}
		if len(list.Src) == cap(list.Src) {
			if err := lr.growEdges(list); err != nil {
				return nil, err
			}
		}
		list.Src = append(list.Src, uint32(row-1))
		list.Dst = append(list.Dst, uint32(col-1))
		if weighted {
			list.Weights = append(list.Weights, w)
		}
		count++
	}
	if err := lr.failure(); err != nil {
		return nil, err
	}
	if count < h.entries {
		return nil, &ReadError{File: lr.name, Line: h.sizeLine, Msg: fmt.Sprintf("truncated file: the size line declares %d entries, the file holds %d", h.entries, count)}
	}
	n := max(h.rows, h.cols)
	if err := lr.checkVertexCount(n, h.sizeLine, "size line declares"); err != nil {
		return nil, err
	}
	list.NumVertices = int(n)
	g, err := Build(list, BuildOptions{Symmetrize: h.symmetric})
	if err != nil {
		return nil, &ReadError{File: lr.name, Msg: "building the CSR failed", Err: err}
	}
	return g, nil
}

type matrixMarketHeader struct {
	field      string // pattern, integer or real
	symmetric  bool
	skew       bool // skew-symmetric: symmetric, signs dropped
	rows, cols uint64
	entries    uint64
	sizeLine   int64
}

// readMatrixMarketHeader reads the banner, the comments and the size line.
func readMatrixMarketHeader(lr *lineReader) (matrixMarketHeader, error) {
	var h matrixMarketHeader
	banner, ok := lr.next()
	if !ok {
		if err := lr.failure(); err != nil {
			return h, err
		}
		return h, &ReadError{File: lr.name, Msg: "empty file: missing the %%MatrixMarket banner"}
	}
	var words [5]string
	pos := 0
	for i := range words {
		var tok []byte
		tok, pos = nextField(banner, pos)
		words[i] = strings.ToLower(string(tok))
	}
	if words[0] != "%%matrixmarket" {
		return h, lr.errorf("missing the %%%%MatrixMarket banner (found %s)", quoteToken(banner))
	}
	if !blank(banner, pos) || words[4] == "" {
		return h, lr.errorf("banner must be \"%%%%MatrixMarket matrix <format> <field> <symmetry>\"")
	}
	object, format, field, symmetry := words[1], words[2], words[3], words[4]
	if object != "matrix" {
		return h, lr.errorf("unsupported object %q (only \"matrix\")", object)
	}
	switch format {
	case "coordinate":
	case "array":
		return h, lr.errorf("unsupported format \"array\" (dense matrices are not graphs; only \"coordinate\")")
	default:
		return h, lr.errorf("unknown format %q (only \"coordinate\")", format)
	}
	switch field {
	case "pattern", "integer", "real":
	case "complex":
		return h, lr.errorf("unsupported field \"complex\" (only pattern, integer, real)")
	default:
		return h, lr.errorf("unknown field %q (only pattern, integer, real)", field)
	}
	switch symmetry {
	case "general":
	case "symmetric":
		h.symmetric = true
	case "skew-symmetric":
		h.symmetric, h.skew = true, true
	case "hermitian":
		return h, lr.errorf("unsupported symmetry \"hermitian\" (complex matrices only; use general, symmetric or skew-symmetric)")
	default:
		return h, lr.errorf("unknown symmetry %q (only general, symmetric, skew-symmetric)", symmetry)
	}
	h.field = field
	for {
		line, ok := lr.next()
		if !ok {
			if err := lr.failure(); err != nil {
				return h, err
			}
			return h, &ReadError{File: lr.name, Line: lr.line, Msg: "truncated file: missing the size line \"rows cols entries\""}
		}
		c := firstByte(line)
		if c == 0 || c == '%' {
			continue
		}
		var toks [3][]byte
		pos := 0
		for i := range toks {
			toks[i], pos = nextField(line, pos)
		}
		if len(toks[2]) == 0 || !blank(line, pos) {
			return h, lr.errorf("size line must be \"rows cols entries\" (found %s)", quoteToken(line))
		}
		var vals [3]uint64
		for i, what := range []string{"rows", "cols", "entries"} {
			v, ok := parseID(toks[i])
			if !ok {
				if isInteger(toks[i]) && toks[i][0] != '-' {
					if i == 2 {
						return h, lr.wrapf(ErrTooManyEdges, "size line declares %s entries", toks[i])
					}
					return h, lr.wrapf(ErrTooManyVertices, "size line declares %s %s", toks[i], what)
				}
				return h, lr.errorf("size line: bad %s count %s", what, quoteToken(toks[i]))
			}
			vals[i] = v
		}
		h.rows, h.cols, h.entries, h.sizeLine = vals[0], vals[1], vals[2], lr.line
		if h.symmetric && h.rows != h.cols {
			return h, lr.errorf("%s matrix must be square, size line declares %d x %d", symmetry, h.rows, h.cols)
		}
		if h.entries > MaxEdges {
			return h, lr.wrapf(ErrTooManyEdges, "size line declares %d entries", h.entries)
		}
		// The vertex count is checked against the data already read here
		// and the whole input later; checking MaxVertices now fails fast.
		if n := max(h.rows, h.cols); n > MaxVertices {
			return h, lr.wrapf(ErrTooManyVertices, "size line declares %d x %d", h.rows, h.cols)
		}
		return h, nil
	}
}
