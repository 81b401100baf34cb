package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"weak"

	akitasim "github.com/sarchlab/akita/v3/sim"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Device is a simulated GPU implementing kernels.Device. It runs launches
// in one of three modes (WithMode):
//
//   - ModeTiming, the default: cycle-level timing on akita/v3 (sim/timing
//     and sim/memsys). Values are exact as in functional mode, except that
//     with memory.coherence l1 a weak global load may read its SM's stale
//     L1 copy, as on the hardware (see sim/timing's package comment);
//     Cycles, Elapsed and the counters of timing.Stats describe the launch.
//   - ModeFunctional: exact values, warps of co-resident CTAs interleaved,
//     no time (Elapsed and Cycles are zero); fast.
//   - ModeSampled: each launch runs either as in ModeTiming or, charged
//     cycles predicted from its kernel's detailed launches, as in
//     ModeFunctional (sampled.go; the package comment has the method).
//
// A Device is safe for concurrent use; launches run one at a time.
type Device struct {
	cfg  Config
	opts options

	mu       sync.Mutex
	mem      *exec.Memory
	mods     map[*kernels.Module]*exec.Module
	attrs    *kernels.AttrTable
	launches uint64
	closed   bool

	gpu       *timing.GPU // built on the first timing launch
	lastStats *timing.Stats
	sampler   *sampler // ModeSampled's (sampled.go)

	// hostClock is the simulated host time since New (HostClock).
	hostClock time.Duration
}

// Mode is how a Device executes launches.
type Mode string

// Modes.
const (
	// ModeTiming simulates every cycle of the SMs and the memory system.
	ModeTiming Mode = "timing"
	// ModeFunctional computes exact values without time.
	ModeFunctional Mode = "functional"
	// ModeSampled simulates some launches in detail and runs the rest
	// functionally, predicting their cycles (sampled.go).
	ModeSampled Mode = "sampled"
)

// ParseMode reads a mode name ("timing", "functional" or "sampled").
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeTiming, ModeFunctional, ModeSampled:
		return m, nil
	}
	return "", fmt.Errorf("sim: unknown mode %q (want %q, %q or %q)", s, ModeTiming, ModeFunctional, ModeSampled)
}

var _ kernels.Device = (*Device)(nil)

type options struct {
	slice       int
	quietWindow uint64
	memLimit    uint64
	deviceIndex int // withDeviceIndex
	boundsCheck bool
	mode        Mode
	parallel    bool
	// threads: WithThreads (-1: not given, the serial engine).
	threads        int
	deadlockWindow int
	monitor        *Monitor
	profiling      *profiling // WithProfile, WithTrace (profile.go)
	// hitsAsMessages: withHitsAsMessages.
	hitsAsMessages bool
	// samplePolicy: withSamplePolicy (nil: the default policy).
	samplePolicy *samplePolicy
	// sampleInside: WithSamplingInside's ratio (0: off).
	sampleInside int
	// stretchSlice: WithStretchSlice (0: SampleStretchSlice).
	stretchSlice int
	// roundsIssue: WithStretchRoundsIssue.
	roundsIssue float64
	// stopsOnly: WithStopsOnly.
	stopsOnly bool
}

// withHitsAsMessages sends every L1 hit through the memory system as
// messages (timing.Builder.WithHitsAsMessages), the reference the tests
// check the answered hits against.
func withHitsAsMessages() Option { return func(o *options) { o.hitsAsMessages = true } }

// withDeviceIndex makes the device device d of a system whose devices
// share one address space (exec.NewMemoryOf): its memory starts at
// exec.DeviceBase(d).
func withDeviceIndex(d int) Option { return func(o *options) { o.deviceIndex = d } }

// Option configures a Device.
type Option func(*options)

// WithSlice sets how many instructions a warp runs per scheduling turn
// (default 256).
func WithSlice(n int) Option { return func(o *options) { o.slice = n } }

// WithQuietWindow sets how many warp-instructions without progress (a
// store or atomic that changes memory, a warp or CTA starting or
// finishing; see exec.Watchdog) pass before functional mode's livelock
// check starts (default 1<<20). WithDeadlockWindow is timing mode's.
func WithQuietWindow(n uint64) Option { return func(o *options) { o.quietWindow = n } }

// WithMode selects timing (the default), functional or sampled execution.
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithParallelEngine runs timing mode on akita's parallel engine (see
// timing.Builder.WithParallelEngine and sim/timing's package comment): the
// memory system's components tick in parallel while the SMs take turns.
// Cycle counts may then differ from the serial engine's, and from run to
// run, by up to a few percent. The serial engine is the default.
func WithParallelEngine(on bool) Option { return func(o *options) { o.parallel = on } }

// WithSamplingInside makes sampled mode (ModeSampled) run each launch it
// simulates in detail in detailed and functional stretches
// (sampled_launch.go) rather than whole, each functional stretch making
// the progress of ratio detailed ones (0: off, the default; the
// suggested ratio is SampleFunctionalRatio). Off by default: a functional
// stretch of an asynchronous kernel whose work depends on the
// interleaving of its warps (Atos's label propagation) does other work
// than the timing model would, and its charge is then off.
func WithSamplingInside(ratio int) Option { return func(o *options) { o.sampleInside = max(ratio, 0) } }

// WithStretchSlice sets how many instructions a warp runs per turn in the
// functional stretches of WithSamplingInside (default SampleStretchSlice;
// WithSlice is whole functional launches').
func WithStretchSlice(n int) Option { return func(o *options) { o.stretchSlice = max(n, 0) } }

// WithStretchRoundsIssue sets the detailed pace, in warp-instructions a
// cycle, from which a functional stretch of WithSamplingInside runs in
// rounds on the device's threads rather than in issue-time order on one
// (default SampleRoundsIssue: 0, every stretch in rounds).
func WithStretchRoundsIssue(issue float64) Option {
	return func(o *options) { o.roundsIssue = max(issue, 0) }
}

// WithStopsOnly runs every stretch of WithSamplingInside in detail: the
// timing model stops and resumes as sampled mode makes it, with no
// functional stretch between, so that the run against full timing shows
// what the stops alone change (a stop halts issue while the requests in
// flight drain; a resumed stretch starts with those answered). A
// diagnostic of the sampling method, never faster than full timing.
func WithStopsOnly() Option { return func(o *options) { o.stopsOnly = true } }

// WithThreads runs timing mode on the parallel window engine with n
// threads (0: one per core, runtime.NumCPU): the SMs and the memory system
// advance concurrently through windows of a few cycles, and global memory
// values are applied in the order the serial engine would have issued
// them (see sim/timing's package comment, Engines). Every figure is the
// same for every n and every run; they may differ from the serial
// engine's, which runs without the option (the library's default; the
// command line's is this engine). It needs the sectored L1 and L2, and
// does not yet support traces, a monitor or akita's parallel engine: New
// refuses those with a *timing.UnsupportedError. Functional execution
// (functional mode, and sampled mode's functional launches and
// stretches) runs its rounds' SMs on n threads too (exec.RunOptions'
// Threads), with the same result for every n.
func WithThreads(n int) Option { return func(o *options) { o.threads = max(n, 0) } }

// Threads returns the window engine's thread count (0: the serial engine),
// which functional execution uses too (0: one thread).
func (d *Device) Threads() int { return max(d.opts.threads, 0) }

// WithDeadlockWindow overrides the configuration's deadlock window (in
// cycles) in timing mode.
func WithDeadlockWindow(cycles int) Option { return func(o *options) { o.deadlockWindow = cycles } }

// WithMonitor lets m (StartMonitor) watch the device: New builds its timing
// model at once and registers the engine and components with akita's web
// monitor, and each launch shows a progress bar of its CTAs. Watching does
// not change the simulated results (see Monitor). Functional mode runs no
// akita engine, so New refuses the option with it.
func WithMonitor(m *Monitor) Option { return func(o *options) { o.monitor = m } }

// WithMemoryLimit caps the simulated global memory (default: the
// configuration's GlobalMemBytes).
func WithMemoryLimit(bytes uint64) Option { return func(o *options) { o.memLimit = bytes } }

// WithBoundsCheck has every kernel's global access checked against the
// bytes its allocation asked for (exec.Memory.SetCheckBounds): the launch
// then faults at the first access past a buffer's end, into the padding
// that rounds allocations up or into a neighbour, where the GPU and the
// default simulation let it pass. It changes no figure of a run that
// stays in bounds.
func WithBoundsCheck() Option { return func(o *options) { o.boundsCheck = true } }

// New returns a simulated device with configuration cfg.
func New(cfg Config, opts ...Option) (*Device, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{memLimit: cfg.GlobalMemBytes, mode: ModeTiming, threads: -1, roundsIssue: SampleRoundsIssue}
	for _, f := range opts {
		f(&o)
	}
	if o.threads == 0 {
		o.threads = runtime.NumCPU()
	}
	if o.threads > 0 {
		if err := o.checkThreads(); err != nil {
			return nil, err
		}
	}
	if _, err := ParseMode(string(o.mode)); err != nil {
		return nil, err
	}
	if o.monitor != nil && o.mode != ModeTiming {
		return nil, fmt.Errorf("sim: the monitor watches timing mode's akita engine; %s mode has none", o.mode)
	}
	if err := o.profiling.check(&o); err != nil {
		return nil, err
	}
	if o.deadlockWindow > 0 {
		cfg.SM.DeadlockWindowCycles = o.deadlockWindow
	}
	if o.mode != ModeFunctional {
		if err := cfg.SM.Validate(); err != nil {
			return nil, fmt.Errorf("sim: config %s: %w", cfg.Name, err)
		}
		if err := cfg.Memory.Validate(); err != nil {
			return nil, fmt.Errorf("sim: config %s: %w", cfg.Name, err)
		}
	}
	d := &Device{cfg: cfg, opts: o, mem: exec.NewMemoryOf(o.deviceIndex, o.memLimit), mods: map[*kernels.Module]*exec.Module{}}
	d.mem.SetCheckBounds(o.boundsCheck)
	if o.mode == ModeSampled {
		p := defaultSamplePolicy
		if o.samplePolicy != nil {
			p = *o.samplePolicy
		}
		if o.sampleInside > 0 {
			p.ratio = uint64(o.sampleInside)
		}
		d.sampler = newSampler(p)
		d.sampler.inside = o.sampleInside > 0
	}
	if cfg.AttrsGPU != "" {
		t, err := kernels.LoadAttrs(cfg.AttrsGPU)
		switch {
		case err == nil:
			d.attrs = t
		case errors.Is(err, kernels.ErrNoAttrs):
			// No measured table yet: residency uses the register estimate.
		default:
			return nil, fmt.Errorf("sim: config %s: %w", cfg.Name, err)
		}
	}
	if o.monitor != nil || o.threads > 0 && o.mode != ModeFunctional {
		// Build the timing model now, so that the page lists the
		// components from the start rather than from the first launch,
		// and so that what the window engine cannot simulate is refused
		// here.
		if _, err := d.timingGPU(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// checkThreads refuses, with a *timing.UnsupportedError, options the
// window engine (WithThreads) does not support.
func (o *options) checkThreads() error {
	switch {
	case o.parallel:
		return &timing.UnsupportedError{What: "akita's parallel engine"}
	case o.monitor != nil:
		return &timing.UnsupportedError{What: "the monitor"}
	case o.profiling != nil && o.profiling.tracePath != "":
		return &timing.UnsupportedError{What: "traces"}
	}
	return nil
}

// Config returns the device's configuration.
func (d *Device) Config() Config { return d.cfg }

// Mode returns the device's execution mode.
func (d *Device) Mode() Mode { return d.opts.mode }

// LastStats returns the structured statistics of the last launch in timing
// mode, or in sampled mode when it ran in detail (nil before one, in
// functional mode, and after a sampled launch run functionally).
func (d *Device) LastStats() *timing.Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastStats
}

// Properties reports the configuration as kernels.Properties.
func (d *Device) Properties() kernels.Properties {
	c := d.cfg
	return kernels.Properties{
		Name:               "warpgraph sim " + c.Name,
		ComputeCapability:  c.ComputeCapability,
		SMs:                c.SMs,
		WarpSize:           c.WarpSize,
		RegistersPerSM:     c.RegistersPerSM,
		RegistersPerCTA:    c.RegistersPerCTA,
		SharedMemPerSM:     c.SharedMemPerSM,
		SharedMemPerCTA:    c.SharedMemPerCTA,
		MaxThreadsPerCTA:   c.MaxThreadsPerCTA,
		MaxThreadsPerSM:    c.MaxThreadsPerSM,
		MaxWarpsPerSM:      c.MaxWarpsPerSM,
		MaxCTAsPerSM:       c.MaxCTAsPerSM,
		ClockKHz:           c.ClockMHz * 1000,
		GlobalMemBytes:     c.GlobalMemBytes,
		RegisterAllocUnit:  c.RegisterAllocUnit,
		SharedMemAllocUnit: c.SharedMemAllocUnit,
	}
}

var errClosed = errors.New("sim: device is closed")

// module returns the loaded form of k's module, parsing its PTX once.
// d.mu is held.
func (d *Device) module(k *kernels.Kernel) (*exec.Module, error) {
	if d.closed {
		return nil, errClosed
	}
	if k == nil || k.Module == nil {
		return nil, errors.New("sim: kernel without a module")
	}
	if m, ok := d.mods[k.Module]; ok {
		return m, nil
	}
	pm, err := d.parse(k.Module)
	if err != nil {
		return nil, err
	}
	m, err := exec.LoadModule(pm, d.mem)
	if err != nil {
		return nil, fmt.Errorf("sim: load module %s: %w", k.Module.Name, err)
	}
	d.mods[k.Module] = m
	return m, nil
}

// program returns k's prepared program. d.mu is held.
func (d *Device) program(k *kernels.Kernel) (*exec.Program, error) {
	m, err := d.module(k)
	if err != nil {
		return nil, err
	}
	p, err := m.Program(k.Name)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	return p, nil
}

// parse returns km parsed in this device's form (parsedModule: once per
// module and form). Sampled mode runs timing's form in both of its paths,
// so that its functional launches execute the instructions its detailed
// ones do.
func (d *Device) parse(km *kernels.Module) (*ptx.Module, error) {
	floatAddLoop, hoist := d.parseForm()
	return parsedModule(km, floatAddLoop, hoist)
}

// parseForm returns the load-time passes this device's parse applies.
func (d *Device) parseForm() (floatAddLoop, hoist bool) {
	timed := d.Mode() != ModeFunctional
	return timed && d.cfg.SM.SharedFloatAddLoop, timed && d.cfg.SM.HoistLoads
}

// Prefetch parses km in the background as this device's first launch of
// one of its kernels would (parse), so that it overlaps other start-up
// work such as loading a graph. Errors are left for that launch to report.
func (d *Device) Prefetch(km *kernels.Module) {
	if km == nil {
		return
	}
	floatAddLoop, hoist := d.parseForm() // read here: the goroutine touches no device state
	go func() { _, _ = parsedModule(km, floatAddLoop, hoist) }()
}

// Load parses k's module (once per module) and prepares k.
func (d *Device) Load(k *kernels.Kernel) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.program(k)
	return err
}

// Alloc reserves zeroed global memory.
func (d *Device) Alloc(bytes int) (kernels.DevPtr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, errClosed
	}
	a, err := d.mem.Alloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("sim: %w", err)
	}
	return kernels.DevPtr(a), nil
}

// Free releases an allocation.
func (d *Device) Free(p kernels.DevPtr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if err := d.mem.Free(uint64(p)); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

// CopyToDevice copies src to device memory at dst.
func (d *Device) CopyToDevice(dst kernels.DevPtr, src []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if err := d.mem.Write(uint64(dst), src); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	d.hostClock += d.cfg.Host.uploadCost(len(src))
	return nil
}

// CopyFromDevice copies device memory at src into dst.
func (d *Device) CopyFromDevice(dst []byte, src kernels.DevPtr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if err := d.mem.Read(dst, uint64(src)); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	d.hostClock += d.cfg.Host.downloadCost(len(dst))
	return nil
}

// Memset sets bytes of device memory at p to value.
func (d *Device) Memset(p kernels.DevPtr, value byte, bytes int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if err := d.mem.Fill(uint64(p), value, bytes); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	d.hostClock += d.cfg.Host.memsetCost(bytes, d.cfg.Memory.DRAMBandwidthGBPerS)
	return nil
}

// MemoryBytes is the size of the simulated global memory image.
func (d *Device) MemoryBytes() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mem.Size()
}

// Close releases the device's memory; later calls fail.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	d.mem = exec.NewMemory(1)
	d.mods = nil
	d.gpu = nil
	return d.opts.profiling.close()
}

// kernelAttrs are k's resource needs: measured (kernels/attrs) when the
// configuration has a table with an up-to-date record, else estimated.
// d.mu is held.
type kernelAttrs struct {
	kernels.KernelAttrs
	measured *kernels.KernelAttrRecord // nil when estimated
}

func (d *Device) attributes(k *kernels.Kernel) (kernelAttrs, error) {
	p, err := d.program(k)
	if err != nil {
		return kernelAttrs{}, err
	}
	e := p.Entry
	a := kernelAttrs{KernelAttrs: kernels.KernelAttrs{
		RegistersPerThread: min(max(e.RegEstimate.Regs32, 1), d.cfg.MaxRegistersPerThread),
		StaticSharedMem:    e.StaticSharedSize,
		LocalMemPerThread:  p.LocalBytes(),
	}}
	if e.MaxNReg > 0 {
		a.RegistersPerThread = min(a.RegistersPerThread, e.MaxNReg)
	}
	if d.attrs != nil {
		if r, ok := d.attrs.Lookup(k.Name); ok && r.PTXSHA256 == k.Module.SHA256() {
			a.RegistersPerThread = r.RegistersPerThread
			a.StaticSharedMem = r.StaticSharedMem
			a.LocalMemPerThread = r.LocalMemPerThread
			a.measured = r
		}
	}
	limit := d.cfg.MaxThreadsPerCTA
	if n := e.MaxNTID; n[0] > 0 {
		limit = min(limit, max(n[0], 1)*max(n[1], 1)*max(n[2], 1))
	}
	if n := e.ReqNTID; n[0] > 0 {
		limit = min(limit, max(n[0], 1)*max(n[1], 1)*max(n[2], 1))
	}
	// The register file bounds the block too (as cudaFuncGetAttributes
	// reports it): whole warps whose registers fit one CTA.
	perWarp := d.regsPerWarp(a.RegistersPerThread)
	limit = min(limit, d.cfg.RegistersPerCTA/perWarp*32)
	if a.measured != nil {
		limit = min(limit, a.measured.MaxThreadsPerCTA)
	}
	a.MaxThreadsPerCTA = limit
	return a, nil
}

func (d *Device) regsPerWarp(regsPerThread int) int {
	u := d.cfg.RegisterAllocUnit
	return (regsPerThread*32 + u - 1) / u * u
}

// Attributes reports k's registers per thread (measured, else estimated),
// static shared memory, local memory and largest block.
func (d *Device) Attributes(k *kernels.Kernel) (kernels.KernelAttrs, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, err := d.attributes(k)
	return a.KernelAttrs, err
}

// occupancy is CTAs of k per SM for a block size and dynamic shared
// memory, with the reason that limits it. d.mu is held.
func (d *Device) occupancy(k *kernels.Kernel, a kernelAttrs, blockThreads, dynamicSmem int) (int, string) {
	c := d.cfg
	if a.measured != nil {
		if n, ok := a.measured.CTAsPerSM(blockThreads, dynamicSmem); ok {
			return n, "measured occupancy (kernels/attrs/" + c.AttrsGPU + ".json)"
		}
	}
	warps := (blockThreads + 31) / 32
	n, why := c.MaxCTAsPerSM, fmt.Sprintf("at most %d CTAs per SM", c.MaxCTAsPerSM)
	lim := func(v int, reason string) {
		if v < n {
			n, why = v, reason
		}
	}
	lim(c.MaxWarpsPerSM/warps, fmt.Sprintf("%d warps per CTA of %d per SM", warps, c.MaxWarpsPerSM))
	lim(c.MaxThreadsPerSM/(warps*32), fmt.Sprintf("%d threads per CTA of %d per SM", warps*32, c.MaxThreadsPerSM))
	perWarp := d.regsPerWarp(a.RegistersPerThread)
	lim(c.RegistersPerSM/perWarp/warps, fmt.Sprintf("%d registers per thread (%d per warp) of %d per SM", a.RegistersPerThread, perWarp, c.RegistersPerSM))
	smem := a.StaticSharedMem + dynamicSmem + c.SharedMemReservedPerCTA
	if smem > 0 {
		u := c.SharedMemAllocUnit
		smem = (smem + u - 1) / u * u
		lim(c.SharedMemPerSM/smem, fmt.Sprintf("%d bytes of shared memory per CTA of %d per SM", smem, c.SharedMemPerSM))
	}
	return max(n, 0), why
}

// Occupancy returns how many CTAs of k fit on one SM at once.
func (d *Device) Occupancy(k *kernels.Kernel, blockThreads, dynamicSmem int) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a, err := d.attributes(k)
	if err != nil {
		return 0, err
	}
	if blockThreads <= 0 || blockThreads > a.MaxThreadsPerCTA {
		return 0, &kernels.LaunchResourceError{Kernel: k.Name, Detail: fmt.Sprintf("block of %d threads; the kernel allows 1 to %d", blockThreads, a.MaxThreadsPerCTA)}
	}
	n, _ := d.occupancy(k, a, blockThreads, dynamicSmem)
	return n, nil
}

// checkLaunch applies the hardware's launch rules and returns the number
// of co-resident CTAs. d.mu is held.
func (d *Device) checkLaunch(k *kernels.Kernel, a kernelAttrs, cfg kernels.LaunchConfig) (int, error) {
	fail := func(format string, args ...any) (int, error) {
		return 0, &kernels.LaunchResourceError{Kernel: k.Name, Detail: fmt.Sprintf(format, args...)}
	}
	b, g := cfg.Block, cfg.Grid
	for _, v := range []int{b.X, b.Y, b.Z, g.X, g.Y, g.Z} {
		if v < 0 {
			return fail("negative extent in grid %+v or block %+v", g, b)
		}
	}
	bx, by, bz := max(b.X, 1), max(b.Y, 1), max(b.Z, 1)
	if bx > 1024 || by > 1024 || bz > 64 {
		return fail("block %dx%dx%d exceeds the per-dimension limits 1024x1024x64", bx, by, bz)
	}
	threads := b.Count()
	if threads > a.MaxThreadsPerCTA {
		return fail("block of %d threads exceeds the kernel's limit of %d (device %d, %d registers per thread)",
			threads, a.MaxThreadsPerCTA, d.cfg.MaxThreadsPerCTA, a.RegistersPerThread)
	}
	if gx, gy, gz := max(g.X, 1), max(g.Y, 1), max(g.Z, 1); gx > 1<<31-1 || gy > 65535 || gz > 65535 {
		return fail("grid %dx%dx%d exceeds the limits 2147483647x65535x65535", gx, gy, gz)
	}
	if cfg.DynamicSharedMem < 0 {
		return fail("negative dynamic shared memory")
	}
	if smem := a.StaticSharedMem + cfg.DynamicSharedMem; smem > d.cfg.SharedMemPerCTA {
		return fail("%d bytes of shared memory (%d static + %d dynamic) exceed the %d-byte limit per CTA",
			smem, a.StaticSharedMem, cfg.DynamicSharedMem, d.cfg.SharedMemPerCTA)
	}
	if regs := d.regsPerWarp(a.RegistersPerThread) * ((threads + 31) / 32); regs > d.cfg.RegistersPerCTA {
		return fail("%d registers per CTA exceed the limit of %d", regs, d.cfg.RegistersPerCTA)
	}
	perSM, why := d.occupancy(k, a, threads, cfg.DynamicSharedMem)
	if perSM == 0 {
		return fail("no CTA fits on an SM (%s)", why)
	}
	resident := perSM * d.cfg.SMs
	if cfg.Cooperative && g.Count() > resident {
		return fail("cooperative grid of %d CTAs exceeds the %d that can be co-resident (%d per SM, limited by %s, on %d SMs)",
			g.Count(), resident, perSM, why, d.cfg.SMs)
	}
	return resident, nil
}

// Launch runs k to completion. ctx bounds the wall time. In functional
// mode the counters are warp_instructions, thread_instructions, ctas and
// max_resident_ctas; in timing mode every counter of timing.Stats.Counters
// (LastStats has the structured form), with Cycles and Elapsed, the
// kernel's own simulated time. In sampled mode a launch simulated in
// detail reports as in timing mode, one run functionally as in functional
// mode plus its predicted cycles (Cycles, Elapsed and the counters cycles
// and sms). A launch that started (even one that ends
// in an error) advances the host clock (HostClock) by the configuration's
// host.launch_ns + the kernel's event time + host.sync_ns, where the event
// time is host.kernel_overhead_ns plus, in timing and sampled mode, the
// (simulated or predicted) cycles at the clock (and is the launch's
// Elapsed in those modes).
func (d *Device) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var stats kernels.LaunchStats
	if k == nil {
		return stats, errors.New("sim: launch of a nil kernel")
	}
	params, err := k.PackArgs(args...)
	if err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	p, err := d.program(k)
	if err != nil {
		return stats, err
	}
	a, err := d.attributes(k)
	if err != nil {
		return stats, err
	}
	resident, err := d.checkLaunch(k, a, cfg)
	if err != nil {
		return stats, err
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("sim: kernel %s not started: %w", k.Name, err)
	}
	d.launches++
	el := d.execLaunch(cfg, params)
	switch d.opts.mode {
	case ModeTiming:
		return d.launchTiming(ctx, k, a, cfg, p, el)
	case ModeSampled:
		return d.launchSampled(ctx, k, a, cfg, p, el, resident)
	}
	return d.launchFunctional(ctx, p, el, resident, nil)
}

// execLaunch is the executor's description of a launch of cfg with the
// packed parameters on this device, its d.launches-th.
func (d *Device) execLaunch(cfg kernels.LaunchConfig, params []byte) exec.Launch {
	return exec.Launch{
		Grid:           [3]int{max(cfg.Grid.X, 1), max(cfg.Grid.Y, 1), max(cfg.Grid.Z, 1)},
		Block:          [3]int{max(cfg.Block.X, 1), max(cfg.Block.Y, 1), max(cfg.Block.Z, 1)},
		DynamicShared:  cfg.DynamicSharedMem,
		Params:         params,
		SMs:            d.cfg.SMs,
		WarpSlotsPerSM: d.cfg.MaxWarpsPerSM,
		GridID:         d.launches,
		// Volta and later schedule a warp's threads independently.
		IndependentThreads: d.cfg.ComputeCapability[0] >= 7,
	}
}

// launchFunctional runs a launch functionally. predict, when not nil
// (sampled mode), gives the cycles to charge a launch that completed.
// d.mu is held.
func (d *Device) launchFunctional(ctx context.Context, p *exec.Program, el exec.Launch, resident int, predict func(*exec.Grid) uint64) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	g, err := exec.NewGrid(p, d.mem, el)
	if err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	var runErr error
	stats.Counters, runErr = d.runFunctional(ctx, g, resident)
	if predict != nil && runErr == nil {
		stats.Cycles = predict(g)
		stats.Elapsed = d.cfg.Host.kernelTime(stats.Cycles, d.cfg.ClockMHz)
		stats.Counters["cycles"] = float64(stats.Cycles)
		stats.Counters["sms"] = float64(d.cfg.SMs)
	}
	d.hostClock += d.cfg.Host.launchCost(d.cfg.Host.kernelTime(stats.Cycles, d.cfg.ClockMHz))
	if runErr != nil {
		return stats, fmt.Errorf("sim: %w", runErr)
	}
	return stats, nil
}

// runFunctional runs grid g functionally with the device's options,
// resident CTAs at once, and returns its counters.
//
// On a sampled device whose timing model has run, the grid's global
// accesses warm that model's L2 tags (warmL2), so that a detailed launch
// after functional ones finds in the L2 what they would have left there.
func (d *Device) runFunctional(ctx context.Context, g *exec.Grid, resident int) (map[string]float64, error) {
	opt := exec.RunOptions{Resident: resident, Slice: d.opts.slice, QuietWindow: d.opts.quietWindow, Threads: d.Threads()}
	if d.sampler != nil && d.gpu != nil {
		opt.Warm, opt.WarmPartOf = warmL2(d.gpu), d.gpu.Memory().WarmL2SliceOf
	}
	err := g.Run(ctx, opt)
	return map[string]float64{
		"warp_instructions":   float64(g.WarpInsts),
		"thread_instructions": float64(g.ThreadInsts),
		"ctas":                float64(g.CTAs()),
		"max_resident_ctas":   float64(min(resident, g.CTAs())),
	}, err
}

// timingGPU returns the device's timing model, building it on first use.
// d.mu is held.
func (d *Device) timingGPU() (*timing.GPU, error) {
	if d.gpu != nil {
		return d.gpu, nil
	}
	c := d.cfg
	g, err := d.timingBuilder().
		WithProfile(d.opts.profiling.profiles()).
		Build("GPU")
	if err != nil {
		return nil, fmt.Errorf("sim: config %s: %w", c.Name, err)
	}
	if err := d.opts.profiling.attach(g); err != nil {
		return nil, err
	}
	d.gpu = g
	if d.opts.monitor != nil {
		d.opts.monitor.attach(g)
	}
	return g, nil
}

// launchTiming runs a launch on the timing model. d.mu is held.
func (d *Device) launchTiming(ctx context.Context, k *kernels.Kernel, a kernelAttrs, cfg kernels.LaunchConfig, p *exec.Program, el exec.Launch) (kernels.LaunchStats, error) {
	return d.launchTimingProbed(ctx, k, a, cfg, p, el, nil)
}

// launchTimingProbed runs a launch on the timing model; with probe (sampled
// mode) the launch may stop in steady state and finish functionally, its
// cycles extrapolated (sampled_launch.go). d.mu is held.
func (d *Device) launchTimingProbed(ctx context.Context, k *kernels.Kernel, a kernelAttrs, cfg kernels.LaunchConfig, p *exec.Program, el exec.Launch, probe *stretchProbe) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	gpu, err := d.timingGPU()
	if err != nil {
		return stats, err
	}
	el.Clock = gpu.Clock
	g, err := exec.NewGrid(p, d.mem, el)
	if err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	l := d.timingLaunch(g, a, cfg)
	if d.opts.monitor != nil {
		d.opts.monitor.beginLaunch(k.Name, g.CTAs())
	}
	var st timing.Stats
	var runErr error
	var counters map[string]float64
	if probe != nil {
		st, counters, runErr = d.runInStretches(ctx, gpu, l, probe)
	} else {
		st, runErr = gpu.Run(ctx, l)
		d.opts.profiling.record(gpu, runErr)
		counters = st.Counters()
	}
	d.lastStats = &st
	stats.Cycles = st.Cycles
	stats.Elapsed = d.cfg.Host.kernelTime(st.Cycles, d.cfg.ClockMHz)
	d.hostClock += d.cfg.Host.launchCost(stats.Elapsed)
	stats.Counters = counters
	if runErr != nil {
		return stats, fmt.Errorf("sim: %w", runErr)
	}
	return stats, nil
}

// timingLaunch describes grid g of a launch of cfg to the timing model:
// what each CTA holds on its SM.
func (d *Device) timingLaunch(g *exec.Grid, a kernelAttrs, cfg kernels.LaunchConfig) timing.Launch {
	threads := cfg.Block.Count()
	warps := (threads + 31) / 32
	smem := a.StaticSharedMem + cfg.DynamicSharedMem + d.cfg.SharedMemReservedPerCTA
	if smem > 0 {
		u := d.cfg.SharedMemAllocUnit
		smem = (smem + u - 1) / u * u
	}
	l := timing.Launch{
		Grid:               g,
		ThreadsPerCTA:      threads,
		WarpsPerCTA:        warps,
		RegistersPerThread: a.RegistersPerThread,
		RegistersPerCTA:    d.regsPerWarp(a.RegistersPerThread) * warps,
		SharedPerCTA:       smem,
	}
	if a.measured != nil {
		if n, ok := a.measured.CTAsPerSM(threads, cfg.DynamicSharedMem); ok {
			l.MaxCTAsPerSM = n
			l.CapReason = "measured occupancy, kernels/attrs/" + d.cfg.AttrsGPU + ".json"
		}
	}
	return l
}

// timingBuilder is the builder of the device's timing model (timingGPU).
func (d *Device) timingBuilder() timing.Builder {
	c := d.cfg
	return timing.MakeBuilder().
		WithFreq(akitasim.Freq(c.ClockMHz) * akitasim.MHz).
		WithSMConfig(c.SM).
		WithMemoryConfig(c.Memory).
		WithLimits(timing.Limits{
			SMs:             c.SMs,
			MaxWarpsPerSM:   c.MaxWarpsPerSM,
			MaxCTAsPerSM:    c.MaxCTAsPerSM,
			MaxThreadsPerSM: c.MaxThreadsPerSM,
			RegistersPerSM:  c.RegistersPerSM,
			SharedMemPerSM:  c.SharedMemPerSM,
		}).
		WithParallelEngine(d.opts.parallel).
		WithHitsAsMessages(d.opts.hitsAsMessages).
		WithThreads(max(d.opts.threads, 0))
}

// parseKey names one parse of a kernel module: its text as shipped, or
// with the shared float adds expanded into their loop, and with its loads
// hoisted or in clang's order.
type parseKey struct {
	mod                 weak.Pointer[kernels.Module]
	floatAddLoop, hoist bool
}

type parseEntry struct {
	once sync.Once
	mod  *ptx.Module
	err  error
}

// parsedModules holds every parse the process has made, shared by its
// Devices: a sweep or a test suite makes a Device per run, and a module
// holds a few hundred kernels. A parsed module is not changed after its
// load-time passes (the expansion and the hoisting, which the key names);
// each Device lowers and allocates its own exec.Module from it
// (checkModule has lowered each entry once). An entry goes when its
// kernels.Module is collected (modules made by kernels.ParseModule come
// and go).
var parsedModules sync.Map // parseKey → *parseEntry

func parsedModule(km *kernels.Module, floatAddLoop, hoist bool) (*ptx.Module, error) {
	key := parseKey{weak.Make(km), floatAddLoop, hoist}
	v, loaded := parsedModules.LoadOrStore(key, &parseEntry{})
	if !loaded {
		runtime.AddCleanup(km, func(k parseKey) { parsedModules.Delete(k) }, key)
	}
	e := v.(*parseEntry)
	e.once.Do(func() {
		if e.mod, e.err = parseModule(km, floatAddLoop, hoist); e.err == nil {
			e.err = checkModule(km, e.mod)
		}
	})
	return e.mod, e.err
}

// checkModule lowers every entry of a parse once, on a memory of its own,
// so that loading a module names every instruction it cannot run, in any
// of its kernels; a Device then lowers only the entries it runs.
func checkModule(km *kernels.Module, pm *ptx.Module) error {
	m, err := exec.LoadModule(pm, exec.NewMemory(0))
	if err == nil {
		err = m.Check()
	}
	if err != nil {
		return fmt.Errorf("sim: load module %s: %w", km.Name, err)
	}
	return nil
}

func parseModule(km *kernels.Module, floatAddLoop, hoist bool) (*ptx.Module, error) {
	text := km.PTX
	if floatAddLoop {
		expanded, n, err := ptx.ExpandSharedFloatAdds(text)
		if err != nil {
			return nil, fmt.Errorf("sim: load module %s: %w", km.Name, err)
		}
		if n > 0 {
			text = expanded
		}
	}
	pm, err := ptx.Parse(km.Name+".ptx", text)
	if err != nil {
		return nil, fmt.Errorf("sim: load module %s: %w", km.Name, err)
	}
	if hoist {
		for _, fn := range pm.Funcs {
			ptx.HoistLoads(fn)
		}
	}
	return pm, nil
}
