package graph

import (
	"fmt"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// Grid generates a Width×Height 4-neighbour mesh: vertex (x, y) has id
// y·Width+x and is joined to its left, right, upper and lower neighbours.
// Degrees are at most 4 and the diameter is Width+Height-2, the structure
// of road networks that stresses frontier-based algorithms with thousands
// of small iterations. The seed only draws the weights.
type Grid struct {
	Width, Height int
	Seed          uint64
	// Directed marks the graph directed while still storing both
	// directions of every mesh edge, each with its own weight, like a road
	// with a different travel time each way.
	Directed bool
	// Weights is the range of uniform random weights; zero for none.
	Weights WeightRange
}

// Validate checks the dimensions and that the mesh fits 32-bit ids and
// edge offsets.
func (p Grid) Validate() error {
	if p.Width < 1 || p.Height < 1 {
		return fmt.Errorf("grid w=%d,h=%d: both must be at least 1", p.Width, p.Height)
	}
	if int64(p.Width)*int64(p.Height) > MaxVertices {
		return fmt.Errorf("grid w=%d,h=%d has %d vertices, more than the 2^31-1 that 32-bit ids allow", p.Width, p.Height, int64(p.Width)*int64(p.Height))
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("grid %w", err)
	}
	if stored := p.storedEdges(); stored > MaxEdges {
		return errEdgeBudget(fmt.Sprintf("grid w=%d,h=%d", p.Width, p.Height), stored)
	}
	return nil
}

// storedEdges counts both directions of every horizontal and vertical edge.
func (p Grid) storedEdges() int64 {
	w, h := int64(p.Width), int64(p.Height)
	return 2 * ((w-1)*h + w*(h-1))
}

// String returns the canonical spec, every parameter spelled out.
func (p Grid) String() string {
	return fmt.Sprintf("grid:w=%d,h=%d,directed=%s,weights=%s,seed=%d",
		p.Width, p.Height, formatBool(p.Directed), p.Weights, p.Seed)
}

// Load generates the mesh. Progress, when not nil, hears the stage
// "generate" (vertices filled).
func (p Grid) Load(progress func(stage string, done, total int64)) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkMemory("generating "+p.String(), p.memoryNeed()); err != nil {
		return nil, err
	}
	w, h := p.Width, p.Height
	n := w * h
	g := &Graph{Offsets: make([]uint32, n+1), Targets: make([]uint32, p.storedEdges()), Directed: p.Directed}
	degree := func(x, y int) uint32 {
		return b2u(y > 0) + b2u(x > 0) + b2u(x < w-1) + b2u(y < h-1)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := y*w + x
			g.Offsets[v+1] = g.Offsets[v] + degree(x, y)
		}
	}
	// Vertices are independent; neighbours go in id order (up, left,
	// right, down), so adjacencies come out sorted as Build sorts them.
	const chunk = 1 << 14
	pr := newProgress(progress, "generate", int64(n))
	parallel.Chunks(numChunks(n, chunk), func(c int) {
		lo, hi := chunkRange(c, chunk, n)
		for v := lo; v < hi; v++ {
			x, y := v%w, v/w
			e := g.Offsets[v]
			put := func(u int) { g.Targets[e] = uint32(u); e++ }
			if y > 0 {
				put(v - w)
			}
			if x > 0 {
				put(v - 1)
			}
			if x < w-1 {
				put(v + 1)
			}
			if y < h-1 {
				put(v + w)
			}
		}
		pr.add(int64(hi - lo))
	})
	g.weigh(p.Weights, p.Seed)
	return g, nil
}
