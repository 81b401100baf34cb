package memsys

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// zone says on which side of the SM-to-L2 interconnect a port sits.
type zone uint8

const (
	zoneSM zone = iota // SMs and their L1s
	zoneL2             // L2 slices, atomic units and DRAM channels
)

// fabric is the one sim.Connection of a memory system: every port of every
// component, SMs included, plugs into it. It delivers each message after the
// latency of its route and, through ports that have a data link, no faster
// than the link's bandwidth.
//
// It replaces a network of akita DirectConnections and latency components
// because it costs one event per delivery time instead of one tick per
// cycle per component: a message's delivery time is computed when it is
// sent (latency plus link reservations), and an event wakes the destination
// at that time. An idle fabric schedules nothing.
//
// Under akita's parallel engine (and only there: locked), components send
// from concurrent event handlers, so mu guards all of the fabric's mutable state (link
// reservations, delivery queues, the calendar, the sequence counter, the
// DRAM byte counts) and the sectored L1s, which the fabric calls only from
// its deliveries. Send, CanSend, NotifyAvailable, Handle and the stats
// accessors take mu; the methods the L1s call during a delivery (sendDelayed,
// forward, notifyAvailable) expect it held. Lock order: a component's own
// lock (an SM's GPU lock, an atomic unit's), then a port's buffer lock (a
// port calls NotifyAvailable from Retrieve), then mu, then what deliveries
// call (a port's buffer lock in Recv, akita's tick schedulers, the engine's
// queues). Recv under mu reverses the port-lock order; the two never run at
// once, because deliveries are secondary events, components retrieve only
// in primary ones, and the parallel engine never runs both kinds in one
// round.
type fabric struct {
	sim.HookableBase

	mu sync.Mutex
	// locked: mu is taken (akita's parallel engine). Under any other
	// engine, which runs one event at a time (Builder.WithEngine), the
	// lock guards nothing and cost a few percent of the run.
	locked bool

	name string
	freq sim.Freq

	crossReq, crossRsp float64 // cycles from SM side to L2 side and back
	// farCrossing is added each way to a message between ports of
	// different L2 partitions (half of Config.L2FarAtomicCycles).
	farCrossing float64
	// spread is the range of the SM-to-slice offsets (pairOffset) added to
	// a request's crossing (Config.L2LatencySpreadCycles).
	spread float64
	// The devices (devices.go): their number, each one's SMs and slices,
	// and the link's latency each way.
	devices                       int
	smsPerDevice, slicesPerDevice int
	linkLatency                   float64
	sectorSize                    int

	ends map[sim.Port]*fabricEnd
	// akitaEnds holds the ends of akita's ports again, by a pointer key,
	// which hashes faster than an interface (ports with an EndSlot need
	// neither).
	akitaEnds map[*sim.LimitNumMsgPort]*fabricEnd

	// doms are the fabric's domains (fabricDomain): one, doms[0], unless
	// the system was built WithDomains, and then doms[0] is the L2 side's
	// and doms[1+i] SM i's.
	doms []*fabricDomain
	// inSlots[p][r*len(doms)+s] is the stretch of sender s's sealed
	// outbox bound for domain r, creditSlots[p][r*len(doms)+s] that of the
	// credits s owes r's ends; incoming[p][r] says r has either. A window
	// seals into the set of parity sealParity (seal) while its receivers
	// take the last window's from recvParity's (receiveFor).
	inSlots, creditSlots   [2][]span
	incoming               [2][]atomic.Bool
	sealParity, recvParity int
	// windows counts the windows ended (endWindow), and sealedIn[d] is
	// 1 + the window in which domain d last sealed: the window's end
	// reads it, for every domain that ran, from one array.
	windows  uint64
	sealedIn []uint64
	// The last window's end (endWindow): its last cycle's time and its end
	// cycle, and the domains with crossings or credits to take
	// (receivers), unreceived of which have not yet.
	recvNow    sim.VTimeInSec
	recvEnd    uint64
	receivers  []int
	unreceived atomic.Int64

	// dirtyHolders are the L2 slices' records of their dirty sectors
	// (sectored slices, or the shadows of akita's).
	dirtyHolders []dirtyHolder
	// dirtyAtReset is the L2 slices' dirty bytes at the last resetStats.
	dirtyAtReset uint64
}

// endSpec is how a port plugs into the fabric.
type endSpec struct {
	zone zone
	// partition is the port's L2 partition plus one (0: none); messages
	// between ports of two different partitions cross between them
	// (fabric.farCrossing).
	partition int
	// sm and slice are the SM (an SM's port or its L1's bottom) and the L2
	// slice (its top, its atomic unit's top) a port belongs to, plus one (0:
	// neither): a request from an SM to a slice takes that pair's offset.
	sm, slice int
	// bufSize bounds the messages the port has sent that are not yet
	// delivered; Send fails beyond it.
	bufSize int
	// domain is the index of the port's fabric domain (fabric.doms; 0
	// without domains).
	domain int
	// egressLatency is added to every message the port sends.
	egressLatency float64
	// bytesPerCycle is the bandwidth of the port's data links, one for
	// what it sends and one for what it receives; 0 means unlimited.
	bytesPerCycle float64
	// dram marks a DRAM channel: reads and writes share one link (the DRAM
	// bus), a read reserves its data's bytes on it when the request
	// arrives, so the channel's responses are never held back, and the
	// traffic counts as DRAM bytes.
	dram bool
	// rows, on a DRAM channel with the row model on (Config.DRAMRowBytes),
	// are its open rows: an access to another row costs more link time.
	rows *dramRows
	// atomic marks an atomic unit's port to its L2 slice: its writes read
	// the sector they update.
	atomic bool
	// shadow, set on an L2 slice's top and bottom ports and its DRAM
	// channel's, is the slice's sliceShadow, which sees (and may answer or
	// hold) what crosses them; role says which of the three the port is.
	shadow *sliceShadow
	role   shadowRole
	// device is the port's device plus one (0: none; devices.go): a
	// message between ports of two devices crosses the link. A slice's
	// ports hold linkBytesPerCycle, their share of the device's link.
	device            int
	linkBytesPerCycle float64
}

// shadowRole is the place of a port in its slice's sliceShadow.
type shadowRole uint8

const (
	roleNone     shadowRole = iota
	roleL2Top               // the slice's port to the SMs and atomic units
	roleL2Bottom            // the slice's port to its DRAM channel
	roleDRAM                // the DRAM channel's port
)

type fabricEnd struct {
	endSpec
	port sim.Port
	dom  *fabricDomain

	undelivered     int  // messages sent from this port, not yet delivered
	waitingForSpace bool // a Send or CanSend failed; notify when space frees

	// Each link is reserved when a message is sent, for the cycles its
	// payload occupies the link: the outgoing one at the send cycle, the
	// incoming one at the arrival cycle. Reservations are made in order
	// of those cycles (the sends of one port happen in time order, and the
	// messages into one port mostly share a route latency), so one
	// "free from" cycle per link suffices and leaves no holes.
	egressFree, ingressFree float64
	// linkOutFree and linkInFree are the same for a slice's share of its
	// device's link (endSpec.linkBytesPerCycle), out of and into the
	// device.
	linkOutFree, linkInFree float64

	pending deliveryQueue // messages to this port, by delivery cycle
	refused bool          // the port refused a message; it will NotifyAvailable
	wakeSet bool
	wakeAt  int64 // the cycle of this port's entry in the fabric's calendar
}

func newFabric(name string, engine sim.Engine, freq sim.Freq,
	crossReq, crossRsp float64, sectorSize int,
) *fabric {
	f := &fabric{
		name:       name,
		freq:       freq,
		crossReq:   crossReq,
		crossRsp:   crossRsp,
		sectorSize: sectorSize,
		ends:       make(map[sim.Port]*fabricEnd),
		akitaEnds:  make(map[*sim.LimitNumMsgPort]*fabricEnd),
	}
	f.doms = []*fabricDomain{newFabricDomain(f, 0, engine)}
	return f
}

// fabricDomain is a part of the fabric that one engine drives: its ports'
// delivery calendar, the events that run it and the order of its sends.
// A fabric has one domain, unless the system was built WithDomains: then
// the L2 side (slices, atomic units, DRAM channels) is one domain and each
// SM with its L1 another, each on an engine of its own, which may run
// concurrently with the others' through a window of time no longer than
// the shortest crossing between them. A message between two domains waits
// in its sender's outbox until the window's end (fabric.endWindow), after
// which it joins its receiver's queue (fabric.receiveFor); the credit a delivery returns to its sender
// (fabricEnd.undelivered) waits in the receiver's domain likewise.
type fabricDomain struct {
	f      *fabric
	index  int
	engine sim.Engine
	seq    uint64

	// The calendar: the ports to wake, by cycle (a bucket per cycle, in
	// the order they asked, and a heap of the buckets' cycles; a heap of
	// every wake cost a pop per delivery), and the cycles for which an
	// engine event is scheduled. One event serves every port due in its
	// cycle.
	wakes       cycleMap[*wakeBucket]
	wakeCycles  minHeap[wakeCycle]
	lastBucket  *wakeBucket // the bucket last added to, most often the next
	spareBucket []*wakeBucket
	eventCycles cycleMap[bool]
	// lastEvent is the cycle last asked for, in eventCycles (-1: none),
	// which most calls of a cycle ask for again.
	lastEvent int64

	// boxes[p] are the messages sent to other domains in a window of
	// parity p (fabric.sealParity), in the order sent until sealed, and
	// creditBoxes[p] the ends of other domains whose messages this domain
	// received in it: the receivers take the last window's
	// (fabric.recvParity) while this domain fills the others. boxWindow
	// is the window (fabric.windows) they were last readied for (fresh):
	// before that, the current parity's hold a window that was taken
	// long ago.
	boxes       [2][]crossing
	creditBoxes [2][]*fabricEnd
	boxWindow   uint64
	// sortSpare and sortStarts are sortOutbox's scratch.
	sortSpare  []crossing
	sortStarts []int
	// sealed: the window's box is sorted by receiving domain, then due
	// cycle, and its credits by sending domain, their stretches posted in
	// the receivers' slots (seal), and neither has changed since
	// (unseal).
	sealed bool
	// inRuns are the outboxes' stretches this domain receives in the
	// window, by sending domain, and creditsIn the credits' stretches
	// that come back to it, by receiving domain (gather); inHeap and
	// inBoxes are scratch of the merge of inRuns; late counts the
	// crossings it received due before the window's end
	// (fabric.lateCrossings).
	inRuns, creditsIn []domainRun
	inHeap            []runHead
	inBoxes           [][]crossing
	late              uint64
	// dramReadBytes and dramWriteBytes count the DRAM traffic delivered
	// in this domain (fabric.account).
	dramReadBytes, dramWriteBytes uint64
	// linkBytes[from*devices+to] and linkQueued count the data that
	// crossed between devices and the cycles it waited for a link share
	// (devices.go), in the domain that reserved the share.
	linkBytes  []uint64
	linkQueued float64
	// spareEvents are handled events for reuse (with more than one
	// domain, where no hooks are allowed).
	spareEvents []*fabricEvent
}

// crossing is a message between two domains, due at cycle at before the
// receiver's link (reserved when it joins the receiver's queue).
type crossing struct {
	msg      sim.Msg
	at       float64
	src, dst *fabricEnd
}

func newFabricDomain(f *fabric, index int, engine sim.Engine) *fabricDomain {
	ring := cycleRing
	if index > 0 {
		ring = smCycleRing
	}
	return &fabricDomain{
		f:           f,
		index:       index,
		engine:      engine,
		wakes:       newCycleMap[*wakeBucket](ring),
		eventCycles: newCycleMap[bool](ring),
		lastEvent:   -1,
	}
}

// now is the domain's current time in cycles.
func (d *fabricDomain) now() float64 { return d.f.cycles(d.engine.CurrentTime()) }

func (f *fabric) lock() {
	if f.locked {
		f.mu.Lock()
	}
}

func (f *fabric) unlock() {
	if f.locked {
		f.mu.Unlock()
	}
}

// Name returns the fabric's name.
func (f *fabric) Name() string { return f.name }

// plug connects a port with the given properties.
func (f *fabric) plug(port sim.Port, spec endSpec) {
	if _, dup := f.ends[port]; dup {
		panic(fmt.Sprintf("memsys: port %s plugged into %s twice", port.Name(), f.name))
	}
	if spec.bufSize < 1 {
		spec.bufSize = 1
	}
	end := &fabricEnd{endSpec: spec, port: port, dom: f.doms[0]}
	if spec.domain > 0 {
		end.dom = f.doms[spec.domain]
	}
	f.ends[port] = end
	switch p := port.(type) {
	case *sim.LimitNumMsgPort:
		f.akitaEnds[p] = end
	case slotted:
		if sl := p.endSlot(); sl.fabric == nil {
			sl.fabric, sl.end = f, end
		}
	}
	port.SetConnection(f)
}

// EndSlot, embedded in a port, keeps the fabric's record of the port, so
// that the fabric finds it without a map lookup for every message.
type EndSlot struct {
	fabric *fabric
	end    *fabricEnd
}

func (s *EndSlot) endSlot() *EndSlot { return s }

type slotted interface{ endSlot() *EndSlot }

// PlugIn connects a port on the SM side without a link, as akita's
// connections do; the System uses plug for its own ports.
func (f *fabric) PlugIn(port sim.Port, sourceSideBufSize int) {
	f.plug(port, endSpec{zone: zoneSM, bufSize: sourceSideBufSize})
}

// Unplug is not supported: a memory system's wiring is fixed when built.
func (f *fabric) Unplug(port sim.Port) {
	panic("memsys: fabric does not support Unplug")
}

// CanSend reports whether the port may send a message now.
func (f *fabric) CanSend(src sim.Port) bool {
	f.lock()
	defer f.unlock()
	end := f.mustEnd(src, "send from")
	if end.undelivered >= end.bufSize {
		end.waitingForSpace = true
		return false
	}
	return true
}

// Send accepts a message and schedules its delivery, or fails when the
// sender has too many undelivered messages.
func (f *fabric) Send(msg sim.Msg) *sim.SendError {
	f.lock()
	defer f.unlock()
	meta := msg.Meta()
	src := f.mustEnd(meta.Src, "send from")
	if src.undelivered >= src.bufSize {
		src.waitingForSpace = true
		return sim.NewSendError()
	}
	if src.shadow != nil && f.shadowSend(src, msg) {
		return nil
	}
	f.enqueue(msg, src, f.mustEnd(meta.Dst, "send to"), 0)
	return nil
}

// shadowSend shows a message sent from a port of an L2 slice or its DRAM
// channel to the slice's shadow. It returns true when the shadow took the
// message (an answer it holds, a fetch it answered): the send succeeds and
// the fabric delivers nothing.
func (f *fabric) shadowSend(src *fabricEnd, msg sim.Msg) bool {
	sh := src.shadow
	switch src.role {
	case roleL2Top:
		return sh.answered(msg)
	case roleL2Bottom:
		switch m := msg.(type) {
		case *mem.ReadReq:
			return sh.fetching(m)
		case *mem.WriteReq:
			sh.evicting(m)
		}
	case roleDRAM:
		if m, ok := msg.(*mem.WriteDoneRsp); ok && m.Dst == sh.bottom.port {
			sh.evicted(m)
		}
	}
	return false
}

// sendDelayed sends a message from one of the system's own event-driven
// models, which always may send, as if it were sent delay cycles from now.
// The caller holds f.mu (the L1s send only while the fabric delivers to
// them).
func (f *fabric) sendDelayed(msg sim.Msg, delay float64) {
	meta := msg.Meta()
	f.enqueue(msg, f.mustEnd(meta.Src, "send from"), f.mustEnd(meta.Dst, "send to"), delay)
}

// forward sends a message on through port via, delay cycles from now,
// leaving its source unchanged so that the response skips via. The sectored
// L1 forwards stores this way, during a delivery, with f.mu held.
func (f *fabric) forward(msg sim.Msg, via sim.Port, delay float64) {
	f.enqueue(msg, f.mustEnd(via, "forward through"), f.mustEnd(msg.Meta().Dst, "send to"), delay)
}

// enqueue computes when a message reaches its destination (link
// reservations and route latency) and puts it in the destination's queue.
// The caller holds f.mu.
func (f *fabric) enqueue(msg sim.Msg, src, dst *fabricEnd, delay float64) {
	at := src.dom.now() + delay
	if src.bytesPerCycle > 0 {
		if b := f.payload(msg, src.dram); b > 0 {
			at = math.Max(at, src.egressFree)
			src.egressFree = at + b/src.bytesPerCycle
		}
	}
	if src.linkBytesPerCycle > 0 && crossesDevices(src, dst) {
		at = f.linkOut(msg, src, dst, at)
	}
	at += f.routeLatency(src, dst)
	if dst.dom != src.dom {
		if src.bufSize < unboundedBuf {
			// (An unbounded sender's count is never compared: it
			// keeps no credits across domains.)
			src.undelivered++
		}
		src.dom.send(crossing{msg: msg, at: at, src: src, dst: dst})
		return
	}
	if dst.linkBytesPerCycle > 0 && crossesDevices(src, dst) {
		at = f.linkIn(msg, src, dst, at)
	}
	if dst.bytesPerCycle > 0 {
		if b := f.ingressBytes(msg, dst); b > 0 {
			at = math.Max(at, dst.ingressFree)
			dst.ingressFree = at + b/dst.bytesPerCycle
		}
	}

	src.undelivered++
	dst.pending.push(delivery{msg: msg, at: at, seq: dst.dom.nextSeq(), src: src})
	f.scheduleNext(dst)

	if f.NumHooks() > 0 {
		f.InvokeHook(sim.HookCtx{Domain: f, Pos: sim.HookPosConnStartSend, Item: msg})
	}
}

// routeLatency is the cycles a message takes from one end to another
// besides its links: the sender's egress, the SM-L2 crossing, the crossing
// between L2 partitions and the SM-slice pair's offset.
func (f *fabric) routeLatency(src, dst *fabricEnd) float64 {
	at := src.egressLatency + f.crossing(src.zone, dst.zone)
	if src.partition != dst.partition && src.partition != 0 && dst.partition != 0 {
		at += f.farCrossing
	}
	if crossesDevices(src, dst) {
		at += f.linkLatency
	}
	if f.spread > 0 && src.sm != 0 && dst.slice != 0 {
		// By the SM's and the slice's places in their devices, as a lone
		// device's.
		at += f.pairOffset((src.sm-1)%f.smsPerDevice, (dst.slice-1)%f.slicesPerDevice)
	}
	return at
}

// NotifyAvailable is called by a port that refused a message and has since
// freed buffer space.
func (f *fabric) NotifyAvailable(now sim.VTimeInSec, port sim.Port) {
	f.lock()
	defer f.unlock()
	f.notifyAvailable(port)
}

// notifyAvailable is NotifyAvailable with f.mu held (the sectored L1 calls
// it from a delivery).
func (f *fabric) notifyAvailable(port sim.Port) {
	end := f.mustEnd(port, "notify from")
	end.refused = false
	f.scheduleNext(end)
}

// Handle runs one calendar cycle: it delivers what is due at every port
// that asked to be woken at or before this cycle.
func (f *fabric) Handle(e sim.Event) error {
	evt, ok := e.(*fabricEvent)
	if !ok {
		panic(fmt.Sprintf("memsys: fabric cannot handle %T", e))
	}
	f.lock()
	defer f.unlock()
	d := evt.dom
	d.eventCycles.del(evt.cycle)
	if d.lastEvent == evt.cycle {
		d.lastEvent = -1
	}
	for d.wakeCycles.len() > 0 && int64(*d.wakeCycles.peek()) <= evt.cycle {
		cycle := int64(*d.wakeCycles.peek())
		b, _ := d.wakes.get(cycle)
		// Deliveries may add wakes to this cycle's bucket: they run in
		// this loop too, after those before them.
		for i := 0; i < len(b.ends); i++ {
			end := b.ends[i]
			if !end.wakeSet || end.wakeAt != cycle {
				continue // superseded by an earlier wake of the same port
			}
			end.wakeSet = false
			f.deliverDue(end, evt.time, evt.cycle)
			f.scheduleNext(end)
		}
		d.wakeCycles.pop()
		d.wakes.del(cycle)
		if d.lastBucket == b {
			d.lastBucket = nil
		}
		clear(b.ends)
		b.ends = b.ends[:0]
		d.spareBucket = append(d.spareBucket, b)
	}
	if d.wakeCycles.len() > 0 {
		d.scheduleEvent(int64(*d.wakeCycles.peek()))
	}
	if len(f.doms) > 1 && f.NumHooks() == 0 {
		// No hook keeps the event (the window engine takes none): reuse
		// it.
		d.spareEvents = append(d.spareEvents, evt)
	}
	return nil
}

// addWake asks the domain's calendar to wake a port at a cycle.
func (d *fabricDomain) addWake(cycle int64, end *fabricEnd) {
	b := d.lastBucket
	if b == nil || b.cycle != cycle {
		b, _ = d.wakes.get(cycle)
		if b == nil {
			if n := len(d.spareBucket); n > 0 {
				b = d.spareBucket[n-1]
				d.spareBucket = d.spareBucket[:n-1]
			} else {
				b = &wakeBucket{}
			}
			b.cycle = cycle
			d.wakes.put(cycle, b)
			d.wakeCycles.push(wakeCycle(cycle))
		}
		d.lastBucket = b
	}
	b.ends = append(b.ends, end)
}

func (f *fabric) deliverDue(end *fabricEnd, now sim.VTimeInSec, cycle int64) {
	for end.pending.len() > 0 {
		d := *end.pending.peek()
		if dueCycle(d.at) > cycle {
			return
		}
		d.msg.Meta().RecvTime = now
		if err := end.port.Recv(d.msg); err != nil {
			end.refused = true
			return
		}
		end.pending.pop()
		f.account(end, d.msg)
		if end.role == roleL2Top {
			end.shadow.accepted(d.msg)
		}

		src := d.src
		if src.dom != end.dom {
			// The sender's credit goes back after the window's end
			// (receiveFor).
			if src.bufSize < unboundedBuf {
				end.dom.owe(src)
			}
		} else {
			src.undelivered--
			if src.waitingForSpace {
				src.waitingForSpace = false
				src.port.NotifyAvailable(now)
			}
		}
		if f.NumHooks() > 0 {
			f.InvokeHook(sim.HookCtx{Domain: f, Pos: sim.HookPosConnDeliver, Item: d.msg})
		}
	}
}

// scheduleNext makes sure the calendar will wake the port when its earliest
// pending message is due, unless the port is full.
func (f *fabric) scheduleNext(end *fabricEnd) {
	if end.refused || end.pending.len() == 0 {
		return
	}
	d := end.dom
	cycle := max(dueCycle(end.pending.peek().at), dueCycle(d.now()))
	if end.wakeSet && end.wakeAt <= cycle {
		return
	}
	end.wakeSet = true
	end.wakeAt = cycle
	d.addWake(cycle, end)
	d.scheduleEvent(cycle)
}

// scheduleEvent makes sure the domain's engine runs its calendar at a
// cycle. Events are secondary, as akita's DirectConnection uses:
// deliveries at a time happen after every component has ticked at that
// time, so a receiver sees a message no earlier than its next cycle.
func (d *fabricDomain) scheduleEvent(cycle int64) {
	if cycle == d.lastEvent {
		return
	}
	if _, ok := d.eventCycles.get(cycle); ok {
		d.lastEvent = cycle
		return
	}
	d.eventCycles.put(cycle, true)
	d.lastEvent = cycle
	now := d.engine.CurrentTime()
	t := sim.VTimeInSec(float64(cycle) / float64(d.f.freq))
	if t < now {
		t = now
	}
	var evt *fabricEvent
	if n := len(d.spareEvents); n > 0 {
		evt = d.spareEvents[n-1]
		d.spareEvents = d.spareEvents[:n-1]
	} else {
		evt = &fabricEvent{}
	}
	*evt = fabricEvent{time: t, cycle: cycle, fabric: d.f, dom: d}
	d.engine.Schedule(evt)
}

func (d *fabricDomain) nextSeq() uint64 {
	d.seq++
	return d.seq
}

// dueCycle is the cycle at which a message that may arrive at cycle `at`
// is delivered. A receiver acts on a message at its first tick after the
// delivery, so delivering a message due at a fractional cycle at the whole
// cycle before it changes nothing for the receiver and lets every message
// of a cycle share one event.
func dueCycle(at float64) int64 {
	return int64(math.Floor(at + cycleEpsilon))
}

func (f *fabric) crossing(from, to zone) float64 {
	switch {
	case from == zoneSM && to == zoneL2:
		return f.crossReq
	case from == zoneL2 && to == zoneSM:
		return f.crossRsp
	default:
		return 0
	}
}

// payload is the number of data bytes a message moves over a link. Headers
// are free. A DRAM link counts a read's data when the request passes, so
// that the response does not count again.
func (f *fabric) payload(msg sim.Msg, dramLink bool) float64 {
	switch m := msg.(type) {
	case *mem.ReadReq:
		if dramLink {
			return float64(m.AccessByteSize)
		}
	case *mem.DataReadyRsp:
		if !dramLink {
			return float64(len(m.Data))
		}
	case *mem.WriteReq:
		return float64(writtenBytes(m, f.sectorSize))
	}
	return 0
}

// ingressBytes is what a message costs the link into dst, in bytes: its
// payload, plus a row's opening on a DRAM channel with the row model.
func (f *fabric) ingressBytes(msg sim.Msg, dst *fabricEnd) float64 {
	b := f.payload(msg, dst.dram)
	if req, ok := msg.(mem.AccessReq); ok && b > 0 && dst.rows != nil {
		b += dst.rows.access(req.GetAddress())
	}
	return b
}

func (f *fabric) account(end *fabricEnd, msg sim.Msg) {
	if !end.dram {
		return
	}
	switch m := msg.(type) {
	case *mem.ReadReq:
		end.dom.dramReadBytes += m.AccessByteSize
	case *mem.WriteReq:
		end.dom.dramWriteBytes += uint64(writtenBytes(m, f.sectorSize))
	}
}

// dramBytes returns the DRAM bytes read and written since the last reset.
// Written bytes count every dirty sector once: those the DRAM channels
// received, plus the change in the sectors the L2 slices hold dirty (see
// System.Stats).
func (f *fabric) dramBytes() (read, written uint64) {
	f.lock()
	defer f.unlock()
	for _, d := range f.doms {
		read += d.dramReadBytes
		written += d.dramWriteBytes
	}
	// A write-back leaves the slice's dirty sectors before it reaches DRAM,
	// so while the engine runs the change can be negative.
	if dirty := f.dirtyBytes(); dirty >= f.dirtyAtReset {
		written += dirty - f.dirtyAtReset
	} else {
		written -= min(written, f.dirtyAtReset-dirty)
	}
	return read, written
}

func (f *fabric) resetStats() {
	f.lock()
	defer f.unlock()
	for _, d := range f.doms {
		d.dramReadBytes, d.dramWriteBytes = 0, 0
		clear(d.linkBytes)
		d.linkQueued = 0
	}
	f.dirtyAtReset = f.dirtyBytes()
}

// dirtyHolder is an L2 slice's record of the bytes it holds dirty.
type dirtyHolder interface{ dirtyTotal() uint64 }

// dirtyBytes returns the bytes the L2 slices hold dirty (whole sectors).
func (f *fabric) dirtyBytes() uint64 {
	n := uint64(0)
	for _, h := range f.dirtyHolders {
		n += h.dirtyTotal()
	}
	return n
}

func (f *fabric) mustEnd(port sim.Port, what string) *fabricEnd {
	switch p := port.(type) {
	case *sim.LimitNumMsgPort:
		if end := f.akitaEnds[p]; end != nil {
			return end
		}
	case slotted:
		if sl := p.endSlot(); sl.fabric == f {
			return sl.end
		}
	}
	end := f.ends[port]
	if end == nil {
		name := "<nil>"
		if port != nil {
			name = port.Name()
		}
		panic(fmt.Sprintf("memsys: %s port %s, which is not plugged into %s",
			what, name, f.name))
	}
	return end
}

// cycleEpsilon absorbs floating-point error when times are compared in
// cycles.
const cycleEpsilon = 1e-6

// cycles converts an engine time to cycles, snapping values within
// cycleEpsilon of a whole cycle onto it.
func (f *fabric) cycles(t sim.VTimeInSec) float64 {
	c := float64(t) * float64(f.freq)
	if r := math.Round(c); math.Abs(c-r) < cycleEpsilon {
		return r
	}
	return c
}

// writtenBytes is the data a write moves: whole sectors that hold at least
// one dirty byte, or all of Data when there is no dirty mask.
func writtenBytes(w *mem.WriteReq, sectorSize int) int {
	if w.DirtyMask == nil {
		return len(w.Data)
	}
	n := 0
	for s := 0; s < len(w.DirtyMask); s += sectorSize {
		end := min(s+sectorSize, len(w.DirtyMask))
		for _, dirty := range w.DirtyMask[s:end] {
			if dirty {
				n += end - s
				break
			}
		}
	}
	return n
}

// fabricEvent runs the fabric's calendar at one cycle.
type fabricEvent struct {
	time   sim.VTimeInSec
	cycle  int64
	fabric *fabric
	dom    *fabricDomain
}

func (e *fabricEvent) Time() sim.VTimeInSec { return e.time }
func (e *fabricEvent) Handler() sim.Handler { return e.fabric }
func (e *fabricEvent) IsSecondary() bool    { return true }

type delivery struct {
	msg sim.Msg
	at  float64 // cycle at which the message may be delivered
	seq uint64  // send order, to break ties
	src *fabricEnd
}

// cycleMap maps cycles to values. A calendar's pending cycles lie within
// some thousands of cycles of now, so most sit in a ring indexed by the
// cycle, found without hashing; one whose slot another cycle holds goes to
// a map. (Go maps here took some 2% of a full-occupancy BFS level.)
type cycleMap[V any] struct {
	ring []cycleSlot[V]
	mask int64 // len(ring) - 1
	far  map[int64]V
}

type cycleSlot[V any] struct {
	key int64 // cycle + 1; 0: empty
	v   V
}

// cycleRing is the ring's size, a power of two; smCycleRing an SM's
// domain's (fabricDomain), whose deliveries are due sooner and whose ring
// is one of many.
const (
	cycleRing   = 4096
	smCycleRing = 1024
)

func newCycleMap[V any](size int) cycleMap[V] {
	return cycleMap[V]{ring: make([]cycleSlot[V], size), mask: int64(size - 1), far: map[int64]V{}}
}

func (m *cycleMap[V]) get(c int64) (V, bool) {
	if s := &m.ring[c&m.mask]; s.key == c+1 {
		return s.v, true
	}
	if len(m.far) > 0 {
		v, ok := m.far[c]
		return v, ok
	}
	var zero V
	return zero, false
}

func (m *cycleMap[V]) put(c int64, v V) {
	if len(m.far) > 0 {
		if _, ok := m.far[c]; ok {
			m.far[c] = v
			return
		}
	}
	if s := &m.ring[c&m.mask]; s.key == 0 || s.key == c+1 {
		s.key, s.v = c+1, v
		return
	}
	m.far[c] = v
}

func (m *cycleMap[V]) del(c int64) {
	if s := &m.ring[c&m.mask]; s.key == c+1 {
		*s = cycleSlot[V]{}
		return
	}
	delete(m.far, c)
}

// wakeBucket is the ports to wake at one cycle, in the order asked.
type wakeBucket struct {
	cycle int64
	ends  []*fabricEnd
}

type wakeCycle int64

func (d delivery) before(o delivery) bool {
	if d.at != o.at {
		return d.at < o.at
	}
	return d.seq < o.seq
}

func (c wakeCycle) before(o wakeCycle) bool { return c < o }

// deliveryQueue holds a port's messages sorted by (at, seq): a message
// goes in after those before it, found from the back, where it mostly
// belongs (messages into a port mostly arrive in the order sent), so a
// push costs a comparison or two and a pop none, against a heap's sift.
// It pops in the order a heap would: (at, seq) is a total order.
type deliveryQueue struct {
	items []delivery
	head  int
}

func (q *deliveryQueue) len() int        { return len(q.items) - q.head }
func (q *deliveryQueue) peek() *delivery { return &q.items[q.head] }

func (q *deliveryQueue) push(d delivery) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		// Reuse the popped front before the slice grows.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	n := len(q.items)
	if n == q.head || !d.before(q.items[n-1]) {
		q.items = append(q.items, d)
		return
	}
	// Out of order (answers of different latencies into one port): a
	// binary search and one move, rather than a swap per later message.
	at := q.head + sort.Search(n-q.head, func(i int) bool { return d.before(q.items[q.head+i]) })
	q.items = append(q.items, delivery{})
	copy(q.items[at+1:], q.items[at:n])
	q.items[at] = d
}

func (q *deliveryQueue) pop() delivery {
	d := q.items[q.head]
	q.items[q.head] = delivery{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return d
}

// minHeap is a binary min-heap. It is typed rather than built on
// container/heap so that pushes do not box their items.
type minHeap[T interface{ before(T) bool }] struct {
	items []T
}

func (h *minHeap[T]) len() int { return len(h.items) }
func (h *minHeap[T]) peek() *T { return &h.items[0] }

func (h *minHeap[T]) push(x T) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !h.items[i].before(h.items[parent]) {
			break
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *minHeap[T]) pop() T {
	var zero T
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items[last] = zero
	h.items = h.items[:last]
	i := 0
	for {
		l, r := 2*i+1, 2*i+2
		smallest := i
		if l < last && h.items[l].before(h.items[smallest]) {
			smallest = l
		}
		if r < last && h.items[r].before(h.items[smallest]) {
			smallest = r
		}
		if smallest == i {
			return top
		}
		h.items[i], h.items[smallest] = h.items[smallest], h.items[i]
		i = smallest
	}
}

// sinkPort is the port of one of the system's event-driven models (the
// sectored L1): the fabric's delivery hands each message straight to the
// model instead of queuing it for a Tick. Refusing a message makes the
// fabric hold it until the model calls the fabric's NotifyAvailable.
type sinkPort struct {
	sim.HookableBase
	EndSlot

	name   string
	conn   sim.Connection
	accept func(msg sim.Msg, now sim.VTimeInSec) bool
	// owner is the component the model presents to monitors and tracers
	// (the sectored L2 and its DRAM channel), or nil (the sectored L1).
	owner sim.Component
}

func newSinkPort(name string, accept func(sim.Msg, sim.VTimeInSec) bool) *sinkPort {
	sim.NameMustBeValid(name)
	return &sinkPort{name: name, accept: accept}
}

func (p *sinkPort) Name() string                   { return p.name }
func (p *sinkPort) SetConnection(c sim.Connection) { p.conn = c }

// Component returns the model's component, or nil when the model is not
// one.
func (p *sinkPort) Component() sim.Component {
	if p.owner == nil {
		return nil
	}
	return p.owner
}

// Recv hands a delivered message to the model.
func (p *sinkPort) Recv(msg sim.Msg) *sim.SendError {
	if !p.accept(msg, msg.Meta().RecvTime) {
		return sim.NewSendError()
	}
	return nil
}

// NotifyAvailable does nothing: a model's sends never fail.
func (p *sinkPort) NotifyAvailable(sim.VTimeInSec) {}

func (p *sinkPort) CanSend() bool                   { return p.conn.CanSend(p) }
func (p *sinkPort) Send(msg sim.Msg) *sim.SendError { return p.conn.Send(msg) }

// Retrieve and Peek return nil: nothing waits in a sink port.
func (p *sinkPort) Retrieve(sim.VTimeInSec) sim.Msg { return nil }
func (p *sinkPort) Peek() sim.Msg                   { return nil }

// pairOffset is the fixed part of the route from SM sm to slice slice that
// differs from the mean: uniform over [-spread/2, spread/2) by a hash of
// the pair, so that a chase over many slices averages to the configured
// latency while a warp's gather, which waits for its slowest line, waits
// longer (on the H100 each SM's loads to 64 words spread over the L2 take
// from 256-279 to 304-340 cycles).
func (f *fabric) pairOffset(sm, slice int) float64 {
	x := uint64(sm)<<20 | uint64(slice)
	// splitmix64's finaliser: every input bit moves every output bit.
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	x ^= x >> 31
	u := float64(x>>11) / (1 << 53)
	return (u - 0.5) * f.spread
}

// dramRows are a DRAM channel's open rows, most recently used first: a
// controller that keeps several banks' rows open and serves the requests
// to open rows together sees a stream's accesses as row hits and scattered
// ones as misses. A row is rowBytes of the channel's own addresses; the
// L2's chunks spread consecutive addresses over its slices, so a channel's
// row covers rowBytes × slices of the address space.
type dramRows struct {
	span     uint64   // address bytes one row covers
	open     []uint64 // its capacity is the rows kept open
	missCost float64
}

func newDRAMRows(rowBytes, slices, open int, missBytes float64) *dramRows {
	return &dramRows{span: uint64(rowBytes) * uint64(slices), open: make([]uint64, 0, open), missCost: missBytes}
}

// access returns the extra bytes an access to addr costs and marks its row
// the most recently used.
func (r *dramRows) access(addr uint64) float64 {
	row := addr / r.span
	for i, x := range r.open {
		if x == row {
			copy(r.open[1:i+1], r.open[:i])
			r.open[0] = row
			return 0
		}
	}
	if len(r.open) < cap(r.open) {
		r.open = append(r.open, 0)
	}
	copy(r.open[1:], r.open[:len(r.open)-1])
	r.open[0] = row
	return r.missCost
}
