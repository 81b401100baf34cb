package memsys

import (
	"fmt"
	"math"
	"sync"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// atomicUnit performs the atomics of one L2 slice. For each AtomicReq it
// first writes the sector through its slice's L2 (so a missing line is
// fetched from DRAM and the line becomes dirty), then runs the lane
// operations on its ALU and answers the SM.
//
// The ALU is a reservation calendar rather than a pipeline that ticks. In
// the lane model each lane operation takes the next issue slot
// (1/AtomicOpsPerCycle cycles apart), starts when its address is free,
// holds the address for AtomicSameAddressCycles and finishes atomicALU
// cycles after it starts. In the sector model (sectorPasses) a request
// is one pass for all its words, which proceed together; the lanes on one
// word follow one another AtomicSameAddressCycles apart, and the next
// request starts one issue slot after the request's longest such chain:
// distinct words cost one pass, same-word contention a lane each. The
// completion time is known when the sector arrives from L2, so one event
// answers the request and the unit costs nothing while it waits. With
// AtomicSameLineCycles set, a request on the line of the unit's previous
// request chains its same-word lanes at that cost instead: one SM working
// one line's words goes faster than many SMs alternating between lines
// (sim/configs/README.md, "Global atomics at full scale").
//
// Its ticks and its completion events may fall on the same time, which
// akita's parallel engine runs concurrently; mu serialises them and guards
// everything below it, the address table and the stats included.
type atomicUnit struct {
	*sim.TickingComponent

	mu sync.Mutex

	topPort sim.Port // AtomicReqs in, AtomicRsps out
	l2Port  sim.Port // sector writes to the slice, WriteDoneRsps back
	l2Dst   sim.Port

	ids        *IDSource
	zeroSector []byte

	aluLatency     float64 // cycles from an operation's start to its end
	cyclesPerOp    float64 // issue interval of the ALU
	sameAddrCycles float64 // how long an operation holds its address
	sameLineCycles float64 // the same, after a request on the same line (0: off)
	sectorPasses   bool    // the sector model: one pass per request
	lineBytes      uint64
	lastLine       uint64 // the line of the last request booked (noLine: none)

	waitingForL2 map[string]*AtomicReq // by the ID of the sector write
	toSend       []*AtomicRsp          // responses the fabric refused
	aluFree      float64               // next free issue slot, in cycles
	addrFree     map[uint64]float64    // when each address is free again
	purgeAt      int                   // addrFree size that triggers a purge

	stats AtomicStats
}

func (u *atomicUnit) Tick(now sim.VTimeInSec) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	progress := u.sendResponses()
	progress = u.collectSectors(now) || progress
	progress = u.acceptRequests(now) || progress
	return progress
}

// sendResponses retries the responses the fabric refused, in order.
func (u *atomicUnit) sendResponses() bool {
	progress := false
	for len(u.toSend) > 0 {
		if u.topPort.Send(u.toSend[0]) != nil {
			break
		}
		u.toSend[0] = nil
		u.toSend = u.toSend[1:]
		progress = true
	}
	return progress
}

// collectSectors takes the L2's acknowledgements and schedules the ALU work
// of the requests whose sector is now at hand.
func (u *atomicUnit) collectSectors(now sim.VTimeInSec) bool {
	progress := false
	for {
		msg := u.l2Port.Retrieve(now)
		if msg == nil {
			return progress
		}
		done, ok := msg.(*mem.WriteDoneRsp)
		if !ok {
			panic(fmt.Sprintf("memsys: %s got %T from L2", u.Name(), msg))
		}
		req := u.waitingForL2[done.RespondTo]
		if req == nil {
			panic(fmt.Sprintf("memsys: %s got a response to unknown write %s",
				u.Name(), done.RespondTo))
		}
		delete(u.waitingForL2, done.RespondTo)
		u.execute(now, req)
		progress = true
	}
}

// acceptRequests sends the sector write of each new request to L2. A request
// leaves the port only once its write is on its way, so a busy L2 pushes
// back on the SMs.
func (u *atomicUnit) acceptRequests(now sim.VTimeInSec) bool {
	progress := false
	for {
		msg := u.topPort.Peek()
		if msg == nil {
			return progress
		}
		req, ok := msg.(*AtomicReq)
		if !ok {
			panic(fmt.Sprintf("memsys: %s cannot handle %T", u.Name(), msg))
		}
		write := &mem.WriteReq{
			Address: req.SectorAddress,
			Data:    u.zeroSector,
		}
		write.ID = u.ids.Next()
		write.Src = u.l2Port
		write.Dst = u.l2Dst
		write.SendTime = now
		write.TrafficBytes = len(u.zeroSector)
		if u.l2Port.Send(write) != nil {
			return progress
		}
		u.topPort.Retrieve(now)
		u.waitingForL2[write.ID] = req
		progress = true
	}
}

// execute books the request's operations on the ALU and schedules its
// response at the cycle the last one finishes.
func (u *atomicUnit) execute(now sim.VTimeInSec, req *AtomicReq) {
	arrive := u.Freq.Cycle(now)
	nowCycle := float64(arrive)
	finish := nowCycle
	u.stats.Requests++
	if u.sectorPasses {
		finish = u.executePass(nowCycle, req)
		u.scheduleDone(now, finish, req)
		return
	}
	for _, op := range req.Ops {
		for range op.Lanes {
			slot := math.Max(u.aluFree, nowCycle)
			u.aluFree = slot + u.cyclesPerOp
			start := slot
			if free, busy := u.addrFree[op.Address]; busy && free > slot {
				start = free
				u.stats.SameAddressWaitCycles += free - slot
				// The operations still ahead on this address, plus this one.
				depth := 1 + int(math.Ceil((free-slot)/math.Max(u.sameAddrCycles, 1e-9)-cycleEpsilon))
				u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, depth)
			} else {
				u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, 1)
			}
			u.addrFree[op.Address] = start + u.sameAddrCycles
			finish = math.Max(finish, start+u.aluLatency)
			u.stats.Operations++
		}
	}
	u.purgeIdleAddresses(nowCycle)
	u.scheduleDone(now, finish, req)
}

// executePass books a request in the sector model and returns the cycle
// its last lane finishes: each word's lanes in sequence from when the word
// is free, all words together, and the unit busy for one issue slot after
// the longest chain's last lane has started (1/AtomicOpsPerCycle + (lanes
// - 1) × AtomicSameAddressCycles for a request free to start).
func (u *atomicUnit) executePass(nowCycle float64, req *AtomicReq) float64 {
	slot := math.Max(u.aluFree, nowCycle)
	busyUntil := slot + u.cyclesPerOp
	finish := slot
	perLane := u.sameAddrCycles
	if line := req.SectorAddress / u.lineBytes; u.sameLineCycles > 0 {
		if line == u.lastLine {
			perLane = u.sameLineCycles
		}
		u.lastLine = line
	}
	for _, op := range req.Ops {
		start := slot
		if free, busy := u.addrFree[op.Address]; busy && free > slot {
			start = free
		}
		chain := float64(op.Lanes-1) * perLane
		u.stats.SameAddressWaitCycles += start - slot + chain
		u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, op.Lanes)
		u.addrFree[op.Address] = start + chain + perLane
		busyUntil = math.Max(busyUntil, start+chain+u.cyclesPerOp)
		finish = math.Max(finish, start+chain+u.aluLatency)
		u.stats.Operations += uint64(op.Lanes)
	}
	u.aluFree = busyUntil
	u.purgeIdleAddresses(nowCycle)
	return finish
}

// scheduleDone answers req at cycle finish (never before now).
func (u *atomicUnit) scheduleDone(now sim.VTimeInSec, finish float64, req *AtomicReq) {
	t := sim.VTimeInSec(finish / float64(u.Freq))
	if t < now {
		t = now
	}
	u.Engine.Schedule(&atomicDoneEvent{time: t, unit: u, req: req})
}

// purgeIdleAddresses forgets addresses that are free again, once the table
// has doubled since the last purge, to keep it small on long runs.
func (u *atomicUnit) purgeIdleAddresses(nowCycle float64) {
	if len(u.addrFree) < u.purgeAt {
		return
	}
	for addr, free := range u.addrFree {
		if free <= nowCycle {
			delete(u.addrFree, addr)
		}
	}
	u.purgeAt = max(1024, 2*len(u.addrFree))
}

// Handle answers a request whose operations have finished; tick events go
// to the embedded TickingComponent, which is their handler.
func (u *atomicUnit) Handle(e sim.Event) error {
	evt, ok := e.(*atomicDoneEvent)
	if !ok {
		return u.TickingComponent.Handle(e)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	rsp := &AtomicRsp{RespondTo: evt.req.ID}
	rsp.ID = u.ids.Next()
	rsp.Src = u.topPort
	rsp.Dst = evt.req.Src
	rsp.SendTime = evt.time
	if len(u.toSend) > 0 || u.topPort.Send(rsp) != nil {
		u.toSend = append(u.toSend, rsp)
		u.TickLater(evt.time)
	}
	return nil
}

// snapshot returns the unit's counters.
func (u *atomicUnit) snapshot() AtomicStats {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.stats
}

func (u *atomicUnit) resetStats() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stats = AtomicStats{}
}

// noLine is no line: the unit has booked no request yet.
const noLine = math.MaxUint64

type atomicDoneEvent struct {
	time sim.VTimeInSec
	unit *atomicUnit
	req  *AtomicReq
}

func (e *atomicDoneEvent) Time() sim.VTimeInSec { return e.time }
func (e *atomicDoneEvent) Handler() sim.Handler { return e.unit }
func (e *atomicDoneEvent) IsSecondary() bool    { return false }
