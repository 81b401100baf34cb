package hw

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// cudaThread runs closures, one at a time, on a goroutine locked to its OS
// thread: the thread on which the device's CUDA context is current. The
// driver binds contexts to OS threads, and Go moves goroutines between
// threads. A Device opens and closes here; its other calls run on the
// caller's own locked thread under callMu (Device.run), which excludes
// this thread's closures, so state that only the Device's calls touch
// needs no other lock.
//
// The hand-off is what a host-driven loop pays on every call (a launch, a
// 4-byte read-back), so it spins before it sleeps: a channel hand-off to a
// locked thread costs a futex wake each way, tens of microseconds on a busy
// or virtualised host, while a hand-off between two spinning threads costs
// well under one. After each call the thread polls for the next one for
// threadIdleSpin before it blocks, and a caller polls for its call's end
// for callerSpin before it blocks. Spinning needs two Ps (GOMAXPROCS >= 2):
// with one, a spinner would keep the other side from running, so then
// both sides block at once.
type cudaThread struct {
	callMu  sync.Mutex // held by one caller for its whole call
	stopped bool       // guarded by callMu

	// The current call: posted by its caller under callMu, taken by the
	// thread, then finished (finished = its sequence number).
	pending  atomic.Pointer[threadCall]
	finished atomic.Uint64
	seq      uint64 // guarded by callMu

	// Sleeping flags and their wake-ups (Dekker-style: a side sets its flag,
	// then re-checks the condition before blocking; the other side makes
	// the condition true, then wakes the sleeper if its flag is set). A
	// token left behind only causes a spurious wake-up, after which the
	// sleeper re-checks.
	threadSleeping atomic.Bool
	threadWake     chan struct{}
	callerSleeping atomic.Bool
	callerWake     chan struct{}

	exited chan struct{}
}

type threadCall struct {
	f    func() // nil: exit the loop
	done uint64 // the sequence number that finished takes when f returns
}

// Spin windows of the hand-off (see cudaThread). A caller's spin covers a
// short launch from start to end; the thread's covers the host code of a
// driver loop between two calls.
const (
	threadIdleSpin = 200 * time.Microsecond
	callerSpin     = 2 * time.Millisecond
	// spinCheckEvery polls pass between reads of the clock while spinning.
	spinCheckEvery = 64
)

func startCUDAThread() *cudaThread {
	t := &cudaThread{
		threadWake: make(chan struct{}, 1),
		callerWake: make(chan struct{}, 1),
		exited:     make(chan struct{}),
	}
	go t.loop()
	return t
}

// canSpin reports whether busy-waiting can help: the other side of the
// hand-off needs a P of its own to make progress meanwhile.
func canSpin() bool { return runtime.GOMAXPROCS(0) > 1 }

// spinFor polls cond for up to window and reports whether it became true.
func spinFor(window time.Duration, cond func() bool) bool {
	if !canSpin() {
		return cond()
	}
	began := time.Now()
	for i := 1; ; i++ {
		if cond() {
			return true
		}
		if i%spinCheckEvery == 0 && time.Since(began) > window {
			return false
		}
	}
}

func (t *cudaThread) loop() {
	// Never unlocked: a goroutine that exits while locked takes its OS
	// thread with it, so no other goroutine ever runs on a thread where
	// this device's context is current.
	runtime.LockOSThread()
	defer close(t.exited)
	for {
		c := t.take()
		if c.f != nil {
			c.f()
		}
		t.finished.Store(c.done)
		if t.callerSleeping.Load() {
			select {
			case t.callerWake <- struct{}{}:
			default:
			}
		}
		if c.f == nil {
			return
		}
	}
}

// take waits for the next call and claims it.
func (t *cudaThread) take() *threadCall {
	has := func() bool { return t.pending.Load() != nil }
	for !spinFor(threadIdleSpin, has) {
		t.threadSleeping.Store(true)
		if has() {
			t.threadSleeping.Store(false)
			break
		}
		<-t.threadWake
		t.threadSleeping.Store(false)
	}
	return t.pending.Swap(nil)
}

// post hands c to the thread and waits until it has run. callMu is held.
func (t *cudaThread) post(c *threadCall) {
	t.seq++
	c.done = t.seq
	t.pending.Store(c)
	if t.threadSleeping.Load() {
		select {
		case t.threadWake <- struct{}{}:
		default:
		}
	}
	ended := func() bool { return t.finished.Load() == c.done }
	if spinFor(callerSpin, ended) {
		return
	}
	for {
		t.callerSleeping.Store(true)
		if ended() {
			t.callerSleeping.Store(false)
			return
		}
		<-t.callerWake
		t.callerSleeping.Store(false)
		if ended() {
			return
		}
	}
}

// do runs f on the CUDA thread and waits for it to return. It returns
// ErrClosed, without running f, once the thread has stopped. f must not
// call do itself.
func (t *cudaThread) do(f func()) error {
	t.callMu.Lock()
	defer t.callMu.Unlock()
	if t.stopped {
		return ErrClosed
	}
	t.post(&threadCall{f: f})
	return nil
}

// stop ends the thread after the closure it is running, if any.
func (t *cudaThread) stop() {
	t.callMu.Lock()
	if !t.stopped {
		t.stopped = true
		t.post(&threadCall{})
	}
	t.callMu.Unlock()
	<-t.exited
}
