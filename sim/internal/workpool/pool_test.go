package workpool

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// TestPoolRunsEachTaskOnce runs many batches of tasks, of every size
// from 0 to more than the goroutines, on pools of 1 to 3 helpers (run it
// with -race): every task of every batch runs exactly once, and Do
// returns only when all have.
func TestPoolRunsEachTaskOnce(t *testing.T) {
	checkEachTaskOnce(t, 16, 3000, func(p *Pool, _, n int, run func(int)) { p.Do(n, run) })
}

// TestPoolOwnedRunsEachTaskOnce is the same for batches whose tasks
// have owners (DoOwned), some owned by workers the pool does not have
// (taken modulo the workers), with tasks of uneven length so that workers
// steal from each other's lists.
func TestPoolOwnedRunsEachTaskOnce(t *testing.T) {
	var sink atomic.Int64
	checkEachTaskOnce(t, 40, 2000, func(p *Pool, round, n int, run func(int)) {
		owner := func(i int) int { return (i * (round%5 + 1)) % 7 }
		p.DoOwned(n, func(i int) {
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
func checkEachTaskOnce(t *testing.T, tasks, rounds int, batch func(p *Pool, round, n int, run func(int))) {
	t.Helper()
	for helpers := 1; helpers <= 3; helpers++ {
		var p Pool
		p.Start(helpers)
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
		p.Stop()
	}
}

// BenchmarkPoolOwnedBatch is the cost of a batch's hand-off alone: a
// batch of 150 empty tasks (about a window's SMs and L2 groups) dealt to
// the caller and helpers, each taking its own and then stealing.
func BenchmarkPoolOwnedBatch(b *testing.B) {
	for _, helpers := range []int{1, 3} {
		b.Run(fmt.Sprintf("helpers=%d", helpers), func(b *testing.B) {
			var p Pool
			p.Start(helpers)
			defer p.Stop()
			owner := func(i int) int { return i % (helpers + 1) }
			for b.Loop() {
				p.DoOwned(150, func(int) {}, owner)
			}
		})
	}
}
