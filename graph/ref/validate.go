package ref

import (
	"fmt"
	"math"
	"strconv"

	"github.com/warpgraph/warpgraph/graph"
)

// Tolerances of the validators.
const (
	// Exact is the rule for BFS, SSSP, SSWP, k-core and WCC (as a
	// partition): every vertex must equal the reference.
	Exact = "exact"
	// PageRankRelTolerance bounds |got-want| <= PageRankRelTolerance*want
	// per vertex; every reference rank is at least (1-d)/n > 0, so the
	// relative error is always defined.
	PageRankRelTolerance = 1e-3
	// BeliefAbsTolerance bounds |got-want| per vertex for belief
	// propagation. Beliefs are probabilities in [0, 1], so an absolute
	// bound is meaningful everywhere, including beliefs close to 0 where a
	// relative one would demand more than float32 can give.
	BeliefAbsTolerance = 1e-4
)

// Float is a floating-point result type: the references compute float64,
// GPU kernels often produce float32.
type Float interface{ ~float32 | ~float64 }

// ValidateBFS checks BFS depths from src exactly against BFS(g, src);
// unreachable vertices must hold Unreached.
func ValidateBFS(g *graph.Graph, src uint32, got []uint32) Report {
	algorithm := fmt.Sprintf("BFS from %d", src)
	if r, bad := checkSource(g, src, algorithm, len(got)); bad {
		return r
	}
	return compareExact(algorithm, BFS(g, src), got, formatDistance)
}

// ValidateSSSP checks SSSP distances from src exactly against SSSP(g, src);
// unreachable vertices must hold Unreached. A reference that overflows
// (a distance above MaxDistance) is reported as a Fault.
func ValidateSSSP(g *graph.Graph, src uint32, got []uint32) Report {
	algorithm := fmt.Sprintf("SSSP from %d", src)
	if r, bad := checkSource(g, src, algorithm, len(got)); bad {
		return r
	}
	want, err := SSSP(g, src)
	if err != nil {
		return faulty(algorithm, Exact, "no reference: %v", err)
	}
	return compareExact(algorithm, want, got, formatDistance)
}

// ValidateSSWP checks widest-path widths from src exactly against
// SSWP(g, src): MaxUint32 at src, 0 where unreachable.
func ValidateSSWP(g *graph.Graph, src uint32, got []uint32) Report {
	algorithm := fmt.Sprintf("SSWP from %d", src)
	if r, bad := checkSource(g, src, algorithm, len(got)); bad {
		return r
	}
	return compareExact(algorithm, SSWP(g, src), got, formatUint)
}

// ValidateKCore checks core numbers exactly against KCore(g).
func ValidateKCore(g *graph.Graph, got []uint32) Report {
	if r, bad := checkLength(g, "core numbers", Exact, len(got)); bad {
		return r
	}
	return compareExact("core numbers", KCore(g), got, formatUint)
}

// ValidateKCoreMembers checks k-core membership exactly against
// KCoreMembers(KCore(g), k): got[v] must be true exactly for the vertices
// whose core number is at least k.
func ValidateKCoreMembers(g *graph.Graph, k uint32, got []bool) Report {
	algorithm := fmt.Sprintf("%d-core membership", k)
	if r, bad := checkLength(g, algorithm, Exact, len(got)); bad {
		return r
	}
	want := KCoreMembers(KCore(g), k)
	r := Report{Algorithm: algorithm, Tolerance: Exact, Checked: len(want)}
	member := func(in bool) string {
		if in {
			return "in the core"
		}
		return "outside the core"
	}
	for v := range want {
		if want[v] != got[v] {
			r.add(uint32(v), member(want[v]), member(got[v]))
		}
	}
	return r
}

// CompareExact compares a result with a precomputed reference (from BFS,
// SSSP, SSWP or KCore), vertex by vertex, exactly. Use it to validate
// several results against one reference.
func CompareExact(algorithm string, want, got []uint32) Report {
	if len(got) != len(want) {
		return faulty(algorithm, Exact, "result has %d entries, the reference %d", len(got), len(want))
	}
	return compareExact(algorithm, want, got, formatUint)
}

// ValidateWCC checks component labels against WCC(g) as a partition: any
// labelling is accepted as long as two vertices share a label exactly when
// they are weakly connected. See CompareComponents.
func ValidateWCC(g *graph.Graph, got []uint32) Report {
	if r, bad := checkLength(g, "WCC", Exact, len(got)); bad {
		return r
	}
	return CompareComponents(WCC(g), got)
}

// CompareComponents checks that got partitions the vertices like want,
// which must come from WCC (each label is the smallest vertex id of its
// component). Labels in got are arbitrary uint32 values. Vertices are
// visited in id order; a vertex is a mismatch when its label differs from
// the label its component received at its first (smallest) vertex (the
// component is split), or when it is the first vertex of a component and
// its label was already taken by another component (two components
// merged; counted once, at that vertex).
func CompareComponents(want, got []uint32) Report {
	const algorithm = "WCC"
	const tolerance = "exact partition, labels may differ"
	if len(got) != len(want) {
		return faulty(algorithm, tolerance, "result has %d entries, the reference %d", len(got), len(want))
	}
	n := len(want)
	r := Report{Algorithm: algorithm, Tolerance: tolerance, Checked: n}
	const unset = math.MaxUint32
	labelOf := make([]uint32, n) // got label of the component whose least vertex is the index
	labelSet := make([]bool, n)
	// owner maps a got label to the component (least vertex) that claimed
	// it; labels below n use a slice, the rest a map.
	owner := make([]uint32, n)
	for i := range owner {
		owner[i] = unset
	}
	largeOwner := map[uint32]uint32{}
	claim := func(label, component uint32) (previous uint32, taken bool) {
		if int64(label) < int64(n) {
			previous = owner[label]
			if previous == unset {
				owner[label] = component
				return 0, false
			}
			return previous, true
		}
		if previous, taken = largeOwner[label]; !taken {
			largeOwner[label] = component
		}
		return previous, taken
	}
	for v := 0; v < n; v++ {
		c, label := want[v], got[v]
		if int64(c) >= int64(n) {
			return faulty(algorithm, tolerance, "reference label %d of vertex %d is not a vertex id", c, v)
		}
		if !labelSet[c] {
			labelOf[c], labelSet[c] = label, true
			if other, taken := claim(label, c); taken {
				r.add(uint32(v), fmt.Sprintf("a label other than %d, which the component of vertex %d has", label, other), strconv.FormatUint(uint64(label), 10))
			}
			continue
		}
		if label != labelOf[c] {
			r.add(uint32(v), fmt.Sprintf("%d, the label of vertex %d in the same component", labelOf[c], c), strconv.FormatUint(uint64(label), 10))
		}
	}
	return r
}

// ValidatePageRank compares ranks against the converged PageRank(g) with
// the per-vertex relative tolerance PageRankRelTolerance; the report's L1
// is sum|got-want| and MaxError the largest relative error.
func ValidatePageRank[F Float](g *graph.Graph, got []F) Report {
	if r, bad := checkLength(g, "PageRank", pageRankTolerance, len(got)); bad {
		return r
	}
	want, sweeps := PageRank(g)
	r := ComparePageRank(want, got)
	r.Detail = fmt.Sprintf("reference converged in %d sweeps", sweeps)
	return r
}

var pageRankTolerance = fmt.Sprintf("relative %g per vertex", PageRankRelTolerance)

// ComparePageRank compares ranks against a precomputed PageRank reference
// with the per-vertex relative tolerance PageRankRelTolerance. NaN never
// passes.
func ComparePageRank[F Float](want []float64, got []F) Report {
	return compareFloat("PageRank", pageRankTolerance, want, got, true, PageRankRelTolerance)
}

// ValidateBeliefs compares beliefs against BeliefPropagation(g, seed) with
// the per-vertex absolute tolerance BeliefAbsTolerance; the report's L1 is
// sum|got-want| and MaxError the largest absolute error.
func ValidateBeliefs[F Float](g *graph.Graph, seed uint64, got []F) Report {
	if r, bad := checkLength(g, "belief propagation", beliefTolerance, len(got)); bad {
		return r
	}
	return CompareBeliefs(BeliefPropagation(g, seed), got)
}

var beliefTolerance = fmt.Sprintf("absolute %g per vertex", BeliefAbsTolerance)

// CompareBeliefs compares beliefs against a precomputed reference with the
// per-vertex absolute tolerance BeliefAbsTolerance. NaN never passes.
func CompareBeliefs[F Float](want []float64, got []F) Report {
	return compareFloat("belief propagation", beliefTolerance, want, got, false, BeliefAbsTolerance)
}

func compareFloat[F Float](algorithm, tolerance string, want []float64, got []F, relative bool, bound float64) Report {
	if len(got) != len(want) {
		return faulty(algorithm, tolerance, "result has %d entries, the reference %d", len(got), len(want))
	}
	r := Report{Algorithm: algorithm, Tolerance: tolerance, Checked: len(want)}
	for v, w := range want {
		x := float64(got[v])
		diff := math.Abs(x - w)
		err := diff
		if relative && diff != 0 {
			err = diff / math.Abs(w)
		}
		r.L1 += diff
		// Written so that a NaN error fails the bound and sticks in MaxError.
		if !math.IsNaN(r.MaxError) && !(err <= r.MaxError) {
			r.MaxError = err
		}
		if !(err <= bound) {
			r.add(uint32(v), strconv.FormatFloat(w, 'g', 9, 64), strconv.FormatFloat(x, 'g', 9, 64))
		}
	}
	return r
}

func compareExact(algorithm string, want, got []uint32, format func(uint32) string) Report {
	r := Report{Algorithm: algorithm, Tolerance: Exact, Checked: len(want)}
	for v := range want {
		if want[v] != got[v] {
			r.add(uint32(v), format(want[v]), format(got[v]))
		}
	}
	return r
}

// checkSource returns a faulty report when src is not a vertex of g or the
// result length is not the vertex count.
func checkSource(g *graph.Graph, src uint32, algorithm string, length int) (Report, bool) {
	if int64(src) >= int64(g.NumVertices()) {
		return faulty(algorithm, Exact, "source %d is not a vertex of a graph with %d vertices", src, g.NumVertices()), true
	}
	return checkLength(g, algorithm, Exact, length)
}

func checkLength(g *graph.Graph, algorithm, tolerance string, length int) (Report, bool) {
	if length != g.NumVertices() {
		return faulty(algorithm, tolerance, "result has %d entries for a graph of %d vertices", length, g.NumVertices()), true
	}
	return Report{}, false
}

func formatDistance(d uint32) string {
	if d == Unreached {
		return "unreached"
	}
	return strconv.FormatUint(uint64(d), 10)
}

func formatUint(x uint32) string { return strconv.FormatUint(uint64(x), 10) }
