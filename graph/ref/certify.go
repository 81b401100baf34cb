package ref

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/warpgraph/warpgraph/graph"
)

// Certificates check a path result without recomputing it: every edge must
// be relaxed (no edge offers a better value) and every reached vertex must be
// reached from the source along tight edges (edges that realise its value).
// Together the two conditions prove the values are exactly the optimum, so
// they validate the CPU references themselves, independently of the code
// that produced them.

// CertificateTolerance is the rule a certificate applies.
const CertificateTolerance = "certificate: every edge relaxed, every reached vertex reached along tight edges from the source"

// pathProblem describes one single-source path problem for certify.
type pathProblem struct {
	name      string
	unreached uint32
	sourceVal uint32
	// offer is the value an edge of weight w offers its head from a tail
	// of value du; better says whether a is strictly better than b.
	offer  func(du, w uint32) uint32
	better func(a, b uint32) bool
}

// CertifyBFS checks BFS depths from src by certificate.
func CertifyBFS(g *graph.Graph, src uint32, depths []uint32) Report {
	return certify(g, src, depths, pathProblem{
		name: "BFS", unreached: Unreached, sourceVal: 0,
		offer:  func(du, _ uint32) uint32 { return du + 1 },
		better: func(a, b uint32) bool { return a < b },
	}, false)
}

// CertifySSSP checks shortest-path distances from src by certificate;
// unweighted graphs use weight 1.
func CertifySSSP(g *graph.Graph, src uint32, dist []uint32) Report {
	return certify(g, src, dist, pathProblem{
		name: "SSSP", unreached: Unreached, sourceVal: 0,
		offer: func(du, w uint32) uint32 {
			if s := uint64(du) + uint64(w); s < uint64(Unreached) {
				return uint32(s)
			}
			return Unreached
		},
		better: func(a, b uint32) bool { return a < b },
	}, true)
}

// CertifySSWP checks widest-path widths from src by certificate (width of
// the source MaxUint32, unreachable 0).
func CertifySSWP(g *graph.Graph, src uint32, width []uint32) Report {
	return certify(g, src, width, pathProblem{
		name: "SSWP", unreached: 0, sourceVal: math.MaxUint32,
		offer:  func(du, w uint32) uint32 { return min(du, w) },
		better: func(a, b uint32) bool { return a > b },
	}, true)
}

func certify(g *graph.Graph, src uint32, val []uint32, p pathProblem, weighted bool) Report {
	r := Report{Algorithm: fmt.Sprintf("%s from %d", p.name, src), Tolerance: CertificateTolerance}
	n := g.NumVertices()
	if len(val) != n {
		r.Fault = fmt.Sprintf("result has %d values for %d vertices", len(val), n)
		return r
	}
	if int64(src) >= int64(n) {
		r.Fault = fmt.Sprintf("source %d is not a vertex (%d vertices)", src, n)
		return r
	}
	r.Checked = n
	weight := func(e uint32) uint32 {
		if weighted && g.Weights != nil {
			return g.Weights[e]
		}
		return 1
	}
	bad := make([]bool, n)
	flag := func(v uint32, want, got string) {
		if bad[v] {
			return
		}
		bad[v] = true
		r.Mismatches++
		if len(r.First) < MaxReported {
			r.First = append(r.First, Mismatch{Vertex: v, Want: want, Got: got})
		}
	}
	if val[src] != p.sourceVal {
		flag(src, fmt.Sprint(p.sourceVal), fmt.Sprint(val[src]))
	}
	// Relaxation: no edge offers its head a better value than it holds.
	for u := 0; u < n; u++ {
		du := val[u]
		if du == p.unreached {
			continue
		}
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			v := g.Targets[e]
			if o := p.offer(du, weight(e)); p.better(o, val[v]) {
				flag(v, fmt.Sprintf("at least as good as %d (offered by %d)", o, u), fmt.Sprint(val[v]))
			}
		}
	}
	// Tightness: a search from the source along tight edges must reach
	// every vertex that holds a value.
	seen := make([]bool, n)
	queue := make([]uint32, 1, 1024)
	queue[0] = src
	seen[src] = true
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			v := g.Targets[e]
			if !seen[v] && val[v] != p.unreached && p.offer(val[u], weight(e)) == val[v] {
				seen[v] = true
				queue = append(queue, v)
			}
		}
	}
	for v := 0; v < n; v++ {
		if val[v] != p.unreached && !seen[v] {
			flag(uint32(v), "a value realised by a path from the source", fmt.Sprint(val[v]))
		}
	}
	// The two passes find mismatches in different orders; report them by id.
	slices.SortFunc(r.First, func(a, b Mismatch) int { return cmp.Compare(a.Vertex, b.Vertex) })
	return r
}

// WCCCertificateTolerance is the rule CertifyWCC applies.
const WCCCertificateTolerance = "certificate: labels agree across every edge and every label class is connected"

// CertifyWCC checks component labels without union-find: every edge joins
// vertices of one label (no component is split across labels) and a search
// inside each label class, ignoring edge direction, reaches the whole class
// (no label holds two components).
func CertifyWCC(g *graph.Graph, labels []uint32) Report {
	r := Report{Algorithm: "WCC", Tolerance: WCCCertificateTolerance}
	n := g.NumVertices()
	if len(labels) != n {
		r.Fault = fmt.Sprintf("result has %d labels for %d vertices", len(labels), n)
		return r
	}
	r.Checked = n
	flag := func(v uint32, want, got string) {
		r.Mismatches++
		if len(r.First) < MaxReported {
			r.First = append(r.First, Mismatch{Vertex: v, Want: want, Got: got})
		}
	}
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(uint32(u)) {
			if labels[v] != labels[u] {
				flag(v, fmt.Sprintf("label %d of its neighbour %d", labels[u], u), fmt.Sprint(labels[v]))
			}
		}
	}
	if r.Mismatches > 0 {
		return r
	}
	in := g.Reverse()
	seen := make([]bool, n)
	classStart := map[uint32]uint32{}
	queue := make([]uint32, 0, 1024)
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		l := labels[s]
		if first, dup := classStart[l]; dup {
			flag(uint32(s), fmt.Sprintf("a label other than %d, which vertex %d's component already holds", l, first), fmt.Sprint(l))
			continue
		}
		classStart[l] = uint32(s)
		queue = append(queue[:0], uint32(s))
		seen[s] = true
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			for _, adj := range [][]uint32{g.Neighbors(u), in.Neighbors(u)} {
				for _, v := range adj {
					if !seen[v] {
						seen[v] = true
						queue = append(queue, v)
					}
				}
			}
		}
	}
	return r
}

// PageRankResidualTolerance bounds the L1 change one more sweep may make to
// a converged rank vector.
const PageRankResidualTolerance = 1e-6

// PageRankResidual checks a rank vector by applying one more PageRank sweep
// (the operator documented on PageRank, written here independently) and
// measuring the L1 change, and checks that the ranks sum to 1.
func PageRankResidual(g *graph.Graph, ranks []float64) Report {
	r := Report{Algorithm: "PageRank", Tolerance: fmt.Sprintf("residual: one more sweep changes the ranks by less than %g in L1; ranks sum to 1 within 1e-9", PageRankResidualTolerance)}
	n := g.NumVertices()
	if len(ranks) != n {
		r.Fault = fmt.Sprintf("result has %d ranks for %d vertices", len(ranks), n)
		return r
	}
	r.Checked = n
	if n == 0 {
		return r
	}
	next := make([]float64, n)
	var dangling, sum float64
	for u := 0; u < n; u++ {
		sum += ranks[u]
		deg := g.Offsets[u+1] - g.Offsets[u]
		if deg == 0 {
			dangling += ranks[u]
			continue
		}
		share := ranks[u] / float64(deg)
		for _, v := range g.Neighbors(uint32(u)) {
			next[v] += share
		}
	}
	base := (1 - PageRankDamping + PageRankDamping*dangling) / float64(n)
	for v := range next {
		x := base + PageRankDamping*next[v]
		d := math.Abs(x - ranks[v])
		r.L1 += d
		if d > r.MaxError {
			r.MaxError = d
		}
	}
	r.Detail = fmt.Sprintf("rank sum %.12f", sum)
	if r.L1 >= PageRankResidualTolerance || math.Abs(sum-1) > 1e-9 {
		r.Mismatches = 1
		r.First = append(r.First, Mismatch{Vertex: 0, Want: "a fixed point of the PageRank sweep summing to 1",
			Got: fmt.Sprintf("L1 change %.3g, sum %.12f", r.L1, sum)})
	}
	return r
}
