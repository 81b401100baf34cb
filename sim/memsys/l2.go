package memsys

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"
)

// sectoredL2 is one L2 slice of the default L2 model (Config.L2Model
// L2Sectored): a sectored, write-back, write-validate cache, as a GPU's L2
// with per-sector valid and dirty bits is.
//
//   - A load (an L1's fill, or a strong load that bypasses L1) hits when
//     every sector it reads is valid. Otherwise it waits in the line's MSHR:
//     a line the slice does not hold is allocated at once (over an empty or
//     the least recently used way whose sectors are not being fetched,
//     writing the victim's dirty sectors back) and fetched whole from DRAM;
//     a line it holds only in part (stores brought it) fetches the sectors
//     the load lacks, one request per run of consecutive sectors.
//   - A store never reads DRAM: it makes the sectors it writes whole valid
//     and every sector it touches dirty, allocating its line if needed, and
//     is answered after the slice's pipeline.
//   - An atomic unit's sector write reads its sector (a load's miss, then
//     dirty) and is answered once the sector is there.
//
// Like the sectored L1 it is event-driven: the fabric hands it each message
// when the message is delivered, it updates its tags and MSHRs at once and
// sends its answers and DRAM requests through the fabric with the delays
// they take. A lookup slot every 1/L2RequestsPerCycle cycles (a
// reservation, as the L1's) is its throughput; a request that finds no MSHR,
// no way to allocate, or the DRAM queue full is refused and waits in the
// fabric until the slice has room. It costs no ticks: akita's writeback
// cache ticks through four stages per request and fetches whole lines for
// partial stores, which the slice shadow (shadow.go) had to undo; that
// cache stays as Config.L2Model L2AkitaWriteback.
//
// Its state is guarded by the fabric's lock, as the sectored L1's is. It is
// an akita component only so that a monitor lists it and a tracer can hook
// it: with hooks, each request it takes is a req_in task (a hit's ends when
// its answer is scheduled, a miss's when the answer leaves after the fill)
// and each DRAM fetch a req_out task below the request that caused it. It
// never schedules an event of its own.
type sectoredL2 struct {
	*sim.ComponentBase
	fabric *fabric
	top    *sinkPort // requests from L1s and atomic units, answers to them
	bottom *sinkPort // DRAM requests out, fills back
	dram   *dramChannel
	// atomics is the slice's atomic unit: a load of a line with atomics
	// booked queues behind them (atomicUnit.bookLoad).
	atomics *atomicUnit

	lineShift, sectorShift uint
	fullLine               uint32 // every sector of a line
	fillSectors            int    // the sectors of a fill group (Config.L2FillBytes)
	numSets                uint64
	ways                   int
	lines                  []l2Line // set-major
	// tags are the lines' tags apart (noTag: the way is empty), so that a
	// lookup reads a set's 16 tags from two host cache lines rather than
	// its 16 lines from eight.
	tags     []uint64
	useClock uint64
	// setOf maps a line address to its set (linear interleaving strips the
	// slice's bits first, as akita's directory does).
	setOf func(lineAddr uint64) uint64

	maxMSHRs      int
	mshrs         lineTable[l2MSHR]  // by line address
	fetches       map[uint64]l2Fetch // by DRAM request ID's number
	ids           *IDSource
	lookupFree    float64
	cyclesPerLook float64
	// combineReads (Config.L2CombineReads): a read hit of the line whose
	// lookup slot is still ahead (combineLine, at combineSlot) shares that
	// lookup instead of taking a slot of its own.
	combineReads bool
	combineLine  uint64
	combineSlot  float64
	// storesWait (Config.L2StoresWaitForAtomics): a store is acknowledged
	// no earlier than the end of the atomic unit's backlog.
	storesWait bool
	// servers, under Config.L2ReadsInPartition, are the slices that serve
	// this slice's read hits for the SMs of each partition (index: the
	// reader's fabric partition - 1; itself for its own).
	servers []*sectoredL2
	// responseDelay is the slice's pipeline: cycles from a lookup (or a
	// fill) to the answer leaving.
	responseDelay float64
	// dramQueued counts the requests sent to the DRAM channel that it has
	// not yet taken (they wait for its bandwidth); at dramDepth the slice
	// stops taking requests.
	dramQueued, dramDepth int
	refused               bool

	stats      CacheStats
	dirtyBytes uint64

	zero []byte
	// dirtyMask is the System's shared, read-only byte mask of a span of
	// sectors (System.dirtyMask), for partial write-backs.
	dirtyMask func(mask uint32, span int) []bool
	// ownData: each answer carries data of its own rather than a piece of
	// zero, because akita's L1 models write into the data they receive.
	ownData  bool
	pools    *memPools
	doneRsps slab[mem.WriteDoneRsp]
}

type l2Line struct {
	tag      uint64 // line address (also in sectoredL2.tags)
	valid    uint32 // sectors held
	dirty    uint32 // sectors written since the line came in
	fetching uint32 // sectors on their way from DRAM: the line is pinned
	lastUse  uint64
}

type l2MSHR struct {
	line    uint64
	waiters []l2Waiter
}

type l2Waiter struct {
	msg    sim.Msg
	need   uint32 // sectors still missing
	atomic bool   // an atomic unit's sector write: answered with WriteDoneRsp, dirties
}

type l2Fetch struct {
	mshr    *l2MSHR
	sectors uint32
	req     *mem.ReadReq // for its trace and memPools
}

// Handle does nothing: the slice schedules no events (the fabric calls it).
func (c *sectoredL2) Handle(sim.Event) error { return nil }

// NotifyRecv and NotifyPortFree do nothing: the fabric delivers to the
// slice's sink ports directly, and the slice's sends never fail.
func (c *sectoredL2) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (c *sectoredL2) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// received and answered trace a request the slice took, with hooks.
func (c *sectoredL2) received(msg sim.Msg) {
	if c.NumHooks() > 0 {
		tracing.TraceReqReceive(msg, c)
	}
}

func (c *sectoredL2) answered(msg sim.Msg) {
	if c.NumHooks() > 0 {
		tracing.TraceReqComplete(msg, c)
	}
}

// accept handles a request delivered to the slice's top port.
func (c *sectoredL2) accept(msg sim.Msg, now sim.VTimeInSec) bool {
	if c.dramQueued >= c.dramDepth {
		return c.refuse()
	}
	cycle := c.fabric.cycles(now)
	switch req := msg.(type) {
	case *mem.ReadReq:
		mask := c.sectorsOf(req.Address, req.AccessByteSize)
		return c.read(req, req.Address>>c.lineShift<<c.lineShift, mask, false, cycle)
	case *mem.WriteReq:
		lineAddr := req.Address >> c.lineShift << c.lineShift
		if c.fabric.mustEnd(req.Src, "send from").atomic {
			mask := c.sectorsOf(req.Address, uint64(len(req.Data)))
			return c.read(req, lineAddr, mask, true, cycle)
		}
		return c.write(req, lineAddr, cycle)
	default:
		panic(fmt.Sprintf("memsys: %s cannot handle %T", c.Name(), msg))
	}
}

func (c *sectoredL2) refuse() bool {
	c.refused = true
	return false
}

// reserveLookup books the next lookup slot and returns the cycles from now
// until it.
func (c *sectoredL2) reserveLookup(cycle float64) float64 {
	slot := math.Max(cycle, c.lookupFree)
	c.lookupFree = slot + c.cyclesPerLook
	return slot - cycle
}

// lookupForHit returns the cycles from now until a hit's lookup: a slot of
// its own, or, under combineReads, a read's share of the slot the line's
// last read hit still waits for.
func (c *sectoredL2) lookupForHit(lineAddr uint64, atomic bool, cycle float64) float64 {
	combine := !atomic && c.combineReads
	if combine && c.combineLine == lineAddr && c.combineSlot >= cycle {
		return c.combineSlot - cycle
	}
	wait := c.reserveLookup(cycle)
	if combine {
		c.combineLine, c.combineSlot = lineAddr, cycle+wait
	}
	return wait
}

// fillOf is what a miss of a request's sectors on a line the slice does
// not hold fetches: the whole line, or the fill groups the sectors touch.
func (c *sectoredL2) fillOf(mask uint32) uint32 {
	if !c.groupFills() {
		return c.fullLine
	}
	return c.widen(mask)
}

// groupFills says whether the slice fetches fill groups smaller than a
// line (Config.L2FillBytes).
func (c *sectoredL2) groupFills() bool {
	k := c.fillSectors
	return k > 0 && uint32(1)<<k-1 != c.fullLine
}

// widen extends sectors to the whole fill groups they touch (unchanged
// without group fills: a line the slice holds in part fetches just its
// missing sectors).
func (c *sectoredL2) widen(mask uint32) uint32 {
	if !c.groupFills() {
		return mask
	}
	k := c.fillSectors
	group := uint32(1)<<k - 1
	var out uint32
	for at := 0; mask>>at != 0; at += k {
		if mask&(group<<at) != 0 {
			out |= group << at
		}
	}
	return out & c.fullLine
}

// read serves a load, or an atomic's sector write (atomic), which reads
// its sector first.
func (c *sectoredL2) read(msg sim.Msg, lineAddr uint64, mask uint32, atomic bool, cycle float64) bool {
	line := c.lookup(lineAddr)
	if line != nil && line.valid&mask == mask {
		c.touch(line)
		if atomic {
			c.stats.WriteHits++
			c.markDirty(line, mask)
		} else {
			c.stats.ReadHits++
		}
		c.received(msg)
		// A strong load of a line with atomics booked queues at the line
		// (atomicUnit.bookLoad); every other request takes a lookup slot.
		if !atomic && c.atomics != nil && isStrongRead(msg) {
			if end, queued := c.atomics.bookLoad(lineAddr, cycle); queued {
				c.atomics.holdLoad(msg, end-cycle)
				return true
			}
		}
		server := c
		if !atomic && c.servers != nil {
			if p := c.fabric.mustEnd(msg.Meta().Src, "read from").partition; p > 0 {
				server = c.servers[p-1]
			}
		}
		c.answered(msg)
		server.respond(msg, atomic, server.lookupForHit(lineAddr, atomic, cycle)+c.responseDelay)
		return true
	}
	m := c.mshrs.get(lineAddr)
	if m == nil {
		if c.mshrs.len() >= c.maxMSHRs {
			return c.refuse()
		}
		fetch := c.widen(mask)
		if line == nil {
			if line = c.allocate(lineAddr, cycle); line == nil {
				return c.refuse()
			}
			// A line the slice does not hold comes from DRAM whole, or
			// in the fill groups the request touches.
			fetch = c.fillOf(mask)
		}
		m = &l2MSHR{line: lineAddr}
		c.mshrs.put(lineAddr, m)
		wait := c.reserveLookup(cycle)
		c.received(msg)
		c.fetch(msg, m, line, fetch&^line.valid, wait)
		if atomic {
			c.stats.WriteMisses++
		} else {
			c.stats.ReadMisses++
		}
	} else {
		wait := c.reserveLookup(cycle)
		c.received(msg)
		if extra := c.widen(mask) &^ line.valid &^ line.fetching; extra != 0 {
			c.fetch(msg, m, line, extra, wait)
		}
		if atomic {
			c.stats.WriteMSHRHits++
		} else {
			c.stats.ReadMSHRHits++
		}
	}
	c.touch(line)
	m.waiters = append(m.waiters, l2Waiter{msg: msg, need: mask &^ line.valid, atomic: atomic})
	return true
}

// isStrongRead says whether msg is a strong load's read (StrongRead).
func isStrongRead(msg sim.Msg) bool {
	req, ok := msg.(*mem.ReadReq)
	if !ok {
		return false
	}
	_, strong := req.Info.(StrongRead)
	return strong
}

// write serves a store: no DRAM read, whatever it writes.
func (c *sectoredL2) write(req *mem.WriteReq, lineAddr uint64, cycle float64) bool {
	any, whole := writeSectors(req, lineAddr, 1<<c.lineShift, 1<<c.sectorShift)
	line := c.lookup(lineAddr)
	if line == nil {
		if line = c.allocate(lineAddr, cycle); line == nil {
			return c.refuse()
		}
		c.stats.WriteMisses++
	} else {
		c.stats.WriteHits++
	}
	wait := c.reserveLookup(cycle)
	if c.storesWait && c.atomics != nil {
		wait = math.Max(wait, c.atomics.backlogEnd()-cycle)
	}
	c.touch(line)
	line.valid |= whole
	c.markDirty(line, any)
	c.received(req)
	c.answer(req, true, wait+c.responseDelay)
	return true
}

// allocate takes a way for a line: an empty one, or the least recently
// used one not being filled, whose dirty sectors go back to DRAM. It
// returns nil when every way of the set waits for DRAM.
func (c *sectoredL2) allocate(lineAddr uint64, cycle float64) *l2Line {
	return c.allocateWay(lineAddr, true)
}

// noTag marks an empty way in sectoredL2.tags: no line address (they are
// line-aligned) is all ones.
const noTag = ^uint64(0)

// writeBack sends a line's dirty sectors to DRAM; they are no longer dirty
// in L2 (the channel counts them as written when they arrive).
func (c *sectoredL2) writeBack(line *l2Line) {
	sector := uint64(1) << c.sectorShift
	first := uint64(bits.TrailingZeros32(line.dirty))
	last := uint64(31 - bits.LeadingZeros32(line.dirty))
	w := &mem.WriteReq{
		Address: line.tag + first*sector,
		Data:    c.zero[:(last-first+1)*sector],
	}
	if span := line.dirty >> first; span != 1<<(last-first+1)-1 {
		w.DirtyMask = c.dirtyMask(span, int(last-first+1))
	}
	w.ID = c.ids.Next()
	w.Src = c.bottom
	w.Dst = c.dram.port
	c.toDRAM(w, 0)
	c.dirtyBytes -= uint64(bits.OnesCount32(line.dirty)) * sector
	line.dirty = 0
}

// fetch reads sectors of a line from DRAM for the request cause, one
// request per run of consecutive sectors, delay cycles from now.
func (c *sectoredL2) fetch(cause sim.Msg, m *l2MSHR, line *l2Line, sectors uint32, delay float64) {
	line.fetching |= sectors
	forEachRun(sectors, func(first, n int, run uint32) {
		req := c.pools.reads.new()
		req.Address = m.line + uint64(first)<<c.sectorShift
		req.AccessByteSize = uint64(n) << c.sectorShift
		req.ID = c.ids.Next()
		req.Src = c.bottom
		req.Dst = c.dram.port
		c.fetches[c.ids.Last()] = l2Fetch{mshr: m, sectors: run, req: req}
		if c.NumHooks() > 0 {
			tracing.TraceReqInitiate(req, c, tracing.MsgIDAtReceiver(cause, c))
		}
		c.toDRAM(req, delay)
	})
}

func (c *sectoredL2) toDRAM(msg sim.Msg, delay float64) {
	c.dramQueued++
	c.fabric.sendDelayed(msg, delay)
}

// dramTook is the DRAM channel's word that it took one of the slice's
// requests off its queue.
func (c *sectoredL2) dramTook() {
	c.dramQueued--
	c.wakeIfRefused()
}

func (c *sectoredL2) wakeIfRefused() {
	if c.refused && c.dramQueued < c.dramDepth {
		c.refused = false
		c.fabric.notifyAvailable(c.top)
	}
}

// acceptFill installs sectors DRAM returned and answers the requests that
// now have all theirs.
func (c *sectoredL2) acceptFill(msg sim.Msg, _ sim.VTimeInSec) bool {
	rsp, ok := msg.(*mem.DataReadyRsp)
	if !ok {
		panic(fmt.Sprintf("memsys: %s got %T from DRAM", c.Name(), msg))
	}
	num, _ := c.ids.Number(rsp.RespondTo)
	f, ok := c.fetches[num]
	if !ok {
		panic(fmt.Sprintf("memsys: %s got a fill for unknown request %s", c.Name(), rsp.RespondTo))
	}
	delete(c.fetches, num)
	if c.NumHooks() > 0 {
		tracing.TraceReqFinalize(f.req, c)
	}
	m := f.mshr
	line := c.lookup(m.line)
	line.valid |= f.sectors
	line.fetching &^= f.sectors

	kept := m.waiters[:0]
	for _, w := range m.waiters {
		w.need &^= f.sectors
		if w.need != 0 {
			kept = append(kept, w)
			continue
		}
		if w.atomic {
			c.markDirty(line, c.sectorsOfMsg(w.msg))
		}
		c.answer(w.msg, w.atomic, c.responseDelay)
	}
	clear(m.waiters[len(kept):])
	m.waiters = kept
	if line.fetching == 0 {
		c.mshrs.del(m.line)
		if len(m.waiters) != 0 {
			panic(fmt.Sprintf("memsys: %s: line %#x filled with %d requests still waiting", c.Name(), m.line, len(m.waiters)))
		}
	}
	c.wakeIfRefused()
	if c.pools.reuse(c.fabric, rsp, f.req) {
		c.pools.answers.give(rsp)
		c.pools.reads.give(f.req)
	}
	return true
}

// answer sends a load its data, or a store or atomic sector write its
// acknowledgement, delay cycles from now.
func (c *sectoredL2) answer(msg sim.Msg, write bool, delay float64) {
	c.answered(msg)
	c.respond(msg, write, delay)
}

// respond sends the answer from this slice's port (answer's second half:
// a peer serving a read hit for its home slice sends it).
func (c *sectoredL2) respond(msg sim.Msg, write bool, delay float64) {
	meta := msg.Meta()
	if write {
		rsp := c.doneRsps.new()
		rsp.RespondTo = meta.ID
		rsp.ID = c.ids.Next()
		rsp.Src = c.top
		rsp.Dst = meta.Src
		c.fabric.sendDelayed(rsp, delay)
		return
	}
	req := msg.(*mem.ReadReq)
	rsp := c.pools.answers.new()
	rsp.RespondTo = meta.ID
	if c.ownData {
		rsp.Data = make([]byte, req.AccessByteSize)
	} else {
		rsp.Data = c.zero[:req.AccessByteSize]
	}
	rsp.ID = c.ids.Next()
	rsp.Src = c.top
	rsp.Dst = meta.Src
	c.fabric.sendDelayed(rsp, delay)
}

func (c *sectoredL2) markDirty(line *l2Line, sectors uint32) {
	added := sectors &^ line.dirty
	line.dirty |= sectors
	c.dirtyBytes += uint64(bits.OnesCount32(added)) << c.sectorShift
}

// sectorsOf returns the sectors of its line that [addr, addr+n) touches.
func (c *sectoredL2) sectorsOf(addr, n uint64) uint32 {
	mask, ok := sectorSpan(addr, n, c.lineShift, c.sectorShift)
	if !ok {
		panic(fmt.Sprintf("memsys: %s: request of %d bytes at %#x does not fit one line", c.Name(), n, addr))
	}
	return mask
}

func (c *sectoredL2) sectorsOfMsg(msg sim.Msg) uint32 {
	w := msg.(*mem.WriteReq)
	return c.sectorsOf(w.Address, uint64(len(w.Data)))
}

func (c *sectoredL2) lookup(lineAddr uint64) *l2Line {
	base := c.setOf(lineAddr) * uint64(c.ways)
	for i, t := range c.tags[base : base+uint64(c.ways)] {
		if t == lineAddr {
			return &c.lines[base+uint64(i)]
		}
	}
	return nil
}

func (c *sectoredL2) touch(line *l2Line) {
	c.useClock++
	line.lastUse = c.useClock
}

func (c *sectoredL2) snapshot() CacheStats {
	c.fabric.lock()
	defer c.fabric.unlock()
	return c.stats
}

func (c *sectoredL2) reset() {
	c.fabric.lock()
	defer c.fabric.unlock()
	c.stats = CacheStats{}
}

func (c *sectoredL2) dirtyTotal() uint64 { return c.dirtyBytes }

// dramChannel is the DRAM channel behind a sectored L2 slice: it answers a
// read after its latency; the fabric's link in front of it (endSpec.dram)
// charges the channel's bandwidth, reads and writes together, and counts
// the bytes. Write-backs get no answer: the slice needs none. Event-driven
// like the slice; akita's ideal memory controller ticks for every request.
// It is an akita component only for a monitor's list, as the slice is.
type dramChannel struct {
	*sim.ComponentBase
	fabric  *fabric
	port    *sinkPort
	slice   *sectoredL2
	latency float64
	ids     *IDSource
	pools   *memPools
}

func (d *dramChannel) accept(msg sim.Msg, _ sim.VTimeInSec) bool {
	d.slice.dramTook()
	switch req := msg.(type) {
	case *mem.ReadReq:
		rsp := d.pools.answers.new()
		rsp.RespondTo = req.ID
		rsp.ID = d.ids.Next()
		rsp.Src = d.port
		rsp.Dst = req.Src
		d.fabric.sendDelayed(rsp, d.latency)
	case *mem.WriteReq:
	default:
		panic(fmt.Sprintf("memsys: %s cannot handle %T", d.Name(), msg))
	}
	return true
}

// Handle, NotifyRecv and NotifyPortFree do nothing, as the slice's.
func (d *dramChannel) Handle(sim.Event) error                  { return nil }
func (d *dramChannel) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (d *dramChannel) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// sectorSpan returns the sectors of its line that [addr, addr+n) touches
// (a zero-byte range touches the sector of addr), and false when the range
// runs past the line.
func sectorSpan(addr, n uint64, lineShift, sectorShift uint) (uint32, bool) {
	offset := addr & (1<<lineShift - 1)
	first := offset >> sectorShift
	last := (offset + max(n, 1) - 1) >> sectorShift
	if last >= 1<<(lineShift-sectorShift) {
		return 0, false
	}
	return (uint32(1)<<(last-first+1) - 1) << first, true
}

// forEachRun calls f for each run of consecutive set bits of mask, lowest
// first: its first bit, its length and its bits. A fetch of sectors is one
// request per run.
func forEachRun(mask uint32, f func(first, n int, run uint32)) {
	for mask != 0 {
		first := bits.TrailingZeros32(mask)
		n := bits.TrailingZeros32(^(mask >> first))
		run := uint32(1<<n-1) << first
		mask &^= run
		f(first, n, run)
	}
}

// writeSectors returns the sectors of the line at lineAddr that a write
// dirties (any byte, under its DirtyMask if it has one) and those it writes
// whole.
func writeSectors(w *mem.WriteReq, lineAddr, lineSize, sectorSize uint64) (any, whole uint32) {
	off := w.Address - lineAddr
	for k := uint64(0); k*sectorSize < lineSize; k++ {
		lo, hi := max(k*sectorSize, off), min((k+1)*sectorSize, off+uint64(len(w.Data)))
		n := uint64(0)
		for b := lo; b < hi; b++ {
			if w.DirtyMask == nil || w.DirtyMask[b-off] {
				n++
			}
		}
		if n > 0 {
			any |= 1 << k
		}
		if n == sectorSize {
			whole |= 1 << k
		}
	}
	return any, whole
}

// warm brings the sectors mask of lineAddr into the slice as a load (or,
// with write, a store or atomic) would, tags only and at no time: no
// DRAM traffic, no answer, no statistics. A victim's dirty sectors are
// dropped rather than written back, as the functional execution that
// warms the slice keeps memory's values itself. A set whose every way is
// being fetched is left as it is.
func (c *sectoredL2) warm(lineAddr uint64, mask uint32, write bool) {
	line := c.lookup(lineAddr)
	if line == nil {
		line = c.allocateWay(lineAddr, false)
		if line == nil {
			return
		}
	}
	c.touch(line)
	line.valid |= mask
	if write {
		c.markDirty(line, mask)
	}
}

// allocateWay takes an empty way of lineAddr's set, or its least recently
// used one whose sectors are not being fetched (nil: none), for lineAddr.
// The victim's dirty sectors are written back, or with writeBack false
// dropped (warm).
func (c *sectoredL2) allocateWay(lineAddr uint64, writeBack bool) *l2Line {
	base := c.setOf(lineAddr) * uint64(c.ways)
	set, tags := c.lines[base:base+uint64(c.ways)], c.tags[base:base+uint64(c.ways)]
	v := -1
	for i := range set {
		if tags[i] == noTag {
			v = i
			break
		}
		if set[i].fetching == 0 && (v < 0 || set[i].lastUse < set[v].lastUse) {
			v = i
		}
	}
	if v < 0 {
		return nil
	}
	victim := &set[v]
	if tags[v] != noTag && victim.dirty != 0 {
		if writeBack {
			c.writeBack(victim)
		} else {
			c.dirtyBytes -= uint64(bits.OnesCount32(victim.dirty)) << c.sectorShift
		}
	}
	*victim = l2Line{tag: lineAddr}
	tags[v] = lineAddr
	return victim
}
