package ref

import "github.com/warpgraph/warpgraph/graph"

// DefaultK is the k of the k-core that SIMD-X computes by default.
const DefaultK = 16

// KCore returns the core number of every vertex: the largest k such that
// the vertex belongs to the k-core, the maximal subgraph in which every
// vertex has at least k neighbours inside it. It uses the
// Batagelj–Zaversnik bucket algorithm, O(n + m).
//
// The graph is treated as undirected. For an undirected graph the degree of
// v is its number of stored out-edges. For a directed graph it is
// out-degree + in-degree: each stored edge u->v links u and v once, as if
// the graph had been symmetrized without removing duplicates, so a pair of
// reciprocal edges u->v, v->u counts twice. In both cases parallel edges
// count once per copy and self-loops are ignored (a vertex is never its own
// neighbour); build graphs with RemoveSelfLoops, and Dedupe where simple
// graphs are meant, to compare with kernels that count raw degrees.
func KCore(g *graph.Graph) []uint32 {
	n := g.NumVertices()
	var in *graph.Graph
	if g.Directed {
		in = g.Reverse()
	}
	deg := make([]uint32, n)
	var maxDeg uint32
	for v := 0; v < n; v++ {
		d := countNonSelf(g.Neighbors(uint32(v)), uint32(v))
		if in != nil {
			d += countNonSelf(in.Neighbors(uint32(v)), uint32(v))
		}
		deg[v] = d
		maxDeg = max(maxDeg, d)
	}
	// Bucket sort the vertices by degree: vert holds them in non-decreasing
	// degree order, pos[v] is v's index in vert, and binStart[d] is where
	// degree d begins.
	binStart := make([]uint32, maxDeg+2)
	for _, d := range deg {
		binStart[d+1]++
	}
	for d := uint32(1); d <= maxDeg+1; d++ {
		binStart[d] += binStart[d-1]
	}
	vert := make([]uint32, n)
	pos := make([]uint32, n)
	fill := make([]uint32, maxDeg+1)
	copy(fill, binStart[:maxDeg+1])
	for v, d := range deg {
		pos[v] = fill[d]
		vert[fill[d]] = uint32(v)
		fill[d]++
	}
	fill = nil
	// Peel in degree order. Removing v lowers each neighbour u of larger
	// current degree by one; u moves to the front of its bin, which then
	// starts one later, keeping vert sorted without a heap.
	lower := func(v uint32, neighbours []uint32) {
		dv := deg[v]
		for _, u := range neighbours {
			du := deg[u]
			if u == v || du <= dv {
				continue
			}
			pu, pw := pos[u], binStart[du]
			if w := vert[pw]; w != u {
				vert[pu], vert[pw] = w, u
				pos[u], pos[w] = pw, pu
			}
			binStart[du]++
			deg[u] = du - 1
		}
	}
	for i := 0; i < n; i++ {
		v := vert[i]
		lower(v, g.Neighbors(v))
		if in != nil {
			lower(v, in.Neighbors(v))
		}
	}
	return deg
}

// KCoreMembers returns membership of the k-core given core numbers:
// members[v] is true when cores[v] >= k.
func KCoreMembers(cores []uint32, k uint32) []bool {
	members := make([]bool, len(cores))
	for v, c := range cores {
		members[v] = c >= k
	}
	return members
}

func countNonSelf(neighbours []uint32, self uint32) uint32 {
	var d uint32
	for _, u := range neighbours {
		if u != self {
			d++
		}
	}
	return d
}
