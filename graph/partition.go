package graph

import (
	"fmt"
	"sort"
)

// Partition methods: how the vertices are dealt to the parts.
const (
	// PartitionRange gives each part a contiguous range of vertex ids,
	// the ranges cut so that the parts hold about as many edges each
	// (counting every vertex as one edge more, so that no part is empty
	// of vertices).
	PartitionRange = "range"
	// PartitionHash gives vertex v to part hash(v) mod parts: balanced in
	// expectation whatever the ids' order, at the cost of locality.
	PartitionHash = "hash"
)

// Partition is a split of a graph's vertices over devices, as a pull
// computation holds it (the mgpu scheduler's): each part owns some
// vertices and holds their in-edges (on an undirected graph, their edges);
// an in-neighbour owned by another part is a ghost there, a remote copy
// whose value its owner sends.
type Partition struct {
	Method string `json:"method"`
	// Starts, for PartitionRange, are the first vertex of each part and
	// the vertex count: part i owns [Starts[i], Starts[i+1]).
	Starts []uint32 `json:"starts,omitempty"`
	// Parts are the parts' statistics.
	Parts []PartStats `json:"parts"`
	// Cut[i][j] counts the edges from part i's vertices to part j's (the
	// diagonal: the edges inside part i): the values part i sends part j
	// travel along them.
	Cut [][]uint64 `json:"cut_edges"`
	// CutEdges is the sum of Cut off its diagonal, and CutFraction its
	// share of the edges.
	CutEdges    uint64  `json:"total_cut_edges"`
	CutFraction float64 `json:"cut_fraction"`

	parts int
}

// PartStats describes one part.
type PartStats struct {
	Vertices int `json:"vertices"`
	// Edges are the in-edges of its vertices, which it holds.
	Edges uint64 `json:"edges"`
	// Boundary counts its vertices with an edge to another part's: the
	// vertices whose updates the exchange methods may send.
	Boundary int `json:"boundary_vertices"`
	// Ghosts counts the distinct vertices of other parts with an edge to
	// its vertices: the remote copies it keeps.
	Ghosts int `json:"ghost_vertices"`
}

// PartitionGraph splits g's vertices into parts parts by method. It
// refuses fewer than one part, more parts than vertices and an unknown
// method.
func PartitionGraph(g *Graph, parts int, method string) (*Partition, error) {
	n := g.NumVertices()
	switch {
	case parts < 1:
		return nil, fmt.Errorf("%d parts: give at least one", parts)
	case parts > n:
		return nil, fmt.Errorf("%d parts for %d vertices: at most one part per vertex", parts, n)
	case method != PartitionRange && method != PartitionHash:
		return nil, fmt.Errorf("partition method %q: use %s or %s", method, PartitionRange, PartitionHash)
	}
	p := &Partition{Method: method, parts: parts}
	in := g.Reverse() // the in-edges (g itself when undirected)
	if method == PartitionRange {
		p.Starts = rangeStarts(in, parts)
	}
	p.measure(g, in)
	return p, nil
}

// rangeStarts cuts [0, n) into parts contiguous ranges, each of at least
// one vertex, at the vertices where the running count of g's edges (the
// in-edges, for PartitionGraph) plus vertices passes each part's share.
func rangeStarts(g *Graph, parts int) []uint32 {
	n := g.NumVertices()
	// weight(v) = out-degree + 1; prefix(v) = Offsets[v] + v.
	total := uint64(g.NumEdges()) + uint64(n)
	starts := make([]uint32, parts+1)
	starts[parts] = uint32(n)
	for i := 1; i < parts; i++ {
		target := total * uint64(i) / uint64(parts)
		v := sort.Search(n, func(v int) bool { return uint64(g.Offsets[v])+uint64(v) >= target })
		// Every part keeps at least one vertex, and room is left for the
		// parts after it.
		v = max(v, int(starts[i-1])+1)
		v = min(v, n-(parts-i))
		starts[i] = uint32(v)
	}
	return starts
}

// Owner returns the part that owns vertex v.
func (p *Partition) Owner(v uint32) int {
	if p.Method == PartitionRange {
		return sort.Search(p.parts, func(i int) bool { return p.Starts[i+1] > v }) // the part whose range holds v
	}
	return int((uint64(v) * 0x9E3779B97F4A7C15 >> 32) % uint64(p.parts))
}

// measure fills the parts' statistics and the cut from g's edges and
// in, their reverse.
func (p *Partition) measure(g, in *Graph) {
	n := g.NumVertices()
	owner := make([]uint32, n)
	for v := range owner {
		owner[v] = uint32(p.Owner(uint32(v)))
	}
	p.Parts = make([]PartStats, p.parts)
	p.Cut = make([][]uint64, p.parts)
	for i := range p.Cut {
		p.Cut[i] = make([]uint64, p.parts)
	}
	// ghostSeen[u] is the last part (plus one) that counted u as a ghost;
	// vertices are visited part by part for that to dedupe.
	ghostSeen := make([]uint32, n)
	visit := func(v int) {
		i := owner[v]
		ps := &p.Parts[i]
		ps.Vertices++
		boundary := false
		for _, u := range g.Targets[g.Offsets[v]:g.Offsets[v+1]] {
			j := owner[u]
			p.Cut[i][j]++
			boundary = boundary || j != i
		}
		if boundary {
			ps.Boundary++
		}
		ps.Edges += uint64(in.Offsets[v+1] - in.Offsets[v])
		for _, u := range in.Targets[in.Offsets[v]:in.Offsets[v+1]] {
			if owner[u] != i && ghostSeen[u] != i+1 {
				ghostSeen[u] = i + 1
				ps.Ghosts++
			}
		}
	}
	if p.Method == PartitionRange {
		for v := range n {
			visit(v)
		}
	} else {
		byPart := make([][]uint32, p.parts)
		for v, i := range owner {
			byPart[i] = append(byPart[i], uint32(v))
		}
		for _, vs := range byPart {
			for _, v := range vs {
				visit(int(v))
			}
		}
	}
	for i := range p.Cut {
		for j, c := range p.Cut[i] {
			if i != j {
				p.CutEdges += c
			}
		}
	}
	if m := g.NumEdges(); m > 0 {
		p.CutFraction = float64(p.CutEdges) / float64(m)
	}
}
