package memsys

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/sarchlab/akita/v3/mem/cache"
	"github.com/sarchlab/akita/v3/mem/cache/writeback"
	"github.com/sarchlab/akita/v3/mem/idealmemcontroller"
	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// System is a built memory system: the akita components and the fabric that
// connects them to each other and to the SMs.
type System struct {
	name   string
	config Config
	// devices is the number of devices (WithDevices; 1: a lone GPU) and
	// devCfg one device's share of config.
	devices int
	devCfg  Config
	freq    sim.Freq
	engine  sim.Engine
	timing  timing
	fabric  *fabric

	numSMs   int
	l1Top    []sim.Port
	l1Stats  []cacheStatsSource // the sectored L1s, or hooks on akita's
	akitaL1s []sim.Component    // akita's L1 caches (none when sectored)
	l2s      []*writeback.Cache // akita's L2 slices (L2AkitaWriteback)
	// sectoredL2s are the slices of the default L2 model, sectoredDRAMs
	// their DRAM channels.
	sectoredL2s   []*sectoredL2
	sectoredDRAMs []*dramChannel
	l2Top         []sim.Port
	l2Stats       []cacheStatsSource
	drams         []*idealmemcontroller.Comp
	atomics       []*atomicUnit

	// The L1s to invalidate at each launch (InvalidateL1s): the sectored
	// ones directly, akita's through their control ports, answering to
	// l1FlushSink.
	sectoredL1s    []*sectoredL1
	l1Control      []sim.Port
	l1FlushSink    *sinkPort
	l1FlushIDs     *IDSource
	l1FlushAnswers int

	// l1Values is the value side of CoherenceL1 (nil under ideal).
	l1Values *L1Values

	smConnected []bool
	smBufSize   int
	// smMsgs allocates each SM's requests (an SM builds them from its
	// own ticks only).
	smMsgs []smSlabs
	// pools are the memory side's own messages (memPools); smPools, under
	// domains (Builder.WithDomains), each L1's.
	pools   memPools
	smPools []memPools
	// l2Groups is the number of domains the L2 side is dealt into
	// (Builder.WithL2Domains; 1 without), and groupPools their messages
	// (slicePools).
	l2Groups   int
	groupPools []memPools
	// parallel: the engine is akita's parallel one, under which nothing
	// is recycled (RecycleLoads).
	parallel bool

	zeroLine []byte
	masksMu  sync.Mutex        // SMs may build requests concurrently
	masks    map[uint32][]bool // dirty masks by sector mask, shared read-only
}

// Name returns the name the System was built with.
func (s *System) Name() string { return s.name }

// Components returns the memory system's akita components, for a monitor:
// akita's L1s (the sectored L1 model has no component of its own: the
// fabric delivers to it), then each slice's L2, atomic unit and DRAM
// channel (the sectored L2 and its channel are components only for this
// and for tracing; they schedule no events).
func (s *System) Components() []sim.Component {
	out := append([]sim.Component(nil), s.akitaL1s...)
	for i := range s.atomics {
		if i < len(s.l2s) {
			out = append(out, s.l2s[i], s.atomics[i], s.drams[i])
		} else {
			out = append(out, s.sectoredL2s[i], s.atomics[i], s.sectoredDRAMs[i])
		}
	}
	return out
}

// Config returns the configuration the System was built from.
func (s *System) Config() Config { return s.config }

// Freq returns the clock every memory component ticks with.
func (s *System) Freq() sim.Freq { return s.freq }

// NumSMs returns the number of SMs (and L1s) the System serves.
func (s *System) NumSMs() int { return s.numSMs }

// NumSlices returns the number of L2 slices.
func (s *System) NumSlices() int { return s.config.L2Slices }

// L1Port returns the port SM sm sends its loads and stores to.
func (s *System) L1Port(sm int) sim.Port { return s.l1Top[sm] }

// SliceOf returns the L2 slice that owns an address.
func (s *System) SliceOf(address uint64) int {
	return deviceOf(address, s.devices)*s.devCfg.L2Slices + sliceOf(s.devCfg, address)
}

// sliceOf maps an address to its slice (Config.L2Hash). The XOR hash folds
// the chunk number's bits above the slice index onto it, b bits at a time
// (b = bits of the slice count), and takes the result modulo the slices:
// chunks a power-of-two stride apart differ in some folded bits and so
// land on different slices, while consecutive chunks still walk every
// slice once per round. (Our own scheme, after the XOR partition hashing
// that GPU simulators offer, e.g. Accel-Sim's memory_partition_indexing.)
// The mix hash scrambles the chunk number first (mixChunk). With
// L2HashSkipBit set, the address loses that bit before it is cut into
// chunks.
func sliceOf(c Config, address uint64) int {
	a := inDevice(address)
	if k := uint(c.L2HashSkipBit); k > 0 {
		a = a>>(k+1)<<k | a&(1<<k-1)
	}
	chunk := a / uint64(c.L2InterleaveBytes)
	slices := uint64(c.L2Slices)
	if slices <= 1 {
		return 0
	}
	switch {
	case c.linearL2():
		return int(chunk % slices)
	case c.L2Hash == L2HashMix:
		return int(mixChunk(chunk) % slices)
	}
	b := uint(bits.Len64(slices - 1))
	h := chunk
	for shift := b; shift < 64; shift += b {
		h ^= chunk >> shift
	}
	return int(h % slices)
}

// deviceAddressBits: the devices of a system have their memories
// 1 << deviceAddressBits apart in one address space (exec.DeviceStride),
// device 0's where a lone device's is. A slice and a set are chosen by an
// address's offset in its device's window (inDevice), so that each device
// places its data as a lone device would.
const deviceAddressBits = 40

// inDevice is address's offset in its device's window.
func inDevice(address uint64) uint64 { return address & (1<<deviceAddressBits - 1) }

// mixChunk scrambles a chunk number (SplitMix64's finaliser), so that any
// set of chunks lands on slices as if each were drawn at random.
func mixChunk(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (s *System) l2PortFor(address uint64) sim.Port {
	return s.l2Top[s.SliceOf(address)]
}

// AtomicPortFor returns the port of the atomic unit that owns an address:
// the one at the address's L2 slice. Every SM sends there directly.
func (s *System) AtomicPortFor(address uint64) sim.Port {
	return s.atomics[s.SliceOf(address)].topPort
}

// partitionOf is the fabric partition (plus one; 0: none) of element i of
// n (an SM, or a slice's atomic unit) under Config.L2Partitions: the
// elements are split into that many contiguous groups.
func (s *System) partitionOf(i, n int) int {
	if s.config.L2Partitions <= 1 {
		return 0
	}
	return 1 + i*s.config.L2Partitions/n
}

// ConnectSM plugs SM sm's port into the system, so that it can send to
// L1Port(sm) and to any AtomicPortFor port and receive their responses. The
// port's buffer, set when the SM created it, bounds the responses waiting
// for the SM; further responses wait in the system.
func (s *System) ConnectSM(sm int, smPort sim.Port) {
	if sm < 0 || sm >= len(s.smConnected) {
		panic(fmt.Sprintf("memsys: ConnectSM(%d): the system has %d SMs", sm, len(s.smConnected)))
	}
	if s.smConnected[sm] {
		panic(fmt.Sprintf("memsys: SM %d is already connected", sm))
	}
	s.smConnected[sm] = true
	domain := 0
	if s.smPools != nil {
		domain = sm + 1
	}
	s.fabric.plug(smPort, endSpec{zone: zoneSM, bufSize: s.smBufSize, partition: s.partitionOf(sm, s.numSMs), sm: sm + 1, domain: domain, device: s.deviceOfSM(sm) + 1})
}

// EndWindow ends a window of the domains (Builder.WithDomains) at cycle
// end, with every engine standing still, and returns the domains that
// received messages or credits from other domains in it, ascending. Each
// of them takes them (Receive) before the next window's end: at the start
// of its run in the next window, which the caller must then run, or all
// at once between the windows (ReceiveAll). A domain's messages join its
// ports' queues in the order of their due cycles, then of the senders'
// domains, then the order sent; its ends' credits come back (a sender
// waiting for space hears of it at time now, the window's last cycle).
// The order depends only on what the domains did, not on which ran or
// receives first nor on how many goroutines run them. ran lists the
// domains that ran in the window, ascending; the others must have done
// nothing since the last window's end.
func (s *System) EndWindow(now sim.VTimeInSec, end uint64, ran []int) []int {
	return s.fabric.endWindow(now, end, ran)
}

// Receive takes what domain d received in the last window (EndWindow);
// it touches domain d's state alone, so domains may receive at once.
func (s *System) Receive(d int) { s.fabric.receiveFor(d) }

// ReceiveAll takes what every domain received in the last window, none
// of which has yet. parallel, when not nil, runs the independent tasks
// 0..len(domains)-1, each of which touches domain domains[k]'s state alone
// (the caller's engines must allow it), and returns when all are done; nil
// runs them in turn.
func (s *System) ReceiveAll(parallel func(domains []int, task func(int))) {
	s.fabric.receiveAll(parallel)
}

// SealDomain readies domain d's window for its end (sorting what it sent
// and the credits it owes): a domain's task may call it when its window's
// run is done, concurrently with other domains', to take the work off
// EndWindow, which seals whatever is not sealed.
func (s *System) SealDomain(d int) { s.fabric.doms[d].seal() }

// SliceDomain is the fabric domain of L2 slice i, its atomic unit and its
// DRAM channel: 0 for the first group of WithL2Domains (and without it),
// numSMs+j for group j. Slices that answer each other's reads
// (Config.L2ReadsInPartition) share a group.
func (s *System) SliceDomain(i int) int {
	if g := s.sliceGroup(i); g > 0 {
		return s.numSMs + g
	}
	return 0
}

// sliceGroup is the group of WithL2Domains that slice i belongs to.
func (s *System) sliceGroup(i int) int {
	if s.l2Groups <= 1 {
		return 0
	}
	place := i
	if cfg := s.config; cfg.L2ReadsInPartition && cfg.L2Partitions > 1 {
		place = i % (cfg.L2Slices / cfg.L2Partitions)
	}
	return place % s.l2Groups
}

// slicePools are the messages of slice i's group: a group's slices and
// DRAM channels run concurrently with the other groups'.
func (s *System) slicePools(i int) *memPools {
	if g := s.sliceGroup(i); g > 0 {
		return &s.groupPools[g]
	}
	return &s.pools
}

// LateCrossings is the number of messages between domains that were due
// before the end of the window they were sent in (Receive delays them to
// that end): none when the windows are no longer than MinCrossingCycles.
func (s *System) LateCrossings() uint64 { return s.fabric.lateCrossings() }

// MinCrossingCycles is the fewest cycles a message takes between an SM's
// domain and the L2 side's, either way (Builder.WithDomains): windows no
// longer than this let the domains run concurrently.
func (s *System) MinCrossingCycles() float64 {
	f := s.fabric
	var smSide, l2Side []*fabricEnd
	for _, e := range f.ends {
		if e.zone == zoneSM {
			smSide = append(smSide, e)
		} else {
			l2Side = append(l2Side, e)
		}
	}
	least := math.Inf(1)
	for _, a := range smSide {
		for _, b := range l2Side {
			least = math.Min(least, math.Min(f.routeLatency(a, b), f.routeLatency(b, a)))
		}
	}
	return least
}

// L1HitCycles is the fewest cycles from a load's arrival at its L1 to its
// answer's delivery at the SM.
func (s *System) L1HitCycles() float64 { return s.timing.l1Response }

// domainNow is the current time of SM sm's domain (the system's engine's
// without domains).
func (s *System) domainNow(sm int) sim.VTimeInSec {
	if s.smPools != nil {
		return s.fabric.doms[sm+1].engine.CurrentTime()
	}
	return s.engine.CurrentTime()
}

// NewLineRead builds the load request of one warp instruction for one line:
// sectorMask has bit k set when the warp reads sector k of the line at
// lineAddr. The request's address range covers the sectors from the first
// to the last set bit, and its Info carries the mask (a SectorMask), so
// that the sectored L1 fetches no sector between them that the warp does
// not read. id must be unique among the SM's outstanding requests; the
// response is a *mem.DataReadyRsp with RespondTo == id.
func (s *System) NewLineRead(src sim.Port, sm int, lineAddr uint64, sectorMask uint32, id string) *mem.ReadReq {
	first, span := s.sectorSpan(lineAddr, sectorMask)
	r := s.smMsgs[sm].reads.new()
	r.Address = lineAddr + uint64(first*s.config.SectorSizeBytes)
	r.AccessByteSize = uint64(span * s.config.SectorSizeBytes)
	r.Info = SectorMask(sectorMask)
	r.ID = id
	r.Src = src
	r.Dst = s.l1Top[sm]
	r.SendTime = s.domainNow(sm)
	return r
}

// NewLineReadBypass builds a load as NewLineRead does, for a load that
// must bypass L1 (BypassL1): the sectored L1 sends it to L2 whether or not
// its sectors are in L1, and does not allocate them. The request still goes
// to the SM's L1 port.
func (s *System) NewLineReadBypass(src sim.Port, sm int, lineAddr uint64, sectorMask uint32, id string) *mem.ReadReq {
	r := s.NewLineRead(src, sm, lineAddr, sectorMask, id)
	r.Info = BypassL1(sectorMask)
	return r
}

// NewLineWrite builds the store request of one warp instruction for one
// line, as NewLineRead does for loads. Sectors between the first and last
// that the warp does not write are masked out. The data is a shared,
// read-only buffer of zeros. The response is a *mem.WriteDoneRsp, sent once
// L2 has the data; an SM may retire the store without waiting for it and
// count it only for fences and the end of the kernel.
func (s *System) NewLineWrite(src sim.Port, sm int, lineAddr uint64, sectorMask uint32, id string) *mem.WriteReq {
	first, span := s.sectorSpan(lineAddr, sectorMask)
	sector := s.config.SectorSizeBytes
	w := s.smMsgs[sm].writes.new()
	w.Address = lineAddr + uint64(first*sector)
	w.Data = s.zeroLine[:span*sector]
	if shifted := sectorMask >> first; shifted != 1<<span-1 {
		w.DirtyMask = s.dirtyMask(shifted, span)
	}
	w.ID = id
	w.Src = src
	w.Dst = s.l1Top[sm]
	w.SendTime = s.domainNow(sm)
	return w
}

// smSlabs allocate an SM's requests; under RecycleLoads (recycle) its L1
// gives its answered loads back to reads.
type smSlabs struct {
	reads   msgPool[mem.ReadReq]
	writes  slab[mem.WriteReq]
	recycle bool
}

// RecycleLoads lets the System reuse SM sm's loads from NewLineRead once
// its sectored L1 has answered them, and the L1's answers once the SM
// hands them to Release: the SM promises to keep neither past that point
// itself. Anything else that may keep them stops the reuse: hooks on the
// SM, its port or the fabric (a tracer keeps a request as its task's
// detail), akita's parallel engine (the SM and the L1 run concurrently)
// and akita's L1 models (nothing is reused). Reuse spares the allocation
// and the garbage collection of two messages per load.
func (s *System) RecycleLoads(sm int) {
	if !s.parallel && len(s.sectoredL1s) > sm {
		s.smMsgs[sm].recycle = true
	}
}

// Release hands back a response SM sm has retrieved and is done with;
// under RecycleLoads its L1 reuses it. Other messages are left alone.
func (s *System) Release(sm int, msg sim.Msg) {
	m := &s.smMsgs[sm]
	if !m.recycle {
		return
	}
	rsp, ok := msg.(*mem.DataReadyRsp)
	if !ok {
		return
	}
	c := s.sectoredL1s[sm]
	if rsp.Src != c.top || !noHooks(rsp.Dst) || s.fabric.NumHooks() > 0 {
		return
	}
	c.rsps.give(rsp)
}

// noHooks reports whether neither a port nor its component has hooks.
func noHooks(p sim.Port) bool {
	if p.NumHooks() > 0 {
		return false
	}
	c := p.Component()
	return c == nil || c.NumHooks() == 0
}

// NewAtomic builds the atomic request of one warp instruction for one
// sector: ops lists each distinct address the active lanes update, all in
// the sector at sectorAddr, with its lane count. The request goes to the
// owning slice's atomic unit; the response is an *AtomicRsp.
func (s *System) NewAtomic(src sim.Port, sectorAddr uint64, ops []AtomicOp, id string) *AtomicReq {
	sector := uint64(s.config.SectorSizeBytes)
	if sectorAddr%sector != 0 {
		panic(fmt.Sprintf("memsys: atomic sector address %#x is not %d-byte aligned", sectorAddr, sector))
	}
	for _, op := range ops {
		if op.Address-sectorAddr >= sector || op.Lanes < 1 {
			panic(fmt.Sprintf("memsys: atomic op %+v does not fit sector %#x", op, sectorAddr))
		}
	}
	return s.atomicReq(src, &AtomicReq{SectorAddress: sectorAddr, Ops: ops}, id)
}

// atomicReq addresses r, from src, to the atomic unit of its first
// sector's slice.
func (s *System) atomicReq(src sim.Port, r *AtomicReq, id string) *AtomicReq {
	r.ID = id
	r.Src = src
	r.Dst = s.AtomicPortFor(r.SectorAddress)
	r.SendTime = s.fabric.mustEnd(src, "send from").dom.engine.CurrentTime()
	return r
}

// NewAtomicPacket builds the atomic request of one warp instruction for
// every sector it touches on one L2 slice (Config.AtomicPacketLineCycles):
// sectors lists them, the first the packet's SectorAddress, and ops every
// distinct address in them with its lane count. One sector is NewAtomic's
// request.
func (s *System) NewAtomicPacket(src sim.Port, sectors []uint64, ops []AtomicOp, id string) *AtomicReq {
	if len(sectors) == 0 {
		panic("memsys: an atomic packet of no sector")
	}
	size := uint64(s.config.SectorSizeBytes)
	slice := s.SliceOf(sectors[0])
	for _, sec := range sectors {
		if sec%size != 0 || s.SliceOf(sec) != slice {
			panic(fmt.Sprintf("memsys: atomic packet sector %#x is not aligned or not on slice %d", sec, slice))
		}
	}
	for _, op := range ops {
		if op.Lanes < 1 || !slices.Contains(sectors, op.Address/size*size) {
			panic(fmt.Sprintf("memsys: atomic op %+v is in none of the packet's sectors", op))
		}
	}
	r := &AtomicReq{SectorAddress: sectors[0], Ops: ops}
	if len(sectors) > 1 {
		r.Sectors = sectors
	}
	return s.atomicReq(src, r, id)
}

func (s *System) sectorSpan(lineAddr uint64, sectorMask uint32) (first, span int) {
	line := uint64(s.config.LineSizeBytes)
	sectors := s.config.LineSizeBytes / s.config.SectorSizeBytes
	if lineAddr%line != 0 {
		panic(fmt.Sprintf("memsys: line address %#x is not %d-byte aligned", lineAddr, line))
	}
	if sectorMask == 0 || (sectors < 32 && sectorMask>>sectors != 0) {
		panic(fmt.Sprintf("memsys: sector mask %#x does not fit a line of %d sectors", sectorMask, sectors))
	}
	first = bits.TrailingZeros32(sectorMask)
	last := 31 - bits.LeadingZeros32(sectorMask)
	return first, last - first + 1
}

// dirtyMask returns the byte mask of the sectors set in mask (bit 0 = the
// first sector of the span), built once per mask.
func (s *System) dirtyMask(mask uint32, span int) []bool {
	s.masksMu.Lock()
	defer s.masksMu.Unlock()
	if m, ok := s.masks[mask]; ok {
		return m
	}
	sector := s.config.SectorSizeBytes
	m := make([]bool, span*sector)
	for k := range span {
		if mask&(1<<k) != 0 {
			for i := k * sector; i < (k+1)*sector; i++ {
				m[i] = true
			}
		}
	}
	s.masks[mask] = m
	return m
}

// Stats returns the counters accumulated since the System was built or
// ResetStats was last called. Called while the engine runs, it returns
// each component's counters as of some moment, not one consistent
// snapshot.
//
// DRAMWriteBytes counts every dirty L2 sector as written, whether or not
// it has been evicted yet: the bytes evicted to DRAM since the reset, plus
// the sectors the L2 holds dirty now, minus those it held dirty at the
// reset (an earlier period counted them). A kernel's stores therefore
// count in the launch that made them, as if the L2 were flushed at its
// end, though nothing is flushed and no time is charged: the write-backs
// take DRAM bandwidth when the lines are evicted, in this launch or a
// later one.
func (s *System) Stats() Stats {
	st := Stats{
		L1PerSM:    make([]CacheStats, len(s.l1Stats)),
		L2PerSlice: make([]CacheStats, len(s.l2Stats)),
	}
	st.DRAMReadBytes, st.DRAMWriteBytes = s.fabric.dramBytes()
	for i, c := range s.l1Stats {
		x := c.snapshot()
		st.L1PerSM[i] = x
		st.L1.add(x)
	}
	for i, c := range s.l2Stats {
		x := c.snapshot()
		st.L2PerSlice[i] = x
		st.L2.add(x)
	}
	for _, u := range s.atomics {
		st.Atomics.add(u.snapshot())
	}
	return st
}

// InvalidateL1s empties every SM's L1, as a GPU does at each kernel
// launch; the L2 keeps its contents. Call it between launches, with the
// engine idle. The sectored L1s drop their lines at once; akita's caches
// get a flush request (invalidating every line) through their control
// ports, and the engine runs until each has answered, a few cycles of
// simulated time.
func (s *System) InvalidateL1s() error {
	for _, c := range s.sectoredL1s {
		c.invalidate()
	}
	if len(s.l1Control) == 0 {
		return nil
	}
	s.l1FlushAnswers = 0
	now := s.engine.CurrentTime()
	for _, p := range s.l1Control {
		req := &cache.FlushReq{InvalidateAllCachelines: true}
		req.ID = s.l1FlushIDs.Next()
		req.Src, req.Dst, req.SendTime = s.l1FlushSink, p, now
		if e := s.fabric.Send(req); e != nil {
			return fmt.Errorf("memsys: cannot send the L1 flush to %s", p.Name())
		}
	}
	if err := s.engine.Run(); err != nil {
		return fmt.Errorf("memsys: flushing the L1s: %w", err)
	}
	if s.l1FlushAnswers != len(s.l1Control) {
		return fmt.Errorf("memsys: %d of %d L1s answered the flush", s.l1FlushAnswers, len(s.l1Control))
	}
	return nil
}

// InvalidateL1 empties SM sm's L1 while a launch runs, as a GPU-scope
// fence does on NVIDIA GPUs (timing.SM calls it for membar.gl, membar.sys
// and fence at cluster, gpu or sys scope): every sector it holds is gone,
// so the SM's next loads miss and read L2, and under CoherenceL1 its stale
// copies are forgotten with it. Misses in flight keep their MSHRs and
// install what L2 sends (which is current). The L2 keeps its contents.
//
// Only the sectored L1 supports it. akita's caches can be flushed only
// with the engine idle (their flush drops requests waiting at their
// ports), so for them InvalidateL1 does nothing: their lines survive
// fences, which costs timing fidelity only, since they keep no stale
// values (CoherenceL1 needs the sectored L1).
func (s *System) InvalidateL1(sm int) {
	if sm < 0 || sm >= s.numSMs {
		panic(fmt.Sprintf("memsys: InvalidateL1(%d): the system has %d SMs", sm, s.numSMs))
	}
	if len(s.sectoredL1s) > sm {
		s.sectoredL1s[sm].invalidate()
	}
}

// acceptFlushRsp counts an akita L1's answer to InvalidateL1s.
func (s *System) acceptFlushRsp(msg sim.Msg, _ sim.VTimeInSec) bool {
	if _, ok := msg.(*cache.FlushRsp); !ok {
		panic(fmt.Sprintf("memsys: %s cannot handle %T", s.l1FlushSink.Name(), msg))
	}
	s.l1FlushAnswers++
	return true
}

// ResetStats zeroes every counter, e.g. between kernel launches. Cache
// contents and in-flight requests are kept.
func (s *System) ResetStats() {
	for _, c := range s.l1Stats {
		c.reset()
	}
	for _, c := range s.l2Stats {
		c.reset()
	}
	for _, u := range s.atomics {
		u.resetStats()
	}
	s.fabric.resetStats()
}

// WarmL2SliceOf is the L2 slice whose tags WarmL2 changes for an access
// at addr: calls of WarmL2 whose lanes lie in distinct slices share no
// state and may run at once. It returns 0 under the akita_writeback L2
// model, where WarmL2 does nothing.
func (s *System) WarmL2SliceOf(addr uint64) int {
	if len(s.sectoredL2s) == 0 {
		return 0
	}
	shift := s.sectoredL2s[0].lineShift
	return s.SliceOf(addr >> shift << shift)
}

// WarmL2 brings the lines that a warp's access touches into their L2
// slices' tags, as sampled simulation's functional execution does so that
// a detailed stretch after it does not find the L2 cold: each lane in
// lanes accessed n bytes at addr[lane] (global device addresses); write
// marks the sectors dirty, as a store or atomic leaves them. No time
// passes and nothing is counted. Call it only while no launch runs in
// timing mode. Under the akita_writeback L2 model it does nothing.
func (s *System) WarmL2(addr *[32]uint64, lanes uint32, n int, write bool) {
	if len(s.sectoredL2s) == 0 || lanes == 0 {
		return
	}
	shift := s.sectoredL2s[0].lineShift
	sectorShift := s.sectoredL2s[0].sectorShift
	var line uint64
	var mask uint32
	flush := func() {
		if mask != 0 {
			s.sectoredL2s[s.SliceOf(line)].warm(line, mask, write)
		}
	}
	for m := lanes; m != 0; m &= m - 1 {
		a := addr[bits.TrailingZeros32(m)]
		l := a >> shift << shift
		sectors, ok := sectorSpan(a, uint64(n), shift, sectorShift)
		if !ok {
			// An access across lines (never an aligned one): its first
			// line only.
			sectors, _ = sectorSpan(a, uint64(1<<shift)-(a-l), shift, sectorShift)
		}
		if l != line || mask == 0 {
			flush()
			line, mask = l, 0
		}
		mask |= sectors
	}
	flush()
}
