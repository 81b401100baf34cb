package memsys

import (
	"cmp"
	"fmt"
	"math/bits"
)

// Coherence models (Config.Coherence).
const (
	// CoherenceIdeal: every load reads memory's current value (the
	// executor's image); the L1s charge time only. What memsys does for
	// "".
	CoherenceIdeal = "ideal"
	// CoherenceL1: a weak load that finds its sector in its SM's L1 reads
	// the L1's copy, which may be stale, as on NVIDIA GPUs, whose L1 is not
	// kept coherent with other SMs' stores. Needs the sectored L1.
	CoherenceL1 = "l1"
)

func (c Config) coherence() string {
	if c.Coherence == "" {
		return CoherenceIdeal
	}
	return c.Coherence
}

// slot is SM sm's place in a holder set: its index among its device's SMs.
func (v *L1Values) slot(sm int) int { return sm % v.perDevice }

// smOf is the SM in holder set slot k of line: of the line's owner.
func (v *L1Values) smOf(line uint64, k int) int {
	return deviceOf(line, v.devices)*v.perDevice + k
}

// maxCoherentSMs bounds the SM count under CoherenceL1 (smBits), per
// device.
const maxCoherentSMs = 256

// MaxSMs is the most SMs a system of this configuration can serve, 0 for
// no limit of its own: CoherenceL1 records which SMs hold a line in a
// fixed-size set. sim.Config.Validate checks it when a configuration is
// read, so that functional mode refuses what timing mode could not build.
func (c Config) MaxSMs() int {
	if c.coherence() == CoherenceL1 {
		return maxCoherentSMs
	}
	return 0
}

// smBits is a set of SMs.
type smBits [maxCoherentSMs / 64]uint64

func (b *smBits) add(sm int)      { b[sm>>6] |= 1 << (sm & 63) }
func (b *smBits) remove(sm int)   { b[sm>>6] &^= 1 << (sm & 63) }
func (b *smBits) empty() bool     { return b[0]|b[1]|b[2]|b[3] == 0 }
func (b *smBits) has(sm int) bool { return b[sm>>6]&(1<<(sm&63)) != 0 }

// staleWord is what an L1 holds of one aligned 8-byte word of memory that
// differs from memory: the bytes whose mask bit is set (bit i: byte i of
// the word, little-endian) hold the L1's old value in val.
type staleWord struct {
	val  uint64
	mask uint8
}

// L1Values is the value side of CoherenceL1: which SMs' L1s hold which
// lines (kept by the sectored L1s as they install, evict and invalidate),
// and, per SM, the bytes its L1 holds that memory no longer has.
//
// Values live in the executor's flat image, updated when an instruction
// issues; memsys never carries them. So rather than keep a copy of every
// cached sector, L1Values keeps copies only of what went stale: before a
// store or atomic changes memory (Write), it saves the old bytes for every
// other SM whose L1 holds the sector, and a weak load on such an SM
// (LoadWeak) reads them instead of the image. A store or atomic by the SM
// itself makes its own L1 copy of the bytes current (a write-through L1
// updates a line it holds), a fill makes the sectors it brings current, and
// an eviction or invalidation forgets the line's stale bytes with it.
//
// Its state is split by line into parts (ValueParts; one without domains):
// what concerns a line lives in the part of its line (PartOf), so callers
// may work on different parts at once (Part), each applying in order what
// falls in its part, with the same result as one caller applying it all.
//
// It implements exec.L1 (without importing sim/exec). Its methods take the
// fabric's lock: the SMs call them from their ticks while the L1s change
// their lines in the fabric's deliveries.
type L1Values struct {
	f         *fabric
	l1s       []*sectoredL1
	lineShift uint
	// perDevice and devices: with several devices (devices.go) a line's
	// holders are its owner's SMs only (another device's lines bypass the
	// L1s), so holder sets count SMs within their device: slot and smOf.
	perDevice, devices int

	parts    []*valuesPart
	partMask uint64

	// mirror: the system has domains (Builder.WithDomains). The L1s do not
	// call in; their changes come through Replay and InvalidateSM, in the
	// caller's order, and a part's held keeps, per SM, the sectors its L1
	// holds of each line by that order (the L1's tags run ahead of it).
	mirror      bool
	sectorShift uint
}

// valuesPart is L1Values' state for the lines of one part.
type valuesPart struct {
	v       *L1Values
	holders lineTable[smBits] // by line address: SMs whose L1 has the line
	free    []*smBits
	// stale is per SM, by line address, the lines with stale bytes (by
	// line rather than by word: an L1 fill or eviction forgets a sector or
	// a line at once, with one lookup instead of one per word).
	stale     []lineTable[staleLine]
	freeLines []*staleLine
	// seen is, per SM, the line LoadWeak looked up last and what it found
	// (a warp's lanes mostly load from one line); any change to the SM's
	// stale lines forgets it.
	seen []seenLine
	// held (mirror) is per SM the sectors its L1 holds of each line.
	held     []lineTable[heldLine]
	freeHeld []*heldLine
}

// ValueParts is how many parts L1Values splits its lines into on a system
// with domains: enough for a merge of a window's operations to spread
// over a host's cores.
const ValueParts = 16

// heldLine is the sectors an L1 holds of a line (mirror).
type heldLine struct{ mask uint32 }

type seenLine struct {
	valid bool
	line  uint64
	sl    *staleLine // nil: no stale bytes in the line
}

// staleLine is an L1's stale bytes in one line: a staleWord per word (mask
// 0: current), and how many words have some.
type staleLine struct {
	words []staleWord
	n     int
}

func newL1Values(s *System, mirror bool) *L1Values {
	v := &L1Values{
		f:           s.fabric,
		l1s:         s.sectoredL1s,
		lineShift:   uint(bits.TrailingZeros(uint(s.config.LineSizeBytes))),
		sectorShift: uint(bits.TrailingZeros(uint(s.config.SectorSizeBytes))),
		mirror:      mirror,
		perDevice:   len(s.sectoredL1s) / max(s.devices, 1),
		devices:     max(s.devices, 1),
	}
	nparts := 1
	if mirror {
		nparts = ValueParts
	}
	v.partMask = uint64(nparts - 1)
	n := len(s.sectoredL1s)
	for range nparts {
		p := &valuesPart{
			v:       v,
			holders: newLineTable[smBits](),
			stale:   make([]lineTable[staleLine], n),
			seen:    make([]seenLine, n),
		}
		for i := range n {
			p.stale[i] = newLineTable[staleLine]()
		}
		if mirror {
			p.held = make([]lineTable[heldLine], n)
			for i := range n {
				p.held[i] = newLineTable[heldLine]()
			}
		}
		v.parts = append(v.parts, p)
	}
	for i, c := range s.sectoredL1s {
		c.sm = i
		if mirror {
			c.logEvents = true
		} else {
			c.vals = v
		}
	}
	return v
}

// PartShift and PartMask say which part address a is in: (a >> PartShift)
// & PartMask, the same for every address of a line.
func (v *L1Values) PartShift() uint     { return v.lineShift }
func (v *L1Values) PartMask() uint64    { return v.partMask }
func (v *L1Values) PartOf(a uint64) int { return int(a >> v.lineShift & v.partMask) }

// part is the part of line (or of any address in it).
func (v *L1Values) part(line uint64) *valuesPart { return v.parts[line>>v.lineShift&v.partMask] }

// Part returns part k's view, an exec.L1 for addresses in part k alone:
// its HasStale answers for the part's lines only. Views of different
// parts may be used at once.
func (v *L1Values) Part(k int) *L1ValuesPart { return (*L1ValuesPart)(v.parts[k]) }

// L1ValuesPart is one part of L1Values (L1Values.Part).
type L1ValuesPart valuesPart

// HasStale reports whether SM sm's L1 holds a byte of the part's lines
// that differs from memory.
func (p *L1ValuesPart) HasStale(sm int) bool { return p.stale[sm].len() != 0 }

// LoadWeak is L1Values.LoadWeak for an address of the part.
func (p *L1ValuesPart) LoadWeak(sm int, a uint64, n int, mem uint64) uint64 {
	return (*valuesPart)(p).loadWeak(sm, a, n, mem)
}

// Write is L1Values.Write for an address of the part.
func (p *L1ValuesPart) Write(sm int, a uint64, n int, old, new uint64) {
	(*valuesPart)(p).write(sm, a, n, old, new)
}

// Replay is L1Values.Replay for an event of the part's lines (EventPart).
func (p *L1ValuesPart) Replay(sm int, e *L1Event) { (*valuesPart)(p).replay(sm, e) }

// InvalidateSM is L1Values.InvalidateSM for the part's lines.
func (p *L1ValuesPart) InvalidateSM(sm int) { (*valuesPart)(p).invalidateAll(sm) }

// EventPart is the part of the line an L1 event concerns.
func (v *L1Values) EventPart(e *L1Event) int { return v.PartOf(e.line) }

// L1Values returns the value side of CoherenceL1, or nil when the system
// models ideal coherence.
func (s *System) L1Values() *L1Values { return s.l1Values }

// byteMask returns the mask of the bytes [a, a+n) within a's word.
func byteMask(a uint64, n int) uint8 {
	return uint8((1<<n - 1) << (a & 7))
}

// wideMask expands a byte mask to the bits of those bytes.
func wideMask(m uint8) uint64 {
	var w uint64
	for i := range 8 {
		if m&(1<<i) != 0 {
			w |= 0xff << (8 * i)
		}
	}
	return w
}

// HasStale reports whether SM sm's L1 holds any byte that differs from
// memory. While it does not, weak loads on sm read memory.
func (v *L1Values) HasStale(sm int) bool {
	v.f.lock()
	defer v.f.unlock()
	for _, p := range v.parts {
		if p.stale[sm].len() != 0 {
			return true
		}
	}
	return false
}

// LoadWeak returns what a weak load of n bytes (1, 2, 4 or 8, aligned) at
// global address a on SM sm reads, given memory's value mem there: the
// L1's stale bytes where it has any, memory's elsewhere (a sector the L1
// holds and nobody changed is memory's value; one it does not hold is
// fetched now).
func (v *L1Values) LoadWeak(sm int, a uint64, n int, mem uint64) uint64 {
	v.f.lock()
	defer v.f.unlock()
	return v.part(a).loadWeak(sm, a, n, mem)
}

func (p *valuesPart) loadWeak(sm int, a uint64, n int, mem uint64) uint64 {
	if p.stale[sm].len() == 0 {
		return mem
	}
	v := p.v
	line := v.lineOf(a)
	seen := &p.seen[sm]
	if !seen.valid || seen.line != line {
		*seen = seenLine{valid: true, line: line, sl: p.stale[sm].get(line)}
	}
	sl := seen.sl
	if sl == nil {
		return mem
	}
	e := sl.words[v.wordIndex(a)]
	m := e.mask & byteMask(a, n)
	if m == 0 {
		return mem
	}
	sh := 8 * (a & 7)
	w := wideMask(m)
	word := mem<<sh&^w | e.val&w
	if n == 8 {
		return word
	}
	return word >> sh & (1<<(8*n) - 1)
}

// Write is called before a store or atomic by a thread on SM sm changes n
// bytes (1, 2, 4 or 8, aligned) at global address a from old to new. Every
// other SM whose L1 holds the sector keeps the old bytes (unless it
// already kept older ones); sm's own L1 copy of the bytes becomes current.
func (v *L1Values) Write(sm int, a uint64, n int, old, new uint64) {
	v.f.lock()
	defer v.f.unlock()
	v.part(a).write(sm, a, n, old, new)
}

func (p *valuesPart) write(sm int, a uint64, n int, old, new uint64) {
	v := p.v
	bm := byteMask(a, n)
	line, wi := v.lineOf(a), v.wordIndex(a)
	if st := &p.stale[sm]; st.len() != 0 {
		if sl := st.get(line); sl != nil && sl.words[wi].mask != 0 {
			sl.words[wi].mask &^= bm
			if sl.words[wi].mask == 0 {
				p.dropWord(sm, line, sl)
			}
		}
	}
	if old == new {
		return
	}
	hs := p.holders.get(line)
	if hs == nil {
		return
	}
	sh := 8 * (a & 7)
	for i, b := range hs {
		for b != 0 {
			t := v.smOf(line, i*64+bits.TrailingZeros64(b))
			b &= b - 1
			if t == sm {
				continue
			}
			c := v.l1s[t]
			if v.mirror {
				if h := p.held[t].get(line); h == nil || h.mask&c.sectorMask(a, uint64(n)) == 0 {
					continue
				}
			} else if ln := c.lookup(line); ln == nil || ln.valid&c.sectorMask(a, uint64(n)) == 0 {
				continue
			}
			st := &p.stale[t]
			sl := st.get(line)
			if sl == nil {
				sl = p.newLine()
				st.put(line, sl)
				p.seen[t].valid = false
			}
			e := &sl.words[wi]
			if add := bm &^ e.mask; add != 0 {
				if e.mask == 0 {
					sl.n++
				}
				w := wideMask(add)
				e.val = e.val&^w | old<<sh&w
				e.mask |= add
			}
		}
	}
}

// The sectored L1s report their lines (the fabric's lock is held).

// hold records that SM sm's L1 allocated line.
func (v *L1Values) hold(sm int, line uint64) { v.part(line).hold(sm, line) }

func (p *valuesPart) hold(sm int, line uint64) {
	hs := p.holders.get(line)
	if hs == nil {
		if n := len(p.free); n > 0 {
			hs = p.free[n-1]
			p.free = p.free[:n-1]
		} else {
			hs = new(smBits)
		}
		p.holders.put(line, hs)
	}
	hs.add(p.v.slot(sm))
}

// evict records that SM sm's L1 dropped line.
func (v *L1Values) evict(sm int, line uint64, lineBytes uint64) {
	v.part(line).evict(sm, line, lineBytes)
}

func (p *valuesPart) evict(sm int, line uint64, lineBytes uint64) {
	p.unhold(sm, line)
	p.forget(sm, line, lineBytes)
}

// unhold drops sm from line's holders.
func (p *valuesPart) unhold(sm int, line uint64) {
	if hs := p.holders.get(line); hs != nil && hs.has(p.v.slot(sm)) {
		hs.remove(p.v.slot(sm))
		if hs.empty() {
			p.holders.del(line)
			p.free = append(p.free, hs)
		}
	}
}

// forget drops SM sm's stale bytes in [addr, addr+bytes), which lie in
// one line.
func (v *L1Values) forget(sm int, addr, bytes uint64) { v.part(addr).forget(sm, addr, bytes) }

func (p *valuesPart) forget(sm int, addr, bytes uint64) {
	st := &p.stale[sm]
	if st.len() == 0 {
		return
	}
	v := p.v
	for w := addr &^ 7; w < addr+bytes; {
		line := v.lineOf(w)
		end := min(addr+bytes, line+1<<v.lineShift)
		if sl := st.get(line); sl != nil {
			for ; w < end; w += 8 {
				if e := &sl.words[v.wordIndex(w)]; e.mask != 0 {
					*e = staleWord{}
					p.dropWord(sm, line, sl)
				}
			}
		}
		w = end
	}
}

func (v *L1Values) lineOf(a uint64) uint64 { return a >> v.lineShift << v.lineShift }

// wordIndex is the index of a's word in its line.
func (v *L1Values) wordIndex(a uint64) int { return int(a&(1<<v.lineShift-1)) >> 3 }

// newLine returns an empty staleLine.
func (p *valuesPart) newLine() *staleLine {
	if n := len(p.freeLines); n > 0 {
		sl := p.freeLines[n-1]
		p.freeLines = p.freeLines[:n-1]
		return sl
	}
	return &staleLine{words: make([]staleWord, max(1, 1<<p.v.lineShift>>3))}
}

// dropWord counts a word of sl that became current, dropping the line from
// SM sm's stale lines when it was the last.
func (p *valuesPart) dropWord(sm int, line uint64, sl *staleLine) {
	sl.n--
	if sl.n == 0 {
		p.stale[sm].del(line)
		p.seen[sm].valid = false
		clear(sl.words)
		p.freeLines = append(p.freeLines, sl)
	}
}

// invalidateSM records that SM sm's L1 dropped every line (lines are the
// ones it held).
func (v *L1Values) invalidateSM(sm int, lines []l1Line) {
	for i := range lines {
		if lines[i].valid != 0 {
			v.part(lines[i].tag).unhold(sm, lines[i].tag)
		}
	}
	for _, p := range v.parts {
		p.stale[sm].reset()
		p.seen[sm].valid = false
	}
}

// L1Event is a change of an L1's lines under domains
// (Builder.WithDomains): sectors installed in a line it holds, a line
// allocated or a line dropped, at a cycle. System.TakeL1Events hands them
// out and L1Values.Replay applies them.
type L1Event struct {
	Cycle   uint64
	kind    l1EventKind
	line    uint64
	sectors uint32
}

type l1EventKind uint8

const (
	l1Add   l1EventKind = iota // sectors installed in a line the L1 holds
	l1Hold                     // a line allocated with sectors
	l1Evict                    // a line dropped
)

// TakeL1Events returns the changes of SM sm's L1 lines since the last call
// (under domains, with CoherenceL1), in the order they happened, and keeps
// buf's storage for the next ones.
func (s *System) TakeL1Events(sm int, buf []L1Event) []L1Event {
	c := s.sectoredL1s[sm]
	out := c.events
	c.events = buf[:0]
	return out
}

// Replay applies a change of SM sm's L1 lines (TakeL1Events) to the values
// (mirror): what the L1 did to L1Values when it made the change.
func (v *L1Values) Replay(sm int, e *L1Event) { v.part(e.line).replay(sm, e) }

func (p *valuesPart) replay(sm int, e *L1Event) {
	v := p.v
	switch e.kind {
	case l1Add:
		for m := e.sectors; m != 0; m &= m - 1 {
			k := uint64(bits.TrailingZeros32(m))
			p.forget(sm, e.line+k<<v.sectorShift, 1<<v.sectorShift)
		}
		if h := p.held[sm].get(e.line); h != nil {
			h.mask |= e.sectors
		}
	case l1Hold:
		p.hold(sm, e.line)
		h := p.held[sm].get(e.line)
		if h == nil {
			if n := len(p.freeHeld); n > 0 {
				h = p.freeHeld[n-1]
				p.freeHeld = p.freeHeld[:n-1]
			} else {
				h = new(heldLine)
			}
			p.held[sm].put(e.line, h)
		}
		h.mask = e.sectors
	case l1Evict:
		p.evict(sm, e.line, 1<<v.lineShift)
		if h := p.held[sm].get(e.line); h != nil {
			p.held[sm].del(e.line)
			p.freeHeld = append(p.freeHeld, h)
		}
	}
}

// InvalidateSM records (mirror) that SM sm's L1 dropped every line: at a
// launch, or at a fence wider than the CTA.
func (v *L1Values) InvalidateSM(sm int) {
	for _, p := range v.parts {
		p.invalidateAll(sm)
	}
}

func (p *valuesPart) invalidateAll(sm int) {
	p.held[sm].each(func(line uint64, h *heldLine) {
		if hs := p.holders.get(line); hs != nil {
			hs.remove(p.v.slot(sm))
			if hs.empty() {
				p.holders.del(line)
				p.free = append(p.free, hs)
			}
		}
		p.freeHeld = append(p.freeHeld, h)
	})
	p.held[sm].reset()
	p.stale[sm].reset()
	p.seen[sm].valid = false
}

// check verifies the bookkeeping against the L1s' tags (tests).
func (v *L1Values) check() error {
	v.f.lock()
	defer v.f.unlock()
	n := 0
	for sm, c := range v.l1s {
		for _, ln := range c.lines {
			if ln.valid == 0 {
				continue
			}
			n++
			if hs := v.part(ln.tag).holders.get(ln.tag); hs == nil || !hs.has(v.slot(sm)) {
				return fmt.Errorf("memsys: SM %d holds line %#x, not recorded", sm, ln.tag)
			}
		}
		var err error
		for _, p := range v.parts {
			p.stale[sm].each(func(line uint64, sl *staleLine) {
				k := 0
				for i, e := range sl.words {
					if e.mask == 0 {
						continue
					}
					k++
					w := line + uint64(8*i)
					ln := c.lookup(line)
					if ln == nil || ln.valid&c.sectorMask(w, 8) == 0 {
						err = cmp.Or(err, fmt.Errorf("memsys: SM %d keeps stale bytes at %#x outside its L1", sm, w))
					}
				}
				if k == 0 || k != sl.n {
					err = cmp.Or(err, fmt.Errorf("memsys: SM %d's line %#x counts %d stale words, has %d", sm, line, sl.n, k))
				}
				if v.part(line) != p {
					err = cmp.Or(err, fmt.Errorf("memsys: SM %d's stale line %#x is in another part", sm, line))
				}
			})
		}
		if err != nil {
			return err
		}
	}
	m := 0
	for _, p := range v.parts {
		p.holders.each(func(_ uint64, hs *smBits) {
			for _, b := range hs {
				m += bits.OnesCount64(b)
			}
		})
	}
	if m != n {
		return fmt.Errorf("memsys: %d lines recorded, %d held", m, n)
	}
	return nil
}
