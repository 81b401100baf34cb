package graph

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// Transformations never modify their input. A result may share the arrays
// it does not change (say, Offsets and Targets after DropWeights) with its
// input, so treat graphs as read-only once built.

// WeightRange is an inclusive range of edge weights [Lo, Hi]. The zero
// value means unweighted.
type WeightRange struct{ Lo, Hi uint32 }

// DefaultWeights is the weight range of generated graphs unless a spec says
// otherwise.
var DefaultWeights = WeightRange{Lo: 1, Hi: 64}

// Weighted reports whether the range asks for weights at all.
func (r WeightRange) Weighted() bool { return r != WeightRange{} }

// Validate checks 1 <= Lo <= Hi: weights stay positive because shortest-
// and widest-path algorithms and their validators assume it.
func (r WeightRange) Validate() error {
	if !r.Weighted() {
		return nil
	}
	if r.Lo < 1 || r.Lo > r.Hi {
		return fmt.Errorf("weight range %d..%d is empty or not positive (want 1 <= LO <= HI)", r.Lo, r.Hi)
	}
	return nil
}

// String returns "LO..HI", or "none" for the zero range.
func (r WeightRange) String() string {
	if !r.Weighted() {
		return "none"
	}
	return fmt.Sprintf("%d..%d", r.Lo, r.Hi)
}

// Symmetrize returns the undirected graph holding every edge of g in both
// directions. Parallel edges merge into one; an edge present in both
// directions keeps the weight of the copy listed first in g's edge order
// (the one leaving the lower vertex id), so both directions agree. An
// undirected g comes back as is, sharing its arrays.
func Symmetrize(g *Graph) (*Graph, error) {
	if !g.Directed {
		return &Graph{Offsets: g.Offsets, Targets: g.Targets, Weights: g.Weights}, nil
	}
	l := &EdgeList{NumVertices: g.NumVertices(), Src: edgeSources(g), Dst: g.Targets, Weights: g.Weights}
	out, err := Build(l, BuildOptions{Symmetrize: true, Dedupe: true})
	if err != nil {
		return nil, fmt.Errorf("symmetrize: %w", err)
	}
	return out, nil
}

// edgeSources returns the source vertex of every stored edge of g.
func edgeSources(g *Graph) []uint32 {
	src := make([]uint32, g.NumEdges())
	n := g.NumVertices()
	const chunk = 1 << 14
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			for e := g.Offsets[v]; e < g.Offsets[v+1]; e++ {
				src[e] = uint32(v)
			}
		}
	})
	return src
}

// RemoveSelfLoopsAndDuplicates returns g without edges u->u and with one
// edge per (u, v) pair, the first in g's edge order, targets sorted.
func RemoveSelfLoopsAndDuplicates(g *Graph) *Graph {
	out := &Graph{
		Offsets:  slices.Clone(g.Offsets),
		Targets:  slices.Clone(g.Targets),
		Weights:  slices.Clone(g.Weights),
		Directed: g.Directed,
	}
	out.sortAndSimplify(false, true)
	return out
}

// sortAndSimplify sorts every adjacency of g in place unless sorted says
// they already are (stably, so the first of duplicate edges keeps its
// weight), drops duplicate targets and, when dropLoops is set, self-loops;
// then it compacts the arrays. Vertices are independent, so they are
// processed in parallel chunks.
func (g *Graph) sortAndSimplify(sorted, dropLoops bool) {
	n := g.NumVertices()
	kept := make([]uint32, n)
	const chunk = 1 << 12
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			s, e := g.Offsets[v], g.Offsets[v+1]
			t := g.Targets[s:e]
			w := weightsRange(g.Weights, s, e)
			switch {
			case sorted:
			case w == nil:
				slices.Sort(t)
			default:
				sortAdjacency(t, w)
			}
			k := 0
			for i, x := range t {
				if (dropLoops && x == uint32(v)) || (i > 0 && x == t[i-1]) {
					continue
				}
				t[k] = x
				if w != nil {
					w[k] = w[i]
				}
				k++
			}
			kept[v] = uint32(k)
		}
	})
	newOffsets := make([]uint32, n+1)
	for v := 0; v < n; v++ {
		newOffsets[v+1] = newOffsets[v] + kept[v]
	}
	total := int(newOffsets[n])
	if total == len(g.Targets) {
		g.Offsets = newOffsets
		return
	}
	targets := make([]uint32, total)
	var weights []uint32
	if g.Weights != nil {
		weights = make([]uint32, total)
	}
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			from := g.Offsets[v]
			copy(targets[newOffsets[v]:newOffsets[v+1]], g.Targets[from:from+kept[v]])
			if weights != nil {
				copy(weights[newOffsets[v]:newOffsets[v+1]], g.Weights[from:from+kept[v]])
			}
		}
	})
	g.Offsets, g.Targets, g.Weights = newOffsets, targets, weights
}

// RandomWeights returns g with weights drawn uniformly from [lo, hi] as a
// function of seed and each edge's endpoints, so both directions of an
// undirected edge get the same weight. Generators weigh their edges the same
// way: a generated graph with seed S equals its unweighted twin after
// RandomWeights(g, lo, hi, S).
func RandomWeights(g *Graph, lo, hi uint32, seed uint64) (*Graph, error) {
	r := WeightRange{Lo: lo, Hi: hi}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("random weights: %w", err)
	}
	out := &Graph{Offsets: g.Offsets, Targets: g.Targets, Directed: g.Directed}
	out.Weights = make([]uint32, len(g.Targets))
	out.fillRandomWeights(r, seed)
	return out, nil
}

// fillRandomWeights overwrites g.Weights (already sized) with weights from
// r keyed by seed; see edgeWeight.
func (g *Graph) fillRandomWeights(r WeightRange, seed uint64) {
	key := streamKey(seed, streamWeights)
	span := uint64(r.Hi-r.Lo) + 1
	n := g.NumVertices()
	const chunk = 1 << 12
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			u := uint32(v)
			for e := g.Offsets[v]; e < g.Offsets[v+1]; e++ {
				a, b := u, g.Targets[e]
				if !g.Directed && b < a {
					a, b = b, a
				}
				g.Weights[e] = edgeWeight(key, a, b, r.Lo, span)
			}
		}
	})
}

// DropWeights returns g without weights.
func DropWeights(g *Graph) *Graph {
	return &Graph{Offsets: g.Offsets, Targets: g.Targets, Directed: g.Directed}
}

// PermuteIDs renames the vertices of g by a uniformly random permutation
// drawn by Fisher–Yates from seed, and returns the renamed graph and the
// permutation: vertex v of g is vertex perm[v] of the result. Vertex ids
// decide memory locality and, for greedy algorithms such as coloring, the
// answer itself, so experiments use this to separate the two effects.
func PermuteIDs(g *Graph, seed uint64) (*Graph, []uint32) {
	n := g.NumVertices()
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	rng := newStream(seed, streamPermute, 0)
	for i := n - 1; i > 0; i-- {
		j := rng.below(uint64(i) + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return RenameIDs(g, perm), perm
}

// DegreeOrder renames the vertices of g by decreasing out-degree, ties in
// increasing id ("hub order"): vertex 0 of the result has the most
// out-edges. It returns the renamed graph and the renaming (vertex v of g
// is vertex order[v] of the result). Gathers over in-edges then read the
// values of the busiest sources from a few cache lines.
func DegreeOrder(g *Graph) (*Graph, []uint32) {
	n := g.NumVertices()
	byDegree := make([]uint32, n)
	for i := range byDegree {
		byDegree[i] = uint32(i)
	}
	slices.SortStableFunc(byDegree, func(a, b uint32) int {
		return int(g.OutDegree(b)) - int(g.OutDegree(a))
	})
	order := make([]uint32, n)
	for i, v := range byDegree {
		order[v] = uint32(i)
	}
	return RenameIDs(g, order), order
}

// RenameIDs returns g with vertex v renamed to perm[v] (perm must be a
// permutation of 0..n-1), each adjacency list sorted by the new ids with
// its weights alongside.
func RenameIDs(g *Graph, perm []uint32) *Graph {
	n := g.NumVertices()
	out := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, len(g.Targets)), Directed: g.Directed}
	if g.Weights != nil {
		out.Weights = make([]uint32, len(g.Weights))
	}
	for v := 0; v < n; v++ {
		out.Offsets[perm[v]+1] = g.Offsets[v+1] - g.Offsets[v]
	}
	for v := 0; v < n; v++ {
		out.Offsets[v+1] += out.Offsets[v]
	}
	const chunk = 1 << 12
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			s, e := g.Offsets[v], g.Offsets[v+1]
			d := out.Offsets[perm[v]]
			t := out.Targets[d : d+e-s]
			for i, x := range g.Targets[s:e] {
				t[i] = perm[x]
			}
			w := weightsRange(out.Weights, d, d+e-s)
			if w != nil {
				copy(w, g.Weights[s:e])
				sortAdjacency(t, w)
			} else {
				slices.Sort(t)
			}
		}
	})
	return out
}

// errEdgeBudget reports a generator whose edges cannot fit 32-bit offsets.
func errEdgeBudget(what string, stored int64) error {
	return fmt.Errorf("%s would store up to %d edges: %w", what, stored, ErrTooManyEdges)
}

// buildSimple builds the simple graph on n vertices whose edges are
// src[i]->dst[i]: self-loops dropped, duplicates merged, each edge stored in
// both directions unless directed, targets sorted, no weights.
//
// It is a two-digit radix sort with whole vertex ids as digits, so no
// adjacency is ever comparison-sorted: first every edge is filed under its
// target (in-lists, in whatever order the goroutines race to), then the
// in-lists are read in increasing target order and every edge is appended
// to its source's out-list, which therefore comes out sorted. The result
// depends only on the set of edges, never on their order.
func buildSimple(n int, src, dst []uint32, directed bool, progress func(stage string, done, total int64)) (*Graph, error) {
	stored := int64(len(src))
	if !directed {
		stored *= 2
	}
	if stored > MaxEdges {
		return nil, errEdgeBudget("the edge list", stored)
	}
	if n > MaxVertices {
		return nil, fmt.Errorf("%w (asked for %d)", ErrTooManyVertices, n)
	}
	const steps = 3
	report(progress, "build", 0, steps)
	in := fileByTarget(n, src, dst, directed)
	report(progress, "build", 1, steps)
	g := in.transposeOrdered()
	report(progress, "build", 2, steps)
	g.sortAndSimplify(true, false)
	report(progress, "build", steps, steps)
	return g, nil
}

// fileByTarget returns the in-edge CSR of the edges (both directions when
// undirected), self-loops dropped; adjacencies are in no particular order.
func fileByTarget(n int, src, dst []uint32, directed bool) *Graph {
	const chunk = 1 << 16
	chunks := numChunks(len(src), chunk)
	// Atomics rather than per-goroutine counts: those would cost n words
	// per goroutine, more than the contention on hub vertices costs.
	offsets := make([]uint32, n+1)
	parallel.Chunks(chunks, func(c int) {
		lo, hi := chunkRange(c, chunk, len(src))
		for i := lo; i < hi; i++ {
			s, d := src[i], dst[i]
			if s == d {
				continue
			}
			atomic.AddUint32(&offsets[d+1], 1)
			if !directed {
				atomic.AddUint32(&offsets[s+1], 1)
			}
		}
	})
	for v := 0; v < n; v++ {
		offsets[v+1] += offsets[v]
	}
	in := &Graph{Offsets: offsets, Targets: make([]uint32, offsets[n]), Directed: directed}
	cursor := slices.Clone(offsets[:n])
	parallel.Chunks(chunks, func(c int) {
		lo, hi := chunkRange(c, chunk, len(src))
		for i := lo; i < hi; i++ {
			s, d := src[i], dst[i]
			if s == d {
				continue
			}
			in.Targets[atomic.AddUint32(&cursor[d], 1)-1] = s
			if !directed {
				in.Targets[atomic.AddUint32(&cursor[s], 1)-1] = d
			}
		}
	})
	return in
}

// transposeOrdered returns the transpose of in with every adjacency sorted
// by id, because in's vertices are visited in increasing order. To run in
// parallel, the vertices of in are cut into blocks; each block counts, then
// writes, the edges it gives each vertex, after those of earlier blocks.
// The blocks' count arrays are n words each, so there are never more
// blocks than edges per vertex.
func (in *Graph) transposeOrdered() *Graph {
	n := in.NumVertices()
	m := len(in.Targets)
	blocks := max(1, min(runtime.GOMAXPROCS(0), m/max(n, 1)))
	// Block b covers the vertices whose in-edges start in [b·m/blocks, (b+1)·m/blocks).
	bounds := make([]int, blocks+1)
	for b := 1; b < blocks; b++ {
		e := uint32(int64(b) * int64(m) / int64(blocks))
		bounds[b] = sort.Search(n, func(v int) bool { return in.Offsets[v] >= e })
	}
	bounds[blocks] = n
	counts := make([][]uint32, blocks)
	parallel.Chunks(blocks, func(b int) {
		c := make([]uint32, n)
		for _, s := range in.Targets[in.Offsets[bounds[b]]:in.Offsets[bounds[b+1]]] {
			c[s]++
		}
		counts[b] = c
	})
	out := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, m), Directed: in.Directed}
	for v := 0; v < n; v++ {
		deg := uint32(0)
		for b := range blocks {
			deg += counts[b][v]
		}
		out.Offsets[v+1] = out.Offsets[v] + deg
	}
	// Turn each block's counts into its write cursors.
	const chunk = 1 << 14
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			next := out.Offsets[v]
			for b := range blocks {
				next, counts[b][v] = next+counts[b][v], next
			}
		}
	})
	parallel.Chunks(blocks, func(b int) {
		cursor := counts[b]
		for d := bounds[b]; d < bounds[b+1]; d++ {
			for _, s := range in.Targets[in.Offsets[d]:in.Offsets[d+1]] {
				out.Targets[cursor[s]] = uint32(d)
				cursor[s]++
			}
		}
	})
	return out
}

// weigh gives a freshly built, unweighted graph weights from r keyed by
// seed; the zero range leaves it unweighted.
func (g *Graph) weigh(r WeightRange, seed uint64) {
	if !r.Weighted() {
		return
	}
	g.Weights = make([]uint32, len(g.Targets))
	g.fillRandomWeights(r, seed)
}

// TransformOp names a transformation a spec can apply.
type TransformOp int

const (
	// OpSymmetrize is "sym": Symmetrize.
	OpSymmetrize TransformOp = iota + 1
	// OpSimple is "simple": RemoveSelfLoopsAndDuplicates.
	OpSimple
	// OpRandomWeights is "rw=SEED": RandomWeights with DefaultWeights.
	OpRandomWeights
	// OpUnweighted is "unweighted": DropWeights.
	OpUnweighted
	// OpPermute is "perm=SEED": PermuteIDs.
	OpPermute
	// OpDegreeOrder is "degsort": DegreeOrder.
	OpDegreeOrder
)

// Transform is one step of a spec's transformation chain.
type Transform struct {
	Op TransformOp
	// Seed is used by OpRandomWeights and OpPermute.
	Seed uint64
}

// Apply runs the transformation on g.
func (t Transform) Apply(g *Graph) (*Graph, error) {
	switch t.Op {
	case OpSymmetrize:
		return Symmetrize(g)
	case OpSimple:
		return RemoveSelfLoopsAndDuplicates(g), nil
	case OpRandomWeights:
		return RandomWeights(g, DefaultWeights.Lo, DefaultWeights.Hi, t.Seed)
	case OpUnweighted:
		return DropWeights(g), nil
	case OpPermute:
		out, _ := PermuteIDs(g, t.Seed)
		return out, nil
	case OpDegreeOrder:
		out, _ := DegreeOrder(g)
		return out, nil
	}
	return nil, fmt.Errorf("unknown transformation op %d", t.Op)
}

// String returns the transformation as written in a spec.
func (t Transform) String() string {
	switch t.Op {
	case OpSymmetrize:
		return "sym"
	case OpSimple:
		return "simple"
	case OpRandomWeights:
		return fmt.Sprintf("rw=%d", t.Seed)
	case OpUnweighted:
		return "unweighted"
	case OpPermute:
		return fmt.Sprintf("perm=%d", t.Seed)
	case OpDegreeOrder:
		return "degsort"
	}
	return fmt.Sprintf("op%d", int(t.Op))
}
