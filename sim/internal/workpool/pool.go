// Package workpool owns the simulator's pool of spinning helper
// goroutines: it runs short batches of tasks (the timing engine's
// windows, functional execution's rounds) on the caller and its helpers,
// each task once, and returns when all are done.
package workpool

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs batches of tasks on helper goroutines and the caller's. A
// batch (a timing window, a functional round) is a few microseconds of
// work, about what waking a parked goroutine takes, so the helpers and
// the caller spin for a while before they park: long enough to catch the
// next batch on an idle host, short enough to let others run on a busy
// one.
type Pool struct {
	cur  atomic.Pointer[batch]
	quit atomic.Bool

	parked []atomic.Bool
	wake   []chan struct{}
	exited sync.WaitGroup

	// callerParked: the caller waits for the batch's last task on done.
	callerParked atomic.Bool
	done         chan struct{}

	// spin is how long a wait spins before it parks, in nanoseconds
	// (noteBatch), from gap, the mean time from one batch to the next,
	// which lastBatch began.
	spin      atomic.Int64
	gap       time.Duration
	lastBatch time.Time
}

// batch is one call of Pool.Do or DoOwned: a helper that comes late
// to one only finds its tasks taken.
type batch struct {
	next     atomic.Int64 // the next task to take (do)
	finished atomic.Int64 // tasks finished, added once per worker
	n        int
	run      func(int)
	// DoOwned: each worker's tasks, in order, are order[start[w]:start[w+1]]
	// (computed when the batch is made, so that a helper late to it reads
	// nothing the next window changes), and cursors[w] counts those taken
	// (paddedCursor.claim). A worker runs its own, then takes those still
	// waiting in the other workers' lists. Each list's cursor has a cache
	// line of its own, so that the workers claim their own tasks without
	// touching each other's lines until they steal, and each adds the
	// tasks it ran to finished once, when none is left to take.
	order   []int32
	start   []int32
	cursors []paddedCursor
}

// paddedCursor is a list's cursor on a cache line of its own.
type paddedCursor struct {
	atomic.Int64
	_ [56]byte
}

// spinMin and spinMax bound how long a helper looks for work, or the
// caller for the end of a batch, before it parks: a window's end takes some
// microseconds, and waking a parked goroutine about as long again, or far
// longer where the host's scheduler is slow to run it. Between the bounds
// the wait follows twice the recent time from one batch to the next, so
// that a helper that finished its tasks early in a long window (a
// PageRank sweep's) is still spinning when the next begins. On a host whose
// cores are busy with other work, the spinning takes time from it and a
// descheduled goroutine holds up every window: give the engine no more
// threads than free cores.
const (
	spinMin = 100 * time.Microsecond
	spinMax = time.Millisecond
)

// spinning says whether a wait that began at start (zero: not yet
// looked at) should go on spinning at round k, for at most limit.
func spinning(start *time.Time, k int, limit time.Duration) bool {
	if k&127 != 0 {
		return true
	}
	now := time.Now()
	if start.IsZero() {
		*start = now
		return true
	}
	return now.Sub(*start) < limit
}

// spinLimit is how long the pool's waits spin now.
func (p *Pool) spinLimit() time.Duration { return time.Duration(p.spin.Load()) }

// noteBatch updates the spin limit from the time since the last batch
// began (the caller calls it as each begins).
func (p *Pool) noteBatch() {
	now := time.Now()
	if !p.lastBatch.IsZero() {
		gap := now.Sub(p.lastBatch)
		p.gap = (3*p.gap + gap) / 4
		p.spin.Store(int64(min(max(2*p.gap, spinMin), spinMax)))
	}
	p.lastBatch = now
}

// Start starts helpers goroutines; Stop ends them.
func (p *Pool) Start(helpers int) {
	p.quit.Store(false)
	p.cur.Store(nil)
	p.parked = make([]atomic.Bool, helpers)
	p.wake = make([]chan struct{}, helpers)
	p.done = make(chan struct{}, 1)
	p.spin.Store(int64(spinMin))
	p.gap, p.lastBatch = 0, time.Time{}
	for i := range helpers {
		p.wake[i] = make(chan struct{}, 1)
		p.exited.Add(1)
		go p.helper(i)
	}
}

func (p *Pool) helper(i int) {
	worker := i + 1
	defer p.exited.Done()
	seen := p.cur.Load()
	for {
		var since time.Time
		for k := 0; p.cur.Load() == seen; k++ {
			if p.quit.Load() {
				return
			}
			if !spinning(&since, k, p.spinLimit()) {
				p.parked[i].Store(true)
				if p.cur.Load() == seen && !p.quit.Load() {
					<-p.wake[i]
				}
				p.parked[i].Store(false)
				k, since = 0, time.Time{}
			}
		}
		seen = p.cur.Load()
		if seen.work(worker) && p.callerParked.Load() {
			select {
			case p.done <- struct{}{}:
			default:
			}
		}
	}
}

// Stop ends the helpers.
func (p *Pool) Stop() {
	p.quit.Store(true)
	p.signal()
	p.exited.Wait()
	p.wake, p.parked = nil, nil
}

// signal wakes the parked helpers.
func (p *Pool) signal() {
	for i := range p.wake {
		if p.parked[i].Load() {
			select {
			case p.wake[i] <- struct{}{}:
			default:
			}
		}
	}
}

// Do runs run(0) to run(n-1), each once, and returns when all are done.
func (p *Pool) Do(n int, run func(int)) { p.DoOwned(n, run, nil) }

// DoOwned is Do with each task i run first by worker owner(i) (0: the
// caller, i+1: helper i; nil: any), the others taking it when they have
// run their own and it still waits.
func (p *Pool) DoOwned(n int, run func(int), owner func(int) int) {
	p.noteBatch()
	b := &batch{n: n, run: run}
	if owner != nil {
		workers := len(p.wake) + 1
		// A counting sort of the tasks by worker, each list in task order.
		owners := make([]int32, n)
		b.start, b.cursors = make([]int32, workers+1), make([]paddedCursor, workers)
		for i := range n {
			w := int32(owner(i) % workers)
			owners[i] = w
			b.start[w+1]++
		}
		for w := range workers {
			b.start[w+1] += b.start[w]
		}
		next := slices.Clone(b.start[:workers])
		b.order = make([]int32, n)
		for i, w := range owners {
			b.order[next[w]] = int32(i)
			next[w]++
		}
	}
	p.cur.Store(b)
	p.signal()
	b.work(0)
	var since time.Time
	for k := 0; b.finished.Load() < int64(n); k++ {
		if !spinning(&since, k, p.spinLimit()) {
			p.callerParked.Store(true)
			if b.finished.Load() < int64(n) {
				<-p.done
			}
			p.callerParked.Store(false)
			k, since = 0, time.Time{}
		}
	}
}

// work runs the batch's tasks that are left, as worker w, and reports
// whether it finished the last.
func (b *batch) work(w int) (last bool) {
	ran := 0
	if b.cursors != nil {
		ran = b.workOwned(w)
	} else {
		for {
			i := int(b.next.Add(1)) - 1
			if i >= b.n {
				break
			}
			b.run(i)
			ran++
		}
	}
	return ran > 0 && b.finished.Add(int64(ran)) == int64(b.n)
}

// workOwned is work for a batch whose tasks have owners: worker w's own
// tasks from the front of its list, then those still waiting in the other
// workers' lists, from the next worker's on, each from the back, so that a
// thief meets the list's owner in the middle. It returns how many it ran.
func (b *batch) workOwned(w int) (ran int) {
	workers := len(b.cursors)
	for k := range workers {
		v := (w + k) % workers
		list := b.order[b.start[v]:b.start[v+1]]
		for {
			i, ok := b.cursors[v].claim(len(list), k > 0)
			if !ok {
				break
			}
			b.run(int(list[i]))
			ran++
		}
	}
	return ran
}

// claim takes the next task of a list of n from the front (the owner) or
// the back (a thief), reporting false once none is left. The cursor holds
// the tasks taken from the front in its low 32 bits, from the back in its
// high 32.
func (c *paddedCursor) claim(n int, back bool) (int, bool) {
	for {
		cur := c.Load()
		front, fromBack := int(uint32(cur)), int(cur>>32)
		if front+fromBack >= n {
			return 0, false
		}
		if back {
			if c.CompareAndSwap(cur, cur+1<<32) {
				return n - 1 - fromBack, true
			}
		} else if c.CompareAndSwap(cur, cur+1) {
			return front, true
		}
	}
}
