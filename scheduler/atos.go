package scheduler

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/warpgraph/warpgraph/kernels"
)

// The task-parallel scheduler of Atos (kernels/lib/atos.cuh): one task queue
// in device memory, workers that pop FETCH tasks with one atomic and push
// what they activate, and no barrier between levels or sweeps.
//
//	mode=persistent  one launch of co-resident workers; the workers detect
//	                 termination themselves (a pending-task counter), under
//	                 the spin protocol.
//	mode=discrete    one launch per queue generation (the tasks the previous
//	                 launch pushed); the host reads the tail in between.
//	worker=cta|warp  a CTA with load-balancing search over its tasks' edges,
//	                 or a warp with one task per lane.
//	fetch=auto|N     tasks per pop; auto is 32 (measured best on the H100),
//	                 or the problem's Tasks.Fetch for CTA workers (colouring).
//	launch=fit|grid  persistent workers: as many as the graph's vertices
//	                 could keep busy at once, or the co-resident grid.
//
// Buckets (delta-stepping, coreness's levels) run on the host's bucket loop:
// an admission launch queues the bucket's first tasks, the workers drain
// it, and the loop raises the bound; the queue's slots stay in use once
// each, so a bucket's workers start where its admission pass began.
//
// An algorithm runs under Atos when its module has the entries
// (WG_ATOS_ENTRIES, or its own for a custom problem such as colouring).
func init() {
	RegisterScheduler(&Scheduler{
		Name:  "atos",
		About: "task-parallel (Atos): a global task queue, persistent or per-generation launches, no level barrier",
		Keys: []Key{
			{Name: "mode", About: "persistent: one launch until the queue drains; discrete: one launch per queue generation",
				Values: []string{"persistent", "discrete"}, Default: "persistent"},
			{Name: "worker", About: "cta: a CTA pops and balances edges over its threads; warp: a warp pops, one task per lane",
				Values: []string{"cta", "warp"}, Default: "cta"},
			{Name: "fetch", About: "tasks per pop (auto: 32, the H100's best for both workers, except where the problem names its own: colouring's CTA workers pop 128)",
				Values: []string{"auto", "8", "32", "128", "512"}, Default: "auto"},
			{Name: "local", About: "persistent CTA workers: on keeps the tasks a worker creates in shared memory and runs them itself (up to local_rounds rounds of a CTA's worth) before retiring its pop, so a chain of dependent tasks skips the global queue",
				Values: []string{"off", "on"}, Default: "off"},
			{Name: "local_rounds", About: "local=on: how many rounds a CTA worker runs the tasks it created before it hands the rest to the global queue; more keeps a chain of dependent tasks (a peeling or a mesh's wave) in one CTA longer, fewer lets other workers share a growing frontier sooner",
				Default: strconv.Itoa(atosLocalRounds), Quiet: true, Range: &KeyRange{Min: 1, Max: atosMaxLocalRounds, Whole: true}},
			{Name: "dedup", About: "on: a vertex improved again while its task waits is not queued twice (a flag per vertex: a load and an exchange per push, an exchange per pop); off: every improvement queues a task, and with local=on a task kept local skips the push's fence (fewer round trips per level on meshes). Colouring deduplicates its own way and ignores it",
				Values: []string{"on", "off"}, Default: "on", Quiet: true},
			{Name: "backoff", About: "persistent workers: nanoseconds a worker sleeps (nanosleep) after a poll of the queue that finds no task, so idle workers leave the SM's issue slots to busy ones; 0 polls again at once. The default costs the H100 nothing measurable and makes an idle queue cheaper to simulate (results/atos-backoff)",
				Default: strconv.Itoa(atosDefaultBackoffNs), Quiet: true, Range: &KeyRange{Min: 0, Max: atosMaxBackoffNs, Whole: true}},
			{Name: "backoff_doublings", About: "persistent workers: how many times the back-off sleep doubles while a worker's polls find the queue standing still (its tail and pending count unchanged), from backoff's nanoseconds; a move of the queue starts it over; 0: every sleep is backoff's. The default costs the H100 nothing measurable and makes launches whose workers mostly idle cheaper to simulate (results/atos-backoff-doublings)",
				Default: strconv.Itoa(atosDefaultBackoffDoublings), Quiet: true, Range: &KeyRange{Min: 0, Max: atosMaxBackoffDoublings, Whole: true}},
			{Name: "capacity", About: "the task queue's capacity in tasks, an overflow then failing the run; 0: sized from the graph, doubled and the run restarted on overflow",
				Default: "0", Quiet: true, Range: &KeyRange{Min: 0, Max: atosMaxCapacity, Whole: true}},
			{Name: "launch", About: "persistent workers: fit launches the CTAs of workers that the graph's vertices could keep busy at once (vertices ÷ (fetch × workers a CTA), rounded up; at most the co-resident grid; colouring's CTA workers keep the co-resident grid, measured faster), grid launches the co-resident grid",
				Values: []string{"fit", "grid"}, Default: "fit", Quiet: true},
			pullFractionKey,
		},
		Forms:      []Form{Tasks, ACC},
		Offers:     map[Capability]func(Variant) error{Buckets: func(Variant) error { return nil }, Partitioned: atosPeersOffer},
		Supports:   atosSupports,
		Prepare:    atosPrepare,
		Reset:      atosReset,
		Run:        atosRun,
		Collect:    atosCollect,
		CoLaunches: func(Variant) bool { return true }, // its workers across devices
		Label:      func(v Variant) string { return v.Get("worker") },
		Variants: []string{
			"atos",
			"atos:worker=warp",
			"atos:mode=discrete",
			"atos:mode=discrete,worker=warp,fetch=8",
			"atos:worker=warp,fetch=128",
			"atos:fetch=32",
			"atos:mode=discrete,fetch=512",
			"atos:local=on",
			"atos:local=on,dedup=off",
			"atos:launch=grid",
		},
	})
}

// Words of the queue's control block (kernels/lib/atos.cuh, WG_Q_*).
const (
	atosHead, atosTail, atosPending                                           = 0, 32, 64
	atosOverflow                                                              = 160
	atosPops, atosFailed, atosMaxOccupancy, atosEdges, atosCounted, atosLocal = 192, 193, 194, 195, 196, 197
	atosControlWords                                                          = 224
	// atosMaxCapacity bounds the queue's growth (16 GiB of tasks).
	atosMaxCapacity = 1<<32 - 1
	// atosMaxBackoffNs is nanosleep's ceiling (1 ms); the default is the
	// key's (results/atos-backoff).
	atosMaxBackoffNs, atosDefaultBackoffNs = 1_000_000, 256
	// atosMaxBackoffDoublings bounds backoff_doublings; the kernel takes
	// it in the back-off argument's bits from atosBackoffShift
	// (WG_ATOS_BACKOFF_SHIFT in kernels/lib/atos.cuh).
	atosMaxBackoffDoublings, atosBackoffShift = 10, 24
	atosDefaultBackoffDoublings               = 3
)

// QueueOverflowError is a task queue that filled up: pushes past its
// capacity were lost, so the run's result is not valid.
type QueueOverflowError struct {
	Kernel   string
	Pushed   uint64
	Capacity int
	Detail   string
}

func (e *QueueOverflowError) Error() string {
	return fmt.Sprintf("task queue overflow in %s: %d tasks pushed into a queue of %d; %s", e.Kernel, e.Pushed, e.Capacity, e.Detail)
}

// atosLocalRounds is local_rounds's default: the rounds a CTA worker runs
// its own tasks (key local) before it hands the rest to the global queue.
const atosLocalRounds, atosMaxLocalRounds = 64, 1 << 20

func atosSupports(a *Algorithm, v Variant) error {
	if v.Get("pull") != pullFractionKey.Default && a.Combine != Aggregation {
		return fmt.Errorf("pull=%s: atos pulls only in an aggregation's prelude (%s votes)", v.Get("pull"), a.Name)
	}
	if v.Get("local") == "on" && (v.Get("mode") != "persistent" || v.Get("worker") != "cta") {
		return fmt.Errorf("local=on is for persistent CTA workers (mode=persistent,worker=cta)")
	}
	if v.Int("local_rounds") != atosLocalRounds && v.Get("local") != "on" {
		return fmt.Errorf("local_rounds=%d is for local=on: without it a worker keeps none of its tasks", v.Int("local_rounds"))
	}
	if v.Int("backoff") != atosDefaultBackoffNs && v.Get("mode") != "persistent" {
		return fmt.Errorf("backoff=%s is for persistent workers (mode=persistent): discrete workers never wait", v.Get("backoff"))
	}
	d := v.Int("backoff_doublings")
	if d != atosDefaultBackoffDoublings && v.Get("mode") != "persistent" {
		return fmt.Errorf("backoff_doublings=%d is for persistent workers (mode=persistent): discrete workers never wait", d)
	}
	if longest := v.Int("backoff") << d; longest > atosMaxBackoffNs {
		return fmt.Errorf("backoff=%d doubled %d times sleeps %d ns, past nanosleep's %d", v.Int("backoff"), d, longest, atosMaxBackoffNs)
	}
	name := fmt.Sprintf("%s_atos_%s_persist", a.Kernel, v.Get("worker"))
	if _, err := kernels.Lookup(name); err != nil {
		return fmt.Errorf("%s has no task-parallel form (no entry %s): its updates need a level barrier", a.Name, name)
	}
	if slices.Contains(a.Requires, Buckets) {
		if _, err := kernels.Lookup(a.Kernel + atosAdmitEntry); err != nil {
			return fmt.Errorf("%s's buckets have no admission entry under the task queue (%s%s)", a.Name, a.Kernel, atosAdmitEntry)
		}
	}
	return nil
}

// atosAdmitEntry ends the name of a bucket's admission entry
// (WG_ATOS_BUCKET_ENTRIES).
const atosAdmitEntry = "_atos_base_admit"

type atosState struct {
	items, control kernels.DevPtr
	// queued is 1 per vertex while a task of it waits (atos.cuh: a vertex
	// improved again meanwhile is not queued twice); colouring ignores it.
	queued   kernels.DevPtr
	capacity int
	// fixed: the capacity was asked for (the capacity key),
	// so an overflow is an error instead of a retry with a larger queue.
	fixed bool
	spin  *Spin
	fetch int
	// first is how many tasks the queue held when the workers started
	// (the problem's start list, or what its prelude queued; with buckets,
	// what the admission passes queued); prelude is the prelude's work in
	// edges walked.
	first   int
	prelude float64
	// head is the slot of the running bucket's first task (0 without
	// buckets): its workers draw tickets from there.
	head int
}

// queuedFlags is the workers' deduplication flags, or none under dedup=off.
func (st *atosState) queuedFlags(e *Enactment) kernels.DevPtr {
	if e.Variant.Get("dedup") == "off" {
		return 0
	}
	return st.queued
}

// atosAutoFetch is fetch=auto's pop: on the H100 (results/atos-h100,
// fetch-6009680.jsonl) CTA workers popping 32 tasks beat popping a CTA's
// worth (256) by 2x on rmat20 BFS and PageRank and on grid1000 BFS: small
// pops reach new tasks sooner and speculate less.
const atosAutoFetch = 32

func atosFetch(e *Enactment) int {
	f := e.Variant.Get("fetch")
	if f == "auto" {
		if e.Problem.Tasks.Fetch > 0 && e.Variant.Get("worker") == "cta" {
			return e.Problem.Tasks.Fetch
		}
		return atosAutoFetch
	}
	n, _ := strconv.Atoi(f) // the key's values are numbers
	return n
}

func atosPrepare(e *Enactment) error {
	// Given a system, workers that run across devices do so on any number
	// of them, one included: the same code at every count (sweep multigpu).
	if sys := e.Options.System; sys != nil && (len(sys.Devices()) > 1 || atosPeersOffer(e.Variant) == nil) {
		return atosPeersPrepare(e, sys)
	}
	n := e.Problem.Graph.NumVertices()
	st := &atosState{fetch: atosFetch(e)}
	e.bucketNote()
	if c := e.Variant.Int("capacity"); c > 0 {
		if c < len(e.Problem.Start) {
			return fmt.Errorf("queue capacity %d is smaller than the %d first tasks", c, len(e.Problem.Start))
		}
		st.capacity, st.fixed = c, true
	} else {
		// Room for every vertex four times over: speculative BFS and SSSP
		// push a vertex about once or twice; PageRank's residual push
		// grows the queue on its first run (a retry, noted).
		st.capacity = max(4*n+len(e.Problem.Start), 1024)
	}
	st.items = e.Buffers.Uint32s(st.capacity, "task queue")
	st.control = e.Buffers.Uint32s(atosControlWords, "task queue control")
	st.queued = e.Buffers.Uint32s(n, "queued flags")
	if err := e.Buffers.Err(); err != nil {
		return err
	}
	if e.Variant.Get("mode") == "persistent" {
		spin, err := e.spinOn(e.Dev)
		if err != nil {
			return err
		}
		st.spin = spin
	}
	e.State = st
	if p := e.Problem.Tasks.Prelude; p != nil {
		if _, err := kernels.Lookup(e.Algorithm.Kernel + "_atos_base_seed"); err != nil {
			return fmt.Errorf("%s's prelude needs a seeding entry: %w", e.Algorithm.Name, err)
		}
		return p.Prepare(e)
	}
	return nil
}

// atosReset empties the queue and queues the problem's first tasks (every
// vertex when it has no start list: the algorithm's active() decides
// nothing here, as every vertex of WCC and PageRank starts active).
func atosReset(e *Enactment) error {
	if _, ok := e.State.(*atosPeersState); ok {
		return atosPeersReset(e)
	}
	st := e.State.(*atosState)
	b := e.Buffers
	start := e.Problem.Start
	if start == nil && e.Problem.Buckets != nil {
		// The first bucket's admission pass queues the first tasks.
		start = []uint32{}
	}
	if start == nil {
		start = make([]uint32, e.Problem.Graph.NumVertices())
		for v := range start {
			start[v] = uint32(v)
		}
	}
	b.Fail(e.Dev.Memset(st.items, 0xFF, 4*st.capacity), "task queue")
	b.Upload(st.items, rawBytes(start), "first tasks")
	control := make([]uint32, atosControlWords)
	control[atosTail], control[atosPending] = uint32(len(start)), uint32(len(start))
	st.first, st.prelude, st.head = len(start), 0, 0
	b.Upload(st.control, rawBytes(control), "task queue control")
	b.Zero(st.queued, 4*e.Problem.Graph.NumVertices(), "queued flags")
	if err := b.Err(); err != nil {
		return err
	}
	return e.startBuckets()
}

func atosRun(e *Enactment) error {
	if _, ok := e.State.(*atosPeersState); ok {
		return atosPeersRun(e)
	}
	p := e.Problem
	if p.Graph.NumVertices() == 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		if p.Tasks.Prelude != nil {
			if err := atosPrelude(e); err != nil {
				return err
			}
		}
		var err error
		switch {
		case p.Buckets != nil:
			err = atosBuckets(e)
		case e.Variant.Get("mode") == "persistent":
			err = atosPersistent(e)
		default:
			err = atosDiscrete(e)
		}
		var overflow *QueueOverflowError
		if !errors.As(err, &overflow) {
			if err != nil {
				return err
			}
			break
		}
		if err := atosGrow(e, overflow); err != nil {
			return err
		}
	}
	return finishRun(e)
}

// atosPrelude runs the problem's prelude and queues the vertices it left
// stamped (<kernel>_atos_base_seed: one atomic per warp on the tail).
func atosPrelude(e *Enactment) error {
	st := e.State.(*atosState)
	f, err := e.Problem.Tasks.Prelude.Run(e)
	if err != nil {
		return err
	}
	st.prelude = f.Edges
	if f.Active == 0 {
		return nil
	}
	k, err := kernels.Lookup(e.Algorithm.Kernel + "_atos_base_seed")
	if err != nil {
		return err
	}
	n := e.Problem.Graph.NumVertices()
	grid, err := e.gridStrideGrid(k, n)
	if err != nil {
		return err
	}
	it := IterationStats{Iteration: len(e.iterations), Phases: "seed", Direction: "-", FrontierIn: n, FrontierOut: f.Active}
	if err := e.launch(&it, k, grid, st.items, uint32(st.capacity), st.control, f.Stamps, f.Stamp, uint32(n)); err != nil {
		return err
	}
	e.record(it)
	tail, err := e.readCount(st.control+kernels.DevPtr(4*atosTail), st.capacity, "the seeded queue's tail")
	if err != nil {
		return err
	}
	if tail != st.first+f.Active {
		return fmt.Errorf("the prelude stamped %d vertices but %d were queued: a kernel wrote out of bounds", f.Active, tail-st.first)
	}
	st.first = tail
	return nil
}

// atosGrow replaces an overflowed queue by one twice the size and restarts
// the run from the problem's initial state; the timed run includes the
// failed attempt, and the note says so (later repetitions start with the
// larger queue).
func atosGrow(e *Enactment, overflow *QueueOverflowError) error {
	st := e.State.(*atosState)
	if st.fixed || st.capacity >= atosMaxCapacity/2 {
		if st.fixed {
			overflow.Detail = "the capacity was fixed (atos:capacity=N); give a larger one or 0 to let the queue grow"
		} else {
			overflow.Detail = "the queue cannot grow further"
		}
		return overflow
	}
	st.capacity = min(2*max(st.capacity, int(overflow.Pushed)), atosMaxCapacity)
	st.items = e.Buffers.Uint32s(st.capacity, "task queue")
	if err := e.restartRun(fmt.Sprintf("the task queue overflowed (%d tasks pushed) and the run restarted with room for %d; that run's time includes the failed attempt", overflow.Pushed, st.capacity)); err != nil {
		return err
	}
	return atosReset(e)
}

// restartRun starts the run again from the problem's initial state (its
// metadata on the first device, no iterations or figures recorded), the
// note saying why.
func (e *Enactment) restartRun(note string) error {
	e.Notes = append(e.Notes, note)
	for _, m := range e.Problem.Meta {
		e.Buffers.Upload(m.ptr, m.init, e.Algorithm.Name+" "+m.Name)
	}
	e.iterations, e.total, e.launches, e.statistics = nil, kernels.LaunchStats{}, 0, nil
	return e.Buffers.Err()
}

// atosPersistent is one launch of a co-resident grid of workers.
func atosPersistent(e *Enactment) error {
	it := IterationStats{Iteration: len(e.iterations), Phases: "persist", Direction: "push", FrontierIn: e.State.(*atosState).first}
	control, err := atosPersistentLaunch(e, &it)
	if err != nil {
		return err
	}
	atosRecord(e, &it, control)
	e.record(it)
	return nil
}

// atosPersistentLaunch runs the workers until the queue drains, from the
// ticket st.head, and returns the queue's control block.
func atosPersistentLaunch(e *Enactment, it *IterationStats) ([]uint32, error) {
	st := e.State.(*atosState)
	k, err := e.Kernel("persist")
	if err != nil {
		return nil, err
	}
	fit := e.Variant.Get("launch") == "fit" && (e.Variant.Get("worker") == "warp" || !e.Problem.Tasks.ResidentCTAWorkers)
	grid, err := atosWorkerGrid(e, k, fit, e.Problem.Graph.NumVertices(), st.fetch)
	if err != nil {
		return nil, err
	}
	if st.head > 0 {
		// Tickets drawn past the last bucket's tasks were never filled.
		e.Buffers.Upload(st.control+kernels.DevPtr(4*atosHead), rawBytes([]uint32{uint32(st.head)}), "task queue head")
		if err := e.Buffers.Err(); err != nil {
			return nil, err
		}
	}
	localRounds := uint32(0)
	if e.Variant.Get("local") == "on" {
		localRounds = uint32(e.Variant.Int("local_rounds"))
	}
	args := append(e.accArgs(e.out, 0), st.items, uint32(st.capacity), st.control, st.queuedFlags(e), uint32(st.fetch), localRounds,
		uint32(e.Variant.Int("backoff"))|uint32(e.Variant.Int("backoff_doublings"))<<atosBackoffShift)
	cfg := kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(e.Options.Block)}
	stats, err := st.spin.Launch(e.Ctx, k, cfg, args...)
	if err != nil {
		return nil, fmt.Errorf("persistent workers %s: %w", k.Name, err)
	}
	it.Stats.Add(stats)
	it.Launches++
	control, err := atosControl(e, k.Name)
	if err != nil {
		return nil, err
	}
	if control[atosPending] != 0 {
		return nil, fmt.Errorf("persistent workers %s left with %d tasks pending and no abort: the queue's termination protocol is broken", k.Name, control[atosPending])
	}
	return control, nil
}

// atosWorkerGrid is the grid of persistent workers: the co-resident grid,
// or Options.Grid (refused past it: a launch-resource error, exit status 7,
// as for a cooperative grid that is too large), or with fit (launch=fit)
// the CTAs of workers that vertices tasks could keep busy at once: with
// deduplicated tasks at most one task a vertex waits at a time, so workers
// past vertices ÷ (fetch × workers a CTA) could never all hold a full pop;
// they would only poll the queue.
func atosWorkerGrid(e *Enactment, k *kernels.Kernel, fit bool, vertices, fetch int) (int, error) {
	limit, err := CoResidentGrid(e.Dev, k, e.Options.Block, 0)
	if err != nil {
		return 0, err
	}
	if g := e.Options.Grid; g > 0 {
		if g > limit {
			return 0, &kernels.LaunchResourceError{Kernel: k.Name, Detail: fmt.Sprintf(
				"persistent mode needs co-resident workers: a grid of %d CTAs exceeds the %d that fit the device at once", g, limit)}
		}
		return g, nil
	}
	if !fit {
		return limit, nil
	}
	perCTA := atosTasksPerCTA(e, fetch)
	return max(1, min(limit, (vertices+perCTA-1)/perCTA)), nil
}

// atosTasksPerCTA is how many tasks one pop of each of a CTA's workers
// takes: fetch, times a warp's worth of workers a CTA under worker=warp.
func atosTasksPerCTA(e *Enactment, fetch int) int {
	if e.Variant.Get("worker") == "warp" {
		return fetch * e.Options.Block / e.Dev.Properties().WarpSize
	}
	return fetch
}

// atosDiscrete launches one kernel per generation of the queue.
func atosDiscrete(e *Enactment) error {
	control, _, err := atosDiscreteDrain(e, 0, e.State.(*atosState).first, 0)
	if err != nil {
		return err
	}
	if len(e.iterations) > 0 {
		last := &e.iterations[len(e.iterations)-1]
		atosRecord(e, last, control)
	}
	return nil
}

// atosDiscreteDrain runs the generations from slots [begin, end) until the
// queue drains (atosGenerations) and returns the queue's control block and
// the next generation's number.
func atosDiscreteDrain(e *Enactment, begin, end, generation int) ([]uint32, int, error) {
	next, err := atosGenerations(e, begin, end, generation)
	if err != nil {
		return nil, 0, err
	}
	k, err := e.Kernel("discrete")
	if err != nil {
		return nil, 0, err
	}
	control, err := atosControl(e, k.Name)
	return control, next, err
}

// atosGenerations launches one kernel per generation of the queue, the
// first generation's tasks in slots [begin, end), and returns the number
// the next generation takes. Generations are numbered on across buckets:
// a launch clears the ticket counter of the other parity, which the next
// generation draws from.
func atosGenerations(e *Enactment, begin, end, generation int) (int, error) {
	st := e.State.(*atosState)
	k, err := e.Kernel("discrete")
	if err != nil {
		return 0, err
	}
	limit, err := CoResidentGrid(e.Dev, k, e.Options.Block, 0)
	if err != nil {
		return 0, err
	}
	perCTA := atosTasksPerCTA(e, st.fetch)
	for ; begin < end; generation++ {
		if err := e.iterationLimit(generation); err != nil {
			return 0, err
		}
		tasks := end - begin
		grid := e.Options.Grid
		if grid == 0 {
			grid = max(1, min(limit, (tasks+perCTA-1)/perCTA))
		}
		it := IterationStats{Iteration: len(e.iterations), Phases: "discrete", Direction: "push", FrontierIn: tasks}
		args := append(e.accArgs(e.out, generation), st.items, uint32(st.capacity), st.control, st.queuedFlags(e), uint32(st.fetch), uint32(0),
			uint32(generation), uint32(begin), uint32(end))
		if err := e.launch(&it, k, grid, args...); err != nil {
			return 0, err
		}
		var tail [1]uint32
		if err := kernels.Download(e.Dev, tail[:], st.control+kernels.DevPtr(4*atosTail)); err != nil {
			return 0, err
		}
		if int64(tail[0]) > int64(st.capacity) {
			return 0, &QueueOverflowError{Kernel: k.Name, Pushed: uint64(tail[0]), Capacity: st.capacity}
		}
		begin, end = end, int(tail[0])
		it.FrontierOut = end - begin
		e.record(it)
	}
	return generation, nil
}

// atosBuckets runs the bucket loop: an admission pass queues a bucket's
// first tasks, the workers (persistent, or discrete generations) drain
// the queue, and the loop raises the bound until no vertex waits.
func atosBuckets(e *Enactment) error {
	st := e.State.(*atosState)
	admit, err := kernels.Lookup(e.module() + atosAdmitEntry)
	if err != nil {
		return err
	}
	n := e.Problem.Graph.NumVertices()
	grid, err := e.gridStrideGrid(admit, n)
	if err != nil {
		return err
	}
	tail := st.first
	admission := func(it *IterationStats) (int, error) {
		if err := e.launch(it, admit, grid, append(e.accArgs(e.out, it.Iteration), st.items, uint32(st.capacity), st.control)...); err != nil {
			return 0, err
		}
		control, err := atosControl(e, admit.Name)
		if err != nil {
			return 0, err
		}
		st.head, tail = tail, int(control[atosTail])
		st.first += tail - st.head
		return tail - st.head, nil
	}
	bound := e.Problem.bucketStart()
	size := st.first // the start list, else the first bucket's admission
	if size == 0 {
		first := IterationStats{Iteration: len(e.iterations), Phases: "admit", Direction: "-", Filter: "bucket", FrontierIn: n}
		if size, err = admission(&first); err != nil {
			return err
		}
		first.FrontierOut = size
		e.record(first)
	}
	if size == 0 {
		if size, err = e.nextBucket(len(e.iterations), &bound, admission); err != nil || size == 0 {
			return err
		}
	}
	var control []uint32
	generation := 0
	for {
		if err := e.iterationLimit(len(e.iterations)); err != nil {
			return err
		}
		if e.Variant.Get("mode") == "persistent" {
			it := IterationStats{Iteration: len(e.iterations), Phases: "persist", Direction: "push", FrontierIn: size}
			if control, err = atosPersistentLaunch(e, &it); err != nil {
				return err
			}
			e.record(it)
		} else if control, generation, err = atosDiscreteDrain(e, st.head, tail, generation); err != nil {
			return err
		}
		tail = int(control[atosTail])
		if size, err = e.nextBucket(len(e.iterations), &bound, admission); err != nil {
			return err
		}
		if size == 0 {
			break
		}
	}
	atosRecord(e, &e.iterations[len(e.iterations)-1], control)
	return nil
}

// atosControl downloads the control block and turns an overflow into a
// QueueOverflowError.
func atosControl(e *Enactment, kernel string) ([]uint32, error) {
	st := e.State.(*atosState)
	control := make([]uint32, atosControlWords)
	if err := kernels.Download(e.Dev, control, st.control); err != nil {
		return nil, err
	}
	if control[atosOverflow] != 0 || int64(control[atosTail]) > int64(st.capacity) {
		return nil, &QueueOverflowError{Kernel: kernel, Pushed: uint64(control[atosTail]), Capacity: st.capacity}
	}
	return control, nil
}

// atosRecord reports the queue's statistics: per iteration (the persistent
// launch, or the discrete run's last generation, carrying the totals) and
// for the run, with the overwork once the result is downloaded.
func atosRecord(e *Enactment, it *IterationStats, control []uint32) {
	st := e.State.(*atosState)
	first := st.first
	pushes := float64(control[atosTail]) - float64(first)
	pops, edges := float64(control[atosPops]), float64(control[atosEdges])+st.prelude
	it.Set("queue_pushes", pushes)
	it.Set("queue_pops", pops)
	e.Statistic("queue_pushes", "queue pushes", pushes, fmt.Sprintf("%.0f (after %d first tasks)", pushes, first))
	e.Statistic("queue_pops", "queue pops", pops, fmt.Sprintf("%.0f tasks processed", pops))
	if e.Variant.Get("mode") == "persistent" && e.Variant.Get("worker") == "cta" {
		local := float64(control[atosLocal])
		it.Set("local_tasks", local)
		e.Statistic("local_tasks", "tasks kept local", local, fmt.Sprintf("%.0f run by the CTA that created them (not in pushes)", local))
	}
	if e.Variant.Get("mode") == "persistent" {
		failed, occupancy := float64(control[atosFailed]), float64(control[atosMaxOccupancy])
		it.Set("failed_pops", failed)
		e.Statistic("failed_pops", "failed pops", failed, fmt.Sprintf("%.0f waits with no task ready", failed))
		e.Statistic("max_occupancy", "max queue occupancy", occupancy, fmt.Sprintf("%.0f tasks pending at once", occupancy))
	}
	if st.prelude > 0 {
		e.Statistic("edges_walked", "edges walked", edges, fmt.Sprintf("%.0f (%.0f by the prelude)", edges, st.prelude))
	} else {
		e.Statistic("edges_walked", "edges walked", edges, fmt.Sprintf("%.0f", edges))
	}
	counted := float64(control[atosCounted])
	did := edges
	if e.Problem.Tasks.WorkCounted {
		did = counted
		e.Statistic("assignments", "colour assignments", counted, fmt.Sprintf("%.0f", counted))
	}
	e.overwork(did)
}

// finishRun calls the problem's finalize hook (Problem.Finish).
func finishRun(e *Enactment) error {
	if e.Problem.Finish == nil {
		return nil
	}
	return e.Problem.Finish(e)
}

// launchOverVertices is a finalize hook that launches the named entries
// (full kernel names) once each over every vertex, with a grid-stride loop
// and the ACC parameters, as one iteration.
func launchOverVertices(names ...string) func(e *Enactment) error {
	return func(e *Enactment) error {
		n := e.Problem.Graph.NumVertices()
		it := IterationStats{Iteration: len(e.iterations), Phases: "finish", Direction: "-", FrontierIn: n}
		for _, name := range names {
			k, grid, err := e.gridStrideEntry(name, n)
			if err != nil {
				return err
			}
			if err := e.launch(&it, k, grid, e.accArgs(e.out, 0)...); err != nil {
				return err
			}
		}
		e.record(it)
		return nil
	}
}

// gridStrideEntry looks up the entry name and sizes its grid-stride grid
// over n items.
func (e *Enactment) gridStrideEntry(name string, n int) (*kernels.Kernel, int, error) {
	k, err := kernels.Lookup(name)
	if err != nil {
		return nil, 0, err
	}
	grid, err := e.gridStrideGrid(k, n)
	return k, grid, err
}
