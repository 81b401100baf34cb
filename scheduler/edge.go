package scheduler

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// The edge-centric scheduler (WolfGraph, kernels/lib/edge.cuh): every
// iteration sweeps the whole edge list, one CTA per edge block and one
// thread per edge, and combines each destination's updates with the
// algorithm's pull members. cache=shared reduces a block's updates in a
// per-CTA vertex-value array in shared memory and writes it back once;
// cache=global, the baseline, makes every update a global atomic. The run
// ends after a sweep in which no vertex changed (voting) or stayed active
// (aggregation).
//
// Statistics: run-level, the number of edge blocks, the split vertices and
// the layout's synchronisation-degree bound (most edges of one block with
// one destination, computed on the host: the degree when every edge
// proposes, as in PageRank); per iteration, the simulator's shared and
// global atomics and bank conflicts, and with census=on the measured
// synchronisation degree (max_sync_degree: most edges of one CTA that
// propose an update to one destination, counted on the device by a census
// launch before the sweep) and the number of proposals. The census launch
// is a measurement: it is not in the iteration's launches, statistics or
// kernel time, but it is in the end-to-end time, so time runs with
// census=off.
func init() {
	RegisterScheduler(&Scheduler{
		Name:  "edge",
		About: "edge-centric (WolfGraph): a CTA per edge block, a thread per edge, updates cached in shared memory",
		Keys: []Key{
			{Name: "cache", About: "shared: reduce updates in a per-CTA vertex-value array in shared memory, then write back; global: every update a global atomic (the baseline)",
				Values: []string{"shared", "global"}, Default: "shared"},
			{Name: "census", About: "on: before each sweep a census launch, kept out of the kernel time, counts the proposing edges per destination slot (the synchronisation degree); off for timing",
				Values: []string{"off", "on"}, Default: "off", Measurement: true},
		},
		Label:    func(v Variant) string { return v.Get("cache") },
		Supports: edgeSupports,
		Prepare:  edgePrepare,
		Reset:    edgeReset,
		Run:      edgeRun,
		Variants: []string{"edge", "edge:cache=global", "edge:census=on", "edge:cache=global,census=on"},
	})
}

// edgeMaxSlots is WG_EDGE_SLOTS of edge.cuh: the most vertices a block's
// range may hold (its shared array's length).
const edgeMaxSlots = 1024

// edgeDescWords is WG_EDGE_DESC, and edgeOwned WG_EDGE_OWNED.
const (
	edgeDescWords = 6
	edgeOwned     = math.MaxUint32
)

func edgeSupports(a *Algorithm, v Variant) error { return needsGather(a, v, "sweep") }

// edgeLayout is the edge list cut into edge blocks. The edges are the
// in-edge CSR's, in its order (by destination): edge e's source is the
// CSR's Targets[e].
type edgeLayout struct {
	// Slot is the shared-index array: per edge, its destination's slot in
	// its block's shared array (the destination minus the block's first
	// vertex). Dst is per edge its destination.
	Slot, Dst []uint32
	// Blocks holds edgeDescWords words per block (edge.cuh's descriptor).
	Blocks []uint32
	// Split lists the vertices whose in-edges span several blocks, in
	// order of their spill index.
	Split []uint32
	// MaxSlotEdges is the most edges of one block with one destination:
	// the most threads of a CTA that can hit one address.
	MaxSlotEdges int
}

// NumBlocks is the number of edge blocks (the sweep's grid).
func (l *edgeLayout) NumBlocks() int { return len(l.Blocks) / edgeDescWords }

// buildEdgeLayout cuts in's edges into blocks of at most edgesPerBlock
// edges whose destinations form a range of at most maxSlots vertices. A
// vertex whose in-edges fit a block is never cut: when they would overflow
// the current block, the next block starts with it. A vertex with more
// in-edges than a block holds fills the current block and continues
// through as many blocks as it needs (it is split). Every vertex lies in
// some block's range, in-edges or not.
func buildEdgeLayout(in *graph.Graph, edgesPerBlock, maxSlots int) (*edgeLayout, error) {
	if edgesPerBlock <= 0 || maxSlots <= 0 {
		return nil, fmt.Errorf("edge blocks of %d edges and %d vertices: both must be positive", edgesPerBlock, maxSlots)
	}
	n, m := in.NumVertices(), len(in.Targets)
	l := &edgeLayout{Slot: make([]uint32, m), Dst: make([]uint32, m)}
	type block struct {
		edgeBegin, edges, first, end int
		spillFirst, spillLast        uint32
	}
	var cur block
	open := func(edge, v int) {
		cur = block{edgeBegin: edge, first: v, end: v, spillFirst: edgeOwned, spillLast: edgeOwned}
	}
	closeBlock := func() {
		if cur.end > cur.first {
			l.Blocks = append(l.Blocks, uint32(cur.edgeBegin), uint32(cur.edgeBegin+cur.edges),
				uint32(cur.first), uint32(cur.end), cur.spillFirst, cur.spillLast)
		}
	}
	open(0, 0)
	for v := range n {
		begin := int(in.Offsets[v])
		degree := int(in.Offsets[v+1]) - begin
		full := cur.end-cur.first == maxSlots || degree > 0 && cur.edges == edgesPerBlock
		if full || degree <= edgesPerBlock && cur.edges+degree > edgesPerBlock {
			closeBlock()
			open(begin, v)
		}
		cur.end = v + 1
		for done := 0; ; {
			take := min(degree-done, edgesPerBlock-cur.edges)
			for e := begin + done; e < begin+done+take; e++ {
				l.Slot[e], l.Dst[e] = uint32(v-cur.first), uint32(v)
			}
			l.MaxSlotEdges = max(l.MaxSlotEdges, take)
			cur.edges += take
			done += take
			if done == degree {
				break
			}
			// v's in-edges go on in the next block: v is split, and both
			// blocks reduce it into its spill slot.
			spill := uint32(len(l.Split))
			if len(l.Split) > 0 && l.Split[len(l.Split)-1] == uint32(v) {
				spill--
			} else {
				l.Split = append(l.Split, uint32(v))
			}
			cur.spillLast = spill
			closeBlock()
			open(begin+done, v)
			cur.end, cur.spillFirst = v+1, spill
		}
	}
	closeBlock()
	return l, nil
}

type edgeState struct {
	layout *edgeLayout
	// edgeIndex is what the sweep reads per edge: the shared-index array
	// (cache=shared) or the destinations (cache=global); slots is the
	// shared-index array, which the census also reads; blocks the
	// descriptors.
	edgeIndex, slots, blocks kernels.DevPtr
	// acc accumulates per vertex (global) or per split vertex (shared: the
	// spill array); applyList names the split vertices (shared) or is
	// null (global: vertex i is acc[i]).
	acc, applyList kernels.DevPtr
	applyCount     int
	active, census kernels.DevPtr
}

func edgePrepare(e *Enactment) error {
	p := e.Problem
	if e.Options.Block > edgeMaxSlots {
		return fmt.Errorf("edge blocks of %d edges: a CTA of at most %d threads (one per edge)", e.Options.Block, edgeMaxSlots)
	}
	if _, err := e.inEdges(); err != nil {
		return err
	}
	layout, err := buildEdgeLayout(p.Graph.Reverse(), e.Options.Block, edgeMaxSlots)
	if err != nil {
		return err
	}
	b := e.Buffers
	st := &edgeState{layout: layout, blocks: b.Copy(layout.Blocks, "edge block descriptors"),
		active: b.Uint32s(1, "active count"), census: b.Uint32s(2, "census")}
	if e.Variant.Get("cache") == "shared" || e.Variant.Get("census") == "on" {
		st.slots = b.Copy(layout.Slot, "shared-index array")
	}
	if e.Variant.Get("cache") == "shared" {
		st.edgeIndex = st.slots
		st.applyCount = len(layout.Split)
		st.applyList = b.Copy(layout.Split, "split vertices")
	} else {
		st.edgeIndex = b.Copy(layout.Dst, "edge destinations")
		st.applyCount = p.Graph.NumVertices()
	}
	st.acc = b.Uint32s(st.applyCount, "accumulators") // 32-bit values (edge.cuh)
	e.State = st
	return b.Err()
}

// edgeReset fills the accumulators with the algorithm's identity (the
// apply phase keeps them so between sweeps).
func edgeReset(e *Enactment) error {
	st := e.State.(*edgeState)
	if st.applyCount == 0 {
		return nil
	}
	clear, err := e.Kernel("clear")
	if err != nil {
		return err
	}
	grid, err := e.gridStrideGrid(clear, st.applyCount)
	if err != nil {
		return err
	}
	args := append(e.accArgs(e.in, 0), st.acc, uint32(st.applyCount))
	cfg := kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(e.Options.Block)}
	if _, err := e.Dev.Launch(e.Ctx, clear, cfg, args...); err != nil {
		return fmt.Errorf("clearing the accumulators: %w", err)
	}
	return nil
}

// edgeCounters are the simulator's launch counters each iteration reports
// as its own statistics (hardware reports none of them).
var edgeCounters = []string{"shared_atomics", "global_atomics", "bank_conflicts", "max_same_address_serialization_shared", "max_same_address_serialization_global"}

func edgeRun(e *Enactment) error {
	p, st := e.Problem, e.State.(*edgeState)
	n := p.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	l := st.layout
	e.Statistic("edge_blocks", "edge blocks", float64(l.NumBlocks()), fmt.Sprintf("%d of at most %d edges", l.NumBlocks(), e.Options.Block))
	e.Statistic("split_vertices", "split vertices", float64(len(l.Split)), fmt.Sprintf("%d (in-edges over several blocks)", len(l.Split)))
	e.Statistic("sync_degree_bound", "sync degree bound", float64(l.MaxSlotEdges), fmt.Sprintf("%d (most edges of one block with one destination)", l.MaxSlotEdges))
	sweep, err := e.Kernel("sweep")
	if err != nil {
		return err
	}
	apply, err := e.Kernel("apply")
	if err != nil {
		return err
	}
	var census *kernels.Kernel
	if e.Variant.Get("census") == "on" {
		if census, err = e.Kernel("census"); err != nil {
			return err
		}
	}
	applyGrid := 0
	if st.applyCount > 0 {
		if applyGrid, err = e.gridStrideGrid(apply, st.applyCount); err != nil {
			return err
		}
	}
	shared := e.Variant.Get("cache") == "shared"
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		it := IterationStats{Iteration: iteration, Direction: "pull", Phases: "sweep", FrontierIn: n}
		if census != nil {
			if err := edgeCensus(e, census, &it); err != nil {
				return err
			}
		}
		e.Buffers.Zero(st.active, 4, "active count")
		if err := e.Buffers.Err(); err != nil {
			return err
		}
		args := append(e.accArgs(e.in, iteration), st.edgeIndex, st.blocks, st.acc)
		if shared {
			args = append(args, st.active)
		}
		if err := e.launch(&it, sweep, l.NumBlocks(), args...); err != nil {
			return err
		}
		if st.applyCount > 0 {
			args := append(e.accArgs(e.in, iteration), st.applyList, uint32(st.applyCount), st.acc, st.active)
			if err := e.launch(&it, apply, applyGrid, args...); err != nil {
				return err
			}
			it.Phases += "+apply"
		}
		count, err := e.readCount(st.active, n, "the active count")
		if err != nil {
			return err
		}
		it.FrontierOut = count
		for _, key := range edgeCounters {
			if x, ok := it.Stats.Counters[key]; ok {
				it.Set(key, x)
			}
		}
		e.record(it)
		if count == 0 {
			return nil
		}
	}
}

// edgeCensus measures, before the iteration's sweep and on the same state,
// the most edges of one block that propose to one destination and the
// number of proposals.
func edgeCensus(e *Enactment, census *kernels.Kernel, it *IterationStats) error {
	st := e.State.(*edgeState)
	e.Buffers.Zero(st.census, 8, "census")
	if err := e.Buffers.Err(); err != nil {
		return err
	}
	args := append(e.accArgs(e.in, it.Iteration), st.slots, st.blocks, st.census)
	cfg := kernels.LaunchConfig{Grid: kernels.D1(st.layout.NumBlocks()), Block: kernels.D1(e.Options.Block)}
	if _, err := e.Dev.Launch(e.Ctx, census, cfg, args...); err != nil {
		return fmt.Errorf("iteration %d: census: %w", it.Iteration, err)
	}
	var words [2]uint32
	if err := kernels.Download(e.Dev, words[:], st.census); err != nil {
		return err
	}
	it.Set("max_sync_degree", float64(words[0]))
	it.Set("proposals", float64(words[1]))
	return nil
}
