package hw

import (
	"runtime"
	"sync"
)

// cudaThread runs closures, one at a time, on a goroutine locked to its OS
// thread: the thread on which the device's CUDA context is current. The
// driver binds contexts to OS threads, and Go moves goroutines between
// threads, so every CUDA call of a Device goes through here. State that
// only these closures touch needs no lock.
type cudaThread struct {
	mu      sync.Mutex // guards stopped and the send on calls
	stopped bool
	calls   chan func()
	exited  chan struct{}
}

func startCUDAThread() *cudaThread {
	t := &cudaThread{calls: make(chan func()), exited: make(chan struct{})}
	go t.loop()
	return t
}

func (t *cudaThread) loop() {
	// Never unlocked: a goroutine that exits while locked takes its OS
	// thread with it, so no other goroutine ever runs on a thread where
	// this device's context is current.
	runtime.LockOSThread()
	defer close(t.exited)
	for f := range t.calls {
		f()
	}
}

// do runs f on the CUDA thread and waits for it to return. It returns
// ErrClosed, without running f, once the thread has stopped. f must not
// call do itself.
func (t *cudaThread) do(f func()) error {
	done := make(chan struct{})
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return ErrClosed
	}
	t.calls <- func() {
		defer close(done)
		f()
	}
	t.mu.Unlock()
	<-done
	return nil
}

// stop ends the thread after the closure it is running, if any.
func (t *cudaThread) stop() {
	t.mu.Lock()
	if !t.stopped {
		t.stopped = true
		close(t.calls)
	}
	t.mu.Unlock()
	<-t.exited
}
