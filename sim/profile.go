package sim

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/ptx"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Where the cycles went, by source line.
//
// A Device built WithProfile (or WithProfileInto) profiles each of its
// timing-mode launches (timing.Builder.WithProfile): every cycle of every
// warp of the grid, from the launch's first cycle to its last, is charged
// to one timing.Reason, and, while the warp is resident, to the PTX
// instruction it is at. A Profile accumulates the launches per kernel and
// ranks the cycles by CUDA source line (from the PTX .loc directives) and
// by PTX instruction (Report). Launches that end in an error (a
// deadlock, a time limit) are profiled up to where they stopped, which is
// where a deadlocked barrier's warps spun.

// profiling is a Device's WithProfile and WithTrace settings, and its
// tracer once attached. Its methods do nothing on a nil receiver.
type profiling struct {
	profile   *Profile
	tracePath string
	tracer    *tracer
}

func (o *options) profilingOpts() *profiling {
	if o.profiling == nil {
		o.profiling = &profiling{}
	}
	return o.profiling
}

// WithProfile makes the device profile its timing-mode launches; Profile
// returns what it accumulated. Profiling does not change the simulation.
// Functional mode has no cycles to profile, so New refuses the option
// with it.
func WithProfile() Option { return WithProfileInto(NewProfile()) }

// WithProfileInto is WithProfile accumulating into p, which several
// devices may share (one after another, or at once: p locks).
func WithProfileInto(p *Profile) Option {
	return func(o *options) { o.profilingOpts().profile = p }
}

// Profile returns the profile the device accumulates (WithProfile), nil
// when it does not profile. It stays readable after Close.
func (d *Device) Profile() *Profile {
	if d.opts.profiling == nil {
		return nil
	}
	return d.opts.profiling.profile
}

// check refuses profiling and tracing where they cannot work.
func (p *profiling) check(o *options) error {
	if p == nil {
		return nil
	}
	if o.mode != ModeTiming {
		return fmt.Errorf("sim: profiles and traces are of timing mode's cycles; %s mode has none", o.mode)
	}
	if p.tracePath != "" && o.parallel {
		return errors.New("sim: akita's trace database is written from one goroutine; trace on the serial engine")
	}
	return nil
}

// profiles says whether the timing model must profile.
func (p *profiling) profiles() bool { return p != nil && p.profile != nil }

// record adds the profile of gpu's last launch, which ended with err.
func (p *profiling) record(gpu *timing.GPU, err error) {
	if !p.profiles() {
		return
	}
	if lp := gpu.Profile(); lp != nil {
		p.profile.add(lp, outcomeOf(err))
	}
}

// close ends the trace, if any.
func (p *profiling) close() error {
	if p == nil || p.tracer == nil {
		return nil
	}
	err := p.tracer.close()
	p.tracer = nil
	return err
}

// Launch outcomes, as a profile records them.
const (
	OutcomeCompleted = "completed"
	OutcomeDeadlock  = "deadlock"
	OutcomeStopped   = "stopped" // the context ended it (a time limit)
	OutcomeFailed    = "failed"  // another error (a memory fault)
)

func outcomeOf(err error) string {
	var dl *kernels.DeadlockError
	switch {
	case err == nil:
		return OutcomeCompleted
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		return OutcomeStopped
	case errors.As(err, &dl):
		return OutcomeDeadlock
	}
	return OutcomeFailed
}

// Profile accumulates launch profiles per kernel. Its zero value is not
// usable: use NewProfile. It is safe for concurrent use.
type Profile struct {
	mu       sync.Mutex
	kernels  map[string]*kernelProfile
	order    []string // kernels in the order of their first launch
	launches []launchProfile
}

// NewProfile returns an empty profile.
func NewProfile() *Profile { return &Profile{kernels: map[string]*kernelProfile{}} }

// kernelProfile is the accumulated profile of one kernel.
type kernelProfile struct {
	name, module string
	launches     int
	warps        uint64
	cycles       uint64
	warpCycles   uint64
	notResident  uint64
	finished     uint64
	unbalanced   int
	insts        map[instKey]*instProfile
}

// instKey names an instruction across devices (which parse a module each).
type instKey struct {
	fn string
	pc int
}

type instProfile struct {
	fn          string
	pc, ptxLine int
	file        string
	line        int
	near        string // for a header line: the first other file's line after it
	text        string
	counts      timing.ReasonCounts
}

// launchProfile summarises one launch.
type launchProfile struct {
	kernel      string
	ctas, warps int // CTAs, warps per CTA
	cycles      uint64
	outcome     string
	counts      timing.ReasonCounts
}

// add accumulates one launch.
func (p *Profile) add(lp *timing.LaunchProfile, outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.kernels[lp.Kernel]
	if !ok {
		k = &kernelProfile{name: lp.Kernel, insts: map[instKey]*instProfile{}}
		if lp.Module != nil {
			k.module = strings.TrimSuffix(lp.Module.Name, ".ptx")
		}
		p.kernels[lp.Kernel] = k
		p.order = append(p.order, lp.Kernel)
	}
	k.launches++
	k.warps += lp.Warps()
	k.cycles += lp.Cycles
	k.warpCycles += lp.WarpCycles()
	k.notResident += lp.NotResident
	k.finished += lp.Finished
	k.unbalanced += lp.Unbalanced
	for fn, counts := range lp.Insts {
		for pc := range counts {
			c := &counts[pc]
			if c.Total() == 0 {
				continue
			}
			key := instKey{fn.Name, pc}
			ip, ok := k.insts[key]
			if !ok {
				ip = newInstProfile(lp.Module, fn, pc)
				k.insts[key] = ip
			}
			ip.counts.Add(c)
		}
	}
	p.launches = append(p.launches, launchProfile{kernel: lp.Kernel, ctas: lp.CTAs, warps: lp.WarpsPerCTA,
		cycles: lp.Cycles, outcome: outcome, counts: lp.Totals()})
}

func newInstProfile(m *ptx.Module, fn *ptx.Function, pc int) *instProfile {
	in := &fn.Insts[pc]
	ip := &instProfile{fn: fn.Name, pc: pc, ptxLine: int(in.Pos.PTXLine), text: fn.InstString(m, pc)}
	if m == nil {
		return ip
	}
	if f := sourceFileOf(m, in.Pos); f != "" {
		ip.file, ip.line = f, int(in.Pos.Line)
		if isHeaderFile(f) {
			for next := pc + 1; next < len(fn.Insts) && next <= pc+8; next++ {
				q := fn.Insts[next].Pos
				if g := sourceFileOf(m, q); g != "" && q.File != in.Pos.File {
					ip.near = fmt.Sprintf("%s:%d", g, q.Line)
					break
				}
			}
		}
	}
	return ip
}

// sourceFileOf is a position's source file, cleaned, "" when unknown (as
// exec.Where names it).
func sourceFileOf(m *ptx.Module, p ptx.Pos) string {
	if p.Line <= 0 || int(p.File) >= len(m.Files) || m.Files[p.File] == "" {
		return ""
	}
	f := m.Files[p.File]
	if strings.HasPrefix(f, "./") {
		return "./" + path.Clean(f)
	}
	return f
}

func isHeaderFile(file string) bool {
	switch path.Ext(file) {
	case ".h", ".hh", ".hpp", ".cuh", ".inc":
		return true
	}
	return false
}

// Launches returns the number of launches profiled.
func (p *Profile) Launches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.launches)
}

// Unbalanced counts the warps whose charged cycles did not add up to
// their lifetime: 0 unless the profiler has a bug.
func (p *Profile) Unbalanced() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, k := range p.kernels {
		n += k.unbalanced
	}
	return n
}
