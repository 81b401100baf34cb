package scheduler

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
)

// Belief propagation (kernels/bp.cu): its messages live on edges, so it is
// not an ACC algorithm; it has its own entries (Custom): per round a field
// pass over vertices and a double-buffered message pass over edges,
// graph/ref's schedule, in float32 log-odds. Under bsp (Own) the field
// pass is a thread per vertex; under simdx (Classified) it takes the
// vertices by in-degree class, a thread, a warp or a CTA each.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "bp", About: fmt.Sprintf("loopy belief propagation, %d rounds", ref.BPIterations),
		Kernel: "bp", Combine: Aggregation, Params: []Param{{Name: "seed", Kind: Uint64Param, Default: 1, About: "seed of the node priors"}},
		Setups: map[Form]Setup{Own: setupBP, Classified: setupBPClassified}, CPU: cpuBP})
}

func cpuBP(g *graph.Graph, p Params) CPUResult {
	seed := p.Uint64("seed")
	beliefs := ref.BeliefPropagation(g, seed)
	mean := 0.0
	for _, b := range beliefs {
		mean += b
	}
	if len(beliefs) > 0 {
		mean /= float64(len(beliefs))
	}
	return CPUResult{Validation: ref.CheckBeliefPropagation(g, seed, beliefs), Method: "probability-domain recomputation", Checked: true,
		Summary:    []Field{figure("mean_belief", "mean belief (state 1)", mean, fmt.Sprintf("%.6f", mean)), {Name: "priors", Value: fmt.Sprintf("from seed %d", seed)}},
		Iterations: ref.BPIterations, Values: floatValues("belief", "P(state 1)", beliefs)}
}

func setupBP(g *graph.Graph, params Params) (*Problem, error) {
	return setupBPWith(g, params, false)
}

// setupBPClassified is setupBP with its messages in in-slot order and its
// field pass (bp_field_classified) taking the vertices in lists by
// in-degree class (SIMD-X's task mapping), built once on the host with the
// variant's class bounds.
func setupBPClassified(g *graph.Graph, params Params) (*Problem, error) {
	return setupBPWith(g, params, true)
}

// bpLayout is the reverse CSR that both forms' field passes read: each
// vertex's in-edges (self-loops left out, as they carry no message), and
// for each the forward edge it is.
type bpLayout struct {
	inOffsets, inEdge, source []uint32 // source: each forward edge's tail
}

func newBPLayout(g *graph.Graph) bpLayout {
	n, m := g.NumVertices(), g.NumEdges()
	l := bpLayout{inOffsets: make([]uint32, n+1), source: make([]uint32, m)}
	for u := range n {
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			l.source[e] = uint32(u)
			if v := g.Targets[e]; v != uint32(u) {
				l.inOffsets[v+1]++
			}
		}
	}
	for v := range n {
		l.inOffsets[v+1] += l.inOffsets[v]
	}
	l.inEdge = make([]uint32, l.inOffsets[n])
	fill := append([]uint32(nil), l.inOffsets[:n]...)
	for e, u := range l.source {
		if v := g.Targets[e]; v != u {
			l.inEdge[fill[v]] = uint32(e)
			fill[v]++
		}
	}
	return l
}

// bySlot returns, for each in-slot s, the tail of the edge it holds and the
// slot of that edge's paired reverse edge (ref.NoEdge when it has none).
func (l bpLayout) bySlot(reverse []uint32) (slotSource, slotReverse []uint32) {
	slotOf := make([]uint32, len(l.source))
	for s, e := range l.inEdge {
		slotOf[e] = uint32(s)
	}
	slotSource, slotReverse = make([]uint32, len(l.inEdge)), make([]uint32, len(l.inEdge))
	for s, e := range l.inEdge {
		slotSource[s], slotReverse[s] = l.source[e], ref.NoEdge
		if r := reverse[e]; r != ref.NoEdge {
			slotReverse[s] = slotOf[r]
		}
	}
	return slotSource, slotReverse
}

// bpPass is one of a round's launches: its kernel, grid and arguments.
type bpPass struct {
	kernel *kernels.Kernel
	grid   int
	args   []any
}

// bpPasses is a form's field and message passes, made on the first run;
// the message pass's arguments end with the messages read and written,
// which swap after every round.
type bpPasses struct {
	field, messages bpPass
	msg, next       kernels.DevPtr
	messageWords    int
	fieldv          kernels.DevPtr
}

// setupBPWith builds belief propagation's problem. Own: messages in
// forward-edge order, a thread per vertex (bp_field) and per edge
// (bp_messages). Classified: messages in in-slot order, the field pass by
// in-degree class (bp_field_classified) and a thread per in-slot
// (bp_messages_by_slot).
func setupBPWith(g *graph.Graph, params Params, classified bool) (*Problem, error) {
	seed := params.Uint64("seed")
	n := g.NumVertices()
	logPrior := make([]uint32, n)
	for v, p := range ref.BPPriors(n, seed) {
		logPrior[v] = math.Float32bits(float32(math.Log(p) - math.Log1p(-p)))
	}
	layout := newBPLayout(g)
	belief := Float32s("belief", make([]float32, n))
	var passes *bpPasses // made on the first run
	run := func(e *Enactment) error {
		if passes == nil {
			p, err := makeBPPasses(e, g, layout, logPrior, classified)
			if err != nil {
				return err
			}
			passes = p
		}
		b := e.Buffers
		msg, next := passes.msg, passes.next
		b.Zero(msg, 4*passes.messageWords, "messages") // uniform: log-odds 0
		if err := b.Err(); err != nil {
			return err
		}
		kb, err := kernels.Lookup("bp_beliefs")
		if err != nil {
			return err
		}
		fp, mp := passes.field, passes.messages
		for round := 0; round <= ref.BPIterations; round++ {
			it := IterationStats{Iteration: round, Phases: "field+messages", Direction: "pull", FrontierIn: n}
			if err := e.launch(&it, fp.kernel, fp.grid, bpArgs(fp.args, msg)...); err != nil {
				return err
			}
			if round == ref.BPIterations { // the last field gives the beliefs
				it.Phases = "field+beliefs"
				if err := e.launch(&it, kb, blocks(n, e.Options.Block), passes.fieldv, belief.Ptr(), uint32(n)); err != nil {
					return err
				}
			} else if passes.messageWords > 0 {
				if err := e.launch(&it, mp.kernel, mp.grid, bpArgs(mp.args, msg, next)...); err != nil {
					return err
				}
				msg, next = next, msg
			}
			e.record(it)
		}
		return nil
	}
	return &Problem{Graph: g, Meta: []*Array{belief}, Custom: run, MaxIterations: ref.BPIterations + 1,
		Values: func() Values { return floatValues("belief", "P(state 1)", belief.Float32s()) },
		Notes:  []string{fmt.Sprintf("float32 log-odds with approximate exp/log; priors from seed %d", seed)},
		Check: func(int) (ref.Report, []Field) {
			got := belief.Float32s()
			mean := 0.0
			for _, x := range got {
				mean += float64(x)
			}
			if len(got) > 0 {
				mean /= float64(len(got))
			}
			return ref.ValidateBeliefs(g, seed, got), []Field{figure("mean_belief", "mean belief (state 1)", mean, fmt.Sprintf("%.6f", mean))}
		}}, nil
}

// bpMessagesSlot marks where a pass's arguments take the messages read
// (and, after it, those written) of the round.
type bpMessagesSlot struct{}

// bpArgs fills a pass's bpMessagesSlot with the round's message buffers.
func bpArgs(args []any, buffers ...kernels.DevPtr) []any {
	out := make([]any, 0, len(args)+len(buffers))
	for _, a := range args {
		if _, ok := a.(bpMessagesSlot); ok {
			for _, p := range buffers {
				out = append(out, p)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// makeBPPasses copies the form's arrays to the device and lays out its two
// passes.
func makeBPPasses(e *Enactment, g *graph.Graph, l bpLayout, logPrior []uint32, classified bool) (*bpPasses, error) {
	b, n, m := e.Buffers, g.NumVertices(), g.NumEdges()
	reverse := ref.BPReverseEdges(g)
	if !classified {
		kf, km, err := lookup2("bp_field", "bp_messages")
		if err != nil {
			return nil, err
		}
		inOff, inEdge, src, rev := b.Copy(l.inOffsets, "in offsets"), b.Copy(l.inEdge, "in-edge ids"), b.Copy(l.source, "edge sources"),
			b.Copy(reverse, "reverse edges")
		prior, fieldv := b.Copy(logPrior, "log priors"), b.Uint32s(n, "field")
		return &bpPasses{fieldv: fieldv, messageWords: m, msg: b.Uint32s(m, "messages"), next: b.Uint32s(m, "messages"),
			field: bpPass{kernel: kf, grid: blocks(n, e.Options.Block),
				args: []any{inOff, inEdge, bpMessagesSlot{}, prior, fieldv, uint32(n)}},
			messages: bpPass{kernel: km, grid: blocks(m, e.Options.Block),
				args: []any{src, e.out.targets, rev, fieldv, bpMessagesSlot{}, uint32(m)}}}, nil
	}
	kf, km, err := lookup2("bp_field_classified", "bp_messages_by_slot")
	if err != nil {
		return nil, err
	}
	inOff, prior, fieldv := b.Copy(l.inOffsets, "in offsets"), b.Copy(logPrior, "log priors"), b.Uint32s(n, "field")
	t := listTuningOf(e.Variant)
	padded, lens := classifyBy(n, func(v int) int { return int(l.inOffsets[v+1] - l.inOffsets[v]) }, t)
	lists := make([]uint32, 0, n) // the three lists end to end
	for c, k := range lens {
		lists = append(lists, padded[c*n:c*n+int(k)]...)
	}
	block := e.Options.Block
	small, medium, large := int(lens[0]), int(lens[1]), int(lens[2])
	smallBlocks, mediumBlocks := (small+block-1)/block, (medium+block/32-1)/(block/32)
	e.Notes = append(e.Notes, fmt.Sprintf("field pass by in-degree class: %d vertices a thread, %d a warp (in-degree from %d), %d a CTA (from %d)",
		small, medium, t.MediumFrom, large, t.LargeFrom))
	slotSource, slotReverse := l.bySlot(reverse)
	slots := len(l.inEdge)
	return &bpPasses{fieldv: fieldv, messageWords: slots, msg: b.Uint32s(slots, "messages"), next: b.Uint32s(slots, "messages"),
		field: bpPass{kernel: kf, grid: max(1, smallBlocks+mediumBlocks+large),
			args: []any{inOff, bpMessagesSlot{}, prior, fieldv, b.Copy(lists, "in-degree classes"),
				uint32(small), uint32(medium), uint32(smallBlocks), uint32(mediumBlocks)}},
		messages: bpPass{kernel: km, grid: blocks(slots, block),
			args: []any{b.Copy(slotSource, "slot sources"), b.Copy(slotReverse, "slot reverse edges"), fieldv, bpMessagesSlot{}, uint32(slots)}}}, nil
}

func lookup2(a, b string) (ka, kb *kernels.Kernel, err error) {
	if ka, err = kernels.Lookup(a); err == nil {
		kb, err = kernels.Lookup(b)
	}
	return ka, kb, err
}

// blocks is the grid that covers n items with CTAs of block threads.
func blocks(n, block int) int { return max(1, (n+block-1)/block) }
