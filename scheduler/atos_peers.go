package scheduler

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// Atos across the GPUs of a system (the Atos source's multi-GPU runs): the
// vertices are partitioned over the devices, each device holding its own
// vertices' out-edges, a copy of the metadata in which its own vertices'
// entries are the current ones, and a task queue for its own vertices.
// One co-launch of <kernel>_atos_peer_persist (kernels/lib/atos_peers.cuh)
// runs persistent warp workers on every device until no task is pending
// anywhere: a worker applies an edge's update on the destination's owner
// and pushes the improved destination into the owner's queue, across the
// link when the owner is another device (one-sided puts, no host in the
// loop). A problem whose task form has a prelude or a finishing pass on
// one device (PageRank's residual push) runs its TasksAcross instead: the
// prelude's pulls on every device with the carries exchanged
// (atos_peers_pulls.go), and the finishing pass on every device. After
// the run each device's own vertices' values are gathered on the first
// device for the check.

// atosPeersOffer is what atos needs to run across GPUs.
func atosPeersOffer(v Variant) error {
	if v.Get("mode") != "persistent" || v.Get("worker") != "warp" {
		return fmt.Errorf("atos runs across GPUs with persistent warp workers (atos:worker=warp), not mode=%s,worker=%s", v.Get("mode"), v.Get("worker"))
	}
	return nil
}

// CoLaunchesAcrossDevices says whether v, run on several devices,
// co-launches kernels that reach other devices' memory (its scheduler's
// CoLaunches).
func CoLaunchesAcrossDevices(v Variant) bool {
	return v.Scheduler.CoLaunches != nil && v.Scheduler.CoLaunches(v)
}

// atosPeersEntry ends the name of an algorithm's entry across devices
// (WG_ATOS_PEER_ENTRIES).
const atosPeersEntry = "_atos_peer_persist"

// atosPeerWords is WG_PEER_WORDS: a device's 64-bit words in the peer table
// (meta0..meta3, the queue's items and control block, the flags).
const atosPeerWords = 7

type atosPeersState struct {
	sys    kernels.PeerSystem
	kernel *kernels.Kernel
	parts  []*atosPeer
	// capacity is every device's queue's; fixed: asked for (atos:capacity).
	capacity int
	fixed    bool
	fetch    int
	grid     int
	// across is the problem's start and finish across the devices (nil:
	// the plain task form); pulls is its prelude's state, and the
	// finishing pass's kernels and grids follow.
	across        *TasksAcross
	pulls         *peerPulls
	finishKernels []*kernels.Kernel
	finishGrids   []int
}

// atosPeer is one device's share.
type atosPeer struct {
	devicePart
	start                                []uint32
	csr                                  deviceGraph
	spin                                 *Spin
	owner, items, control, queued, peers kernels.DevPtr
	pull                                 peerPullPart
	seeded                               int // the tasks the prelude queued
}

func atosPeersPrepare(e *Enactment, sys kernels.System) error {
	ps, ok := sys.(kernels.PeerSystem)
	if !ok {
		return fmt.Errorf("atos across GPUs pushes into other devices' queues from kernels, which this system's devices cannot")
	}
	p := e.Problem
	k, err := kernels.Lookup(e.Algorithm.Kernel + atosPeersEntry)
	if err != nil {
		return fmt.Errorf("%s has no workers across GPUs under atos (they run %s): %w", e.Algorithm.Name, atosPeerNames(), err)
	}
	var across *TasksAcross
	switch {
	case p.Buckets != nil:
		return fmt.Errorf("atos across GPUs runs without delta-stepping's buckets")
	case p.Tasks.AcrossDevices != nil:
		across = p.Tasks.AcrossDevices(p)
	case p.Tasks.Prelude != nil || p.Finish != nil:
		return fmt.Errorf("%s's task form under atos has a prelude or a finishing pass on one device and no form across GPUs", e.Algorithm.Name)
	}
	devs := sys.Devices()
	P := len(devs)
	if P > MaxPartitionDevices {
		return fmt.Errorf("%d devices: atos splits a graph over at most %d", P, MaxPartitionDevices)
	}
	owner, err := e.partitionOver(sys)
	if err != nil {
		return err
	}
	st := &atosPeersState{sys: ps, kernel: k, fetch: atosFetch(e), parts: make([]*atosPeer, P), across: across}
	if err := st.prepareAcross(e); err != nil {
		return err
	}
	for d := range st.parts {
		st.parts[d] = &atosPeer{devicePart: devicePart{dev: devs[d]}}
	}
	for v, d := range owner {
		st.parts[d].owned = append(st.parts[d].owned, uint32(v))
	}
	for _, v := range p.Start {
		q := st.parts[owner[v]]
		q.start = append(q.start, v)
	}
	if p.Start == nil {
		for _, q := range st.parts {
			q.start = q.owned
		}
	}
	if c := e.Variant.Int("capacity"); c > 0 {
		st.capacity, st.fixed = c, true
	} else {
		most := 0
		for _, q := range st.parts {
			most = max(most, 4*len(q.owned)+len(q.start))
		}
		st.capacity = max(most, 1024)
	}
	for d, q := range st.parts {
		if len(q.start) > st.capacity {
			return fmt.Errorf("queue capacity %d is smaller than device %d's %d first tasks", st.capacity, d, len(q.start))
		}
		if err := st.allocate(e, d, q, owner); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	if st.pulls != nil {
		if err := st.allocatePulls(e, owner); err != nil {
			return err
		}
	}
	if err := st.writePeerTables(); err != nil {
		return err
	}
	most := 0
	for _, q := range st.parts {
		most = max(most, len(q.owned))
	}
	if st.grid, err = atosWorkerGrid(e, k, e.Variant.Get("launch") == "fit", most, st.fetch); err != nil {
		return err
	}
	e.State = st
	return nil
}

// first is how many tasks the queues hold when the workers start, all
// devices (the start lists', or the first pull's).
func (st *atosPeersState) first() int {
	n := 0
	for _, q := range st.parts {
		n += len(q.start) + q.seeded
	}
	return n
}

// atosPeerNames lists the algorithms with workers across devices.
func atosPeerNames() string {
	var names []string
	for _, a := range Algorithms() {
		if _, err := kernels.Lookup(a.Kernel + atosPeersEntry); err == nil {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, ", ")
}

// allocate builds device d's share: its rows of the out-edges (indexed by
// global ids, empty for other devices' vertices), its metadata (device 0
// uses the enactment's), the owner table, its queue and its abort flag.
func (st *atosPeersState) allocate(e *Enactment, d int, q *atosPeer, owner []uint32) error {
	g := e.Problem.Graph
	n := g.NumVertices()
	q.buf, q.meta = e.deviceMetadata(d, q.dev)
	b := q.buf
	q.csr = ownRows(b, g, owner, uint32(d), "part")
	q.owner = b.Copy(owner, "vertex owners")
	q.items = b.Uint32s(st.capacity, "task queue")
	q.control = b.Uint32s(atosControlWords, "task queue control")
	if e.Variant.Get("dedup") != "off" {
		q.queued = b.Uint32s(n, "queued flags")
	}
	q.peers = b.Bytes(8*atosPeerWords*len(st.parts), "peer table")
	if err := b.Err(); err != nil {
		return err
	}
	spin, err := e.spinOn(q.dev)
	q.spin = spin
	return err
}

// writePeerTables writes every device's pointers into every device's
// table (WG_PEER_WORDS words a device).
func (st *atosPeersState) writePeerTables() error {
	table := make([]byte, 0, 8*atosPeerWords*len(st.parts))
	for _, q := range st.parts {
		words := make([]kernels.DevPtr, atosPeerWords)
		copy(words, q.meta)
		words[4], words[5], words[6] = q.items, q.control, q.queued
		for _, w := range words {
			table = binary.LittleEndian.AppendUint64(table, uint64(w))
		}
	}
	for d, q := range st.parts {
		q.buf.Upload(q.peers, table, "peer table")
		if err := q.buf.Err(); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	return nil
}

// atosPeersReset puts every device's metadata (the first device's is
// reset by runAll) and queue back at the start: each queue holds its own
// device's first tasks, and the first device's pending count all of them.
func atosPeersReset(e *Enactment) error {
	st := e.State.(*atosPeersState)
	n := e.Problem.Graph.NumVertices()
	for d, q := range st.parts {
		b := q.buf
		q.resetMetadata(e, d)
		if st.across != nil && st.across.Finish != nil {
			b.Upload(q.meta[0], ownedOnly(e.Problem.Meta[0].init, q.owned), "own metadata")
		}
		if q.pull.stamps != 0 {
			b.Zero(q.pull.stamps, 4*n, "prelude pull stamps")
		}
		q.seeded = 0
		b.Fail(q.dev.Memset(q.items, 0xFF, 4*st.capacity), "task queue")
		b.Upload(q.items, rawBytes(q.start), "first tasks")
		control := make([]uint32, atosControlWords)
		control[atosTail] = uint32(len(q.start))
		if d == 0 {
			control[atosPending] = uint32(st.first())
		}
		b.Upload(q.control, rawBytes(control), "task queue control")
		if q.queued != 0 {
			b.Zero(q.queued, 4*n, "queued flags")
		}
		if err := b.Err(); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	return nil
}

// ownedOnly is init (32-bit words, one a vertex, then any others) with 0
// at the vertices not in owned.
func ownedOnly(init []byte, owned []uint32) []byte {
	out := make([]byte, len(init))
	for _, v := range owned {
		copy(out[4*v:4*v+4], init[4*v:4*v+4])
	}
	return out
}

// atosPeersRun co-launches the workers; an overflowed queue restarts the
// run with queues twice the size, as on one device.
func atosPeersRun(e *Enactment) error {
	st := e.State.(*atosPeersState)
	if e.Problem.Graph.NumVertices() == 0 {
		return nil
	}
	for {
		if err := st.prelude(e); err != nil {
			return err
		}
		err := st.persist(e)
		overflow, ok := err.(*QueueOverflowError)
		if !ok {
			if err != nil {
				return err
			}
			return st.finishAcross(e)
		}
		if st.fixed || st.capacity >= atosMaxCapacity/2 {
			overflow.Detail = "the capacity was fixed (atos:capacity=N); give a larger one or 0 to let the queues grow"
			if !st.fixed {
				overflow.Detail = "the queues cannot grow further"
			}
			return overflow
		}
		st.capacity = min(2*max(st.capacity, int(overflow.Pushed)), atosMaxCapacity)
		for d, q := range st.parts {
			q.items = q.buf.Uint32s(st.capacity, "task queue")
			if err := q.buf.Err(); err != nil {
				return fmt.Errorf("device %d: %w", d, err)
			}
		}
		if err := st.writePeerTables(); err != nil {
			return err
		}
		if err := e.restartRun(fmt.Sprintf("a task queue overflowed (%d tasks pushed) and the run restarted with room for %d a device; that run's time includes the failed attempt", overflow.Pushed, st.capacity)); err != nil {
			return err
		}
		if err := atosPeersReset(e); err != nil {
			return err
		}
	}
}

// persist is one co-launch of the workers until no task is pending.
func (st *atosPeersState) persist(e *Enactment) error {
	P := len(st.parts)
	it := IterationStats{Iteration: len(e.iterations), Phases: "persist", Direction: "push", FrontierIn: st.first()}
	backoff := uint32(e.Variant.Int("backoff")) | uint32(e.Variant.Int("backoff_doublings"))<<atosBackoffShift
	args := make([][]any, P)
	spins := make([]*Spin, P)
	for d, q := range st.parts {
		args[d] = append(e.accArgsWith(&q.csr, q.meta, 0), q.peers, uint32(d), uint32(P), q.owner, uint32(st.capacity), uint32(st.fetch), backoff)
		spins[d] = q.spin
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(st.grid), Block: kernels.D1(e.Options.Block)}
	before := st.linkBytes()
	// No first task (a prelude left no vertex active): no worker would
	// ever finish one and raise the done word, so none is launched.
	if st.first() > 0 {
		stats, err := CoLaunchSpinning(e.Ctx, st.sys, st.kernel, cfg, spins, args)
		if err != nil {
			return fmt.Errorf("persistent workers %s on %d GPUs: %w", st.kernel.Name, P, err)
		}
		it.Stats.Add(stats)
		it.Launches++
	}
	controls := make([][]uint32, P)
	pushed := uint64(0)
	for d, q := range st.parts {
		controls[d] = make([]uint32, atosControlWords)
		if err := kernels.Download(q.dev, controls[d], q.control); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
		pushed += uint64(controls[d][atosTail])
	}
	for _, c := range controls {
		if c[atosOverflow] != 0 || int64(c[atosTail]) > int64(st.capacity) {
			return &QueueOverflowError{Kernel: st.kernel.Name, Pushed: pushed, Capacity: st.capacity}
		}
	}
	if pending := controls[0][atosPending]; pending != 0 {
		return fmt.Errorf("persistent workers %s left with %d tasks pending and no abort: the queues' termination protocol is broken", st.kernel.Name, pending)
	}
	link := st.linkBytes()
	for i := range before {
		for j := range before[i] {
			link[i][j] -= before[i][j]
		}
	}
	st.record(e, &it, controls, link)
	e.record(it)
	return nil
}

// prepareAcross looks up the prelude's and the finishing pass's kernels
// and sizes their grids.
func (st *atosPeersState) prepareAcross(e *Enactment) error {
	if st.across == nil {
		return nil
	}
	n := e.Problem.Graph.NumVertices()
	if st.across.Carries != nil {
		pulls, err := newPeerPulls(e)
		if err != nil {
			return err
		}
		st.pulls = pulls
	}
	if st.across.Finish == nil {
		return nil
	}
	for _, name := range st.across.Finish.Kernels {
		k, grid, err := e.gridStrideEntry(name, n)
		if err != nil {
			return err
		}
		st.finishKernels = append(st.finishKernels, k)
		st.finishGrids = append(st.finishGrids, grid)
	}
	return nil
}

// finishAcross runs the finishing pass on every device, timed, as one
// iteration: each kernel on all devices at once, then the total where the
// pass asks for it.
func (st *atosPeersState) finishAcross(e *Enactment) error {
	if st.across == nil || st.across.Finish == nil {
		return nil
	}
	finish := st.across.Finish
	it := IterationStats{Iteration: len(e.iterations), Phases: "finish", Direction: "-", FrontierIn: e.Problem.Graph.NumVertices()}
	m := &mgpuIteration{it: &it}
	for i, k := range st.finishKernels {
		err := st.sys.Parallel(func(d int, dev kernels.Device) error {
			q := st.parts[d]
			return m.launch(e, dev, k, st.finishGrids[i], e.accArgsWith(&q.csr, q.meta, 0)...)
		})
		if err != nil {
			return err
		}
		if k.Name == finish.TotalAfter {
			if err := totalSums(st.sys, st.parts, &finish.Total, 0); err != nil {
				return err
			}
		}
	}
	e.record(it)
	return nil
}

// record reports the queues' statistics, the system's and each device's.
func (st *atosPeersState) record(e *Enactment, it *IterationStats, controls [][]uint32, link [][]uint64) {
	var pushes, pops, failed, edges float64
	perDevice := make([]string, len(controls))
	for d, c := range controls {
		pushes += float64(c[atosTail]) - float64(len(st.parts[d].start)+st.parts[d].seeded)
		pops += float64(c[atosPops])
		failed += float64(c[atosFailed])
		edges += float64(c[atosEdges])
		perDevice[d] = fmt.Sprintf("%d: %d", d, c[atosPops])
	}
	it.Set("queue_pushes", pushes)
	it.Set("queue_pops", pops)
	it.Set("failed_pops", failed)
	e.Statistic("queue_pushes", "queue pushes", pushes, fmt.Sprintf("%.0f (after %d first tasks)", pushes, st.first()))
	e.Statistic("queue_pops", "queue pops", pops, fmt.Sprintf("%.0f tasks processed (by device %s)", pops, strings.Join(perDevice, ", ")))
	e.Statistic("failed_pops", "failed pops", failed, fmt.Sprintf("%.0f waits with no task ready", failed))
	text := fmt.Sprintf("%.0f", edges)
	if st.pulls != nil {
		edges += st.pulls.edges
		text = fmt.Sprintf("%.0f (%.0f by the prelude)", edges, st.pulls.edges)
	}
	e.Statistic("edges_walked", "edges walked", edges, text)
	if pp := st.pulls; pp != nil && pp.transferred > 0 {
		e.Statistic("prelude_exchange_bytes", "prelude's exchange", float64(pp.bytes), fmt.Sprintf("%d bytes: %d carries sent after the pulls, %d (%.1f%%) changed a copy a device reads",
			pp.bytes, pp.transferred, pp.useful, 100*float64(pp.useful)/float64(pp.transferred)))
	}
	var moved, busiest uint64
	pair := ""
	for i, row := range link {
		for j, b := range row {
			if i != j {
				moved += b
				if b > busiest {
					busiest, pair = b, fmt.Sprintf("%d→%d", i, j)
				}
			}
		}
	}
	if moved > 0 {
		it.Set("link_bytes", float64(moved))
		e.Statistic("link_bytes", "bytes across the links", float64(moved), fmt.Sprintf("%d moved by the workers' remote loads, updates and pushes (busiest %s: %d)", moved, pair, busiest))
	}
	e.overwork(edges)
}

// linkBytes is what the system's links carried so far, by pair, where it
// counts what kernels move (simulated systems); nil otherwise.
func (st *atosPeersState) linkBytes() [][]uint64 {
	if lc, ok := st.sys.(kernels.LinkCounter); ok {
		return lc.LinkStats().Bytes
	}
	return nil
}

// devicePart is what a driver across devices keeps of each device: its
// buffers, its copy of the metadata and the vertices it owns.
type devicePart struct {
	dev   kernels.Device
	buf   *Buffers
	meta  []kernels.DevPtr
	owned []uint32
}

func (p *devicePart) part() *devicePart { return p }

// resetMetadata puts device d's metadata back at the problem's start (the
// first device's is the enactment's, which runAll resets).
func (p *devicePart) resetMetadata(e *Enactment, d int) {
	if d == 0 {
		return
	}
	for i, m := range e.Problem.Meta {
		p.buf.Upload(p.meta[i], m.init, "metadata")
	}
}

// partitionOver splits the problem's graph over the system's devices by
// Options.Partition (range by default, balanced by in-edges:
// graph.PartitionGraph), notes the split, and returns each vertex's
// device.
func (e *Enactment) partitionOver(sys kernels.System) ([]uint32, error) {
	method := e.Options.Partition
	if method == "" {
		method = graph.PartitionRange
	}
	P := len(sys.Devices())
	part, err := graph.PartitionGraph(e.Problem.Graph, P, method)
	if err != nil {
		return nil, err
	}
	owner := make([]uint32, e.Problem.Graph.NumVertices())
	for v := range owner {
		owner[v] = uint32(part.Owner(uint32(v)))
	}
	e.Notes = append(e.Notes, fmt.Sprintf("partitioned over %d GPUs by %s (balanced by in-edges); %.1f%% of the edges cross parts; link: %s",
		P, method, 100*part.CutFraction, sys.Link()))
	return owner, nil
}

// gatherOwned writes into the first device's meta0 each device's entries
// of the vertices it owns, from its own meta0 (one 32-bit word a vertex;
// any words after them are the first device's), untimed, as the final
// download is, for the check.
func gatherOwned[P interface{ part() *devicePart }](e *Enactment, parts []P) error {
	if len(parts) == 1 {
		return nil
	}
	words := len(e.Problem.Meta[0].init) / 4
	merged := make([]uint32, words)
	own := make([]uint32, words)
	for d, q := range parts {
		p := q.part()
		if err := kernels.Download(p.dev, own, p.meta[0]); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
		if d == 0 {
			copy(merged, own)
		}
		for _, v := range p.owned {
			merged[v] = own[v]
		}
	}
	first := parts[0].part()
	return kernels.Upload(first.dev, first.meta[0], merged)
}

// atosCollect is atos's Collect: across devices, gatherOwned.
func atosCollect(e *Enactment) error {
	if st, ok := e.State.(*atosPeersState); ok {
		return gatherOwned(e, st.parts)
	}
	return nil
}
