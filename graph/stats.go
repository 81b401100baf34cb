package graph

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// Stats summarizes a graph for `warpgraph info` and experiment reports.
type Stats struct {
	Vertices int `json:"vertices"`
	// Edges counts stored edges: an undirected edge counts twice.
	Edges    int  `json:"edges"`
	Directed bool `json:"directed"`
	Weighted bool `json:"weighted"`
	// MinDegree, AvgDegree and MaxDegree are over out-degrees.
	MinDegree int     `json:"min_degree"`
	AvgDegree float64 `json:"avg_degree"`
	MaxDegree int     `json:"max_degree"`
	// DegreeHistogram[0] counts vertices of out-degree 0 and
	// DegreeHistogram[k] those of out-degree in [2^(k-1), 2^k); it ends at
	// the bucket of MaxDegree.
	DegreeHistogram []int `json:"degree_histogram"`
	// SelfLoops counts stored edges v->v. DuplicateEdges counts stored
	// edges u->v beyond the first of each (u, v): an undirected edge given
	// twice counts twice, once per stored direction. The +simple
	// transformation removes both.
	SelfLoops      int `json:"self_loops"`
	DuplicateEdges int `json:"duplicate_edges"`
	// MinWeight and MaxWeight bound the weights (0 when unweighted or
	// edgeless).
	MinWeight uint32 `json:"min_weight"`
	MaxWeight uint32 `json:"max_weight"`
	// DiameterLowerBound is the largest eccentricity found by BFS double
	// sweeps, following out-edges and ignoring unreachable vertices. On
	// trees and grids it is exact; in general it is a lower bound.
	DiameterLowerBound int `json:"diameter_lower_bound"`
	// DiameterSweeps is the number of BFS runs behind DiameterLowerBound.
	DiameterSweeps int `json:"diameter_sweeps"`
}

// diameterRandomStarts is the number of seeded random start vertices, in
// addition to the max-degree vertex, for the diameter's double sweeps.
const diameterRandomStarts = 2

// ComputeStats computes the statistics of g. The work is one pass over the
// offsets and weights plus 2·(1+diameterRandomStarts) BFS runs, and the
// result is deterministic.
func ComputeStats(g *Graph) Stats {
	n := g.NumVertices()
	s := Stats{Vertices: n, Edges: g.NumEdges(), Directed: g.Directed, Weighted: g.Weighted()}
	if n == 0 {
		return s
	}
	s.MinDegree = math.MaxInt
	for v := 0; v < n; v++ {
		d := int(g.Offsets[v+1] - g.Offsets[v])
		s.MinDegree = min(s.MinDegree, d)
		s.MaxDegree = max(s.MaxDegree, d)
		k := bits.Len(uint(d))
		for len(s.DegreeHistogram) <= k {
			s.DegreeHistogram = append(s.DegreeHistogram, 0)
		}
		s.DegreeHistogram[k]++
	}
	s.AvgDegree = float64(s.Edges) / float64(n)
	s.SelfLoops, s.DuplicateEdges = loopsAndDuplicates(g)
	if len(g.Weights) > 0 {
		s.MinWeight = math.MaxUint32
		for _, w := range g.Weights {
			s.MinWeight = min(s.MinWeight, w)
			s.MaxWeight = max(s.MaxWeight, w)
		}
	}
	s.DiameterLowerBound, s.DiameterSweeps = approxDiameter(g)
	return s
}

// loopsAndDuplicates counts self-loops and repeated (u, v) pairs. Build
// sorts adjacencies, so repeats are neighbours; an unsorted adjacency is
// sorted in a scratch copy.
func loopsAndDuplicates(g *Graph) (loops, duplicates int) {
	var scratch []uint32
	for v := 0; v < g.NumVertices(); v++ {
		adj := g.Neighbors(uint32(v))
		if !slices.IsSorted(adj) {
			scratch = append(scratch[:0], adj...)
			slices.Sort(scratch)
			adj = scratch
		}
		for i, t := range adj {
			if t == uint32(v) {
				loops++
			}
			if i > 0 && adj[i-1] == t {
				duplicates++
			}
		}
	}
	return loops, duplicates
}

// approxDiameter runs double sweeps: a BFS from a start vertex finds the
// vertex farthest from it, and a BFS from that one finds its eccentricity,
// which on many graphs is close to the diameter. Starts are the max-degree
// vertex and a few vertices drawn at random from the edge ends, so that
// isolated vertices, which would give empty sweeps, are not picked.
func approxDiameter(g *Graph) (diameter, sweeps int) {
	if g.NumEdges() == 0 {
		return 0, 0
	}
	b := newBFS(g.NumVertices())
	starts := []uint32{g.MaxDegreeVertex()}
	rng := newStream(0, streamStats, 0)
	for range diameterRandomStarts {
		e := rng.below(uint64(g.NumEdges()))
		// The source of edge e is the last vertex whose offset is <= e.
		v := sort.Search(g.NumVertices(), func(v int) bool { return uint64(g.Offsets[v+1]) > e })
		starts = append(starts, uint32(v))
	}
	seen := map[uint32]bool{}
	sweep := func(v uint32) uint32 {
		far, ecc := b.run(g, v)
		seen[v] = true
		sweeps++
		diameter = max(diameter, ecc)
		return far
	}
	for _, v := range starts {
		if seen[v] {
			continue
		}
		if far := sweep(v); !seen[far] {
			sweep(far)
		}
	}
	return diameter, sweeps
}

// bfs is a reusable sequential BFS over out-edges. A level-synchronous
// parallel BFS would help little: grids, the graphs with the most work per
// sweep relative to their size, have thousands of tiny levels.
type bfs struct {
	// level is 1 + the distance from the source, 0 for unvisited, so that
	// clearing it is a memclr.
	level []uint32
	queue []uint32
}

func newBFS(n int) *bfs {
	return &bfs{level: make([]uint32, n), queue: make([]uint32, n)}
}

// run returns the last vertex reached from source (one of the farthest;
// BFS order is fixed by the adjacencies, so the choice is deterministic)
// and its distance.
func (b *bfs) run(g *Graph, source uint32) (far uint32, ecc int) {
	clear(b.level)
	b.level[source] = 1
	b.queue[0] = source
	head, tail := 0, 1
	for head < tail {
		u := b.queue[head]
		head++
		next := b.level[u] + 1
		for _, t := range g.Targets[g.Offsets[u]:g.Offsets[u+1]] {
			if b.level[t] == 0 {
				b.level[t] = next
				b.queue[tail] = t
				tail++
			}
		}
	}
	far = b.queue[tail-1]
	return far, int(b.level[far] - 1)
}

// String formats the statistics as a few aligned lines.
func (s Stats) String() string {
	var b strings.Builder
	kind := "undirected"
	if s.Directed {
		kind = "directed"
	}
	weights := "unweighted"
	if s.Weighted {
		weights = fmt.Sprintf("weights %d..%d", s.MinWeight, s.MaxWeight)
	}
	fmt.Fprintf(&b, "vertices   %d\n", s.Vertices)
	fmt.Fprintf(&b, "edges      %d stored (%s, %s)\n", s.Edges, kind, weights)
	fmt.Fprintf(&b, "simple     %d self-loops, %d duplicate edges\n", s.SelfLoops, s.DuplicateEdges)
	fmt.Fprintf(&b, "out-degree min %d, avg %.2f, max %d\n", s.MinDegree, s.AvgDegree, s.MaxDegree)
	fmt.Fprintf(&b, "diameter   >= %d (%d BFS sweeps)\n", s.DiameterLowerBound, s.DiameterSweeps)
	b.WriteString("degrees    ")
	for k, c := range s.DegreeHistogram {
		if k > 0 {
			b.WriteString(", ")
		}
		if k == 0 {
			fmt.Fprintf(&b, "0: %d", c)
		} else {
			fmt.Fprintf(&b, "%d..%d: %d", 1<<(k-1), 1<<k-1, c)
		}
	}
	b.WriteByte('\n')
	return b.String()
}
