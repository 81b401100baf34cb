// Package parallel owns the worker pool warpgraph's packages share: a
// number of independent chunks of work spread over GOMAXPROCS goroutines.
// It imports nothing of warpgraph's own, so every package may use it.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Chunks calls work(c) once for every chunk c in [0, chunks), spreading
// the chunks over GOMAXPROCS goroutines (on the caller's goroutine when
// there is one processor or one chunk), and returns when all are done.
// Callers make each chunk's output depend only on c, never on which
// goroutine ran it or when.
func Chunks(chunks int, work func(chunk int)) {
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		for c := 0; c < chunks; c++ {
			work(c)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				work(c)
			}
		})
	}
	wg.Wait()
}
