package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// The hierarchical-queue scheduler (kernels/lib/hqueue.cuh; ECE 508,
// lecture 7): each push level collects its next frontier in warp-level
// queues (w-queues, W of them, thread t inserting into t % W) and a block
// queue (b-queue) in shared memory, and a CTA moves what it holds to the
// global queue (g-queue) with one atomicAdd and coalesced copies.
// Overflowing inserts fall down the hierarchy (w → b → g), so none is lost.
//
// Kernel arrangement (the lecture's "hierarchical kernels"): while the
// frontier fits a block (at most Block vertices), one CTA runs level after
// level alone, __syncthreads() between them, its frontier in shared memory
// (the local kernel, one launch for many levels); when a level's output
// overflows the b-queue the CTA flushes it to the g-queue and the host
// goes on with one multi-CTA launch per level; when a multi-CTA level's
// output fits a block again the host goes back to the single CTA.
// local=round hands over sooner: as soon as a level's output exceeds one
// vertex per thread (on rmat:scale=12 the lecture's rule kept frontiers of
// up to 2048 vertices in one CTA and doubled the simulated BFS time). The g
// variant has no b-queue, so every level is a multi-CTA launch; local=off
// makes every level a multi-CTA launch for the other variants too (to
// compare the queues alone). No kernel waits for another CTA, so nothing
// spins.
//
// W is the numeric key queues (1..32), a run-time setting: a sweep over
// W = 1…32 reuses one set of entries.
//
// Per-iteration statistics: single_cta (1 when the level ran in the
// single-CTA kernel, 0 in a multi-CTA launch), w_overflows and
// b_overflows (inserts that found their w-queue, or the b-queue, full).
// Bank conflicts are the simulator's counters (timing mode).
func init() {
	RegisterScheduler(&Scheduler{
		Name:  "hq",
		About: "hierarchical privatised frontier queues (w-queues, b-queue, g-queue); one CTA runs levels alone while the frontier fits a block",
		Keys: []Key{
			{Name: "queue", About: "wbg: w-queues, then the b-queue, then the g-queue; bg: b-queue and g-queue; g: one global atomic per insert (the baseline)",
				Values: []string{"wbg", "bg", "g"}, Default: "wbg"},
			{Name: "layout", About: "w-queue layout: interleaved (slot i of queue q at i*W+q: power-of-two strides spread over the banks) or naive (queue q contiguous: its slot i at q*capacity+i)",
				Values: []string{"interleaved", "naive"}, Default: "interleaved"},
			{Name: "local", About: "cta: one CTA runs levels alone, __syncthreads between them, from a frontier of at most one vertex per thread until a level's output overflows the b-queue (the lecture's rule); round: the same, but the CTA hands over as soon as the output exceeds one vertex per thread; off: one multi-CTA launch per level (queue=g never has a single CTA)",
				Values: []string{"cta", "round", "off"}, Default: "cta"},
			{Name: "queues", About: "warp-level queues W (1..32): thread t inserts into queue t % W",
				Default: "8", Quiet: true, Range: &KeyRange{Min: 1, Max: 32, Whole: true}},
		},
		Label: hqLabel,
		Supports: func(a *Algorithm, v Variant) error {
			if a.Combine == Aggregation {
				return fmt.Errorf("hq builds the frontiers of voting push algorithms; %s aggregates (every vertex gathers each sweep): run it under bsp or simdx", a.Name)
			}
			return nil
		},
		Prepare: hqPrepare,
		Reset:   hqReset,
		Run:     hqRun,
		Variants: []string{"hq", "hq:layout=naive", "hq:queue=bg", "hq:queue=g",
			"hq:local=off", "hq:layout=naive,local=off", "hq:queue=bg,local=off", "hq:local=round"},
	})
}

// hqLabel names a variant's entries: the layout matters only with
// w-queues, local only on the host.
func hqLabel(v Variant) string {
	if q := v.Get("queue"); q != "wbg" {
		return q
	}
	return "wbg_" + v.Get("layout")
}

// hqBQueue is the b-queue's capacity (WG_HQ_B_ENTRIES): the largest
// frontier the single-CTA kernel accepts.
const hqBQueue = 2048

// Words of the kernels' records (WG_HQ_LOG_WORDS): frontier in, frontier
// out, w-queue overflows, b-queue overflows. The push kernel adds its
// overflows to words 2 and 3 of its record and counts its output in word 1.
const (
	hqRecWords     = 4
	hqRecOut       = 1
	hqRecWOverflow = 2
	hqRecBOverflow = 3
	// hqMaxLog bounds the levels one single-CTA launch runs (and logs):
	// then it hands the frontier back and the host relaunches it.
	hqMaxLog = 4096
)

// The single-CTA kernel's outcomes (control word 1).
const (
	hqConverged  = 0
	hqHandedBack = 1
	hqLimit      = 2
	hqRefused    = 3
)

type hqState struct {
	frontier *Frontier
	// record is the push kernel's record (hqRecWords words); the output
	// length is its word hqRecOut.
	record kernels.DevPtr
	// queued holds each vertex's last claiming stamp (wg_claim_once).
	queued       kernels.DevPtr
	control, log kernels.DevPtr
	maxLog       int
}

func hqPrepare(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	b := e.Buffers
	st := &hqState{queued: b.Uint32s(n, "queued stamps"), record: b.Uint32s(hqRecWords, "hq record")}
	// The frontier buffers' own length word is unused: the record holds it.
	st.frontier = b.NewFrontier(n)
	st.maxLog = max(1, min(e.Problem.MaxIterations, hqMaxLog))
	st.control = b.Uint32s(3, "hq single-CTA control")
	st.log = b.Uint32s(hqRecWords*st.maxLog, "hq single-CTA log")
	e.State = st
	return b.Err()
}

func hqReset(e *Enactment) error {
	st := e.State.(*hqState)
	return e.resetFrontier(st.frontier, st.queued)
}

// hqTotals are a run's figures.
type hqTotals struct {
	singleLevels, multiLevels, wOverflows, bOverflows int
}

func hqRun(e *Enactment) error {
	p := e.Problem
	n := p.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	st := e.State.(*hqState)
	f := st.frontier
	push, err := e.Kernel("push")
	if err != nil {
		return err
	}
	var local *kernels.Kernel
	localMax := uint32(hqBQueue)
	if e.Variant.Get("local") == "round" {
		localMax = uint32(min(e.Options.Block, hqBQueue))
	}
	if e.Variant.Get("queue") != "g" && e.Variant.Get("local") != "off" {
		if local, err = e.Kernel("local"); err != nil {
			return err
		}
	}
	w := uint32(e.Variant.Int("queues"))
	var totals hqTotals
	defer func() {
		e.Statistic("w_queues", "w-queues (W)", float64(w), fmt.Sprint(w))
		e.Statistic("single_cta_levels", "levels run by one CTA", float64(totals.singleLevels), fmt.Sprint(totals.singleLevels))
		e.Statistic("multi_cta_levels", "levels run by multi-CTA launches", float64(totals.multiLevels), fmt.Sprint(totals.multiLevels))
		e.Statistic("w_overflows", "inserts that overflowed a w-queue", float64(totals.wOverflows), fmt.Sprint(totals.wOverflows))
		e.Statistic("b_overflows", "inserts that overflowed the b-queue", float64(totals.bOverflows), fmt.Sprint(totals.bOverflows))
	}()
	if p.Start == nil { // the first frontier: every vertex active() selects
		filter, err := e.Kernel("filter")
		if err != nil {
			return err
		}
		grid, err := e.gridStrideGrid(filter, n)
		if err != nil {
			return err
		}
		it := IterationStats{Iteration: -1, Phases: "filter"}
		e.Buffers.Zero(st.record, 4*hqRecWords, "hq record")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		args := append(e.accArgs(e.out, 0), f.Out, st.record+4*hqRecOut, st.queued)
		if err := e.launch(&it, filter, grid, args...); err != nil {
			return err
		}
		count, err := e.readCount(st.record+4*hqRecOut, n, "the filtered frontier")
		if err != nil {
			return err
		}
		it.FrontierOut = count
		e.record(it)
		f.Swap(count)
	}
	maxIterations := uint32(p.MaxIterations)
	if p.MaxIterations <= 0 {
		maxIterations = ^uint32(0)
	}
	for iteration := 0; f.Len > 0; {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		e.Buffers.Zero(st.record, 4*hqRecWords, "hq record")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		if local != nil && f.Len <= min(e.Options.Block, hqBQueue) {
			next, err := hqSingleCTA(e, st, local, iteration, w, localMax, maxIterations, &totals)
			if err != nil {
				return err
			}
			iteration = next
			continue
		}
		it := IterationStats{Iteration: iteration, Direction: "push", Phases: "push", FrontierIn: f.Len}
		grid := e.Options.Grid
		if grid == 0 {
			grid = (f.Len + e.Options.Block - 1) / e.Options.Block
		}
		args := append(e.accArgs(e.out, iteration), f.In, uint32(f.Len), f.Out, st.record+4*hqRecOut, st.queued, w, st.record)
		if err := e.launch(&it, push, grid, args...); err != nil {
			return err
		}
		var rec [hqRecWords]uint32
		if err := kernels.Download(e.Dev, rec[:], st.record); err != nil {
			return err
		}
		if int(rec[hqRecOut]) > n {
			return fmt.Errorf("iteration %d: the next frontier holds %d vertices of %d: a kernel wrote out of bounds", iteration, rec[hqRecOut], n)
		}
		hqLevelStats(&it, false, rec[hqRecWOverflow], rec[hqRecBOverflow], &totals)
		it.FrontierOut = int(rec[hqRecOut])
		e.record(it)
		f.Swap(it.FrontierOut)
		iteration++
	}
	return nil
}

// hqSingleCTA runs levels from iteration on in one CTA and records them;
// it returns the next iteration, with the frontier (if any is left) in
// st.frontier.
func hqSingleCTA(e *Enactment, st *hqState, local *kernels.Kernel, iteration int, w, localMax, maxIterations uint32, totals *hqTotals) (int, error) {
	n := e.Problem.Graph.NumVertices()
	f := st.frontier
	first := IterationStats{Iteration: iteration}
	args := append(e.accArgs(e.out, iteration), f.In, uint32(f.Len), f.Out, st.record+4*hqRecOut, st.queued,
		w, localMax, maxIterations, st.control, st.log, uint32(st.maxLog))
	if err := e.launch(&first, local, 1, args...); err != nil {
		return 0, err
	}
	var control [3]uint32
	if err := kernels.Download(e.Dev, control[:], st.control); err != nil {
		return 0, err
	}
	next, outcome, levels := int(control[0]), control[1], int(control[2])
	if outcome == hqRefused || levels > st.maxLog || next != iteration+levels {
		return 0, fmt.Errorf("iteration %d: the single-CTA kernel refused a frontier of %d vertices or reported %d levels ending at %d (outcome %d)", iteration, f.Len, levels, next, outcome)
	}
	log := make([]uint32, hqRecWords*max(levels, 1))
	if err := kernels.Download(e.Dev, log, st.log); err != nil {
		return 0, err
	}
	for i := range levels {
		rec := log[hqRecWords*i:]
		it := IterationStats{Iteration: iteration + i, Direction: "push", Phases: "local", FrontierIn: int(rec[0]), FrontierOut: int(rec[1])}
		if i == 0 { // the launch's totals go with its first level
			it.Launches, it.Stats = first.Launches, first.Stats
		}
		hqLevelStats(&it, true, rec[hqRecWOverflow], rec[hqRecBOverflow], totals)
		e.record(it)
	}
	if levels == 0 { // nothing ran (the limit was reached first): keep the launch's totals
		e.record(first)
	}
	switch outcome {
	case hqConverged:
		f.Len = 0
		return next, nil
	case hqLimit:
		return 0, fmt.Errorf("no convergence after %d iterations", next)
	case hqHandedBack:
		count, err := e.readCount(st.record+4*hqRecOut, n, "the next frontier")
		if err != nil {
			return 0, err
		}
		f.Swap(count)
		return next, nil
	}
	return 0, fmt.Errorf("iteration %d: the single-CTA kernel left with an unknown outcome %d", iteration, outcome)
}

// hqLevelStats records one level's mode and overflows.
func hqLevelStats(it *IterationStats, single bool, wOverflows, bOverflows uint32, totals *hqTotals) {
	mode := 0.0
	if single {
		mode = 1
		totals.singleLevels++
	} else {
		totals.multiLevels++
	}
	it.Set("single_cta", mode)
	it.Set("w_overflows", float64(wOverflows))
	it.Set("b_overflows", float64(bOverflows))
	it.Overflow = wOverflows+bOverflows > 0
	totals.wOverflows += int(wOverflows)
	totals.bOverflows += int(bOverflows)
}
