package timing

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestWorkPoolRunsEachTaskOnce runs many batches of tasks, of every size
// from 0 to more than the goroutines, on pools of 1 to 3 helpers (run it
// with -race): every task of every batch runs exactly once, and do
// returns only when all have.
func TestWorkPoolRunsEachTaskOnce(t *testing.T) {
	checkEachTaskOnce(t, 16, 3000, func(p *workPool, _, n int, run func(int)) { p.do(n, run) })
}

// TestWorkPoolOwnedRunsEachTaskOnce is the same for batches whose tasks
// have owners (doOwned), some owned by workers the pool does not have
// (taken modulo the workers), with tasks of uneven length so that workers
// steal from each other's lists.
func TestWorkPoolOwnedRunsEachTaskOnce(t *testing.T) {
	var sink atomic.Int64
	checkEachTaskOnce(t, 40, 2000, func(p *workPool, round, n int, run func(int)) {
		owner := func(i int) int { return (i * (round%5 + 1)) % 7 }
		p.doOwned(n, func(i int) {
			for k := range (i % 4) * 200 {
				sink.Add(int64(k))
			}
			run(i)
		}, owner)
	})
}

// checkEachTaskOnce runs rounds batches of round % tasks tasks through
// batch on pools of 1 to 3 helpers and checks that each task of each ran
// exactly once by the time batch returned.
func checkEachTaskOnce(t *testing.T, tasks, rounds int, batch func(p *workPool, round, n int, run func(int))) {
	t.Helper()
	for helpers := 1; helpers <= 3; helpers++ {
		var p workPool
		p.start(helpers)
		counts := make([]atomic.Int32, tasks)
		for round := range rounds {
			n := round % len(counts)
			batch(&p, round, n, func(i int) { counts[i].Add(1) })
			for i := range counts {
				want := int32(0)
				if i < n {
					want = 1
				}
				if got := counts[i].Swap(0); got != want {
					t.Fatalf("%d helpers, batch %d of %d tasks: task %d ran %d times", helpers, round, n, i, got)
				}
			}
		}
		p.stop()
	}
}

// BenchmarkWorkPoolOwnedBatch is the cost of a window's hand-off alone: a
// batch of 150 empty tasks (about a window's SMs and L2 groups) dealt to
// the caller and helpers, each taking its own and then stealing.
func BenchmarkWorkPoolOwnedBatch(b *testing.B) {
	for _, helpers := range []int{1, 3} {
		b.Run(fmt.Sprintf("helpers=%d", helpers), func(b *testing.B) {
			var p workPool
			p.start(helpers)
			defer p.stop()
			owner := func(i int) int { return i % (helpers + 1) }
			for b.Loop() {
				p.doOwned(150, func(int) {}, owner)
			}
		})
	}
}
