package ref

import (
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/graph"
)

// Membership values of a maximal independent set, one per vertex. Any
// other value (a kernel that left a vertex undecided) is a mismatch.
const (
	MISOut uint32 = 0
	MISIn  uint32 = 1
)

// MISTolerance is what ValidateMIS accepts; MISCertificateTolerance what
// CertifyMIS accepts.
const (
	MISCertificateTolerance = "certificate: no edge joins two members, every non-member has a member neighbour of higher priority (so the set is maximal, and the seed's greedy set)"
	MISTolerance            = "exact against the greedy set, and the certificate"
)

// MISKey folds a seed into the 32-bit key of MISPriority (the kernels
// receive the key, not the seed): SplitMix64's finaliser, so that nearby
// seeds give unrelated keys.
func MISKey(seed uint64) uint32 {
	z := seed + 0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	return uint32(z ^ z>>32)
}

// MISPriority is vertex v's priority under key: MurmurHash3's 32-bit
// finaliser of v*0x9E3779B1 xor key. Each step is invertible, so distinct
// vertices have distinct priorities. kernels/mis.cu computes the same.
func MISPriority(v, key uint32) uint32 {
	h := (v * 0x9E3779B1) ^ key
	h ^= h >> 16
	h *= 0x85EBCA6B
	h ^= h >> 13
	h *= 0xC2B2AE35
	h ^= h >> 16
	return h
}

// MISAbove reports whether u comes before v in the greedy order under key:
// the higher priority first, the smaller id on a tie (which MISPriority
// never makes, but the order is total whatever the hash). A vertex is
// never above itself.
func MISAbove(u, v, key uint32) bool {
	pu, pv := MISPriority(u, key), MISPriority(v, key)
	return pu > pv || (pu == pv && u < v)
}

// MIS returns the maximal independent set that the greedy algorithm builds
// in priority order (MISAbove under MISKey(seed)): a vertex joins unless a
// neighbour that joined before it is adjacent. It is the unique set in
// which a vertex is a member exactly when no neighbour above it is, which
// Luby-style rounds and the kernels' asynchronous decisions compute too.
// The graph is treated as undirected and simple: a directed edge u->v
// makes u and v neighbours, parallel edges are one, self-loops are
// ignored. The result holds MISIn or MISOut per vertex.
func MIS(g *graph.Graph, seed uint64) []uint32 {
	n := g.NumVertices()
	key := MISKey(seed)
	order := make([]uint32, n)
	prio := make([]uint32, n)
	for v := range order {
		order[v] = uint32(v)
		prio[v] = MISPriority(uint32(v), key)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		switch {
		case prio[a] > prio[b] || prio[a] == prio[b] && a < b:
			return -1
		case a == b:
			return 0
		}
		return 1
	})
	in := make([]uint32, n)
	blocked := make([]bool, n)
	var rev *graph.Graph
	if g.Directed {
		rev = g.Reverse()
	}
	for _, v := range order {
		if blocked[v] {
			continue
		}
		in[v] = MISIn
		for _, u := range g.Neighbors(v) {
			blocked[u] = true
		}
		if rev != nil {
			for _, u := range rev.Neighbors(v) {
				blocked[u] = true
			}
		}
	}
	return in
}

// CertifyMIS checks a membership against the definition, without building
// the set: got must hold MISIn or MISOut per vertex, (1) no edge u-v
// (u != v, either direction) joins two members, and (2) every non-member
// has a member neighbour above it in the order of seed. (2) implies
// maximality (no vertex can be added), and with (1) it pins the set down
// to MIS(g, seed): going down the order, a vertex with a member above it
// must be out by (1), one without must be in by (2). A non-member without
// any member neighbour is reported as such (the set is not maximal), one
// whose member neighbours are all below it as such (maximal, but another
// seed's set, or no greedy set at all). Detail holds the member count.
func CertifyMIS(g *graph.Graph, seed uint64, got []uint32) Report {
	name := misName(seed)
	if r, bad := checkLength(g, name, MISCertificateTolerance, len(got)); bad {
		return r
	}
	n := g.NumVertices()
	key := MISKey(seed)
	var rev *graph.Graph
	if g.Directed {
		rev = g.Reverse()
	}
	r := Report{Algorithm: name, Tolerance: MISCertificateTolerance, Checked: n}
	members := 0
	for v := uint32(0); int(v) < n; v++ {
		switch got[v] {
		case MISIn:
			members++
			// (1), from each member: a stored edge to another member. An
			// undirected graph stores each edge twice: report it once.
			for _, u := range g.Neighbors(v) {
				if u != v && got[u] == MISIn && (g.Directed || u > v) {
					r.add(v, fmt.Sprintf("no member neighbour (independence), but %d is one", u), "in")
				}
			}
		case MISOut:
			// (2): a member neighbour above v; failing that, any member
			// neighbour (to say which way the certificate failed).
			above, some := false, false
			look := func(us []uint32) {
				for _, u := range us {
					if u != v && got[u] == MISIn {
						some = true
						above = above || MISAbove(u, v, key)
					}
				}
			}
			look(g.Neighbors(v))
			if rev != nil && !above {
				look(rev.Neighbors(v))
			}
			switch {
			case !some:
				r.add(v, "in, or out with a member neighbour (maximality)", "out with no member neighbour")
			case !above:
				r.add(v, "in: no member neighbour above it", "out, with member neighbours only below it")
			}
		default:
			r.add(v, "in or out", formatMember(got[v]))
		}
	}
	r.Detail = fmt.Sprintf("%d members", members)
	return r
}

// ValidateMIS compares a membership exactly with MIS(g, seed) and checks
// it by CertifyMIS as well: Mismatches counts the vertices that differ
// from the reference plus the certificate's violations (which a match
// can have only if the reference itself were wrong).
func ValidateMIS(g *graph.Graph, seed uint64, got []uint32) Report {
	name := misName(seed)
	if r, bad := checkLength(g, name, MISTolerance, len(got)); bad {
		return r
	}
	want := MIS(g, seed)
	r := Report{Algorithm: name, Tolerance: MISTolerance, Checked: len(want)}
	for v := range want {
		if got[v] != want[v] {
			r.add(uint32(v), formatMember(want[v]), formatMember(got[v]))
		}
	}
	c := CertifyMIS(g, seed, got)
	for _, m := range c.First {
		r.add(m.Vertex, "certificate: "+m.Want, m.Got)
	}
	r.Mismatches += c.Mismatches - len(c.First)
	verdict := "certificate OK"
	if !c.OK() {
		verdict = fmt.Sprintf("certificate: %d violations", c.Mismatches)
	}
	r.Detail = c.Detail + ", " + verdict
	return r
}

func misName(seed uint64) string { return fmt.Sprintf("MIS (seed %d)", seed) }

func formatMember(x uint32) string {
	switch x {
	case MISIn:
		return "in"
	case MISOut:
		return "out"
	}
	return fmt.Sprintf("%d (neither in nor out)", x)
}
