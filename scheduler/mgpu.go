package scheduler

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// The multi-GPU driver: the second half of the warp-segmentation source
// (vertex refinement). The vertices are partitioned over the system's
// devices; each device holds the in-edges of the vertices it owns and
// every vertex's value (meta0), its own and copies of the others'. An
// iteration is a pull sweep on every device at once over its own vertices
// (kernels/lib/wseg.cuh, wg_part_sweep), then an exchange that brings the
// copies up to date: each value a device changed is sent to the devices
// whose edges read it. A vertex's value is written only by its owner, so
// the receiver stores what it gets. The four exchange methods differ in
// what is sent:
//
//   - all (Medusa): every vertex's value, to every other device.
//   - ms (Totem's maximal subset): the values of every boundary vertex
//     (one another device reads), to the devices that read it.
//   - vr-offline (vertex refinement, boundary marked once): only the
//     boundary vertices changed in this sweep, found by a pass over the
//     boundary lists after the sweep.
//   - vr-online (vertex refinement, found on the fly): the sweep itself
//     appends each changed boundary vertex to the outbox of each device
//     that reads it (a ballot, one atomicAdd per warp, a prefix by
//     popcount); the outbox is sent as it is.
//   - vr-put (vertex refinement by one-sided puts, as NVSHMEM's): what
//     vr-offline sends, but each sender's pass stores the pairs straight
//     into the receiver's inbox across the link, reserving room with one
//     atomicAdd per warp on the receiver's count, in co-launches
//     (kernels.PeerSystem) rather than packing and copying.
//
// A transferred value is useful when it changes the receiver's copy of a
// vertex the receiver reads; communication efficiency is useful values
// over transferred ones. The run ends when a sweep changes no vertex on
// any device.
func init() {
	RegisterScheduler(&Scheduler{
		Name: "mgpu",
		About: "multi-GPU bulk-synchronous pull: the vertices partitioned over the system's GPUs, each sweeping its own " +
			"(warp segmentation, or virtual warps of 8 lanes) and exchanging the values the others read after every sweep",
		Keys: []Key{
			{Name: "exchange", About: "what an exchange sends: all (every value), ms (every boundary value), vr-offline " +
				"(changed boundary values, found after the sweep), vr-online (changed boundary values, listed by the sweep), " +
				"vr-put (vr-offline's values stored by the senders' kernels straight into the receivers' memory)",
				Values: []string{ExchangeAll, ExchangeMaximalSubset, ExchangeRefineOffline, ExchangeRefineOnline, ExchangeRefinePut}, Default: ExchangeRefineOnline},
			{Name: "mapping", About: "each device's sweep: wseg (warp segmentation) or vwc8 (virtual warps of 8 lanes)",
				Values: []string{"wseg", "vwc8"}, Default: "wseg"},
			{Name: "hub", About: "vertices with more in-edges than this are hubs, their edges split over many warps in chunks " +
				"of 1024 and combined with the algorithm's atomic (kernels/lib/mgpu.cuh); 0: none, every vertex's edges to one warp",
				Range: &KeyRange{Min: 0, Max: math.MaxInt32, Whole: true}, Default: "2048", Quiet: true},
		},
		Offers:     map[Capability]func(Variant) error{Partitioned: func(Variant) error { return nil }},
		Supports:   mgpuSupports,
		Prepare:    mgpuPrepare,
		Reset:      mgpuReset,
		Run:        mgpuRun,
		Collect:    mgpuCollect,
		CoLaunches: func(v Variant) bool { return v.Get("exchange") == ExchangeRefinePut },
		Variants:   []string{"mgpu", "mgpu:exchange=all", "mgpu:exchange=ms", "mgpu:exchange=vr-offline", "mgpu:exchange=vr-put", "mgpu:mapping=vwc8", "mgpu:hub=0"},
		Label:      func(v Variant) string { return v.Get("mapping") },
	})
}

// The exchange methods (the mgpu scheduler's exchange key).
const (
	ExchangeAll           = "all"
	ExchangeMaximalSubset = "ms"
	ExchangeRefineOffline = "vr-offline"
	ExchangeRefineOnline  = "vr-online"
	ExchangeRefinePut     = "vr-put"
)

// MaxPartitionDevices is the most devices mgpu splits a graph over: a
// vertex's send mask (wg_part_sweep) has a bit per device in 32 bits.
const MaxPartitionDevices = 32

// Partitioned is running on a graph partitioned over several devices
// (RunOptions.System with more than one device).
const Partitioned Capability = "partitioned graphs over several GPUs"

// PartitionedForm says that the multi-GPU driver can run an algorithm's
// ACC form on a partitioned graph: meta0 holds every vertex's 32-bit
// value, written only by its owner's sweep; the other metadata start as
// the problem's on every device.
type PartitionedForm struct {
	// Sums, when set, is a metadata buffer of float64 slots into which
	// every sweep adds its device's share; the driver totals them across
	// devices after each sweep.
	Sums *SlotSums
}

// SlotSums are per-sweep float64 sums kept in rotating slots of a
// metadata buffer (PageRank's dangling rank, kernels/pr.cu): after sweep i
// the driver sets slot Sum on every device to the devices' total and slot
// Clear, unless negative, to zero.
type SlotSums struct {
	Meta  int
	Slots func(iteration int) (sum, clear int)
}

func mgpuSupports(a *Algorithm, v Variant) error {
	if a.Partition == nil {
		return fmt.Errorf("%s has no partitioned form (the multi-GPU driver runs %s)", a.Name, partitionedNames())
	}
	return needsGather(a, v, "pull")
}

func partitionedNames() string {
	var names []string
	for _, a := range Algorithms() {
		if a.Partition != nil {
			names = append(names, a.Name)
		}
	}
	return fmt.Sprint(names)
}

// mgpuState is the driver's: the system, the partition and each device's
// part.
type mgpuState struct {
	sys      kernels.System
	exchange string
	parts    []*mgpuPart
	pull     *kernels.Kernel
	pack     *kernels.Kernel
	apply    *kernels.Kernel
	// hubInit, hubGather and hubApply split the hubs' edges over warps.
	hubInit, hubGather, hubApply *kernels.Kernel
	// bytes[i][j] is what device i sent device j this run.
	bytes [][]uint64
}

// mgpuPart is one device's share: its rows, its buffers, what it sends
// and what it receives.
type mgpuPart struct {
	// devicePart's owned are the device's vertices, one per row: the
	// others, then from hubFirst on the hubs, each ascending.
	devicePart
	hubFirst int
	// hubChunks[h] is hub h's first chunk of edges, the last entry their
	// total; hubAcc the hubs' gathered values.
	hubChunks               []uint32
	chunkStart, hubAcc      kernels.DevPtr
	hubGatherGrid, hubsGrid int
	// send[j] are the owned vertices device j reads, ascending.
	send [][]uint32
	grid int

	// csr is the device's rows of the in-edges; its n is the whole
	// graph's vertex count, the entries' num_vertices.
	csr                             deviceGraph
	ownedPtr                        kernels.DevPtr
	active, stamps, sendMask, reads kernels.DevPtr
	outbox, outboxCount, useful     kernels.DevPtr
	capacity                        int
	// Sender side, per destination j: the device copy of send[j] and
	// the packed values.
	sendPtr, packed []kernels.DevPtr
	packCount       kernels.DevPtr
	// Receiver side: one inbox for every sender, so that one launch
	// applies an exchange. Dense methods give each sender a fixed stretch
	// (inboxAt[s] words in), with the ids it follows in ids (its owned
	// list for all, its send list to this device for ms), in sender
	// order; pairs are placed one sender after another as they come.
	inbox, ids kernels.DevPtr
	inboxAt    []int
	// inboxCount counts the pairs other devices' kernels stored in the
	// inbox (vr-put).
	inboxCount kernels.DevPtr
}

func mgpuPrepare(e *Enactment) error {
	sys := e.Options.System
	if sys == nil {
		sys = kernels.SingleSystem(e.Dev)
	}
	devs := sys.Devices()
	if len(devs) == 0 || devs[0] != e.Dev {
		return fmt.Errorf("the system's first device must be the enactment's")
	}
	g := e.Problem.Graph
	in := g
	if g.Directed {
		in = g.Reverse()
	}
	n, P := in.NumVertices(), len(devs)
	if P > MaxPartitionDevices {
		return fmt.Errorf("%d devices: mgpu splits a graph over at most %d", P, MaxPartitionDevices)
	}
	st := &mgpuState{sys: sys, exchange: e.Variant.Get("exchange")}
	if _, ok := sys.(kernels.PeerSystem); !ok && P > 1 && st.exchange == ExchangeRefinePut {
		return fmt.Errorf("exchange=%s stores into other devices' memory from kernels, which this system's devices cannot", ExchangeRefinePut)
	}
	owner := make([]uint32, n)
	if P > 1 {
		var err error
		if owner, err = e.partitionOver(sys); err != nil { // by in-edges, as in holds them
			return err
		}
	}
	var err error
	if st.pull, err = kernels.Lookup(fmt.Sprintf("%s_mgpu_%s_pull", e.Algorithm.Kernel, e.Variant.Get("mapping"))); err != nil {
		return err
	}
	if st.pack, err = kernels.Lookup("exchange_pack"); err != nil {
		return err
	}
	if st.apply, err = kernels.Lookup("exchange_apply"); err != nil {
		return err
	}
	for _, k := range []struct {
		to    **kernels.Kernel
		phase string
	}{{&st.hubInit, "init"}, {&st.hubGather, "gather"}, {&st.hubApply, "apply"}} {
		if *k.to, err = kernels.Lookup(fmt.Sprintf("%s_mgpu_hub_%s", e.Algorithm.Kernel, k.phase)); err != nil {
			return err
		}
	}
	// Owned lists, and which vertices each device reads from which.
	st.parts = make([]*mgpuPart, P)
	for d := range P {
		st.parts[d] = &mgpuPart{devicePart: devicePart{dev: devs[d]}, send: make([][]uint32, P)}
	}
	hub := e.Variant.Int("hub")
	hubs := make([][]uint32, P)
	for v := range n {
		p := st.parts[owner[v]]
		if hub > 0 && in.OutDegree(uint32(v)) > hub {
			hubs[owner[v]] = append(hubs[owner[v]], uint32(v))
		} else {
			p.owned = append(p.owned, uint32(v))
		}
	}
	for d, p := range st.parts {
		p.hubFirst = len(p.owned)
		p.hubChunks = []uint32{0}
		for _, v := range hubs[d] {
			p.owned = append(p.owned, v)
			chunks := (in.OutDegree(v) + hubChunk - 1) / hubChunk
			p.hubChunks = append(p.hubChunks, p.hubChunks[len(p.hubChunks)-1]+uint32(chunks))
		}
	}
	readers := make([]int, n) // the last reader (plus one) that listed v
	for d, p := range st.parts {
		for _, v := range p.owned {
			for e := in.Offsets[v]; e < in.Offsets[v+1]; e++ {
				u := in.Targets[e]
				if s := int(owner[u]); s != d && readers[u] != d+1 {
					readers[u] = d + 1
					st.parts[s].send[d] = append(st.parts[s].send[d], u)
				}
			}
		}
	}
	for _, p := range st.parts {
		for _, s := range p.send {
			slices.Sort(s)
		}
	}
	for d, p := range st.parts {
		if err := st.allocate(e, d, p, in); err != nil {
			return err
		}
	}
	st.bytes = make([][]uint64, P)
	for i := range st.bytes {
		st.bytes[i] = make([]uint64, P)
	}
	e.State = st
	return nil
}

// allocate builds device d's buffers: its rows of the in-edge CSR, its
// copy of the metadata (device 0 uses the enactment's), and the exchange
// method's lists and buffers.
func (st *mgpuState) allocate(e *Enactment, d int, p *mgpuPart, in *graph.Graph) error {
	P, n := len(st.parts), in.NumVertices()
	p.buf, p.meta = e.deviceMetadata(d, p.dev)
	b := p.buf
	offsets := make([]uint32, 0, len(p.owned)+1)
	var targets, weights []uint32
	offsets = append(offsets, 0)
	for _, v := range p.owned {
		lo, hi := in.Offsets[v], in.Offsets[v+1]
		targets = append(targets, in.Targets[lo:hi]...)
		if in.Weighted() {
			weights = append(weights, in.Weights[lo:hi]...)
		}
		offsets = append(offsets, uint32(len(targets)))
	}
	p.csr = deviceGraph{n: n, offsets: b.Copy(offsets, "part row offsets"), targets: b.Copy(targets, "part column indices")}
	if in.Weighted() {
		p.csr.weights = b.Copy(weights, "part edge weights")
	}
	p.ownedPtr = b.Copy(p.owned, "owned vertices")
	p.active = b.Uint32s(1, "active count")
	p.useful = b.Uint32s(1, "useful updates")
	reads := make([]uint32, n)
	for s, q := range st.parts {
		if s != d {
			for _, v := range q.send[d] {
				reads[v] = 1
			}
		}
	}
	p.reads = b.Copy(reads, "read copies")
	p.sendPtr, p.packed = make([]kernels.DevPtr, P), make([]kernels.DevPtr, P)
	p.inboxAt = make([]int, P)
	switch st.exchange {
	case ExchangeAll:
		dense := b.Uint32s(len(p.owned), "packed values")
		for j := range P {
			p.packed[j] = dense
		}
	case ExchangeMaximalSubset:
		for j, s := range p.send {
			if j != d {
				p.sendPtr[j] = b.Copy(s, "boundary list")
				p.packed[j] = b.Uint32s(len(s), "packed values")
			}
		}
	case ExchangeRefinePut:
		p.stamps = b.Uint32s(n, "change stamps")
		p.inboxCount = b.Uint32s(1, "inbox count")
		for j, s := range p.send {
			if j != d {
				p.sendPtr[j] = b.Copy(s, "boundary list")
			}
		}
	case ExchangeRefineOffline:
		p.stamps = b.Uint32s(n, "change stamps")
		p.packCount = b.Uint32s(P, "packed counts")
		for j, s := range p.send {
			if j != d {
				p.sendPtr[j] = b.Copy(s, "boundary list")
				p.packed[j] = b.Uint32s(2*len(s), "packed pairs")
			}
		}
	case ExchangeRefineOnline:
		mask := make([]uint32, len(p.owned))
		row := make(map[uint32]int, len(p.owned))
		for r, v := range p.owned {
			row[v] = r
		}
		for j, s := range p.send {
			p.capacity = max(p.capacity, len(s))
			for _, v := range s {
				mask[row[v]] |= 1 << j
			}
		}
		p.sendMask = b.Copy(mask, "send masks")
		p.outbox = b.Uint32s(2*P*p.capacity, "outbox")
		p.outboxCount = b.Uint32s(P, "outbox counts")
	}
	var ids []uint32
	words := 0
	for s, q := range st.parts {
		if s == d {
			continue
		}
		p.inboxAt[s] = words
		switch st.exchange {
		case ExchangeAll:
			ids = append(ids, q.owned...)
			words += len(q.owned)
		case ExchangeMaximalSubset:
			ids = append(ids, q.send[d]...)
			words += len(q.send[d])
		default:
			words += 2 * len(q.send[d])
		}
	}
	p.inbox = b.Uint32s(words, "inbox")
	if ids != nil {
		p.ids = b.Copy(ids, "senders' vertices")
	}
	grid, err := e.gridStrideGrid(st.pull, p.hubFirst*lanesPerMapping(e.Variant.Get("mapping")))
	if err != nil {
		return err
	}
	p.grid = grid
	if hubs := len(p.owned) - p.hubFirst; hubs > 0 {
		p.chunkStart = b.Copy(p.hubChunks, "hub chunks")
		p.hubAcc = b.Uint32s(hubs, "hub values")
		if p.hubGatherGrid, err = e.gridStrideGrid(st.hubGather, int(p.hubChunks[hubs])*32); err != nil {
			return err
		}
		if p.hubsGrid, err = e.gridStrideGrid(st.hubApply, hubs); err != nil {
			return err
		}
	}
	return b.Err()
}

// deviceMetadata is device d's buffers and its copy of the problem's
// metadata for a driver across devices: device 0's are the enactment's;
// another device gets buffers of its own (freed with the enactment) and
// room for each metadata buffer, which the driver's reset fills.
func (e *Enactment) deviceMetadata(d int, dev kernels.Device) (*Buffers, []kernels.DevPtr) {
	var meta []kernels.DevPtr
	if d == 0 {
		for _, m := range e.Problem.Meta {
			meta = append(meta, m.ptr)
		}
		return e.Buffers, meta
	}
	b := NewBuffers(dev)
	e.cleanups = append(e.cleanups, func() { _ = b.Free() })
	for _, m := range e.Problem.Meta {
		meta = append(meta, b.Bytes(len(m.init), fmt.Sprintf("%s %s on device %d", e.Algorithm.Name, m.Name, d)))
	}
	return b, meta
}

// hubChunk is kernels/lib/mgpu.cuh's WG_HUB_CHUNK: the edges of a hub one
// warp gathers at a time.
const hubChunk = 1024

func lanesPerMapping(mapping string) int {
	if mapping == "vwc8" {
		return 8
	}
	return 1
}

// mgpuReset puts every device but the first (runAll resets its metadata)
// back at the problem's start.
func mgpuReset(e *Enactment) error {
	st := e.State.(*mgpuState)
	for i := range st.bytes {
		clear(st.bytes[i])
	}
	for d, p := range st.parts {
		p.resetMetadata(e, d)
		if p.stamps != 0 {
			p.buf.Zero(p.stamps, 4*e.Problem.Graph.NumVertices(), "change stamps")
		}
		if err := p.buf.Err(); err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
	}
	return nil
}

// mgpuIteration gathers one iteration's launches and figures from the
// devices' goroutines.
type mgpuIteration struct {
	mu sync.Mutex
	it *IterationStats
}

func (m *mgpuIteration) add(st kernels.LaunchStats) {
	m.mu.Lock()
	m.it.Stats.Add(st)
	m.it.Launches++
	m.mu.Unlock()
}

// launch runs k on dev over grid CTAs and adds it to the iteration.
func (m *mgpuIteration) launch(e *Enactment, dev kernels.Device, k *kernels.Kernel, grid int, args ...any) error {
	st, err := e.launchOn(dev, m.it.Iteration, k, grid, args...)
	if err != nil {
		return err
	}
	m.add(st)
	return nil
}

func mgpuRun(e *Enactment) error {
	st := e.State.(*mgpuState)
	n := e.Problem.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	P := len(st.parts)
	var transferred, useful, bytes uint64
	var compute, exchange time.Duration
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		it := IterationStats{Iteration: iteration, Direction: "pull", Phases: "pull", FrontierIn: n}
		m := &mgpuIteration{it: &it}
		start := st.sys.Clock()
		actives := make([]int, P)
		outCounts := make([][]uint32, P)
		err := st.sys.Parallel(func(d int, dev kernels.Device) error {
			p := st.parts[d]
			p.buf.Zero(p.active, 4, "active count")
			if p.outboxCount != 0 {
				p.buf.Zero(p.outboxCount, 4*P, "outbox counts")
			}
			if err := p.buf.Err(); err != nil {
				return err
			}
			acc := e.accArgsWith(&p.csr, p.meta, iteration)
			rest := []any{p.ownedPtr, p.stamps, uint32(iteration + 1), p.sendMask, p.outboxCount, p.outbox, uint32(p.capacity), uint32(P)}
			sweep := append(append(slices.Clone(acc), p.active, uint32(p.hubFirst)), rest...)
			if err := m.launch(e, dev, st.pull, p.grid, sweep...); err != nil {
				return err
			}
			if hubs := len(p.owned) - p.hubFirst; hubs > 0 {
				if err := m.launch(e, dev, st.hubInit, p.hubsGrid, append(slices.Clone(acc), uint32(hubs), p.hubAcc)...); err != nil {
					return err
				}
				if err := m.launch(e, dev, st.hubGather, p.hubGatherGrid, append(slices.Clone(acc), p.ownedPtr, uint32(p.hubFirst), uint32(hubs), p.chunkStart, p.hubAcc)...); err != nil {
					return err
				}
				apply := append(append(slices.Clone(acc), p.active, uint32(len(p.owned))), rest...)
				if err := m.launch(e, dev, st.hubApply, p.hubsGrid, append(apply, uint32(p.hubFirst), p.hubAcc)...); err != nil {
					return err
				}
			}
			a, err := readCountOn(dev, p.active, len(p.owned), "the active count")
			if err != nil {
				return err
			}
			actives[d] = a
			if p.outboxCount != 0 {
				outCounts[d] = make([]uint32, P)
				if err := kernels.Download(dev, outCounts[d], p.outboxCount); err != nil {
					return err
				}
				for j, c := range outCounts[d] {
					if int(c) > len(p.send[j]) {
						return fmt.Errorf("outbox %d holds %d pairs, more than the %d vertices that send to it", j, c, len(p.send[j]))
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		swept := st.sys.Clock()
		active := 0
		for _, a := range actives {
			active += a
		}
		it.FrontierOut = active
		if active > 0 && P > 1 {
			it.Phases = "pull+exchange"
			x, err := st.exchangeValues(e, m, iteration, outCounts)
			if err != nil {
				return err
			}
			transferred += x.transferred
			useful += x.useful
			bytes += x.bytes
			it.Set("values_transferred", float64(x.transferred))
			it.Set("useful_updates", float64(x.useful))
			if x.transferred > 0 {
				it.Set("communication_efficiency", float64(x.useful)/float64(x.transferred))
			}
			it.Set("bytes_moved", float64(x.bytes))
			it.Set("bytes_busiest_link", float64(x.busiest))
		}
		end := st.sys.Clock()
		compute += swept - start
		exchange += end - swept
		if P > 1 {
			it.Set("compute_ns", float64((swept - start).Nanoseconds()))
			it.Set("exchange_ns", float64((end - swept).Nanoseconds()))
		}
		e.record(it)
		if active == 0 {
			break
		}
	}
	if P > 1 {
		e.Statistic("values_transferred", "values transferred", float64(transferred), fmt.Sprintf("%d (%d bytes between devices)", transferred, bytes))
		e.Statistic("useful_updates", "useful updates", float64(useful), fmt.Sprint(useful))
		eff := 0.0
		if transferred > 0 {
			eff = float64(useful) / float64(transferred)
		}
		e.Statistic("communication_efficiency", "communication efficiency", eff, fmt.Sprintf("%.1f%% of transferred values changed a copy that is read", 100*eff))
		share := 0.0
		if total := compute + exchange; total > 0 {
			share = float64(exchange) / float64(total)
		}
		e.Statistic("exchange_share", "time in exchange", share, fmt.Sprintf("%.1f%% (exchange %v, compute %v)", 100*share, exchange, compute))
		st.linkFigures(e)
	}
	return nil
}

// linkFigures reports the bytes each pair of devices exchanged in the run
// (the busiest and the quietest link, and every pair in words), and, where
// the system models its links, how long they were busy and how long copies
// queued behind one another since it opened.
func (st *mgpuState) linkFigures(e *Enactment) {
	var pairs []string
	busiest, quietest := uint64(0), uint64(math.MaxUint64)
	for i, row := range st.bytes {
		for j, b := range row {
			if i == j {
				continue
			}
			busiest, quietest = max(busiest, b), min(quietest, b)
			pairs = append(pairs, fmt.Sprintf("%d→%d %d", i, j, b))
		}
	}
	e.Statistic("bytes_busiest_link", "bytes on the busiest link", float64(busiest),
		fmt.Sprintf("%d (quietest %d; %s)", busiest, quietest, strings.Join(pairs, ", ")))
	if lc, ok := st.sys.(kernels.LinkCounter); ok {
		ls := lc.LinkStats()
		if ls.Busy > 0 || ls.Queued > 0 {
			e.Statistic("link_busy_ns", "links busy (system so far)", float64(ls.Busy.Nanoseconds()),
				fmt.Sprintf("%v, of which copies queued behind others %v", ls.Busy, ls.Queued))
		}
	}
}

// exchangeFigures are one exchange's counts.
type exchangeFigures struct {
	transferred, useful, bytes, busiest uint64
}

// exchangeValues brings every device's copies up to date after a sweep:
// pack on the senders, copy, apply on the receivers; then the sums of a
// SlotSums problem are totalled.
func (st *mgpuState) exchangeValues(e *Enactment, m *mgpuIteration, iteration int, outCounts [][]uint32) (exchangeFigures, error) {
	if st.exchange == ExchangeRefinePut {
		return st.putValues(e, m, iteration)
	}
	P := len(st.parts)
	// counts[s][d]: the entries s sends d.
	counts := make([][]int, P)
	err := st.sys.Parallel(func(s int, dev kernels.Device) error {
		p := st.parts[s]
		counts[s] = make([]int, P)
		switch st.exchange {
		case ExchangeAll:
			if err := m.launch(e, dev, st.pack, e.listGrid(len(p.owned)), p.meta[0], p.ownedPtr, uint32(len(p.owned)), kernels.DevPtr(0), uint32(0), p.packed[0], kernels.DevPtr(0)); err != nil {
				return err
			}
			for d := range P {
				if d != s {
					counts[s][d] = len(p.owned)
				}
			}
		case ExchangeMaximalSubset:
			for d := range P {
				if d != s && len(p.send[d]) > 0 {
					if err := m.launch(e, dev, st.pack, e.listGrid(len(p.send[d])), p.meta[0], p.sendPtr[d], uint32(len(p.send[d])), kernels.DevPtr(0), uint32(0), p.packed[d], kernels.DevPtr(0)); err != nil {
						return err
					}
					counts[s][d] = len(p.send[d])
				}
			}
		case ExchangeRefineOffline:
			p.buf.Zero(p.packCount, 4*P, "packed counts")
			if err := p.buf.Err(); err != nil {
				return err
			}
			for d := range P {
				if d != s && len(p.send[d]) > 0 {
					if err := m.launch(e, dev, st.pack, e.listGrid(len(p.send[d])), p.meta[0], p.sendPtr[d], uint32(len(p.send[d])), p.stamps, uint32(iteration+1), p.packed[d], p.packCount+kernels.DevPtr(4*d)); err != nil {
						return err
					}
				}
			}
			got := make([]uint32, P)
			if err := kernels.Download(dev, got, p.packCount); err != nil {
				return err
			}
			for d, c := range got {
				if d != s {
					if int(c) > len(p.send[d]) {
						return fmt.Errorf("pack for device %d holds %d pairs, more than its %d boundary vertices", d, c, len(p.send[d]))
					}
					counts[s][d] = int(c)
				}
			}
		case ExchangeRefineOnline:
			for d, c := range outCounts[s] {
				if d != s {
					counts[s][d] = int(c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return exchangeFigures{}, err
	}
	var x exchangeFigures
	pairs := st.exchange == ExchangeRefineOffline || st.exchange == ExchangeRefineOnline
	var copies []kernels.PeerCopy
	// received[d] is what d gets in all; pairs fill its inbox in sender
	// order.
	received := make([]int, P)
	for s, p := range st.parts {
		for d := range P {
			c := counts[s][d]
			if d == s || c == 0 {
				continue
			}
			words := c
			src := p.packed[d]
			at := st.parts[d].inboxAt[s]
			switch st.exchange {
			case ExchangeRefineOffline:
				words = 2 * c
			case ExchangeRefineOnline:
				words = 2 * c
				src = p.outbox + kernels.DevPtr(8*d*p.capacity)
			}
			if pairs {
				at = 2 * received[d]
			}
			received[d] += c
			copies = append(copies, kernels.PeerCopy{From: s, To: d, Src: src, Dst: st.parts[d].inbox + kernels.DevPtr(4*at), Bytes: 4 * words})
			x.transferred += uint64(c)
			x.bytes += uint64(4 * words)
			st.bytes[s][d] += uint64(4 * words)
			x.busiest = max(x.busiest, uint64(4*words))
		}
	}
	if err := st.sys.CopyPeer(copies); err != nil {
		return exchangeFigures{}, fmt.Errorf("iteration %d: exchange: %w", iteration, err)
	}
	return x, st.applyInboxes(e, m, iteration, received, pairs, &x)
}

// applyInboxes applies on every device what its inbox received (received
// values, or pairs), counts the useful updates into x, and totals the
// sums of a SlotSums problem.
func (st *mgpuState) applyInboxes(e *Enactment, m *mgpuIteration, iteration int, received []int, pairs bool, x *exchangeFigures) error {
	P := len(st.parts)
	usefuls := make([]int, P)
	err := st.sys.Parallel(func(d int, dev kernels.Device) error {
		p := st.parts[d]
		p.buf.Zero(p.useful, 4, "useful updates")
		if err := p.buf.Err(); err != nil {
			return err
		}
		c := received[d]
		if c > 0 {
			ids, vals, stride := p.ids, p.inbox, uint32(1)
			if pairs {
				ids, vals, stride = p.inbox, p.inbox+4, 2
			}
			if err := m.launch(e, dev, st.apply, e.listGrid(c), p.meta[0], ids, vals, stride, uint32(c), p.reads, p.useful); err != nil {
				return err
			}
		}
		u, err := readCountOn(dev, p.useful, c, "the useful-update count")
		usefuls[d] = u
		return err
	})
	if err != nil {
		return err
	}
	for _, u := range usefuls {
		x.useful += uint64(u)
	}
	if sums := e.Algorithm.Partition.Sums; sums != nil {
		return totalSums(st.sys, st.parts, sums, iteration)
	}
	return nil
}

// putValues is vr-put's exchange: in P-1 co-launches of the pack kernel,
// round r has device s store its changed boundary values for device
// (s+r) mod P straight into that device's inbox, as (vertex, value)
// pairs behind the receiver's count; each round's counts give what each
// pair of devices moved. Then every device applies its inbox.
func (st *mgpuState) putValues(e *Enactment, m *mgpuIteration, iteration int) (exchangeFigures, error) {
	var x exchangeFigures
	P := len(st.parts)
	if P == 1 {
		return x, st.applyInboxes(e, m, iteration, []int{0}, true, &x)
	}
	ps := st.sys.(kernels.PeerSystem)
	err := st.sys.Parallel(func(d int, dev kernels.Device) error {
		p := st.parts[d]
		p.buf.Zero(p.inboxCount, 4, "inbox count")
		return p.buf.Err()
	})
	if err != nil {
		return x, err
	}
	received := make([]int, P)
	for r := 1; r < P; r++ {
		args := make([][]any, P)
		grid := 1
		for s, p := range st.parts {
			d := (s + r) % P
			q := st.parts[d]
			count := len(p.send[d])
			grid = max(grid, e.listGrid(count))
			args[s] = []any{p.meta[0], p.sendPtr[d], uint32(count), p.stamps, uint32(iteration + 1), q.inbox, q.inboxCount}
		}
		cfg := kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(e.Options.Block)}
		ls, err := ps.CoLaunch(e.Ctx, st.pack, cfg, args)
		if err != nil {
			return x, fmt.Errorf("iteration %d: exchange round %d: %w", iteration, r, err)
		}
		m.add(ls)
		// Each receiver reads its count in a step of the system, so that
		// the reads take the system's time as other host work does.
		totals := make([]int, P)
		err = st.sys.Parallel(func(d int, dev kernels.Device) error {
			s := (d - r + P) % P
			var err error
			totals[d], err = readCountOn(dev, st.parts[d].inboxCount, len(st.parts[s].send[d])+received[d], "the inbox count")
			return err
		})
		if err != nil {
			return x, err
		}
		for d := range P {
			s := (d - r + P) % P
			c := totals[d] - received[d]
			received[d] = totals[d]
			x.transferred += uint64(c)
			x.bytes += uint64(8 * c)
			st.bytes[s][d] += uint64(8 * c)
			x.busiest = max(x.busiest, uint64(8*c))
		}
	}
	return x, st.applyInboxes(e, m, iteration, received, true, &x)
}

// totalSums sets a SlotSums slot on every device to the devices' total.
func totalSums[P interface{ part() *devicePart }](sys kernels.System, parts []P, sums *SlotSums, iteration int) error {
	sum, clearSlot := sums.Slots(iteration)
	values := make([]float64, len(parts))
	err := sys.Parallel(func(d int, dev kernels.Device) error {
		var b [8]byte
		if err := dev.CopyFromDevice(b[:], parts[d].part().meta[sums.Meta]+kernels.DevPtr(8*sum)); err != nil {
			return err
		}
		values[d] = math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
		return nil
	})
	if err != nil {
		return err
	}
	total := 0.0
	for _, x := range values {
		total += x
	}
	return sys.Parallel(func(d int, dev kernels.Device) error {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(total))
		meta := parts[d].part().meta[sums.Meta]
		if err := dev.CopyToDevice(meta+kernels.DevPtr(8*sum), b[:]); err != nil || clearSlot < 0 {
			return err
		}
		return dev.Memset(meta+kernels.DevPtr(8*clearSlot), 0, 8)
	})
}

// listGrid is the grid of a pass over n list entries, a thread each.
func (e *Enactment) listGrid(n int) int {
	return max(1, (n+e.Options.Block-1)/e.Options.Block)
}

// mgpuCollect gathers every device's own values into device 0's meta0
// after a run (untimed, as the final download is), for the check.
func mgpuCollect(e *Enactment) error {
	return gatherOwned(e, e.State.(*mgpuState).parts)
}
