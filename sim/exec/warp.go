package exec

import (
	"fmt"
	"math/bits"

	"github.com/warpgraph/warpgraph/sim/ptx"
)

// WarpSize is the number of lanes of a warp.
const WarpSize = 32

const fullMask = ^uint32(0)

// WarpState says whether a warp can issue.
type WarpState uint8

// Warp states.
const (
	// WarpReady: the warp's next instruction can issue.
	WarpReady WarpState = iota
	// WarpAtBarrier: the warp waits at a CTA barrier (bar.sync, bar.red)
	// for the other warps of its CTA.
	WarpAtBarrier
	// WarpDone: every thread of the warp has exited.
	WarpDone
)

func (s WarpState) String() string {
	switch s {
	case WarpReady:
		return "ready"
	case WarpAtBarrier:
		return "at barrier"
	case WarpDone:
		return "done"
	}
	return fmt.Sprintf("WarpState(%d)", uint8(s))
}

// simtEntry is one entry of the reconvergence stack: the lanes in mask run
// from pc until they reach rpc, where the entry is popped and the entry
// below (holding the union of the paths' lanes) continues.
type simtEntry struct {
	pc, rpc int32
	mask    uint32
}

// frame is one activation of a function in a warp.
type frame struct {
	fn        *xfunc
	regs      []uint64 // nregs*32, warp-major: slot r of lane l at r*32+l
	params    []byte   // per-lane param frame, lane-major (fn.paramFrame bytes per lane)
	localBase uint64   // this frame's first local byte in each thread's local memory
	base      int      // index of the caller's SIMT entry; -1 for the kernel's frame
	call      *xinst   // the caller's call instruction
}

// Warp is 32 threads executing in lock step. The functional mode runs it
// in slices (run); a timing model calls Step once per issued instruction.
type Warp struct {
	// steps counts the instructions the warp has issued: the watchdog
	// tells a spinning warp (issuing, its state repeating) from one stalled
	// on a long memory operation (issuing nothing, its state unchanged).
	steps uint64

	g     *Grid
	cta   *CTA
	index int    // warp index in its CTA
	init  uint32 // lanes that hold threads
	state WarpState

	// The current frame, cached.
	fn   *xfunc
	code []xinst
	regs []uint64

	stack  []simtEntry
	frames []frame
	// Independent thread scheduling (its.go): its is set for compute
	// capability 7.0 and later; groups are the parked thread groups (the
	// running one is stack and frames); backEdges counts taken backward
	// branches for the turns; edgeFn, edgePC, loopEdges and spinHash
	// follow the loop being checked for a spin, spinFn and spinPC the
	// last branch found spinning; itsErr holds an error found while
	// switching.
	its       bool
	groups    []threadGroup
	backEdges uint32
	edgeFn    *xfunc
	edgePC    int32
	loopEdges uint32
	spinHash  uint64
	spinFn    *xfunc
	spinPC    int32
	itsErr    error
	exited    uint32
	carry     uint32 // per-lane carry flag (add.cc and friends)
	local     []byte // per-thread local memory, lane-major, g.localStride per lane

	// Barrier wait (state WarpAtBarrier).
	barID   int
	barDst  int32
	barMask uint32
	barInst *xinst
	barFn   *xfunc

	// polls are the last two distinct instructions through which the warp
	// read what other warps or the clock may change (loads, atomics, clock
	// reads), newest first: where it spins, for deadlock reports.
	polls [2]pollSite

	// sc is the grid's scratch rows (warpScratch), or its shard's; sh is
	// its SM's shard when the grid is split (nil otherwise).
	sc *warpScratch
	sh *Shard

	rec  *StepInfo // non-nil while Step records
	info StepInfo
	// laneSpace and laneAddr are info.Mem's per-lane arrays.
	laneSpace [WarpSize]ptx.Space
	laneAddr  [WarpSize]uint64

	// Call frames kept for reuse, by depth.
	spare []frame

	// ts is the warp's state and back-off, in its CTA's array (turnState);
	// turnReads says how the current turn read memory.
	ts        *turnState
	turnReads turnReads
	// Functional rounds (rounds.go): endTurn ends the warp's turn after the
	// instruction that set it; turnOps is the end of its turn's operations
	// in its shard's log and turnChanged whether the turn changed memory.
	endTurn     bool
	turnOps     int
	turnChanged bool
}

// turnState is what the functional scheduler reads of a warp at every
// turn, kept per CTA in one array (CTA.turns), so that a round's pass
// over thousands of warps, most of them waiting, finished or backed off,
// reads a few cache lines rather than each warp's: its state, and its
// back-off (Grid.runSlots, backOff): idleTurns counts the warp's last idle
// turns in a row, skipTurns the turns it still sits out for them, idleAt
// is the grid's change count after the last; turnN is the instructions
// of its turn in the current round (-1: none).
type turnState struct {
	state     WarpState
	idleTurns uint8
	skipTurns uint32
	turnN     int32
	idleAt    uint64
}

var zeroRow [32]uint64

// CTA returns the warp's CTA.
func (w *Warp) CTA() *CTA { return w.cta }

// Index is the warp's index in its CTA.
func (w *Warp) Index() int { return w.index }

// State says whether the warp can issue.
func (w *Warp) State() WarpState { return w.ts.state }

// ActiveMask is the mask of lanes that will issue the next instruction.
func (w *Warp) ActiveMask() uint32 {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1].mask
}

// Next returns the function and instruction index the warp issues next
// (nil when done), so a timing model can look at it before issuing.
func (w *Warp) Next() (*ptx.Function, int) {
	if w.ts.state == WarpDone || len(w.stack) == 0 {
		return nil, -1
	}
	return w.fn.fn, int(w.stack[len(w.stack)-1].pc)
}

// MemKind is the kind of a memory access.
type MemKind uint8

// Memory access kinds.
const (
	MemNone MemKind = iota
	MemLoad
	MemStore
	MemAtomic // atom and red: read-modify-write, in lane order
)

// MemAccess is what a memory instruction did, per lane.
type MemAccess struct {
	Kind MemKind
	// Size is the bytes each lane accessed (element size × vector length).
	Size int
	// Lanes are the lanes that accessed memory (StepInfo.Exec).
	Lanes uint32
	// Space is each lane's resolved state space (never SpaceGeneric):
	// global, shared, local or param.
	Space *[WarpSize]ptx.Space
	// Addr is each lane's address in its space: a device address for
	// global memory, the byte offset in the CTA's shared memory, in the
	// thread's local memory or in the param space.
	//
	// Space and Addr hold values only for the lanes in Lanes. They point
	// into the warp, so that a step clears a few words rather than 300
	// bytes of a warp the host has mostly not cached (under the timing
	// model a step's clearing cost as much as executing it).
	Addr *[WarpSize]uint64
}

// StepInfo describes one issued warp-instruction, for a timing model. It
// stays valid until the warp's next Step.
type StepInfo struct {
	Func *ptx.Function
	PC   int
	Inst *ptx.Inst
	// Active is the warp's SIMT mask when the instruction issued; Exec the
	// lanes whose guard predicate held (the lanes that executed it).
	Active, Exec uint32
	// Mem is set (Kind != MemNone) for ld, ldu, st, atom and red.
	Mem MemAccess
	// Barrier: the warp arrived at a CTA barrier. Released: that arrival
	// completed it (every waiting warp, this one included, is ready
	// again); otherwise the warp now waits (State() == WarpAtBarrier).
	Barrier, Released bool
	// Diverged: a branch split the warp.
	Diverged bool
	// Exited are the lanes that exited with this instruction.
	Exited uint32
	// Done: the warp finished with this instruction.
	Done bool
	// SleepNs is a nanosleep's delay: the longest its executing lanes
	// asked for, at most MaxSleepNs (0 for any other instruction).
	SleepNs uint32
}

// MaxSleepNs is the longest delay nanosleep takes: the PTX ISA bounds it
// at one millisecond.
const MaxSleepNs = 1_000_000

// warpScratch is the rows a step computes in: operands it must build, its
// results before they are written, the sink of writes to "_". One set
// serves every warp of a grid, whose warps step one at a time: kept in
// each warp they were some 2 KB the host had mostly not cached when a
// timing model stepped the warp.
type warpScratch struct {
	t    [4][32]uint64
	out  [32]uint64
	out2 [32]uint64
	sink [32]uint64
}

// Step executes the warp's next instruction and reports it. The warp must
// be ready.
func (w *Warp) Step() (*StepInfo, error) {
	if w.ts.state != WarpReady {
		return nil, fmt.Errorf("kernel %s: step of warp %d of CTA %s, which is %s", w.g.prog.Name(), w.index, dim(w.cta.ID), w.ts.state)
	}
	w.info = StepInfo{Mem: MemAccess{Space: &w.laneSpace, Addr: &w.laneAddr}}
	w.rec = &w.info
	err := w.step()
	w.rec = nil
	w.info.Done = w.ts.state == WarpDone
	return &w.info, err
}

// run executes up to budget instructions, stopping early when the warp
// blocks at a barrier, finishes or ends its turn in a round (endTurn). It
// returns the instructions executed.
func (w *Warp) run(budget int) (int, error) {
	n := 0
	for n < budget && w.ts.state == WarpReady {
		if err := w.step(); err != nil {
			return n + 1, err
		}
		n++
		if w.endTurn {
			w.endTurn = false
			break
		}
	}
	return n, nil
}

// row is register slot r of the current frame (the sink row for -1).
func (w *Warp) row(r int32) *[32]uint64 {
	if r < 0 {
		return &w.sc.sink
	}
	i := int(r) * 32
	return (*[32]uint64)(w.regs[i : i+32])
}

// src returns the row of values of a source operand, using tmp when it
// must be computed.
func (w *Warp) src(o *xopnd, tmp *[32]uint64) *[32]uint64 {
	switch o.kind {
	case okReg:
		i := int(o.idx) * 32
		r := (*[32]uint64)(w.regs[i : i+32])
		if !o.not {
			return r
		}
		for l := range tmp {
			tmp[l] = (r[l] ^ 1) & 1
		}
		return tmp
	case okConst:
		return &w.fn.consts[o.idx]
	case okSpecial:
		w.special(o.sreg, tmp)
		return tmp
	case okLocal:
		v := w.frames[len(w.frames)-1].localBase + o.imm
		for l := range tmp {
			tmp[l] = v
		}
		return tmp
	}
	return &zeroRow
}

// predMask is the mask of lanes whose predicate slot r is true (false when
// not).
func (w *Warp) predMask(r int32, not bool) uint32 {
	p := w.row(r)
	var m uint32
	// Eight lanes a step: one shift and or per eight lanes, not per lane.
	for l := 0; l < 32; l += 8 {
		q := (*[8]uint64)(p[l : l+8])
		m |= uint32(q[0]&1|(q[1]&1)<<1|(q[2]&1)<<2|(q[3]&1)<<3|(q[4]&1)<<4|(q[5]&1)<<5|(q[6]&1)<<6|(q[7]&1)<<7) << l
	}
	if not {
		m = ^m
	}
	return m
}

// guardMask is the lanes of active whose guard predicate holds: a few
// lanes (a poll by one thread) are read one by one, a fuller warp all at
// once (predMask).
func (w *Warp) guardMask(x *xinst, active uint32) uint32 {
	if bits.OnesCount32(active) > 8 {
		return active & w.predMask(x.guard, x.gnot)
	}
	p := w.row(x.guard)
	var m uint32
	for mm := active; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if (p[l]&1 != 0) != x.gnot {
			m |= 1 << l
		}
	}
	return m
}

func firstLane(m uint32) int { return bits.TrailingZeros32(m) }

// special fills row with a special register's per-lane values.
func (w *Warp) special(r ptx.SpecialReg, row *[32]uint64) {
	g, c := w.g, w.cta
	bx, by := uint64(g.L.Block[0]), uint64(g.L.Block[1])
	fill := func(v uint64) {
		for l := range row {
			row[l] = v
		}
	}
	base := uint64(w.index * WarpSize)
	switch r {
	case ptx.SRegTidX:
		for l := range row {
			row[l] = (base + uint64(l)) % bx
		}
	case ptx.SRegTidY:
		for l := range row {
			row[l] = (base + uint64(l)) / bx % by
		}
	case ptx.SRegTidZ:
		for l := range row {
			row[l] = (base + uint64(l)) / (bx * by)
		}
	case ptx.SRegNtidX:
		fill(bx)
	case ptx.SRegNtidY:
		fill(by)
	case ptx.SRegNtidZ:
		fill(uint64(g.L.Block[2]))
	case ptx.SRegCtaidX:
		fill(uint64(c.ID[0]))
	case ptx.SRegCtaidY:
		fill(uint64(c.ID[1]))
	case ptx.SRegCtaidZ:
		fill(uint64(c.ID[2]))
	case ptx.SRegNctaidX:
		fill(uint64(g.L.Grid[0]))
	case ptx.SRegNctaidY:
		fill(uint64(g.L.Grid[1]))
	case ptx.SRegNctaidZ:
		fill(uint64(g.L.Grid[2]))
	case ptx.SRegLaneID:
		for l := range row {
			row[l] = uint64(l)
		}
	case ptx.SRegWarpID:
		fill(uint64(w.index))
	case ptx.SRegNWarpID:
		fill(uint64(g.L.WarpSlotsPerSM))
	case ptx.SRegSMID:
		fill(uint64(c.SM - c.Device*g.L.SMs))
	case ptx.SRegNSMID:
		fill(uint64(g.L.SMs))
	case ptx.SRegGridID:
		fill(g.L.GridID)
	case ptx.SRegLanemaskEq:
		for l := range row {
			row[l] = 1 << l
		}
	case ptx.SRegLanemaskLe:
		for l := range row {
			row[l] = uint64(uint32(2<<l) - 1)
		}
	case ptx.SRegLanemaskLt:
		for l := range row {
			row[l] = 1<<l - 1
		}
	case ptx.SRegLanemaskGe:
		for l := range row {
			row[l] = uint64(^uint32(1<<l - 1))
		}
	case ptx.SRegLanemaskGt:
		for l := range row {
			row[l] = uint64(^uint32(2<<l - 1))
		}
	case ptx.SRegClock:
		w.polledClock()
		fill(uint64(uint32(w.clock())))
	case ptx.SRegClockHi:
		w.polledClock()
		fill(w.clock() >> 32)
	case ptx.SRegClock64, ptx.SRegGlobalTimer:
		w.polledClock()
		fill(w.clock())
	case ptx.SRegGlobalTimerLo:
		w.polledClock()
		fill(uint64(uint32(w.clock())))
	case ptx.SRegGlobalTimerHi:
		w.polledClock()
		fill(w.clock() >> 32)
	case ptx.SRegDynamicSmemSize:
		fill(uint64(g.L.DynamicShared))
	case ptx.SRegTotalSmemSize:
		fill(uint64(g.sharedSize))
	case ptx.SRegWarpSize:
		fill(WarpSize)
	default:
		fill(0)
	}
}

// threadID is the thread index of a lane.
func (w *Warp) threadID(l int) [3]uint32 {
	t := w.index*WarpSize + l
	bx, by := w.g.L.Block[0], w.g.L.Block[1]
	return [3]uint32{uint32(t % bx), uint32(t / bx % by), uint32(t / (bx * by))}
}

// step executes one instruction of the warp.
func (w *Warp) step() error {
	w.steps++
	e := &w.stack[len(w.stack)-1]
	pc := e.pc
	x := &w.code[pc]
	active := e.mask
	m := active
	if x.guard >= 0 {
		m = w.guardMask(x, active)
	}
	g := w.g
	if m != 0 && x.op >= xBar && x.op <= xRedux {
		// Collectives and barriers wait for lanes that are elsewhere.
		if w.rec != nil {
			w.rec.Func, w.rec.PC, w.rec.Inst = w.fn.fn, int(pc), x.in
			w.rec.Active = active
		}
		if x.op == xBar && w.its && len(w.groups) > 0 {
			w.gatherAtBarrier()
			return w.takeITSErr()
		}
		parked, err := w.syncCollective(x, m, active)
		if err != nil {
			return err
		}
		if parked {
			return w.takeITSErr()
		}
	}
	if sh := w.sh; sh != nil {
		sh.warpInsts++
		sh.threadInsts += uint64(bits.OnesCount32(active))
	} else {
		g.WarpInsts++
		g.ThreadInsts += uint64(bits.OnesCount32(active))
	}
	if w.rec != nil {
		w.rec.Func, w.rec.PC, w.rec.Inst = w.fn.fn, int(pc), x.in
		w.rec.Active, w.rec.Exec = active, m
	}
	if m != 0 {
		switch x.op {
		case xMov:
			a := w.src(&x.src[0], &w.sc.t[0])
			d := w.row(x.dst[0])
			if m == fullMask {
				*d = *a
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l]
				}
			}
		case xAdd32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l] + b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l] + b[l]))
				}
			}
		case xAdd64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] + b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] + b[l]
				}
			}
		case xSub32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l] - b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l] - b[l]))
				}
			}
		case xSub64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] - b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] - b[l]
				}
			}
		case xMulLo32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l] * b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l] * b[l]))
				}
			}
		case xMulLo64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] * b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] * b[l]
				}
			}
		case xMadLo32:
			a, b, c, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.src(&x.src[2], &w.sc.t[2]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l]*b[l] + c[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l]*b[l] + c[l]))
				}
			}
		case xMadLo64:
			a, b, c, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.src(&x.src[2], &w.sc.t[2]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l]*b[l] + c[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l]*b[l] + c[l]
				}
			}
		case xMulWideU32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l])) * uint64(uint32(b[l]))
				}
			}
		case xMulWideS32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(int64(int32(a[l])) * int64(int32(b[l])))
				}
			}
		case xAnd:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] & b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] & b[l]
				}
			}
		case xOr:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] | b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] | b[l]
				}
			}
		case xXor:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] ^ b[l]
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] ^ b[l]
				}
			}
		case xNotPred:
			a, d := w.src(&x.src[0], &w.sc.t[0]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = (a[l] ^ 1) & 1
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = (a[l] ^ 1) & 1
				}
			}
		case xShl32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l]) << uint32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l]) << uint32(b[l]))
				}
			}
		case xShl64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] << uint32(b[l])
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] << uint32(b[l])
				}
			}
		case xShrU32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(a[l]) >> uint32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(a[l]) >> uint32(b[l]))
				}
			}
		case xShrS32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(int32(a[l]) >> uint32(b[l])))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(int32(a[l]) >> uint32(b[l])))
				}
			}
		case xShrU64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = a[l] >> uint32(b[l])
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = a[l] >> uint32(b[l])
				}
			}
		case xMinU32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(min(uint32(a[l]), uint32(b[l])))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(min(uint32(a[l]), uint32(b[l])))
				}
			}
		case xMaxU32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(max(uint32(a[l]), uint32(b[l])))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(max(uint32(a[l]), uint32(b[l])))
				}
			}
		case xMinS32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(min(int32(a[l]), int32(b[l]))))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(min(int32(a[l]), int32(b[l]))))
				}
			}
		case xMaxS32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = uint64(uint32(max(int32(a[l]), int32(b[l]))))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(uint32(max(int32(a[l]), int32(b[l]))))
				}
			}
		case xSetpS32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			tt := uint64(x.cmptt)
			if m == fullMask {
				for l := range 32 {
					p, q := int32(a[l]), int32(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					p, q := int32(a[l]), int32(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			}
		case xSetpU32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			tt := uint64(x.cmptt)
			if m == fullMask {
				for l := range 32 {
					p, q := uint32(a[l]), uint32(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					p, q := uint32(a[l]), uint32(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			}
		case xSetpS64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			tt := uint64(x.cmptt)
			if m == fullMask {
				for l := range 32 {
					p, q := int64(a[l]), int64(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					p, q := int64(a[l]), int64(b[l])
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			}
		case xSetpU64:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			tt := uint64(x.cmptt)
			if m == fullMask {
				for l := range 32 {
					p, q := a[l], b[l]
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					p, q := a[l], b[l]
					d[l] = tt >> (b2u(p >= q) + b2u(p > q)) & 1
				}
			}
		case xSetp:
			w.setp(x, m)
		case xSelp:
			a, b, c, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.src(&x.src[2], &w.sc.t[2]), w.row(x.dst[0])
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				if c[l]&1 != 0 {
					d[l] = a[l]
				} else {
					d[l] = b[l]
				}
			}
		case xCvtInt:
			a, d := w.src(&x.src[0], &w.sc.t[0]), w.row(x.dst[0])
			s, dm := 64-uint(x.shift), x.aoff
			if x.signed {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = uint64(int64(a[l]<<s)>>s) & dm
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = (a[l] << s >> s) & dm
				}
			}
		case xAddF32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = r32(f32(a[l]) + f32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = r32(f32(a[l]) + f32(b[l]))
				}
			}
		case xSubF32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = r32(f32(a[l]) - f32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = r32(f32(a[l]) - f32(b[l]))
				}
			}
		case xMulF32:
			a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = r32(f32(a[l]) * f32(b[l]))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = r32(f32(a[l]) * f32(b[l]))
				}
			}
		case xFmaF32:
			a, b, c, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.src(&x.src[2], &w.sc.t[2]), w.row(x.dst[0])
			if m == fullMask {
				for l := range 32 {
					d[l] = r32(FmaF32(f32(a[l]), f32(b[l]), f32(c[l])))
				}
			} else {
				for mm := m; mm != 0; mm &= mm - 1 {
					l := bits.TrailingZeros32(mm)
					d[l] = r32(FmaF32(f32(a[l]), f32(b[l]), f32(c[l])))
				}
			}
		case xScalar:
			w.scalar(x, m)
		case xCarry:
			w.carryOp(x, m)
		case xPack:
			w.pack(x, m)
		case xUnpack:
			w.unpack(x, m)
		case xCvta:
			w.cvta(x, m)
		case xLdParam:
			w.ldParam(x, m)
		case xLdGlobal:
			if err := w.ldGlobal(x, m); err != nil {
				return err
			}
		case xStGlobal:
			if err := w.stGlobal(x, m); err != nil {
				return err
			}
		case xLd:
			if err := w.ld(x, m); err != nil {
				return err
			}
		case xSt:
			if err := w.st(x, m); err != nil {
				return err
			}
		case xAtom:
			if err := w.atom(x, m); err != nil {
				return err
			}
		case xNop:
			if w.sh != nil && w.sh.rounds && yieldsTurn(x.in) {
				w.endTurn = true
			}
		case xWarpSync:
		case xNanosleep:
			if w.rec != nil {
				a := w.src(&x.src[0], &w.sc.t[0])
				var ns uint32
				for mm := m; mm != 0; mm &= mm - 1 {
					ns = max(ns, uint32(a[bits.TrailingZeros32(mm)]))
				}
				w.rec.SleepNs = min(ns, MaxSleepNs)
			}
		case xBra:
			w.branch(x, pc, active, m)
			if w.its && x.target <= pc {
				w.backEdge(pc)
			}
			return w.takeITSErr()
		case xCall:
			return w.call(x, pc, active, m)
		case xRet:
			if len(w.frames) > 1 {
				w.ret(pc, m)
				return w.takeITSErr()
			}
			w.exit(pc, m)
			return w.takeITSErr()
		case xExit:
			w.exit(pc, m)
			return w.takeITSErr()
		case xTrap:
			l := firstLane(m)
			return fmt.Errorf("kernel %s: trap executed by CTA %s thread %s at %s", g.prog.Name(), dim(w.cta.ID), dim(w.threadID(l)), w.where(x))
		case xBar:
			w.barrier(x, m)
		case xVote:
			w.vote(x, m)
		case xShfl:
			w.shfl(x, m)
		case xActivemask:
			d := w.row(x.dst[0])
			for mm := m; mm != 0; mm &= mm - 1 {
				d[bits.TrailingZeros32(mm)] = uint64(active)
			}
		case xMatch:
			w.match(x, m)
		case xRedux:
			w.redux(x, m)
		default:
			panic(fmt.Sprintf("exec: unhandled xop %d", x.op))
		}
	}
	e.pc = pc + 1
	if e.pc == e.rpc {
		w.settle()
	}
	return w.takeITSErr()
}

// takeITSErr returns and clears an error found while switching thread
// groups.
func (w *Warp) takeITSErr() error {
	err := w.itsErr
	w.itsErr = nil
	return err
}

// where names an instruction of the current function: its PTX line,
// source position and text.
func (w *Warp) where(x *xinst) string { return w.g.where(w.fn, x) }

// scalar runs the generic per-lane evaluator.
func (w *Warp) scalar(x *xinst, m uint32) {
	in := x.in
	var a, b, c, e *[32]uint64 = &zeroRow, &zeroRow, &zeroRow, &zeroRow
	if x.nsrc > 0 {
		a = w.src(&x.src[0], &w.sc.t[0])
	}
	if x.nsrc > 1 {
		b = w.src(&x.src[1], &w.sc.t[1])
	}
	if x.nsrc > 2 {
		c = w.src(&x.src[2], &w.sc.t[2])
	}
	if x.nsrc > 3 {
		e = w.src(&x.src[3], &w.sc.t[3])
	}
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = evalScalar(in, a[l], b[l], c[l], e[l])
	}
}

// setp is the general setp: any type, a combining predicate, and the
// optional complement destination.
func (w *Warp) setp(x *xinst, m uint32) {
	in := x.in
	a, b := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1])
	c := &zeroRow
	if x.nsrc > 2 {
		c = w.src(&x.src[2], &w.sc.t[2])
	}
	d0, d1 := w.row(x.dst[0]), w.row(x.dst[1])
	ftz := in.Mods.Has(ptx.ModFtz)
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		r := compare(in.Cmp, in.Type, ftz, a[l], b[l])
		p := c[l]
		d0[l] = b2u(boolOp(in.Bool, r, p))
		if x.ndst > 1 {
			d1[l] = b2u(boolOp(in.Bool, !r, p))
		}
	}
}

// carry is add.cc, addc, sub.cc, subc, with the warp's per-lane carry
// flags.
func (w *Warp) carryOp(x *xinst, m uint32) {
	in := x.in
	a, b, d := w.src(&x.src[0], &w.sc.t[0]), w.src(&x.src[1], &w.sc.t[1]), w.row(x.dst[0])
	n := in.Type.Bits()
	cf := &w.carry
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		cin := uint64(0)
		if in.Op == ptx.OpAddc || in.Op == ptx.OpSubc {
			cin = uint64(*cf>>l) & 1
		}
		var r, cout uint64
		x, y := zx(a[l], n), zx(b[l], n)
		if in.Op == ptx.OpAdd || in.Op == ptx.OpAddc {
			if n == 64 {
				r, cout = bits.Add64(x, y, cin)
			} else {
				s := x + y + cin
				r, cout = zx(s, n), s>>uint(n)&1
			}
		} else {
			if n == 64 {
				r, cout = bits.Sub64(x, y, cin)
			} else {
				s := x - y - cin
				r, cout = zx(s, n), s>>uint(n)&1
			}
		}
		d[l] = r
		if in.Mods.Has(ptx.ModCarryOut) {
			*cf = *cf&^(1<<l) | uint32(cout)<<l
		}
	}
}

// pack is mov.bN d, {a, b, ...}: elements concatenated, the first lowest.
func (w *Warp) pack(x *xinst, m uint32) {
	ns := int(x.nsrc)
	esz := uint(x.in.Type.Bits() / ns)
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var v uint64
		for i := ns - 1; i >= 0; i-- {
			s := w.src(&x.src[i], &w.sc.t[i%4])
			v = v<<esz | zx(s[l], int(esz))
		}
		d[l] = v
	}
}

// unpack is mov.bN {a, b, ...}, s.
func (w *Warp) unpack(x *xinst, m uint32) {
	nd := int(x.ndst)
	esz := x.in.Type.Bits() / nd
	s := w.src(&x.src[0], &w.sc.t[0])
	// Read the source before writing: a destination may alias it.
	vals := w.sc.out
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		vals[l] = s[l]
	}
	for i := 0; i < nd; i++ {
		d := w.row(x.dst[i])
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			d[l] = zx(vals[l]>>uint(i*esz), esz)
		}
	}
}

// cvta converts between a space's addresses and generic addresses.
func (w *Warp) cvta(x *xinst, m uint32) {
	a, d := w.src(&x.src[0], &w.sc.t[0]), w.row(x.dst[0])
	var add uint64
	switch x.in.Space {
	case ptx.SpaceShared:
		add = SharedWindow
	case ptx.SpaceLocal:
		add = LocalWindow
	}
	if x.in.Mods.Has(ptx.ModTo) {
		add = -add
	}
	n := x.in.Type.Bits()
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = zx(a[l]+add, n)
	}
}

// branch executes bra for the lanes in m (taken) of active.
func (w *Warp) branch(x *xinst, pc int32, active, m uint32) {
	e := &w.stack[len(w.stack)-1]
	if m == active {
		e.pc = x.target
		if e.pc == e.rpc {
			w.settle()
		}
		return
	}
	if w.rec != nil {
		w.rec.Diverged = true
	}
	nt := active &^ m
	r := x.reconv
	if r == ptx.NoTarget {
		r = e.rpc // the paths meet only at function exit
	}
	if e.rpc == r {
		// This entry already reconverges at r: it becomes the
		// not-taken path.
		e.pc, e.mask = pc+1, nt
	} else {
		e.pc = r
		w.stack = append(w.stack, simtEntry{pc: pc + 1, rpc: r, mask: nt})
	}
	w.stack = append(w.stack, simtEntry{pc: x.target, rpc: r, mask: m})
	w.settle()
}

// settle pops finished entries (reconverged or empty), returns from calls
// whose lanes have all returned, and finishes the warp when nothing is
// left.
func (w *Warp) settle() {
	for {
		n := len(w.stack)
		if n == 0 {
			if len(w.groups) > 0 { // independent thread scheduling: another group runs
				w.itsErr = w.scheduleNext()
				return
			}
			w.finish()
			return
		}
		if f := len(w.frames) - 1; f > 0 && n-1 == w.frames[f].base {
			w.returnFromCall()
			continue
		}
		e := &w.stack[n-1]
		if e.mask == 0 || e.pc == e.rpc {
			w.stack = w.stack[:n-1]
			continue
		}
		return
	}
}

// exit retires the lanes in m.
func (w *Warp) exit(pc int32, m uint32) {
	w.stack[len(w.stack)-1].pc = pc + 1
	for i := range w.stack {
		w.stack[i].mask &^= m
	}
	w.exited |= m
	if w.rec != nil {
		w.rec.Exited = m
	}
	w.settle()
}

// setState sets the warp's turn state and its bit in the CTA's ready
// mask.
func (w *Warp) setState(s WarpState) {
	w.ts.state = s
	if s == WarpReady {
		w.cta.ready |= 1 << w.index
	} else {
		w.cta.ready &^= 1 << w.index
	}
}

// finish marks the warp done and tells its CTA.
func (w *Warp) finish() {
	if w.ts.state == WarpDone {
		return
	}
	w.setState(WarpDone)
	w.progress()
	w.cta.warpDone(w)
}

// call enters a device function for the lanes in m.
func (w *Warp) call(x *xinst, pc int32, active, m uint32) error {
	if m != active {
		return fmt.Errorf("kernel %s: CTA %s warp %d: %s: a call whose guard differs between the warp's active lanes is not supported", w.g.prog.Name(), dim(w.cta.ID), w.index, w.where(x))
	}
	if len(w.frames) >= MaxCallDepth {
		return fmt.Errorf("kernel %s: CTA %s warp %d: %s: call depth exceeds %d (runaway recursion?)", w.g.prog.Name(), dim(w.cta.ID), w.index, w.where(x), MaxCallDepth)
	}
	cs := x.in.Call
	callee := w.g.prog.funcs[cs.Callee]
	caller := &w.frames[len(w.frames)-1]
	w.stack[len(w.stack)-1].pc = pc + 1
	depth := len(w.frames)
	for len(w.spare) <= depth {
		w.spare = append(w.spare, frame{})
	}
	f := w.spare[depth]
	if w.parkedInFrame(depth, f.regs) {
		// A parked thread group is in a call at this depth, in the spare
		// frame: this call gets its own, the spare from now on.
		f = frame{}
	}
	if cap(f.regs) < callee.nregs*32 {
		w.g.prog.frames.putRegs(f.regs)
		f.regs = w.g.prog.frames.regs(callee.nregs * 32)
	}
	f.regs = f.regs[:callee.nregs*32]
	// Only the registers some path reads before writing need a defined
	// value (zero); the rest are written first. Clearing all of them cost
	// clang's helpers (hundreds of registers) 128 KB per warp per call.
	for _, r := range callee.liveIn {
		clear(f.regs[int(r)*WarpSize : int(r+1)*WarpSize])
	}
	if cap(f.params) < callee.paramFrame*WarpSize {
		w.g.prog.frames.putParams(f.params)
		f.params = w.g.prog.frames.params(callee.paramFrame * WarpSize)
	}
	f.params = f.params[:callee.paramFrame*WarpSize]
	clear(f.params)
	f.fn = callee
	f.localBase = caller.localBase + uint64(alignUp(caller.fn.fn.LocalFrameSize, 16))
	f.base = len(w.stack) - 1
	f.call = x
	w.spare[depth] = f
	// Arguments.
	for i, arg := range cs.Args {
		formal := callee.fn.Params[i]
		if formal.Space == ptx.SpaceReg {
			if formal.Reg == ptx.NoReg {
				continue
			}
			o := x.callArgs[i]
			s := w.src(&o, &w.sc.t[0])
			dst := f.regs[int(callee.slot[formal.Reg])*32:]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				dst[l] = s[l]
			}
			continue
		}
		from := caller.fn.fn.Params[arg.Sym].Offset
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			src := w.paramBytes(caller, l, from, formal.Size)
			copy(f.params[l*callee.paramFrame+formal.Offset:], src)
		}
	}
	w.frames = append(w.frames, f)
	w.fn, w.code, w.regs = callee, callee.code, f.regs
	w.stack = append(w.stack, simtEntry{pc: 0, rpc: ptx.NoTarget, mask: m})
	return nil
}

// parkedInFrame reports whether a parked thread group's call at depth runs
// on the register file regs (frames of one activation share it).
func (w *Warp) parkedInFrame(depth int, regs []uint64) bool {
	if cap(regs) == 0 {
		return false
	}
	for i := range w.groups {
		fs := w.groups[i].frames
		if len(fs) > depth && cap(fs[depth].regs) > 0 && &fs[depth].regs[:1][0] == &regs[:1][0] {
			return true
		}
	}
	return false
}

// MaxCallDepth bounds nested calls per warp.
const MaxCallDepth = 1024

// paramBytes is lane l's n param bytes at off in frame f.
func (w *Warp) paramBytes(f *frame, l, off, n int) []byte {
	if f.fn.entry && off < f.fn.fn.KernelParamSize {
		return w.cta.params[off : off+n]
	}
	return f.params[l*f.fn.paramFrame+off : l*f.fn.paramFrame+off+n]
}

// ret returns the lanes in m from the current device function: they leave
// every entry above the call's.
func (w *Warp) ret(pc int32, m uint32) {
	w.stack[len(w.stack)-1].pc = pc + 1
	base := w.frames[len(w.frames)-1].base
	for i := base + 1; i < len(w.stack); i++ {
		w.stack[i].mask &^= m
	}
	w.settle()
}

// returnFromCall completes a call: every lane has returned (or exited).
func (w *Warp) returnFromCall() {
	f := &w.frames[len(w.frames)-1]
	caller := &w.frames[len(w.frames)-2]
	m := w.stack[f.base].mask
	cs := f.call.in.Call
	callee := f.fn.fn
	for i, r := range cs.Rets {
		formal := callee.Params[callee.NumInputs+i]
		if formal.Space == ptx.SpaceReg {
			if formal.Reg == ptx.NoReg || r.Kind != ptx.OperandReg {
				continue
			}
			dst := caller.regs[int(caller.fn.slot[r.Reg])*32:]
			src := f.regs[int(f.fn.slot[formal.Reg])*32:]
			for mm := m; mm != 0; mm &= mm - 1 {
				l := bits.TrailingZeros32(mm)
				dst[l] = src[l]
			}
			continue
		}
		to := caller.fn.fn.Params[r.Sym].Offset
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			src := f.params[l*f.fn.paramFrame+formal.Offset : l*f.fn.paramFrame+formal.Offset+formal.Size]
			copy(caller.params[l*caller.fn.paramFrame+to:], src)
		}
	}
	w.frames = w.frames[:len(w.frames)-1]
	w.fn, w.code, w.regs = caller.fn, caller.fn.code, caller.regs
}

// vote is vote.sync (ballot, any, all, uni) over the lanes in m that the
// member mask names.
func (w *Warp) vote(x *xinst, m uint32) {
	p := w.src(&x.src[0], &w.sc.t[0])
	member := fullMask
	if x.nsrc > 1 {
		member = uint32(w.src(&x.src[1], &w.sc.t[1])[firstLane(m)])
	}
	grp := m & member
	var ballot uint32
	for mm := grp; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		ballot |= uint32(p[l]&1) << l
	}
	var r uint64
	switch x.in.Vote {
	case ptx.VoteBallot:
		r = uint64(ballot)
	case ptx.VoteAll:
		r = b2u(ballot == grp)
	case ptx.VoteAny:
		r = b2u(ballot != 0)
	case ptx.VoteUni:
		r = b2u(ballot == 0 || ballot == grp)
	}
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)] = r
	}
}

// shfl is shfl.sync with the PTX ISA's lane arithmetic: c packs the
// segment mask (bits 8-12) and the clamp (bits 0-4), b the lane operand.
// The mode is chosen once for the warp, not per lane; a lane whose source
// is out of its segment keeps its own value and a false predicate.
func (w *Warp) shfl(x *xinst, m uint32) {
	a := w.src(&x.src[0], &w.sc.t[0])
	b := w.src(&x.src[1], &w.sc.t[1])
	c := w.src(&x.src[2], &w.sc.t[2])
	out := &w.sc.out
	var okMask uint32
	// take reads lane j for lane l where ok, else l's own value.
	take := func(l, j int, ok bool) {
		if ok {
			okMask |= 1 << l
		} else {
			j = l
		}
		out[l] = uint64(uint32(a[j]))
	}
	// bounds gives a lane's segment mask and highest source lane; a
	// constant c (as CUDA's __shfl*_sync compile, the width giving the
	// segment) is decoded once, a register's lane by lane.
	perLane := x.src[2].kind != okConst
	seg, clamp := int(c[0]>>8)&31, int(c[0])&31
	bounds := func(l int) (laneSeg, hi int) {
		laneSeg, laneClamp := seg, clamp
		if perLane {
			laneSeg, laneClamp = int(c[l]>>8)&31, int(c[l])&31
		}
		return laneSeg, l&laneSeg | laneClamp&^laneSeg
	}
	switch x.in.Shfl {
	case ptx.ShflUp:
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			_, hi := bounds(l)
			j := l - int(b[l]&31)
			take(l, j, j >= hi)
		}
	case ptx.ShflDown:
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			_, hi := bounds(l)
			j := l + int(b[l]&31)
			take(l, j, j <= hi)
		}
	case ptx.ShflBfly:
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			_, hi := bounds(l)
			j := l ^ int(b[l]&31)
			take(l, j, j <= hi)
		}
	default: // idx
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			laneSeg, hi := bounds(l)
			j := l&laneSeg | int(b[l]&31)&^laneSeg
			take(l, j, j <= hi)
		}
	}
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = out[l]
	}
	if x.ndst > 1 {
		p := w.row(x.dst[1])
		for mm := m; mm != 0; mm &= mm - 1 {
			l := bits.TrailingZeros32(mm)
			p[l] = uint64(okMask>>l) & 1
		}
	}
}

// match is match.any.sync / match.all.sync.
func (w *Warp) match(x *xinst, m uint32) {
	a := w.src(&x.src[0], &w.sc.t[0])
	member := fullMask
	if x.nsrc > 1 {
		member = uint32(w.src(&x.src[1], &w.sc.t[1])[firstLane(m)])
	}
	grp := m & member
	n := x.in.Type.Bits()
	allEq := true
	f := firstLane(grp)
	for mm := grp; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		if zx(a[l], n) != zx(a[f], n) {
			allEq = false
		}
	}
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		var r uint32
		if x.in.Vote == ptx.VoteAll {
			if allEq {
				r = grp
			}
		} else {
			for k := grp; k != 0; k &= k - 1 {
				j := bits.TrailingZeros32(k)
				if zx(a[j], n) == zx(a[l], n) {
					r |= 1 << j
				}
			}
		}
		w.sc.out[l] = uint64(r)
	}
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		d[l] = w.sc.out[l]
	}
	if x.ndst > 1 {
		p := w.row(x.dst[1])
		for mm := m; mm != 0; mm &= mm - 1 {
			p[bits.TrailingZeros32(mm)] = b2u(allEq)
		}
	}
}

// redux is redux.sync: the reduction of a 32-bit value over the lanes in
// m that the member mask names, given to each of them.
func (w *Warp) redux(x *xinst, m uint32) {
	a := w.src(&x.src[0], &w.sc.t[0])
	member := uint32(w.src(&x.src[1], &w.sc.t[1])[firstLane(m)])
	grp := m & member
	if grp == 0 {
		return
	}
	r := uint32(a[firstLane(grp)])
	signed := x.in.Type == ptx.TypeS32
	for mm := grp & (grp - 1); mm != 0; mm &= mm - 1 {
		v := uint32(a[bits.TrailingZeros32(mm)])
		switch x.in.Atom {
		case ptx.AtomAdd:
			r += v
		case ptx.AtomMin:
			if signed && int32(v) < int32(r) || !signed && v < r {
				r = v
			}
		case ptx.AtomMax:
			if signed && int32(v) > int32(r) || !signed && v > r {
				r = v
			}
		case ptx.AtomAnd:
			r &= v
		case ptx.AtomOr:
			r |= v
		case ptx.AtomXor:
			r ^= v
		}
	}
	d := w.row(x.dst[0])
	for mm := m; mm != 0; mm &= mm - 1 {
		d[bits.TrailingZeros32(mm)] = uint64(r)
	}
}

// dim formats a CTA or thread index as (x,y,z).
func dim(v [3]uint32) string { return fmt.Sprintf("(%d,%d,%d)", v[0], v[1], v[2]) }
