package ref

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
)

// KCoreCertificateTolerance is the rule CertifyKCoreMembers applies.
const KCoreCertificateTolerance = "certificate: every member keeps k neighbours among members, and the non-members peel away one by one"

// CertifyKCoreMembers checks a k-core membership by its definition, without
// computing core numbers: (1) every member has at least k neighbours that
// are members (the members form a subgraph of minimum degree k), and (2)
// the non-members can be peeled: repeatedly removing a non-member with
// fewer than k neighbours among the vertices still present removes them
// all (so no larger subgraph of minimum degree k exists: the k-core is the
// maximal one, and every vertex of it survives any peeling). Neighbours are
// counted as KCore counts them: out- and in-edges of a directed graph,
// parallel edges once per copy, self-loops never.
func CertifyKCoreMembers(g *graph.Graph, k uint32, members []bool) Report {
	name := fmt.Sprintf("%d-core membership", k)
	if r, bad := checkLength(g, name, KCoreCertificateTolerance, len(members)); bad {
		return r
	}
	n := g.NumVertices()
	var in *graph.Graph
	if g.Directed {
		in = g.Reverse()
	}
	neighbours := func(v uint32, f func(u uint32)) {
		for _, u := range g.Neighbors(v) {
			if u != v {
				f(u)
			}
		}
		if in != nil {
			for _, u := range in.Neighbors(v) {
				if u != v {
					f(u)
				}
			}
		}
	}
	r := Report{Algorithm: name, Tolerance: KCoreCertificateTolerance, Checked: n}
	// (1) minimum degree k inside the member set.
	for v := range n {
		if !members[v] {
			continue
		}
		inside := uint32(0)
		neighbours(uint32(v), func(u uint32) {
			if members[u] {
				inside++
			}
		})
		if inside < k {
			r.add(uint32(v), fmt.Sprintf("at least %d neighbours in the core", k), fmt.Sprintf("a member with %d", inside))
		}
	}
	// (2) peel the non-members: remaining degree counts every present
	// neighbour; a non-member below k leaves and lowers its neighbours'.
	remaining := make([]uint32, n)
	present := make([]bool, n)
	var queue []uint32
	for v := range n {
		present[v] = true
		neighbours(uint32(v), func(uint32) { remaining[v]++ })
	}
	queued := make([]bool, n)
	for v := range n {
		if !members[v] && remaining[v] < k {
			queue, queued[v] = append(queue, uint32(v)), true
		}
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		present[v] = false
		neighbours(v, func(u uint32) {
			if !present[u] {
				return
			}
			remaining[u]--
			if !members[u] && !queued[u] && remaining[u] < k {
				queue, queued[u] = append(queue, u), true
			}
		})
	}
	for v := range n {
		if !members[v] && present[v] {
			r.add(uint32(v), "peeled (not in the core)", fmt.Sprintf("a non-member that never falls below %d neighbours", k))
		}
	}
	return r
}
