package memsys

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/sarchlab/akita/v3/sim"
)

// domainRun is, in a receiver's inRuns, the stretch [lo, hi) of sender
// dom's outbox bound for it, or, in its creditsIn, of the credits sender
// dom owes its ends.
type domainRun struct {
	dom, lo, hi int32
}

// seal sorts the domain's outbox by receiving domain, then due cycle,
// keeping the order sent among equals, and its credits by sending domain
// keeping their order, and posts their stretches in the receivers' slots
// (this sender's column of each, and their incoming flags); domains may
// seal at once.
func (d *fabricDomain) seal() {
	p := d.fresh()
	if d.sealed {
		return
	}
	// (A stable sort of a sealed prefix and later sends keeps the order
	// sent among equals, so sealing again after more sends is sound.)
	d.sealed = true
	d.f.sealedIn[d.index] = d.f.windows + 1
	if !slices.IsSortedFunc(d.boxes[p], compareCrossings) {
		d.sortOutbox(p)
	}
	box := d.boxes[p]
	d.post(d.f.inSlots[p], p, len(box), func(i int) int { return box[i].dst.dom.index })
	credits := d.creditBoxes[p]
	bySender := func(a, b *fabricEnd) int { return cmp.Compare(a.dom.index, b.dom.index) }
	if !slices.IsSortedFunc(credits, bySender) {
		slices.SortStableFunc(credits, bySender)
	}
	d.post(d.f.creditSlots[p], p, len(credits), func(i int) int { return credits[i].dom.index })
}

// fresh readies the domain's boxes for the window in progress and returns
// its parity: the first time in a window, the parity's box and credits,
// which hold a window whose receivers took them before the last ended,
// are emptied.
func (d *fabricDomain) fresh() int {
	f := d.f
	p := f.sealParity
	if d.boxWindow != f.windows {
		d.boxWindow = f.windows
		d.boxes[p] = d.boxes[p][:0]
		d.creditBoxes[p] = d.creditBoxes[p][:0]
		d.sealed = false
	}
	return p
}

// send adds a message for another domain to the window's box.
func (d *fabricDomain) send(c crossing) {
	p := d.unseal()
	d.boxes[p] = append(d.boxes[p], c)
}

// owe records that this domain delivered a message of another domain's
// end, whose credit goes back after the window's end.
func (d *fabricDomain) owe(src *fabricEnd) {
	p := d.unseal()
	d.creditBoxes[p] = append(d.creditBoxes[p], src)
}

// unseal is fresh before a change to the window's box or credits: a
// domain that sealed and then changes them is sealed again (by its task,
// or at the window's end).
func (d *fabricDomain) unseal() int {
	p := d.fresh()
	if d.sealed {
		d.sealed = false
		d.f.sealedIn[d.index] = 0
	}
	return p
}

// post writes the stretches of equal keys (receiving domains) of n sorted
// items into this sender's column of those receivers' rows of slots (of
// parity p), and marks them incoming: each receiver then finds its
// senders' stretches in a row of its own, which no serial pass over every
// sender builds.
func (d *fabricDomain) post(slots []span, p, n int, key func(int) int) {
	f, stride := d.f, len(d.f.doms)
	for lo := 0; lo < n; {
		k, hi := key(lo), lo+1
		for hi < n && key(hi) == k {
			hi++
		}
		slots[k*stride+d.index] = span{lo: int32(lo), hi: int32(hi)}
		f.markIncoming(p, k)
		lo = hi
	}
}

// span is a stretch [lo, hi) of a sender's outbox or credits in a
// receiver's slots (fabric.inSlots, fabric.creditSlots); empty: none.
type span struct {
	lo, hi int32
}

// sizeSlots sizes the exchange's slots for the fabric's domains (the
// builder calls it once they are all made, before any domain seals).
func (f *fabric) sizeSlots() {
	n := len(f.doms)
	f.sealedIn = make([]uint64, n)
	for p := range 2 {
		f.inSlots[p] = make([]span, n*n)
		f.creditSlots[p] = make([]span, n*n)
		f.incoming[p] = make([]atomic.Bool, n)
	}
}

// markIncoming notes that domain r has crossings or credits in its slots
// of parity p.
func (f *fabric) markIncoming(p, r int) {
	if in := &f.incoming[p][r]; !in.Load() {
		in.Store(true)
	}
}

// gather takes domain d's slots of the last window into d.inRuns and
// d.creditsIn, by ascending sender, and empties them.
func (f *fabric) gather(d *fabricDomain) {
	n, p := len(f.doms), f.recvParity
	row := f.inSlots[p][d.index*n : (d.index+1)*n]
	for s, sp := range row {
		if sp.hi > sp.lo {
			d.inRuns = append(d.inRuns, domainRun{dom: int32(s), lo: sp.lo, hi: sp.hi})
			row[s] = span{}
		}
	}
	row = f.creditSlots[p][d.index*n : (d.index+1)*n]
	for s, sp := range row {
		if sp.hi > sp.lo {
			d.creditsIn = append(d.creditsIn, domainRun{dom: int32(s), lo: sp.lo, hi: sp.hi})
			row[s] = span{}
		}
	}
}

// sortOutbox sorts the outbox as a stable sort by compareCrossings would:
// dealt by receiving domain, keeping the order sent (a counting sort), then
// each domain's stretch by due cycle with an insertion sort, which a
// stretch mostly in that order already costs one pass. A general stable
// sort of the whole outbox was a tenth of the SMs' tasks on PageRank.
func (d *fabricDomain) sortOutbox(p int) {
	box := d.boxes[p]
	starts := slices.Grow(d.sortStarts[:0], len(d.f.doms)+1)[:len(d.f.doms)+1]
	clear(starts)
	for i := range box {
		starts[box[i].dst.dom.index+1]++
	}
	for k := 1; k < len(starts); k++ {
		starts[k] += starts[k-1]
	}
	dealt := slices.Grow(d.sortSpare[:0], len(box))[:len(box)]
	for i := range box {
		k := box[i].dst.dom.index
		dealt[starts[k]] = box[i]
		starts[k]++
	}
	// starts[k] is now the end of domain k's stretch.
	lo := 0
	for _, hi := range starts[:len(starts)-1] {
		for i := lo + 1; i < hi; i++ {
			if dealt[i].at >= dealt[i-1].at {
				continue
			}
			c, j := dealt[i], i
			for j > lo && c.at < dealt[j-1].at {
				dealt[j] = dealt[j-1]
				j--
			}
			dealt[j] = c
		}
		lo = hi
	}
	clear(box)
	d.boxes[p], d.sortSpare, d.sortStarts = dealt, box[:0], starts
}

// compareCrossings orders an outbox by receiving domain, then due cycle.
func compareCrossings(a, b crossing) int {
	if c := cmp.Compare(a.dst.dom.index, b.dst.dom.index); c != 0 {
		return c
	}
	return cmp.Compare(a.at, b.at)
}

// endWindow ends a window of the domains (WithDomains) at cycle end; ran
// is the domains that ran in it, ascending (no other has sent or received
// anything since the last window's end). It seals what they sent (seal)
// and returns the domains with crossings or credits to take, ascending:
// each takes them with receiveFor before the next window's end, at the
// start of its task in that window or in receiveAll between the windows.
// Every domain's engine must stand still, and every receiver of the last
// window must have taken its crossings.
func (f *fabric) endWindow(now sim.VTimeInSec, end uint64, ran []int) []int {
	if f.unreceived.Load() != 0 {
		panic("memsys: a window ended before every receiver of the last took its crossings")
	}
	// The domains' tasks have sealed what they sent, most likely; the
	// receivers read it from the parity's boxes while the senders fill
	// the other's (fresh).
	for _, i := range ran {
		if f.sealedIn[i] != f.windows+1 {
			f.doms[i].seal()
		}
	}
	f.windows++
	f.recvParity, f.sealParity = f.sealParity, f.sealParity^1
	f.recvNow, f.recvEnd = now, end
	f.receivers = f.receivers[:0]
	for r := range f.incoming[f.recvParity] {
		if f.incoming[f.recvParity][r].Load() {
			f.receivers = append(f.receivers, r)
		}
	}
	f.unreceived.Store(int64(len(f.receivers)))
	return f.receivers
}

// receiveFor takes the crossings and credits domain r received in the
// last window (endWindow): the messages sent to it join their receivers'
// queues, in the order of their due cycles, then of their senders'
// domains and the order sent, with the receivers' links reserved in that
// order; then the credits of its messages delivered in other domains
// come back to its ends, in the order of those domains and of delivery,
// a sender waiting for space being notified at the last window's last
// cycle. It touches domain r's state alone (and reads the senders'
// sealed outboxes), so domains may receive at once.
func (f *fabric) receiveFor(r int) {
	f.incoming[f.recvParity][r].Store(false)
	d := f.doms[r]
	f.gather(d)
	if len(d.inRuns) > 0 {
		f.receive(d, f.recvEnd)
	}
	if len(d.creditsIn) > 0 {
		f.takeCredits(d, f.recvNow)
	}
	f.unreceived.Add(-1)
}

// receiveAll runs receiveFor for every receiver of the last window, none
// of which has yet, each a task of parallel, which is told each task's
// domain.
func (f *fabric) receiveAll(parallel func(domains []int, task func(int))) {
	switch n := f.unreceived.Load(); {
	case n == 0:
		return
	case n != int64(len(f.receivers)):
		panic("memsys: some receivers took their crossings in a window, some between")
	}
	if parallel == nil {
		for _, r := range f.receivers {
			f.receiveFor(r)
		}
		return
	}
	parallel(f.receivers, func(k int) { f.receiveFor(f.receivers[k]) })
}

// receive puts the window's crossings to domain d into their receivers'
// queues: the senders' stretches (d.inRuns, by ascending sender) merged by
// due cycle, ties going to the lower sender.
func (f *fabric) receive(d *fabricDomain, end uint64) {
	runs := d.inRuns
	box := func(r int) []crossing {
		run := runs[r]
		return f.doms[run.dom].boxes[f.recvParity][run.lo:run.hi]
	}
	put := func(c crossing) {
		at := c.at
		if at < float64(end) {
			d.late++
			at = float64(end)
		}
		dst := c.dst
		if dst.linkBytesPerCycle > 0 && crossesDevices(c.src, dst) {
			at = f.linkIn(c.msg, c.src, dst, at)
		}
		if dst.bytesPerCycle > 0 {
			if b := f.ingressBytes(c.msg, dst); b > 0 {
				at = math.Max(at, dst.ingressFree)
				dst.ingressFree = at + b/dst.bytesPerCycle
			}
		}
		dst.pending.push(delivery{msg: c.msg, at: at, seq: d.nextSeq(), src: c.src})
		f.scheduleNext(dst)
	}
	if len(runs) == 1 {
		for _, c := range box(0) {
			put(c)
		}
		d.inRuns = runs[:0]
		return
	}
	// A heap of the runs' heads, by due cycle, then run index (the
	// ascending sender); each run's rest is in boxes.
	boxes := slices.Grow(d.inBoxes[:0], len(runs))[:len(runs)]
	h := slices.Grow(d.inHeap[:0], len(runs))
	for r := range runs {
		boxes[r] = box(r)
		h = append(h, runHead{at: boxes[r][0].at, run: int32(r)})
	}
	down := func(i int) {
		x := h[i]
		for {
			c := 2*i + 1
			if c >= len(h) {
				break
			}
			if c+1 < len(h) && h[c+1].before(h[c]) {
				c++
			}
			if !h[c].before(x) {
				break
			}
			h[i] = h[c]
			i = c
		}
		h[i] = x
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		r := h[0].run
		b := boxes[r]
		put(b[0])
		if b = b[1:]; len(b) > 0 {
			boxes[r] = b
			h[0].at = b[0].at
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
			if len(h) == 0 {
				break
			}
		}
		down(0)
	}
	clear(boxes) // they hold the senders' messages
	d.inHeap, d.inBoxes = h[:0], boxes[:0]
	d.inRuns = runs[:0]
}

// takeCredits returns to domain d's ends the credits that the receiving
// domains (d.creditsIn, ascending) collected for them.
func (f *fabric) takeCredits(d *fabricDomain, now sim.VTimeInSec) {
	for _, run := range d.creditsIn {
		for _, src := range f.doms[run.dom].creditBoxes[f.recvParity][run.lo:run.hi] {
			src.undelivered--
			if src.waitingForSpace {
				src.waitingForSpace = false
				src.port.NotifyAvailable(now)
			}
		}
	}
	d.creditsIn = d.creditsIn[:0]
}

// runHead is a run's next crossing in receive's merge: its due cycle and
// the run.
type runHead struct {
	at  float64
	run int32
}

func (a runHead) before(b runHead) bool { return a.at < b.at || a.at == b.at && a.run < b.run }

// lateCrossings counts the messages between domains that receive found
// due before their window's end (it delivers them at that end): a window
// longer than the crossing allows (tests check it stays 0).
func (f *fabric) lateCrossings() uint64 {
	n := uint64(0)
	for _, d := range f.doms {
		n += d.late
	}
	return n
}
