package timing

import (
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
