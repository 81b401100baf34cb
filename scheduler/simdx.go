package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// The SIMD-X scheduler (kernels/lib/simdx.cuh), host-driven form: work
// classified into small/medium/large lists by out-degree, a frontier filter
// chosen per iteration (the JIT controller runs the online filter and
// switches to ballot while thread bins overflow), and push/pull switching
// by Ligra's rule. Pulls gather over lists classified by in-degree, built
// once. Aggregation algorithms (PageRank) sweep every vertex by pulling
// until none stays active. Every phase of an iteration launches over one
// grid, sized from occupancy.
func init() {
	RegisterScheduler(&Scheduler{
		Name:  "simdx",
		About: "SIMD-X: degree-classified lists, JIT frontier filters, push/pull switching",
		Keys: []Key{
			{Name: "filter", About: "frontier filter: jit (online, ballot while bins overflow), online, ballot, batch, strided, atomic",
				Values: []string{"jit", "online", "ballot", "batch", "strided", "atomic"}, Default: "jit"},
			{Name: "direction", About: "auto: pull while the frontier's out-edges exceed the pull fraction of all edges; push: never pull",
				Values: []string{"auto", "push"}, Default: "auto"},
			{Name: "fusion", About: "none: one launch per phase, the host deciding between iterations",
				Values: []string{"none"}, Default: "none"},
		},
		Label:    func(v Variant) string { return v.Get("fusion") },
		Supports: func(a *Algorithm) error { return nil },
		Prepare:  simdxPrepare,
		Reset:    simdxReset,
		Run:      simdxRun,
		Variants: []string{"simdx", "simdx:filter=online", "simdx:filter=ballot", "simdx:filter=batch",
			"simdx:filter=strided", "simdx:filter=atomic", "simdx:direction=push"},
	})
}

// Length record words (simdx.cuh).
const (
	lenEdges    = 3
	lenOverflow = 4
	lenMaxBin   = 5
	lenActive   = 6
	lenWords    = 7
)

type simdxState struct {
	lists, lens [2]kernels.DevPtr // current and next frontier
	bins        kernels.DevPtr
	binCount    kernels.DevPtr
	ctaCounts   kernels.DevPtr
	queued      kernels.DevPtr
	// pullLists and pullLen classify every vertex by in-degree, once.
	pullLists, pullLen kernels.DevPtr
	grid               int
	cur                int
	start              [lenWords]uint32 // the start list's length record
}

func simdxPrepare(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	push, err := e.Kernel("push")
	if err != nil {
		return err
	}
	grid, err := e.gridStrideGrid(push, max(n, 1))
	if err != nil {
		return err
	}
	if e.Options.Grid == 0 { // every resident slot: large vertices take whole CTAs
		if grid, err = CoResidentGrid(e.Dev, push, e.Options.Block, 0); err != nil {
			return err
		}
	}
	b, t := e.Buffers, e.Options.Tuning
	threads := grid * e.Options.Block
	st := &simdxState{grid: grid, queued: b.Uint32s(n, "queued stamps"),
		bins: b.Uint32s(threads*t.BinSize, "thread bins"), binCount: b.Uint32s(threads, "bin counts"),
		ctaCounts: b.Uint32s(3*grid, "CTA counts")}
	for i := range 2 {
		st.lists[i] = b.Uint32s(3*n, "frontier lists")
		st.lens[i] = b.Uint32s(lenWords, "frontier lengths")
	}
	e.State = st
	if e.Problem.Pull || e.Algorithm.Pullable && e.Variant.Get("direction") == "auto" {
		if _, err := e.inEdges(); err != nil {
			return err
		}
		in := e.Problem.Graph
		if in.Directed {
			in = in.Reverse()
		}
		lists, lens := classify(in, t)
		st.pullLists = b.Copy(lists, "pull lists")
		st.pullLen = b.Copy(lens[:], "pull list lengths")
	}
	return b.Err()
}

// classify lists every vertex of g by out-degree class (the lists of
// simdx.cuh, each with room for |V|) with the lists' lengths.
func classify(g *graph.Graph, t Tuning) ([]uint32, [3]uint32) {
	n := g.NumVertices()
	lists, lens := make([]uint32, 3*n), [3]uint32{}
	for v := range n {
		c := classOf(g.OutDegree(uint32(v)), t)
		lists[c*n+int(lens[c])] = uint32(v)
		lens[c]++
	}
	return lists, lens
}

// simdxReset classifies the start list on the host (it is the input, not
// work of the algorithm).
func simdxReset(e *Enactment) error {
	st := e.State.(*simdxState)
	g, t := e.Problem.Graph, e.Options.Tuning
	n := g.NumVertices()
	st.cur, st.start = 0, [lenWords]uint32{}
	e.Buffers.Zero(st.queued, 4*n, "queued stamps")
	if e.Problem.Start == nil {
		return e.Buffers.Err()
	}
	lists := make([]uint32, 3*n)
	for _, v := range e.Problem.Start {
		d := g.OutDegree(v)
		c := classOf(d, t)
		lists[c*n+int(st.start[c])] = v
		st.start[c]++
		st.start[lenEdges] += uint32(d)
	}
	e.Buffers.Upload(st.lists[0], rawBytes(lists), "start lists")
	e.Buffers.Upload(st.lens[0], rawBytes(st.start[:]), "start lengths")
	return e.Buffers.Err()
}

func classOf(degree int, t Tuning) int {
	switch {
	case degree < t.MediumFrom:
		return 0
	case degree < t.LargeFrom:
		return 1
	}
	return 2
}

// emit modes and scan modes of simdx.cuh.
const (
	emitScan, emitAtomic, emitOnline, emitCount = 0, 1, 2, 3
)

var scanModes = map[string]uint32{"ballot": 0, "batch": 1, "strided": 2}

func simdxRun(e *Enactment) error {
	p, st, t := e.Problem, e.State.(*simdxState), e.Options.Tuning
	g := p.Graph
	n := g.NumVertices()
	if n == 0 {
		return nil
	}
	ks := map[string]*kernels.Kernel{}
	for _, phase := range []string{"push", "pull", "activate"} {
		k, err := e.Kernel(phase)
		if err != nil {
			return err
		}
		ks[phase] = k
	}
	for _, name := range []string{"simdx_gather", "simdx_scan_count", "simdx_scan_write"} {
		k, err := kernels.Lookup(name)
		if err != nil {
			return err
		}
		ks[name] = k
	}
	medium, large := uint32(t.MediumFrom), uint32(t.LargeFrom)
	if p.Pull {
		return simdxSweeps(e, st, ks["pull"], medium, large)
	}
	var length [lenWords]uint32
	readLengths := func(i int) error {
		if err := kernels.Download(e.Dev, length[:], st.lens[i]); err != nil {
			return err
		}
		for c := range 3 {
			if length[lenOverflow] == 0 && int(length[c]) > n {
				return fmt.Errorf("frontier list %d holds %d entries in a graph of %d vertices: a kernel wrote out of bounds", c, length[c], n)
			}
		}
		return nil
	}
	// scan rebuilds list i from the stamps with a scan filter; it rewrites
	// the lengths and edge count and keeps the compute phase's overflow
	// records (words 4 and 5).
	scan := func(it *IterationStats, i int, stamp uint32, mode string) error {
		e.Buffers.Zero(st.lens[i], 4*(lenEdges+1), "frontier lengths")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		if err := e.launch(it, ks["simdx_scan_count"], st.grid, e.out.offsets, uint32(n), st.queued, stamp, st.ctaCounts, scanModes[mode], medium, large); err != nil {
			return err
		}
		return e.launch(it, ks["simdx_scan_write"], st.grid, e.out.offsets, uint32(n), st.queued, stamp, st.ctaCounts, scanModes[mode], st.lists[i], st.lens[i], medium, large)
	}

	filter := e.Variant.Get("filter")
	next := filter // the filter of the coming iteration
	if filter == "jit" {
		next = "online"
	}
	if p.Start == nil { // the first frontier: the algorithm's active vertices
		it := IterationStats{Iteration: -1, Phases: "activate+ballot", Filter: "ballot"}
		if err := e.launch(&it, ks["activate"], st.grid, append(e.accArgs(e.out, 0), st.queued, uint32(1))...); err != nil {
			return err
		}
		if err := scan(&it, 0, 1, "ballot"); err != nil {
			return err
		}
		if err := readLengths(0); err != nil {
			return err
		}
		it.FrontierOut = int(length[0] + length[1] + length[2])
		e.record(it)
	} else if err := readLengths(0); err != nil {
		return err
	}
	direction := "push"
	for iteration := 0; ; iteration++ {
		size := int(length[0] + length[1] + length[2])
		if size == 0 {
			return nil
		}
		if p.MaxIterations > 0 && iteration >= p.MaxIterations {
			return fmt.Errorf("no convergence after %d iterations", iteration)
		}
		if e.Variant.Get("direction") == "auto" && e.Algorithm.Pullable {
			direction = "push"
			if float64(length[lenEdges]) > t.PullFraction*float64(g.NumEdges()) {
				direction = "pull"
			}
		}
		cur, nxt := st.cur, 1-st.cur
		stamp := uint32(iteration + 2)
		it := IterationStats{Iteration: iteration, Direction: direction, FrontierIn: size, Filter: next}
		emit := uint32(emitScan)
		switch next {
		case "online":
			emit = emitOnline
		case "atomic":
			emit = emitAtomic
		}
		e.Buffers.Zero(st.lens[nxt], 4*lenWords, "frontier lengths")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		emitArgs := []any{st.lists[nxt], st.lens[nxt], st.bins, st.binCount, st.queued, stamp, uint32(t.BinSize), emit, medium, large}
		if direction == "push" {
			args := append(e.accArgs(e.out, iteration), st.lists[cur], st.lens[cur])
			if err := e.launch(&it, ks["push"], st.grid, append(args, emitArgs...)...); err != nil {
				return err
			}
		} else {
			in, err := e.inEdges()
			if err != nil {
				return err
			}
			args := append(e.accArgs(in, iteration), e.out.offsets, st.pullLists, st.pullLen)
			if err := e.launch(&it, ks["pull"], st.grid, append(args, emitArgs...)...); err != nil {
				return err
			}
		}
		it.Phases = direction
		switch next {
		case "online":
			if err := e.launch(&it, ks["simdx_gather"], st.grid, e.out.offsets, uint32(n), st.bins, st.binCount, uint32(t.BinSize), st.lists[nxt], st.lens[nxt], medium, large); err != nil {
				return err
			}
			if err := readLengths(nxt); err != nil {
				return err
			}
			it.Phases += "+gather"
			if length[lenOverflow] != 0 { // a bin overflowed (or duplicates overfilled a list): the stamps are complete
				it.Overflow = true
				if err := scan(&it, nxt, stamp, "ballot"); err != nil {
					return err
				}
				it.Phases += "+ballot"
			}
		case "ballot", "batch", "strided":
			if err := scan(&it, nxt, stamp, next); err != nil {
				return err
			}
			it.Phases += "+" + next
		}
		if err := readLengths(nxt); err != nil {
			return err
		}
		// Word 5 is the most activations one thread recorded in the compute
		// phase: a bin of BinSize would have overflowed above it.
		if length[lenMaxBin] > uint32(t.BinSize) {
			it.Overflow = true
		}
		if filter == "jit" { // SIMD-X's controller: online unless a bin overflows
			next = "online"
			if it.Overflow {
				next = "ballot"
			}
		}
		it.FrontierOut = int(length[0] + length[1] + length[2])
		e.record(it)
		st.cur = nxt
	}
}

// simdxSweeps runs an aggregation algorithm: classified pulls over every
// vertex until a sweep leaves none active.
func simdxSweeps(e *Enactment, st *simdxState, pull *kernels.Kernel, medium, large uint32) error {
	p, n := e.Problem, e.Problem.Graph.NumVertices()
	in, err := e.inEdges()
	if err != nil {
		return err
	}
	for iteration := 0; ; iteration++ {
		if p.MaxIterations > 0 && iteration >= p.MaxIterations {
			return fmt.Errorf("no convergence after %d iterations", iteration)
		}
		it := IterationStats{Iteration: iteration, Direction: "pull", Phases: "pull", FrontierIn: n}
		e.Buffers.Zero(st.lens[0], 4*lenWords, "active count")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		args := append(e.accArgs(in, iteration), e.out.offsets, st.pullLists, st.pullLen,
			st.lists[1], st.lens[0], st.bins, st.binCount, st.queued, uint32(0), uint32(0), uint32(emitCount), medium, large)
		if err := e.launch(&it, pull, st.grid, args...); err != nil {
			return err
		}
		active, err := e.readCount(st.lens[0]+4*lenActive, n, "the active count")
		if err != nil {
			return err
		}
		it.FrontierOut = active
		e.record(it)
		if active == 0 {
			return nil
		}
	}
}
