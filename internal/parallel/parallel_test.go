package parallel

import (
	"runtime"
	"strings"
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

// TestChunksRaisesAWorkersPanicOnTheCaller recovers, on the caller's
// goroutine, a panic raised in a worker, with its value and stack.
func TestChunksRaisesAWorkersPanicOnTheCaller(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	defer func() {
		p, ok := recover().(*Panic)
		if !ok {
			t.Fatalf("recovered %T, want *Panic", p)
		}
		if p.Value != "chunk 7" || !strings.Contains(string(p.Stack), "parallel_test.go") {
			t.Errorf("value %v, stack:\n%s", p.Value, p.Stack)
		}
		if !strings.Contains(p.String(), "chunk 7") {
			t.Errorf("String() = %q", p.String())
		}
	}()
	Chunks(100, func(c int) {
		if c == 7 {
			panic("chunk 7")
		}
	})
	t.Fatal("Chunks returned after a panic")
}
