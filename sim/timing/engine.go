package timing

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"
)

// serialEngine is akita's SerialEngine without its locks: it handles the
// events in exactly the order akita's does, so every cycle count is the
// same, at a fraction of the cost per event.
//
// akita's engine keeps its primary and secondary events in two binary
// heaps ordered by time alone (container/heap over EventQueueImpl), and
// takes a mutex or a read lock for every push, pop, peek, length and
// clock read: some ten atomic operations per event, a quarter of the
// serial engine's time on the timing model's events. Which of two
// same-time events goes first follows from the heap's shape, so this
// engine keeps the same heaps, operated by the same algorithm
// (container/heap's up and down, with the same comparisons in the same
// order, written out: through container/heap's interface BenchmarkBFS
// took 39.1 s against 31.9 s, one run each), and each entry caches its
// event's time. The engine is driven by
// one goroutine; only Pause, Continue and CurrentTime (the monitor's web
// server) may be called from others.
type serialEngine struct {
	sim.HookableBase

	now atomic.Uint64 // math.Float64bits of the current time

	queue, secondary eventHeap

	// Pause takes pauseLock, which Run holds while it runs and yields
	// between two events when a pause is asked for, so that Pause returns
	// once the engine stands still between events, as akita's does.
	pauseLock    sync.Mutex
	pauseAsked   atomic.Bool
	isPausedLock sync.Mutex
	isPaused     bool
	endHandlers  []sim.SimulationEndHandler
	running      atomic.Bool
}

func newSerialEngine() *serialEngine { return &serialEngine{} }

// heapEntry is a queued event with its time.
type heapEntry struct {
	t sim.VTimeInSec
	e sim.Event
}

// eventHeap is a min-heap by time, operated exactly as container/heap
// operates akita's eventHeap.
type eventHeap []heapEntry

func (h *eventHeap) push(e sim.Event) {
	*h = append(*h, heapEntry{e.Time(), e})
	h.up(len(*h) - 1)
}

func (h *eventHeap) pop() sim.Event {
	q := *h
	n := len(q) - 1
	q[0], q[n] = q[n], q[0]
	h.down(0, n)
	e := q[n].e
	q[n] = heapEntry{}
	*h = q[:n]
	return e
}

// up is container/heap's up.
func (h eventHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !(h[j].t < h[i].t) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

// down is container/heap's down.
func (h eventHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h[j2].t < h[j1].t {
			j = j2 // = 2*i + 2  // right child
		}
		if !(h[j].t < h[i].t) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	return i > i0
}

func (e *serialEngine) time() sim.VTimeInSec {
	return sim.VTimeInSec(math.Float64frombits(e.now.Load()))
}

// Schedule queues an event; it panics on one earlier than the current
// time, as akita's engine does.
func (e *serialEngine) Schedule(evt sim.Event) {
	if evt.Time() < e.time() {
		panic("scheduling an event earlier than current time")
	}
	if evt.IsSecondary() {
		e.secondary.push(evt)
		return
	}
	e.queue.push(evt)
}

// Run handles events, earliest first, until none is left; a primary event
// goes before a secondary one of the same time.
func (e *serialEngine) Run() error {
	if !e.running.CompareAndSwap(false, true) {
		panic("timing: the serial engine runs twice at once")
	}
	defer e.running.Store(false)
	e.pauseLock.Lock()
	defer e.pauseLock.Unlock()
	for len(e.queue) > 0 || len(e.secondary) > 0 {
		if e.pauseAsked.Load() {
			e.pauseLock.Unlock()
			e.pauseLock.Lock()
		}
		var evt sim.Event
		var t sim.VTimeInSec
		switch {
		case len(e.queue) == 0:
			t = e.secondary[0].t
			evt = e.secondary.pop()
		case len(e.secondary) == 0 || e.queue[0].t <= e.secondary[0].t:
			t = e.queue[0].t
			evt = e.queue.pop()
		default:
			t = e.secondary[0].t
			evt = e.secondary.pop()
		}
		if now := e.time(); t < now {
			panic(fmt.Sprintf("cannot run event in the past, evt %T @ %.10f, now %.10f", evt, t, now))
		}
		e.now.Store(math.Float64bits(float64(t)))
		if e.NumHooks() == 0 {
			_ = evt.Handler().Handle(evt)
			continue
		}
		ctx := sim.HookCtx{Domain: e, Pos: sim.HookPosBeforeEvent, Item: evt}
		e.InvokeHook(ctx)
		_ = evt.Handler().Handle(evt)
		ctx.Pos = sim.HookPosAfterEvent
		e.InvokeHook(ctx)
	}
	return nil
}

// Pause stops the engine between two events until Continue.
func (e *serialEngine) Pause() {
	e.isPausedLock.Lock()
	defer e.isPausedLock.Unlock()
	if e.isPaused {
		return
	}
	e.pauseAsked.Store(true)
	e.pauseLock.Lock()
	e.isPaused = true
}

// Continue resumes a paused engine.
func (e *serialEngine) Continue() {
	e.isPausedLock.Lock()
	defer e.isPausedLock.Unlock()
	if !e.isPaused {
		return
	}
	e.pauseAsked.Store(false)
	e.pauseLock.Unlock()
	e.isPaused = false
}

// CurrentTime is the time of the event being handled (or the last one).
func (e *serialEngine) CurrentTime() sim.VTimeInSec { return e.time() }

// RegisterSimulationEndHandler adds a handler that Finished calls.
func (e *serialEngine) RegisterSimulationEndHandler(h sim.SimulationEndHandler) {
	e.endHandlers = append(e.endHandlers, h)
}

// Finished calls the simulation-end handlers.
func (e *serialEngine) Finished() {
	now := e.time()
	for _, h := range e.endHandlers {
		h.Handle(now)
	}
}
