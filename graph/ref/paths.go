package ref

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/warpgraph/warpgraph/graph"
)

// Unreached marks a vertex that BFS or SSSP cannot reach from the source.
const Unreached = math.MaxUint32

// MaxDistance is the largest distance SSSP can report: one below Unreached,
// so that a distance never reads as unreachable.
const MaxDistance = Unreached - 1

// BFS returns the breadth-first depth of every vertex from src along
// out-edges: depths[src] = 0, depths[v] = the fewest edges on a path from
// src to v, and Unreached where there is none. Weights are ignored. It
// panics when src is not a vertex of g, as indexing would; the validators
// check the source instead.
func BFS(g *graph.Graph, src uint32) []uint32 {
	mustBeVertex(g, src, "BFS")
	depths := make([]uint32, g.NumVertices())
	for i := range depths {
		depths[i] = Unreached
	}
	// One queue suffices: vertices enter it in non-decreasing depth order,
	// so the level boundaries never need to be stored.
	queue := make([]uint32, 1, 1024)
	queue[0] = src
	depths[src] = 0
	offsets, targets := g.Offsets, g.Targets
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		next := depths[u] + 1
		for _, t := range targets[offsets[u]:offsets[u+1]] {
			if depths[t] == Unreached {
				depths[t] = next
				queue = append(queue, t)
			}
		}
	}
	return depths
}

// SSSP returns the shortest-path distance of every vertex from src along
// out-edges with Dijkstra's algorithm: distances[src] = 0, distances[v] =
// the least sum of edge weights over paths from src to v, and Unreached
// where there is none. Weights are unsigned, so zero-weight edges are
// allowed; on an unweighted graph every edge weighs 1 and the result equals
// BFS. Sums are taken in 64 bits: when some reachable vertex's shortest
// distance exceeds MaxDistance (MaxUint32-1), SSSP returns an error naming
// it instead of a wrapped value. It panics when src is not a vertex.
func SSSP(g *graph.Graph, src uint32) ([]uint32, error) {
	mustBeVertex(g, src, "SSSP")
	if !g.Weighted() {
		return BFS(g, src), nil
	}
	dist := make([]uint32, g.NumVertices())
	for i := range dist {
		dist[i] = Unreached
	}
	dist[src] = 0
	var heap radixHeap
	heap.push(0, src)
	// overflowed lists vertices that some relaxation could only reach
	// beyond MaxDistance; if one of them ends unreached, its true
	// distance does not fit.
	var overflowed []uint32
	offsets, targets, weights := g.Offsets, g.Targets, g.Weights
	for heap.size > 0 {
		d, u := heap.pop()
		if d != dist[u] {
			continue // stale entry: u was settled at a smaller distance
		}
		for e := offsets[u]; e < offsets[u+1]; e++ {
			t := targets[e]
			nd := uint64(d) + uint64(weights[e])
			if nd > MaxDistance {
				if dist[t] == Unreached {
					overflowed = append(overflowed, t)
				}
				continue
			}
			if nd < uint64(dist[t]) {
				dist[t] = uint32(nd)
				heap.push(uint32(nd), t)
			}
		}
	}
	for _, v := range overflowed {
		if dist[v] == Unreached {
			return nil, fmt.Errorf("ref: SSSP from %d: the distance to vertex %d exceeds %d", src, v, uint32(MaxDistance))
		}
	}
	return dist, nil
}

// SSWP returns the single-source widest path from src along out-edges:
// widths[v] = the maximum over paths from src to v of the minimum edge
// weight on the path (the bottleneck), widths[src] = MaxUint32 (the empty
// path has no bottleneck), and 0 where v is unreachable. On an unweighted
// graph every edge weighs 1, so every reachable vertex other than src gets
// 1. A vertex reachable only through zero-weight edges also gets 0: for a
// widest path it is as good as unreachable. It panics when src is not a
// vertex.
func SSWP(g *graph.Graph, src uint32) []uint32 {
	mustBeVertex(g, src, "SSWP")
	widths := make([]uint32, g.NumVertices())
	widths[src] = math.MaxUint32
	// The widest-path variant of Dijkstra settles vertices in non-increasing
	// width, so MaxUint32-width is a monotone key for the radix heap.
	var heap radixHeap
	heap.push(0, src)
	offsets, targets, weights := g.Offsets, g.Targets, g.Weights
	for heap.size > 0 {
		key, u := heap.pop()
		w := math.MaxUint32 - key
		if w != widths[u] {
			continue // stale entry: u was settled wider
		}
		for e := offsets[u]; e < offsets[u+1]; e++ {
			t := targets[e]
			nw := uint32(1)
			if weights != nil {
				nw = weights[e]
			}
			nw = min(nw, w)
			if nw > widths[t] {
				widths[t] = nw
				heap.push(math.MaxUint32-nw, t)
			}
		}
	}
	return widths
}

func mustBeVertex(g *graph.Graph, src uint32, algorithm string) {
	if int64(src) >= int64(g.NumVertices()) {
		panic(fmt.Sprintf("ref: %s source %d is not a vertex of a graph with %d vertices", algorithm, src, g.NumVertices()))
	}
}

// radixHeap is a monotone priority queue of (key, vertex) pairs: every
// pushed key must be at least the last popped key, which holds for
// Dijkstra. Bucket i holds keys whose highest bit differing from the last
// popped key is bit i-1, so a pop touches each entry O(log keyspace) times
// in total, and entries are plain structs with no interface boxing.
type radixHeap struct {
	last    uint32
	size    int
	buckets [33][]radixEntry
}

type radixEntry struct{ key, vertex uint32 }

func (h *radixHeap) push(key, vertex uint32) {
	b := bits.Len32(key ^ h.last)
	h.buckets[b] = append(h.buckets[b], radixEntry{key, vertex})
	h.size++
}

// pop removes an entry with the least key; the heap must not be empty.
func (h *radixHeap) pop() (key, vertex uint32) {
	if len(h.buckets[0]) == 0 {
		i := 1
		for len(h.buckets[i]) == 0 {
			i++
		}
		bucket := h.buckets[i]
		least := bucket[0].key
		for _, e := range bucket[1:] {
			least = min(least, e.key)
		}
		// Every entry of bucket i agrees with least above bit i-1, so each
		// moves to a lower bucket.
		h.last = least
		for _, e := range bucket {
			b := bits.Len32(e.key ^ least)
			h.buckets[b] = append(h.buckets[b], e)
		}
		h.buckets[i] = bucket[:0]
	}
	b0 := h.buckets[0]
	e := b0[len(b0)-1]
	h.buckets[0] = b0[:len(b0)-1]
	h.size--
	return e.key, e.vertex
}
