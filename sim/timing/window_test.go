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
	for helpers := 1; helpers <= 3; helpers++ {
		var p workPool
		p.start(helpers)
		counts := make([]atomic.Int32, 16)
		for round := range 3000 {
			n := round % len(counts)
			p.do(n, func(i int) { counts[i].Add(1) })
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

// TestWorkPoolOwnedRunsEachTaskOnce is TestWorkPoolRunsEachTaskOnce for
// batches whose tasks have owners (doOwned), some owned by workers the
// pool does not have (taken modulo the workers), with tasks of uneven
// length so that workers steal from each other's lists.
func TestWorkPoolOwnedRunsEachTaskOnce(t *testing.T) {
	for helpers := 1; helpers <= 3; helpers++ {
		var p workPool
		p.start(helpers)
		counts := make([]atomic.Int32, 40)
		var sink atomic.Int64
		for round := range 2000 {
			n := round % len(counts)
			owner := func(i int) int { return (i * (round%5 + 1)) % 7 }
			p.doOwned(n, func(i int) {
				for k := range (i % 4) * 200 {
					sink.Add(int64(k))
				}
				counts[i].Add(1)
			}, owner)
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
