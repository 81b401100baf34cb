package ref

import (
	"fmt"
	"math"
	"slices"

	"github.com/warpgraph/warpgraph/graph"
)

// BeliefPropagationProbability computes what BeliefPropagationWithPriors
// computes — the same model, schedule and pairing of reverse edges — by an
// independent route, so that each can check the other: a distribution is
// held as its odds P(1)/P(0), a product of distributions is multiplied out
// (in a mantissa and a binary exponent, so a hub's thousands of factors
// neither overflow nor underflow) rather than summed as log-odds, the
// message that excludes the recipient's own message is a product of prefix
// and suffix products rather than a subtraction, reverse edges are paired by
// merging each vertex's in- and out-lists rather than by BPReverseEdges, and
// it runs serially. It costs O(n + m) memory beyond the graph's own.
func BeliefPropagationProbability(g *graph.Graph, priors []float64) ([]float64, error) {
	n := g.NumVertices()
	if len(priors) != n {
		return nil, fmt.Errorf("ref: belief propagation got %d priors for %d vertices", len(priors), n)
	}
	for v, p := range priors {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("ref: belief propagation prior of vertex %d is %v, not a probability", v, p)
		}
	}
	in := incomingMessages(g)
	partner := pairByMerge(g, in)
	messages := make([]float64, g.NumEdges()) // odds of x_target = 1 per stored edge
	for e := range messages {
		messages[e] = 1
	}
	next := make([]float64, len(messages))
	var prefix []scaledOdds
	for round := 0; round < BPIterations; round++ {
		copy(next, messages) // self-loops keep their (unused) value
		for u := range n {
			into := in.edges[in.offsets[u]:in.offsets[u+1]]
			// prefix[i] is prior_u times the first i incoming messages;
			// the suffix is folded in while walking back, so the message
			// that leaves out incoming message i is prefix[i] * suffix.
			prefix = append(prefix[:0], oddsOf(priors[u]))
			for _, f := range into {
				prefix = append(prefix, prefix[len(prefix)-1].times(messages[f]))
			}
			// Messages along unpaired out-edges exclude nothing.
			all := prefix[len(into)]
			for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
				if g.Targets[e] != uint32(u) && partner[e] == NoEdge {
					next[e] = all.throughPotential()
				}
			}
			suffix := scaledOdds{frac: 1} // odds 1, the neutral factor
			for i := len(into) - 1; i >= 0; i-- {
				f := into[i] // an edge w->u; its partner u->w receives the cavity
				if r := partner[f]; r != NoEdge {
					next[r] = prefix[i].timesScaled(suffix).throughPotential()
				}
				suffix = suffix.times(messages[f])
			}
		}
		messages, next = next, messages
	}
	beliefs := make([]float64, n)
	for v := range n {
		b := oddsOf(priors[v])
		for _, f := range in.edges[in.offsets[v]:in.offsets[v+1]] {
			b = b.times(messages[f])
		}
		beliefs[v] = b.probability()
	}
	return beliefs, nil
}

// scaledOdds is odds frac * 2^exp (or 0 or +Inf for a certain prior):
// the exponent grows without bound, so a product of any number of factors
// keeps its precision. frac is a plain float64 kept within 2^±rescaleAt,
// renormalised by math.Frexp only when a product leaves that range, so
// most factors cost one multiplication.
type scaledOdds struct {
	frac float64
	exp  int
}

const rescaleAt = 512

var rescaleHi, rescaleLo = math.Ldexp(1, rescaleAt), math.Ldexp(1, -rescaleAt)

// oddsOf is the odds of a distribution with P(1) = p.
func oddsOf(p float64) scaledOdds {
	return scaledOdds{p / (1 - p), 0}.rescaled()
}

func (s scaledOdds) rescaled() scaledOdds {
	if s.frac != 0 && (s.frac > rescaleHi || s.frac < rescaleLo) {
		frac, exp := math.Frexp(s.frac)
		return scaledOdds{frac, s.exp + exp}
	}
	return s
}

func (s scaledOdds) times(odds float64) scaledOdds {
	return scaledOdds{s.frac * odds, s.exp}.rescaled()
}

func (s scaledOdds) timesScaled(t scaledOdds) scaledOdds {
	return scaledOdds{s.frac * t.frac, s.exp + t.exp}.rescaled()
}

// Beyond odds 2^oddsSaturationExp (about 1e30) the message through the
// potential equals a/b to the last bit, and so on the other side.
const oddsSaturationExp = 100

// throughPotential sends a sender's distribution, odds r, through the edge
// potential psi: the recipient's odds are (b + a*r) / (a + b*r) with
// a = psi(x, x), b = psi(x, y).
func (s scaledOdds) throughPotential() float64 {
	const a, b = BPSameState, 1 - BPSameState
	if !math.IsInf(s.frac, 0) {
		frac, exp := math.Frexp(s.frac)
		s = scaledOdds{frac, s.exp + exp}
	}
	switch {
	case s.frac == 0 || s.exp < -oddsSaturationExp:
		return b / a
	case math.IsInf(s.frac, 1) || s.exp > oddsSaturationExp:
		return a / b
	}
	r := math.Ldexp(s.frac, s.exp)
	return (b + a*r) / (a + b*r)
}

// probability is P(1) = 1 / (1 + 1/odds), which is 1 for infinite odds
// and 0 for zero odds without a NaN.
func (s scaledOdds) probability() float64 {
	return 1 / (1 + 1/math.Ldexp(s.frac, s.exp))
}

// edgeLists is a CSR of edge indices: the edges of vertex v are
// edges[offsets[v]:offsets[v+1]].
type edgeLists struct {
	offsets []uint32
	edges   []uint32
}

// incomingMessages lists, for each vertex, the stored edges into it that
// carry a message (every edge but self-loops), ordered by source and then
// by edge index.
func incomingMessages(g *graph.Graph) edgeLists {
	n := g.NumVertices()
	l := edgeLists{offsets: make([]uint32, n+1)}
	for u := range n {
		for _, v := range g.Targets[g.Offsets[u]:g.Offsets[u+1]] {
			if v != uint32(u) {
				l.offsets[v+1]++
			}
		}
	}
	for v := range n {
		l.offsets[v+1] += l.offsets[v]
	}
	l.edges = make([]uint32, l.offsets[n])
	fill := slices.Clone(l.offsets[:n])
	for u := range n { // sources in increasing order, edges in storage order
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			if v := g.Targets[e]; v != uint32(u) {
				l.edges[fill[v]] = e
				fill[v]++
			}
		}
	}
	return l
}

// pairByMerge pairs edges as BPReverseEdges documents (the i-th copy of
// u->w with the i-th copy of w->u, in storage order) by merging, for each
// vertex u, its out-edges sorted by target with its incoming edges sorted
// by source: both lists are ordered by the neighbour w, so equal
// neighbours meet in one pass.
func pairByMerge(g *graph.Graph, in edgeLists) []uint32 {
	partner := make([]uint32, g.NumEdges())
	for e := range partner {
		partner[e] = NoEdge
	}
	edgeSource := make([]uint32, g.NumEdges())
	for u := range g.NumVertices() {
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			edgeSource[e] = uint32(u)
		}
	}
	var out []uint32
	for u := range g.NumVertices() {
		out = out[:0]
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			if g.Targets[e] != uint32(u) {
				out = append(out, e)
			}
		}
		slices.SortStableFunc(out, func(a, b uint32) int { return int(g.Targets[a]) - int(g.Targets[b]) })
		into := in.edges[in.offsets[u]:in.offsets[u+1]]
		for i, j := 0, 0; i < len(out) && j < len(into); {
			w, x := g.Targets[out[i]], edgeSource[into[j]]
			switch {
			case w < x:
				i++
			case w > x:
				j++
			default:
				partner[out[i]] = into[j]
				i, j = i+1, j+1
			}
		}
	}
	return partner
}

// CheckBeliefPropagation checks beliefs that claim to be BeliefPropagation's
// for the given seed against BeliefPropagationProbability, which shares no
// arithmetic with it, within BPCrossCheckTolerance per vertex. It is the
// independent check of the CPU reference's own result.
func CheckBeliefPropagation(g *graph.Graph, seed uint64, beliefs []float64) Report {
	const algorithm = "belief propagation (probability domain)"
	tolerance := fmt.Sprintf("absolute %g per vertex", BPCrossCheckTolerance)
	if len(beliefs) != g.NumVertices() {
		return faulty(algorithm, tolerance, "result has %d entries for %d vertices", len(beliefs), g.NumVertices())
	}
	want, err := BeliefPropagationProbability(g, BPPriors(g.NumVertices(), seed))
	if err != nil {
		return faulty(algorithm, tolerance, "%v", err)
	}
	return compareFloat(algorithm, tolerance, want, beliefs, false, BPCrossCheckTolerance)
}

// BPCrossCheckTolerance bounds the per-vertex difference between the
// log-odds and probability forms in float64: both round differently at
// every step of 10 rounds, but neither loses more than a few ulps of
// relative precision per step.
const BPCrossCheckTolerance = 1e-9
