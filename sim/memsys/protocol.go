package memsys

import (
	"strconv"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
)

// SectorMask marks the sectors of a line a load reads: bit k is sector k,
// counted from the start of the line. NewLineRead puts it in a ReadReq's Info
// so that the sectored L1 fetches only those sectors of the request's span;
// akita's L1s ignore it and fetch whole lines.
type SectorMask uint32

// BypassL1 is the Info of a load that must not be served from L1 (a
// volatile load, or a relaxed or acquire load at gpu or sys scope: on NVIDIA
// GPUs since Volta such loads always go to L2). NewLineReadBypass puts it
// in a ReadReq's Info in place of the SectorMask, which it carries. The
// sectored L1 neither looks the load up nor allocates its line: it sends
// the sectors to the line's L2 slice and answers when they are back.
// akita's L1 models ignore it and serve the load as any other (only the
// sectored L1 honours the bypass).
type BypassL1 SectorMask

// StrongRead is the Info of the read a sectored L1 sends to L2 for a load
// that bypassed it (BypassL1): L2 knows it from an L1's fill, because only
// strong loads queue behind the atomics on their line
// (Config.AtomicLineLoadCycles).
type StrongRead struct{}

// AtomicOp is one address of an atomic request and the number of lanes of
// the warp that update it.
type AtomicOp struct {
	Address uint64
	Lanes   int
}

// AtomicReq carries the part of one warp's atomic (or reduction) instruction
// that falls in one sector: an SM sends one AtomicReq per distinct sector the
// active lanes touch, listing each distinct address once with its lane
// count, so that the atomic unit can serialize operations on the same
// address. Send it to AtomicPortFor(SectorAddress).
type AtomicReq struct {
	sim.MsgMeta

	// SectorAddress is the first byte of the sector every Op falls in
	// (of a packet: its first sector).
	SectorAddress uint64
	// Ops lists the distinct addresses and their lane counts.
	Ops []AtomicOp
	// Sectors lists a packet's sectors, SectorAddress first, all on one
	// slice (NewAtomicPacket); nil for a request of one sector.
	Sectors []uint64
	// writesDue counts the packet's sector writes L2 has still to
	// acknowledge.
	writesDue int
}

// Meta returns the message's metadata.
func (r *AtomicReq) Meta() *sim.MsgMeta { return &r.MsgMeta }

// Operations is the number of lane operations the request carries.
func (r *AtomicReq) Operations() int {
	n := 0
	for _, op := range r.Ops {
		n += op.Lanes
	}
	return n
}

// AtomicRsp tells the SM that every operation of an AtomicReq has completed
// its read-modify-write at L2. A reduction (red.*) may ignore it.
type AtomicRsp struct {
	sim.MsgMeta

	// RespondTo is the ID of the AtomicReq.
	RespondTo string
}

// Meta returns the message's metadata.
func (r *AtomicRsp) Meta() *sim.MsgMeta { return &r.MsgMeta }

// GetRspTo returns the ID of the request this response answers.
func (r *AtomicRsp) GetRspTo() string { return r.RespondTo }

// IDSource names the messages one component creates: prefix#1, prefix#2,
// and so on. Each System owns its sources (and each SM one), so
// simulations in one process stay independent and their IDs do not depend
// on what else ran (akita's process-wide generator is still used inside
// akita's own components; see the package's caveats).
type IDSource struct {
	prefix string
	next   uint64
	// batch holds the next IDs, cut from one string (one allocation for
	// idBatch IDs); ends[i] is where the i-th ends.
	batch string
	ends  [idBatch]int32
	k     int
	buf   []byte
}

const idBatch = 32

// NewIDSource returns a source of IDs that start with prefix and "#".
func NewIDSource(prefix string) *IDSource {
	return &IDSource{prefix: prefix + "#", k: idBatch}
}

// Next returns the next ID.
func (s *IDSource) Next() string {
	if s.k == idBatch {
		s.buf = s.buf[:0]
		for i := range idBatch {
			s.buf = append(s.buf, s.prefix...)
			s.buf = strconv.AppendUint(s.buf, s.next+uint64(i)+1, 10)
			s.ends[i] = int32(len(s.buf))
		}
		s.batch, s.k = string(s.buf), 0
	}
	from := 0
	if s.k > 0 {
		from = int(s.ends[s.k-1])
	}
	id := s.batch[from:s.ends[s.k]]
	s.k++
	s.next++
	return id
}

// Last returns the number of the ID Next returned last.
func (s *IDSource) Last() uint64 { return s.next }

// Number returns the number that ends an ID Next made (ok false for any
// other string), so that maps of IDs can key by it and spare a string
// hash.
func (s *IDSource) Number(id string) (n uint64, ok bool) {
	if len(id) <= len(s.prefix) || id[:len(s.prefix)] != s.prefix {
		return 0, false
	}
	for i := len(s.prefix); i < len(id); i++ {
		d := id[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return n, true
}

// slab hands out zeroed values a batch at a time, so that one allocation
// serves slabSize messages (each is handed out once, never reused).
type slab[T any] struct{ free []T }

const slabSize = 32

func (s *slab[T]) new() *T {
	if len(s.free) == 0 {
		s.free = make([]T, slabSize)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// msgPool hands out zeroed messages of one kind: one given back (give) once
// nothing refers to it any more, or a new one from its slab. A reused
// message is in the cache; a new one costs an allocation, the garbage
// collector's work and a cache miss per line.
type msgPool[T any] struct {
	slab slab[T]
	free []*T
}

func (p *msgPool[T]) new() *T {
	if n := len(p.free); n > 0 {
		x := p.free[n-1]
		p.free = p.free[:n-1]
		var zero T
		*x = zero
		return x
	}
	return p.slab.new()
}

func (p *msgPool[T]) give(x *T) { p.free = append(p.free, x) }

// memPools are the messages that the memory side sends and receives
// itself on the way of an L1 miss: reads (the L1's fills to L2, the
// slices' reads from DRAM) and their answers. The receiver of an answer
// gives back the answer and the read it answers when its system reuses
// them (reusing): the serial engine, warpgraph's sectored L1 and L2
// (akita's components may keep what they send), and no hooks on the
// fabric or on either end (a tracer keeps messages as its tasks' details).
type memPools struct {
	reusing bool
	reads   msgPool[mem.ReadReq]
	answers msgPool[mem.DataReadyRsp]
}

// reuse reports whether the answer rsp to req, delivered through the
// fabric f, may be given back with req.
func (p *memPools) reuse(f *fabric, rsp, req sim.Msg) bool {
	if !p.reusing || f.NumHooks() > 0 {
		return false
	}
	a, q := rsp.Meta(), req.Meta()
	return noHooks(a.Src) && noHooks(a.Dst) && noHooks(q.Dst)
}
