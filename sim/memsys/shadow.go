package memsys

import (
	"math/bits"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// sliceShadow is the fabric's own record of one L2 slice, kept from the
// messages that cross the slice's ports, so that akita's writeback cache
// can stay as it is while the L2 behaves as a GPU's does in two ways akita's
// cache cannot be configured for:
//
//   - DRAM bytes written count the sectors L2 holds dirty (dirty, below),
//     so a launch's stores count when it ends, evicted or not;
//   - a store that misses does not read its line from DRAM
//     (write-validate): the line fetch akita's cache sends for a partial
//     write that misses is answered at once, without the DRAM channel, when
//     no load or atomic of the line waits in the slice; the slice's answers
//     to loads and atomics of such a line are then held until the sectors
//     they read that no store wrote are fetched from DRAM (partial, below).
//
// The fabric calls it, with its mutex held, when it delivers a request to
// the slice's top port (accepted), when the slice sends a response from it
// (answered), a fetch or an eviction from its bottom port (fetching,
// evicting), and when the DRAM channel acknowledges an eviction (evicted).
// sim/memsys/README.md follows the transactions.
type sliceShadow struct {
	fabric               *fabric
	top, bottom, dram    *fabricEnd
	port                 *sinkPort // sector fetches to the DRAM channel
	portEnd              *fabricEnd
	ids                  *IDSource
	lineSize, sectorSize uint64
	fullLine             uint32  // a mask with every sector of a line
	releaseDelay         float64 // cycles from a sector fetch's data to the held answer

	// requests the slice holds: delivered to its top port, not answered.
	requests map[requestKey]shadowRequest
	perLine  map[uint64]*lineRequests

	// partial holds, by line address, the lines a fetch answered without
	// DRAM brought into the slice: the sectors known to be there (written
	// by a store since, or fetched for a load) and the answers waiting for
	// the others.
	partial map[uint64]*partialLine
	// sectorFetches are the sector fetches in flight, by request ID.
	sectorFetches map[string]sectorFetch

	// dirty holds the sectors of each line the slice holds dirty: those a
	// store or atomic wrote, until the line's eviction leaves for DRAM.
	dirty      map[uint64]uint32
	dirtyBytes uint64

	// evictions maps an eviction's write ID to its line until DRAM
	// acknowledges it.
	evictions map[string]uint64
	// events orders answers and evictions (evicted compares them).
	events uint64
}

// requestKey names a request: IDs are unique per requester only.
type requestKey struct {
	src sim.Port
	id  string
}

type requestKind uint8

const (
	kindRead   requestKind = iota // a load (any L1's)
	kindStore                     // a store
	kindAtomic                    // an atomic unit's sector write: reads its sector
)

type shadowRequest struct {
	line    uint64
	kind    requestKind
	sectors uint32 // sectors it reads (loads, atomics) or writes (dirties)
	whole   uint32 // sectors a store writes every byte of
}

// lineRequests counts the requests the slice holds for one line.
type lineRequests struct {
	all     int
	readers int // loads and atomics
}

type partialLine struct {
	line     uint64
	valid    uint32 // sectors the slice's copy really holds
	fetching uint32 // sectors a sector fetch is bringing
	held     []heldAnswer
	answered uint64 // events at the slice's last answer for the line
	evicted  uint64 // events when its last eviction left
}

type heldAnswer struct {
	msg   sim.Msg
	needs uint32
}

type sectorFetch struct {
	p       *partialLine
	sectors uint32
}

func newSliceShadow(f *fabric, lineSize, sectorSize int, ids *IDSource, releaseDelay float64) *sliceShadow {
	n := lineSize / sectorSize
	return &sliceShadow{
		fabric:        f,
		ids:           ids,
		lineSize:      uint64(lineSize),
		sectorSize:    uint64(sectorSize),
		fullLine:      uint32(1<<n - 1),
		releaseDelay:  releaseDelay,
		requests:      make(map[requestKey]shadowRequest),
		perLine:       make(map[uint64]*lineRequests),
		partial:       make(map[uint64]*partialLine),
		sectorFetches: make(map[string]sectorFetch),
		dirty:         make(map[uint64]uint32),
		evictions:     make(map[string]uint64),
	}
}

// sectorsOf returns the sectors of line that [addr, addr+n) touches.
func (s *sliceShadow) sectorsOf(line, addr, n uint64) uint32 {
	if n == 0 {
		return 0
	}
	first := (addr - line) / s.sectorSize
	last := (addr + n - 1 - line) / s.sectorSize
	return uint32(1<<(last+1)-1) &^ uint32(1<<first-1)
}

// writeSectors returns the sectors a write dirties (any byte) and those it
// writes whole.
func (s *sliceShadow) writeSectors(w *mem.WriteReq, line uint64) (any, whole uint32) {
	return writeSectors(w, line, s.lineSize, s.sectorSize)
}

func (s *sliceShadow) dirtyTotal() uint64 { return s.dirtyBytes }

func (s *sliceShadow) lineOf(addr uint64) uint64 { return addr &^ (s.lineSize - 1) }

// accepted records a request the fabric delivered to the slice's top port.
func (s *sliceShadow) accepted(msg sim.Msg) {
	var r shadowRequest
	switch m := msg.(type) {
	case *mem.ReadReq:
		r.line = s.lineOf(m.Address)
		r.kind = kindRead
		r.sectors = s.sectorsOf(r.line, m.Address, m.AccessByteSize)
	case *mem.WriteReq:
		r.line = s.lineOf(m.Address)
		r.kind = kindStore
		if s.fabric.mustEnd(m.Src, "send from").atomic {
			r.kind = kindAtomic
		}
		r.sectors, r.whole = s.writeSectors(m, r.line)
	default:
		return
	}
	meta := msg.Meta()
	s.requests[requestKey{meta.Src, meta.ID}] = r
	lr := s.perLine[r.line]
	if lr == nil {
		lr = &lineRequests{}
		s.perLine[r.line] = lr
	}
	lr.all++
	if r.kind != kindStore {
		lr.readers++
	}
}

// answered handles a response the slice sends from its top port. It
// returns true when the shadow holds the response (a load or atomic of a
// partial line that reads sectors the slice lacks): the fabric must not
// send it now; the shadow sends it once the sectors arrive.
func (s *sliceShadow) answered(msg sim.Msg) bool {
	var respondTo string
	switch m := msg.(type) {
	case *mem.DataReadyRsp:
		respondTo = m.RespondTo
	case *mem.WriteDoneRsp:
		respondTo = m.RespondTo
	default:
		return false
	}
	key := requestKey{msg.Meta().Dst, respondTo}
	r, ok := s.requests[key]
	if !ok {
		return false
	}
	delete(s.requests, key)
	lr := s.perLine[r.line]
	lr.all--
	if r.kind != kindStore {
		lr.readers--
	}
	if lr.all == 0 {
		delete(s.perLine, r.line)
	}

	if r.kind != kindRead {
		s.markDirty(r.line, r.sectors)
	}
	p := s.partial[r.line]
	if p == nil {
		return false
	}
	s.events++
	p.answered = s.events
	if r.kind == kindStore {
		s.validate(p, r.whole)
		return false
	}
	missing := r.sectors &^ p.valid
	if missing == 0 {
		return false
	}
	p.held = append(p.held, heldAnswer{msg: msg, needs: r.sectors})
	s.fetchSectors(p, missing&^p.fetching)
	return true
}

func (s *sliceShadow) markDirty(line uint64, sectors uint32) {
	old := s.dirty[line]
	added := sectors &^ old
	if added == 0 {
		return
	}
	s.dirty[line] = old | sectors
	s.dirtyBytes += uint64(bits.OnesCount32(added)) * s.sectorSize
}

// validate marks sectors of a partial line as held by the slice, and
// forgets the line once it holds them all.
func (s *sliceShadow) validate(p *partialLine, sectors uint32) {
	p.valid |= sectors
	if p.valid == s.fullLine && len(p.held) == 0 && s.partial[p.line] == p {
		delete(s.partial, p.line)
	}
}

// fetchSectors reads sectors of a partial line from the DRAM channel, one
// request per run of consecutive sectors.
func (s *sliceShadow) fetchSectors(p *partialLine, sectors uint32) {
	p.fetching |= sectors
	forEachRun(sectors, func(first, run int, run32 uint32) {
		req := &mem.ReadReq{
			Address:        p.line + uint64(first)*s.sectorSize,
			AccessByteSize: uint64(run) * s.sectorSize,
		}
		req.ID = s.ids.Next()
		req.Src = s.port
		req.Dst = s.dram.port
		req.SendTime = s.fabric.doms[0].engine.CurrentTime()
		s.sectorFetches[req.ID] = sectorFetch{p: p, sectors: run32}
		s.fabric.enqueue(req, s.portEnd, s.dram, 0)
	})
}

// acceptSectors takes a sector fetch's data from the DRAM channel and sends
// on, in order, every held answer whose sectors are now all there. The
// fabric calls it from a delivery, with its mutex held.
func (s *sliceShadow) acceptSectors(msg sim.Msg, _ sim.VTimeInSec) bool {
	rsp, ok := msg.(*mem.DataReadyRsp)
	if !ok {
		panic("memsys: a sector fetch got " + msg.Meta().ID)
	}
	sf, ok := s.sectorFetches[rsp.RespondTo]
	if !ok {
		panic("memsys: data for an unknown sector fetch " + rsp.RespondTo)
	}
	delete(s.sectorFetches, rsp.RespondTo)
	p := sf.p
	p.fetching &^= sf.sectors
	p.valid |= sf.sectors
	kept := p.held[:0]
	for _, h := range p.held {
		if h.needs&^p.valid != 0 {
			kept = append(kept, h)
			continue
		}
		s.fabric.enqueue(h.msg, s.top, s.fabric.mustEnd(h.msg.Meta().Dst, "send to"), s.releaseDelay)
	}
	clear(p.held[len(kept):])
	p.held = kept
	s.validate(p, 0)
	return true
}

// fetching handles a line fetch the slice sends to DRAM. akita's cache
// fetches a line when a request misses and no fetch of the line is
// outstanding; the requests that arrive before the data joins the fetch.
// If every request the slice holds for the line is a store, the fetch is
// for a partial store that missed: it returns true and answers the fetch
// at once, from the DRAM channel's port, without DRAM time or bytes, and
// the line becomes partial, holding nothing but what stores write. A load
// or atomic that joins the fetch later is answered only once the sectors
// it reads are there (answered). The data is a fresh line of zeros: DRAM
// holds nothing else (every write in the system carries zeros; values live
// in the executor).
func (s *sliceShadow) fetching(req *mem.ReadReq) bool {
	line := s.lineOf(req.Address)
	if lr := s.perLine[line]; lr != nil && lr.readers > 0 {
		// A load or atomic needs the line: a real fill, which makes
		// the slice's copy whole.
		delete(s.partial, line)
		return false
	}
	s.partial[line] = &partialLine{line: line}
	rsp := &mem.DataReadyRsp{
		RespondTo: req.ID,
		Data:      make([]byte, req.AccessByteSize),
	}
	rsp.ID = s.ids.Next()
	rsp.Src = s.dram.port
	rsp.Dst = req.Src
	rsp.SendTime = s.fabric.doms[0].engine.CurrentTime()
	s.fabric.enqueue(rsp, s.dram, s.bottom, 0)
	return true
}

// evicting handles a dirty line's write-back leaving the slice: its
// sectors are no longer dirty in L2 (the DRAM channel counts them as
// written when the write arrives).
func (s *sliceShadow) evicting(w *mem.WriteReq) {
	line := s.lineOf(w.Address)
	sectors, _ := s.writeSectors(w, line)
	if old, ok := s.dirty[line]; ok {
		s.dirtyBytes -= uint64(bits.OnesCount32(old&sectors)) * s.sectorSize
		if rest := old &^ sectors; rest != 0 {
			s.dirty[line] = rest
		} else {
			delete(s.dirty, line)
		}
	}
	if p := s.partial[line]; p != nil {
		s.evictions[w.ID] = line
		s.events++
		p.evicted = s.events
	}
}

// evicted handles the DRAM channel's acknowledgement of a write-back. Until
// then akita's cache may answer a new miss on the line from the write-back
// it holds, so the record of a partial line lives at least this long; it
// is dropped now unless a request for the line is in the slice or was
// answered since the write-back left (the line may be back in the slice).
// A record kept too long does no harm: the line's next fetch replaces it.
func (s *sliceShadow) evicted(done *mem.WriteDoneRsp) {
	line, ok := s.evictions[done.RespondTo]
	if !ok {
		return
	}
	delete(s.evictions, done.RespondTo)
	p := s.partial[line]
	if p == nil || len(p.held) > 0 || p.fetching != 0 {
		return
	}
	if lr := s.perLine[line]; lr != nil {
		return
	}
	if p.answered > p.evicted {
		return
	}
	delete(s.partial, line)
}
