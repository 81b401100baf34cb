package ref

import (
	"fmt"
	"math"
	"slices"

	"github.com/warpgraph/warpgraph/graph"
)

// Belief propagation's parameters.
const (
	// BPIterations is the number of synchronous message-passing rounds.
	BPIterations = 10
	// BPSameState is the edge potential psi(x, x) for equal states; unequal
	// states get psi(x, y) = 1 - BPSameState, so the potential is
	// [[0.9, 0.1], [0.1, 0.9]].
	BPSameState = 0.9
	// BPPriorMin and BPPriorMax bound the priors BPPrior draws.
	BPPriorMin = 0.1
	BPPriorMax = 0.9
)

// NoEdge marks a stored edge without a paired reverse edge in
// BPReverseEdges.
const NoEdge = math.MaxUint32

// BPPrior returns vertex v's prior probability of state 1 for the given
// seed (state 0 has 1 minus it), uniform in [BPPriorMin, BPPriorMax). It is
// the splitmix64 output v+1 of a generator seeded with seed, turned into a
// double from its top 53 bits; in C, with uint64_t arithmetic wrapping:
//
//	z = seed + (v + 1) * 0x9E3779B97F4A7C15;
//	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
//	z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//	z ^= z >> 31;
//	p = 0.1 + 0.8 * ((double)(z >> 11) * 0x1p-53);
//
// Being a pure function of (seed, v), a GPU kernel can draw the same
// priors in place; rounding them to float32 stays well within the belief
// tolerance.
func BPPrior(seed uint64, v uint32) float64 {
	z := seed + (uint64(v)+1)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return BPPriorMin + (BPPriorMax-BPPriorMin)*(float64(z>>11)/(1<<53))
}

// BPPriors returns BPPrior(seed, v) for every vertex v < n.
func BPPriors(n int, seed uint64) []float64 {
	priors := make([]float64, n)
	for v := range priors {
		priors[v] = BPPrior(seed, uint32(v))
	}
	return priors
}

// BeliefPropagation runs loopy sum-product belief propagation with two
// states per vertex, priors BPPriors(n, seed), and returns every vertex's
// belief, its probability of state 1. See BeliefPropagationWithPriors for
// the exact schedule.
func BeliefPropagation(g *graph.Graph, seed uint64) []float64 {
	beliefs, err := BeliefPropagationWithPriors(g, BPPriors(g.NumVertices(), seed))
	if err != nil {
		panic(err) // BPPriors always yields one valid prior per vertex
	}
	return beliefs
}

// BeliefPropagationWithPriors runs loopy sum-product belief propagation on
// g with the given priors (priors[v] = P(state 1), in [0, 1]) and returns
// the beliefs, P(state 1) per vertex.
//
// Every stored edge e = u->v with u != v carries a message m_e(x_v),
// normalised to sum to 1 and initially uniform; an undirected graph stores
// both directions, so both carry messages, and self-loops carry none.
// Each of BPIterations synchronous rounds replaces every message at once
// with
//
//	m'_e(x_v) ∝ sum over x_u of psi(x_u, x_v) * prior_u(x_u) * prod m_f(x_u)
//
// where f ranges over the stored edges into u except the reverse edge of e
// (the edge v->u paired with e by BPReverseEdges; when there is none,
// nothing is excluded) and psi = [[0.9, 0.1], [0.1, 0.9]]. After the last
// round the belief of v is prior_v(x) * prod over edges f into v of
// m_f(x), normalised. Messages along parallel edges are separate and all
// count. The implementation works with log-odds, where the product becomes
// a sum and the message update is 2*atanh(0.8*tanh(h/2)) of the cavity
// log-odds h (see bpMessage), so high-degree vertices neither underflow
// nor overflow. Results do not depend on the number of cores.
func BeliefPropagationWithPriors(g *graph.Graph, priors []float64) ([]float64, error) {
	n := g.NumVertices()
	if len(priors) != n {
		return nil, fmt.Errorf("ref: belief propagation got %d priors for %d vertices", len(priors), n)
	}
	for v, p := range priors {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("ref: belief propagation prior of vertex %d is %v, not a probability", v, p)
		}
	}
	reverse := BPReverseEdges(g)
	// Unpaired edges cannot be gathered from their target's side, so they
	// are scattered in a serial pass; collect them once.
	var unpaired []uint32
	for e, r := range reverse {
		if r == NoEdge {
			unpaired = append(unpaired, uint32(e))
		}
	}
	sources := edgeSources(g, unpaired)
	logPrior := make([]float64, n)
	for v, p := range priors {
		logPrior[v] = math.Log(p) - math.Log1p(-p)
	}
	messages := make([]float64, g.NumEdges()) // log-odds, 0 = uniform
	field := make([]float64, n)
	for round := 0; round < BPIterations; round++ {
		bpField(g, logPrior, messages, reverse, unpaired, sources, field)
		forChunks(n, func(_, lo, hi int) {
			for u := lo; u < hi; u++ {
				for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
					v, r := g.Targets[e], reverse[e]
					switch {
					case v == uint32(u):
						// self-loops carry no message
					case r == NoEdge:
						messages[e] = bpMessage(field[u])
					case e < r:
						// The pair is updated together from the old values,
						// so the update is synchronous without a second
						// message array; the other side skips it.
						toV := bpMessage(field[u] - messages[r])
						toU := bpMessage(field[v] - messages[e])
						messages[e], messages[r] = toV, toU
					}
				}
			}
		})
	}
	bpField(g, logPrior, messages, reverse, unpaired, sources, field)
	for v, h := range field {
		field[v] = 1 / (1 + math.Exp(-h))
	}
	return field, nil
}

// bpMessage maps the cavity log-odds h of a sender to the log-odds of its
// normalised message, sum over x_u of psi(x_u, x_v) * P(x_u):
//
//	log((a*e^h + b) / (b*e^h + a)) = 2*atanh((a-b) * tanh(h/2))
//
// with a = BPSameState, b = 1-a. It is evaluated with e^-|h| so that it
// stays finite for any h, infinite included, and costs one exp and one log
// instead of the slower tanh and atanh.
func bpMessage(h float64) float64 {
	const a, b = BPSameState, 1 - BPSameState
	var m float64
	if math.Abs(h) >= bpSaturation {
		m = bpSaturated
	} else {
		t := math.Exp(-math.Abs(h))
		m = math.Log((a + b*t) / (b + a*t))
	}
	if h < 0 {
		return -m
	}
	return m
}

// Beyond bpSaturation, e^-|h| < 4.3e-18 vanishes against a and b when
// added in float64, so the message is exactly bpSaturated = log(a/b); hub
// vertices of skewed graphs have such fields, and skipping exp and log for
// them changes no bit.
const bpSaturation = 40

var bpSaturated = math.Log(BPSameState / (1 - BPSameState))

// bpField sets field[v] to the log-odds of prior_v times all messages into
// v. Paired messages are gathered in parallel through the reverse edges of
// v's out-edges; unpaired ones are added afterwards in edge order.
func bpField(g *graph.Graph, logPrior, messages []float64, reverse, unpaired, sources []uint32, field []float64) {
	forChunks(g.NumVertices(), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			h := logPrior[v]
			for e := g.Offsets[v]; e < g.Offsets[v+1]; e++ {
				if r := reverse[e]; r != NoEdge {
					h += messages[r]
				}
			}
			field[v] = h
		}
	})
	for i, e := range unpaired {
		if v := g.Targets[e]; v != sources[i] {
			field[v] += messages[e]
		}
	}
}

// edgeSources returns the source vertex of each listed edge.
func edgeSources(g *graph.Graph, edges []uint32) []uint32 {
	sources := make([]uint32, len(edges))
	u := uint32(0)
	for i, e := range edges { // edges are in increasing order
		for g.Offsets[u+1] <= e {
			u++
		}
		sources[i] = u
	}
	return sources
}

// BPReverseEdges pairs every stored edge u->v (u != v) with a stored edge
// v->u: reverse[e] is the index of e's partner, or NoEdge when it has none
// (a self-loop, or a directed edge whose reverse is not stored). When u->v
// is stored k times and v->u j times, the i-th copies of each, in storage
// order, pair up for i < min(k, j), and the rest stay unpaired. Pairing is
// symmetric: reverse[reverse[e]] == e. Every edge of an undirected graph
// without self-loops is paired. GPU belief-propagation drivers upload this
// array to exclude the recipient's own message.
func BPReverseEdges(g *graph.Graph) []uint32 {
	n := g.NumVertices()
	order := sortedEdgeOrder(g)
	edgeAt := func(i uint32) uint32 { // the i-th edge in target order
		if order == nil {
			return i
		}
		return order[i]
	}
	reverse := make([]uint32, g.NumEdges())
	for e := range reverse {
		reverse[e] = NoEdge
	}
	// cursor[v] walks v's adjacency in target order. Vertices u are visited
	// in increasing order, so the entries of v pointing at u come after
	// those pointing at any earlier u and the cursors only move forward:
	// O(n + m) in total.
	cursor := make([]uint32, n)
	copy(cursor, g.Offsets[:n])
	for u := uint32(0); int(u) < n; u++ {
		for i := g.Offsets[u]; i < g.Offsets[u+1]; i++ {
			e := edgeAt(i)
			v := g.Targets[e]
			if v <= u {
				continue // self-loop, or paired when v was visited
			}
			end := g.Offsets[v+1]
			for cursor[v] < end && g.Targets[edgeAt(cursor[v])] < u {
				cursor[v]++
			}
			if cursor[v] < end && g.Targets[edgeAt(cursor[v])] == u {
				r := edgeAt(cursor[v])
				reverse[e], reverse[r] = r, e
				cursor[v]++
			}
		}
	}
	return reverse
}

// sortedEdgeOrder returns nil when every adjacency is sorted by target (as
// graph.Build makes them), else the edge indices of each adjacency stably
// sorted by target.
func sortedEdgeOrder(g *graph.Graph) []uint32 {
	sorted := true
	for v := 0; v < g.NumVertices() && sorted; v++ {
		sorted = slices.IsSorted(g.Neighbors(uint32(v)))
	}
	if sorted {
		return nil
	}
	order := make([]uint32, g.NumEdges())
	for e := range order {
		order[e] = uint32(e)
	}
	for v := 0; v < g.NumVertices(); v++ {
		slices.SortStableFunc(order[g.Offsets[v]:g.Offsets[v+1]], func(a, b uint32) int {
			return int(g.Targets[a]) - int(g.Targets[b])
		})
	}
	return order
}
