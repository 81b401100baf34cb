package scheduler

import "github.com/warpgraph/warpgraph/kernels"

// The bulk-synchronous scheduler (kernels/lib/bsp.cuh): one launch per
// iteration, the host reading the next frontier's size in between. Voting
// algorithms push from a frontier of active vertices (the filter phase
// builds the first one when the problem has no start list); aggregation
// algorithms sweep every vertex, pulling over in-edges, until no vertex is
// active.
// DefaultVariant is the variant a run takes when none is named.
const DefaultVariant = "bsp"

func init() {
	RegisterScheduler(&Scheduler{
		Name:     "bsp",
		About:    "bulk-synchronous: one launch per iteration, a thread per vertex, host-driven loop",
		Prepare:  bspPrepare,
		Reset:    bspReset,
		Run:      bspRun,
		Variants: []string{"bsp"},
		Forms:    []Form{Own, ACC},
		Offers:   map[Capability]func(Variant) error{Buckets: func(Variant) error { return nil }},
	})
}

type bspState struct {
	frontier *Frontier
	// queued holds, per vertex, the stamp of the last iteration that
	// queued it (kernels/lib/frontier.cuh, wg_claim_once).
	queued kernels.DevPtr
}

func bspPrepare(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	b := e.Buffers
	st := &bspState{frontier: b.NewFrontier(n), queued: b.Uint32s(n, "queued stamps")}
	e.State = st
	e.bucketNote()
	if e.Problem.Pull {
		if _, err := e.inEdges(); err != nil {
			return err
		}
	}
	return b.Err()
}

func bspReset(e *Enactment) error {
	st := e.State.(*bspState)
	if err := e.resetFrontier(st.frontier, st.queued); err != nil {
		return err
	}
	return e.startBuckets()
}

func bspRun(e *Enactment) error {
	p := e.Problem
	n := p.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	if p.Custom != nil {
		return p.Custom(e)
	}
	if p.Pull {
		return bspPull(e, n)
	}
	st := e.State.(*bspState)
	f := st.frontier
	queued := st.queued
	push, err := e.Kernel("push")
	if err != nil {
		return err
	}
	// filter lists the vertices active() selects (stamping them
	// iteration+1, a stamp no push of this iteration claims with): the
	// first frontier, or a bucket's admission pass.
	filter := func(it *IterationStats, iteration int) (int, error) {
		k, err := e.Kernel("filter")
		if err != nil {
			return 0, err
		}
		grid, err := e.gridStrideGrid(k, n)
		if err != nil {
			return 0, err
		}
		e.Buffers.Zero(f.OutLen, 4, "frontier length")
		if err := e.Buffers.Err(); err != nil {
			return 0, err
		}
		if err := e.launch(it, k, grid, append(e.accArgs(e.out, iteration), f.Out, f.OutLen, queued)...); err != nil {
			return 0, err
		}
		count, err := e.readCount(f.OutLen, n, "the filtered frontier")
		if err != nil {
			return 0, err
		}
		f.Swap(count)
		return count, nil
	}
	bound := p.bucketStart()
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		it := IterationStats{Iteration: iteration, Direction: "push"}
		if iteration == 0 && p.Start == nil {
			first, err := filter(&it, iteration)
			if err != nil {
				return err
			}
			it.Phases = "filter+"
			if first == 0 { // the first bucket holds no vertex: admit the next that does
				if _, err := e.nextBucket(iteration, &bound, func(it *IterationStats) (int, error) { return filter(it, iteration) }); err != nil {
					return err
				}
			}
		}
		it.Phases += "push"
		it.FrontierIn = f.Len
		if f.Len == 0 {
			e.record(it)
			return nil
		}
		e.Buffers.Zero(f.OutLen, 4, "frontier length")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		grid := (f.Len + e.Options.Block - 1) / e.Options.Block
		args := append(e.accArgs(e.out, iteration), f.In, uint32(f.Len), f.Out, f.OutLen, queued)
		if err := e.launch(&it, push, grid, args...); err != nil {
			return err
		}
		count, err := e.readCount(f.OutLen, n, "the next frontier")
		if err != nil {
			return err
		}
		it.FrontierOut = count
		e.record(it)
		f.Swap(count)
		if count == 0 {
			admitted, err := e.nextBucket(iteration+1, &bound, func(it *IterationStats) (int, error) { return filter(it, iteration+1) })
			if err != nil || admitted == 0 {
				return err
			}
		}
	}
}

// bspPull sweeps every vertex each iteration until none stays active.
func bspPull(e *Enactment, n int) error {
	f := e.State.(*bspState).frontier
	in, err := e.inEdges()
	if err != nil {
		return err
	}
	pull, err := e.Kernel("pull")
	if err != nil {
		return err
	}
	grid, err := e.gridStrideGrid(pull, n)
	if err != nil {
		return err
	}
	return e.sweepUntilQuiet(func(it *IterationStats) (int, error) {
		e.Buffers.Zero(f.OutLen, 4, "active count")
		if err := e.Buffers.Err(); err != nil {
			return 0, err
		}
		args := append(e.accArgs(in, it.Iteration), f.Out, f.OutLen)
		if err := e.launch(it, pull, grid, args...); err != nil {
			return 0, err
		}
		return e.readCount(f.OutLen, n, "the active count")
	})
}
