package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestChunksRunsEachChunkOnce runs every chunk exactly once, on one
// processor and on several, and none for zero chunks.
func TestChunksRunsEachChunkOnce(t *testing.T) {
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 3, 1000} {
			counts := make([]atomic.Int32, n)
			Chunks(n, func(c int) { counts[c].Add(1) })
			for c := range counts {
				if got := counts[c].Load(); got != 1 {
					t.Errorf("GOMAXPROCS %d, %d chunks: chunk %d ran %d times", procs, n, c, got)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}
