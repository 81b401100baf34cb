package kernels

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// DevPtr is an address in a device's global memory.
type DevPtr uint64

// Properties describes a device: the limits that decide residency and the
// clock that turns cycles into time.
type Properties struct {
	Name               string
	ComputeCapability  [2]int // major, minor
	SMs                int
	WarpSize           int
	RegistersPerSM     int
	RegistersPerCTA    int
	SharedMemPerSM     int // bytes
	SharedMemPerCTA    int // bytes, default (non-opt-in) limit
	MaxThreadsPerCTA   int
	MaxThreadsPerSM    int
	MaxWarpsPerSM      int
	MaxCTAsPerSM       int
	ClockKHz           int
	GlobalMemBytes     uint64
	RegisterAllocUnit  int // registers are allocated per warp in units of this many
	SharedMemAllocUnit int // bytes
}

// Dim3 is a grid or block extent.
type Dim3 struct{ X, Y, Z int }

// Count returns X*Y*Z, treating a zero extent as 1.
func (d Dim3) Count() int {
	x, y, z := d.X, d.Y, d.Z
	if x == 0 {
		x = 1
	}
	if y == 0 {
		y = 1
	}
	if z == 0 {
		z = 1
	}
	return x * y * z
}

// D1 is a one-dimensional extent.
func D1(x int) Dim3 { return Dim3{X: x, Y: 1, Z: 1} }

// LaunchConfig says how a kernel is launched.
type LaunchConfig struct {
	Grid, Block Dim3
	// DynamicSharedMem is the dynamic shared memory per CTA in bytes.
	DynamicSharedMem int
	// Cooperative asks for a cooperative launch: the whole grid must be
	// co-resident, or the launch fails with a LaunchResourceError.
	Cooperative bool
	// Warmup and Repeat ask a timing backend to run the launch Warmup times
	// untimed and then Repeat times timed, reporting the median in Elapsed
	// and every sample in Samples. Only idempotent kernels may repeat. The
	// simulator is deterministic and runs once whatever these say.
	Warmup, Repeat int
}

// KernelAttrs are a compiled kernel's resource needs.
type KernelAttrs struct {
	RegistersPerThread int
	StaticSharedMem    int // bytes
	LocalMemPerThread  int // bytes
	MaxThreadsPerCTA   int
}

// LaunchStats describes one launch. Hardware fills Elapsed; the simulator
// fills Cycles and Counters (and Elapsed from its clock).
type LaunchStats struct {
	Elapsed time.Duration
	// Samples holds the time of every timed launch on hardware.
	Samples  []time.Duration
	Cycles   uint64
	Counters map[string]float64
}

// Device is what both executors — the simulator and the CUDA backend —
// implement and what every driver speaks. Launch is synchronous; ctx bounds
// it (the host timeout on hardware, the wall-clock limit in simulation).
type Device interface {
	Properties() Properties
	// Load prepares a kernel's module on the device; Launch loads on demand,
	// so calling it is optional.
	Load(k *Kernel) error
	Alloc(bytes int) (DevPtr, error)
	Free(p DevPtr) error
	CopyToDevice(dst DevPtr, src []byte) error
	CopyFromDevice(dst []byte, src DevPtr) error
	Memset(p DevPtr, value byte, bytes int) error
	// Launch runs k to completion. Give ctx a deadline: on hardware a kernel
	// still running when ctx ends cannot be stopped and the device is lost.
	Launch(ctx context.Context, k *Kernel, cfg LaunchConfig, args ...any) (LaunchStats, error)
	// Occupancy returns how many CTAs of k fit on one SM at once.
	Occupancy(k *Kernel, blockThreads, dynamicSmem int) (ctasPerSM int, err error)
	Attributes(k *Kernel) (KernelAttrs, error)
	Close() error
}

// RunMarker is an optional interface of a Device that wants to know where
// each whole run of an enactment begins and ends: scheduler.Plan.Enact
// calls MarkRun around the part of each run that its end-to-end time
// covers (begin true before, false after a run that finished). run counts
// from 0, the untimed warm-up runs first.
type RunMarker interface {
	MarkRun(run int, timed, begin bool)
}

// DeadlockError reports a launch in which no warp could make progress.
type DeadlockError struct {
	Kernel string
	Detail string
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("kernel %s deadlocked: %s", e.Kernel, e.Detail)
}

// SpinBudgetError reports a kernel that gave up spinning (barrier or queue)
// after its spin budget ran out and raised its abort flag.
type SpinBudgetError struct {
	Kernel string
	Budget uint32
	Detail string
}

func (e *SpinBudgetError) Error() string {
	return fmt.Sprintf("kernel %s aborted: spin budget of %d polls exhausted: %s", e.Kernel, e.Budget, e.Detail)
}

// MemoryFaultError reports an out-of-range or misaligned memory access.
type MemoryFaultError struct {
	Kernel string
	Detail string
}

func (e *MemoryFaultError) Error() string {
	return fmt.Sprintf("kernel %s: memory fault: %s", e.Kernel, e.Detail)
}

// LaunchResourceError reports a launch the device cannot hold: too many
// threads, registers or shared memory, or a cooperative grid larger than
// what can be co-resident.
type LaunchResourceError struct {
	Kernel string
	Detail string
}

func (e *LaunchResourceError) Error() string {
	return fmt.Sprintf("kernel %s cannot be launched: %s", e.Kernel, e.Detail)
}

// Median returns the middle sample (the mean of the two middle ones for an
// even count), or 0 for none. Kernel and run times have a long tail — clock
// ramps, the first touch of memory — so every timing in warpgraph reports
// the median, not the mean.
func Median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return s[mid-1] + (s[mid]-s[mid-1])/2
}
