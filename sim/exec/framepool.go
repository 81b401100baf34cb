package exec

import (
	"math/bits"
	"sync"
)

// framePool keeps call frames' register files and param frames for reuse,
// in power-of-two size classes. SMs simulated in parallel share a program,
// hence sync.Pool.
type framePool struct {
	regPools   [48]sync.Pool // *[]uint64 by size class
	paramPools [48]sync.Pool // *[]byte by size class
}

// sizeClass is the class holding slices of capacity 1<<class >= n.
func sizeClass(n int) int { return bits.Len(uint(n - 1)) }

// regs returns a register file of length n whose contents are undefined.
func (p *framePool) regs(n int) []uint64 {
	c := sizeClass(n)
	if v, ok := p.regPools[c].Get().(*[]uint64); ok {
		return (*v)[:n]
	}
	return make([]uint64, n, 1<<c)
}

// params returns a param frame of length n whose contents are undefined.
func (p *framePool) params(n int) []byte {
	c := sizeClass(n)
	if v, ok := p.paramPools[c].Get().(*[]byte); ok {
		return (*v)[:n]
	}
	return make([]byte, n, 1<<c)
}

// putRegs returns a register file that regs made (others are dropped).
func (p *framePool) putRegs(s []uint64) {
	if c := cap(s); c > 0 && c&(c-1) == 0 {
		p.regPools[sizeClass(c)].Put(&s)
	}
}

// putParams returns a param frame that params made.
func (p *framePool) putParams(s []byte) {
	if c := cap(s); c > 0 && c&(c-1) == 0 {
		p.paramPools[sizeClass(c)].Put(&s)
	}
}

// releaseFrames hands the warp's spare call frames to its program once its
// CTA retired (no thread group of it is in a call any more). The frames
// its calls returned from stay in w.frames' array past its length; they
// are dropped too, so that a retired CTA, which its program keeps for the
// next launch, holds no callee register file that the pool has let go.
func (w *Warp) releaseFrames() {
	pool := &w.g.prog.frames
	for i := range w.spare {
		pool.putRegs(w.spare[i].regs)
		pool.putParams(w.spare[i].params)
		w.spare[i] = frame{}
	}
	w.spare = w.spare[:0]
	clear(w.frames[len(w.frames):cap(w.frames)])
}
