package timing

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"
)

// serialEngine is akita's SerialEngine without its locks, and with a
// defined order among events of one time.
//
// akita's engine keeps its events in binary heaps ordered by time alone,
// so which of two same-time events goes first follows from the heap's
// shape: from every event scheduled before, including ones that change
// nothing. Removing such an event (a tick that finds nothing to do)
// reorders unrelated ones and moves cycle counts, so no saving of events
// could be checked against the figures it must keep. This engine orders
// the events of one time by a rank and then by scheduling order (first
// scheduled, first handled):
//
//   - the SMs' own events first, in an order that rotates with the cycle
//     (SM c mod n first at cycle c), so that no SM wins every same-cycle
//     race for a port, a slice or a freed CTA slot;
//   - then every other event (the memory system's), first scheduled first.
//
// So an SM ticking at cycle c sees what the memory system delivered before
// c, never what it delivers at c: a response delivered at c, which asks
// for a tick at c+1, is taken at c+1 however the events were scheduled.
//
// akita's engine also takes a mutex or a read lock for every push, pop,
// peek, length and clock read: some ten atomic operations per event, a
// quarter of the serial engine's time on the timing model's events; this
// one takes none. It is driven by one goroutine; only Pause, Continue and
// CurrentTime (the monitor's web server) may be called from others.
type serialEngine struct {
	sim.HookableBase

	now atomic.Uint64 // math.Float64bits of the current time

	queue     calendar
	secondary eventHeap
	// seq numbers the scheduled events (the tie-break's second key).
	seq uint64

	// Pause takes pauseLock, which Run holds while it runs and yields
	// between two events when a pause is asked for, so that Pause returns
	// once the engine stands still between events, as akita's does.
	pauseLock    sync.Mutex
	pauseAsked   atomic.Bool
	isPausedLock sync.Mutex
	isPaused     bool
	endHandlers  []sim.SimulationEndHandler
	running      atomic.Bool

	// touched, when set, hears of every event queued (the window engine's
	// engines: windowEngine.touch); domain is the engine's domain there.
	touched func(*serialEngine)
	domain  int
}

// newSerialEngine is an engine whose queue is bucketed by perBucket
// seconds (an SM cycle: see calendar); any positive width gives the same
// order.
func newSerialEngine(perBucket sim.VTimeInSec) *serialEngine {
	e := &serialEngine{}
	e.queue.init(perBucket)
	return e
}

// heapEntry is a queued event with its time and its tie-break key: its
// rank in the high bits (rankShift), its scheduling number in the low.
// An SM's wake (scheduleWake) is kept without an event object: e is nil,
// sm the SM and cycle the wake's cycle (notifiedWake: a tick asked for
// by a delivery). Allocating, recycling and calling through an event per
// wake cost some 5% of a full-occupancy BFS level, mostly cache misses on
// the events themselves.
type heapEntry struct {
	t     sim.VTimeInSec
	key   uint64
	e     sim.Event
	sm    *SM
	cycle uint64
}

// notifiedWake is the cycle of a queued SM wake that NotifyRecv or
// NotifyPortFree asked for (wakeEvent.notified).
const notifiedWake = math.MaxUint64

// rankShift leaves 2^44 scheduling numbers per run, several days of
// events at today's speed, below the rank.
const rankShift = 44

// before orders two entries: by time, then by key.
func (a *heapEntry) before(b *heapEntry) bool {
	return a.t < b.t || (a.t == b.t && a.key < b.key)
}

// eventHeap is a min-heap by (time, key), with four children per node:
// half the levels of a binary heap for a pop, whose sift-down is most of
// the engine's cost. (time, key) is a total order, so any heap pops the
// same sequence.
type eventHeap []heapEntry

func (h *eventHeap) push(ent heapEntry) {
	*h = append(*h, ent)
	h.up(len(*h) - 1)
}

func (h *eventHeap) pop() heapEntry {
	q := *h
	n := len(q) - 1
	q[0], q[n] = q[n], q[0]
	h.down(0, n)
	ent := q[n]
	q[n] = heapEntry{}
	*h = q[:n]
	return ent
}

// up moves entry j towards the root to its place.
func (h eventHeap) up(j int) {
	x := h[j]
	for j > 0 {
		i := (j - 1) / 4 // parent
		if !x.before(&h[i]) {
			break
		}
		h[j] = h[i]
		j = i
	}
	h[j] = x
}

// down moves entry i0 of the first n towards the leaves to its place.
func (h eventHeap) down(i0, n int) {
	x := h[i0]
	i := i0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c // the least child
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
}

// calendar is the engine's queue of primary events: a min-queue by (time,
// key) like eventHeap, kept as a ring of buckets of time (calendarBuckets
// of perBucket seconds, an SM cycle, from the current time's), each sorted
// earliest first, with a heap for events beyond the ring. Nearly every
// event is an SM's wake a few cycles ahead, and the SMs that tick in a
// cycle ask for their next in nearly the order they will take it (their
// ranks rotate by one a cycle), so a push mostly appends and a pop takes
// the front of the first bucket not empty; a heap of a hundred entries
// cost a sift-down per event. Buckets follow time monotonically, so the
// first bucket not empty holds the earliest events and the order is
// eventHeap's.
type calendar struct {
	perSec   float64                 // buckets per second
	cur      uint64                  // the bucket of the latest time popped
	n        int                     // entries in the ring
	ring     [calendarBuckets]bucket // bucket b at b % calendarBuckets
	nonEmpty [(calendarBuckets + 63) / 64]uint64
	far      eventHeap // entries of buckets cur+calendarBuckets and later
}

// bucket is one bucket of the ring: q[head:], earliest first.
type bucket struct {
	q    []heapEntry
	head int
}

// calendarBuckets is the ring's length: more cycles than most wakes are
// ahead, few enough that the ring stays in the host's caches.
const calendarBuckets = 64

func (c *calendar) init(perBucket sim.VTimeInSec) {
	if !(perBucket > 0) {
		panic("timing: the engine's calendar needs a positive bucket width")
	}
	c.perSec = 1 / float64(perBucket)
}

func (c *calendar) len() int { return c.n + len(c.far) }

func (c *calendar) bucketOf(t sim.VTimeInSec) uint64 { return uint64(float64(t) * c.perSec) }

func (c *calendar) push(ent heapEntry) {
	b := max(c.bucketOf(ent.t), c.cur) // t is never before the current time
	if b-c.cur >= calendarBuckets {
		c.far.push(ent)
		return
	}
	i := b % calendarBuckets
	bk := &c.ring[i]
	j := len(bk.q)
	for j > bk.head && ent.before(&bk.q[j-1]) {
		j--
	}
	bk.q = append(bk.q, heapEntry{})
	copy(bk.q[j+1:], bk.q[j:])
	bk.q[j] = ent
	c.nonEmpty[i/64] |= 1 << (i % 64)
	c.n++
}

// first is the ring's index of the bucket holding its earliest entry, -1
// when the ring is empty.
func (c *calendar) first() int {
	if c.n == 0 {
		return -1
	}
	start := int(c.cur % calendarBuckets)
	w := start / 64
	if m := c.nonEmpty[w] >> (start % 64); m != 0 {
		return start + bits.TrailingZeros64(m)
	}
	for k := 1; k <= len(c.nonEmpty); k++ {
		wi := (w + k) % len(c.nonEmpty)
		if m := c.nonEmpty[wi]; m != 0 {
			return wi*64 + bits.TrailingZeros64(m)
		}
	}
	panic("timing: the engine's calendar lost its entries")
}

// peek is the earliest entry; the calendar must not be empty.
func (c *calendar) peek() *heapEntry {
	if i := c.first(); i >= 0 {
		bk := &c.ring[i]
		ent := &bk.q[bk.head]
		if len(c.far) == 0 || ent.before(&c.far[0]) {
			return ent
		}
	}
	return &c.far[0]
}

func (c *calendar) pop() heapEntry {
	var ent heapEntry
	i := c.first()
	if i >= 0 && (len(c.far) == 0 || c.ring[i].q[c.ring[i].head].before(&c.far[0])) {
		bk := &c.ring[i]
		ent = bk.q[bk.head]
		bk.q[bk.head] = heapEntry{}
		bk.head++
		if bk.head == len(bk.q) {
			bk.q, bk.head = bk.q[:0], 0
			c.nonEmpty[i/64] &^= 1 << (i % 64)
		}
		c.n--
	} else {
		ent = c.far.pop()
	}
	c.cur = max(c.cur, c.bucketOf(ent.t))
	return ent
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
	e.seq++
	key := e.seq
	if w, ok := evt.(*wakeEvent); ok {
		key |= w.rank << rankShift
	} else {
		key |= otherRank << rankShift
	}
	ent := heapEntry{t: evt.Time(), key: key, e: evt}
	if e.touched != nil {
		e.touched(e)
	}
	if evt.IsSecondary() {
		e.secondary.push(ent)
		return
	}
	e.queue.push(ent)
}

// scheduleWake queues a wake of SM s at time t, as Schedule queues the
// wakeEvent that SM.newWake would return (same time, rank and place in
// the scheduling order), without the event.
func (e *serialEngine) scheduleWake(s *SM, t sim.VTimeInSec, cycle uint64, notified bool, rank uint64) {
	if t < e.time() {
		panic("scheduling an event earlier than current time")
	}
	e.seq++
	if notified {
		cycle = notifiedWake
	}
	if e.touched != nil {
		e.touched(e)
	}
	e.queue.push(heapEntry{t: t, key: e.seq | rank<<rankShift, sm: s, cycle: cycle})
}

// otherRank is the rank of every event that is not an SM's: after the
// SMs' (whose ranks are below the SM count; see SM.tieRank).
const otherRank = 1 << 19

// Run handles events, earliest first, until none is left; a primary event
// goes before a secondary one of the same time.
func (e *serialEngine) Run() error {
	if !e.running.CompareAndSwap(false, true) {
		panic("timing: the serial engine runs twice at once")
	}
	defer e.running.Store(false)
	e.pauseLock.Lock()
	defer e.pauseLock.Unlock()
	for e.queue.len() > 0 || len(e.secondary) > 0 {
		if e.pauseAsked.Load() {
			e.pauseLock.Unlock()
			e.pauseLock.Lock()
		}
		var ent heapEntry
		switch {
		case e.queue.len() == 0:
			ent = e.secondary.pop()
		case len(e.secondary) == 0 || e.queue.peek().t <= e.secondary[0].t: // primary first at one time
			ent = e.queue.pop()
		default:
			ent = e.secondary.pop()
		}
		t := ent.t
		if now := e.time(); t < now {
			panic(fmt.Sprintf("cannot run event in the past, evt %T @ %.10f, now %.10f", ent.e, t, now))
		}
		e.now.Store(math.Float64bits(float64(t)))
		evt := ent.e
		if evt == nil {
			if e.NumHooks() == 0 {
				ent.sm.wake(t, ent.cycle)
				continue
			}
			// Hooks see the event the SM would have scheduled.
			evt = ent.sm.wakeEventOf(ent)
		}
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

// nextTime is the time of the earliest queued event (ok false: none).
func (e *serialEngine) nextTime() (t sim.VTimeInSec, ok bool) {
	switch {
	case e.queue.len() > 0 && len(e.secondary) > 0:
		return min(e.queue.peek().t, e.secondary[0].t), true
	case e.queue.len() > 0:
		return e.queue.peek().t, true
	case len(e.secondary) > 0:
		return e.secondary[0].t, true
	}
	return 0, false
}

// runBefore handles events, earliest first, as Run does, while the
// earliest is before time end; the window engine (window.go) runs each
// domain's engine so, and adds no hooks.
func (e *serialEngine) runBefore(end sim.VTimeInSec) {
	for {
		var ent heapEntry
		switch {
		case e.queue.len() > 0 && (len(e.secondary) == 0 || e.queue.peek().t <= e.secondary[0].t):
			if e.queue.peek().t >= end {
				return
			}
			ent = e.queue.pop()
		case len(e.secondary) > 0:
			if e.secondary[0].t >= end {
				return
			}
			ent = e.secondary.pop()
		default:
			return
		}
		t := ent.t
		if now := e.time(); t < now {
			panic(fmt.Sprintf("cannot run event in the past, evt %T @ %.10f, now %.10f", ent.e, t, now))
		}
		e.now.Store(math.Float64bits(float64(t)))
		if ent.e == nil {
			ent.sm.wake(t, ent.cycle)
			continue
		}
		_ = ent.e.Handler().Handle(ent.e)
	}
}
