package memsys

import (
	"fmt"
	"math"
	"slices"

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
// distinct words cost one pass, same-word contention a lane each. With
// AtomicSameLineCycles set, a request on the line of the unit's previous
// request chains its same-word lanes at that cost instead: one SM working
// one line's words goes faster than many SMs alternating between lines
// (sim/configs/README.md, "Global atomics at full scale"). With
// AtomicOpenLinePassCycles set, a request on an open line takes that issue
// slot instead of 1/AtomicOpsPerCycle.
//
// With AtomicLineTurnCycles set, two requests on one line start at least
// that many cycles apart (a line's read-modify-write in flight holds the
// next one on it), and the unit waits with the later one.
//
// With AtomicLineLoadCycles set, a line with atomics booked on it is one
// queue for strong loads too: such a load that reaches the slice while
// atomics are booked on it waits for them at the line (not in the slice's
// lookup queue) and then holds the line, AtomicLineLoadCycles for the first
// load behind an atomic and AtomicLineLoadExtraCycles for each further one,
// and atomics booked after it start once it is done (bookLoad). On the
// H100 a chain of atomics on one word slows 2.2x when one warp per CTA
// polls a word of the same line, 5.3x with seven, and hardly at all for a
// word 4 KB away (results/atomic-poll); a queue's head, tail and counters
// share one line in Atos's workers.
//
// Like the sectored caches it is event-driven: the fabric hands it each
// request and each L2 acknowledgement at delivery. The completion time is
// known when the sector arrives from L2, so the answer is sent then, with
// the delay until it, and the unit costs no events of its own. Its state
// is guarded by the fabric's lock. It is an akita component only so that a
// monitor lists it.
type atomicUnit struct {
	*sim.ComponentBase
	fabric *fabric

	topPort *sinkPort // AtomicReqs in, AtomicRsps out
	l2Port  *sinkPort // sector writes to the slice, WriteDoneRsps back
	l2Dst   sim.Port
	// loadPort holds the strong loads queued at a line until their hold
	// ends (the slice forwards them here with that delay, and answers them
	// on delivery): answering at once with the delay would reserve the
	// slice's and the L1's data links from the send, so one queued load
	// would hold back every answer behind it.
	loadPort *sinkPort
	slice    *sectoredL2

	ids        *IDSource
	zeroSector []byte

	aluLatency     float64 // cycles from an operation's start to its end
	cyclesPerOp    float64 // issue interval of the ALU
	sameAddrCycles float64 // how long an operation holds its address
	sameLineCycles float64 // the same, after a request on the same line (0: off)
	openPassCycles float64 // the issue slot of a request on an open line (0: cyclesPerOp)
	oneWordCycles  float64 // the same, in a request on one word (0: off)
	oneWordOpen    bool    // oneWordCycles only on an open line
	sectorPasses   bool    // the sector model: one pass per request
	lineBytes      uint64
	// packetLineCycles and packetSectorCycles are what a packet's further
	// lines and sectors add to its pass (Config.AtomicPacketLineCycles).
	packetLineCycles, packetSectorCycles float64
	// openLines are the lines of the last requests booked, most recent
	// first (noLine: none yet); a request on one of them pays
	// sameLineCycles per lane.
	openLines      []uint64
	lineLoadCycles float64 // how long the first load behind an atomic holds its line (0: loads pass)
	// lineLoadExtraCycles is what each further load queued behind the
	// same atomics adds.
	lineLoadExtraCycles float64

	// lineBusy is when the last operation booked on each line (an atomic
	// lane or a load) releases it, and loadHeld when the last load booked
	// on it does; kept only with lineLoadCycles set.
	lineBusy, loadHeld map[uint64]float64
	// lineTurnCycles is Config.AtomicLineTurnCycles, and lineTurn when
	// each line may start its next request (kept only with it set).
	lineTurnCycles float64
	lineTurn       map[uint64]float64

	waitingForL2 map[uint64]*AtomicReq // by the sector write's ID number
	aluFree      float64               // next free issue slot, in cycles
	addrFree     map[uint64]float64    // when each address is free again
	purgeAt      int                   // addrFree size that triggers a purge

	stats AtomicStats
}

// Handle does nothing: the unit schedules no events.
func (u *atomicUnit) Handle(sim.Event) error { return nil }

// NotifyRecv and NotifyPortFree do nothing: the fabric delivers to the
// unit's sink ports directly, and the unit's sends never fail.
func (u *atomicUnit) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (u *atomicUnit) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// accept takes an atomic request and sends its sector write to L2 (a
// packet: one write per sector).
func (u *atomicUnit) accept(msg sim.Msg, now sim.VTimeInSec) bool {
	req, ok := msg.(*AtomicReq)
	if !ok {
		panic(fmt.Sprintf("memsys: %s cannot handle %T", u.Name(), msg))
	}
	if req.Sectors == nil {
		req.writesDue = 1
		u.writeSector(req, req.SectorAddress, now)
	} else {
		req.writesDue = len(req.Sectors)
		for _, sec := range req.Sectors {
			u.writeSector(req, sec, now)
		}
	}
	return true
}

// writeSector sends req's write of the sector at addr to L2.
func (u *atomicUnit) writeSector(req *AtomicReq, addr uint64, now sim.VTimeInSec) {
	write := &mem.WriteReq{
		Address: addr,
		Data:    u.zeroSector,
	}
	write.ID = u.ids.Next()
	write.Src = u.l2Port
	write.Dst = u.l2Dst
	write.SendTime = now
	write.TrafficBytes = len(u.zeroSector)
	u.waitingForL2[u.ids.Last()] = req
	u.fabric.sendDelayed(write, 0)
}

// acceptSector takes L2's acknowledgement of a sector write, books the
// request's operations on the ALU and sends its answer, due when the last
// one finishes.
func (u *atomicUnit) acceptSector(msg sim.Msg, now sim.VTimeInSec) bool {
	done, ok := msg.(*mem.WriteDoneRsp)
	if !ok {
		panic(fmt.Sprintf("memsys: %s got %T from L2", u.Name(), msg))
	}
	num, _ := u.ids.Number(done.RespondTo)
	req := u.waitingForL2[num]
	if req == nil {
		panic(fmt.Sprintf("memsys: %s got a response to unknown write %s", u.Name(), done.RespondTo))
	}
	delete(u.waitingForL2, num)
	if req.writesDue--; req.writesDue > 0 {
		return true // a packet waits for its last sector
	}
	nowCycle := u.fabric.cycles(now)
	finish := u.execute(nowCycle, req)
	rsp := &AtomicRsp{RespondTo: req.ID}
	rsp.ID = u.ids.Next()
	rsp.Src = u.topPort
	rsp.Dst = req.Src
	rsp.SendTime = now
	u.fabric.sendDelayed(rsp, math.Max(0, finish-nowCycle))
	return true
}

// execute books the request's operations on the ALU and returns the cycle
// the last one finishes.
func (u *atomicUnit) execute(nowCycle float64, req *AtomicReq) float64 {
	finish := nowCycle
	u.stats.Requests++
	if u.sectorPasses {
		return u.executePass(nowCycle, req)
	}
	for _, op := range req.Ops {
		for range op.Lanes {
			slot := math.Max(u.aluFree, nowCycle)
			u.aluFree = slot + u.cyclesPerOp
			start := math.Max(slot, u.loadHeldUntil(op.Address))
			if free, busy := u.addrFree[op.Address]; busy && free > start {
				start = free
				u.stats.SameAddressWaitCycles += free - slot
				// The operations still ahead on this address, plus this one.
				depth := 1 + int(math.Ceil((free-slot)/math.Max(u.sameAddrCycles, 1e-9)-cycleEpsilon))
				u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, depth)
			} else {
				u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, 1)
			}
			u.addrFree[op.Address] = start + u.sameAddrCycles
			u.markLineBusy(op.Address, start+u.sameAddrCycles)
			finish = math.Max(finish, start+u.aluLatency)
			u.stats.Operations++
		}
	}
	u.purgeIdleAddresses(nowCycle)
	return finish
}

// executePass books a request in the sector model and returns the cycle
// its last lane finishes: each word's lanes in sequence from when the word
// is free, all words together, and the unit busy for one issue slot after
// the longest chain's last lane has started (1/AtomicOpsPerCycle + (lanes
// - 1) × AtomicSameAddressCycles for a request free to start).
func (u *atomicUnit) executePass(nowCycle float64, req *AtomicReq) float64 {
	slot := math.Max(u.aluFree, nowCycle)
	pass := u.cyclesPerOp
	perLane := u.sameAddrCycles
	open := false
	if u.sameLineCycles > 0 || u.openPassCycles > 0 || u.oneWordOpen {
		open = u.openLine(u.lineOf(req.SectorAddress))
		if open {
			if u.sameLineCycles > 0 {
				perLane = u.sameLineCycles
			}
			if u.openPassCycles > 0 {
				pass = u.openPassCycles
			}
		}
	}
	pass += u.packetCycles(req)
	busyUntil := slot + pass
	finish := slot
	if u.oneWordCycles > 0 && len(req.Ops) == 1 && (open || !u.oneWordOpen) {
		perLane = u.oneWordCycles
	}
	afterLoads := math.Max(slot, u.loadHeldUntil(req.SectorAddress))
	if u.lineTurnCycles > 0 {
		line := u.lineOf(req.SectorAddress)
		afterLoads = math.Max(afterLoads, u.lineTurn[line])
		u.lineTurn[line] = afterLoads + u.lineTurnCycles
	}
	for _, op := range req.Ops {
		start := afterLoads
		if free, busy := u.addrFree[op.Address]; busy && free > start {
			start = free
		}
		chain := float64(op.Lanes-1) * perLane
		u.stats.SameAddressWaitCycles += start - slot + chain
		u.stats.MaxSameAddressDepth = max(u.stats.MaxSameAddressDepth, op.Lanes)
		u.addrFree[op.Address] = start + chain + perLane
		u.markLineBusy(op.Address, start+chain+perLane)
		busyUntil = math.Max(busyUntil, start+chain+pass)
		finish = math.Max(finish, start+chain+u.aluLatency)
		u.stats.Operations += uint64(op.Lanes)
	}
	u.aluFree = busyUntil
	u.purgeIdleAddresses(nowCycle)
	return finish
}

// packetCycles is what a packet's further lines and sectors add to its
// pass (0 for a request of one sector).
func (u *atomicUnit) packetCycles(req *AtomicReq) float64 {
	if len(req.Sectors) < 2 || (u.packetLineCycles == 0 && u.packetSectorCycles == 0) {
		return 0
	}
	lines := 0 // distinct lines among the sectors
	for i, sec := range req.Sectors {
		if !slices.ContainsFunc(req.Sectors[:i], func(prev uint64) bool { return u.lineOf(prev) == u.lineOf(sec) }) {
			lines++
		}
	}
	return float64(lines-1)*u.packetLineCycles + float64(len(req.Sectors)-lines)*u.packetSectorCycles
}

// bookLoad books a strong load of lineAddr that reaches the slice at
// cycle. When work is booked on the line past cycle, the load queues at the
// line instead of taking a lookup slot: the first load behind an atomic
// holds the line lineLoadCycles, each further load in that batch
// lineLoadExtraCycles more, and the load answers when its hold ends (end,
// queued true). Otherwise it does not touch the line (queued false).
func (u *atomicUnit) bookLoad(lineAddr uint64, cycle float64) (end float64, queued bool) {
	if u.lineLoadCycles == 0 {
		return cycle, false
	}
	busy, ok := u.lineBusy[lineAddr]
	if !ok || busy <= cycle {
		return cycle, false
	}
	if u.loadHeld[lineAddr] == busy {
		end = busy + u.lineLoadExtraCycles // the last booked is a load: same batch
	} else {
		end = busy + u.lineLoadCycles
	}
	u.lineBusy[lineAddr] = end
	u.loadHeld[lineAddr] = end
	u.stats.LoadsBehindAtomics++
	u.stats.LoadBehindAtomicsCycles += end - cycle
	return end, true
}

// backlogEnd is the cycle the unit's issue calendar frees: the end of the
// operations booked so far (Config.L2StoresWaitForAtomics).
func (u *atomicUnit) backlogEnd() float64 { return u.aluFree }

// holdLoad sends a strong load queued at its line to the unit's load
// port, to arrive when its hold ends.
func (u *atomicUnit) holdLoad(msg sim.Msg, delay float64) {
	msg.Meta().Dst = u.loadPort
	u.fabric.forward(msg, u.loadPort, delay)
}

// acceptHeldLoad answers a queued strong load whose hold has ended.
func (u *atomicUnit) acceptHeldLoad(msg sim.Msg, _ sim.VTimeInSec) bool {
	u.slice.answer(msg, false, u.slice.responseDelay)
	return true
}

// loadHeldUntil is when the loads booked on addr's line release it.
func (u *atomicUnit) loadHeldUntil(addr uint64) float64 {
	if u.lineLoadCycles == 0 {
		return 0
	}
	return u.loadHeld[u.lineOf(addr)]
}

// openLine reports whether line is among the unit's open lines and makes
// it the most recent, opening it in place of the least recent if it was
// not.
func (u *atomicUnit) openLine(line uint64) bool {
	open := u.openLines
	i := 0
	for i < len(open)-1 && open[i] != line {
		i++
	}
	hit := open[i] == line
	copy(open[1:i+1], open[:i])
	open[0] = line
	return hit
}

// lineOf is the address of addr's line, the key of lineBusy and loadHeld
// (and, compared with the open lines, of the same-line cost).
func (u *atomicUnit) lineOf(addr uint64) uint64 { return addr / u.lineBytes * u.lineBytes }

// markLineBusy records that addr's line is busy until free.
func (u *atomicUnit) markLineBusy(addr uint64, free float64) {
	if u.lineLoadCycles == 0 {
		return
	}
	line := u.lineOf(addr)
	if free > u.lineBusy[line] {
		u.lineBusy[line] = free
	}
}

// purgeIdleAddresses forgets addresses and lines that are free again, once
// the table has doubled since the last purge, to keep it small on long
// runs.
func (u *atomicUnit) purgeIdleAddresses(nowCycle float64) {
	if len(u.addrFree)+len(u.lineBusy)+len(u.lineTurn) < u.purgeAt {
		return
	}
	for line, next := range u.lineTurn {
		if next <= nowCycle {
			delete(u.lineTurn, line)
		}
	}
	for addr, free := range u.addrFree {
		if free <= nowCycle {
			delete(u.addrFree, addr)
		}
	}
	for line, free := range u.lineBusy {
		if free <= nowCycle {
			delete(u.lineBusy, line)
			delete(u.loadHeld, line)
		}
	}
	u.purgeAt = max(1024, 2*(len(u.addrFree)+len(u.lineBusy)+len(u.lineTurn)))
}

// snapshot returns the unit's counters.
func (u *atomicUnit) snapshot() AtomicStats {
	u.fabric.lock()
	defer u.fabric.unlock()
	return u.stats
}

func (u *atomicUnit) resetStats() {
	u.fabric.lock()
	defer u.fabric.unlock()
	u.stats = AtomicStats{}
}

// noLine is no line: the unit has booked no request yet.
const noLine = math.MaxUint64
