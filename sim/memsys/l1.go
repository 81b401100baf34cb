package memsys

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// sectoredL1 is the default L1 (Config.L1Model L1Sectored): a sectored,
// write-through, no-write-allocate data cache, as NVIDIA's L1 behaves: a
// line's sectors are valid independently and a miss fetches only the
// sectors it lacks from L2.
//
// It is event-driven rather than a ticking akita component: the fabric hands
// it each message when the message is delivered, it updates its tags and
// MSHRs at once and schedules its answers through the fabric with the
// latency they take. Throughput comes from a reservation calendar (a lookup
// every 1/L1RequestsPerCycle cycles), so the cache never ticks. akita's
// writearound L1 ticks through five stages for every request; on the
// H100-sized stream benchmark the whole system took 2.3 s of wall time with
// it and 1.3 s with this cache.
//
// Its state is guarded by its fabric's lock: the fabric calls accept and
// acceptFill only from its deliveries, with the lock held, and the L1 sends
// through the fabric's methods that expect it held. The stats are read
// under the same lock (System.Stats).
type sectoredL1 struct {
	// device and devices: the L1's SM's device among the system's
	// (devices.go; 0 and 1 for a lone GPU).
	device, devices int
	name            string
	fabric          *fabric
	top             *sinkPort // loads and stores from the SM, responses to it
	bottom          *sinkPort // fills from L2

	lineShift      uint
	sectorShift    uint
	numSets        uint64
	ways           int
	lines          []l1Line // set-major: set s holds lines[s*ways : (s+1)*ways]
	useClock       uint32   // see touch
	maxMSHRs       int
	maxWaiting     int
	waiting        int
	mshrs          lineTable[l1MSHR] // by line address
	fills          fillTable         // by fill request ID's number
	ids            *IDSource
	l2For          func(addr uint64) sim.Port
	lookupFree     float64 // next free lookup slot, in cycles
	cyclesPerLook  float64
	responseDelay  float64 // cycles from lookup (or fill) to delivery at the SM
	refusedRequest bool

	// vals, under CoherenceL1, hears of every line the cache allocates or
	// drops; sm is the cache's SM.
	vals *L1Values
	sm   int
	// events, under domains (Builder.WithDomains), are the changes of its
	// lines since TakeL1Events (for CoherenceL1: vals is then nil).
	events    []L1Event
	logEvents bool

	stats CacheStats

	// rsps are its answers to its SM; smMsgs are its SM's requests. Under
	// RecycleLoads the answered loads go back to smMsgs, and the SM's
	// Release brings the answers back to rsps.
	rsps   msgPool[mem.DataReadyRsp]
	smMsgs *smSlabs
	pools  *memPools
}

// l1Line is one way: 16 bytes, so that a set of four ways is one host
// cache line.
type l1Line struct {
	tag     uint64 // line address
	valid   uint32 // sector mask; 0 means the way is empty
	lastUse uint32 // the use clock at the line's last touch
}

type l1MSHR struct {
	line     uint64
	fetching uint32 // sectors requested from L2 and not yet arrived
	waiters  []l1Waiter
}

type l1Fill struct {
	mshr    *l1MSHR
	sectors uint32
	// bypass: the fill answers a load that bypasses L1; its MSHR is
	// private to the load (not in mshrs) and nothing is installed.
	bypass bool
	req    *mem.ReadReq // the fill request (memPools)
}

type l1Waiter struct {
	req  *mem.ReadReq
	need uint32 // sectors still missing
}

// accept handles a load or store from the SM. It refuses (and the fabric
// keeps the request) when a miss finds no free MSHR or too many loads wait.
func (c *sectoredL1) accept(msg sim.Msg, now sim.VTimeInSec) bool {
	cycle := c.fabric.cycles(now)
	switch req := msg.(type) {
	case *mem.ReadReq:
		return c.read(req, cycle)
	case *mem.WriteReq:
		c.write(req, cycle)
		return true
	default:
		panic(fmt.Sprintf("memsys: %s cannot handle %T", c.name, msg))
	}
}

// reserveLookup books the next lookup slot and returns the cycles from now
// until it.
func (c *sectoredL1) reserveLookup(cycle float64) float64 {
	slot := math.Max(cycle, c.lookupFree)
	c.lookupFree = slot + c.cyclesPerLook
	return slot - cycle
}

func (c *sectoredL1) read(req *mem.ReadReq, cycle float64) bool {
	lineAddr := req.Address >> c.lineShift << c.lineShift
	if req.AccessByteSize == 0 || req.Address+req.AccessByteSize > lineAddr+1<<c.lineShift {
		panic(fmt.Sprintf("memsys: %s: load of %d bytes at %#x does not fit one line",
			c.name, req.AccessByteSize, req.Address))
	}
	mask := c.sectorMask(req.Address, req.AccessByteSize)
	bypass := false
	sectors, ok := req.Info.(SectorMask)
	if b, isBypass := req.Info.(BypassL1); isBypass {
		sectors, ok, bypass = SectorMask(b), true, true
	}
	if ok {
		// The load reads only these sectors of its span.
		mask &= uint32(sectors)
		if mask == 0 {
			panic(fmt.Sprintf("memsys: %s: load at %#x has sector mask %#x outside its %d bytes",
				c.name, req.Address, uint32(sectors), req.AccessByteSize))
		}
	}
	if deviceOf(lineAddr, c.devices) != c.device {
		// Another device's line (devices.go): never held here.
		bypass = true
	}
	if bypass {
		return c.readBypass(req, lineAddr, mask, cycle)
	}
	line := c.lookup(lineAddr)

	if line != nil && line.valid&mask == mask {
		c.respond(req, c.takeHit(line, cycle))
		return true
	}
	if m := c.mshrs.get(lineAddr); m != nil {
		if c.waiting >= c.maxWaiting {
			return c.refuse()
		}
		wait := c.reserveLookup(cycle)
		need := mask
		if line != nil {
			need &^= line.valid
		}
		if extra := need &^ m.fetching; extra != 0 {
			c.fetch(m, extra, wait)
		}
		m.waiters = append(m.waiters, l1Waiter{req: req, need: need})
		c.waiting++
		c.stats.ReadMSHRHits++
		return true
	}
	if c.mshrs.len() >= c.maxMSHRs || c.waiting >= c.maxWaiting {
		return c.refuse()
	}
	wait := c.reserveLookup(cycle)
	need := mask
	if line != nil {
		need &^= line.valid
	}
	m := &l1MSHR{line: lineAddr}
	c.mshrs.put(lineAddr, m)
	c.fetch(m, need, wait)
	m.waiters = append(m.waiters, l1Waiter{req: req, need: need})
	c.waiting++
	c.stats.ReadMisses++
	return true
}

// takeHit books the lookup of a read that hits line at cycle, and counts
// it; it returns the cycles from cycle until the lookup.
func (c *sectoredL1) takeHit(line *l1Line, cycle float64) float64 {
	wait := c.reserveLookup(cycle)
	c.touch(line)
	c.stats.ReadHits++
	return wait
}

// readBypass sends a load that must not hit in L1 to L2: it takes a
// lookup slot and a waiting slot but no tag lookup, no shared MSHR and no
// allocation. Its fills go to an MSHR of its own, which the L1 answers from
// and drops.
func (c *sectoredL1) readBypass(req *mem.ReadReq, lineAddr uint64, mask uint32, cycle float64) bool {
	if c.waiting >= c.maxWaiting {
		return c.refuse()
	}
	wait := c.reserveLookup(cycle)
	m := &l1MSHR{line: lineAddr}
	c.fetchFills(m, mask, wait, true)
	m.waiters = append(m.waiters, l1Waiter{req: req, need: mask})
	c.waiting++
	c.stats.ReadBypasses++
	return true
}

// write passes a store through to L2. The store keeps the SM as its source,
// so L2's WriteDoneRsp goes straight back to the SM. A store to a present
// line updates it (and counts as a hit); a store to an absent line does not
// allocate one.
func (c *sectoredL1) write(req *mem.WriteReq, cycle float64) {
	wait := c.reserveLookup(cycle)
	if line := c.lookup(req.Address >> c.lineShift << c.lineShift); line != nil {
		c.touch(line)
		c.stats.WriteHits++
	} else {
		c.stats.WriteMisses++
	}
	req.Dst = c.l2For(req.Address)
	c.fabric.forward(req, c.bottom, wait)
}

func (c *sectoredL1) refuse() bool {
	c.refusedRequest = true
	return false
}

// fetch asks L2 for the sectors in mask, one request per run of
// consecutive sectors.
func (c *sectoredL1) fetch(m *l1MSHR, mask uint32, delay float64) {
	c.fetchFills(m, mask, delay, false)
}

func (c *sectoredL1) fetchFills(m *l1MSHR, mask uint32, delay float64, bypass bool) {
	forEachRun(mask, func(first, n int, run uint32) {
		fill := c.pools.reads.new()
		fill.Address = m.line + uint64(first)<<c.sectorShift
		fill.AccessByteSize = uint64(n) << c.sectorShift
		fill.ID = c.ids.Next()
		fill.Src = c.bottom
		fill.Dst = c.l2For(m.line)
		if bypass {
			fill.Info = StrongRead{}
		}
		c.fabric.sendDelayed(fill, delay)
		c.fills.put(c.ids.Last(), l1Fill{mshr: m, sectors: run, bypass: bypass, req: fill})
		m.fetching |= run
	})
}

// acceptFill installs the sectors that L2 returned and answers the loads
// that now have all their sectors.
func (c *sectoredL1) acceptFill(msg sim.Msg, now sim.VTimeInSec) bool {
	rsp, ok := msg.(*mem.DataReadyRsp)
	if !ok {
		panic(fmt.Sprintf("memsys: %s got %T from L2", c.name, msg))
	}
	num, _ := c.ids.Number(rsp.RespondTo)
	fill, ok := c.fills.take(num)
	if !ok {
		panic(fmt.Sprintf("memsys: %s got a fill for unknown request %s", c.name, rsp.RespondTo))
	}
	m, arrived := fill.mshr, fill.sectors
	if !fill.bypass {
		c.install(m.line, arrived)
	}

	kept := m.waiters[:0]
	for _, w := range m.waiters {
		w.need &^= arrived
		if w.need != 0 {
			kept = append(kept, w)
			continue
		}
		c.respond(w.req, 0)
		c.waiting--
	}
	for i := len(kept); i < len(m.waiters); i++ {
		m.waiters[i] = l1Waiter{}
	}
	m.waiters = kept
	m.fetching &^= arrived
	if m.fetching == 0 && !fill.bypass {
		c.mshrs.del(m.line)
	}
	if c.refusedRequest {
		c.refusedRequest = false
		c.fabric.notifyAvailable(c.top)
	}
	if c.pools.reuse(c.fabric, rsp, fill.req) {
		c.pools.answers.give(rsp)
		c.pools.reads.give(fill.req)
	}
	return true
}

func (c *sectoredL1) snapshot() CacheStats {
	c.fabric.lock()
	defer c.fabric.unlock()
	return c.stats
}

func (c *sectoredL1) reset() {
	c.fabric.lock()
	defer c.fabric.unlock()
	c.stats = CacheStats{}
}

// invalidate empties the cache's tags (InvalidateL1s between launches,
// InvalidateL1 at a fence). Misses in flight stay in their MSHRs: their
// fills install what L2 sends them, which is current.
func (c *sectoredL1) invalidate() {
	c.fabric.lock()
	defer c.fabric.unlock()
	if c.vals != nil {
		c.vals.invalidateSM(c.sm, c.lines)
	}
	clear(c.lines)
	c.stats.Invalidations++
}

func (c *sectoredL1) respond(req *mem.ReadReq, delay float64) {
	rsp := c.rsps.new()
	rsp.RespondTo = req.ID
	rsp.ID = c.ids.Next()
	rsp.Src = c.top
	rsp.Dst = req.Src
	c.fabric.sendDelayed(rsp, delay+c.responseDelay)
	// The load is done with (its delivery to this L1 is over, and the
	// answer keeps its ID string, not the request).
	if c.smMsgs.recycle && noHooks(req.Src) && c.fabric.NumHooks() == 0 {
		c.smMsgs.reads.give(req)
	}
}

// sectorMask returns the sectors of its line that [addr, addr+size) covers.
func (c *sectoredL1) sectorMask(addr, size uint64) uint32 {
	mask, _ := sectorSpan(addr, size, c.lineShift, c.sectorShift)
	return mask
}

func (c *sectoredL1) set(lineAddr uint64) []l1Line {
	s := (inDevice(lineAddr) >> c.lineShift) % c.numSets
	return c.lines[s*uint64(c.ways) : (s+1)*uint64(c.ways)]
}

func (c *sectoredL1) lookup(lineAddr uint64) *l1Line {
	set := c.set(lineAddr)
	for i := range set {
		if set[i].valid != 0 && set[i].tag == lineAddr {
			return &set[i]
		}
	}
	return nil
}

// touch makes the line its set's most recently used. Before the 32-bit
// use clock would wrap, each set's lines are renumbered in their order
// (renumberUses), which keeps every choice of victim.
func (c *sectoredL1) touch(line *l1Line) {
	if c.useClock == math.MaxUint32 {
		c.renumberUses()
	}
	c.useClock++
	line.lastUse = c.useClock
}

// renumberUses gives each set's ways the use numbers 1..ways in their
// order of use and restarts the clock after them; the ways compared for a
// victim, the valid ones of a set, keep their order.
func (c *sectoredL1) renumberUses() {
	order := make([]int, c.ways)
	for s := 0; s < len(c.lines); s += c.ways {
		set := c.lines[s : s+c.ways]
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(set[a].lastUse, set[b].lastUse) })
		for rank, i := range order {
			set[i].lastUse = uint32(rank + 1)
		}
	}
	c.useClock = uint32(c.ways)
}

// install marks sectors valid, allocating the line (over an empty way or the
// least recently used one) if it is not present.
func (c *sectoredL1) install(lineAddr uint64, sectors uint32) {
	if line := c.lookup(lineAddr); line != nil {
		line.valid |= sectors
		c.touch(line)
		if c.vals != nil {
			for m := sectors; m != 0; m &= m - 1 {
				k := uint64(bits.TrailingZeros32(m))
				c.vals.forget(c.sm, lineAddr+k<<c.sectorShift, 1<<c.sectorShift)
			}
		}
		if c.logEvents {
			c.logEvent(l1Add, lineAddr, sectors)
		}
		return
	}
	set := c.set(lineAddr)
	victim := &set[0]
	for i := range set {
		if set[i].valid == 0 {
			victim = &set[i]
			break
		}
		if set[i].lastUse < victim.lastUse {
			victim = &set[i]
		}
	}
	if c.vals != nil {
		if victim.valid != 0 {
			c.vals.evict(c.sm, victim.tag, 1<<c.lineShift)
		}
		c.vals.hold(c.sm, lineAddr)
	}
	if c.logEvents {
		if victim.valid != 0 {
			c.logEvent(l1Evict, victim.tag, 0)
		}
		c.logEvent(l1Hold, lineAddr, sectors)
	}
	*victim = l1Line{tag: lineAddr, valid: sectors}
	c.touch(victim)
}

// fillTable holds the fills in flight by their request number. The numbers
// are an L1's own, handed out in order, so the live ones lie in a window:
// a ring indexed by the number's low bits, doubled when two live numbers
// would share a slot, replaces a map (a hash per fill, and most of a
// fill's cost where loads miss).
type fillTable struct {
	slots []fillSlot
}

type fillSlot struct {
	num  uint64
	used bool
	fill l1Fill
}

func (t *fillTable) put(num uint64, f l1Fill) {
	if len(t.slots) == 0 {
		t.slots = make([]fillSlot, 64)
	}
	for t.slots[num&uint64(len(t.slots)-1)].used {
		t.grow()
	}
	t.slots[num&uint64(len(t.slots)-1)] = fillSlot{num: num, used: true, fill: f}
}

func (t *fillTable) take(num uint64) (l1Fill, bool) {
	if len(t.slots) == 0 {
		return l1Fill{}, false
	}
	s := &t.slots[num&uint64(len(t.slots)-1)]
	if !s.used || s.num != num {
		return l1Fill{}, false
	}
	f := s.fill
	*s = fillSlot{}
	return f, true
}

// grow doubles the ring and places the live fills again.
func (t *fillTable) grow() {
	old := t.slots
	t.slots = make([]fillSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.used {
			t.slots[s.num&mask] = s
		}
	}
}

// logEvent records a change of the cache's lines (under domains), at the
// fabric's current time in its domain.
func (c *sectoredL1) logEvent(kind l1EventKind, line uint64, sectors uint32) {
	end := c.fabric.mustEnd(c.top, "log")
	c.events = append(c.events, L1Event{Cycle: uint64(dueCycle(end.dom.now())), kind: kind, line: line, sectors: sectors})
}
