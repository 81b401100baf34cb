package ref

import (
	"cmp"
	"fmt"
	"slices"

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
	neighbours := coreNeighbours(g)
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

// coreNeighbours visits v's neighbours as KCore counts them: out- and
// in-edges of a directed graph, parallel edges once per copy, self-loops
// never.
func coreNeighbours(g *graph.Graph) func(v uint32, f func(u uint32)) {
	var in *graph.Graph
	if g.Directed {
		in = g.Reverse()
	}
	return func(v uint32, f func(u uint32)) {
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
}

// CoreNumbersCertificateTolerance is the rule CertifyCoreNumbers applies.
const CoreNumbersCertificateTolerance = "certificate: every vertex keeps its core number of neighbours at its level or above, and each level's vertices peel away below the next level"

// CertifyCoreNumbers checks core numbers by the definition, without
// computing them: (1) every vertex v has at least cores[v] neighbours u with
// cores[u] >= cores[v], so each set {v : cores[v] >= k} has minimum degree
// k and no core number is too high; (2) level by level, k rising, the
// vertices with cores[v] = k can be removed one by one, each with at most k
// neighbours left among the vertices not yet removed, so none of them is
// in the (k+1)-core and no core number is too low. Neighbours are counted
// as KCore counts them.
func CertifyCoreNumbers(g *graph.Graph, cores []uint32) Report {
	const name = "core numbers"
	if r, bad := checkLength(g, name, CoreNumbersCertificateTolerance, len(cores)); bad {
		return r
	}
	n := g.NumVertices()
	neighbours := coreNeighbours(g)
	r := Report{Algorithm: name, Tolerance: CoreNumbersCertificateTolerance, Checked: n}
	remaining := make([]uint32, n)
	for v := range n {
		atLevel := uint32(0)
		neighbours(uint32(v), func(u uint32) {
			remaining[v]++
			if cores[u] >= cores[v] {
				atLevel++
			}
		})
		if atLevel < cores[v] {
			r.add(uint32(v), fmt.Sprintf("at least %d neighbours with core number %d or more", cores[v], cores[v]),
				fmt.Sprintf("%d such neighbours", atLevel))
		}
	}
	// (2) the vertices in order of core number; at each level a worklist
	// of those with at most k neighbours left.
	order := make([]uint32, n)
	for v := range order {
		order[v] = uint32(v)
	}
	slices.SortStableFunc(order, func(a, b uint32) int { return cmp.Compare(cores[a], cores[b]) })
	removed := make([]bool, n)
	queued := make([]bool, n)
	var work []uint32
	for i := 0; i < n; {
		k, end := cores[order[i]], i
		for end < n && cores[order[end]] == k {
			end++
		}
		for _, v := range order[i:end] {
			if remaining[v] <= k {
				work, queued[v] = append(work, v), true
			}
		}
		for len(work) > 0 {
			v := work[len(work)-1]
			work = work[:len(work)-1]
			removed[v] = true
			neighbours(v, func(u uint32) {
				if removed[u] {
					return
				}
				remaining[u]--
				if cores[u] == k && !queued[u] && remaining[u] <= k {
					work, queued[u] = append(work, u), true
				}
			})
		}
		for _, v := range order[i:end] {
			if !removed[v] {
				r.add(v, fmt.Sprintf("peeled at level %d (at most %d neighbours left)", k, k),
					fmt.Sprintf("%d neighbours left among the unpeeled", remaining[v]))
				removed[v] = true // report it once and go on
				neighbours(v, func(u uint32) {
					if !removed[u] {
						remaining[u]--
					}
				})
			}
		}
		i = end
	}
	return r
}
