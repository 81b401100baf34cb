package scheduler

import (
	"fmt"
	"math/bits"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// Colouring (kernels/color.cu): speculative greedy colouring on the
// symmetrised graph. Its entries are its own, not the ACC contract's:
// under bsp, rounds of assign / barrier / detect (Atos's Algorithm 5);
// under atos, the uberkernel whose tasks assign or check (Algorithm 6).
// The work is colour assignments; overwork is assignments ÷ |V| (Atos's
// Table 4).
func init() {
	RegisterAlgorithm(&Algorithm{Name: "color", About: "speculative greedy graph colouring", Kernel: "color",
		Combine: Voting, Setups: map[Form]Setup{Own: setupColorRounds, Tasks: setupColor}, CPU: cpuColor})
}

func cpuColor(g *graph.Graph, _ Params) CPUResult {
	colors := ref.GreedyColoring(g)
	used := uint32(0)
	for _, c := range colors {
		used = max(used, c+1)
	}
	return CPUResult{Validation: ref.ValidateColoring(g, colors), Method: "validity", Checked: true,
		Summary: []Field{figure("colours", "colours", float64(used), fmt.Sprint(used))}, Values: uint32Values("colour", "", colors)}
}

// setupColorRounds is colouring in rounds of assign and detect (its Own
// form).
func setupColorRounds(g *graph.Graph, params Params) (*Problem, error) {
	p, err := setupColor(g, params)
	if err == nil {
		// Rounds colour every vertex of a round at once whatever the
		// order; vertex order keeps the round's reads local.
		p.Custom = colorBSP
		for v := range p.Start {
			p.Start[v] = uint32(v)
		}
	}
	return p, err
}

// colourWarpDegree is kernels/color.cu's WG_COLOUR_WARP_DEGREE: a task of
// a vertex with this many neighbours or more is run by a whole warp (and
// from WG_COLOUR_CTA_DEGREE by a whole CTA of a CTA worker).
const colourWarpDegree = 32

// setupColor is colouring's task form: tasks that assign or check, the
// first ones in bit-reversed vertex order (bitReversedOrder). On a
// graph whose degrees stay below colourWarpDegree the color_flat entries
// run: the same tasks without the hub paths, in a kernel of fewer
// registers and so more co-resident workers (and, in rounds, the same
// assign and detect passes a thread per vertex).
func setupColor(g *graph.Graph, _ Params) (*Problem, error) {
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	n := g.NumVertices()
	meta := Uint32s("colour", filled(n, ref.Uncolored))
	module := ""
	largest := 0
	if sym.NumVertices() > 0 {
		largest = sym.OutDegree(sym.MaxDegreeVertex())
	}
	if largest < colourWarpDegree {
		module = "color_flat"
		notes = append(notes, fmt.Sprintf("largest degree %d, below %d: the task entries without the warp and CTA paths for hubs (color_flat)", largest, colourWarpDegree))
	}
	return &Problem{Graph: sym, Meta: []*Array{meta, Uint32s("queued", filled(n, 1))}, Start: bitReversedOrder(n), MaxIterations: n + 1, Notes: notes,
		Values: func() Values { return uint32Values("colour", "", meta.Uint32s()) },
		Check: func(int) (ref.Report, []Field) {
			c := meta.Uint32s()
			used := uint32(0)
			for _, x := range c {
				if x != ref.Uncolored {
					used = max(used, x+1)
				}
			}
			return ref.ValidateColoring(g, c), []Field{figure("colours", "colours", float64(used), fmt.Sprint(used))}
		},
		Work: func() (float64, string) { return float64(n), "vertices" },
		// A colouring task is short (one pass over the neighbours' colours),
		// so CTA workers pop several at once; with the first tasks in
		// bit-reversed order 128 beats 512 (results/beyond-gunrock/colour-order).
		Tasks:  TaskSettings{Fetch: 128, WorkCounted: true, ResidentCTAWorkers: true},
		Module: module,
	}, nil
}

// bitReversedOrder lists 0..n-1 in the order of their bit-reversed
// indices: vertices close in id, which on a graph stored with locality
// (a mesh's rows, a crawl's order) are often neighbours, start far apart
// in time, so fewer of them are coloured at once from the same stale
// view and clash.
func bitReversedOrder(n int) []uint32 {
	width := 0
	for 1<<width < n {
		width++
	}
	order := make([]uint32, 0, n)
	for i := 0; i < 1<<width; i++ {
		r := 0
		if width > 0 {
			r = int(bits.Reverse32(uint32(i)) >> (32 - width))
		}
		if r < n {
			order = append(order, uint32(r))
		}
	}
	return order
}

// colorBSP runs rounds of assign and detect over a frontier that starts as
// every vertex, until no vertex clashes (the module's entries: a hub taken
// by its warp, or color_flat's on graphs without hubs).
func colorBSP(e *Enactment) error {
	f := e.State.(*bspState).frontier
	n := e.Problem.Graph.NumVertices()
	assign, detect, err := lookup2(e.module()+"_bsp_base_assign", e.module()+"_bsp_base_detect")
	if err != nil {
		return err
	}
	assignments := 0
	for round := 0; f.Len > 0; round++ {
		if err := e.iterationLimit(round); err != nil {
			return err
		}
		it := IterationStats{Iteration: round, Phases: "assign+detect", Direction: "push", FrontierIn: f.Len}
		grid := (f.Len + e.Options.Block - 1) / e.Options.Block
		if err := e.launch(&it, assign, grid, append(e.accArgs(e.out, round), f.In, uint32(f.Len))...); err != nil {
			return err
		}
		e.Buffers.Zero(f.OutLen, 4, "frontier length")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		if err := e.launch(&it, detect, grid, append(e.accArgs(e.out, round), f.In, uint32(f.Len), f.Out, f.OutLen)...); err != nil {
			return err
		}
		count, err := e.readCount(f.OutLen, n, "the clashing vertices")
		if err != nil {
			return err
		}
		assignments += f.Len
		it.FrontierOut = count
		it.Set("assignments", float64(f.Len))
		e.record(it)
		f.Swap(count)
	}
	e.Statistic("assignments", "colour assignments", float64(assignments), fmt.Sprint(assignments))
	e.overwork(float64(assignments))
	return nil
}
