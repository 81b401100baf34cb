package exec

import (
	"fmt"
	"math/bits"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// MemoryFault is an out-of-range or misaligned access (or a store to a
// read-only space) by one thread. It unwraps to *kernels.MemoryFaultError.
type MemoryFault struct {
	Kernel  string
	PTXLine int
	// Source is "file:line" from the PTX's .loc, "" when unknown.
	Source string
	Inst   string
	CTA    [3]uint32
	Thread [3]uint32
	Space  ptx.Space
	Addr   uint64 // in Space (a device address for global and generic)
	Size   int
	Reason string
}

func (e *MemoryFault) detail() string {
	src := ""
	if e.Source != "" {
		src = " (" + e.Source + ")"
	}
	return fmt.Sprintf("%s: %d-byte %s access at %#x by CTA (%d,%d,%d) thread (%d,%d,%d) at PTX line %d%s `%s`",
		e.Reason, e.Size, e.Space, e.Addr, e.CTA[0], e.CTA[1], e.CTA[2], e.Thread[0], e.Thread[1], e.Thread[2], e.PTXLine, src, e.Inst)
}

func (e *MemoryFault) Error() string { return e.Unwrap().Error() }

// Unwrap returns the kernels-level error.
func (e *MemoryFault) Unwrap() error {
	return &kernels.MemoryFaultError{Kernel: e.Kernel, Detail: e.detail()}
}

func (w *Warp) fault(x *xinst, l int, sp ptx.Space, addr uint64, size int, reason string) error {
	f := &MemoryFault{
		Kernel:  w.g.prog.Name(),
		PTXLine: int(x.in.Pos.PTXLine),
		Inst:    w.fn.fn.InstString(w.g.prog.Module.PTX, int(x.pc)),
		CTA:     w.cta.ID,
		Thread:  w.threadID(l),
		Space:   sp,
		Addr:    addr,
		Size:    size,
		Reason:  reason,
	}
	if p := x.in.Pos; p.Line > 0 {
		files := w.g.prog.Module.PTX.Files
		if int(p.File) < len(files) && files[p.File] != "" {
			f.Source = fmt.Sprintf("%s:%d", files[p.File], p.Line)
		}
	}
	return f
}

// addrRow is the per-lane base of an instruction's address (zero when it
// has no base register).
func (w *Warp) addrRow(x *xinst) *[32]uint64 {
	if x.abase < 0 {
		return &zeroRow
	}
	return w.row(x.abase)
}

// resolve maps lane l's address a (in x's space) to a buffer and offset,
// checking range and alignment of an n-byte access. store says whether
// the access writes.
func (w *Warp) resolve(x *xinst, l int, a uint64, n int, store bool) ([]byte, uint64, error) {
	sp := x.space
	orig := a
	if sp == ptx.SpaceGeneric {
		switch {
		case a-SharedWindow < windowSize:
			sp, a = ptx.SpaceShared, a-SharedWindow
		case a-LocalWindow < windowSize:
			sp, a = ptx.SpaceLocal, a-LocalWindow
		default:
			sp = ptx.SpaceGlobal
		}
	}
	if rec := w.rec; rec != nil {
		rec.Mem.Space[l], rec.Mem.Addr[l] = sp, a
	}
	if a&uint64(n-1) != 0 {
		return nil, 0, w.fault(x, l, x.space, orig, n, "misaligned address")
	}
	un := uint64(n)
	switch sp {
	case ptx.SpaceGlobal:
		mem := w.cta.mem
		if !mem.holds(a, un) {
			// In a co-launch, another device's memory (Launch.Parts).
			mem = w.g.image(a)
		}
		if !mem.holds(a, un) {
			reason := "address outside global memory"
			switch {
			case a < 4096:
				reason = "null pointer access"
			case len(w.g.parts) == 1 && DeviceOf(a) > 0:
				reason = fmt.Sprintf("address in device %d's memory window: another device's memory is reached only in a co-launch", DeviceOf(a))
			}
			return nil, 0, w.fault(x, l, x.space, orig, n, reason)
		}
		if mem.checkBounds {
			if reason := mem.outsideAllocations(a, un); reason != "" {
				return nil, 0, w.fault(x, l, x.space, orig, n, reason)
			}
		}
		return mem.data, a - mem.base, nil
	case ptx.SpaceShared:
		sh := w.cta.shared
		if a >= uint64(len(sh)) || uint64(len(sh))-a < un {
			return nil, 0, w.fault(x, l, x.space, orig, n, fmt.Sprintf("address outside the CTA's %d bytes of shared memory", len(sh)))
		}
		return sh, a, nil
	case ptx.SpaceLocal:
		stride := uint64(w.g.localStride)
		if a >= stride || stride-a < un {
			return nil, 0, w.fault(x, l, x.space, orig, n, fmt.Sprintf("address outside the thread's %d bytes of local memory", stride))
		}
		return w.local, uint64(l)*stride + a, nil
	case ptx.SpaceParam:
		f := &w.frames[len(w.frames)-1]
		if f.fn.entry && a < uint64(f.fn.fn.KernelParamSize) {
			if store {
				return nil, 0, w.fault(x, l, x.space, orig, n, "store to a kernel parameter")
			}
			p := w.cta.params
			if a >= uint64(len(p)) || uint64(len(p))-a < un {
				return nil, 0, w.fault(x, l, x.space, orig, n, "address outside the kernel parameters")
			}
			return p, a, nil
		}
		pf := uint64(f.fn.paramFrame)
		if a >= pf || pf-a < un {
			return nil, 0, w.fault(x, l, x.space, orig, n, "address outside the param frame")
		}
		return f.params, uint64(l)*pf + a, nil
	}
	return nil, 0, w.fault(x, l, x.space, orig, n, "unsupported state space")
}

// sizeMask is the mask of an n-byte value.
func sizeMask(n int) uint64 {
	if n >= 8 {
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

// ext extends a loaded value by the instruction's signedness.
func ext(x *xinst, v uint64) uint64 {
	if x.signed && x.size < 8 {
		return uint64(sx(v, int(x.size)*8))
	}
	return v
}

func (w *Warp) memRecord(x *xinst, kind MemKind, m uint32) {
	if w.rec != nil {
		w.rec.Mem.Kind = kind
		w.rec.Mem.Size = int(x.size) * int(x.vec)
		w.rec.Mem.Lanes = m
	}
}

// ldParam loads a kernel parameter: the same value for every lane.
func (w *Warp) ldParam(x *xinst, m uint32) {
	w.memRecord(x, MemLoad, m)
	if rec := w.rec; rec != nil {
		for l := range WarpSize {
			rec.Mem.Space[l], rec.Mem.Addr[l] = ptx.SpaceParam, x.aoff
		}
	}
	p := w.cta.params
	for i := 0; i < int(x.vec); i++ {
		off := x.aoff + uint64(i)*uint64(x.size)
		var v uint64
		if off+uint64(x.size) <= uint64(len(p)) {
			v = ext(x, load(p, off, int(x.size)))
		}
		d := w.row(x.dst[i])
		if m == fullMask {
			for l := range d {
				d[l] = v
			}
			continue
		}
		for mm := m; mm != 0; mm &= mm - 1 {
			d[bits.TrailingZeros32(mm)] = v
		}
	}
}

// ldGlobal is a scalar ld.global with a base register.
func (w *Warp) ldGlobal(x *xinst, m uint32) error {
	if w.sh != nil && !w.sh.rounds && x.space != ptx.SpaceConst {
		return w.ldGlobalSplit(x, m)
	}
	w.memRecord(x, MemLoad, m)
	if x.space != ptx.SpaceConst {
		w.polled(x)
	}
	base := w.row(x.abase)
	d := w.row(x.dst[0])
	mem := w.cta.mem
	data, mbase := mem.data, mem.base
	n := uint64(len(data))
	size := uint64(x.size)
	off := x.aoff
	rec := w.rec
	var l1 L1 // set when the SM's L1 may hold stale copies
	if g := w.g; g.l1 != nil && x.space == ptx.SpaceGlobal && weakLoad(x.in) && g.l1.HasStale(w.cta.SM) {
		l1 = g.l1
	}
	over := w.overlaid()
	// Its addresses, before the destination overwrites the base.
	w.accessed(MemLoad, x, m, base, off)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o := data, a-mbase
		if o >= n || n-o < size || a&(size-1) != 0 || a < mbase || mem.checked(a, size) {
			// A fault, or another device's memory in a co-launch.
			var err error
			if buf, o, err = w.resolve(x, l, a, int(size), false); err != nil {
				return err
			}
		}
		if rec != nil {
			rec.Mem.Space[l], rec.Mem.Addr[l] = ptx.SpaceGlobal, a
		}
		var v uint64
		switch size {
		case 4:
			v = uint64(uint32(buf[o]) | uint32(buf[o+1])<<8 | uint32(buf[o+2])<<16 | uint32(buf[o+3])<<24)
		default:
			v = load(buf, o, int(size))
		}
		if l1 != nil {
			v = l1.LoadWeak(w.cta.SM, a, int(size), v)
		}
		if over != nil {
			v = over.get(a, int(size), v)
		}
		d[l] = ext(x, v)
	}
	return nil
}

// stGlobal is a scalar st.global with a base register.
func (w *Warp) stGlobal(x *xinst, m uint32) error {
	if w.sh != nil {
		return w.stGlobalSplit(x, m)
	}
	w.memRecord(x, MemStore, m)
	base := w.row(x.abase)
	s := w.src(&x.src[0], &w.sc.t[0])
	mem := w.cta.mem
	data, mbase := mem.data, mem.base
	n := uint64(len(data))
	size := uint64(x.size)
	off := x.aoff
	rec := w.rec
	changed := false
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o := data, a-mbase
		if o >= n || n-o < size || a&(size-1) != 0 || a < mbase || mem.checked(a, size) {
			// A fault, or another device's memory in a co-launch.
			var err error
			if buf, o, err = w.resolve(x, l, a, int(size), true); err != nil {
				return err
			}
		}
		if rec != nil {
			rec.Mem.Space[l], rec.Mem.Addr[l] = ptx.SpaceGlobal, a
		}
		v := s[l]
		if l1 := w.g.l1; l1 != nil {
			l1.Write(w.cta.SM, a, int(size), load(buf, o, int(size)), v&sizeMask(int(size)))
		}
		switch size {
		case 4:
			_ = buf[o+3]
			b0, b1, b2, b3 := byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			if buf[o] != b0 || buf[o+1] != b1 || buf[o+2] != b2 || buf[o+3] != b3 {
				buf[o], buf[o+1], buf[o+2], buf[o+3] = b0, b1, b2, b3
				changed = true
			}
		default:
			changed = storeChanged(buf, o, int(size), v) || changed
		}
	}
	w.accessed(MemStore, x, m, base, off)
	w.progressIf(changed)
	return nil
}

// localBase is the local address offset of symbol-relative local
// addresses in the current frame.
func (w *Warp) localOff(x *xinst) uint64 {
	if !x.alocal {
		return 0
	}
	return w.frames[len(w.frames)-1].localBase
}

// ld is the general load: any space, vectors, generic addresses.
func (w *Warp) ld(x *xinst, m uint32) error {
	if w.sh != nil && !w.sh.rounds {
		return w.ldSplit(x, m)
	}
	w.memRecord(x, MemLoad, m)
	if x.space != ptx.SpaceParam && x.space != ptx.SpaceLocal && x.space != ptx.SpaceConst {
		w.polled(x)
	}
	base := w.addrRow(x)
	off := x.aoff + w.localOff(x)
	size := int(x.size)
	vec := int(x.vec)
	var l1 L1 // set when the SM's L1 may hold stale copies
	if g := w.g; g.l1 != nil && (x.space == ptx.SpaceGlobal || x.space == ptx.SpaceGeneric) &&
		weakLoad(x.in) && g.l1.HasStale(w.cta.SM) {
		l1 = g.l1
	}
	if l1 == nil && w.rec == nil && vec == 1 && x.space == ptx.SpaceGeneric && w.ldGenericGlobal(x, m, base, off, size) {
		return nil
	}
	if w.rec == nil && vec == 1 && x.space == ptx.SpaceParam {
		if buf, pf, ok := w.frameParams(x, m, base, off, size); ok {
			var vals [32]uint64 // loaded first: the destination may be the base register
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				vals[l] = ext(x, load(buf, uint64(l)*pf+base[l]+off, size))
			}
			d := w.row(x.dst[0])
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				d[l] = vals[l]
			}
			return nil
		}
	}
	// Load every lane first: a destination may be the base register.
	var vals [4][32]uint64
	over := w.overlaid()
	var global uint32 // for warming
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size*vec, false)
		if err != nil {
			return err
		}
		if l1 != nil && globalAddr(x, a) {
			for i := 0; i < vec; i++ {
				ea := a + uint64(i*size)
				vals[i][l] = ext(x, l1.LoadWeak(w.cta.SM, ea, size, load(buf, o+uint64(i*size), size)))
			}
			continue
		}
		if (over != nil || w.g.warm != nil) && globalAddr(x, a) {
			global |= 1 << l
			if over != nil {
				for i := 0; i < vec; i++ {
					vals[i][l] = ext(x, over.get(a+uint64(i*size), size, load(buf, o+uint64(i*size), size)))
				}
				continue
			}
		}
		for i := 0; i < vec; i++ {
			vals[i][l] = ext(x, load(buf, o+uint64(i*size), size))
		}
	}
	w.accessed(MemLoad, x, global, base, off)
	for i := 0; i < vec; i++ {
		d := w.row(x.dst[i])
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = vals[i][l]
		}
	}
	return nil
}

// ldGenericGlobal is ld's path for a scalar generic load whose lanes all
// address global memory, with no access recorded and no stale L1 copy to
// consult (ldGlobal is ld.global's): it loads and extends every active
// lane's value and reports true, or, when some lane's address is not
// global, aligned and inside the memory image, writes nothing and reports
// false, leaving the general path to resolve every lane (and to report
// the fault).
func (w *Warp) ldGenericGlobal(x *xinst, m uint32, base *[32]uint64, off uint64, size int) bool {
	mem := w.cta.mem
	data, mbase := mem.data, mem.base
	n, un, align := uint64(len(data)), uint64(size), uint64(size-1)
	// Loaded first: the destination may be the base register.
	var vals [32]uint64
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		o := a - mbase
		if a&align != 0 || a < mbase || o >= n || n-o < un || !globalAddr(x, a) || mem.checked(a, un) {
			return false
		}
		vals[l] = load(data, o, size)
	}
	if over := w.overlaid(); over != nil {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			vals[l] = over.get(base[l]+off, size, vals[l])
		}
	}
	w.accessed(MemLoad, x, m, base, off)
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = ext(x, vals[l])
	}
	return true
}

// frameParams is the fast path of a scalar .param access to the current
// frame's param area (not an entry's kernel parameters, which sit below
// KernelParamSize): when every active lane's offset is aligned and inside
// the area, it returns the area and its per-lane stride (lane l's offset a
// is at l*stride+a, as resolve maps it); otherwise false, leaving the
// general path to resolve every lane (and to report the fault).
func (w *Warp) frameParams(x *xinst, m uint32, base *[32]uint64, off uint64, size int) ([]byte, uint64, bool) {
	f := &w.frames[len(w.frames)-1]
	lo := uint64(0)
	if f.fn.entry {
		lo = uint64(f.fn.fn.KernelParamSize)
	}
	pf, un := uint64(f.fn.paramFrame), uint64(size)
	for mm := m; mm != 0; mm &= mm - 1 {
		a := base[bits.TrailingZeros32(mm)] + off
		if a < lo || a&(un-1) != 0 || a >= pf || pf-a < un {
			return nil, 0, false
		}
	}
	return f.params, pf, true
}

// st is the general store.
func (w *Warp) st(x *xinst, m uint32) error {
	// A round logs only what may reach global memory; the other spaces
	// are the warp's or its CTA's and store now.
	if sh := w.sh; sh != nil && (!sh.rounds || x.space == ptx.SpaceGlobal || x.space == ptx.SpaceGeneric) {
		return w.stSplit(x, m)
	}
	w.memRecord(x, MemStore, m)
	base := w.addrRow(x)
	off := x.aoff + w.localOff(x)
	size := int(x.size)
	vec := int(x.vec)
	var srcs [4]*[32]uint64
	for i := 0; i < vec; i++ {
		srcs[i] = w.src(&x.src[i], &w.sc.t[i])
	}
	changed := false
	if w.rec == nil && vec == 1 && x.space == ptx.SpaceParam {
		if buf, pf, ok := w.frameParams(x, m, base, off, size); ok {
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				changed = storeChanged(buf, uint64(l)*pf+base[l]+off, size, srcs[0][l]) || changed
			}
			w.progressIf(changed)
			return nil
		}
	}
	l1 := w.g.l1
	var global uint32 // for warming
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size*vec, true)
		if err != nil {
			return err
		}
		if w.g.warm != nil && globalAddr(x, a) {
			global |= 1 << l
		}
		if l1 != nil && globalAddr(x, a) {
			for i := 0; i < vec; i++ {
				eo := o + uint64(i*size)
				l1.Write(w.cta.SM, a+uint64(i*size), size, load(buf, eo, size), srcs[i][l]&sizeMask(size))
			}
		}
		for i := 0; i < vec; i++ {
			changed = storeChanged(buf, o+uint64(i*size), size, srcs[i][l]) || changed
		}
	}
	w.accessed(MemStore, x, global, base, off)
	w.progressIf(changed)
	return nil
}

// atom performs atom/red for the lanes in m, one lane at a time in
// ascending lane order: with several lanes on one address, lane 0's
// operation happens first and each later lane sees the value the previous
// one left.
func (w *Warp) atom(x *xinst, m uint32) error {
	if w.sh != nil {
		return w.atomSplit(x, m)
	}
	w.memRecord(x, MemAtomic, m)
	w.polled(x)
	in := x.in
	base := w.addrRow(x)
	off := x.aoff
	size := int(x.size)
	b := w.src(&x.src[0], &w.sc.t[0])
	c := &zeroRow
	if in.Atom == ptx.AtomCas {
		c = w.src(&x.src[1], &w.sc.t[1])
	}
	var d *[32]uint64
	if in.Op == ptx.OpAtom {
		d = w.row(x.dst[0])
	}
	var old [32]uint64
	changed := false
	l1 := w.g.l1
	var global uint32 // for warming and GlobalAtomics
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := base[l] + off
		buf, o, err := w.resolve(x, l, a, size, true)
		if err != nil {
			return err
		}
		if globalAddr(x, a) {
			global |= 1 << l
		}
		v := load(buf, o, size)
		nv := atomApply(in, v, b[l], c[l])
		if l1 != nil && globalAddr(x, a) {
			l1.Write(w.cta.SM, a, size, v, nv&sizeMask(size))
		}
		if nv != v {
			store(buf, o, size, nv)
			changed = true
		}
		old[l] = v
	}
	w.accessed(MemAtomic, x, global, base, off)
	w.g.GlobalAtomics += uint64(bits.OnesCount32(global))
	w.progressIf(changed)
	if d != nil {
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = old[l]
		}
	}
	return nil
}
