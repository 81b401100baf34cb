package graph

import (
	"fmt"
	"strconv"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// RMAT generates R-MAT (recursive matrix, Kronecker-like) graphs: each edge
// descends Scale levels of the adjacency matrix, choosing the top-left,
// top-right, bottom-left or bottom-right quadrant with probabilities A, B,
// C and 1-A-B-C. The defaults are Graph500's. The result has a power-law
// degree distribution and a small diameter, the opposite of Grid. Vertex
// ids are not scrambled, so low ids are the hubs; add the perm=SEED
// transformation for Graph500-style scrambled ids.
type RMAT struct {
	// Scale gives 2^Scale vertices (1..30).
	Scale int
	// EdgeFactor gives EdgeFactor·2^Scale generated edges, before
	// self-loops and duplicates are dropped.
	EdgeFactor int
	// A, B and C are quadrant probabilities, each in (0,1), summing below 1.
	A, B, C float64
	Seed    uint64
	// Directed keeps the generated edges one-way.
	Directed bool
	// Weights is the range of uniform random weights; zero for none.
	Weights WeightRange
}

// Graph500's R-MAT parameters.
const (
	rmatDefaultEdgeFactor = 16
	rmatDefaultA          = 0.57
	rmatDefaultB          = 0.19
	rmatDefaultC          = 0.19
	rmatMaxScale          = 30
)

// DefaultRMAT returns Graph500's R-MAT at the given scale: edge factor 16,
// A=0.57, B=C=0.19, seed 1, undirected, weights 1..64.
func DefaultRMAT(scale int) RMAT {
	return RMAT{
		Scale: scale, EdgeFactor: rmatDefaultEdgeFactor,
		A: rmatDefaultA, B: rmatDefaultB, C: rmatDefaultC,
		Seed: 1, Weights: DefaultWeights,
	}
}

// Validate checks the parameters, including that the graph fits 32-bit
// edge offsets.
func (p RMAT) Validate() error {
	if p.Scale < 1 || p.Scale > rmatMaxScale {
		return fmt.Errorf("rmat scale %d is out of range 1..%d", p.Scale, rmatMaxScale)
	}
	if p.EdgeFactor < 1 {
		return fmt.Errorf("rmat ef %d must be at least 1", p.EdgeFactor)
	}
	for _, q := range []struct {
		name string
		v    float64
	}{{"a", p.A}, {"b", p.B}, {"c", p.C}} {
		if !(q.v > 0 && q.v < 1) {
			return fmt.Errorf("rmat %s=%v must lie strictly between 0 and 1", q.name, q.v)
		}
	}
	if !(p.A+p.B+p.C < 1) {
		return fmt.Errorf("rmat a+b+c = %v must be below 1 (d = 1-a-b-c is the fourth quadrant)", p.A+p.B+p.C)
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("rmat %w", err)
	}
	if stored := p.storedBound(); stored > MaxEdges {
		return errEdgeBudget(fmt.Sprintf("rmat scale %d with ef %d", p.Scale, p.EdgeFactor), stored)
	}
	return nil
}

// storedBound is the number of edges stored before duplicates are merged.
func (p RMAT) storedBound() int64 {
	// Cap the shift so an absurd EdgeFactor cannot overflow int64.
	stored := min(int64(p.EdgeFactor), 1<<32) << p.Scale
	if !p.Directed {
		stored *= 2
	}
	return stored
}

// String returns the canonical spec, every parameter spelled out.
func (p RMAT) String() string {
	return fmt.Sprintf("rmat:scale=%d,ef=%d,a=%s,b=%s,c=%s,directed=%s,weights=%s,seed=%d",
		p.Scale, p.EdgeFactor, formatFloat(p.A), formatFloat(p.B), formatFloat(p.C),
		formatBool(p.Directed), p.Weights, p.Seed)
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func formatBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// rmatChunk is the number of edges drawn from one random stream. It is
// part of the output's definition: changing it changes every R-MAT graph.
const rmatChunk = 1 << 16

// Load generates the graph. Progress, when not nil, hears the stages
// "generate" (edges drawn) and "build" (CSR construction steps).
func (p RMAT) Load(progress func(stage string, done, total int64)) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkMemory("generating "+p.String(), p.memoryNeed()); err != nil {
		return nil, err
	}
	n := 1 << p.Scale
	m := p.EdgeFactor << p.Scale
	src, dst := make([]uint32, m), make([]uint32, m)
	// Quadrant thresholds on 32-bit uniform draws. Each product is one
	// rounding of a multiply by a power of two, hence exact and identical
	// on every machine.
	const two32 = 1 << 32
	tA := uint64(p.A * two32)
	tAB := uint64((p.A + p.B) * two32)
	tABC := uint64((p.A + p.B + p.C) * two32)
	levels := p.Scale
	pr := newProgress(progress, "generate", int64(m))
	parallel.Chunks(numChunks(m, rmatChunk), func(c int) {
		rng := newStream(p.Seed, streamRMAT, uint64(c))
		lo, hi := chunkRange(c, rmatChunk, m)
		for i := lo; i < hi; i++ {
			var u, v uint32
			// One 64-bit draw serves two levels.
			for l := 0; l < levels; l += 2 {
				r := rng.next()
				u, v = rmatDescend(u, v, r&0xffffffff, tA, tAB, tABC)
				if l+1 < levels {
					u, v = rmatDescend(u, v, r>>32, tA, tAB, tABC)
				}
			}
			src[i], dst[i] = u, v
		}
		pr.add(int64(hi - lo))
	})
	g, err := buildSimple(n, src, dst, p.Directed, progress)
	if err != nil {
		return nil, err
	}
	g.weigh(p.Weights, p.Seed)
	return g, nil
}

// rmatDescend appends one level's row and column bit for the 32-bit draw
// x. Quadrants a, b, c, d are (0,0), (0,1), (1,0), (1,1); the column bit
// is the parity of the thresholds x has passed, which avoids branches the
// CPU cannot predict.
func rmatDescend(u, v uint32, x, tA, tAB, tABC uint64) (uint32, uint32) {
	row := b2u(x >= tAB)
	col := b2u(x >= tA) ^ row ^ b2u(x >= tABC)
	return u<<1 | row, v<<1 | col
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
