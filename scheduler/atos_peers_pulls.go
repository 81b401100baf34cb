package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// The prelude of pulls across devices (TasksAcross.Carries): PageRank's
// residual push starts, on one device, from the vertices that bulk pulls
// leave active; across devices every device pulls its own vertices'
// in-edges, and after each pull every device sends the carries it wrote
// to all the others (exchange_pack, one peer copy per pair, exchange_apply:
// the multi-GPU driver's kernels, as its exchange=all sends them), so that
// the next pull reads every in-neighbour's current carry.

// peerPulls is the prelude's state for the whole system.
type peerPulls struct {
	pull, seed, pack, apply *kernels.Kernel
	pullGrid, seedGrid      int
	// edges are the edges the last run's prelude walked; transferred and
	// useful its exchanged carries and those that changed a copy a device
	// reads; bytes what it moved between devices.
	edges                      float64
	transferred, useful, bytes uint64
}

// peerPullPart is one device's share: the in-edges of its vertices, those
// vertices classified by in-degree, the stamps and counts a pull writes,
// and the exchange's buffers (its vertex list, the packed carries it
// sends, the inbox of the others' in sender order with their vertex ids,
// and the marks of the vertices it reads).
type peerPullPart struct {
	in                                        deviceGraph
	lists, lens, stamps, counts               kernels.DevPtr
	ownedPtr, send, inbox, ids, reads, useful kernels.DevPtr
	inboxAt                                   []int
}

func newPeerPulls(e *Enactment) (*peerPulls, error) {
	pp := &peerPulls{}
	var err error
	if pp.pull, err = pullThenPushEntry(e.Algorithm, "pull"); err != nil {
		return nil, err
	}
	if pp.pullGrid, err = CoResidentGrid(e.Dev, pp.pull, e.Options.Block, 0); err != nil {
		return nil, err
	}
	if pp.seed, pp.seedGrid, err = e.gridStrideEntry(e.Algorithm.Kernel+"_atos_base_seed", e.Problem.Graph.NumVertices()); err != nil {
		return nil, err
	}
	if pp.pack, err = kernels.Lookup("exchange_pack"); err != nil {
		return nil, err
	}
	if pp.apply, err = kernels.Lookup("exchange_apply"); err != nil {
		return nil, err
	}
	return pp, nil
}

// allocatePulls builds every device's share of the prelude.
func (st *atosPeersState) allocatePulls(e *Enactment, owner []uint32) error {
	in := e.Problem.Graph
	if in.Directed {
		in = in.Reverse()
	}
	n := in.NumVertices()
	t := listTuningOf(e.Variant)
	for d, q := range st.parts {
		b, pp := q.buf, &q.pull
		pp.in = ownRows(b, in, owner, uint32(d), "in-edge part")
		lists, lens := make([]uint32, 3*n), [3]uint32{}
		reads := make([]uint32, n)
		for _, v := range q.owned {
			c := classOf(in.OutDegree(v), t)
			lists[c*n+int(lens[c])] = v
			lens[c]++
			for _, u := range in.Neighbors(v) {
				if owner[u] != uint32(d) {
					reads[u] = 1
				}
			}
		}
		pp.lists, pp.lens = b.Copy(lists, "prelude pull lists"), b.Copy(lens[:], "prelude pull list lengths")
		pp.stamps, pp.counts = b.Uint32s(n, "prelude pull stamps"), b.Uint32s(lenWords, "prelude pull counts")
		pp.ownedPtr = b.Copy(q.owned, "owned vertices")
		pp.send = b.Uint32s(max(len(q.owned), 1), "carries to send")
		var ids []uint32
		pp.inboxAt = make([]int, len(st.parts))
		for s, other := range st.parts {
			if s != d {
				pp.inboxAt[s] = len(ids)
				ids = append(ids, other.owned...)
			}
		}
		pp.inbox = b.Uint32s(max(len(ids), 1), "carries received")
		pp.ids = b.Copy(append(ids, 0), "received carries' vertices")
		pp.reads, pp.useful = b.Copy(reads, "vertices read from other devices"), b.Uint32s(1, "useful carries")
		if err := b.Err(); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	return nil
}

// prelude runs the pulls across the devices and seeds every device's
// queue with its vertices the last pull left active, then sets the first
// device's pending count to all of them (the seeding counts them on its
// own device). A no-op without TasksAcross.Carries.
func (st *atosPeersState) prelude(e *Enactment) error {
	pp := st.pulls
	if pp == nil {
		return nil
	}
	g := e.Problem.Graph
	n := g.NumVertices()
	P := len(st.parts)
	t := listTuningOf(e.Variant)
	pp.edges, pp.transferred, pp.useful, pp.bytes = 0, 0, 0, 0
	active := n
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		stamp := uint32(iteration + 1)
		it := IterationStats{Iteration: len(e.iterations), Phases: "pull", Direction: "pull", FrontierIn: active}
		m := &mgpuIteration{it: &it}
		lengths := make([][lenWords]uint32, P)
		err := st.sys.Parallel(func(d int, dev kernels.Device) error {
			q := st.parts[d]
			q.buf.Zero(q.pull.counts, 4*lenWords, "prelude pull counts")
			if err := q.buf.Err(); err != nil {
				return err
			}
			args := countingPullArgs(e.accArgsWith(&q.pull.in, q.meta, iteration), q.csr.offsets, q.pull.lists, q.pull.lens, q.pull.stamps, q.pull.counts, stamp, t)
			if err := m.launch(e, dev, pp.pull, pp.pullGrid, args...); err != nil {
				return err
			}
			return kernels.Download(dev, lengths[d][:], q.pull.counts)
		})
		if err != nil {
			return err
		}
		pp.edges += float64(g.NumEdges())
		var total [lenWords]uint32
		for d, l := range lengths {
			if int(l[lenActive]) > len(st.parts[d].owned) {
				return fmt.Errorf("device %d's pull left %d of its %d vertices active: a kernel wrote out of bounds", d, l[lenActive], len(st.parts[d].owned))
			}
			total[lenActive] += l[lenActive]
			total[lenEdges] += l[lenEdges]
		}
		active = int(total[lenActive])
		it.FrontierOut = active
		if active == 0 || pullsDone(e, total) {
			e.record(it)
			return st.seedPulled(e, stamp)
		}
		if P > 1 {
			it.Phases = "pull+exchange"
			if err := st.sendCarries(e, m, iteration); err != nil {
				return err
			}
		}
		e.record(it)
	}
}

// sendCarries sends every device's carries of pull iteration to every
// other device: pack, one peer copy per pair, apply.
func (st *atosPeersState) sendCarries(e *Enactment, m *mgpuIteration, iteration int) error {
	pp := st.pulls
	meta, at := st.across.Carries(iteration)
	carries := func(q *atosPeer) kernels.DevPtr { return q.meta[meta] + kernels.DevPtr(4*at) }
	err := st.sys.Parallel(func(d int, dev kernels.Device) error {
		q := st.parts[d]
		if len(q.owned) == 0 {
			return nil
		}
		return m.launch(e, dev, pp.pack, e.listGrid(len(q.owned)), carries(q), q.pull.ownedPtr, uint32(len(q.owned)), kernels.DevPtr(0), uint32(0), q.pull.send, kernels.DevPtr(0))
	})
	if err != nil {
		return err
	}
	var copies []kernels.PeerCopy
	for s, from := range st.parts {
		for d, to := range st.parts {
			if s != d && len(from.owned) > 0 {
				bytes := 4 * len(from.owned)
				copies = append(copies, kernels.PeerCopy{From: s, To: d, Src: from.pull.send, Dst: to.pull.inbox + kernels.DevPtr(4*to.pull.inboxAt[s]), Bytes: bytes})
				pp.transferred += uint64(len(from.owned))
				pp.bytes += uint64(bytes)
			}
		}
	}
	if err := st.sys.CopyPeer(copies); err != nil {
		return fmt.Errorf("prelude pull %d: exchange: %w", iteration, err)
	}
	n := e.Problem.Graph.NumVertices()
	usefuls := make([]int, len(st.parts))
	err = st.sys.Parallel(func(d int, dev kernels.Device) error {
		q := st.parts[d]
		c := n - len(q.owned)
		if c == 0 {
			return nil
		}
		q.buf.Zero(q.pull.useful, 4, "useful carries")
		if err := q.buf.Err(); err != nil {
			return err
		}
		if err := m.launch(e, dev, pp.apply, e.listGrid(c), carries(q), q.pull.ids, q.pull.inbox, uint32(1), uint32(c), q.pull.reads, q.pull.useful); err != nil {
			return err
		}
		u, err := readCountOn(dev, q.pull.useful, c, "the useful-carry count")
		usefuls[d] = u
		return err
	})
	for _, u := range usefuls {
		pp.useful += uint64(u)
	}
	return err
}

// seedPulled queues on every device its vertices the last pull stamped.
func (st *atosPeersState) seedPulled(e *Enactment, stamp uint32) error {
	pp := st.pulls
	n := e.Problem.Graph.NumVertices()
	it := IterationStats{Iteration: len(e.iterations), Phases: "seed", Direction: "-", FrontierIn: n}
	m := &mgpuIteration{it: &it}
	err := st.sys.Parallel(func(d int, dev kernels.Device) error {
		q := st.parts[d]
		if err := m.launch(e, dev, pp.seed, pp.seedGrid, q.items, uint32(st.capacity), q.control, q.pull.stamps, stamp, uint32(n)); err != nil {
			return err
		}
		tail, err := readCountOn(dev, q.control+kernels.DevPtr(4*atosTail), st.capacity, "the seeded queue's tail")
		q.seeded = tail
		return err
	})
	if err != nil {
		return err
	}
	first := uint32(st.first())
	err = st.sys.Parallel(func(d int, dev kernels.Device) error {
		pending := uint32(0)
		if d == 0 {
			pending = first
		}
		return kernels.Upload(dev, st.parts[d].control+kernels.DevPtr(4*atosPending), []uint32{pending})
	})
	if err != nil {
		return err
	}
	it.FrontierOut = int(first)
	e.record(it)
	return nil
}

// ownRows uploads g's rows of the vertices device d owns, indexed by
// global ids (the other rows empty).
func ownRows(b *Buffers, g *graph.Graph, owner []uint32, d uint32, what string) deviceGraph {
	n := g.NumVertices()
	offsets := make([]uint32, n+1)
	var targets, weights []uint32
	for v := range n {
		if owner[v] == d {
			lo, hi := g.Offsets[v], g.Offsets[v+1]
			targets = append(targets, g.Targets[lo:hi]...)
			if g.Weighted() {
				weights = append(weights, g.Weights[lo:hi]...)
			}
		}
		offsets[v+1] = uint32(len(targets))
	}
	rows := deviceGraph{n: n, offsets: b.Copy(offsets, what+" row offsets"), targets: b.Copy(targets, what+" column indices")}
	if g.Weighted() {
		rows.weights = b.Copy(weights, what+" edge weights")
	}
	return rows
}
