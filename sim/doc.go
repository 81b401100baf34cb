// Package sim is warpgraph's GPU simulator: it executes the PTX that runs
// on hardware on simulated SMs, in three modes. Functional mode computes
// exact values with the warps of co-resident CTAs interleaved and no time,
// in rounds whose SMs run on WithThreads' threads (sim/exec).
// Timing mode (the default) runs the same execution cycle by cycle on
// akita/v3: SMs with schedulers, scoreboards, shared-memory banks and
// atomics (sim/timing) in front of caches, DRAM and L2 atomic units
// (sim/memsys). Sampled mode mixes the two per launch (below).
// Device implements kernels.Device, so every driver runs on it unchanged;
// configurations are the YAML files of sim/configs. In both modes a Device
// also keeps a simulated host clock (HostClock): each launch, copy and
// memset advances it by the configuration's host costs (HostConfig) and
// each kernel's simulated time, so a host-driven loop's simulated
// end-to-end time compares with the hardware's. A Monitor (StartMonitor,
// WithMonitor) serves akita's web monitor of timing-mode devices, so a
// simulation can be watched in a browser. System (OpenSystem) joins
// several devices by the link a configuration's `system:` section models
// (kernels.System: peer copies; kernels.PeerSystem: co-launches whose
// kernels reach every device's memory, colaunch.go). The PTX front end
// lives in sim/ptx and the functional executor in sim/exec. sim imports
// kernels and never hw or scheduler.
//
// # Sampled simulation
//
// ModeSampled (--sim-mode sampled) samples at launch granularity, after the
// idea of PKA (principal kernel analysis) and Sieve: launches of the same
// kernel tend to repeat, so a few simulated in detail stand for the rest.
// Graph algorithms launch the same kernels once per iteration (bulk
// synchronous levels, PageRank sweeps, colouring and WCC rounds), and a
// run of hundreds of launches then costs a few detailed ones plus
// functional execution.
//
// The memory image is shared and a launch cannot be undone, so whether a
// launch runs in detail is decided before it starts, per kernel (module and
// entry name), by the policy of sampled.go's constants: in detail are a
// kernel's first SampleWarmupLaunches launches; every launch whose grid,
// block or dynamic shared memory no detailed launch of the kernel had;
// after a detailed launch number i, the launch max(SampleMinInterval,
// i/SampleIntervalDivisor) later (so the interval grows with the count,
// and the detailed launches with its logarithm); the launch after a far-off
// prediction; and every launch of a kernel that reads %clock, %clock64 or
// %globaltimer, whose values depend on time. Every other launch runs
// functionally, on the PTX as timing mode transforms it, so its values are
// exact (every run is validated) and its warp-instructions count what a
// detailed launch would execute.
//
// A functional launch is charged predicted cycles, exactly where a
// detailed launch's would go: its LaunchStats' Cycles and Elapsed (and the
// counters cycles and sms) and the simulated host clock. The prediction
// starts from the kernel's most recent detailed launch of like size (its
// warp-instructions within SampleFarFactor of the launch's; of the same
// shape where one is), whose cache state and phase of the algorithm are
// nearest, else from the detailed launch nearest in size (the functional
// signature: warp-instructions, and CTAs through the shape), and scales its
// cycles by the ratio of warp-instructions to the power fitted, in log-log
// least squares, on the kernel's detailed launches, kept within [0, 1]:
// between a latency-bound launch, whose cycles do not grow with the work,
// and a throughput-bound one, whose cycles grow in proportion
// (predictCycles). A launch more than SampleFarFactor outside the sampled
// counts is still charged this extrapolation, and sends the kernel's next
// launch into detail; so does one whose global atomics (lane operations,
// the signature's other part) differ from those of the sample its
// prediction starts from by more than SampleAtomicsFactor (the larger at
// least SampleMinAtomics): a PageRank pull whose count of active vertices,
// kept by atomics on a few words, halves runs a third faster at nearly the
// same instructions.
//
// The error is estimated by holding out: every detailed launch that has
// earlier samples of its kernel is first predicted from them, and the
// relative error against its simulated cycles kept, apart for the
// predictions within SampleFarFactor of the sampled work (as most
// functional launches are) and beyond it. SamplingReport gives the
// launches in detail and in total, per kernel with the reasons, the
// held-out errors' median and largest, and the estimated error of the
// simulated time: per kernel and stratum, the predicted time × the mean
// absolute held-out error, summed — an estimate that assumes the launches'
// errors do not cancel, relative to the device's whole simulated host
// time. It is pessimistic where a kernel's first launches differ widely
// (a BFS's first level from one hub vertex against the next): those
// held-out predictions fail by far more than the later ones, which have
// samples like them.
//
// A functional launch's global loads, stores and atomics bring their
// lines into the timing model's L2 tags (memsys.System.WarmL2; stores and
// atomics leave their sectors dirty), at no time and uncounted, handed
// over at the end of each of its rounds SM by SM (exec.RunOptions.Warm;
// on several threads each warms a group of L2 slices, each slice's lines
// in that order: RunOptions.WarmPartOf), so the same for every thread
// count: a detailed launch after functional
// ones finds in the L2 what full timing would have left there (the L1s,
// which hold values, start empty after any launch).
//
// Limits. The signature cannot see what makes a launch slow other than
// its instructions and atomics: DRAM misses, one long-running warp; and a
// launch whose atomics drift is charged from a sample they do not match
// before the next launch is simulated. Functional and
// detailed launches interleave warps differently, so where threads race
// (in-place Gauss-Seidel updates in PageRank and WCC, colouring's
// conflicts) a sampled run may take a different number of iterations
// than a timing run, as a functional one may. The gain is bounded by
// functional mode's own speed: a run with all but a few launches
// functional costs about a functional run. Profiles, traces and the
// monitor need every launch in detail and refuse sampled mode. With
// WithThreads the detailed launches run on the window engine, whose
// figures are the same for every thread count, so a sampled run's are
// too.
//
// # Sampling inside a launch
//
// Without more, a long persistent or grid-stride launch is one sample
// however long it runs. WithSamplingInside (run's --sample-inside) runs
// every launch that sampled mode simulates in detail in stretches, after
// the idea of Photon and of SMARTS's systematic sampling: the first
// SampleFirstCycles cycles in detail, then SampleUnitCycles more (the
// first stretch ramps up: CTAs start and the caches fill, so its pace is
// not the launch's and no functional stretch is charged at it), then, in
// turn, a functional stretch
// (exec.Grid.Continue, from the state the timing model stopped in: the
// timing model's values are those of the instructions' issue order, so a
// launch stopped at any tick, or at a window's end on the window engine,
// is consistent once its requests in flight drain and, on the window
// engine, its last window's log is applied and the grid unsplit)
// and a detailed one of SampleUnitCycles (the timing model resumed on the
// CTAs where they are, timing.Launch.Resume; twice the last one's when
// that one changed memory too seldom to measure a rate, or when the
// progress of its third and fourth quarters (changes, or warp-instructions
// for a kernel charged by them, below) differ by more than their mean
// (one over three times the other) in a stretch other than the launch's
// first, up to 2^20 cycles: a fused launch's levels, each some
// work and then a wait at a grid barrier, swing the pace with a period
// that a short stretch samples at one phase; later detailed stretches
// keep the length that was needed, and the functional stretches after
// them compare the warps at work over blocks of an eighth of their
// instruction budget, as long as such a period), until the launch ends
// in either. A functional stretch runs until it has made the progress the
// last detailed stretch would make in SampleFunctionalRatio times its length
// (a kernel charged by its warp-instructions: or issued as many; a kernel
// that may spin has no instruction budget, since its functional turns
// poll where the timing model's pollers wait out their loads), or until the share of its
// instructions that change memory falls below half of its first window's
// (most warps have come to wait or spin), or until a block of eight rounds
// has fewer than half (three quarters for a kernel without a spin budget,
// SampleWorkingFall: its warps at work are its live warps, with no pollers
// to swing the count) or more than twice as many warps at work per round
// as its first block (single rounds swing by half as warps leave and
// rejoin the back-off; a block's change means warps have finished, wait,
// or were released from a grid barrier: one warp left on a hub's edges
// changes memory as often as before, but the GPU's pace falls); the
// launch's pace has changed, and a detailed stretch
// measures the new one. The tests count a turn
// that a polling warp sat out (exec's back-off) as the slice it would
// have run. Its warps take turns of SampleStretchSlice instructions
// (WithStretchSlice), not functional mode's 256: with short turns an
// asynchronous kernel's warps race about as the timing model's do, so a
// stretch does about the work the timing model would in its place, where
// long turns let a warp run ahead on fresher values and do less. A
// stretch runs in exec's rounds on the device's threads (another SM's
// stores seen a round later); WithStretchRoundsIssue keeps a stretch
// after a detailed one that issued fewer warp-instructions a cycle in
// issue-time order, its turns one after another on one thread (default
// SampleRoundsIssue, 0: every stretch in rounds). The choice rests on the
// timing model's pace, so the figures are the same for every thread
// count. Its loads, stores and atomics bring their lines into the L2's tags
// (memsys.System.WarmL2; stores and atomics leave their sectors dirty),
// at no time and uncounted, so that the detailed stretch after it finds
// in the L2 what the timing model would have left there; the L1s, which
// hold values, start empty. A stopped detailed stretch of a kernel that
// may spin counts its cycles until its requests in flight have drained
// (its contended atomics would otherwise drain for free while no warp
// issues); one of a kernel charged by its warp-instructions counts until
// the stop, its resumed stretch already slower than the launch was. It is charged its progress at the
// rate the detailed stretch measured over its second half (the first half
// warms the L1s); a stretch in rounds that is charged by its changes
// charges its last round's changes for no more than that round's
// warp-instructions at the detailed issue rate, since a round is applied
// as one and may hold the burst of changes a launch's warps make together
// as they finish, which the GPU makes at its issue rate; a detailed
// stretch whose second half changed memory fewer than SampleMinChanges
// times is followed by another detailed one. Progress, for a kernel with
// a spin budget (kernels.SpinParams: it may wait on other warps), is the
// instructions that changed memory (exec.Grid.Changes), not instructions:
// spinning warps issue instructions that change nothing, and a functional
// stretch spins differently. A kernel without one never spins, and its
// progress is its warp-instructions, charged at the detailed stretch's
// issue rate: where warps race on values (a label-propagation push), a
// functional stretch's warps see fresher values and change memory less
// often for the same edges, while their instructions follow the edges
// (the report's StretchCharge says which a kernel got). A launch whose
// charged rate has moved by SampleSwing (twofold) down and also up from
// one functional stretch to the next runs the rest in detail: its phases
// come and go faster than a detailed stretch can tell (a fused launch's
// levels on a graph of few of them), so no stretch's rate predicts the
// next (the report's Swung counts them); a rate that only falls, a
// launch's tail, goes on sampled. The charges' estimated error is each functional
// stretch's charge × the relative change of the rate it was charged at
// from the one before; a launch's first functional stretch, which none
// precedes, at the mean such change of its kernel (of all kernels where
// its own has none).
//
// Its limit is the work itself. Where the work a kernel does depends on
// how its warps interleave (asynchronous label propagation and
// relaxations: Atos's WCC, BFS and SSSP redo work a racing warp made
// stale), a functional stretch does less or other work than the timing
// model would in the same span, and its charge is off by the difference:
// results/sampled and results/sim-scale measure it. It is therefore off
// by default. On the window engine (WithThreads) a launch stops at a
// window's end, and the window engine's figures are the same for every
// thread count, stretches included.
package sim
