package memsys

import (
	"cmp"
	"math"
	"slices"

	"github.com/sarchlab/akita/v3/sim"
)

// domainRun is a stretch [lo, hi) of one domain's outbox or credits that
// concerns domain dom (the receiver of the crossings, the sender of the
// credits), or, in a receiver's inRuns, the stretch of sender dom's outbox
// bound for it.
type domainRun struct {
	dom, lo, hi int
}

// seal sorts the domain's outbox by receiving domain, then due cycle,
// keeping the order sent among equals, and its credits by sending domain
// keeping their order, and records the stretches. It touches this
// domain's state alone.
func (d *fabricDomain) seal() {
	if d.sealed && d.sealedLens == [2]int{len(d.outbox), len(d.credits)} {
		return
	}
	// (A stable sort of a sealed prefix and later sends keeps the order
	// sent among equals, so sealing again is sound.)
	d.sealed, d.sealedLens = true, [2]int{len(d.outbox), len(d.credits)}
	box := d.outbox
	if !slices.IsSortedFunc(box, compareCrossings) {
		slices.SortStableFunc(box, compareCrossings)
	}
	d.outRuns = appendRuns(d.outRuns[:0], len(box), func(i int) int { return box[i].dst.dom.index })
	credits := d.credits
	bySender := func(a, b *fabricEnd) int { return cmp.Compare(a.dom.index, b.dom.index) }
	if !slices.IsSortedFunc(credits, bySender) {
		slices.SortStableFunc(credits, bySender)
	}
	d.creditRuns = appendRuns(d.creditRuns[:0], len(credits), func(i int) int { return credits[i].dom.index })
}

// compareCrossings orders an outbox by receiving domain, then due cycle.
func compareCrossings(a, b crossing) int {
	if c := cmp.Compare(a.dst.dom.index, b.dst.dom.index); c != 0 {
		return c
	}
	return cmp.Compare(a.at, b.at)
}

// appendRuns appends the stretches of equal keys of n sorted items.
func appendRuns(runs []domainRun, n int, key func(int) int) []domainRun {
	for lo := 0; lo < n; {
		k, hi := key(lo), lo+1
		for hi < n && key(hi) == k {
			hi++
		}
		runs = append(runs, domainRun{dom: k, lo: lo, hi: hi})
		lo = hi
	}
	return runs
}

// exchange ends a window of the domains (WithDomains) at cycle end; from
// is the domains that ran in it, ascending (no other has sent or received
// anything since the last exchange). The messages sent between domains
// join their receivers' queues, each receiver's in the order of their due
// cycles, then of their senders' domains and the order sent, with the
// receivers' links reserved in that order; then the credits of the
// messages delivered across domains go back to their senders, each
// sender's in the order of the receivers' domains and of delivery, a
// sender waiting for space being notified at time now (the window's last
// cycle). Every domain's engine must stand still. Each receiver's
// deliveries, and then each sender's credits, are a task of parallel.
func (f *fabric) exchange(now sim.VTimeInSec, end uint64, from []int, parallel func(int, func(int))) {
	if parallel == nil {
		parallel = func(n int, task func(int)) {
			for i := range n {
				task(i)
			}
		}
	}
	// Who receives what, and whose credits come back: the stretches, by
	// ascending sender (receiver) domain.
	f.receivers, f.creditors = f.receivers[:0], f.creditors[:0]
	crossings := 0
	for _, i := range from {
		d := f.doms[i]
		d.seal()
		for _, r := range d.outRuns {
			to := f.doms[r.dom]
			if len(to.inRuns) == 0 {
				f.receivers = append(f.receivers, r.dom)
			}
			to.inRuns = append(to.inRuns, domainRun{dom: i, lo: r.lo, hi: r.hi})
			crossings += r.hi - r.lo
		}
		for _, r := range d.creditRuns {
			to := f.doms[r.dom]
			if len(to.creditsIn) == 0 {
				f.creditors = append(f.creditors, r.dom)
			}
			to.creditsIn = append(to.creditsIn, domainRun{dom: i, lo: r.lo, hi: r.hi})
		}
	}
	if crossings > 0 {
		parallel(len(f.receivers), func(k int) { f.receive(f.doms[f.receivers[k]], end) })
	}
	if len(f.creditors) > 0 {
		parallel(len(f.creditors), func(k int) { f.takeCredits(f.doms[f.creditors[k]], now) })
	}
	for _, i := range from {
		d := f.doms[i]
		clear(d.outbox)
		d.outbox = d.outbox[:0]
		clear(d.credits)
		d.credits = d.credits[:0]
		d.sealed = false
	}
}

// receive puts the window's crossings to domain d into their receivers'
// queues: the senders' stretches (d.inRuns, by ascending sender) merged by
// due cycle, ties going to the lower sender.
func (f *fabric) receive(d *fabricDomain, end uint64) {
	runs := d.inRuns
	box := func(r int) []crossing {
		run := runs[r]
		return f.doms[run.dom].outbox[run.lo:run.hi]
	}
	put := func(c crossing) {
		at := c.at
		if at < float64(end) {
			d.late++
			at = float64(end)
		}
		dst := c.dst
		if dst.bytesPerCycle > 0 {
			if b := f.payload(c.msg, dst.dram); b > 0 {
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
	// A heap of the runs by their heads' due cycles, then run index.
	head := slices.Grow(d.inHead[:0], len(runs))[:len(runs)] // each run's next crossing
	clear(head)
	less := func(a, b int) bool {
		x, y := box(a)[head[a]].at, box(b)[head[b]].at
		return x < y || x == y && a < b
	}
	h := d.inHeap[:0]
	for r := range runs {
		h = append(h, r)
	}
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && less(h[c+1], h[c]) {
				c++
			}
			if !less(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		r := h[0]
		put(box(r)[head[r]])
		if head[r]++; head[r] == runs[r].hi-runs[r].lo {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	d.inHeap, d.inHead = h[:0], head[:0]
	d.inRuns = runs[:0]
}

// takeCredits returns to domain d's ends the credits that the receiving
// domains (d.creditsIn, ascending) collected for them.
func (f *fabric) takeCredits(d *fabricDomain, now sim.VTimeInSec) {
	for _, run := range d.creditsIn {
		for _, src := range f.doms[run.dom].credits[run.lo:run.hi] {
			src.undelivered--
			if src.waitingForSpace {
				src.waitingForSpace = false
				src.port.NotifyAvailable(now)
			}
		}
	}
	d.creditsIn = d.creditsIn[:0]
}

// lateCrossings counts the messages between domains that exchange found
// due before the window's end (it delivers them at the end): a window
// longer than the crossing allows (tests check it stays 0).
func (f *fabric) lateCrossings() uint64 {
	n := uint64(0)
	for _, d := range f.doms {
		n += d.late
	}
	return n
}
