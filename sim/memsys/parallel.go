package memsys

import (
	"sync"

	"github.com/sarchlab/akita/v3/sim"
)

// What this package does for akita's ParallelEngine, which runs the events
// due at one time (primary events first, then secondary ones, never both
// in one round) on concurrent goroutines:
//
//   - The fabric locks its state; the event-driven models (the sectored
//     L1s, the sectored L2 slices and their DRAM channels, the atomic
//     units) run only inside its deliveries and live under its lock
//     (fabric.go, l1.go, l2.go, atomicunit.go).
//   - akita's ideal memory controllers (behind L2AkitaWriteback slices)
//     answer through events of their own, which can fall on the same time
//     as each other and as their ticks, and they copy bytes in and out of
//     an unlocked mem.Storage. An engine hook (eventSerialiser) runs the
//     events of each controller one at a time.
//   - akita's caches (L2AkitaWriteback slices, the akita L1 models) only
//     tick, once per time at most, and touch nothing outside themselves but
//     their ports (which lock) and the fabric; their stats hooks lock.
//   - akita's process-wide ID generator is created here, at init (below).

// init creates akita's process-wide ID generator (sim.GetIDGenerator).
// akita's components name their messages and tick events from it, and it is
// created on first use behind a check that reads a flag without a lock:
// under the parallel engine, two event handlers that ask first race (the
// race detector reports it). Asking once while the program initialises,
// before any goroutine of an engine exists, removes the race. The generator
// is akita's sequential one, which counts with an atomic add, so it is safe
// for concurrent use and keeps IDs deterministic under the serial engine;
// akita's parallel generator (sim.UseParallelIDGenerator, random xids) is
// not needed. The constraint: akita lets a program choose its generator only
// before the first use, so a program that imports this package cannot call
// sim.UseParallelIDGenerator or sim.UseSequentialIDGenerator (they panic).
func init() { sim.GetIDGenerator() }

// eventSerialiser is a hook on a parallel engine that runs the events of
// each listed component one at a time: it locks the component's mutex
// before the engine handles one of its events and unlocks it afterwards.
// Both of a component's handlers (itself, for its own events, and its
// TickingComponent, for tick events) share one mutex. Events of components
// it does not list pass untouched.
type eventSerialiser struct {
	locks map[sim.Handler]*sync.Mutex
}

// serialise adds a component's handlers.
func (s *eventSerialiser) serialise(handlers ...sim.Handler) {
	mu := new(sync.Mutex)
	for _, h := range handlers {
		s.locks[h] = mu
	}
}

// Func locks or unlocks around one event. The engine calls it from the
// goroutine that handles the event, before and after the handler.
func (s *eventSerialiser) Func(ctx sim.HookCtx) {
	evt, ok := ctx.Item.(sim.Event)
	if !ok {
		return
	}
	mu := s.locks[evt.Handler()]
	if mu == nil {
		return
	}
	switch ctx.Pos {
	case sim.HookPosBeforeEvent:
		mu.Lock()
	case sim.HookPosAfterEvent:
		mu.Unlock()
	}
}
