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

// maxCoherentSMs bounds the SM count under CoherenceL1 (smBits).
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
// It implements exec.L1 (without importing sim/exec). Its methods take the
// fabric's lock: the SMs call them from their ticks while the L1s change
// their lines in the fabric's deliveries.
type L1Values struct {
	f         *fabric
	l1s       []*sectoredL1
	lineShift uint

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

	// mirror: the system has domains (Builder.WithDomains). The L1s do not
	// call in; their changes come through Replay and InvalidateSM, in the
	// caller's order, and held keeps, per SM, the sectors its L1 holds of
	// each line by that order (the L1's tags run ahead of it).
	mirror      bool
	held        []lineTable[heldLine]
	freeHeld    []*heldLine
	sectorShift uint
}

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
		holders:     newLineTable[smBits](),
		stale:       make([]lineTable[staleLine], len(s.sectoredL1s)),
		seen:        make([]seenLine, len(s.sectoredL1s)),
		mirror:      mirror,
	}
	if mirror {
		v.held = make([]lineTable[heldLine], len(s.sectoredL1s))
	}
	for i, c := range s.sectoredL1s {
		v.stale[i] = newLineTable[staleLine]()
		c.sm = i
		if mirror {
			v.held[i] = newLineTable[heldLine]()
			c.logEvents = true
		} else {
			c.vals = v
		}
	}
	return v
}

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
	return v.stale[sm].len() != 0
}

// LoadWeak returns what a weak load of n bytes (1, 2, 4 or 8, aligned) at
// global address a on SM sm reads, given memory's value mem there: the
// L1's stale bytes where it has any, memory's elsewhere (a sector the L1
// holds and nobody changed is memory's value; one it does not hold is
// fetched now).
func (v *L1Values) LoadWeak(sm int, a uint64, n int, mem uint64) uint64 {
	v.f.lock()
	defer v.f.unlock()
	if v.stale[sm].len() == 0 {
		return mem
	}
	line := v.lineOf(a)
	seen := &v.seen[sm]
	if !seen.valid || seen.line != line {
		*seen = seenLine{valid: true, line: line, sl: v.stale[sm].get(line)}
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
	bm := byteMask(a, n)
	line, wi := v.lineOf(a), v.wordIndex(a)
	if st := &v.stale[sm]; st.len() != 0 {
		if sl := st.get(line); sl != nil && sl.words[wi].mask != 0 {
			sl.words[wi].mask &^= bm
			if sl.words[wi].mask == 0 {
				v.dropWord(sm, line, sl)
			}
		}
	}
	if old == new {
		return
	}
	hs := v.holders.get(line)
	if hs == nil {
		return
	}
	sh := 8 * (a & 7)
	for i, b := range hs {
		for b != 0 {
			t := i*64 + bits.TrailingZeros64(b)
			b &= b - 1
			if t == sm {
				continue
			}
			c := v.l1s[t]
			if v.mirror {
				if h := v.held[t].get(line); h == nil || h.mask&c.sectorMask(a, uint64(n)) == 0 {
					continue
				}
			} else if ln := c.lookup(line); ln == nil || ln.valid&c.sectorMask(a, uint64(n)) == 0 {
				continue
			}
			st := &v.stale[t]
			sl := st.get(line)
			if sl == nil {
				sl = v.newLine()
				st.put(line, sl)
				v.seen[t].valid = false
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
func (v *L1Values) hold(sm int, line uint64) {
	hs := v.holders.get(line)
	if hs == nil {
		if n := len(v.free); n > 0 {
			hs = v.free[n-1]
			v.free = v.free[:n-1]
		} else {
			hs = new(smBits)
		}
		v.holders.put(line, hs)
	}
	hs.add(sm)
}

// evict records that SM sm's L1 dropped line.
func (v *L1Values) evict(sm int, line uint64, lineBytes uint64) {
	if hs := v.holders.get(line); hs != nil && hs.has(sm) {
		hs.remove(sm)
		if hs.empty() {
			v.holders.del(line)
			v.free = append(v.free, hs)
		}
	}
	v.forget(sm, line, lineBytes)
}

// forget drops SM sm's stale bytes in [addr, addr+bytes).
func (v *L1Values) forget(sm int, addr, bytes uint64) {
	st := &v.stale[sm]
	if st.len() == 0 {
		return
	}
	for w := addr &^ 7; w < addr+bytes; {
		line := v.lineOf(w)
		end := min(addr+bytes, line+1<<v.lineShift)
		if sl := st.get(line); sl != nil {
			for ; w < end; w += 8 {
				if e := &sl.words[v.wordIndex(w)]; e.mask != 0 {
					*e = staleWord{}
					v.dropWord(sm, line, sl)
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
func (v *L1Values) newLine() *staleLine {
	if n := len(v.freeLines); n > 0 {
		sl := v.freeLines[n-1]
		v.freeLines = v.freeLines[:n-1]
		return sl
	}
	return &staleLine{words: make([]staleWord, max(1, 1<<v.lineShift>>3))}
}

// dropWord counts a word of sl that became current, dropping the line from
// SM sm's stale lines when it was the last.
func (v *L1Values) dropWord(sm int, line uint64, sl *staleLine) {
	sl.n--
	if sl.n == 0 {
		v.stale[sm].del(line)
		v.seen[sm].valid = false
		clear(sl.words)
		v.freeLines = append(v.freeLines, sl)
	}
}

// invalidateSM records that SM sm's L1 dropped every line (lines are the
// ones it held).
func (v *L1Values) invalidateSM(sm int, lines []l1Line) {
	for i := range lines {
		if lines[i].valid != 0 {
			if hs := v.holders.get(lines[i].tag); hs != nil {
				hs.remove(sm)
				if hs.empty() {
					v.holders.del(lines[i].tag)
					v.free = append(v.free, hs)
				}
			}
		}
	}
	v.stale[sm].reset()
	v.seen[sm].valid = false
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
func (v *L1Values) Replay(sm int, e *L1Event) {
	switch e.kind {
	case l1Add:
		for m := e.sectors; m != 0; m &= m - 1 {
			k := uint64(bits.TrailingZeros32(m))
			v.forget(sm, e.line+k<<v.sectorShift, 1<<v.sectorShift)
		}
		if h := v.held[sm].get(e.line); h != nil {
			h.mask |= e.sectors
		}
	case l1Hold:
		v.hold(sm, e.line)
		h := v.held[sm].get(e.line)
		if h == nil {
			if n := len(v.freeHeld); n > 0 {
				h = v.freeHeld[n-1]
				v.freeHeld = v.freeHeld[:n-1]
			} else {
				h = new(heldLine)
			}
			v.held[sm].put(e.line, h)
		}
		h.mask = e.sectors
	case l1Evict:
		v.evict(sm, e.line, 1<<v.lineShift)
		if h := v.held[sm].get(e.line); h != nil {
			v.held[sm].del(e.line)
			v.freeHeld = append(v.freeHeld, h)
		}
	}
}

// InvalidateSM records (mirror) that SM sm's L1 dropped every line: at a
// launch, or at a fence wider than the CTA.
func (v *L1Values) InvalidateSM(sm int) {
	v.held[sm].each(func(line uint64, h *heldLine) {
		if hs := v.holders.get(line); hs != nil {
			hs.remove(sm)
			if hs.empty() {
				v.holders.del(line)
				v.free = append(v.free, hs)
			}
		}
		v.freeHeld = append(v.freeHeld, h)
	})
	v.held[sm].reset()
	v.stale[sm].reset()
	v.seen[sm].valid = false
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
			if hs := v.holders.get(ln.tag); hs == nil || !hs.has(sm) {
				return fmt.Errorf("memsys: SM %d holds line %#x, not recorded", sm, ln.tag)
			}
		}
		var err error
		v.stale[sm].each(func(line uint64, sl *staleLine) {
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
		})
		if err != nil {
			return err
		}
	}
	m := 0
	v.holders.each(func(_ uint64, hs *smBits) {
		for _, b := range hs {
			m += bits.OnesCount64(b)
		}
	})
	if m != n {
		return fmt.Errorf("memsys: %d lines recorded, %d held", m, n)
	}
	return nil
}
