package micro

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
)

// AtomicPollers are the polling warps per CTA of atomic_poll: none (the
// workers' chains alone), one, a few, and every other warp of its 8: how
// the polls' cost grows with their number (an Atos CTA has one leader
// polling, a warp-worker SM dozens).
var AtomicPollers = []int{0, 1, 2, 3, 5, 7}

// AtomicPollLine is where atomic_poll's pollers read: the head's own
// line (word 1, as a queue's tail and pending count sit beside its head)
// or a word 4 KB away, on another line and, through the L2's hashing,
// another slice.
type AtomicPollLine struct {
	Name     string
	DoneWord int
}

// AtomicPollLines are the placements the benchmark compares, in sweep order.
var AtomicPollLines = []AtomicPollLine{{"same", 1}, {"other", 1024}}

// atomicPollBlock is 8 warps, an Atos CTA worker's size: warp 0's lane 0
// works, the next pollers warps' lane 0 poll.
const atomicPollBlock = 256

// AtomicPollCTAs is the grid that fills every SM of dev with atomic_poll's
// CTAs of 256 threads, as a persistent queue's grid does (8 per SM on the
// H100: 2048 resident threads): the co-resident limit, since the pollers
// wait for every CTA's worker.
func AtomicPollCTAs(dev kernels.Device) (int, error) {
	k, err := kernels.Lookup("atomic_poll")
	if err != nil {
		return 0, err
	}
	return scheduler.CoResidentGrid(dev, k, atomicPollBlock, 0)
}

// AtomicPoll runs atomic_poll once: ctas CTAs, each with one worker
// fetching p.Reps tickets by a chain of atomicAdd on one word and pollers
// warps reading the done count at doneWord with volatile loads. It checks
// the counters and that no poller ran out of its spin budget (budget 0:
// unbounded, for the simulator, whose deadlock detector ends a hung run).
func AtomicPoll(ctx context.Context, dev kernels.Device, ctas, pollers, doneWord int, budget uint32, p Params) (kernels.LaunchStats, error) {
	k, err := kernels.Lookup("atomic_poll")
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	switch {
	case ctas < 1:
		return kernels.LaunchStats{}, fmt.Errorf("atomic_poll: %d CTAs: need at least 1", ctas)
	case pollers < 0 || pollers >= atomicPollBlock/32:
		return kernels.LaunchStats{}, fmt.Errorf("atomic_poll: %d pollers per CTA is outside 0..%d", pollers, atomicPollBlock/32-1)
	case doneWord < 1:
		return kernels.LaunchStats{}, fmt.Errorf("atomic_poll: done word %d must be at least 1 (word 0 is the head)", doneWord)
	case p.Reps < 1:
		return kernels.LaunchStats{}, fmt.Errorf("atomic_poll: %d tickets per worker: need at least 1", p.Reps)
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	ctl, err := kernels.Copy(mem, make([]uint32, doneWord+1))
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	abort, err := kernels.Copy(mem, []uint32{0})
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	starts, err := kernels.Copy(mem, []uint32{0})
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	s, err := dev.Launch(ctx, k, p.launch(ctas, atomicPollBlock), ctl, uint32(doneWord), uint32(pollers), uint32(p.Reps),
		uint32(0), budget, abort, starts)
	if err != nil {
		return s, fmt.Errorf("atomic_poll: %w", err)
	}
	got := make([]uint32, doneWord+1)
	if err := kernels.Download(dev, got, ctl); err != nil {
		return s, err
	}
	flag := []uint32{0}
	if err := kernels.Download(dev, flag, abort); err != nil {
		return s, err
	}
	if flag[0] != 0 {
		return s, &kernels.SpinBudgetError{Kernel: "atomic_poll", Budget: budget, Detail: "a poller waited for the workers longer than its budget"}
	}
	started := []uint32{0}
	if err := kernels.Download(dev, started, starts); err != nil {
		return s, err
	}
	done, head := got[doneWord], got[0]
	if done == 0 || done%uint32(ctas) != 0 || done != started[0] || head != done*uint32(p.Reps) {
		return s, fmt.Errorf("atomic_poll: %d CTAs started, done count %d and head %d after whole launches of %d CTAs × %d tickets (want done = started, a multiple of %d, and head = done × %d)",
			started[0], done, head, ctas, p.Reps, ctas, p.Reps)
	}
	return s, nil
}
