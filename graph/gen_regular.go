package graph

import (
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// Regular generates random out-regular directed graphs: every vertex has
// exactly D out-neighbours, drawn uniformly among the D-subsets of the
// other N-1 vertices. So there are no self-loops and no duplicate edges
// (D <= N-1 is required); in-degrees are random (binomial-like). This is
// our reading of the ECE 508 lecture's "10^6 nodes of degree 8" BFS
// benchmarks (docs/sources.md): a graph whose frontier work per vertex is fixed.
type Regular struct {
	// N is the vertex count and D every vertex's out-degree.
	N, D int
	Seed uint64
	// Weights is the range of uniform random weights; zero for none.
	Weights WeightRange
}

// streamRegular is the purpose of Regular's random streams: apart from the
// purposes in rng.go (small iota values), so its draws never repeat theirs.
const streamRegular uint64 = 0x7265677500000001

// regularChunk is the number of vertices whose neighbours come from one
// random stream; part of the output's definition, like rmatChunk.
const regularChunk = 1 << 14

// Validate checks the counts, including that N·D edges fit 32-bit offsets.
func (p Regular) Validate() error {
	if p.N < 1 || p.N > MaxVertices {
		return fmt.Errorf("regular n=%d is out of range 1..%d", p.N, MaxVertices)
	}
	if p.D < 0 {
		return fmt.Errorf("regular d=%d must not be negative", p.D)
	}
	if p.D > p.N-1 {
		return fmt.Errorf("regular d=%d exceeds the %d other vertices of n=%d: neighbours are distinct and never the vertex itself", p.D, p.N-1, p.N)
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("regular %w", err)
	}
	if stored := int64(p.N) * int64(p.D); stored > MaxEdges {
		return errEdgeBudget(fmt.Sprintf("regular n=%d,d=%d", p.N, p.D), stored)
	}
	return nil
}

// String returns the canonical spec, every parameter spelled out.
func (p Regular) String() string {
	return fmt.Sprintf("regular:n=%d,d=%d,weights=%s,seed=%d", p.N, p.D, p.Weights, p.Seed)
}

// Load generates the graph: the CSR is written directly (offsets v·D, each
// row sorted), with no edge list and no build step, so 10^8 vertices of
// degree 8 need only the graph's own 3.6 GB (plus 3.2 GB of weights unless
// weights=none). Progress, when not nil, hears the stage "generate".
func (p Regular) Load(progress func(stage string, done, total int64)) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkMemory("generating "+p.String(), p.memoryNeed()); err != nil {
		return nil, err
	}
	n, d := p.N, p.D
	g := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, n*d), Directed: true}
	pr := newProgress(progress, "generate", int64(n))
	parallel.Chunks(numChunks(n, regularChunk), func(c int) {
		rng := newStream(p.Seed, streamRegular, uint64(c))
		lo, hi := chunkRange(c, regularChunk, n)
		var seen map[uint32]struct{}
		for v := lo; v < hi; v++ {
			g.Offsets[v+1] = uint32((v + 1) * d)
			row := g.Targets[v*d : (v+1)*d]
			seen = sampleOthers(&rng, uint32(v), uint32(n-1), row, seen)
			slices.Sort(row)
		}
		pr.add(int64(hi - lo))
	})
	g.weigh(p.Weights, p.Seed)
	return g, nil
}

// sampleOthers fills row with len(row) distinct vertices other than v,
// uniformly among such sets (Floyd's algorithm over the m = N-1 other
// vertices: index x stands for x when x < v and x+1 otherwise). Short rows
// check membership by scanning; long ones use seen, which is returned for
// reuse.
func sampleOthers(rng *splitMix, v, m uint32, row []uint32, seen map[uint32]struct{}) map[uint32]struct{} {
	k := uint32(len(row))
	useMap := k > 64
	if useMap {
		if seen == nil {
			seen = make(map[uint32]struct{}, k)
		}
		clear(seen)
	}
	has := func(x uint32, filled int) bool {
		if useMap {
			_, ok := seen[x]
			return ok
		}
		return slices.Contains(row[:filled], x)
	}
	for i, j := 0, m-k; j < m; i, j = i+1, j+1 {
		x := uint32(rng.below(uint64(j) + 1))
		if has(x, i) {
			x = j // j is new: every earlier pick was below j
		}
		row[i] = x
		if useMap {
			seen[x] = struct{}{}
		}
	}
	for i, x := range row {
		if x >= v {
			row[i] = x + 1
		}
	}
	return seen
}
