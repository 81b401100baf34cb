package graph

import (
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// ER generates Erdős–Rényi G(n, m) graphs: exactly M distinct edges chosen
// uniformly among all vertex pairs, without self-loops. Degrees are
// binomial, with none of R-MAT's hubs nor Grid's long paths.
type ER struct {
	// N is the vertex count, M the number of distinct edges (unordered
	// pairs when undirected, so the graph stores 2·M edges; ordered pairs
	// when Directed).
	N, M int
	Seed uint64
	// Directed draws ordered pairs and stores each edge one way.
	Directed bool
	// Weights is the range of uniform random weights; zero for none.
	Weights WeightRange
}

// Validate checks the counts, including that the graph fits 32-bit ids and
// edge offsets.
func (p ER) Validate() error {
	if p.N < 1 || p.N > MaxVertices {
		return fmt.Errorf("er n=%d is out of range 1..%d", p.N, MaxVertices)
	}
	if p.M < 0 {
		return fmt.Errorf("er m=%d must not be negative", p.M)
	}
	if uint64(p.M) > p.pairs() {
		kind := "n(n-1)/2 unordered pairs (undirected)"
		if p.Directed {
			kind = "n(n-1) ordered pairs (directed)"
		}
		return fmt.Errorf("er m=%d exceeds the %d possible edges on n=%d vertices: %s", p.M, p.pairs(), p.N, kind)
	}
	if err := p.Weights.Validate(); err != nil {
		return fmt.Errorf("er %w", err)
	}
	stored := int64(p.M)
	if !p.Directed {
		stored *= 2
	}
	if stored > MaxEdges {
		return errEdgeBudget(fmt.Sprintf("er m=%d", p.M), stored)
	}
	return nil
}

// pairs is the number of possible edges.
func (p ER) pairs() uint64 {
	n := uint64(p.N)
	if p.Directed {
		return n * (n - 1)
	}
	return n * (n - 1) / 2
}

// String returns the canonical spec, every parameter spelled out.
func (p ER) String() string {
	return fmt.Sprintf("er:n=%d,m=%d,directed=%s,weights=%s,seed=%d",
		p.N, p.M, formatBool(p.Directed), p.Weights, p.Seed)
}

// erChunk is the number of candidate edges drawn from one random stream;
// like rmatChunk it is part of the output's definition.
const erChunk = 1 << 16

// Load generates the graph. Progress, when not nil, hears the stages
// "generate" (candidate edges drawn) and "build".
func (p ER) Load(progress func(stage string, done, total int64)) (*Graph, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkMemory("generating "+p.String(), p.memoryNeed()); err != nil {
		return nil, err
	}
	var src, dst []uint32
	if pairs := p.pairs(); uint64(p.M) > pairs/2 {
		// Dense: rejection sampling would collide more than it hits, so
		// draw the pairs to leave out instead and keep the rest.
		src, dst = p.complement(p.sampleDistinct(int(pairs)-p.M, progress))
	} else {
		src, dst = p.sampleDistinct(p.M, progress)
	}
	g, err := buildSimple(p.N, src, dst, p.Directed, progress)
	if err != nil {
		return nil, err
	}
	g.weigh(p.Weights, p.Seed)
	return g, nil
}

// erTopUpLimit is how many missing pairs are drawn one by one; more are
// drawn in another parallel round.
const erTopUpLimit = 1 << 16

// sampleDistinct returns k distinct pairs drawn uniformly, as ordered
// (u<v) pairs when undirected. Rounds of parallel draws are deduplicated
// through a CSR until few pairs are missing; those are then drawn one by
// one from a single sequential stream, so the set depends only on the seed.
// Callers keep k at most half the possible pairs, so that a fresh draw is
// new at least half the time and the shortfall shrinks geometrically.
func (p ER) sampleDistinct(k int, progress func(stage string, done, total int64)) (src, dst []uint32) {
	pr := newProgress(progress, "generate", int64(k))
	missing := k
	for round := uint64(0); ; round++ {
		src, dst = p.drawPairs(src, dst, missing, round, pr)
		// Both directions of an undirected pair are already folded into
		// u<v, so a directed build merges exactly the duplicate pairs.
		drawn, err := buildSimple(p.N, src, dst, true, nil)
		if err != nil {
			panic(err) // Validate bounds k by MaxEdges, so this cannot happen
		}
		if drawn.NumEdges() == len(src) {
			return src, dst
		}
		src, dst = edgeSources(drawn), drawn.Targets
		if missing = k - len(src); missing <= erTopUpLimit {
			return p.topUp(drawn, src, dst, k)
		}
	}
}

// drawPairs appends count pairs drawn in parallel chunks, each chunk from
// its own stream for this round.
func (p ER) drawPairs(src, dst []uint32, count int, round uint64, pr *progressReporter) ([]uint32, []uint32) {
	base := len(src)
	src, dst = slices.Grow(src, count)[:base+count], slices.Grow(dst, count)[:base+count]
	parallel.Chunks(numChunks(count, erChunk), func(c int) {
		rng := newStream(p.Seed, streamER, round<<32|uint64(c))
		lo, hi := chunkRange(c, erChunk, count)
		for i := base + lo; i < base+hi; i++ {
			src[i], dst[i] = p.drawPair(&rng)
		}
		if round == 0 {
			pr.add(int64(hi - lo))
		}
	})
	return src, dst
}

// topUp appends pairs, drawn sequentially and kept when new, to the
// distinct pairs of drawn (listed in src, dst) until there are k.
func (p ER) topUp(drawn *Graph, src, dst []uint32, k int) ([]uint32, []uint32) {
	extra := make(map[uint64]struct{}, k-len(src))
	rng := newStream(p.Seed, streamERTopUp, 0)
	for len(src) < k {
		u, v := p.drawPair(&rng)
		if _, found := slices.BinarySearch(drawn.Neighbors(u), v); found {
			continue
		}
		key := uint64(u)<<32 | uint64(v)
		if _, found := extra[key]; found {
			continue
		}
		extra[key] = struct{}{}
		src, dst = append(src, u), append(dst, v)
	}
	return src, dst
}

// drawPair draws a uniform pair of distinct vertices, ordered u<v when
// undirected: every unordered pair is then twice as likely as an ordered
// one, that is, uniform.
func (p ER) drawPair(rng *splitMix) (u, v uint32) {
	u = uint32(rng.below(uint64(p.N)))
	v = uint32(rng.below(uint64(p.N) - 1))
	if v >= u {
		v++
	}
	if !p.Directed && v < u {
		u, v = v, u
	}
	return u, v
}

// complement lists every possible pair that is not among the excluded
// ones (in sampleDistinct's form), in the same form.
func (p ER) complement(exSrc, exDst []uint32) (src, dst []uint32) {
	excluded, err := buildSimple(p.N, exSrc, exDst, true, nil)
	if err != nil {
		panic(err) // bounded by Validate, as in sampleDistinct
	}
	want := int(p.pairs()) - excluded.NumEdges()
	src, dst = make([]uint32, 0, want), make([]uint32, 0, want)
	for u := 0; u < p.N; u++ {
		skip := excluded.Neighbors(uint32(u))
		first := 0
		if !p.Directed {
			first = u + 1
		}
		for v := first; v < p.N; v++ {
			if v == u {
				continue
			}
			if len(skip) > 0 && skip[0] == uint32(v) {
				skip = skip[1:]
				continue
			}
			src, dst = append(src, uint32(u)), append(dst, uint32(v))
		}
	}
	return src, dst
}
