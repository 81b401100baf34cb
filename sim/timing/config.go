package timing

import (
	"math"

	"github.com/warpgraph/warpgraph/sim/internal/check"
)

// Scheduling policies of a warp scheduler.
const (
	// PolicyLRR is loose round-robin: each cycle the scheduler starts
	// looking one warp past the warp it issued from last, so ready warps
	// take turns.
	PolicyLRR = "lrr"
	// PolicyGTO is greedy-then-oldest: the scheduler keeps issuing from the
	// warp it issued from last while that warp is ready, and otherwise
	// picks the oldest ready warp (the one dispatched earliest).
	PolicyGTO = "gto"
)

// Shared-memory atomic models.
const (
	// SharedAtomicNative executes shared-memory atomics in the shared
	// memory's own ALUs (Maxwell and later): a warp's atomic takes one pass
	// per bank conflict like a load, and lanes naming the same address
	// serialise at SharedAtomicNativeCycles each.
	SharedAtomicNative = "native"
	// SharedAtomicLock executes a shared-memory atomic as Kepler (and
	// Fermi) do: each lane runs a loop of load-and-lock, modify,
	// store-and-unlock, and lanes whose lock is held (by a lane of the same
	// warp or of another warp of the SM) retry the loop. One lane per lock
	// succeeds per pass, so the cost grows with contention.
	SharedAtomicLock = "lock"
)

// ClassTiming is the timing of one instruction class on one warp scheduler.
type ClassTiming struct {
	// Latency is the number of cycles from the issue of a warp-instruction
	// to the cycle its destination registers may be read by a dependent
	// instruction (for memory classes: the part the SM adds on top of the
	// memory system; see the field that uses it).
	Latency int `yaml:"latency"`
	// Interval is the initiation interval: the number of cycles after a
	// warp-instruction of this class issues before the same scheduler may
	// issue another one of the class (the class's lanes per scheduler set
	// it: 32 lanes of units give 1, 16 give 2). 1 is fully pipelined.
	Interval int `yaml:"interval"`
}

// SMConfig describes the timing of one streaming multiprocessor: its warp
// schedulers, the latency and throughput of each instruction class, shared
// memory and its atomics, the load/store unit, and the deadlock detector's
// window. The residency limits (registers, shared memory, warps and CTAs per
// SM) and the clock live in sim.Config; the global memory system's timing in
// memsys.Config. Every latency and interval is in core cycles.
//
// The fields carry YAML tags so that a simulator configuration can hold an
// SMConfig under an `sm:` key. Changes to this struct are additive only.
type SMConfig struct {
	// WarpSchedulers is the number of warp schedulers (SM sub-partitions)
	// per SM; warp w of an SM belongs to scheduler w mod WarpSchedulers.
	WarpSchedulers int `yaml:"warp_schedulers"`
	// SchedulingPolicy is PolicyLRR ("lrr") or PolicyGTO ("gto").
	SchedulingPolicy string `yaml:"scheduling_policy"`
	// IssueWidth is the number of warp-instructions one scheduler may issue
	// per cycle (from different warps; 1 on Volta and later, 2 on Kepler's
	// dual-issue counted per warp scheduler as two warps).
	IssueWidth int `yaml:"issue_width"`

	// Integer covers integer and bitwise arithmetic, comparisons,
	// selection, moves and conversions between integer types (add, sub,
	// and, shl, setp, selp, mov, cvt, min, max, popc, prmt...).
	Integer ClassTiming `yaml:"integer"`
	// IntegerMultiply covers integer mul, mad, mul24 and mad24.
	IntegerMultiply ClassTiming `yaml:"integer_multiply"`
	// IntegerDivide covers integer div and rem, which the hardware expands
	// into a sequence of multiply and correction instructions: the latency
	// is that whole sequence's.
	IntegerDivide ClassTiming `yaml:"integer_divide"`
	// Float32 covers single-precision add, mul, fma, mad, min, max, setp
	// and conversions to and from f32 (and f16).
	Float32 ClassTiming `yaml:"float32"`
	// Float64 covers double-precision arithmetic, comparisons and
	// conversions involving f64.
	Float64 ClassTiming `yaml:"float64"`
	// SpecialFunction covers the special function unit: ex2, lg2, rcp,
	// sqrt, rsqrt, sin, cos, tanh and float division.
	SpecialFunction ClassTiming `yaml:"special_function"`
	// Branch covers bra, call, ret and exit; Latency is the cycles before
	// the warp may issue its next instruction.
	Branch ClassTiming `yaml:"branch"`
	// WarpCollective covers shfl, vote, activemask and match.
	WarpCollective ClassTiming `yaml:"warp_collective"`
	// ConstLoad covers loads from param and const space (kernel
	// arguments): Latency is load-to-use.
	ConstLoad ClassTiming `yaml:"const_load"`

	// SharedLoad is a shared-memory load without bank conflicts: Latency
	// is load-to-use for one pass, Interval the shared-memory pipeline's
	// initiation interval per pass.
	SharedLoad ClassTiming `yaml:"shared_load"`
	// SharedStore is a shared-memory store without bank conflicts (Latency
	// matters only to a later barrier or fence).
	SharedStore ClassTiming `yaml:"shared_store"`
	// SharedAtomic is an uncontended shared-memory atomic (all lanes on
	// distinct addresses in distinct banks): Latency is issue to result.
	SharedAtomic ClassTiming `yaml:"shared_atomic"`
	// SharedMemBanks is the number of shared-memory banks (32).
	SharedMemBanks int `yaml:"shared_memory_banks"`
	// SharedMemBankWidthBytes is the width of one bank (4 bytes: word w of
	// shared memory lives in bank w mod SharedMemBanks).
	SharedMemBankWidthBytes int `yaml:"shared_memory_bank_width_bytes"`
	// SharedPassCycles is what each extra pass of a bank-conflicted access
	// adds: an access with degree d (the most distinct words one bank must
	// serve; lanes on the same word share a broadcast) takes d passes, so
	// its latency and the shared pipeline's busy time grow by
	// (d-1)*SharedPassCycles.
	SharedPassCycles int `yaml:"shared_pass_cycles"`
	// SharedAtomicModel is SharedAtomicNative ("native") or
	// SharedAtomicLock ("lock").
	SharedAtomicModel string `yaml:"shared_atomic_model"`
	// SharedAtomicNativeCycles is, in the native model, what each extra
	// lane on one address costs: a warp whose worst address is named by k
	// lanes pays (k-1)*SharedAtomicNativeCycles beyond its bank passes.
	SharedAtomicNativeCycles int `yaml:"shared_atomic_native_cycles"`
	// SharedAtomicLockIterationCycles is, in the lock model, the cost of
	// one pass of the lock loop (load-and-lock, modify, store-and-unlock,
	// the predicate branch back): each pass, every lock that lanes still
	// wait for admits one lane, and a lock held by another warp's pass
	// admits none of this warp's lanes.
	SharedAtomicLockIterationCycles int `yaml:"shared_atomic_lock_iteration_cycles"`
	// SharedAtomicLocks is, in the lock model, the number of lock bits a
	// shared memory has; a word address maps to lock (word mod
	// SharedAtomicLocks). 0 gives every word its own lock.
	SharedAtomicLocks int `yaml:"shared_atomic_locks"`

	// GlobalLoad is what the SM adds to a global (or local) load beyond
	// the memory system: Latency covers address generation and coalescing
	// before the first request leaves the SM, Interval the load/store
	// unit's initiation interval per warp-instruction.
	GlobalLoad ClassTiming `yaml:"global_load"`
	// GlobalStore is the same for global and local stores.
	GlobalStore ClassTiming `yaml:"global_store"`
	// GlobalAtomic is the same for global atomics and reductions (atom,
	// red), whose requests go to the L2 slices' atomic units.
	GlobalAtomic ClassTiming `yaml:"global_atomic"`
	// CoalesceSectorBytes is the sector the coalescer groups lanes into
	// (32); it must equal the memory system's sector size.
	CoalesceSectorBytes int `yaml:"coalesce_sector_bytes"`
	// CoalesceLineBytes is the line the coalescer sends one request per
	// (128); it must equal the memory system's line size.
	CoalesceLineBytes int `yaml:"coalesce_line_bytes"`
	// LSURequestsPerCycle is the number of line (or atomic sector)
	// requests the load/store unit sends to the memory system per cycle.
	LSURequestsPerCycle int `yaml:"lsu_requests_per_cycle"`
	// AtomicRequestCycles spaces the atomic requests the load/store unit
	// sends: one at most every this many cycles (results/load-latency: an
	// H100 SM sends scattered atomics at about 0.5 a cycle, loads at 1).
	// 0 or at most 1/LSURequestsPerCycle: atomics go at the unit's rate.
	AtomicRequestCycles float64 `yaml:"atomic_request_cycles"`
	// AtomicSlicePackets sends a warp instruction's global atomics as one
	// request per L2 slice (a packet of the sectors it touches there,
	// memsys.System.NewAtomicPacket) instead of one per sector.
	AtomicSlicePackets bool `yaml:"atomic_slice_packets"`
	// MaxOutstandingRequests bounds the memory requests (lines and atomic
	// sectors) one SM has in flight, like a table of miss-status holding
	// registers; a memory instruction that would exceed it waits to issue.
	MaxOutstandingRequests int `yaml:"max_outstanding_requests"`

	// Barrier is bar.sync: Latency is the cycles from the last warp's
	// arrival to the waiting warps' next issue; Interval the scheduler's
	// initiation interval for barrier instructions.
	Barrier ClassTiming `yaml:"barrier"`
	// Fence is membar and fence: the warp waits until its outstanding
	// stores and atomics are acknowledged, then Latency more cycles.
	Fence ClassTiming `yaml:"fence"`
	// FenceContentionCycles lengthens a fence when other warps of its SM
	// are fencing too: with n warps in a fence (waiting for their
	// acknowledgements or their latency), one that reaches its latency
	// waits Fence.Latency + FenceContentionCycles × (n - 1) / n. 0: every
	// fence costs Fence.Latency.
	FenceContentionCycles float64 `yaml:"fence_contention_cycles"`

	// CTALaunchCycles is the delay between a CTA being assigned to an SM
	// and its warps' first issue. 0 is allowed.
	CTALaunchCycles int `yaml:"cta_launch_cycles"`
	// CTADispatchCycles and CTADispatchWarpCycles pace the GPU's CTA
	// dispatcher, which is shared by every SM: it starts at most one CTA
	// every CTADispatchCycles + warps × CTADispatchWarpCycles cycles (warps
	// of the kernel's CTA), so a grid of many CTAs takes longer to start
	// than one that fits at once. 0 and 0 start every CTA that fits at
	// once.
	CTADispatchCycles     float64 `yaml:"cta_dispatch_cycles"`
	CTADispatchWarpCycles float64 `yaml:"cta_dispatch_warp_cycles"`
	// DeadlockWindowCycles is how long the deadlock detector waits: a
	// launch in which no store or atomic changes memory and no warp or CTA
	// starts or finishes for this many cycles, while work remains, ends
	// with a kernels.DeadlockError once every running warp is seen to
	// repeat its state (exec.Watchdog).
	DeadlockWindowCycles int `yaml:"deadlock_window_cycles"`
	// HoistLoads, in timing mode, moves each weak load within its basic
	// block above the instructions it does not depend on when a module is
	// loaded (ptx.HoistLoads), as ptxas schedules the SASS a GPU runs;
	// false runs clang's PTX in its own order. The values computed are the
	// same either way.
	HoistLoads bool `yaml:"hoist_loads"`
	// SharedFloatAddLoop, in timing mode, runs every shared-memory float
	// add (atom/red.shared.add.f32) as the compare-and-swap loop the GPU's
	// SASS is (ptx.ExpandSharedFloatAdds: load, add, CAS, retry), so lanes
	// on one address pay a pass each and lose passes to other warps' swaps;
	// false runs it as one native shared atomic, as integer adds are.
	SharedFloatAddLoop bool `yaml:"shared_float_add_loop"`
}

// classes lists the ClassTiming fields with their YAML names, for
// validation.
func (c *SMConfig) classes() []struct {
	name string
	t    ClassTiming
} {
	return []struct {
		name string
		t    ClassTiming
	}{
		{"integer", c.Integer},
		{"integer_multiply", c.IntegerMultiply},
		{"integer_divide", c.IntegerDivide},
		{"float32", c.Float32},
		{"float64", c.Float64},
		{"special_function", c.SpecialFunction},
		{"branch", c.Branch},
		{"warp_collective", c.WarpCollective},
		{"const_load", c.ConstLoad},
		{"shared_load", c.SharedLoad},
		{"shared_store", c.SharedStore},
		{"shared_atomic", c.SharedAtomic},
		{"global_load", c.GlobalLoad},
		{"global_store", c.GlobalStore},
		{"global_atomic", c.GlobalAtomic},
		{"barrier", c.Barrier},
		{"fence", c.Fence},
	}
}

// Validate reports every field that is missing, out of range or
// inconsistent, joined into one error.
func (c SMConfig) Validate() error {
	var p check.Problems
	bad, positive, powerOfTwo := p.Add, p.Positive, p.PowerOfTwo

	positive("warp_schedulers", c.WarpSchedulers)
	switch c.SchedulingPolicy {
	case PolicyLRR, PolicyGTO:
	default:
		bad("scheduling_policy must be %q or %q, got %q", PolicyLRR, PolicyGTO, c.SchedulingPolicy)
	}
	positive("issue_width", c.IssueWidth)

	for _, cl := range c.classes() {
		// Memory classes add to the memory system's latency and may be 0;
		// every other class produces its result at least a cycle later.
		switch cl.name {
		case "global_load", "global_store", "global_atomic", "fence", "barrier":
			if cl.t.Latency < 0 {
				bad("%s.latency must not be negative, got %d", cl.name, cl.t.Latency)
			}
		default:
			positive(cl.name+".latency", cl.t.Latency)
		}
		positive(cl.name+".interval", cl.t.Interval)
	}

	positive("shared_memory_banks", c.SharedMemBanks)
	powerOfTwo("shared_memory_banks", c.SharedMemBanks)
	if c.SharedMemBanks > 32 {
		bad("shared_memory_banks must be at most 32, got %d", c.SharedMemBanks)
	}
	positive("shared_memory_bank_width_bytes", c.SharedMemBankWidthBytes)
	powerOfTwo("shared_memory_bank_width_bytes", c.SharedMemBankWidthBytes)
	if c.SharedPassCycles < 0 {
		bad("shared_pass_cycles must not be negative, got %d", c.SharedPassCycles)
	}
	switch c.SharedAtomicModel {
	case SharedAtomicNative:
		if c.SharedAtomicNativeCycles < 0 {
			bad("shared_atomic_native_cycles must not be negative, got %d", c.SharedAtomicNativeCycles)
		}
	case SharedAtomicLock:
		positive("shared_atomic_lock_iteration_cycles", c.SharedAtomicLockIterationCycles)
		if c.SharedAtomicLocks < 0 {
			bad("shared_atomic_locks must not be negative (0 = one per word), got %d", c.SharedAtomicLocks)
		}
	default:
		bad("shared_atomic_model must be %q or %q, got %q", SharedAtomicNative, SharedAtomicLock, c.SharedAtomicModel)
	}

	positive("coalesce_sector_bytes", c.CoalesceSectorBytes)
	powerOfTwo("coalesce_sector_bytes", c.CoalesceSectorBytes)
	positive("coalesce_line_bytes", c.CoalesceLineBytes)
	powerOfTwo("coalesce_line_bytes", c.CoalesceLineBytes)
	p.SectorsPerLine("coalesce_sector_bytes", c.CoalesceSectorBytes, "coalesce_line_bytes", c.CoalesceLineBytes)
	positive("lsu_requests_per_cycle", c.LSURequestsPerCycle)
	positive("max_outstanding_requests", c.MaxOutstandingRequests)
	if c.MaxOutstandingRequests > 0 && c.CoalesceLineBytes > 0 && c.CoalesceSectorBytes > 0 &&
		c.MaxOutstandingRequests < 32 {
		// One warp-instruction may touch 32 distinct lines (or atomic
		// sectors); it must be able to issue on an idle SM.
		bad("max_outstanding_requests must be at least 32 (one scattered warp access), got %d", c.MaxOutstandingRequests)
	}

	if !(c.FenceContentionCycles >= 0) || math.IsInf(c.FenceContentionCycles, 1) {
		bad("fence_contention_cycles must be finite and not negative, got %g", c.FenceContentionCycles)
	}
	if !(c.AtomicRequestCycles >= 0) || math.IsInf(c.AtomicRequestCycles, 0) {
		bad("atomic_request_cycles must be finite and not negative, got %g", c.AtomicRequestCycles)
	}
	if c.CTALaunchCycles < 0 {
		bad("cta_launch_cycles must not be negative, got %d", c.CTALaunchCycles)
	}
	if !(c.CTADispatchCycles >= 0) || !(c.CTADispatchWarpCycles >= 0) || math.IsInf(c.CTADispatchCycles+c.CTADispatchWarpCycles, 1) {
		bad("cta_dispatch_cycles and cta_dispatch_warp_cycles must be finite and not negative, got %g and %g", c.CTADispatchCycles, c.CTADispatchWarpCycles)
	}
	positive("deadlock_window_cycles", c.DeadlockWindowCycles)

	return p.Err("SM configuration")
}
