package timing

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Local memory goes through L1 like global memory, at addresses the SM
// makes up: each warp slot of each SM owns a window, and a thread's local
// word i sits next to the same word of the other lanes (lane-interleaved,
// as on hardware), so that lanes reading the same local variable coalesce.
const (
	localRegion     = uint64(1) << 60
	localWarpWindow = uint64(1) << 24
)

// reqKind is what a memory request does.
type reqKind uint8

const (
	reqLoad       reqKind = iota
	reqLoadBypass         // a strong load that bypasses L1
	reqStore
	reqAtomic
)

// loadOp is a load (or an atomic with a result) waiting for its requests.
type loadOp struct {
	warp      *warpCtx
	gen       uint32
	remaining int
	// minReady is when the shared-memory part (generic accesses) is done.
	minReady uint64
	// answered is the cycle at which the SM takes the last answer of the
	// load's lines that its L1 answered at once (lsu.hit; 0: none).
	answered uint64
	// valuesAt is the cycle from which its values are in its registers
	// under the window engine (the executor logs global loads and the
	// window engine applies them later; windowEngine.valueLatency): its
	// results are not ready before (0: no such bound).
	valuesAt uint64
	ndst     uint8
	dst      [4]ptx.RegIndex
}

// memReq is one line (or atomic sector) request of a warp instruction.
type memReq struct {
	kind      reqKind
	addr      uint64 // line (loads, stores) or sector (atomics) address
	mask      uint32 // sectors of the line
	ops       []memsys.AtomicOp
	sectors   []uint64 // an atomic packet's sectors (SMConfig.AtomicSlicePackets)
	notBefore uint64
	warp      *warpCtx
	gen       uint32
	load      *loadOp
	// task is its CTA's trace task, the parent of its own ("": none).
	task string
}

// lsu is an SM's load/store unit: the queue of coalesced requests waiting
// to be sent and the requests in flight.
type lsu struct {
	sm    *SM
	ids   *memsys.IDSource // names the requests
	queue []*memReq
	head  int
	// pending are the requests in flight, by the number that ends their
	// ID (a string key cost a string hash per send and response).
	pending pendingTable
	// spare are answered requests and spareOps finished loads, for reuse.
	spare    []*memReq
	spareOps []*loadOp
	// waiters are warps that could not issue a memory instruction because
	// the unit was full.
	waiters []*warpCtx
	// blocked: the port refused a request; NotifyPortFree wakes the SM.
	// The fabric calls NotifyPortFree from its deliveries, holding its own
	// lock and not the GPU's, so the flag is atomic.
	blocked atomic.Bool
	// direct: the memory system lets the SM's L1 answer hits at once
	// (memsys.System.DirectL1), and the GPU does not keep them as
	// messages (Builder.WithHitsAsMessages); answersAtOnce says when.
	direct bool
	// hits are the loads answered at once (answerAtIssue, send) whose
	// answers the SM has not yet taken, by send slot (and so by answer):
	// they count among the unit's requests, queued until their slot and
	// in flight until their answer, as the requests they stand for would.
	hits     []answeredHit
	hitsHead int
	hitsSent int    // hits[hitsHead:hitsSent] are sent (inFlight)
	answered uint64 // loads answered at once, ever (the tests read it)
	// slotCycle is the last cycle in which the unit sent a request or
	// booked a send for a load answered at issue, and slotUsed how many of
	// that cycle's LSURequestsPerCycle sends are taken.
	slotCycle uint64
	slotUsed  int
	// atomicFree is the first cycle the next atomic request may be sent
	// (SMConfig.AtomicRequestCycles).
	atomicFree float64

	sectorShift, lineShift uint
}

func (l *lsu) init(s *SM, name string) {
	l.sm = s
	l.ids = memsys.NewIDSource(name)
	// The SM keeps no message it sends or retrieves (its tracer does, and
	// memsys reuses nothing while the SM has hooks).
	s.g.mem.RecycleLoads(s.id)
	l.direct = s.g.mem.DirectL1(s.id) && !s.g.hitsAsMessages
	l.pending.init(s.cfg.MaxOutstandingRequests)
	l.sectorShift = uint(bits.TrailingZeros(uint(s.cfg.CoalesceSectorBytes)))
	l.lineShift = uint(bits.TrailingZeros(uint(s.cfg.CoalesceLineBytes)))
}

func (l *lsu) reset() {
	clear(l.queue)
	l.queue, l.head = l.queue[:0], 0
	l.waiters = l.waiters[:0]
	l.blocked.Store(false)
	l.atomicFree = 0
	l.slotCycle, l.slotUsed = 0, 0
	l.hits, l.hitsHead, l.hitsSent = l.hits[:0], 0, 0
	// Requests of an earlier (stopped) launch that are still in flight
	// are answered before the engine stops; none is left here.
	l.pending.clear()
}

// inUse is the number of requests queued or in flight.
func (l *lsu) inUse() int { return len(l.queue) - l.head + l.pending.n + len(l.hits) - l.hitsHead }

// canAccept says whether a memory instruction may issue.
func (l *lsu) canAccept() bool { return l.inUse() < l.sm.cfg.MaxOutstandingRequests }

// nextSend is the next cycle the unit wants to tick for (never: it waits
// for a response or for the port).
func (l *lsu) nextSend(cyc uint64) uint64 {
	if l.head == len(l.queue) || l.blocked.Load() {
		return never
	}
	if l.inFlight(cyc+1) >= l.sm.cfg.MaxOutstandingRequests {
		// A response frees a place (its tick is booked), or an answered
		// load's answer does (nextHitDone).
		return l.nextHitDone()
	}
	r := l.queue[l.head]
	if r.kind == reqAtomic && float64(cyc+1) < l.atomicFree {
		// The atomic waits for its turn; a load or store behind it may go
		// first (send).
		next := uint64(math.Ceil(l.atomicFree))
		if j := l.passing(); j >= 0 {
			next = min(next, l.queue[j].notBefore)
		}
		return max(next, cyc+1)
	}
	return max(r.notBefore, cyc+1)
}

// passing is the index of the first load or store queued behind atomics
// that wait for their turn (SMConfig.AtomicRequestCycles), or -1: it is
// sent ahead of them, so spacing the atomics does not hold back the SM's
// other requests (on the H100 a store's fence is not held up by its SM's
// atomics, results/load-latency).
func (l *lsu) passing() int {
	for j := l.head + 1; j < len(l.queue); j++ {
		if l.queue[j].kind != reqAtomic {
			return j
		}
	}
	return -1
}

// send sends queued requests, up to LSURequestsPerCycle.
func (l *lsu) send(cyc uint64) {
	s := l.sm
	mem := s.g.mem
	limit := s.cfg.LSURequestsPerCycle
	if cyc == l.slotCycle {
		limit -= l.slotUsed // loads answered at issue took these (coalesce)
	}
	for n := 0; n < limit && l.head < len(l.queue); n++ {
		at := l.head
		if l.queue[at].kind == reqAtomic && float64(cyc) < l.atomicFree {
			if at = l.passing(); at < 0 {
				break
			}
		}
		r := l.queue[at]
		if r.notBefore > cyc || l.inFlight(cyc) >= s.cfg.MaxOutstandingRequests {
			break
		}
		if r.kind == reqLoad && l.answersAtOnce() {
			// A hit answered at once: the SM accounts for its answer
			// itself (memsys.System.TakeL1Hit).
			if due, ok := mem.TakeL1Hit(s.id, s.port, r.addr, r.mask, cyc); ok {
				l.blocked.Store(false)
				l.dequeue(at)
				l.takeSlot(cyc)
				l.addHit(cyc, due+1)
				l.hit(r, due+1, cyc)
				l.recycle(r)
				continue
			}
		}
		id := l.ids.Next()
		num := l.ids.Last()
		var msg sim.Msg
		switch r.kind {
		case reqLoad:
			msg = mem.NewLineRead(s.port, s.id, r.addr, r.mask, id)
		case reqLoadBypass:
			msg = mem.NewLineReadBypass(s.port, s.id, r.addr, r.mask, id)
		case reqStore:
			msg = mem.NewLineWrite(s.port, s.id, r.addr, r.mask, id)
		default:
			if r.sectors != nil {
				msg = mem.NewAtomicPacket(s.port, r.sectors, r.ops, id)
			} else {
				msg = mem.NewAtomic(s.port, r.addr, r.ops, id)
			}
		}
		if err := s.port.Send(msg); err != nil {
			l.blocked.Store(true)
			break
		}
		l.blocked.Store(false)
		if r.kind == reqAtomic && s.cfg.AtomicRequestCycles > 0 {
			l.atomicFree = math.Max(l.atomicFree, float64(cyc)) + s.cfg.AtomicRequestCycles
		}
		l.dequeue(at)
		l.takeSlot(cyc)
		l.pending.put(num, r)
		if s.NumHooks() > 0 {
			// A tracer (sim.WithTrace) sees the request as a task of its
			// CTA (which may have retired since: stores do not hold it).
			tracing.TraceReqInitiate(msg, s, r.task)
		}
	}
	if l.head == len(l.queue) {
		l.queue, l.head = l.queue[:0], 0
	} else if l.head > 1024 && l.head*2 > len(l.queue) {
		n := copy(l.queue, l.queue[l.head:])
		clear(l.queue[n:])
		l.queue, l.head = l.queue[:n], 0
	}
}

// freeSlot is the first cycle from `from` on in which the unit may still
// send a request: loads answered at issue (coalesce) book the cycles in
// which the unit would have sent them.
func (l *lsu) freeSlot(from uint64) uint64 {
	if from > l.slotCycle {
		return from
	}
	if l.slotUsed < l.sm.cfg.LSURequestsPerCycle {
		return l.slotCycle
	}
	return l.slotCycle + 1
}

// takeSlot books one of cycle c's sends (c is at or after the last cycle
// booked).
func (l *lsu) takeSlot(c uint64) {
	if c != l.slotCycle {
		l.slotCycle, l.slotUsed = c, 0
	}
	l.slotUsed++
}

// answerAtIssue serves a load's line request from the L1 when the warp
// issues it, if the unit's queue is empty (nothing waits to be sent before
// it) and the L1 holds the line's sectors: the request takes the send slot
// it would have been sent in, books the L1's lookup then, and the SM takes
// its answer at the cycle returned (lsu.hit's done). With the queue empty
// and room among the requests in flight, the unit would send it in that
// slot; it counts among the unit's requests until its answer (lsu.hits).
func (l *lsu) answerAtIssue(addr uint64, mask uint32, notBefore, cyc uint64) (done uint64, ok bool) {
	s := l.sm
	if !l.answersAtOnce() || l.head != len(l.queue) || l.blocked.Load() {
		return 0, false
	}
	// Sent at its slot only if fewer than the most requests are in flight
	// then; until then only answers can leave, so that holds if it holds
	// now.
	if l.pending.n+len(l.hits)-l.hitsHead >= s.cfg.MaxOutstandingRequests {
		return 0, false
	}
	send := l.freeSlot(max(notBefore, cyc+1))
	due, ok := s.g.mem.TakeL1Hit(s.id, s.port, addr, mask, send)
	if !ok {
		return 0, false
	}
	l.takeSlot(send)
	l.addHit(send, due+1)
	return due + 1, true
}

// answersAtOnce says whether the L1's hits may be answered at once
// (memsys.System.TakeL1Hit): the memory system allows it, the unit sends
// one request a cycle (the send slots it books are then the cycles it
// would send in), the kernel has no fence (launchRun.fences), no tracer or
// monitor watches the SM (a tracer expects every request as a message and
// a task) and the SM does not profile (the profiler charges a warp's
// cycles at the ticks it looks at the warp, which answered loads spare: a
// few hundred cycles of BFS on rmat:scale=12 went from "not selected" to
// "global load"). The figures are the same either way.
func (l *lsu) answersAtOnce() bool {
	s := l.sm
	return l.direct && s.cfg.LSURequestsPerCycle == 1 && !s.g.run.fences && s.NumHooks() == 0 && s.prof == nil
}

// answeredHit is a load answered at once: sent at cycle slot, its answer
// taken at cycle done.
type answeredHit struct{ slot, done uint64 }

// addHit counts a load answered at once until its answer is taken.
func (l *lsu) addHit(slot, done uint64) {
	l.hits = append(l.hits, answeredHit{slot, done})
	l.answered++
}

// dropHits forgets the answered loads whose answers the SM takes by cycle
// cyc, as retrieve would take their responses, and reports whether any
// went.
func (l *lsu) dropHits(cyc uint64) bool {
	if l.hitsHead == len(l.hits) {
		return false
	}
	h := l.hitsHead
	for h < len(l.hits) && l.hits[h].done <= cyc {
		h++
	}
	dropped := h > l.hitsHead
	if h == len(l.hits) {
		l.hits, h = l.hits[:0], 0
		l.hitsSent = 0
	}
	l.hitsHead = h
	return dropped
}

// inFlight is the number of requests in flight at cycle cyc: those sent
// as messages and the answered loads sent by then. Calls come with cycles
// that never decrease (the SM's ticks), so the answered loads sent by cyc
// are counted by moving hitsSent on.
func (l *lsu) inFlight(cyc uint64) int {
	l.hitsSent = max(l.hitsSent, l.hitsHead)
	for l.hitsSent < len(l.hits) && l.hits[l.hitsSent].slot <= cyc {
		l.hitsSent++
	}
	return l.pending.n + l.hitsSent - l.hitsHead
}

// nextHitDone is the cycle at which the SM takes the next answer of a load
// answered at once (never: none).
func (l *lsu) nextHitDone() uint64 {
	if l.hitsHead == len(l.hits) {
		return never
	}
	return l.hits[l.hitsHead].done
}

// dueAt reports whether an answered load's answer would be delivered to
// the SM's port at cycle c (and taken the cycle after).
func (l *lsu) dueAt(c uint64) bool {
	for i := l.hitsHead; i < len(l.hits) && l.hits[i].done <= c+1; i++ {
		if l.hits[i].done == c+1 {
			return true
		}
	}
	return false
}

// dequeue removes the request at index at of the queue: its head, or a
// load or store passing waiting atomics.
func (l *lsu) dequeue(at int) {
	if at == l.head {
		l.queue[l.head] = nil
		l.head++
		return
	}
	copy(l.queue[at:], l.queue[at+1:])
	l.queue[len(l.queue)-1] = nil
	l.queue = l.queue[:len(l.queue)-1]
}

// hit accounts at cycle cyc for a load request its L1 answered at once
// (TakeL1Hit), whose answer the SM takes at cycle done: what retrieve and
// complete would do then, done now. Its result registers are ready at
// done, and the warp's retirement waits for done (warpCtx.hitsDone,
// SM.later); the unit counts it among its requests until then (lsu.hits).
// No fence can wait for it: kernels with fences are not answered at once.
func (l *lsu) hit(r *memReq, done, cyc uint64) {
	s := l.sm
	w := r.warp
	if w.gen != r.gen || s.g.run == nil || s.halted() {
		s.hitActivity = max(s.hitActivity, done)
		return
	}
	w.outstanding--
	l.noteAnswer(w, r.load, done)
	l.lineDone(r.load, cyc)
}

// noteAnswer records that the SM takes, at cycle done, the answer of one of
// w's load lines (of op) that its L1 answered at once: the launch lasts
// until then, w does not retire before it (warpCtx.hitsDone), and op's
// results are not ready before it (loadOp.answered).
func (l *lsu) noteAnswer(w *warpCtx, op *loadOp, done uint64) {
	l.sm.hitActivity = max(l.sm.hitActivity, done)
	w.hitsDone = max(w.hitsDone, done)
	if op != nil {
		op.answered = max(op.answered, done)
	}
}

// NotifyPortFree wakes the SM when the memory system takes requests again.
func (s *SM) NotifyPortFree(now sim.VTimeInSec, p sim.Port) {
	s.lsu.blocked.Store(false)
	s.tickLater(now, p, true)
}

// retrieve takes every response that has arrived.
func (l *lsu) retrieve(now sim.VTimeInSec, cyc uint64) {
	s := l.sm
	freed := false
	for msg := s.port.Retrieve(now); msg != nil; msg = s.port.Retrieve(now) {
		var id string
		switch m := msg.(type) {
		case *mem.DataReadyRsp:
			id = m.RespondTo
		case *mem.WriteDoneRsp:
			id = m.RespondTo
		case *memsys.AtomicRsp:
			id = m.RespondTo
		default:
			panic(fmt.Sprintf("timing: SM %d got an unexpected %T", s.id, msg))
		}
		s.g.mem.Release(s.id, msg)
		num, ok := l.ids.Number(id)
		r := l.pending.take(num)
		if !ok || r == nil {
			continue // a response to a launch that was stopped
		}
		if s.NumHooks() > 0 {
			tracing.EndTask(id+"_req_out", s)
		}
		freed = true
		s.lastActivity = max(s.lastActivity, cyc)
		if s.g.run == nil || s.halted() {
			continue
		}
		l.complete(r, cyc)
		l.recycle(r)
	}
	if l.dropHits(cyc) {
		freed = true
	}
	if freed && len(l.waiters) > 0 {
		for _, w := range l.waiters {
			w.lsuWait = false
			w.wakeAt = min(w.wakeAt, cyc)
		}
		l.waiters = l.waiters[:0]
	}
}

// newReq returns a request to fill, reusing an answered one.
func (l *lsu) newReq() *memReq { return popSpare(&l.spare) }

// newOp returns a loadOp to fill, reusing a finished one (complete
// recycles a load once its last request is answered: none refers to it).
func (l *lsu) newOp() *loadOp { return popSpare(&l.spareOps) }

// popSpare takes the last item of a free list, or a new one when it is
// empty.
func popSpare[T any](spare *[]*T) *T {
	if n := len(*spare); n > 0 {
		x := (*spare)[n-1]
		*spare = (*spare)[:n-1]
		return x
	}
	return new(T)
}

// pendingTable maps request numbers to requests in flight: open
// addressing on the number's low bits (numbers are consecutive, so they
// spread), at most half full, cheaper than a map for a send and a
// response per request.
type pendingTable struct {
	keys []uint64 // 0: empty (numbers start at 1)
	vals []*memReq
	n    int
}

func (t *pendingTable) init(maxInFlight int) {
	size := 16
	for size < 2*maxInFlight {
		size *= 2
	}
	t.keys, t.vals, t.n = make([]uint64, size), make([]*memReq, size), 0
}

func (t *pendingTable) clear() {
	clear(t.keys)
	clear(t.vals)
	t.n = 0
}

func (t *pendingTable) put(k uint64, r *memReq) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	i := k & mask
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, r
	t.n++
}

// take removes and returns the request numbered k (nil: none).
func (t *pendingTable) take(k uint64) *memReq {
	if k == 0 || t.n == 0 {
		return nil
	}
	mask := uint64(len(t.keys) - 1)
	i := k & mask
	for t.keys[i] != k {
		if t.keys[i] == 0 {
			return nil
		}
		i = (i + 1) & mask
	}
	r := t.vals[i]
	t.keys[i], t.vals[i] = 0, nil
	t.n--
	// Shift back the entries after i that probed past it (linear
	// probing's deletion), so that no search stops early.
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		home := t.keys[j] & mask
		if (j-home)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			t.keys[j], t.vals[j] = 0, nil
			i = j
		}
	}
	return r
}

func (t *pendingTable) grow() {
	keys, vals := t.keys, t.vals
	t.keys, t.vals, t.n = make([]uint64, 2*len(keys)), make([]*memReq, 2*len(keys)), 0
	for i, k := range keys {
		if k != 0 {
			t.put(k, vals[i])
		}
	}
}

// recycle keeps an answered request for newReq. Its atomic operations
// stay with the memory system's message.
func (l *lsu) recycle(r *memReq) {
	*r = memReq{}
	l.spare = append(l.spare, r)
}

// complete accounts for a finished request.
func (l *lsu) complete(r *memReq, cyc uint64) {
	s := l.sm
	w := r.warp
	if w.gen != r.gen {
		return
	}
	w.outstanding--
	if w.fenceWait && w.outstanding == 0 {
		w.fenceWait = false
		w.wakeAt = s.fenceLatencyEnd(w, cyc)
	}
	l.lineDone(r.load, cyc)
}

// lineDone counts one answered request of load op (nil: a store's or an
// atomic's without a result) at cycle cyc, finishing the load with its
// last.
func (l *lsu) lineDone(op *loadOp, cyc uint64) {
	if op == nil {
		return
	}
	op.remaining--
	if op.remaining == 0 {
		l.finish(op, cyc)
	}
}

// finish accounts at cycle cyc for a load whose last request is answered
// (or answered at once, its answer taken later: loadOp.answered): its
// results are ready when the SM takes the last answer or when its
// shared-memory part is done (loadOp.minReady), whichever is later. The
// last answer's arrival wakes the warp then, at that tick, even if it
// waits for something else (a branch's latency): for a load answered at
// once, SM.later does so at that tick.
func (l *lsu) finish(op *loadOp, cyc uint64) {
	s := l.sm
	w := op.warp
	taken := max(cyc, op.answered)
	at := max(taken, op.minReady, op.valuesAt)
	for j := 0; j < int(op.ndst); j++ {
		w.ready[op.dst[j]] = at
	}
	if op.ndst > 0 {
		w.readyMax = max(w.readyMax, at)
		w.pendingDst--
	}
	if taken > cyc {
		s.later(w, taken, at)
	} else {
		w.wakeAt = min(w.wakeAt, at)
	}
	w.pendingLoads--
	*op = loadOp{}
	l.spareOps = append(l.spareOps, op)
	if w.done {
		s.maybeRetire(w, cyc)
	}
}

// memory charges a memory instruction's time: shared lanes through the
// bank model, global and local lanes through the coalescer and the memory
// system.
func (s *SM) memory(w *warpCtx, info *instInfo, st *exec.StepInfo, cyc uint64) {
	m := &st.Mem
	var shared, global uint32
	for mm := m.Lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		switch m.Space[l] {
		case ptx.SpaceShared:
			shared |= 1 << l
		case ptx.SpaceGlobal, ptx.SpaceLocal:
			global |= 1 << l
		}
	}
	ready := cyc + 1
	if shared != 0 {
		ready = max(ready, s.sharedAccess(w, m, shared, cyc, st.Inst.Atom == ptx.AtomCas))
		if m.Kind == exec.MemAtomic && s.cfg.SharedAtomicModel == SharedAtomicLock {
			// Kepler's shared atomic is a load-lock/modify/store-unlock loop
			// in the instruction stream: the warp cannot issue anything else
			// until its last lane has left the loop.
			w.wakeAt = max(w.wakeAt, ready-uint64(s.cfg.SharedAtomic.Latency))
		}
	} else if global == 0 {
		// No lane touched memory (every guard was false): a plain cycle.
		ready = cyc + 1
	}
	var op *loadOp
	hasResult := m.Kind == exec.MemLoad || (m.Kind == exec.MemAtomic && info.ndst > 0)
	if global != 0 {
		if hasResult {
			op = s.lsu.newOp()
			*op = loadOp{warp: w, gen: w.gen, minReady: ready, ndst: info.ndst, dst: info.dst}
			if s.win != nil {
				op.valuesAt = cyc + s.win.valueLatency
			}
		}
		lanes, at := global, cyc
		if info.warpAggregated {
			// ptxas's REDUX + one atomic from the lowest active lane: the
			// executor applied every lane's operand to memory already.
			lanes, at = global&-global, cyc+uint64(s.cfg.WarpCollective.Latency)
		}
		n := s.coalesce(w, m, lanes, at, op, info.bypassL1)
		if op != nil {
			op.remaining = n
			w.pendingLoads++
			for j := 0; j < int(info.ndst); j++ {
				w.ready[info.dst[j]] = never
			}
			if info.ndst > 0 {
				w.pendingDst++
			}
			if s.prof != nil {
				kind := ReasonGlobalLoad
				if m.Kind == exec.MemAtomic {
					kind = ReasonAtomic
				}
				s.profileResult(w, info, kind, never, never)
			}
			if n == 0 {
				// Every line was answered at issue (answerAtIssue).
				s.lsu.finish(op, cyc)
			}
		}
		return
	}
	if hasResult {
		for j := 0; j < int(info.ndst); j++ {
			w.ready[info.dst[j]] = ready
		}
		if info.ndst > 0 {
			w.readyMax = max(w.readyMax, ready)
		}
		if s.prof != nil {
			if shared != 0 {
				s.profileResult(w, info, ReasonSharedMemory, s.sharedCut1, s.sharedCut2)
			} else {
				s.profileResult(w, info, ReasonALU, never, never)
			}
		}
	}
}

// coalesce turns the global and local lanes of an access into line
// requests (loads, stores) or sector requests (atomics), queues them, and
// returns how many.
// bypassL1 marks a strong load: its global lines bypass L1 (its local
// ones, private to the thread, do not).
func (s *SM) coalesce(w *warpCtx, m *exec.MemAccess, lanes uint32, cyc uint64, op *loadOp, bypassL1 bool) int {
	l := &s.lsu
	var kind reqKind
	var base ClassTiming
	switch m.Kind {
	case exec.MemLoad:
		kind, base = reqLoad, s.cfg.GlobalLoad
	case exec.MemStore:
		kind, base = reqStore, s.cfg.GlobalStore
	default:
		kind, base = reqAtomic, s.cfg.GlobalAtomic
	}
	notBefore := cyc + uint64(base.Latency)
	size := uint64(max(m.Size, 1))
	var addrs [exec.WarpSize]uint64
	for mm := lanes; mm != 0; mm &= mm - 1 {
		i := bits.TrailingZeros32(mm)
		a := m.Addr[i]
		if m.Space[i] == ptx.SpaceLocal {
			a = localRegion + (uint64(s.id)*uint64(len(s.slots))+uint64(w.slot))*localWarpWindow +
				(a&^3)*exec.WarpSize + uint64(i)*4 + a&3
		}
		addrs[i] = a
	}
	n := 0
	if kind == reqAtomic {
		// One request per sector, listing each address with its lanes.
		var sectors [exec.WarpSize]uint64
		var reqs [exec.WarpSize]*memReq
		ns := 0
		packets := s.cfg.AtomicSlicePackets
		for mm := lanes; mm != 0; mm &= mm - 1 {
			i := bits.TrailingZeros32(mm)
			a := addrs[i]
			sec := a >> l.sectorShift << l.sectorShift
			// The request's key: its sector, or with packets its slice.
			key := sec
			if packets {
				key = uint64(s.g.mem.SliceOf(sec))
			}
			k := 0
			for k < ns && sectors[k] != key {
				k++
			}
			if k == ns {
				sectors[k] = key
				reqs[k] = l.newReq()
				*reqs[k] = memReq{kind: reqAtomic, addr: sec, notBefore: notBefore, warp: w, gen: w.gen, load: op, task: w.cta.task}
				ns++
			}
			r := reqs[k]
			if packets && !slices.Contains(r.sectors, sec) {
				r.sectors = append(r.sectors, sec)
			}
			j := 0
			for j < len(r.ops) && r.ops[j].Address != a {
				j++
			}
			if j == len(r.ops) {
				r.ops = append(r.ops, memsys.AtomicOp{Address: a, Lanes: 1})
			} else {
				r.ops[j].Lanes++
			}
		}
		if ns > 0 && l.head == len(l.queue) {
			reqs[0].notBefore = l.freeSlot(reqs[0].notBefore)
		}
		for k := range ns {
			l.queue = append(l.queue, reqs[k])
		}
		n = ns
		s.stats.atomicReqs += uint64(ns)
		s.stats.globalAtomics += uint64(bits.OnesCount32(lanes))
	} else {
		// One request per line, with the mask of its sectors.
		var lines [2 * exec.WarpSize]uint64
		var masks [2 * exec.WarpSize]uint32
		nl := 0
		last := -1
		secPerLine := l.lineShift - l.sectorShift
		for mm := lanes; mm != 0; mm &= mm - 1 {
			i := bits.TrailingZeros32(mm)
			first, end := addrs[i]>>l.sectorShift, (addrs[i]+size-1)>>l.sectorShift
			for sec := first; sec <= end; sec++ {
				line := sec >> secPerLine
				bit := uint32(1) << (sec & (1<<secPerLine - 1))
				if last >= 0 && lines[last] == line {
					masks[last] |= bit
					continue
				}
				k := 0
				for k < nl && lines[k] != line {
					k++
				}
				if k == nl {
					if nl == len(lines) {
						panic("timing: a warp access spans more lines than lanes")
					}
					lines[k] = line
					nl++
				}
				masks[k] |= bit
				last = k
			}
		}
		queued := 0
		for k := range nl {
			addr, kk := lines[k]<<l.lineShift, kind
			if bypassL1 && kind == reqLoad && addr < localRegion {
				kk = reqLoadBypass
			}
			if kk == reqLoad {
				if done, ok := l.answerAtIssue(addr, masks[k], notBefore, cyc); ok {
					l.noteAnswer(w, op, done)
					continue
				}
			}
			nb := notBefore
			if l.head == len(l.queue) {
				nb = l.freeSlot(nb)
			}
			r := l.newReq()
			*r = memReq{kind: kk, addr: addr, mask: masks[k],
				notBefore: nb, warp: w, gen: w.gen, load: op, task: w.cta.task}
			l.queue = append(l.queue, r)
			queued++
		}
		n = queued
		if kind == reqLoad {
			s.stats.loadReqs += uint64(nl)
		} else {
			s.stats.storeReqs += uint64(nl)
		}
	}
	w.outstanding += n
	return n
}
