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
//     the CTA also invalidate the SM's L1. nanosleep holds the warp for
//     the longest delay its lanes ask (at most a millisecond), at the
//     clock; the PTX ISA allows anything up to twice that.
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
// for the warp's stores, a nanosleep's delay (sleep), Kepler's
// shared-atomic lock loop. A wait on the
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
// before was. Under the window engine a global store or atomic changes
// memory (or not) when the merge applies it, a window or two after it
// issued: a segment with such an instruction is tested once the merge has
// applied all of its, and a warp's segments are tested in order, so the
// profile is the same for every thread count. Cycles add up: each warp's charges equal its lifetime
// (LaunchProfile.Unbalanced counts the warps whose did not; tests check
// it is 0), so a launch's reasons sum to warps × cycles. Profiling does
// not change the simulation; with it off each profiling point is a nil
// check.
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
// The parallel engine is not faster than the serial one: akita starts a
// goroutine per event, events here are a microsecond or two of work, the
// SMs' ticks run one at a time under the GPU's lock, and every send takes
// the fabric's one lock, so little runs in parallel (mostly the L2's
// ticks under akita_writeback). results/sim-speed has the measurements.
//
// # The window engine
//
// Builder.WithThreads(n) (sim.WithThreads, `--sim-threads N`) runs a GPU on
// the window engine (window.go), which is parallel and deterministic:
// every figure (cycles, counters, values, deadlock diagnoses, profiles) is
// the same for every n, one included, and every run. It is a model of its
// own, not the serial engine's: its figures may differ from the serial
// engine's. It is the command line's default engine (`--sim-engine
// window`); the serial engine stays this package's and sim's default (a
// Builder without WithThreads), the reference its tests and the
// command line's --monitor and --trace run on. A launch's Probe stops it
// at a window's end under the window engine (windowEngine.probe), after
// which the launch drains and the grid is unsplit (Launch.Probe).
//
//   - Domains. Each SM, with its port and its L1, is a domain on a serial
//     engine of its own; the L2 side's slices, each with its atomic unit
//     and its DRAM channel, are dealt into 16 more (memsys.Builder's
//     WithDomains and WithL2Domains; a fixed count, not the thread count,
//     since it sets the order of ties). The fabric keeps a calendar per
//     domain. A message between domains waits in its sender's outbox
//     until the end of the window in which it was sent; after it, it joins
//     its receiver's queue, each receiver's messages in the order of their
//     due cycles, then of their senders' domains (the first L2 group, the
//     SMs by index, the other L2 groups), then of their sending, and the
//     receiver's link is reserved in that order. The credit a delivery
//     across domains returns to its sender's buffer returns after the
//     window's end too. Each domain keeps two outboxes, one per parity of
//     the windows. A domain that ends its window's run sorts the window's
//     outbox and notes each receiving domain's stretch of it in that
//     receiver's slots; each receiving domain gathers its slots and takes
//     its deliveries and the credits that come back to it (they touch
//     that domain alone) at the start of its task in the next window,
//     which it then joins, while the senders fill their other outbox
//     (emptied at their first send of that window) and the other set of
//     slots. The messages are due no earlier than that window, whose
//     start nothing they do can move: where no domain's own events follow
//     a window at once, the receivers take theirs between the windows
//     instead, before the engine jumps to the next event.
//   - Windows. The domains with events in a window [T, T+W) run up to its
//     end concurrently, on a pool of n goroutines (sim/internal/workpool)
//     that take them as tasks
//     in any order (no domain can affect another within a window, so
//     which goroutine runs which changes nothing; each domain goes first
//     to the same goroutine window after window, so that its state stays
//     in one core's caches: each goroutine claims its own list of a
//     window's tasks from the front and, once it is done, the others'
//     from the back, each list's cursor on a cache line of its own);
//     between busy stretches the engine jumps to the next event. W is the shortest of: the
//     fewest cycles a message takes between an SM's domain and the L2 side
//     (memsys.System.MinCrossingCycles); cta_launch_cycles, since a CTA
//     that a retirement lets in is placed at the window's end and issues
//     no earlier than that after the retirement; and half of the value
//     latency, below.
//   - Values are split-phase (sim/exec's split mode). A warp's global
//     loads, stores and atomics are logged when they issue, with their
//     lanes' addresses, a store's values and an atomic's operands, and
//     applied to the one memory image later, in the order the serial
//     engine issues them: cycle by cycle, the SMs in the order that
//     rotates with the cycle, each SM's operations in its own order, and,
//     under memory.coherence l1, the L1s' fills and evictions after the
//     cycle's ticks (the L1s log them; L1Values replays them, with a
//     fence's invalidation marked at its place in its SM's log). So a
//     load reads what the serial engine's would at the same issue cycle,
//     stale L1 copies included. A window's log is applied while the next
//     window runs (or before it, when the next would begin after the
//     first cycle at which a logged load's values could be read): one
//     task puts it in that order and deals each operation's lanes, and
//     each L1 change, into 16 parts of memory by line; a task per part
//     then applies its own (memsys.L1Values keeps its state by the same
//     parts). Operations on different lines commute, so the result is
//     that of one merge in order, whatever runs when. The
//     value latency, the global load latency plus an L1 hit's cycles plus
//     the cycle the SM takes the answer, is the fewest cycles before a
//     load's results can be read, and a load's results are never ready
//     earlier; a window being at most half of it, the values are in the
//     registers before then.
//   - The scoreboard counts register-file rows (registers whose live
//     ranges never meet share one, exec.Program.Rows) rather than
//     registers: a logged load writes its row late, when a later register
//     may hold it. A destination that nothing reads afterwards
//     (ptx.Function.DeadDefs) is not written at all, and keeps the serial
//     engine's wait on the register itself in an entry past the rows.
//   - At a window's end, with every domain standing still, the CTAs that
//     retired in it free their SMs' resources and let waiting CTAs in,
//     in the order of their retirements (cycle, then the SMs' order of
//     the cycle); the earliest error of any SM stops the launch; and the
//     deadlock detector and the context are checked, at the last cycle an
//     SM ticked. Each SM's task leaves what the end needs (its log's
//     length, progress, retirements, errors, last tick) in one dense
//     array, so the end, which runs alone, touches an SM's own state,
//     last written on another core, only where there is something to do. The detector sees a store's progress when the store is
//     applied, up to two windows after it issued.
//
// What differs from the serial engine, then: ties between messages of one
// cycle that cross between the SMs and the L2 side (due cycle and domain,
// rather than sending order), the moment a credit and a CTA's slot come
// back (the window's end), the warp slots a placed CTA takes, register
// rows that false sharing makes wait, and how soon a deadlock is noticed.
// Values, for kernels whose results do not depend on the order of racing
// warps, are the same; for racy kernels (Atos, colouring) the timing
// decides which warp wins, as it does in the serial engine.
//
// What the window engine does not do yet: traces and the web
// monitor (engine and SM hooks), memory.l1_model and memory.l2_model
// other than sectored, and akita's parallel engine; each is refused with
// an UnsupportedError rather than simulated differently. (Functional mode
// is not this package's: sim/exec runs it, on threads of its own.) The merge's
// ordering of a window's log is one task, an L2 group whose slice is hot
// (a work queue's counter) is one task however many SMs send to it, and
// the rest of a window's end is serial, which bounds the speed-up with
// many threads (results/sim-scale). Windows are half an L1 hit long, so a
// launch with few busy SMs spends much of its time between windows: one
// busy warp runs slower than on the serial engine, at any thread count.
// The goroutines spin between
// windows for a while (twice the recent time from one window's tasks to
// the next, 100 µs to 1 ms) before they park; on a host whose cores are busy
// with other work a descheduled goroutine holds up every window, so the
// engine wants no more threads than free cores.
//
// # Speed
//
// A run costs its engine events times what each costs, so the model is
// built to schedule few events and to touch little memory in each:
//
//   - Idle components schedule nothing. An SM ticks only while it can
//     issue or send; otherwise it sleeps until its warps' earliest wake
//     (a scoreboard entry, a pipeline, a CTA start) or a response, and a
//     wake superseded by an earlier one is dropped. The fabric, the
//     sectored L1s, the default L2 slices (memory.l2_model sectored,
//     sim/memsys/l2.go), their DRAM channels and the atomic units work
//     only at the fabric's deliveries and schedule no event of their own.
//   - The engine (engine.go) keeps a defined order among same-time events,
//     so removing an event never reorders the others; its primary queue
//     is a calendar of SM-cycle buckets with a heap beyond, and an SM's
//     wake is a queue entry, not an event object.
//   - A load whose lines its L1 holds is answered at issue
//     (lsu.answerAtIssue, memsys.System.TakeL1Hit) in the send slot and
//     at the cycle the message would have taken, so no figure moves;
//     kernels with fences, traced, monitored and profiled runs send every
//     load as a message (lsu.answersAtOnce says why), and
//     Builder.WithHitsAsMessages forces messages for the tests that
//     compare the two.
//   - State is small and reused: register rows are shared by registers
//     whose live ranges never meet (ptx.Function.Slots), a step writes
//     into its warp's and its grid's scratch rather than records of its
//     own, requests, fills and answers are recycled (memsys's memPools,
//     memsys.System.RecycleLoads), tables keyed by line are open-addressed
//     (memsys's lineTable), an L1 set is one host cache line and an L2
//     set's tags sit apart from its data.
//   - Device-function calls check the scoreboard in O(1), initialise only
//     the callee's live-in registers in a pooled register file, and
//     sibling call-sequence .params share one frame.
//
// What is left is spread over the SMs' ticks and the fabric's deliveries,
// and at full occupancy it is mostly the host's cache misses on state
// another SM's tick evicted. The command-line binary is built with
// profile-guided optimisation (cmd/warpgraph/default.pgo, `make pgo`).
// The measured history of each of these changes — timing against
// functional mode, BFS on R-MAT graphs, the 1M stream, MGPUSim beside
// warpgraph, with commit, machine and date — is in results/sim-speed.
//
// # Dependencies
//
// The package imports akita, kernels (for its error types), sim/ptx,
// sim/exec and sim/memsys. It must not import sim (which builds on it),
// hw or scheduler (tests may).
package timing
