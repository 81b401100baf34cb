package exec

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/warpgraph/warpgraph/kernels"
)

// Independent thread scheduling (Launch.IndependentThreads: compute
// capability 7.0 and later).
//
// Volta gave every thread its own program counter: the threads of a warp
// that diverged are scheduled independently, and reconverging at the
// branch's immediate post-dominator is an optimisation, not a
// requirement. So a lane spinning on a lock that another lane of its own
// warp holds lets that lane run, where the pre-Volta stack keeps the
// holder waiting at the post-dominator forever.
//
// The model keeps the reconvergence stack as the fast, common path and
// adds thread groups: disjoint sets of a warp's lanes, each with its own
// stack and call frames, of which one (the warp's stack and frames) runs
// at a time. A group splits off when its stack cannot go on as one:
//
//   - The running path spins: at a taken backward branch, while other
//     lanes of its stack wait (at a reconvergence point or on a path not
//     yet run), the path's state repeats (see backEdge). The
//     running path's lanes leave as a runnable group, so the rest of the
//     stack runs: the lock holder passes the post-dominator.
//   - A *.sync collective (vote, shfl, match, redux, bar.warp.sync) names
//     non-exited lanes that are not on the running path: the path's lanes
//     leave as a group waiting at the collective, and the rest run until
//     the named lanes arrive at the same instruction.
//   - A CTA barrier (bar.sync, bar.red, bar.arrive) while other groups
//     exist: the path's lanes wait there until every live lane of the warp
//     has arrived, and the warp then arrives as one.
//
// Groups waiting at the same instruction with stacks of the same shape
// merge (their lanes reconverge there). Runnable groups take turns at
// backward branches (yieldInterval). A group that can never run again (a
// collective waiting for lanes that wait elsewhere) is an error naming the
// lines.

// groupWait is why a parked thread group does not run.
type groupWait uint8

const (
	// groupRunnable: it can run when its turn comes.
	groupRunnable groupWait = iota
	// groupAtCollective: at a *.sync collective, waiting for the lanes
	// its member mask names.
	groupAtCollective
	// groupAtBarrier: at a CTA barrier, waiting for the rest of the warp.
	groupAtBarrier
)

// threadGroup is a parked group of a warp's lanes: its reconvergence
// stack and call frames (frames share their register files with the
// groups that split from the same activation: lanes are disjoint).
type threadGroup struct {
	stack  []simtEntry
	frames []frame
	wait   groupWait
	// member is the member mask of the collective it waits at.
	member uint32
}

const (
	// spinCheckFirst and spinCheckEvery space the spin checks of a loop
	// (backEdge).
	spinCheckFirst = 16
	spinCheckEvery = 256
	// yieldInterval: a running group yields to the next runnable group
	// every this many taken backward branches.
	yieldInterval = 64
)

// lanes is the set of lanes a stack holds: the union of its entries.
func stackLanes(s []simtEntry) uint32 {
	var m uint32
	for _, e := range s {
		m |= e.mask
	}
	return m
}

// othersWait reports whether lanes of the running stack wait outside its
// top entry (at a reconvergence point or on a path not yet run).
func (w *Warp) othersWait() bool {
	n := len(w.stack)
	return n > 1 && stackLanes(w.stack[:n-1])&^w.stack[n-1].mask != 0
}

// backEdge is called after the taken backward branch at pc under
// independent thread scheduling: it splits a spinning path off and lets
// runnable groups take turns.
//
// While lanes wait outside the running path, the path's state (pathHash)
// is compared at the loop's spinCheckFirst-th and 2×spinCheckFirst-th
// taken back edge, then every spinCheckEvery: equal states mean the loop
// spins (its state has a period dividing the interval) and the path's
// lanes split off. The first checks come early so that a spin is found
// long before the deadlock window ends; the later ones are rare so that
// long divergent loops pay little. A branch where the warp was once found
// spinning splits its path off at once the next times (a lock's next
// hand-off need not wait for the state to repeat).
func (w *Warp) backEdge(pc int32) {
	w.backEdges++
	if w.othersWait() {
		if w.edgeFn != w.fn || w.edgePC != pc { // another loop: count afresh
			w.edgeFn, w.edgePC, w.loopEdges, w.spinHash = w.fn, pc, 0, 0
		}
		w.loopEdges++
		spinSite := w.spinFn == w.fn && w.spinPC == pc
		n := w.loopEdges
		if spinSite || n == spinCheckFirst || n == 2*spinCheckFirst || n%spinCheckEvery == 0 {
			h := uint64(0)
			if !spinSite {
				h = w.pathHash()
			}
			if spinSite || n != spinCheckFirst && h == w.spinHash {
				w.spinHash, w.loopEdges = 0, 0
				w.spinFn, w.spinPC = w.fn, pc
				w.detachTop(groupRunnable, 0)
				w.settle()
				return
			}
			w.spinHash = h
		}
	}
	if w.backEdges%yieldInterval == 0 && w.canSwitch() {
		w.yield()
	}
}

// pathHash summarises what the running path can change: the stack and
// the registers of its lanes (less those derived from the clock). Waiting
// lanes cannot change theirs, and hashing only the running lanes keeps
// the spin check cheap in divergent loops.
func (w *Warp) pathHash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
		h ^= h >> 29
	}
	for _, e := range w.stack {
		mix(uint64(uint32(e.pc))<<32 | uint64(uint32(e.rpc)))
		mix(uint64(e.mask))
	}
	lanes := w.stack[len(w.stack)-1].mask
	for i := range w.frames {
		f := &w.frames[i]
		skip := f.fn.clockRegs
		for r := range f.fn.nregs {
			if skip != nil && skip[r] {
				continue
			}
			row := f.regs[r*WarpSize : (r+1)*WarpSize]
			for mm := lanes; mm != 0; mm &= mm - 1 {
				mix(row[bits.TrailingZeros32(mm)])
			}
		}
	}
	return h
}

// canSwitch reports whether a parked group could run now while the
// running group is still live (so a group at a barrier cannot).
func (w *Warp) canSwitch() bool {
	for i := range w.groups {
		if g := &w.groups[i]; g.wait == groupRunnable || g.wait == groupAtCollective && w.waitOver(i) {
			return true
		}
	}
	return false
}

// detachTop moves the running path's lanes (the top entry's) into a new
// parked group with the given wait; the rest of the stack stays and runs
// next (settle pops what emptied). The new group's stack is the whole
// stack restricted to those lanes: where it reconverges, it continues.
func (w *Warp) detachTop(wait groupWait, member uint32) {
	n := len(w.stack)
	lanes := w.stack[n-1].mask
	s := make([]simtEntry, n)
	for i, e := range w.stack {
		s[i] = simtEntry{pc: e.pc, rpc: e.rpc, mask: e.mask & lanes}
		w.stack[i].mask &^= lanes
	}
	f := append([]frame(nil), w.frames...)
	w.park(threadGroup{stack: s, frames: f, wait: wait, member: member})
}

// park adds g to the parked groups, merged into a group waiting at the
// same instruction for the same reason with a stack of the same shape.
func (w *Warp) park(g threadGroup) {
	if g.wait != groupRunnable {
		for i := range w.groups {
			o := &w.groups[i]
			if o.wait == g.wait && sameShape(o, &g) {
				for j := range o.stack {
					o.stack[j].mask |= g.stack[j].mask
				}
				o.member |= g.member
				return
			}
		}
	}
	w.groups = append(w.groups, g)
}

// sameShape reports whether two groups' stacks differ only in their lanes:
// the same entries (pcs, reconvergence points) in the same call frames.
func sameShape(a, b *threadGroup) bool {
	if len(a.stack) != len(b.stack) || len(a.frames) != len(b.frames) {
		return false
	}
	for i := range a.stack {
		if a.stack[i].pc != b.stack[i].pc || a.stack[i].rpc != b.stack[i].rpc {
			return false
		}
	}
	for i := range a.frames {
		fa, fb := &a.frames[i], &b.frames[i]
		if fa.fn != fb.fn || fa.base != fb.base || len(fa.regs) > 0 && &fa.regs[0] != &fb.regs[0] {
			return false
		}
	}
	return true
}

// yield parks the running group as runnable and runs the next one.
func (w *Warp) yield() {
	w.groups = append(w.groups, threadGroup{stack: w.stack, frames: w.frames, wait: groupRunnable})
	w.stack, w.frames = nil, nil
	w.itsErr = w.scheduleNext()
}

// scheduleNext makes a parked group current once the running one is gone
// (parked or finished): a group at a collective or barrier whose wait is
// over, else the oldest runnable group. With none, the warp is finished
// (no groups) or its groups wait on each other forever (an error).
func (w *Warp) scheduleNext() error {
	for i := range w.groups {
		if w.waitOver(i) {
			w.resume(i)
			return nil
		}
	}
	for i := range w.groups {
		if w.groups[i].wait == groupRunnable {
			w.resume(i)
			return nil
		}
	}
	if len(w.groups) == 0 {
		w.finish()
		return nil
	}
	return w.stuck()
}

// waitOver reports whether parked group i can go on: every non-exited
// lane its collective names is in it, or (barrier) it holds every live
// lane of the warp (no other group is left, the running one included:
// callers ask once it parked or finished).
func (w *Warp) waitOver(i int) bool {
	g := &w.groups[i]
	switch g.wait {
	case groupAtCollective:
		return g.member&^w.exited&^g.stack[len(g.stack)-1].mask == 0
	case groupAtBarrier:
		return len(w.groups) == 1
	}
	return false
}

// resume makes parked group i the running one.
func (w *Warp) resume(i int) {
	g := w.groups[i]
	w.groups = append(w.groups[:i], w.groups[i+1:]...)
	w.stack, w.frames = g.stack, g.frames
	f := &w.frames[len(w.frames)-1]
	w.fn, w.code, w.regs = f.fn, f.fn.code, f.regs
	w.backEdges, w.spinHash, w.loopEdges, w.edgeFn = 0, 0, 0, nil
}

// stuck is the deadlock of a warp whose groups all wait and none can go
// on.
func (w *Warp) stuck() error {
	var waits []string
	for i := range w.groups {
		g := &w.groups[i]
		top := g.stack[len(g.stack)-1]
		fn := g.frames[len(g.frames)-1].fn
		where := w.g.where(fn, &fn.code[top.pc])
		switch g.wait {
		case groupAtCollective:
			missing := g.member &^ w.exited &^ top.mask
			waits = append(waits, fmt.Sprintf("lanes %#08x wait at %s for lanes %#08x (%d) of its member mask, which never arrive there", top.mask, where, missing, bits.OnesCount32(missing)))
		case groupAtBarrier:
			waits = append(waits, fmt.Sprintf("lanes %#08x wait at the barrier at %s for the rest of the warp", top.mask, where))
		}
	}
	return &kernels.DeadlockError{Kernel: w.g.prog.Name(), Detail: fmt.Sprintf("CTA %s warp %d: its threads wait on each other forever: %s", dim(w.cta.ID), w.index, strings.Join(waits, "; "))}
}

// memberMask returns the member-mask operand of a *.sync collective (vote,
// shfl, match, redux, bar.warp.sync), or nil.
func memberMask(x *xinst) *xopnd {
	switch x.op {
	case xVote:
		if x.nsrc > 1 {
			return &x.src[1]
		}
	case xShfl:
		if x.nsrc > 3 {
			return &x.src[3]
		}
	case xMatch, xRedux:
		return &x.src[1]
	case xWarpSync:
		return &x.src[0]
	}
	return nil
}

// syncCollective checks a *.sync collective about to run with lanes m of
// the running path (active) against its member mask. It returns parked
// when the path must wait for named lanes (independent thread scheduling),
// or an error: a lane runs the collective without being in its own mask,
// or (reconvergence stack) the mask names live lanes that are not on the
// path, which the stack cannot wait for.
func (w *Warp) syncCollective(x *xinst, m, active uint32) (parked bool, err error) {
	op := memberMask(x)
	if op == nil {
		return false, nil
	}
	member := uint32(w.src(op, &w.sc.t[3])[firstLane(m)])
	if out := m &^ member; out != 0 {
		return false, fmt.Errorf("kernel %s: CTA %s warp %d: lanes %#08x run %s without being in its member mask %#08x", w.g.prog.Name(), dim(w.cta.ID), w.index, out, w.where(x), member)
	}
	absent := member &^ w.exited &^ active
	if absent == 0 {
		return false, nil
	}
	if !w.its {
		if x.op == xWarpSync {
			return false, nil // the stack keeps the warp converged enough: a no-op, as before
		}
		return false, fmt.Errorf("kernel %s: CTA %s warp %d: %s names lanes %#08x, which are not converged with the calling lanes %#08x: the pre-Volta reconvergence stack cannot wait for them (compute capability < 7.0)", w.g.prog.Name(), dim(w.cta.ID), w.index, w.where(x), absent, active)
	}
	w.detachTop(groupAtCollective, member)
	w.settle() // when nothing of the stack is left, another group runs
	return true, nil
}

// gatherAtBarrier parks the running path at a CTA barrier while other
// groups of the warp exist: the warp arrives once all its live lanes are
// there (scheduleNext resumes them as one group).
func (w *Warp) gatherAtBarrier() {
	w.detachTop(groupAtBarrier, 0)
	w.settle() // when nothing of the stack is left, another group runs
}
