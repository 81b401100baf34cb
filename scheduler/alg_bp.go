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
	return setupBPWith(g, params, nil)
}

// setupBPClassified is setupBP whose field pass (bp_field_classified)
// takes the vertices in lists by in-degree class (SIMD-X's task mapping),
// built once on the host with the variant's class bounds.
func setupBPClassified(g *graph.Graph, params Params) (*Problem, error) {
	return setupBPWith(g, params, func(e *Enactment, inOffsets []uint32) (*bpFieldPass, error) {
		k, err := kernels.Lookup("bp_field_classified")
		if err != nil {
			return nil, err
		}
		t, n := listTuningOf(e.Variant), len(inOffsets)-1
		padded, lens := classifyBy(n, func(v int) int { return int(inOffsets[v+1] - inOffsets[v]) }, t)
		lists := make([]uint32, 0, n) // the three lists end to end
		for c, l := range lens {
			lists = append(lists, padded[c*n:c*n+int(l)]...)
		}
		block := e.Options.Block
		small, medium, large := int(lens[0]), int(lens[1]), int(lens[2])
		smallBlocks, mediumBlocks := (small+block-1)/block, (medium+block/32-1)/(block/32)
		e.Notes = append(e.Notes, fmt.Sprintf("field pass by in-degree class: %d vertices a thread, %d a warp (in-degree from %d), %d a CTA (from %d)",
			small, medium, t.MediumFrom, large, t.LargeFrom))
		return &bpFieldPass{kernel: k, grid: max(1, smallBlocks+mediumBlocks+large),
			args: []any{e.Buffers.Copy(lists, "in-degree classes"), uint32(small), uint32(medium), uint32(smallBlocks), uint32(mediumBlocks)}}, nil
	})
}

// bpFieldPass is a round's field pass: its kernel, its grid and the
// arguments after (in offsets, in-edge ids, messages, log priors, field).
type bpFieldPass struct {
	kernel *kernels.Kernel
	grid   int
	args   []any
}

// setupBPWith builds belief propagation's problem; fieldPass, when not nil,
// makes the field pass on the first run (else a thread per vertex,
// bp_field).
func setupBPWith(g *graph.Graph, params Params, fieldPass func(e *Enactment, inOffsets []uint32) (*bpFieldPass, error)) (*Problem, error) {
	seed := params.Uint64("seed")
	n, m := g.NumVertices(), g.NumEdges()
	logPrior := make([]uint32, n)
	for v, p := range ref.BPPriors(n, seed) {
		logPrior[v] = math.Float32bits(float32(math.Log(p) - math.Log1p(-p)))
	}
	// The reverse CSR, each in-edge named by its forward index; self-loops
	// carry no message and are left out. And each edge's source.
	inOffsets, inEdge, source := make([]uint32, n+1), make([]uint32, 0, m), make([]uint32, m)
	for u := range n {
		for e := g.Offsets[u]; e < g.Offsets[u+1]; e++ {
			source[e] = uint32(u)
			if v := g.Targets[e]; v != uint32(u) {
				inOffsets[v+1]++
			}
		}
	}
	for v := range n {
		inOffsets[v+1] += inOffsets[v]
	}
	inEdge = inEdge[:inOffsets[n]]
	fill := append([]uint32(nil), inOffsets[:n]...)
	for e, u := range source {
		if v := g.Targets[e]; v != u {
			inEdge[fill[v]] = uint32(e)
			fill[v]++
		}
	}
	belief := Float32s("belief", make([]float32, n))
	var bufs []kernels.DevPtr // allocated on the first run
	var field *bpFieldPass
	run := func(e *Enactment) error {
		b := e.Buffers
		if bufs == nil {
			bufs = []kernels.DevPtr{b.Copy(inOffsets, "in offsets"), b.Copy(inEdge, "in-edge ids"), b.Copy(source, "edge sources"),
				b.Copy(ref.BPReverseEdges(g), "reverse edges"), b.Copy(logPrior, "log priors"), b.Uint32s(n, "field"),
				b.Uint32s(m, "messages"), b.Uint32s(m, "messages")}
			if fieldPass != nil {
				f, err := fieldPass(e, inOffsets)
				if err != nil {
					return err
				}
				field = f
			}
		}
		inOff, inEd, src, rev, prior, fieldv, msg, next := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5], bufs[6], bufs[7]
		b.Zero(msg, 4*m, "messages") // uniform: log-odds 0
		if err := b.Err(); err != nil {
			return err
		}
		kf, km, kb, err := lookup3("bp_field", "bp_messages", "bp_beliefs")
		if err != nil {
			return err
		}
		vgrid, egrid := blocks(n, e.Options.Block), blocks(m, e.Options.Block)
		fp := field
		if fp == nil {
			fp = &bpFieldPass{kernel: kf, grid: vgrid, args: []any{uint32(n)}}
		}
		for round := 0; round <= ref.BPIterations; round++ {
			it := IterationStats{Iteration: round, Phases: "field+messages", Direction: "pull", FrontierIn: n}
			if err := e.launch(&it, fp.kernel, fp.grid, append([]any{inOff, inEd, msg, prior, fieldv}, fp.args...)...); err != nil {
				return err
			}
			if round == ref.BPIterations { // the last field gives the beliefs
				it.Phases = "field+beliefs"
				if err := e.launch(&it, kb, vgrid, fieldv, belief.Ptr(), uint32(n)); err != nil {
					return err
				}
			} else if m > 0 {
				if err := e.launch(&it, km, egrid, src, e.out.targets, rev, fieldv, msg, next, uint32(m)); err != nil {
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

func lookup3(a, b, c string) (ka, kb, kc *kernels.Kernel, err error) {
	if ka, err = kernels.Lookup(a); err == nil {
		if kb, err = kernels.Lookup(b); err == nil {
			kc, err = kernels.Lookup(c)
		}
	}
	return ka, kb, kc, err
}

// blocks is the grid that covers n items with CTAs of block threads.
func blocks(n, block int) int { return max(1, (n+block-1)/block) }
