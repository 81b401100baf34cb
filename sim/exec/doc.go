// Package exec is the simulator's functional SIMT executor: it runs the
// lowered PTX of sim/ptx exactly, warp by warp, on one coherent memory
// image.
//
// It models grids of CTAs and CTAs of 32-lane warps; per-thread registers
// (a row of 32 uint64 lanes per slot, laid out warp-major so each
// instruction decodes once and loops over its active lanes; registers
// whose live ranges never meet share a slot, ptx.Function.Slots, so a
// warp's file is a fifth of its declared registers' in the BFS kernels); a SIMT
// reconvergence stack driven by the front end's immediate post-dominators,
// and, for compute capability 7.0 and later (Launch.IndependentThreads),
// Volta's independent thread scheduling on top of it (its.go: diverged
// lanes that spin or wait at a *.sync collective or a barrier split into
// thread groups that run in turn, so a warp's lanes may wait on each
// other);
// guard predicates, divergent branches, loops with early exits, calls,
// ret and exit; CTA barriers (bar.sync, bar.arrive, bar.red) counting
// warps, with exited warps counting as arrived; vote, shfl, match, redux and
// activemask; global, shared, local and param memory with generic
// addressing through per-space windows, every access checked; atomics
// applied lane by lane in ascending lane order; integer and float
// arithmetic with PTX semantics. Fences are no-ops here: there is one
// memory image, coherent unless a timing model sets an L1 (Grid.SetL1),
// through which weak global loads may read an SM's stale L1 copy (timing
// mode's memory.coherence: l1; the timing model's fences invalidate it).
//
// Two drivers share the same instruction implementations. Grid.Run is the
// functional mode: the warps of all co-resident CTAs take turns of a
// bounded slice, so kernels that wait on other CTAs (global barriers,
// task queues) run as on hardware; later CTAs start as resident ones
// finish. The turns run in rounds (rounds.go): each round every ready
// warp gets a turn, the SMs' turns at once on RunOptions.Threads threads;
// global stores and atomics are logged per SM and applied at the round's
// end in SM order, a warp reading memory as the round began overlaid with
// its own SM's stores, and a turn ending after a global atomic or a fence
// wider than the CTA. The result does not depend on the thread count.
// RunOptions.InOrder instead runs the turns one after another on the
// memory image itself (issue-time order; sampled simulation's stretches
// after a slow detailed pace, when asked for).
// A warp whose turns only poll (strong loads and atomics that change
// nothing) backs off, and then waits until some warp changes memory
// (Grid.runSlots), so idle pollers cost little. A timing model instead dispatches CTAs itself
// (Grid.Dispatch, Grid.Retire) and issues one warp-instruction at a time
// with Warp.Step, which reports what it needs (StepInfo: the instruction,
// masks, per-lane memory addresses, barrier and exit events). Both run the
// same deadlock detector (Watchdog) with the same definition of progress:
// a store or atomic that changes memory, a CTA starting, a warp or CTA
// finishing.
//
// Where PTX leaves results unspecified or the hardware approximates, the
// executor documents its choice: DivByZero for integer division by zero;
// approximate transcendentals (ex2, lg2, sin, cos, tanh, rsqrt and the
// .approx forms of rcp, sqrt and div) are computed in float64 and rounded
// once, so they are at least as accurate as the hardware (whose bounds the
// PTX ISA states, e.g. 2 ulp for ex2.approx.f32) and may differ from it in
// the last bits; f32 arithmetic returns the canonical NaN 0x7FFFFFFF; fma
// and mad on f32 round once (FmaF32). Directed rounding (.rz, .rm, .rp) is
// supported on cvt and div and refused, at preparation, on other float
// arithmetic. .f16 values are converted (cvt, rounding once through
// float64) and moved, never computed on. Module.Check prepares every entry
// of a module at load time and reports every instruction it cannot run,
// each quoted with its PTX and CUDA source lines (Where).
//
// The package models values and order, never time: it knows nothing of
// cycles or latencies and must not import akita; the timing model drives
// it from outside.
package exec
