package scheduler

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// The SIMD-X scheduler (kernels/lib/simdx.cuh), host-driven form: work
// classified into small/medium/large lists by out-degree, a frontier filter
// chosen per iteration (the JIT controller runs the online filter and
// switches to ballot while thread bins overflow), and push/pull switching
// by Ligra's rule. Pulls gather over lists classified by in-degree, built
// once. Aggregation algorithms (PageRank) sweep every vertex by pulling
// until none stays active. Pulls launch over the co-resident grid, sized
// from occupancy; under launch=fit the host-driven launches over a
// frontier's lists are sized to the lists (listGrid), the activate and
// scan launches over every vertex to a thread a vertex (vertexGrid), and
// a fused kernel over a small graph to what the whole graph as one
// frontier would need (fitCTAs).
func init() {
	RegisterScheduler(&Scheduler{
		Name:  "simdx",
		About: "SIMD-X: degree-classified lists, JIT frontier filters, push/pull switching",
		Keys: []Key{
			{Name: "filter", About: "frontier filter: jit (online, ballot while bins overflow), online, ballot, batch, strided, atomic",
				Values: []string{"jit", "online", "ballot", "batch", "strided", "atomic"}, Default: "jit"},
			{Name: "direction", About: "auto: pull while the frontier's out-edges exceed the pull fraction of all edges; push: never pull",
				Values: []string{"auto", "push"}, Default: "auto"},
			{Name: "fusion", About: "none: one launch per phase, the host deciding between iterations; pushpull: one persistent kernel per direction; all: one persistent kernel for the whole run",
				Values: []string{"none", "pushpull", "all"}, Default: "none"},
			{Name: "barrier", About: "the grid barrier of fused kernels: monitor (SIMD-X), counter (sense reversal), tree, coop (cooperative launch)",
				Values: BarrierKinds, Default: "counter"},
			{Name: "local", About: "fused kernels and PageRank's pushes: cta runs push levels whose frontier fits 1024 vertices and 4096 edges in CTA 0 alone, __syncthreads between levels (aimed at the small-frontier problem; off by default: results/simdx-h100)",
				Values: []string{"off", "cta"}, Default: "off"},
			{Name: "launch", About: "host-driven launches over a frontier list: fit sizes each to the list (a CTA per large vertex, a warp per medium one, a thread per small one, at most 4 out-edges a thread, and more CTAs than large vertices so that a few hubs share the grid; at most the grid; SIMD-X's mapping of tasks to the cores they need) and the activate and scan launches over every vertex to a thread a vertex, grid launches the whole grid every time",
				Values: []string{"fit", "grid"}, Default: "fit", Quiet: true},
			{Name: "bin", About: "entries of the online filter's thread bins", Default: "64", Quiet: true, Range: &KeyRange{Min: 1, Max: 1 << 16, Whole: true}},
			{Name: "medium", About: "degree from which a warp processes a vertex (out-degree in pushes, in-degree in pulls and classified passes)", Default: "32", Quiet: true, Range: &KeyRange{Min: 1, Max: math.MaxInt32, Whole: true}},
			{Name: "large", About: "degree from which a CTA processes a vertex (at least medium)", Default: "256", Quiet: true, Range: &KeyRange{Min: 1, Max: math.MaxInt32, Whole: true}},
			pullFractionKey,
		},
		Label:  func(v Variant) string { return v.Get("fusion") },
		Forms:  []Form{PullThenPush, Classified, ACC},
		Offers: map[Capability]func(Variant) error{Buckets: func(Variant) error { return nil }},
		Supports: func(a *Algorithm, v Variant) error {
			if t := listTuningOf(v); t.MediumFrom > t.LargeFrom {
				return fmt.Errorf("medium=%d and large=%d: a vertex must not be medium from a degree above where it is large", t.MediumFrom, t.LargeFrom)
			}
			if f, err := v.FormOf(a); err == nil && f == Classified {
				// Every vertex is in every pass, launched by the host: of
				// the keys, only the classes' bounds apply.
				for _, k := range v.Scheduler.Keys {
					if k.Name != "medium" && k.Name != "large" && v.Get(k.Name) != k.Default {
						return fmt.Errorf("simdx runs %s's passes over its vertices classified by degree, every vertex in every pass, launched by the host: %s=%s does not apply (keys medium and large set the classes)", a.Name, k.Name, v.Get(k.Name))
					}
				}
				return nil
			}
			if a.Combine == Aggregation && v.Get("fusion") != "none" {
				return fmt.Errorf("fused simdx runs voting algorithms (%s aggregates: use fusion=none)", a.Name)
			}
			if v.Get("launch") != "fit" && v.Get("fusion") != "none" {
				return fmt.Errorf("launch=%s sizes host-driven launches; fused kernels (fusion=%s) launch once over the co-resident grid, or a thread a vertex where that is fewer CTAs", v.Get("launch"), v.Get("fusion"))
			}
			if a.Combine == Voting && v.Get("fusion") == "none" && v.Get("local") == "cta" {
				return fmt.Errorf("local=cta runs the small frontiers of fused kernels, or of PageRank's pushes (%s is not fused: use fusion=all or pushpull)", a.Name)
			}
			return nil
		},
		Prepare: simdxPrepare,
		Reset:   simdxReset,
		Run:     simdxRun,
		Variants: []string{"simdx", "simdx:filter=online", "simdx:filter=ballot", "simdx:filter=batch",
			"simdx:filter=strided", "simdx:filter=atomic", "simdx:direction=push",
			"simdx:fusion=all", "simdx:fusion=pushpull", "simdx:fusion=all,barrier=monitor",
			"simdx:fusion=all,barrier=tree", "simdx:fusion=all,barrier=coop", "simdx:fusion=pushpull,filter=ballot,barrier=monitor",
			"simdx:fusion=all,local=cta", "simdx:local=cta", "simdx:filter=atomic,local=cta", "simdx:launch=grid"},
	})
}

// Length record words (simdx.cuh).
const (
	lenEdges    = 3
	lenOverflow = 4
	lenMaxBin   = 5
	lenActive   = 6
	lenGather   = 7 // the gather's own overflow word
	lenWords    = 8
	lenRecord   = 8 // words between the two records
)

type simdxState struct {
	// lists and lens are both frontiers, contiguous as the fused kernels
	// take them (A then B).
	lists, lens [2]kernels.DevPtr
	bins        kernels.DevPtr
	binCount    kernels.DevPtr
	ctaCounts   kernels.DevPtr
	queued      kernels.DevPtr
	// pullLists and pullLen classify every vertex by in-degree, once.
	pullLists, pullLen kernels.DevPtr
	grid               int
	// vertexGrid is the grid of the launches that loop over every vertex
	// (activate and the scan filters): enough CTAs to cover the vertices
	// once, at most grid. Over a graph smaller than the co-resident grid's
	// threads the full grid gives most of its warps nothing to do but
	// still runs their prologues, barriers and block scans.
	vertexGrid int
	cur        int
	start      [lenWords]uint32 // the start list's length record
	// Fused kernels: their loop state and per-iteration log, the grid
	// barrier's state and the spin protocol's abort flag.
	control, log, barrier kernels.DevPtr
	maxLog                int
	spin                  *Spin
}

func simdxPrepare(e *Enactment) error {
	if e.Form == Classified { // the problem's own phases keep their own state
		return nil
	}
	n := e.Problem.Graph.NumVertices()
	push, err := simdxGridKernel(e)
	if err != nil {
		return err
	}
	// A fused kernel holds every phase and may need more registers than a
	// CTA of the requested size can have: its CTAs shrink to fit.
	if attrs, err := e.Dev.Attributes(push); err != nil {
		return err
	} else if warp := max(e.Dev.Properties().WarpSize, 1); attrs.MaxThreadsPerCTA < e.Options.Block {
		fit := attrs.MaxThreadsPerCTA / warp * warp
		if fit == 0 {
			return &kernels.LaunchResourceError{Kernel: push.Name, Detail: fmt.Sprintf("not one warp fits a CTA at %d registers per thread", attrs.RegistersPerThread)}
		}
		e.Notes = append(e.Notes, fmt.Sprintf("%s needs %d registers per thread: CTAs of %d threads instead of %d", push.Name, attrs.RegistersPerThread, fit, e.Options.Block))
		e.Options.Block = fit
	}
	t := listTuningOf(e.Variant)
	vertexGrid, err := e.gridStrideGrid(push, max(n, 1))
	if err != nil {
		return err
	}
	grid := vertexGrid
	if e.Options.Grid == 0 { // every resident slot: large vertices take whole CTAs
		if grid, err = CoResidentGrid(e.Dev, push, e.Options.Block, 0); err != nil {
			return err
		}
	}
	if e.Variant.Get("launch") == "grid" {
		vertexGrid = grid
	}
	if e.Variant.Get("fusion") != "none" && e.Options.Grid == 0 {
		// A fused kernel's CTAs meet at a grid barrier every iteration: over
		// a small graph, only the CTAs that the whole graph as a frontier
		// would need, as launch=fit sizes a list (a skewed graph's medium
		// and large vertices keep theirs).
		var class [3]int
		for v := range uint32(n) {
			class[classOf(e.Problem.Graph.OutDegree(v), t)]++
		}
		warp := max(e.Dev.Properties().WarpSize, 1)
		grid = max(1, min(grid, fitCTAs(e.Options.Block, warp, class[0], class[1], class[2])))
		// The scans before the fused kernel count into grid CTAs' slots.
		vertexGrid = min(vertexGrid, grid)
	}
	b := e.Buffers
	threads := grid * e.Options.Block
	st := &simdxState{grid: grid, vertexGrid: vertexGrid, queued: b.Uint32s(n, "queued stamps"),
		bins: b.Uint32s(threads*t.BinSize, "thread bins"), binCount: b.Uint32s(threads, "bin counts"),
		ctaCounts: b.Uint32s(3*grid, "CTA counts")}
	lists, lens := b.Uint32s(6*n, "frontier lists"), b.Uint32s(2*lenRecord, "frontier lengths")
	st.lists = [2]kernels.DevPtr{lists, lists + kernels.DevPtr(12*n)}
	st.lens = [2]kernels.DevPtr{lens, lens + 4*lenRecord}
	e.State = st
	e.bucketNote()
	if fusion := e.Variant.Get("fusion"); fusion != "none" {
		if err := simdxPrepareFused(e, st); err != nil {
			return err
		}
	}
	if (e.Form == PullThenPush) && e.Variant.Get("local") == "cta" { // CTA 0's push rounds log here
		st.maxLog = e.Problem.MaxIterations + 1
		st.control = b.Uint32s(ctlWords, "local loop control")
		st.log = b.Uint32s(logWords*st.maxLog, "local iteration log")
	}
	if e.Problem.Pull || (e.Form == PullThenPush) || e.Algorithm.Pullable && e.Variant.Get("direction") == "auto" {
		if _, err := e.inEdges(); err != nil {
			return err
		}
		in := e.Problem.Graph
		if in.Directed {
			in = in.Reverse()
		}
		lists, lens := classify(in, t)
		st.pullLists = b.Copy(lists, "pull lists")
		st.pullLen = b.Copy(lens[:], "pull list lengths")
	}
	return b.Err()
}

// classify lists every vertex of g by out-degree class (the lists of
// simdx.cuh, each with room for |V|) with the lists' lengths.
func classify(g *graph.Graph, t listTuning) ([]uint32, [3]uint32) {
	return classifyBy(g.NumVertices(), func(v int) int { return g.OutDegree(uint32(v)) }, t)
}

// classifyBy is classify of vertices 0..n-1 by the degree given.
func classifyBy(n int, degree func(v int) int, t listTuning) ([]uint32, [3]uint32) {
	lists, lens := make([]uint32, 3*n), [3]uint32{}
	for v := range n {
		c := classOf(degree(v), t)
		lists[c*n+int(lens[c])] = uint32(v)
		lens[c]++
	}
	return lists, lens
}

// simdxReset classifies the start list on the host (it is the input, not
// work of the algorithm).
func simdxReset(e *Enactment) error {
	if e.Form == Classified {
		return nil
	}
	st := e.State.(*simdxState)
	if err := e.startBuckets(); err != nil {
		return err
	}
	g, t := e.Problem.Graph, listTuningOf(e.Variant)
	n := g.NumVertices()
	st.cur, st.start = 0, [lenWords]uint32{}
	e.Buffers.Zero(st.queued, 4*n, "queued stamps")
	e.Buffers.Zero(st.lens[0], 4*2*lenRecord, "frontier lengths")
	if e.Problem.Start == nil {
		return e.Buffers.Err()
	}
	lists := make([]uint32, 3*n)
	for _, v := range e.Problem.Start {
		d := g.OutDegree(v)
		c := classOf(d, t)
		lists[c*n+int(st.start[c])] = v
		st.start[c]++
		st.start[lenEdges] += uint32(d)
	}
	e.Buffers.Upload(st.lists[0], rawBytes(lists), "start lists")
	e.Buffers.Upload(st.lens[0], rawBytes(st.start[:]), "start lengths")
	return e.Buffers.Err()
}

func classOf(degree int, t listTuning) int {
	switch {
	case degree < t.MediumFrom:
		return 0
	case degree < t.LargeFrom:
		return 1
	}
	return 2
}

// emit modes and scan modes of simdx.cuh.
const (
	emitScan, emitAtomic, emitOnline, emitCount = 0, 1, 2, 3
)

var scanModes = map[string]uint32{"ballot": 0, "batch": 1, "strided": 2}

// simdxLoop is one host-driven SIMD-X run: its kernels, the frontier's
// length record last read, and the filter the coming iteration uses.
type simdxLoop struct {
	e      *Enactment
	st     *simdxState
	t      listTuning
	ks     map[string]*kernels.Kernel
	length [lenWords]uint32
	n      int
	// filter is the variant's; next the coming iteration's (jit picks).
	filter, next string
	// fit sizes list launches to the list (launch=fit); computeGrid is the
	// last compute phase's grid, whose threads own the bins the gather reads.
	fit         bool
	computeGrid int
}

func simdxRun(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	if e.Form == Classified {
		return e.Problem.Custom(e)
	}
	ks, err := simdxKernels(e)
	if err != nil {
		return err
	}
	st := e.State.(*simdxState)
	if e.Variant.Get("fusion") != "none" {
		return simdxFused(e, st, ks)
	}
	l := &simdxLoop{e: e, st: st, t: listTuningOf(e.Variant), ks: ks, n: n, filter: e.Variant.Get("filter"), fit: e.Variant.Get("launch") == "fit"}
	l.next = l.filter
	if l.filter == "jit" {
		l.next = "online"
	}
	first, done, err := l.firstFrontier()
	if err != nil || done {
		return err
	}
	direction := "push"
	bound := e.Problem.bucketStart()
	for iteration := first; ; iteration++ {
		size := l.size()
		if size == 0 { // a bucket's frontier (or the first) emptied: admit the next bucket's
			if size, err = l.admitBucket(iteration, &bound); err != nil {
				return err
			}
		}
		if size == 0 {
			return finishRun(e)
		}
		if err := e.iterationLimit(iteration); err != nil {
			return err
		}
		if e.Variant.Get("direction") == "auto" && e.Algorithm.Pullable {
			direction = "push"
			if float64(l.length[lenEdges]) > l.t.PullFraction*float64(e.Problem.Graph.NumEdges()) {
				direction = "pull"
			}
		}
		if e.Form == PullThenPush && e.Variant.Get("local") == "cta" && size <= localMax && l.length[lenEdges] <= 4*localMax {
			next, err := simdxLocalRounds(e, st, ks["local"], iteration)
			if err != nil {
				return err
			}
			if next < 0 {
				return finishRun(e)
			}
			iteration = next - 1 // the loop's increment
			if err := l.readLengths(st.cur); err != nil {
				return err
			}
			continue
		}
		if err := l.iterate(iteration, size, direction); err != nil {
			return err
		}
	}
}

// simdxKernels looks up the host-driven entries the run launches, by
// phase, and the shared gather kernel.
func simdxKernels(e *Enactment) (map[string]*kernels.Kernel, error) {
	ks := map[string]*kernels.Kernel{}
	phases := []string{"push", "pull", "activate"}
	if e.Form == PullThenPush {
		phases = append(phases, "take", "local")
	}
	for _, phase := range phases {
		k, err := pullThenPushEntry(e.Algorithm, phase)
		if err != nil {
			return nil, err
		}
		ks[phase] = k
	}
	gather, err := kernels.Lookup("simdx_gather")
	if err != nil {
		return nil, err
	}
	ks["simdx_gather"] = gather
	return ks, nil
}

// size is the frontier's vertex count in the last length record read.
func (l *simdxLoop) size() int { return int(l.length[0] + l.length[1] + l.length[2]) }

// readLengths downloads frontier i's length record, checking it.
func (l *simdxLoop) readLengths(i int) error {
	if err := kernels.Download(l.e.Dev, l.length[:], l.st.lens[i]); err != nil {
		return err
	}
	for c := range 3 {
		if l.length[lenOverflow] == 0 && l.length[lenGather] == 0 && int(l.length[c]) > l.n {
			return fmt.Errorf("frontier list %d holds %d entries in a graph of %d vertices: a kernel wrote out of bounds", c, l.length[c], l.n)
		}
	}
	return nil
}

// firstFrontier builds the first push frontier: the pull-then-push form's
// pulls, the algorithm's active vertices (activate and a ballot scan), or
// the start list Reset uploaded. It returns the first push iteration, and
// done when the pulls finished the run.
func (l *simdxLoop) firstFrontier() (first int, done bool, err error) {
	e, st := l.e, l.st
	switch {
	case e.Form == PullThenPush:
		pulls, err := simdxPullPhase(e, st, l.ks["pull"])
		if err != nil || pulls < 0 {
			return 0, true, err
		}
		return pulls, false, l.readLengths(st.cur)
	case e.Problem.Start == nil:
		it := IterationStats{Iteration: -1, Phases: "activate+ballot", Filter: "ballot"}
		if err := e.launch(&it, l.ks["activate"], st.vertexGrid, append(e.accArgs(e.out, 0), st.queued, uint32(1))...); err != nil {
			return 0, false, err
		}
		if err := simdxScan(e, st, &it, 0, 1, "ballot"); err != nil {
			return 0, false, err
		}
		if err := l.readLengths(0); err != nil {
			return 0, false, err
		}
		it.FrontierOut = l.size()
		e.record(it)
		return 0, false, nil
	}
	return 0, false, l.readLengths(0)
}

// admitBucket raises delta-stepping's bound once a bucket's frontier has
// emptied and lists the next bucket's vertices (activate and a ballot
// scan); 0 when none waits.
func (l *simdxLoop) admitBucket(iteration int, bound *uint32) (int, error) {
	e, st := l.e, l.st
	return e.nextBucket(iteration, bound, func(it *IterationStats) (int, error) {
		stamp := uint32(iteration + 1) // the empty last iteration's: no vertex holds it
		if err := e.launch(it, l.ks["activate"], st.vertexGrid, append(e.accArgs(e.out, iteration), st.queued, stamp)...); err != nil {
			return 0, err
		}
		if err := simdxScan(e, st, it, st.cur, stamp, "ballot"); err != nil {
			return 0, err
		}
		if err := l.readLengths(st.cur); err != nil {
			return 0, err
		}
		return l.size(), nil
	})
}

// iterate runs one push or pull iteration from the current frontier and
// builds the next with the coming filter, which the JIT controller then
// picks for the iteration after.
func (l *simdxLoop) iterate(iteration, size int, direction string) error {
	e, st, t := l.e, l.st, l.t
	cur, nxt := st.cur, 1-st.cur
	stamp := uint32(iteration + 2)
	it := IterationStats{Iteration: iteration, Direction: direction, FrontierIn: size, Filter: l.next}
	if err := l.compute(&it, iteration, direction, cur, nxt, stamp); err != nil {
		return err
	}
	it.Phases = direction
	if err := l.buildNext(&it, nxt, stamp); err != nil {
		return err
	}
	if err := l.readLengths(nxt); err != nil {
		return err
	}
	// Word 5 is the most activations one thread recorded in the compute
	// phase: a bin of BinSize would have overflowed above it.
	if l.length[lenMaxBin] > uint32(t.BinSize) {
		it.Overflow = true
	}
	if l.filter == "jit" { // SIMD-X's controller: online unless a bin overflows
		l.next = "online"
		if it.Overflow {
			l.next = "ballot"
		}
	}
	it.FrontierOut = l.size()
	e.record(it)
	st.cur = nxt
	return nil
}

// compute launches the iteration's push (after the pull-then-push form's
// take) or pull, emitting into frontier nxt as the coming filter asks.
func (l *simdxLoop) compute(it *IterationStats, iteration int, direction string, cur, nxt int, stamp uint32) error {
	e, st, t := l.e, l.st, l.t
	emit := uint32(emitScan)
	switch l.next {
	case "online":
		emit = emitOnline
	case "atomic":
		emit = emitAtomic
	}
	e.Buffers.Zero(st.lens[nxt], 4*lenWords, "frontier lengths")
	if err := e.Buffers.Err(); err != nil {
		return err
	}
	emitArgs := []any{st.lists[nxt], st.lens[nxt], st.bins, st.binCount, st.queued, stamp, uint32(t.BinSize), emit, uint32(t.MediumFrom), uint32(t.LargeFrom)}
	if direction == "pull" {
		in, err := e.inEdges()
		if err != nil {
			return err
		}
		args := append(e.accArgs(in, iteration), e.out.offsets, st.pullLists, st.pullLen)
		l.computeGrid = st.grid
		return e.launch(it, l.ks["pull"], st.grid, append(args, emitArgs...)...)
	}
	grid := st.grid
	if l.fit {
		grid = l.listGrid()
	}
	l.computeGrid = grid
	if e.Form == PullThenPush {
		if err := e.launch(it, l.ks["take"], grid, append(e.accArgs(e.out, iteration), st.lists[cur], st.lens[cur])...); err != nil {
			return err
		}
	}
	args := append(e.accArgs(e.out, iteration), st.lists[cur], st.lens[cur])
	return e.launch(it, l.ks["push"], grid, append(args, emitArgs...)...)
}

// listGrid is the grid that gives every entry of the current frontier's
// lists (the last length record read) a worker of its own: a CTA per
// large vertex, a warp per medium one, a thread per small one, and at
// most simdxFitEdgesPerThread out-edges a thread, at most the full grid.
// The grid-stride loops hand small and medium entry i to warp or thread i
// as under the full grid; a large vertex gets grid / large CTAs when that
// is more than one, and the idle CTAs are not launched.
func (l *simdxLoop) listGrid() int {
	block := l.e.Options.Block
	need := fitCTAs(block, max(l.e.Dev.Properties().WarpSize, 1), int(l.length[0]), int(l.length[1]), int(l.length[2]))
	// A few hubs with most of a level's edges (a scale-free graph's second
	// level) would get a CTA each: enough CTAs for simdxFitEdgesPerThread
	// edges a thread.
	edges := int(l.length[lenEdges])
	need = max(need, (edges+block*simdxFitEdgesPerThread-1)/(block*simdxFitEdgesPerThread))
	return max(1, min(need, l.st.grid))
}

// fitCTAs is the CTAs of block threads that give each of small, medium
// and large vertices a worker of its own (a thread, a warp, a CTA), and
// more CTAs than hubs where the push kernel shares their edges over the
// grid (at most simdxHubs large vertices).
func fitCTAs(block, warpSize, small, medium, large int) int {
	warps := max(block/warpSize, 1)
	need := max((small+block-1)/block, (medium+warps-1)/warps, large)
	if large > 0 && large <= simdxHubs {
		need = max(need, large+1)
	}
	return need
}

// simdxFitEdgesPerThread bounds the out-edges per thread of a fitted push
// launch, so that a level of a few hubs is not left to a CTA each
// (results/beyond-gunrock/simdx-counters).
const simdxFitEdgesPerThread = 4

// simdxHubs is the most large vertices whose edges the push kernel shares
// over the grid (kernels/lib/simdx.cuh, WG_SIMDX_HUBS).
const simdxHubs = 1024

// buildNext runs the filter that lists frontier nxt: the online filter's
// gather (and a ballot scan when a bin overflowed), or a scan.
func (l *simdxLoop) buildNext(it *IterationStats, nxt int, stamp uint32) error {
	e, st, t := l.e, l.st, l.t
	switch l.next {
	case "online":
		if err := e.launch(it, l.ks["simdx_gather"], l.computeGrid, e.out.offsets, uint32(l.n), st.bins, st.binCount, uint32(t.BinSize), st.lists[nxt], st.lens[nxt], uint32(t.MediumFrom), uint32(t.LargeFrom)); err != nil {
			return err
		}
		if err := l.readLengths(nxt); err != nil {
			return err
		}
		it.Phases += "+gather"
		if l.length[lenOverflow] != 0 || l.length[lenGather] != 0 { // a bin overflowed, or duplicates overfilled a list: the stamps are complete
			it.Overflow = true
			if err := simdxScan(e, st, it, nxt, stamp, "ballot"); err != nil {
				return err
			}
			it.Phases += "+ballot"
		}
	case "ballot", "batch", "strided":
		if err := simdxScan(e, st, it, nxt, stamp, l.next); err != nil {
			return err
		}
		it.Phases += "+" + l.next
	}
	return nil
}

// simdxPullPhase runs the pulls of a pull-then-push aggregation
// (PageRank): each pull gathers for every vertex and stamps, counts and sums
// the out-edges of the vertices it leaves active, with one atomic per warp
// (no lists: the next pull reads none). It pulls while those out-edges
// exceed the pull fraction of all edges (once under direction=push: the
// first pull computes the start), then a ballot scan lists the active
// vertices for the pushes and it returns the iterations it ran; -1 when no
// vertex is left active (the run is finished).
func simdxPullPhase(e *Enactment, st *simdxState, pull *kernels.Kernel) (int, error) {
	g, t := e.Problem.Graph, listTuningOf(e.Variant)
	n := g.NumVertices()
	in, err := e.inEdges()
	if err != nil {
		return 0, err
	}
	active := n
	for iteration := 0; ; iteration++ {
		if err := e.iterationLimit(iteration); err != nil {
			return 0, err
		}
		stamp := uint32(iteration + 2)
		it := IterationStats{Iteration: iteration, Direction: "pull", Phases: "pull", FrontierIn: active}
		e.Buffers.Zero(st.lens[st.cur], 4*lenWords, "frontier lengths")
		if err := e.Buffers.Err(); err != nil {
			return 0, err
		}
		args := append(e.accArgs(in, iteration), e.out.offsets, st.pullLists, st.pullLen,
			st.lists[st.cur], st.lens[st.cur], st.bins, st.binCount, st.queued, stamp, uint32(0), uint32(emitCount),
			uint32(t.MediumFrom), uint32(t.LargeFrom))
		if err := e.launch(&it, pull, st.grid, args...); err != nil {
			return 0, err
		}
		length, err := pullCounts(e, st.lens[st.cur])
		if err != nil {
			return 0, err
		}
		active = int(length[lenActive])
		it.FrontierOut = active
		pushNext := e.Variant.Get("direction") != "auto" || pullsDone(e, length)
		if active > 0 && pushNext {
			if err := simdxScan(e, st, &it, st.cur, stamp, "ballot"); err != nil {
				return 0, err
			}
			it.Phases += "+ballot"
			it.Filter = "ballot"
		}
		e.record(it)
		if active == 0 {
			return -1, finishRun(e)
		}
		if pushNext {
			return iteration + 1, nil
		}
	}
}

// pullCounts reads a counting pull's length record (WG_EMIT_COUNT: the
// vertices left active and their out-edges), checking it against |V|.
func pullCounts(e *Enactment, lens kernels.DevPtr) ([lenWords]uint32, error) {
	var length [lenWords]uint32
	if err := kernels.Download(e.Dev, length[:], lens); err != nil {
		return length, err
	}
	if n := e.Problem.Graph.NumVertices(); int(length[lenActive]) > n {
		return length, fmt.Errorf("a pull left %d of %d vertices active: a kernel wrote out of bounds", length[lenActive], n)
	}
	return length, nil
}

// pullsDone is the rule that ends a run of pulls: the vertices left active
// hold at most the pull fraction of the edges.
func pullsDone(e *Enactment, length [lenWords]uint32) bool {
	return float64(length[lenEdges]) <= listTuningOf(e.Variant).PullFraction*float64(e.Problem.Graph.NumEdges())
}

// simdxScan rebuilds list i from the stamps with a scan filter; it
// rewrites the lengths and edge count and keeps the compute phase's
// overflow records (words 4 and 5).
func simdxScan(e *Enactment, st *simdxState, it *IterationStats, i int, stamp uint32, mode string) error {
	n, t := e.Problem.Graph.NumVertices(), listTuningOf(e.Variant)
	medium, large := uint32(t.MediumFrom), uint32(t.LargeFrom)
	ks := [2]*kernels.Kernel{}
	for j, name := range []string{"simdx_scan_count", "simdx_scan_write"} {
		k, err := kernels.Lookup(name)
		if err != nil {
			return err
		}
		ks[j] = k
	}
	e.Buffers.Zero(st.lens[i], 4*(lenEdges+1), "frontier lengths")
	if err := e.Buffers.Err(); err != nil {
		return err
	}
	if err := e.launch(it, ks[0], st.vertexGrid, e.out.offsets, uint32(n), st.queued, stamp, st.ctaCounts, scanModes[mode], medium, large); err != nil {
		return err
	}
	return e.launch(it, ks[1], st.vertexGrid, e.out.offsets, uint32(n), st.queued, stamp, st.ctaCounts, scanModes[mode], st.lists[i], st.lens[i], medium, large)
}

// simdxLocalRounds runs push rounds of a small frontier in CTA 0 alone
// (local=cta; the frontier fits localMax vertices and 4 x localMax edges):
// one launch instead of take, push and filter launches and a read-back per
// round. It returns the iteration to continue from with the frontier back in
// the current lists, or -1 when the frontier emptied.
func simdxLocalRounds(e *Enactment, st *simdxState, local *kernels.Kernel, iteration int) (int, error) {
	t := listTuningOf(e.Variant)
	it := IterationStats{Iteration: iteration, Phases: "local", Direction: "push", Filter: "cta"}
	args := append(e.accArgs(e.out, iteration), st.lists[st.cur], st.lens[st.cur], st.queued, st.control, st.log,
		uint32(st.maxLog), uint32(localMax), uint32(e.Problem.MaxIterations), uint32(t.MediumFrom), uint32(t.LargeFrom))
	if err := e.launch(&it, local, 1, args...); err != nil {
		return 0, err
	}
	var control [ctlWords]uint32
	if err := kernels.Download(e.Dev, control[:], st.control); err != nil {
		return 0, err
	}
	reached, outcome := int(control[ctlLocalIter]), control[ctlLocalOutcome]
	if reached >= e.Problem.MaxIterations {
		return 0, e.iterationLimit(reached)
	}
	// One row per round from CTA 0's log; the launch's time goes on the first.
	log := make([]uint32, logWords*st.maxLog)
	if err := kernels.Download(e.Dev, log, st.log); err != nil {
		return 0, err
	}
	for i := iteration; i < reached; i++ {
		rec := log[logWords*i:]
		row := IterationStats{Iteration: i, Phases: "local", Direction: "push", Filter: "cta", FrontierIn: int(rec[0]), FrontierOut: int(rec[1])}
		if i == iteration {
			row.Launches, row.Stats = it.Launches, it.Stats
		}
		e.record(row)
	}
	switch outcome {
	case 0:
		return -1, nil
	case 2: // the frontier outgrew CTA 0's queue: the last round's stamps list it
		scan := IterationStats{Iteration: reached - 1, Phases: "ballot", Direction: "-", Filter: "ballot"}
		if err := simdxScan(e, st, &scan, st.cur, control[ctlLocalStamp], "ballot"); err != nil {
			return 0, err
		}
		e.record(scan)
	}
	return reached, nil
}

// simdxGridKernel is the kernel whose occupancy sizes the grid: the push
// phase, or the fused kernel (which needs more registers) when fused.
func simdxGridKernel(e *Enactment) (*kernels.Kernel, error) {
	switch e.Variant.Get("fusion") {
	case "all":
		return e.Kernel("run")
	case "pushpull":
		return e.Kernel("push")
	}
	return kernels.Lookup(e.Algorithm.Kernel + "_simdx_none_push")
}

// Fused loop state (simdx.cuh).
const (
	ctlIteration, ctlCurrent, ctlWhy, ctlFilter, ctlDirection = 0, 1, 2, 3, 4
	ctlWords                                                  = 8
	// CTA 0's small-frontier rounds (simdx.cuh, WG_CTL_LOCAL_*): the
	// iteration reached, the outcome (0 frontier empty, 1 handed back, 2
	// outgrew the queue) and the last round's stamp.
	ctlLocalIter, ctlLocalOutcome, ctlLocalStamp = 5, 6, 7
	logWords                                     = 8
)

var filterCodes = map[string]uint32{"online": 0, "ballot": 1, "batch": 2, "strided": 3, "atomic": 4, "jit": 5}

// filterNames names the fused log's filter codes; 6 is a level CTA 0 ran
// alone (local=cta).
var filterNames = []string{"online", "ballot", "batch", "strided", "atomic", "jit", "cta"}

// localMax is the frontier CTA 0 may run alone (WG_LOCAL_MAX).
const localMax = 1024

func simdxPrepareFused(e *Enactment, st *simdxState) error {
	b := e.Buffers
	kind := e.Variant.Get("barrier")
	words, err := BarrierStateWords(kind, st.grid)
	if err != nil {
		return err
	}
	st.maxLog = e.Problem.MaxIterations + 1
	st.control = b.Uint32s(ctlWords, "fused loop control")
	st.log = b.Uint32s(logWords*st.maxLog, "fused iteration log")
	st.barrier = b.Uint32s(words, "barrier state")
	if err := b.Err(); err != nil {
		return err
	}
	spin, err := e.spinOn(e.Dev)
	st.spin = spin
	return err
}

// simdxFused runs the loop in persistent kernels: one launch for fusion=all,
// one per run of iterations in the same direction for pushpull (the kernel
// leaves when the direction changes and the host launches the other).
func simdxFused(e *Enactment, st *simdxState, ks map[string]*kernels.Kernel) error {
	p, t := e.Problem, listTuningOf(e.Variant)
	in := e.out
	if e.Algorithm.Pullable && e.Variant.Get("direction") == "auto" {
		var err error
		if in, err = e.inEdges(); err != nil {
			return err
		}
	}
	kind := e.Variant.Get("barrier")
	var barrierCode uint32
	for i, k := range BarrierKinds {
		if k == kind {
			barrierCode = uint32(i)
		}
	}
	directionMode := uint32(0)
	if e.Algorithm.Pullable && e.Variant.Get("direction") == "auto" {
		directionMode = 1
	}
	filter := e.Variant.Get("filter")
	first := filterCodes[filter]
	if filter == "jit" {
		first = filterCodes["online"]
	}
	// The first frontier of algorithms without a start list, as fusion=none
	// builds it (activate, then a ballot scan).
	if p.Start == nil {
		it := IterationStats{Iteration: -1, Phases: "activate+ballot", Filter: "ballot"}
		if err := e.launch(&it, ks["activate"], st.vertexGrid, append(e.accArgs(e.out, 0), st.queued, uint32(1))...); err != nil {
			return err
		}
		if err := simdxScan(e, st, &it, 0, 1, "ballot"); err != nil {
			return err
		}
		e.record(it)
	}
	var start [lenWords]uint32
	if err := kernels.Download(e.Dev, start[:], st.lens[0]); err != nil {
		return err
	}
	direction := uint32(0)
	if directionMode == 1 && float64(start[lenEdges]) > t.PullFraction*float64(p.Graph.NumEdges()) {
		direction = 1
	}
	control := [ctlWords]uint32{ctlFilter: first, ctlDirection: direction}
	e.Buffers.Upload(st.control, rawBytes(control[:]), "fused loop control")
	e.Buffers.Zero(st.barrier, 4*barrierWords(kind, st.grid), "barrier state")
	if err := e.Buffers.Err(); err != nil {
		return err
	}
	pullEdges := uint32(min(t.PullFraction*float64(p.Graph.NumEdges()), float64(^uint32(0))))
	maxIter := uint32(p.MaxIterations)
	local := uint32(0)
	if e.Variant.Get("local") == "cta" {
		local = localMax
	}
	// Buckets: the kernel raises the bound when a frontier empties.
	var bucketWords kernels.DevPtr
	var bucketDelta uint32
	if b := p.Buckets; b != nil {
		bucketWords, bucketDelta = b.Bound.Ptr(), b.Delta
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(st.grid), Block: kernels.D1(e.Options.Block), Cooperative: BarrierCooperative(kind)}
	launches := 0
	for {
		name := "run"
		if e.Variant.Get("fusion") == "pushpull" {
			name = "push"
			if control[ctlDirection] == 1 {
				name = "pull"
			}
		}
		k, err := e.Kernel(name)
		if err != nil {
			return err
		}
		args := append(e.accArgs(e.out, int(control[ctlIteration])), in.offsets, in.targets, in.weights,
			st.lists[0], st.lens[0], st.bins, st.binCount, st.ctaCounts, st.queued, st.pullLists, st.pullLen,
			st.control, st.log, uint32(st.maxLog), uint32(t.BinSize), uint32(t.MediumFrom), uint32(t.LargeFrom),
			pullEdges, filterCodes[filter], directionMode, maxIter, local, bucketWords, bucketDelta, st.barrier, barrierCode)
		stats, err := st.spin.Launch(e.Ctx, k, cfg, args...)
		if err != nil {
			return fmt.Errorf("fused %s launch %d: %w", k.Name, launches+1, err)
		}
		launches++
		e.total.Add(stats)
		e.launches++
		if err := kernels.Download(e.Dev, control[:], st.control); err != nil {
			return err
		}
		switch control[ctlWhy] {
		case 0:
			return e.recordFusedLog(st, int(control[ctlIteration]))
		case 2:
			return fmt.Errorf("no convergence after %d iterations", control[ctlIteration])
		case 1: // direction change: launch the other kernel
			if launches > 2*p.MaxIterations {
				return fmt.Errorf("fused kernels relaunched %d times without converging", launches)
			}
		default:
			return fmt.Errorf("fused kernel %s left with an unknown reason %d", k.Name, control[ctlWhy])
		}
	}
}

// barrierWords is BarrierStateWords for a kind and grid already checked.
func barrierWords(kind string, grid int) int {
	w, _ := BarrierStateWords(kind, grid)
	return w
}

// recordFusedLog turns the fused kernels' per-iteration log into
// iteration statistics (no per-iteration times: the iterations ran inside
// the launches, whose totals the run already holds).
func (e *Enactment) recordFusedLog(st *simdxState, iterations int) error {
	count := min(iterations, st.maxLog)
	log := make([]uint32, logWords*max(count, 1))
	if err := kernels.Download(e.Dev, log, st.log); err != nil {
		return err
	}
	for i := range count {
		rec := log[logWords*i:]
		filter := "?"
		if int(rec[2]) < len(filterNames) {
			filter = filterNames[rec[2]]
		}
		direction := "push"
		if rec[4] == 1 {
			direction = "pull"
		}
		phases := "fused"
		if filter == "cta" {
			phases = "fused, CTA 0 alone"
		}
		e.iterations = append(e.iterations, IterationStats{Iteration: i, Phases: phases, Direction: direction,
			Filter: filter, Overflow: rec[3] != 0, FrontierIn: int(rec[0]), FrontierOut: int(rec[1])})
	}
	return nil
}

// pullThenPushEntry is the host-driven SIMD-X entry of a's phase, which
// the pull-then-push form's pulls and pushes are (a task form may start
// with the same pulls).
func pullThenPushEntry(a *Algorithm, phase string) (*kernels.Kernel, error) {
	return kernels.Lookup(fmt.Sprintf("%s_simdx_none_%s", a.Kernel, phase))
}

// listTuning are the numeric settings of degree-classified lists and of
// direction switching: the simdx keys bin, medium, large and pull (atos
// has pull alone, for PageRank's prelude; the rest take their defaults).
type listTuning struct {
	// BinSize is the online filter's thread bin (entries per thread).
	BinSize int
	// MediumFrom and LargeFrom are the out-degrees from which a vertex is
	// processed by a warp and by a CTA.
	MediumFrom, LargeFrom int
	// PullFraction switches to pull when the frontier's out-edges exceed
	// this fraction of all edges (Ligra's rule).
	PullFraction float64
}

func listTuningOf(v Variant) listTuning {
	number := func(key string, def float64) float64 {
		if v.Get(key) == "" {
			return def
		}
		return v.Number(key)
	}
	return listTuning{BinSize: int(number("bin", 64)), MediumFrom: int(number("medium", 32)),
		LargeFrom: int(number("large", 256)), PullFraction: number("pull", 0.3)}
}

// pullFractionKey is the pull fraction's key of simdx and atos.
var pullFractionKey = Key{Name: "pull", About: "pull while the frontier's out-edges exceed this fraction of all edges (Ligra's rule)",
	Default: "0.3", Quiet: true, Range: &KeyRange{Min: 0, Max: 1, OpenMin: true}}
