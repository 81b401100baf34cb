// Package timing is the cycle-level timing model of a GPU's streaming
// multiprocessors on akita/v3: it issues the warps of the functional
// executor (sim/exec) one warp-instruction at a time and charges each its
// time, sending global memory traffic through the memory system of
// sim/memsys.
//
// # What it models
//
//   - One akita component per SM (SM). Each has warp slots and CTA slots,
//     and the register file, shared memory and thread capacity that decide
//     residency; a GPU-wide dispatcher starts waiting CTAs round robin over
//     the SMs that have room for them, in grid order.
//   - SMConfig.WarpSchedulers warp schedulers per SM; warp slot w belongs to
//     scheduler w mod WarpSchedulers. Each issues up to IssueWidth
//     warp-instructions per cycle, choosing by loose round-robin (lrr) or
//     greedy-then-oldest (gto), except that a warp whose instruction has
//     waited 1024 cycles for the issue slot or its pipeline goes first, so
//     that spinning warps cannot starve a ready one for good.
//   - A scoreboard per warp: an instruction issues when every register it
//     reads or writes (sources, destinations, the address base and the
//     guard, from the ptx.Inst) has its result. Fixed-latency classes
//     (integer, multiply, divide, float32, float64, special function,
//     warp collectives, parameter loads) make their destinations ready
//     Latency cycles after issue and keep their pipeline busy for Interval
//     cycles. Branches stall their warp for the branch latency.
//   - The load/store unit. Global and local accesses are coalesced from the
//     executor's per-lane addresses into one request per 128-byte line,
//     with a mask of 32-byte sectors (atomics: one request per sector,
//     listing each address with its lane count), queued behind the class's
//     Latency and sent at LSURequestsPerCycle while fewer than
//     MaxOutstandingRequests are in flight. A load's (or an atomic's)
//     destinations become ready when its last response arrives; stores and
//     reductions do not block their warp. A global atomic that ptxas
//     makes one per warp (ptx.WarpAggregatedReductions: 32-bit integer
//     add/min/max/and/or/xor, result unused, address warp-uniform; on the
//     H100 REDUX plus one REDG from one lane) sends one lane's operation,
//     after the warp-collective latency. Local memory goes through L1 at
//     lane-interleaved addresses of a per-warp window.
//   - Shared memory: SharedMemBanks banks of SharedMemBankWidthBytes. A
//     warp's access takes as many passes as its conflict degree (the most
//     distinct words one bank serves; lanes on one word share a
//     broadcast), each extra pass costing SharedPassCycles of latency and of
//     shared-memory occupancy. Shared atomics follow SharedAtomicModel:
//     native (lanes on one address serialise at SharedAtomicNativeCycles
//     each) or lock (Kepler's load-lock / store-unlock loop: one lane per
//     lock per pass, locks held across warps, so the cost grows with
//     contention).
//   - Barriers: a warp that arrives at bar.sync waits until the executor
//     releases the barrier, then Barrier.Latency more. membar and fence
//     wait for the warp's outstanding stores and atomics; those wider than
//     the CTA also invalidate the SM's L1.
//   - A deadlock detector, the executor's (exec.Watchdog, the one the
//     functional mode runs): when no store or atomic changes memory and no
//     warp or CTA starts or finishes for DeadlockWindowCycles while work
//     remains, and every running warp keeps returning to the same state
//     (registers less those read from %clock), or when no warp can ever
//     issue again, the launch ends with a *kernels.DeadlockError naming
//     where every resident warp spins or waits (the loads, atomics and
//     clock reads it polls, each with PTX line, source position and
//     instruction), the CTAs still waiting and the resource that keeps
//     them out of each SM.
//   - Statistics per launch (Stats): cycles, warp- and thread-instructions,
//     IPC, warp execution efficiency, achieved occupancy, bank conflicts
//     with their degree histogram, shared and global atomics with their
//     worst same-address serialisation, requests, cache hit rates and
//     DRAM bytes.
//
// # Profiles
//
// A GPU built WithProfile charges every cycle of every warp of a launch
// to one Reason and, while the warp is resident, to one PTX instruction
// (GPU.Profile, a LaunchProfile). A warp's lifetime is the whole launch:
// from its first cycle until its CTA starts the warp is not_resident (a
// CTA that never starts, all the launch), from its exit to the launch's
// end finished; in between each cycle is charged to what the warp did or
// waited for. The profiler keeps no per-cycle state: each warp carries
// the cycle up to which it is charged and what it waits for since; when
// its scheduler looks at it (it issues, or is found blocked) the span is
// charged in bulk, the wait up to the warp's wakeAt and, after it, the
// cycles it was ready and not selected. So the cycles an SM skips while
// it sleeps cost nothing, and counters are per (instruction, reason) per
// SM, merged when the launch ends. A wait is charged to the instruction
// the warp is at (its next one, as Nsight Compute's samples are), except
// the waits an instruction causes after it issues, which are charged to
// it: the branch latency, a bar.sync's wait for its CTA, a fence's wait
// for the warp's stores, Kepler's shared-atomic lock loop. A wait on the
// scoreboard is charged by the result it waits for last: a global load's
// (global_load), an atomic's (atomic), a shared access's (shared_memory
// for its conflict-free latency, bank_conflict for its extra passes,
// atomic for same-address serialisation), a fixed-latency result's
// (alu_result); a ready instruction whose pipeline is busy is pipe_busy,
// whose shared memory is busy shared_memory, bank_conflict or atomic by
// the part of the busy time, whose load/store unit is full lsu_full, and
// one the scheduler passed over not_selected.
//
// Spinning is recognised per warp, not by the watchdog (which looks only
// once a window has passed without progress). A warp's instructions fall
// into segments, each ending at a taken backward branch. A segment is a
// spin when, for some period p of at most 4 segments, the last p segments
// repeat the p before them (each ends at the same branch and read exactly
// the same addresses, through the same instructions and lanes), none of
// the 2p changed memory (the executor's progress: exec.Grid.Epoch did not
// move in the warp's own instructions) and the last p polled (a global or
// shared load or atomic, or a clock read). Its cycles, whatever the warp
// waited for in them (the poll's round trip, a barrier inside the loop),
// move to spinning. A poll counter does not hide a spin (registers may
// change); a loop over new addresses is not one; the first iterations of
// a spin, before it repeats, keep their reasons, and a launch that stops
// in a spin charges the unfinished segment as spinning when the one
// before was. Cycles add up: each warp's charges equal its lifetime
// (LaunchProfile.Unbalanced counts the warps whose did not; tests check
// it is 0), so a launch's reasons sum to warps × cycles. Profiling does
// not change the simulation; with it off each profiling point is a nil
// check (no measurable cost on BenchmarkStreamTiming1M), with it on that
// benchmark takes about 14% longer.
//
// # Traces
//
// When an SM has hooks (a tracer that sim.WithTrace attaches, or the web
// monitor), it reports akita tracing tasks: one per CTA (kind "cta", from
// its start to its retirement) and one per memory request (akita's
// req_out, its CTA's task its parent), below which the caches and DRAM
// report their own.
//
// Values are never timed: the executor updates the one flat memory image
// when an instruction issues, and a load reads it when it issues, so a warp
// spinning on a flag with a strong load sees another warp's store from the
// cycle that store issued. The timing model decides when each warp may
// issue, and one thing about values: with memory.coherence l1 (the shipped
// configurations but gtx780ti), a weak global load whose sector its SM's L1
// holds reads the L1's copy, stale if another SM changed memory since the
// L1 got it (memsys.L1Values, set on the grid with exec.Grid.SetL1), as on
// NVIDIA GPUs. So a spin on a plain load of another CTA's flag can livelock
// here as on the GPU. Strong loads (volatile, relaxed or acquire wider than
// the CTA) bypass L1; the L1s start every launch empty; and a fence wider
// than the CTA (membar.gl, membar.sys, fence.*.gpu|sys|cluster) empties its
// SM's L1 when it issues (fenceInvalidatesL1, memsys.System.InvalidateL1),
// so a plain load after a grid barrier's fence reads what other CTAs wrote
// before it.
//
// # Following one warp-instruction
//
// An SM ticks only while it can issue or send; otherwise it schedules its
// next tick at the earliest cycle a scoreboard entry, pipeline or CTA start
// allows, or sleeps until a memory response arrives, so an idle SM costs
// nothing and a stalled one skips the cycles in between. In a tick it takes
// the memory responses (marking destinations ready), sends queued
// requests, then asks each scheduler for warps whose next instruction
// (exec.Warp.Next) passes the scoreboard and pipeline checks. Issuing calls
// exec.Warp.Step, which executes the instruction and reports its masks,
// per-lane addresses, barrier and exit events (exec.StepInfo); the SM then
// charges the instruction's class as above. A warp that finishes retires
// once its loads are back; a CTA retires when all its warps have, freeing
// its resources for the dispatcher.
//
// # Engines
//
// A GPU runs on a serial engine of its own (engine.go: akita's
// SerialEngine without its locks, and with a defined order among events
// of one time: the SMs' first, in an order that rotates with the cycle,
// then the memory system's, first scheduled first) unless Builder.WithParallelEngine
// asks for akita's parallel engine, which handles the events due at one time
// on concurrent goroutines. The SMs cannot run Step concurrently: they
// share the functional memory image, the grid's barriers and the CTA
// dispatcher. Their events therefore queue for the GPU's lock (smEvent):
// one goroutine runs the queued SM ticks of a time one after another while
// the memory system's ticking components (under memory.l2_model
// akita_writeback, akita's L2 slices and DRAM channels; the default
// sectored slices, their channels and the atomic units work inside the
// fabric's deliveries, under its lock) run in parallel with it. Everything else is as under the serial engine, with one
// difference: the order of same-time events. The SMs that tick in one cycle
// run in the order their events reach the queue, and components that send
// in one cycle enter the memory system's fabric in the order they get its
// lock, so ties between same-cycle requests break differently from run to
// run. Cycle counts can differ from the serial engine's and are not
// reproducible: by nothing to a few tenths of a percent for most launches,
// and by up to about 2.5% for a short launch whose warps on several SMs
// pile atomics onto the same addresses (sim's
// TestParallelEngineMatchesSerial allows 5%). Memory contents are the same
// for kernels whose results do not depend on the order of racing warps.
// The serial engine stays the reference for reproducible figures.
//
// The parallel engine is not faster yet. On BenchmarkStreamTiming1M (sim,
// the h100 configuration, 1M threads, about 1.15 million events over 7,119
// cycles, some 160 per cycle) it took 2.2-2.5 s serial and 2.8-3.1 s
// parallel on the 2-core development machine, and 3.6-4.7 s serial against
// 4.8-5.3 s parallel with 1 to 16 cores of a 16-core Xeon: it does not
// scale. What limits it: akita's parallel engine starts a goroutine per
// event, and events here are 1-2 µs of work, so starting goroutines and
// growing their stacks takes a fifth of the CPU time in the profile; its
// main goroutine pops and dispatches every event alone;
// the SMs' ticks (a fifth of the serial time) run one at a time; the
// fabric's deliveries run alone as secondary events; and every send of
// every component takes the fabric's one lock. What runs in parallel is
// mostly the L2 slices' ticks, about a third of the serial time.
//
// # Speed
//
// A run costs its engine events times their cost; idle components
// schedule nothing (an SM sleeps until its next warp may issue, a
// response arrives or the port frees; the fabric and the sectored L1
// work only at deliveries). On the 2-core development machine, one
// `go test -run '^$' -bench 'BFS|Stream' ./sim` run (sim's BenchmarkBFS:
// bsp on rmat:scale=16+perm=1, h100, 18.2 M cycles in 5 launches; and
// BenchmarkStreamTiming1M against BenchmarkStreamFunctional1M), before
// and after issue 11 item 11 (the engine of engine.go, the SM's port of
// port.go, fewer allocations per event), two runs before and four after:
//
//	                        functional     timing before   timing now   ratio now
//	BFS rmat16 (bsp)        0.61-0.81 s    45.7-46.4 s     31.6-32.5 s  45-47x (57-75x before)
//	stream 1M (serial)      58-64 ms       3.26-3.35 s     2.60-2.91 s  40-47x (51-52x before)
//
// A second pass cut the cost per event and moved no event (every figure
// the same): requests in flight and L1 fills keyed by the number that ends
// their ID rather than the string, IDs cut 32 from one string, an L1's
// stale bytes kept by line, the fabric's ports found without an interface
// map, its calendar bucketed by cycle and its deliveries in sorted queues
// rather than heaps, its mutex taken only under the parallel engine, an
// SM's loads and their L1 answers reused (memsys.System.RecycleLoads),
// schedulers whose warps all sleep skipped in one pass, and each warp's
// next instruction kept between its steps. Three alternating runs of each
// build, back to back on the same machine:
//
//	                        before         after        speed-up
//	BFS rmat16 (bsp)        30.5-31.4 s    25.8-26.3 s  1.17-1.21x (415-427k -> 496-504k warp-inst/s)
//	stream 1M (serial)      3.53-3.76 s    3.33-3.40 s  1.04-1.13x
//
// Functional BFS took 0.58 s in that session, so timing is some 45x it.
// Of BFS's time, akita's writeback L2 and its tick scheduling now take
// about a third, the SM a third (the executor's Step a third of that),
// the fabric and the sectored L1 a fifth, the engine's heap some 8%, and
// allocation and garbage collection about a tenth, mostly for akita's
// messages, tick events and tracing tasks (the L2's stats hook makes
// akita's tracing run). The stream is mostly akita's L2.
//
// BFS on rmat:scale=18+perm=1 took 6 min 53 s of host time for 51.6 M
// cycles and 56 M warp-instructions (the machine partly shared with
// other runs; scale 16 has 18.2 M and 13 M); scale 20, at the same
// growth, would take half an hour or more. The aim (10x)
// is not reached. Most of BFS's cycles are its first level, where one
// thread walks the source's edges (on rmat14, 5.8 M of 6.65 M cycles, IPC
// 0.004 over the GPU): a serial chain of loads and atomics at some 2.7
// events per warp-instruction (the SM's tick when it issues, its tick the
// cycle after, which finds the warp waiting on its result, the response's
// tick, the L1's delivery, the L2 slice's ticks) and 0.8 us per event
// before the second pass, spread over the SM (35%), the fabric and
// sectored L1 (23%) and akita's writeback L2 (21%).
//
// A third pass removes events. Under akita's order (same-time events as
// its binary heap happens to hold them) removing any event reorders
// others and moves cycle counts, so the engine first got its own order
// (engine.go), which moved the figures once: BenchmarkBFS 18,171,723 ->
// 18,182,306 cycles (+0.06%), the 1M stream 7,130 -> 7,128, and of the
// pinned h100 figures (experiments/micro) only atomic_spread's, where
// every SM's atomic piles onto one word and the order of arrival at the
// slice decides (2,696 -> 2,897 and 2,469 -> 2,516 cycles; at full scale
// 30.0 -> 31.9 us at a 4 B stride, the H100 29.0 us; the other strides
// within 1.2%). Under that order an SM no longer ticks the cycle after it
// issues regardless, but at its warps' earliest wake (BFS: 18,182,306 ->
// 18,182,125 cycles, as a launch now starts from its last real event
// rather than from a tick that did nothing), and a wake superseded by an
// earlier one is dropped: 35.8 M -> 29.4 M events on BenchmarkBFS, SM
// wake events 21.6 M -> 15.2 M. Two alternating runs of each build, back
// to back (06:58-07:01 UTC, 2026-11-23):
//
//	                        before         after        speed-up
//	BFS rmat16 (bsp)        26.9-27.8 s    24.7-25.6 s  1.05-1.12x (timing 35-36x functional's 0.70 s)
//	stream 1M (serial)      2.43-2.44 s    2.29-2.33 s  1.04-1.06x
//
// BFS on rmat:scale=20+perm=1 (warpgraph run --algo bfs --target sim
// --config h100): 19 min 16 s before, 17 min 14 s after (1.12x; 141 M
// cycles, 244 M warp-instructions, 5 launches, validated; each run
// sharing the machine with other work). The 5 minutes is a
// further 3.4x away. What is left is spread thin (rmat:scale=17, after):
// akita's writeback L2 28% (its zero-latency pipeline still ticks each
// stage, some 4.7 ticks per request, and copies each line's data from its
// storage), the fabric and the sectored L1 25%, the SM 30% (the
// executor's Step a third of it), the event heap 5%, allocation 8%
// (mostly akita's tick events, messages and tracing). A factor of 3 needs
// an L2 of our own that costs an event per request rather than ticks (the
// slice shadow, which works around akita's partial writes, would fold
// into it), which moves every figure again.
//
// A fourth pass took akita's components out of the default memory system:
// the L2 slices are warpgraph's sectored, write-validate slice
// (memory.l2_model sectored, sim/memsys/l2.go) with an event-driven DRAM
// channel, and the atomic units act at the fabric's deliveries and send
// their answers with the delay until they are due, so no memory component
// ticks or schedules an event of its own (akita's writeback cache stays
// as memory.l2_model akita_writeback). Figures moved little: BenchmarkBFS
// 18,173,168 -> 18,191,111 cycles (+0.1%), the 1M stream none (7,128), of
// the pinned h100 figures one, by 4 cycles (atomic_spread's 4-byte stride
// at small scale, 2,527 -> 2,531). Two
// alternating runs of each build, back to back (09:29-09:33 UTC,
// 2026-11-23, the machine shared with a helper's builds):
//
//	                        before          after          speed-up
//	BFS rmat16 (bsp)        25.4-34.1 s     16.2-19.3 s    1.3-2.1x (timing 22x functional's 0.75-0.89 s)
//	stream 1M (serial)      2.63-2.92 s     0.78-1.14 s    2.6-3.4x (timing 13-15x functional's 58-77 ms)
//
// BFS on rmat:scale=20+perm=1 (warpgraph run --algo bfs --target sim
// --config h100 --timeout 40m): 10 min 27 s, against 17 min 14 s before
// (140.6 M cycles, 244 M warp-instructions, validated). The 5
// minutes is a further 2.1x away. The time is now spread over the SM (its
// tick and issue about 40%, the executor's Step a sixth), the fabric's
// deliveries with the sectored L1 and L2 (about 35%), the engine's heap
// (5%) and maps and allocation: no component dominates.
//
// A fifth pass answers L1 hits without messages (lsu.answerAtIssue,
// memsys.System.TakeL1Hit): when a load issues with its unit's queue
// empty, each of its lines that the L1 holds, with no fill due before the
// cycle the unit would send it, takes that send slot and the L1's lookup
// at once, and its registers are ready when the answer would have been
// taken; a hit found when a queued load is sent is answered the same way.
// Such loads keep their places among the unit's requests (queued until
// their slot, in flight until their answer), the warp retires no earlier,
// the tick at which the load's last answer would have been taken still
// wakes the warp (lsu.finish: an arriving answer wakes its warp even
// during a branch's latency, a quirk of the model kept as it is), and
// kernels with fences, traced or monitored SMs and profiled runs send
// every load as before (lsu.answersAtOnce says why). No figure moves:
// Builder.WithHitsAsMessages keeps the messages, and the tests
// (TestAnsweredHitsKeepTheFigures, here and in sim) compare every figure,
// the memory and the results of both. The MSHR tables of the L1s and L2
// slices and L1Values's record of which SMs hold a line are open-addressed
// tables rather than Go maps (memsys's lineTable). Two alternating runs of
// each build, back to back (05:58-05:59 UTC, 2026-11-24; ca100e9 against
// 333b1c3):
//
//	                        before         after          speed-up
//	BFS rmat16 (bsp)        16.99-17.02 s  14.29-14.77 s  1.15-1.19x (96% of the L1 hits answered at once)
//	stream 1M (serial)      1.03 s         0.99-1.13 s    none (a stream's loads miss)
//
// Timing BFS is now 21-22x functional's 0.65-0.71 s. BFS on
// rmat:scale=20+perm=1 (warpgraph run --algo bfs --target sim --config
// h100), both builds at once, one per core: 10 min 54 s before, 9 min 6 s
// after (1.20x); 168,605,346 cycles and 244,050,956 warp-instructions in
// both, validated. Its levels with many frontier vertices miss in L1
// more, and a miss still costs four message hops (SM to L1 to L2 and
// back); the 5 minutes is a further 1.8x away. The rest is spread
// thin: on BenchmarkBFS the SM's ticks take 55% (the executor's Step a
// third of that), the fabric's deliveries of misses 29%, the engine's
// heap some 7%. Sending a missing load to its L1 at the SM's tick, rather
// than at the fabric's delivery in the same cycle, would spare one hop,
// but moves figures (the L1's fill requests would enter the fabric before
// the same cycle's memory-side messages: BFS rmat14's second level
// 823,112 -> 823,493 cycles), so it was not kept.
//
// A sixth pass went after what an event costs rather than how many there
// are. At full occupancy the cost is mostly the host's cache misses:
// between two ticks of an SM, the other SMs' ticks and the memory side's
// deliveries evict its warps' scoreboards, register rows and step
// records, its L1's tags and the messages in flight (BFS on
// rmat:scale=20's second level, 254 CTAs: some 1.5 us per
// warp-instruction, against 0.4 us in its first, where one warp runs with
// everything cached). Each change touches less memory per event and moves
// no figure: the engine queues an SM's wake as a heap entry (no event
// object to allocate, recycle and call through), in a heap of four
// children per node; a warp woken when its scoreboard said it would be
// ready skips a second look at its registers (warpCtx.readyBy); a step
// clears a few words of its record rather than 300 bytes (exec.MemAccess's
// per-lane arrays point into the warp) and computes in its grid's scratch
// rows rather than 2 KB of its own; the memory side reuses its fills, its
// answers and its DRAM reads (memsys's memPools), as the SMs' loads were;
// the fabric's calendar is indexed by cycle (memsys's cycleMap) and an
// L1's stale lines are a lineTable, not Go maps; and the command-line
// binary is built with profile-guided optimisation
// (cmd/warpgraph/default.pgo; `make pgo` regenerates it, `make bench`
// uses it). BenchmarkBFS keeps 20,146,709 cycles, the 1M stream 7,171,
// and every supported algorithm x scheduler pair (80) on
// rmat:scale=8+perm=1 and grid:w=12,h=12 every cycle and counter
// (warpgraph run --json against ca100e9). Two
// alternating runs of each build, back to back (07:54-07:55 UTC,
// 2026-11-24, 66cad48 against the PGO build of this pass; the machine
// ran main's BFS 12-17% slower than the day before):
//
//	                        before         after          speed-up
//	BFS rmat16 (bsp)        16.47-17.28 s  15.05-15.80 s  1.04-1.15x (timing 20-21x functional's 0.75-0.77 s)
//	stream 1M (serial)      1.02-1.06 s    1.05-1.10 s    none
//
// BFS on rmat:scale=20+perm=1 (warpgraph run --algo bfs --target sim
// --config h100): both builds at once, one per core, 11 min 18 s before
// and 10 min 38 s after (1.06x); after, alone, 10 min 0 s (an earlier,
// slower commit, 262b834, took 8 min 17 s alone the day before: the
// host's speed varies by a fifth from day to day). 168,605,346 cycles,
// validated. The 5 minutes is not reached: what is left is the
// host's memory latency over state spread across 132 SMs, with no
// component above a tenth of the time.
//
// A seventh pass shrank that state, again moving no figure:
//
//   - The executor's register file has a row per slot, not per declared
//     register: registers whose live ranges never meet share one
//     (ptx.Function.Slots, per-thread liveness; exec.SetSlotSharing turns
//     it off). bfs_bsp_base_push declares 102 registers and needs 20 rows
//     (25.5 KB -> 5 KB per warp); the kernels' corpus 65,594 registers in
//     8,797 rows. The watchdog's state hash and independent thread
//     scheduling's path hash now cover rows rather than registers, dead
//     ones included as before; sim's TestRegisterSlotSharingMovesNothing
//     shows that BFS, the six spins the watchdog diagnoses and the lock in
//     a call keep every cycle, counter and diagnosis.
//   - The engine's primary queue is a calendar of 64 SM-cycle buckets,
//     each earliest first, with a heap beyond (TestCalendarPopsInOrder):
//     SM wakes a few cycles ahead were 95% of some 62 M pops from a heap
//     of about 100 entries at rmat:scale=18's second level.
//   - An L2 lookup reads its set's 16 tags from an array of their own (two
//     host cache lines rather than eight), and an L1 way is 16 bytes (a
//     32-bit use clock renumbered before it wraps), a set one cache line.
//
// The gain is small against this host's noise (the same binary varies by
// 10-20% from run to run), so it was measured with the builds side by
// side. On the device machine's 16-core host, idle otherwise, three copies
// of each build at once, twice (warpgraph run --algo bfs --graph
// rmat:scale=18+perm=1 --target sim --config h100; 62,314,259 cycles in
// all twelve; 10:34-10:38 UTC, 2026-11-24): 93.0-98.8 s of wall time per
// process (the graph's generation included) against 101.6-106.7 s for
// 9f9143d, the slowest run of this pass faster than the fastest before it
// (1.07x in the medians). BFS on rmat:scale=20+perm=1 alone on
// the development machine, one build after the other (10:13-10:32 UTC):
// 8 min 0.6 s against 8 min 52.3 s (1.11x; 2.00 GB against 2.28 GB of
// memory), 168,605,346 cycles and 244,050,956 warp-instructions in both,
// validated; the 5 minutes is 1.6x away.
//
// The next day's development machine (2026-11-25, the same kind of 2-core
// VM on a faster host) ran that command, alone, at this pass's code
// (11dc2ff) in 4 min 21.9 s of wall time (1.98 GB), within the 5
// minutes (4 min 24.7 s at 661fd03, the same simulator); in three runs
// BenchmarkBFS took 6.1-6.8 s in timing mode against 0.25-0.27 s
// functional (23-27x) and the 1M stream 0.50-0.54 s against 19-20 ms
// (26-28x), so
// the host, not the code, made the difference from the day before, and a
// slower host would miss the target again. Of the run's 168.6 M cycles,
// 153.0 M are its first level (one warp walking the source's edges) and
// 14.7 M the second (541,997 vertices discovered by 254 CTAs); the second
// takes most of the wall time.
//
// What remains is flat: the SM's ticks half the time (the executor's Step
// a sixth), the fabric's deliveries a third, L1 tag and value lookups
// whose time is the host's cache misses on state last touched a cycle's
// worth of other SMs ago. Halving it needs the SMs' state kept hot across
// several of their cycles (a window of cycles per SM, which reorders
// their memory effects and with them the atomics' results) or another
// core (item 12: akita's parallel engine did not scale).
//
// Device-function calls were the cost of the call-heavy scheduler cells
// (SIMD-X's and Atos's clang helpers hold hundreds of registers; on
// grid:w=96,h=96 under simdx fusion=none 40% of the time went to calls).
// Three changes, none of which moves a cycle: a call or ret checks the
// scoreboard in O(1) (the warp's latest ready cycle and its count of
// loads in flight, rather than a scan of every register); a call
// initialises only the callee's live-in registers (sim/ptx's liveness)
// in a register file taken from a per-program pool that retired CTAs
// refill, and a finished launch's CTA states serve the next launch of
// the program; and call-sequence .params of sibling scopes share the
// param frame (1,260 -> 372 bytes per thread in clang's simdx kernels,
// cleared at every CTA start). BFS on grid:w=40,h=40 under simdx
// fusion=none: 152.6 -> 125.1 s for the first, and on grid:w=32,h=32
// (613,127 cycles) 97 -> 78 s for the other two.
//
// # Dependencies
//
// The package imports akita, kernels (for its error types), sim/ptx,
// sim/exec and sim/memsys. It must not import sim (which builds on it),
// hw or scheduler (tests may).
package timing
