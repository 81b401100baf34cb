package ref

import "github.com/warpgraph/warpgraph/graph"

// WCC returns the weakly connected components: labels[v] is the smallest
// vertex id in v's component, where edge direction is ignored (u->v joins u
// and v whether or not v->u is stored). An isolated vertex is its own
// component. It runs union-find over every stored edge.
func WCC(g *graph.Graph) []uint32 {
	n := g.NumVertices()
	parent := make([]uint32, n)
	for v := range parent {
		parent[v] = uint32(v)
	}
	// find with path halving; union links the larger root under the
	// smaller, so every root is the least id of its set and the labels come
	// out as minimum ids without a relabelling pass.
	find := func(v uint32) uint32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for u := 0; u < n; u++ {
		for _, t := range g.Neighbors(uint32(u)) {
			// An undirected graph stores both directions; one suffices.
			if !g.Directed && t > uint32(u) {
				continue
			}
			a, b := find(uint32(u)), find(t)
			if a < b {
				parent[b] = a
			} else if b < a {
				parent[a] = b
			}
		}
	}
	for v := range parent {
		// Roots are final and parents point to smaller ids, so one pass in
		// increasing order leaves every vertex pointing at its root.
		parent[v] = parent[parent[v]]
	}
	return parent
}
