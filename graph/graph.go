package graph

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// MaxEdges is the largest number of stored (directed) edges a Graph can hold:
// edge offsets are 32-bit because the GPU kernels index edges with 32-bit
// integers.
const MaxEdges = math.MaxInt32

// MaxVertices is the largest vertex count; vertex ids are 32-bit.
const MaxVertices = math.MaxInt32

// ErrTooManyEdges is returned when a graph would exceed MaxEdges stored edges.
var ErrTooManyEdges = errors.New("graph: more than 2^31-1 edges do not fit 32-bit edge offsets")

// ErrTooManyVertices is returned when a graph would exceed MaxVertices vertices.
var ErrTooManyVertices = errors.New("graph: more than 2^31-1 vertices do not fit 32-bit vertex ids")

// Graph is a compressed sparse row graph: the out-edges of vertex v are
// Targets[Offsets[v]:Offsets[v+1]], with Weights alongside when the graph is
// weighted. An undirected graph stores each edge in both directions, so the
// edge count is always the directed count.
type Graph struct {
	// Offsets has NumVertices()+1 entries; Offsets[0] is 0.
	Offsets []uint32
	// Targets holds the destination of every stored edge.
	Targets []uint32
	// Weights is nil for an unweighted graph, else one weight per edge.
	Weights []uint32
	// Directed is false when every edge is stored in both directions; the
	// reverse CSR of an undirected graph is the graph itself.
	Directed bool

	reverseOnce sync.Once
	reverse     *Graph
}

// NumVertices returns the number of vertices.
func (g *Graph) NumVertices() int { return len(g.Offsets) - 1 }

// NumEdges returns the number of stored (directed) edges.
func (g *Graph) NumEdges() int { return len(g.Targets) }

// Weighted reports whether the graph carries edge weights.
func (g *Graph) Weighted() bool { return g.Weights != nil }

// OutDegree returns the number of out-edges of v.
func (g *Graph) OutDegree(v uint32) int { return int(g.Offsets[v+1] - g.Offsets[v]) }

// Neighbors returns the out-neighbours of v; the slice aliases the graph.
func (g *Graph) Neighbors(v uint32) []uint32 { return g.Targets[g.Offsets[v]:g.Offsets[v+1]] }

// EdgeWeights returns the weights of v's out-edges (nil when unweighted).
func (g *Graph) EdgeWeights(v uint32) []uint32 {
	if g.Weights == nil {
		return nil
	}
	return g.Weights[g.Offsets[v]:g.Offsets[v+1]]
}

// Reverse returns the in-edge CSR: Reverse().Neighbors(v) lists the sources
// of edges into v. It is built on first use and cached; for an undirected
// graph it is the graph itself.
func (g *Graph) Reverse() *Graph {
	if !g.Directed {
		return g
	}
	g.reverseOnce.Do(func() { g.reverse = g.transpose() })
	return g.reverse
}

func (g *Graph) transpose() *Graph {
	n := g.NumVertices()
	r := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, len(g.Targets)), Directed: true}
	for _, t := range g.Targets {
		r.Offsets[t+1]++
	}
	for v := 0; v < n; v++ {
		r.Offsets[v+1] += r.Offsets[v]
	}
	if g.Weights != nil {
		r.Weights = make([]uint32, len(g.Weights))
	}
	next := make([]uint32, n)
	copy(next, r.Offsets[:n])
	for u := 0; u < n; u++ {
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			t := g.Targets[e]
			pos := next[t]
			next[t]++
			r.Targets[pos] = uint32(u)
			if g.Weights != nil {
				r.Weights[pos] = g.Weights[e]
			}
		}
	}
	r.reverse = g
	r.reverseOnce.Do(func() {})
	return r
}

// MaxDegreeVertex returns the vertex of maximum out-degree, lowest id on
// ties: the default source of BFS, SSSP and SSWP.
func (g *Graph) MaxDegreeVertex() uint32 {
	best, bestDeg := uint32(0), -1
	for v := 0; v < g.NumVertices(); v++ {
		if d := int(g.Offsets[v+1] - g.Offsets[v]); d > bestDeg {
			best, bestDeg = uint32(v), d
		}
	}
	return best
}

// Validate checks the structural invariants: monotone offsets that end at
// the edge count, targets in range, and weights matching edges.
func (g *Graph) Validate() error {
	if len(g.Offsets) == 0 {
		return errors.New("graph: no offsets array (a graph has at least the terminating offset)")
	}
	if g.Offsets[0] != 0 {
		return fmt.Errorf("graph: first offset is %d, want 0", g.Offsets[0])
	}
	n := g.NumVertices()
	for v := 0; v < n; v++ {
		if g.Offsets[v+1] < g.Offsets[v] {
			return fmt.Errorf("graph: offsets decrease at vertex %d (%d > %d)", v, g.Offsets[v], g.Offsets[v+1])
		}
	}
	if int(g.Offsets[n]) != len(g.Targets) {
		return fmt.Errorf("graph: last offset %d does not equal the edge count %d", g.Offsets[n], len(g.Targets))
	}
	for e, t := range g.Targets {
		if int64(t) >= int64(n) {
			return fmt.Errorf("graph: edge %d targets vertex %d, but the graph has %d vertices", e, t, n)
		}
	}
	if g.Weights != nil && len(g.Weights) != len(g.Targets) {
		return fmt.Errorf("graph: %d weights for %d edges", len(g.Weights), len(g.Targets))
	}
	return nil
}

// EdgeList is a list of edges in coordinate form, the intermediate form
// every reader and generator produces before building a CSR.
type EdgeList struct {
	// NumVertices is the vertex count; every id must be below it.
	NumVertices int
	Src, Dst    []uint32
	// Weights is nil for unweighted edges.
	Weights []uint32
}

// Len returns the number of edges in the list.
func (l *EdgeList) Len() int { return len(l.Src) }

// Add appends one edge; w is ignored when the list is unweighted.
func (l *EdgeList) Add(src, dst, w uint32) {
	l.Src = append(l.Src, src)
	l.Dst = append(l.Dst, dst)
	if l.Weights != nil {
		l.Weights = append(l.Weights, w)
	}
}

// BuildOptions says how an edge list becomes a CSR.
type BuildOptions struct {
	// Symmetrize stores every edge in both directions and marks the graph
	// undirected.
	Symmetrize bool
	// RemoveSelfLoops drops edges u->u.
	RemoveSelfLoops bool
	// Dedupe keeps one edge per (src, dst) pair: the first in input order.
	Dedupe bool
}

// Build turns an edge list into a CSR graph with targets sorted by id
// within each vertex. It checks every id against NumVertices and refuses
// graphs that exceed 32-bit offsets.
func Build(l *EdgeList, opt BuildOptions) (*Graph, error) {
	n := l.NumVertices
	if n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("%w (asked for %d)", ErrTooManyVertices, n)
	}
	if len(l.Dst) != len(l.Src) || (l.Weights != nil && len(l.Weights) != len(l.Src)) {
		return nil, fmt.Errorf("graph: edge list has %d sources, %d destinations and %d weights", len(l.Src), len(l.Dst), len(l.Weights))
	}
	for i := range l.Src {
		if int64(l.Src[i]) >= int64(n) || int64(l.Dst[i]) >= int64(n) {
			return nil, fmt.Errorf("graph: edge %d (%d -> %d) names a vertex outside 0..%d", i, l.Src[i], l.Dst[i], n-1)
		}
	}
	// Counts, offsets, next and the targets (and weights) of up to every
	// listed edge, in both directions when symmetrizing.
	bound := int64(len(l.Src))
	if opt.Symmetrize {
		bound *= 2
	}
	need := withSlack(12*int64(n+1) + 4*int64(n) + csrNeed(0, bound, l.Weights != nil))
	if err := checkMemory(fmt.Sprintf("a CSR of %d vertices and up to %d edges", n, bound), need); err != nil {
		return nil, err
	}
	// Count with 64-bit counters first so an overflow is detected, not wrapped.
	counts := make([]int64, n+1)
	var total int64
	for i := range l.Src {
		s, d := l.Src[i], l.Dst[i]
		if opt.RemoveSelfLoops && s == d {
			continue
		}
		counts[s+1]++
		total++
		if opt.Symmetrize && s != d {
			counts[d+1]++
			total++
		}
	}
	if total > MaxEdges {
		return nil, fmt.Errorf("%w (%d edges)", ErrTooManyEdges, total)
	}
	g := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, total), Directed: !opt.Symmetrize}
	for v := 0; v < n; v++ {
		counts[v+1] += counts[v]
		g.Offsets[v+1] = uint32(counts[v+1])
	}
	weighted := l.Weights != nil
	if weighted {
		g.Weights = make([]uint32, total)
	}
	next := make([]uint32, n)
	copy(next, g.Offsets[:n])
	put := func(s, d, w uint32) {
		p := next[s]
		next[s]++
		g.Targets[p] = d
		if weighted {
			g.Weights[p] = w
		}
	}
	for i := range l.Src {
		s, d := l.Src[i], l.Dst[i]
		if opt.RemoveSelfLoops && s == d {
			continue
		}
		var w uint32
		if weighted {
			w = l.Weights[i]
		}
		put(s, d, w)
		if opt.Symmetrize && s != d {
			put(d, s, w)
		}
	}
	g.sortAndDedupe(opt.Dedupe)
	return g, nil
}

// sortAndDedupe sorts each adjacency by target (stable, so with dedupe the
// first weight in input order wins) and optionally drops repeated targets,
// compacting the arrays in place.
func (g *Graph) sortAndDedupe(dedupe bool) {
	n := g.NumVertices()
	var out uint32
	for v := 0; v < n; v++ {
		lo, hi := g.Offsets[v], g.Offsets[v+1]
		sortAdjacency(g.Targets[lo:hi], weightsRange(g.Weights, lo, hi))
		g.Offsets[v] = out
		for e := lo; e < hi; e++ {
			if dedupe && e > lo && g.Targets[e] == g.Targets[e-1] {
				continue
			}
			g.Targets[out] = g.Targets[e]
			if g.Weights != nil {
				g.Weights[out] = g.Weights[e]
			}
			out++
		}
	}
	g.Offsets[n] = out
	g.Targets = g.Targets[:out:out]
	if g.Weights != nil {
		g.Weights = g.Weights[:out:out]
	}
}

func weightsRange(w []uint32, lo, hi uint32) []uint32 {
	if w == nil {
		return nil
	}
	return w[lo:hi]
}

// sortAdjacency stably sorts targets (and weights with them). Adjacencies
// are usually short, so insertion sort serves them; long ones use a merge
// sort to stay O(d log d).
func sortAdjacency(t, w []uint32) {
	if len(t) <= 32 {
		for i := 1; i < len(t); i++ {
			for j := i; j > 0 && t[j] < t[j-1]; j-- {
				t[j], t[j-1] = t[j-1], t[j]
				if w != nil {
					w[j], w[j-1] = w[j-1], w[j]
				}
			}
		}
		return
	}
	tb := make([]uint32, len(t))
	var wb []uint32
	if w != nil {
		wb = make([]uint32, len(w))
	}
	mergeSort(t, w, tb, wb)
}

func mergeSort(t, w, tb, wb []uint32) {
	n := len(t)
	if n <= 32 {
		sortAdjacency(t, w)
		return
	}
	mid := n / 2
	var wl, wr, wbl, wbr []uint32
	if w != nil {
		wl, wr, wbl, wbr = w[:mid], w[mid:], wb[:mid], wb[mid:]
	}
	mergeSort(t[:mid], wl, tb[:mid], wbl)
	mergeSort(t[mid:], wr, tb[mid:], wbr)
	copy(tb, t)
	if w != nil {
		copy(wb, w)
	}
	i, j, k := 0, mid, 0
	for i < mid && j < n {
		if tb[j] < tb[i] {
			t[k] = tb[j]
			if w != nil {
				w[k] = wb[j]
			}
			j++
		} else {
			t[k] = tb[i]
			if w != nil {
				w[k] = wb[i]
			}
			i++
		}
		k++
	}
	for ; i < mid; i, k = i+1, k+1 {
		t[k] = tb[i]
		if w != nil {
			w[k] = wb[i]
		}
	}
	for ; j < n; j, k = j+1, k+1 {
		t[k] = tb[j]
		if w != nil {
			w[k] = wb[j]
		}
	}
}
