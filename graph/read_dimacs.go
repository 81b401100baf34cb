package graph

import (
	"bytes"
	"fmt"
	"io"
)

// ReadDIMACS reads a DIMACS shortest-path file (.gr, as in the 9th DIMACS
// Implementation Challenge): 'c' comment lines, one problem line
// "p sp n m", then m arc lines "a u v w" with 1-based ids and non-negative
// integer weights. The graph is directed and weighted; arcs are kept as
// given (parallel arcs stay).
func ReadDIMACS(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	lr := newLineReader(r, name, opt)
	var (
		list     = &EdgeList{}
		n, m     uint64
		pLine    int64 // 0 until the problem line is read
		arcs     uint64
		lastLine int64
	)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		kind, pos := nextField(line, 0)
		switch {
		case len(kind) == 0 || kind[0] == 'c':
			continue
		case len(kind) == 1 && kind[0] == 'a':
			if pLine == 0 {
				return nil, lr.errorf("arc before the problem line \"p sp n m\"")
			}
			if arcs == m {
				return nil, lr.errorf("more arcs than the %d the problem line (line %d) declares", m, pLine)
			}
			var u, v uint64
			var toks [3][]byte
			for i := range toks {
				toks[i], pos = nextField(line, pos)
			}
			if len(toks[2]) == 0 || !blank(line, pos) {
				return nil, lr.errorf("arc line must be \"a u v w\" (found %s)", quoteToken(line))
			}
			for i, id := range []*uint64{&u, &v} {
				var ok bool
				if *id, ok = parseID(toks[i]); !ok {
					return nil, lr.errorf("%s", idProblem(toks[i]))
				}
				if *id < 1 || *id > n {
					return nil, lr.errorf("vertex %d out of range 1..%d", *id, n)
				}
			}
			w, problem := parseWeight(toks[2], false)
			if problem != weightOK {
				return nil, lr.errorf("%s", problem.describe(toks[2]))
			}
			if len(list.Src) == cap(list.Src) {
				if err := lr.growEdges(list); err != nil {
					return nil, err
				}
			}
			list.Src = append(list.Src, uint32(u-1))
			list.Dst = append(list.Dst, uint32(v-1))
			list.Weights = append(list.Weights, w)
			arcs++
			lastLine = lr.line
		case len(kind) == 1 && kind[0] == 'p':
			if pLine != 0 {
				return nil, lr.errorf("second problem line (the first is line %d)", pLine)
			}
			var err error
			if n, m, err = parseDIMACSProblem(lr, line, pos); err != nil {
				return nil, err
			}
			pLine = lr.line
			prealloc := lr.preallocation(m, 8) // "a 1 1 0\n" is the shortest arc
			if err := lr.preallocateEdges(list, prealloc, true, pLine); err != nil {
				return nil, err
			}
		default:
			return nil, lr.errorf("unknown line type %s (want c, p or a)", quoteToken(kind))
		}
	}
	if err := lr.failure(); err != nil {
		return nil, err
	}
	if pLine == 0 {
		return nil, &ReadError{File: lr.name, Msg: "missing the problem line \"p sp n m\""}
	}
	if arcs < m {
		return nil, &ReadError{File: lr.name, Line: max(lastLine, pLine), Msg: fmt.Sprintf("truncated file: %d arcs, the problem line (line %d) declares %d", arcs, pLine, m)}
	}
	if err := lr.checkVertexCount(n, pLine, "problem line declares"); err != nil {
		return nil, err
	}
	list.NumVertices = int(n)
	g, err := Build(list, BuildOptions{})
	if err != nil {
		return nil, &ReadError{File: lr.name, Msg: "building the CSR failed", Err: err}
	}
	return g, nil
}

// parseDIMACSProblem parses the rest of "p sp n m" from pos.
func parseDIMACSProblem(lr *lineReader, line []byte, pos int) (n, m uint64, err error) {
	var toks [3][]byte
	for i := range toks {
		toks[i], pos = nextField(line, pos)
	}
	if len(toks[2]) == 0 || !blank(line, pos) {
		return 0, 0, lr.errorf("problem line must be \"p sp n m\" (found %s)", quoteToken(line))
	}
	if !bytes.Equal(toks[0], []byte("sp")) {
		return 0, 0, lr.errorf("unsupported problem %s (only \"sp\", shortest paths)", quoteToken(toks[0]))
	}
	n, okN := parseID(toks[1])
	m, okM := parseID(toks[2])
	switch {
	case !okN && isInteger(toks[1]) && toks[1][0] != '-', okN && n > MaxVertices:
		return 0, 0, lr.wrapf(ErrTooManyVertices, "problem line declares %s vertices", toks[1])
	case !okN:
		return 0, 0, lr.errorf("problem line: bad vertex count %s", quoteToken(toks[1]))
	case !okM && isInteger(toks[2]) && toks[2][0] != '-', okM && m > MaxEdges:
		return 0, 0, lr.wrapf(ErrTooManyEdges, "problem line declares %s arcs", toks[2])
	case !okM:
		return 0, 0, lr.errorf("problem line: bad arc count %s", quoteToken(toks[2]))
	}
	return n, m, nil
}
