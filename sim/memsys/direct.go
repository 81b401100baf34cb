package memsys

import (
	"github.com/sarchlab/akita/v3/sim"
)

// L1 hits answered at once.
//
// An SM's load reaches its L1 in the cycle the SM sends it (the route has
// no latency and no link), and a hit's answer reaches the SM a fixed
// number of cycles after the L1's lookup slot. When the outcome cannot
// change between the SM's tick and that cycle's delivery, the SM may ask
// the L1 itself (TakeL1Hit) and account for the answer: no message crosses
// the fabric either way and no SM tick is spent taking the answer (on sim's
// BenchmarkBFS, 96% of the L1's hits; its host time fell 1.15-1.19x). The
// figures are the same as with the messages (the SMs' requests keep their
// order at the L1, and nothing else changes its lines in between): the
// cases where they could differ are sent as messages.

// DirectL1 reports whether SM sm's loads may be answered at once
// (TakeL1Hit): its L1 is the sectored model and the engine runs one event
// at a time (under akita's parallel engine the fabric's deliveries run
// concurrently with the SMs' ticks).
func (s *System) DirectL1(sm int) bool {
	return !s.parallel && sm < len(s.sectoredL1s)
}

// TakeL1Hit serves a load of SM sm from its L1 when the L1 holds every
// sector of mask in the line at lineAddr and the lookup would find the
// same, sent at cycle send (this cycle or a later one: the SM's load/store
// unit sends a request a cycle, and decides when a load issues for sends
// it will make a few cycles on): it books the L1's lookup from then on,
// counts the hit and returns the cycle at which the answer would be
// delivered to the SM (the SM acts on it from the next cycle on).
// Otherwise it changes nothing and returns false, and the SM sends the
// load as a message. src is the SM's port.
//
// It declines when a message to the L1 could come first or change the
// line: an earlier load that the L1 refused and the fabric holds, or an
// L2 fill due at or before the send cycle (a fill may evict the line; one
// due in the send cycle may be delivered before the load). It also
// declines when the SM's port could not send now.
func (s *System) TakeL1Hit(sm int, src sim.Port, lineAddr uint64, mask uint32, send uint64) (due uint64, ok bool) {
	f := s.fabric
	f.lock()
	defer f.unlock()
	c := s.sectoredL1s[sm]
	from, to := f.mustEnd(src, "send from"), f.mustEnd(c.top, "send to")
	if from.undelivered >= from.bufSize || to.pending.len() > 0 || to.refused {
		return 0, false
	}
	if fills := f.mustEnd(c.bottom, "deliver to"); fills.pending.len() > 0 && dueCycle(fills.pending.peek().at) <= int64(send) {
		return 0, false
	}
	line := c.lookup(lineAddr)
	if line == nil || line.valid&mask != mask {
		return 0, false
	}
	if to.bytesPerCycle > 0 || from.bytesPerCycle > 0 {
		panic("memsys: an L1 answer taken at once crosses a link with a bandwidth")
	}
	cycle := max(from.dom.now(), float64(send))
	at := cycle + c.takeHit(line, cycle) + c.responseDelay + f.routeLatency(to, from)
	return uint64(dueCycle(at)), true
}
