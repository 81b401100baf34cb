package ref

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
)

// Uncolored is the colour value a colouring leaves on a vertex it has not
// coloured; CheckColoring rejects it.
const Uncolored = math.MaxUint32

// GreedyColoring returns a first-fit colouring: vertices are coloured in
// increasing id order, each with the smallest colour (from 0) not used by
// an already coloured neighbour. Neighbourhoods are undirected: for a
// directed graph a vertex's neighbours are its out- and in-neighbours.
// Self-loops are ignored. It uses at most maxDegree+1 colours.
func GreedyColoring(g *graph.Graph) []uint32 {
	n := g.NumVertices()
	var in *graph.Graph
	if g.Directed {
		in = g.Reverse()
	}
	colors := make([]uint32, n)
	for v := range colors {
		colors[v] = Uncolored
	}
	// taken[c] == v+1 means colour c is used by a neighbour of v; stamping
	// with the vertex avoids clearing the array for every vertex.
	taken := make([]uint32, n+1)
	mark := func(v uint32, neighbours []uint32) {
		for _, u := range neighbours {
			if c := colors[u]; c != Uncolored {
				taken[c] = v + 1
			}
		}
	}
	for v := uint32(0); int(v) < n; v++ {
		mark(v, g.Neighbors(v))
		if in != nil {
			mark(v, in.Neighbors(v))
		}
		c := uint32(0)
		for taken[c] == v+1 {
			c++
		}
		colors[v] = c
	}
	return colors
}

// ColoringTolerance describes what CheckColoring and ValidateColoring
// accept.
const ColoringTolerance = "validity: adjacent vertices differ, every vertex coloured"

// CheckColoring checks any colouring of g for validity: colors must have
// one entry per vertex, no vertex may be Uncolored, and the two ends u != v
// of every stored edge must have different colours (self-loops are
// ignored, direction does not matter). Colours need not be small or
// contiguous. It returns nil when valid, else an error listing the first
// conflicting edges by vertex ids and the number of colours used.
func CheckColoring(g *graph.Graph, colors []uint32) error {
	return ValidateColoring(g, colors).Err()
}

// ValidateColoring is CheckColoring returning the full Report. Each
// Mismatch is an uncoloured vertex or a conflicting edge u-v, reported at u
// with v named in Want; Mismatches counts both kinds (each conflicting edge
// of an undirected graph once). Detail holds the number of distinct colours.
func ValidateColoring(g *graph.Graph, colors []uint32) Report {
	const algorithm = "coloring"
	n := g.NumVertices()
	if len(colors) != n {
		return faulty(algorithm, ColoringTolerance, "%d colours for a graph of %d vertices", len(colors), n)
	}
	r := Report{Algorithm: algorithm, Tolerance: ColoringTolerance, Checked: n}
	for u := uint32(0); int(u) < n; u++ {
		cu := colors[u]
		if cu == Uncolored {
			r.add(u, "a colour", "uncoloured")
			continue
		}
		for _, v := range g.Neighbors(u) {
			// Undirected graphs store each edge twice; report it once.
			if v == u || (!g.Directed && v < u) {
				continue
			}
			if colors[v] == cu {
				r.add(u, fmt.Sprintf("a colour other than neighbour %d's", v), fmt.Sprintf("%d, the same", cu))
			}
		}
	}
	r.Detail = fmt.Sprintf("%d colours", countColors(colors))
	return r
}

// countColors counts the distinct colours other than Uncolored.
func countColors(colors []uint32) int {
	seen := make([]bool, len(colors))
	large := map[uint32]bool{}
	count := 0
	for _, c := range colors {
		switch {
		case c == Uncolored:
		case int64(c) < int64(len(seen)):
			if !seen[c] {
				seen[c] = true
				count++
			}
		case !large[c]:
			large[c] = true
			count++
		}
	}
	return count
}
