// Package parallel owns the worker pool warpgraph's packages share: a
// number of independent chunks of work spread over GOMAXPROCS goroutines.
// It imports nothing of warpgraph's own, so every package may use it.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Chunks calls work(c) once for every chunk c in [0, chunks), spreading
// the chunks over GOMAXPROCS goroutines (on the caller's goroutine when
// there is one processor or one chunk), and returns when all are done.
// Callers make each chunk's output depend only on c, never on which
// goroutine ran it or when. A panic in work is recovered on its goroutine
// and raised again on the caller's, as a *Panic, once every worker has
// stopped: a program recovers panics on its own goroutine only.
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
	var first atomic.Pointer[Panic]
	for range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					first.CompareAndSwap(nil, &Panic{Value: r, Stack: debug.Stack()})
					next.Store(int64(chunks)) // the others stop at their next chunk
				}
			}()
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
	if p := first.Load(); p != nil {
		panic(p)
	}
}

// Panic is a worker's panic raised again on Chunks' caller: the value
// and the stack of the goroutine that panicked.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) String() string {
	return fmt.Sprintf("%v (in a worker goroutine; its stack:)\n%s", p.Value, p.Stack)
}
