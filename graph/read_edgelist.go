package graph

import (
	"bytes"
	"io"
)

// ReadEdgeList reads a SNAP or plain edge list: one "src dst" or
// "src dst weight" per line, separated by any white space, with '#' and '%'
// comment lines. Ids are 0-based; the graph has max id + 1 vertices unless
// a SNAP header comment ("# Nodes: N Edges: M") before the first edge says
// N, in which case every id must be below N. The edges are directed and
// kept as given (no dedupe). The list is weighted when its first edge line
// has three columns, and then every line must; weights are non-negative
// integers that fit uint32 (README.md, "Graph specs"): a fraction such as
// 2.5 is an error naming the line, not a weight rounded in silence.
func ReadEdgeList(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	lr := newLineReader(r, name, opt)
	list := &EdgeList{}
	var (
		declaredNodes uint64 // from "# Nodes:", 0 when absent
		nodesLine     int64
		maxID         uint64
		sawEdge       bool
		weighted      bool
		firstLine     int64
	)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		pos := 0
		for pos < len(line) && isSpace(line[pos]) {
			pos++
		}
		if pos == len(line) {
			continue
		}
		if c := line[pos]; c == '#' || c == '%' {
			if !sawEdge {
				nodes, edges, found := parseSNAPHeader(line[pos:])
				if found {
					if nodes > MaxVertices {
						return nil, lr.wrapf(ErrTooManyVertices, "header declares %d nodes", nodes)
					}
					declaredNodes, nodesLine = nodes, lr.line
					if edges > 0 && list.Src == nil {
						n := lr.preallocation(edges, 4) // "0 0\n" is the shortest edge
						if err := lr.preallocateEdges(list, n, false, lr.line); err != nil {
							return nil, err
						}
					}
				}
			}
			continue
		}
		srcTok, pos := nextField(line, pos)
		dstTok, pos := nextField(line, pos)
		wTok, pos := nextField(line, pos)
		if len(dstTok) == 0 {
			return nil, lr.errorf("edge line has 1 column, want \"src dst\" or \"src dst weight\"")
		}
		if !blank(line, pos) {
			return nil, lr.errorf("edge line has more than 3 columns")
		}
		if !sawEdge {
			sawEdge, firstLine = true, lr.line
			weighted = len(wTok) > 0
			if weighted {
				list.Weights = make([]uint32, 0, cap(list.Src))
			}
		} else if weighted != (len(wTok) > 0) {
			if weighted {
				return nil, lr.errorf("missing weight: the first edge (line %d) has a weight, so every edge needs one", firstLine)
			}
			return nil, lr.errorf("unexpected third column %s: the first edge (line %d) has no weight", quoteToken(wTok), firstLine)
		}
		src, ok := parseID(srcTok)
		if !ok {
			return nil, lr.errorf("source: %s", idProblem(srcTok))
		}
		dst, ok := parseID(dstTok)
		if !ok {
			return nil, lr.errorf("destination: %s", idProblem(dstTok))
		}
		if nodesLine > 0 {
			if src >= declaredNodes || dst >= declaredNodes {
				return nil, lr.errorf("vertex id %d out of range: the header (line %d) declares %d nodes", max(src, dst), nodesLine, declaredNodes)
			}
		} else if hi := max(src, dst); hi >= MaxVertices {
			return nil, lr.wrapf(ErrTooManyVertices, "vertex id %d", hi)
		} else if hi > maxID {
			maxID = hi
		}
		if weighted {
			w, problem := parseWeight(wTok, false)
			if problem != weightOK {
				return nil, lr.errorf("%s", problem.describe(wTok))
			}
			list.Weights = append(list.Weights, w)
		}
		if len(list.Src) == MaxEdges {
			return nil, lr.wrapf(ErrTooManyEdges, "edge %d", len(list.Src)+1)
		}
		if len(list.Src) == cap(list.Src) {
			if err := lr.growEdges(list); err != nil {
				return nil, err
			}
		}
		list.Src = append(list.Src, uint32(src))
		list.Dst = append(list.Dst, uint32(dst))
	}
	if err := lr.failure(); err != nil {
		return nil, err
	}
	n, line, what := declaredNodes, nodesLine, "header declares"
	if nodesLine == 0 && sawEdge {
		n, line, what = maxID+1, 0, "the largest id implies"
	}
	// Checked at the end, when the input's whole size is known.
	if err := lr.checkVertexCount(n, line, what); err != nil {
		return nil, err
	}
	list.NumVertices = int(n)
	g, err := Build(list, BuildOptions{})
	if err != nil {
		return nil, &ReadError{File: lr.name, Msg: "building the CSR failed", Err: err}
	}
	return g, nil
}

var (
	snapNodes = []byte("Nodes:")
	snapEdges = []byte("Edges:")
)

// parseSNAPHeader finds "Nodes: N" (and "Edges: M" when present) in a
// comment line such as SNAP's "# Nodes: 7115 Edges: 103689".
func parseSNAPHeader(comment []byte) (nodes, edges uint64, found bool) {
	i := bytes.Index(comment, snapNodes)
	if i < 0 {
		return 0, 0, false
	}
	tok, _ := nextField(comment, i+len(snapNodes))
	nodes, found = parseID(tok)
	if !found {
		if !isInteger(tok) || tok[0] == '-' {
			return 0, 0, false
		}
		// A count beyond 64 bits is still a count: let the caller refuse it.
		nodes, found = ^uint64(0), true
	}
	if j := bytes.Index(comment, snapEdges); j >= 0 {
		tok, _ = nextField(comment, j+len(snapEdges))
		edges, _ = parseID(tok)
	}
	return nodes, edges, true
}
