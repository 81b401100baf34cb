package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// System is several simulated GPUs of one configuration joined by the
// configuration's link (its `system:` section, SystemConfig): it
// implements kernels.System, kernels.PeerSystem and kernels.LinkCounter.
// Each device has its own memory, SMs, L2 and DRAM, and its own host clock
// (HostClock); the memories share one address space (device i's starts at
// exec.DeviceBase(i)), so a pointer names one device's memory wherever it
// is used, and a co-launch's kernels reach every device's (CoLaunch). The
// system's clock (Clock) starts at 0 and advances by each Parallel step's
// slowest device and by each CopyPeer batch's time under the link model
// (LinkConfig). Devices share nothing, so the results and the clock do not
// depend on the order in which the goroutines of a step run.
type System struct {
	cfg  FullConfig
	devs []*Device
	// kdevs are devs as kernels.Device, for Devices and RunParallel.
	kdevs []kernels.Device
	link  linkModel

	// coGPU is the timing model of co-launches (coTiming), built on the
	// first one in timing mode.
	coGPU *timing.GPU

	mu     sync.Mutex
	clock  time.Duration
	bytes  [][]uint64 // bytes[i][j]: what device i sent device j
	busy   time.Duration
	queued time.Duration
}

var (
	_ kernels.System      = (*System)(nil)
	_ kernels.PeerSystem  = (*System)(nil)
	_ kernels.LinkCounter = (*System)(nil)
)

// OpenSystem loads a configuration (a shipped name, an inline override or
// a YAML path, as Open) and starts gpus devices on it, each built by New
// with the same configuration and options. gpus must be between 1 and the
// configuration's system.gpus (1 for a configuration without a `system:`
// section).
//
// Options are applied to each device in turn. WithProfileInto's profile
// is shared by the devices (it locks); WithMonitor and WithTrace watch
// one device's engine and are refused for more than one GPU.
func OpenSystem(nameOrPath string, gpus int, opts ...Option) (*System, error) {
	f, err := LoadConfig(nameOrPath)
	if err != nil {
		return nil, err
	}
	limit := f.System.MaxGPUs()
	switch {
	case gpus < 1:
		return nil, fmt.Errorf("sim: a system needs at least 1 GPU, got %d", gpus)
	case gpus > limit && !f.System.present():
		return nil, fmt.Errorf("sim: configuration %s has no system: section, so a system of it has 1 GPU; asked for %d (name a configuration with one, e.g. h100-x8-nvlink)", f.Name, gpus)
	case gpus > limit:
		return nil, fmt.Errorf("sim: configuration %s has at most %d GPUs (system.gpus); asked for %d", f.Name, limit, gpus)
	}
	if gpus > 1 {
		var o options
		for _, opt := range opts {
			opt(&o)
		}
		if o.monitor != nil {
			return nil, fmt.Errorf("sim: the monitor watches one device's engine; a system of %d GPUs cannot share it", gpus)
		}
		if o.profiling != nil && o.profiling.tracePath != "" {
			return nil, fmt.Errorf("sim: a trace file holds one device's trace; the %d GPUs of a system would each write %s", gpus, TraceFile(o.profiling.tracePath))
		}
	}
	s := &System{
		cfg:  f,
		link: linkModel{link: f.System.Link, dramBytesPerNs: f.Memory.DRAMBandwidthGBPerS},
	}
	for i := range gpus {
		// One address space: device i's memory starts at exec.DeviceBase(i),
		// so that a co-launch's kernels reach every device's (CoLaunch).
		d, err := New(f.Config, append(slices.Clone(opts), withDeviceIndex(i))...)
		if err != nil {
			_ = s.Close() // the devices opened so far; New's error is the one to report
			if i == 0 {
				return nil, err
			}
			return nil, fmt.Errorf("sim: device %d of %d: %w", i, gpus, err)
		}
		s.devs = append(s.devs, d)
		s.kdevs = append(s.kdevs, d)
	}
	s.bytes = make([][]uint64, gpus)
	for i := range s.bytes {
		s.bytes[i] = make([]uint64, gpus)
	}
	return s, nil
}

// Config is the system's configuration, `system:` section included.
func (s *System) Config() FullConfig { return s.cfg }

// Devices returns the system's devices; device i of a PeerCopy is
// Devices()[i]. Each is a *Device.
func (s *System) Devices() []kernels.Device { return slices.Clone(s.kdevs) }

// Device returns device i as the simulator's own type (HostClock,
// LastStats), nil when i is out of range.
func (s *System) Device(i int) *Device {
	if i < 0 || i >= len(s.devs) {
		return nil
	}
	return s.devs[i]
}

// Parallel runs f once per device, each on its own goroutine
// (kernels.RunParallel), and advances the system clock by the largest
// advance of any device's host clock during the step: the devices work at
// once, and the step ends with the slowest.
func (s *System) Parallel(f func(i int, dev kernels.Device) error) error {
	before := make([]time.Duration, len(s.devs))
	for i, d := range s.devs {
		before[i] = d.HostClock()
	}
	err := kernels.RunParallel(s.kdevs, f)
	var step time.Duration
	for i, d := range s.devs {
		step = max(step, d.HostClock()-before[i])
	}
	s.mu.Lock()
	s.clock += step
	s.mu.Unlock()
	return err
}

// CopyPeer runs a batch of copies between the devices' memories and
// advances the system clock by the batch's time under the link model
// (LinkConfig); a copy within one device costs its bytes at the device's
// DRAM bandwidth. No device's host clock moves. Every source is read and
// every destination checked before anything is written, so a batch that
// fails changes nothing, and copies whose ranges overlap see memory as it
// was before the batch.
func (s *System) CopyPeer(copies []kernels.PeerCopy) error {
	if err := kernels.CheckPeerCopies(copies, len(s.devs)); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data := make([][]byte, len(copies))
	largest := 0
	for i, c := range copies {
		if c.Bytes == 0 {
			continue
		}
		data[i] = make([]byte, c.Bytes)
		if err := s.devs[c.From].peerRead(data[i], c.Src); err != nil {
			return peerCopyError(i, c, "source", err)
		}
		largest = max(largest, c.Bytes)
	}
	if largest > 0 {
		scratch := make([]byte, largest)
		for i, c := range copies {
			if c.Bytes == 0 {
				continue
			}
			if err := s.devs[c.To].peerRead(scratch[:c.Bytes], c.Dst); err != nil {
				return peerCopyError(i, c, "destination", err)
			}
		}
	}
	for i, c := range copies {
		if c.Bytes == 0 {
			continue
		}
		if err := s.devs[c.To].peerWrite(c.Dst, data[i]); err != nil {
			return peerCopyError(i, c, "destination", err)
		}
		s.bytes[c.From][c.To] += uint64(c.Bytes)
	}
	t := s.link.time(copies, len(s.devs))
	s.clock += t.total
	s.busy += t.busy
	s.queued += t.queued
	return nil
}

// peerCopyError is one line naming the failed copy of a batch and its
// side.
func peerCopyError(i int, c kernels.PeerCopy, side string, err error) error {
	dev := c.From
	if side == "destination" {
		dev = c.To
	}
	msg := err.Error()
	for _, what := range []string{"copy from device of ", "copy to device of "} {
		if rest, ok := strings.CutPrefix(msg, what); ok {
			msg = rest
		}
	}
	return fmt.Errorf("sim: peer copy %d of the batch, %d bytes from device %d to %d: %s on device %d: %s", i, c.Bytes, c.From, c.To, side, dev, msg)
}

// peerRead reads device memory for a peer copy, charging no host time.
func (d *Device) peerRead(dst []byte, src kernels.DevPtr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	return d.mem.Read(dst, uint64(src))
}

// peerWrite writes device memory for a peer copy, charging no host time.
func (d *Device) peerWrite(dst kernels.DevPtr, src []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	return d.mem.Write(uint64(dst), src)
}

// Clock is the system's simulated time since it opened: the Parallel
// steps' and the CopyPeer batches' times, added up.
func (s *System) Clock() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

// Link describes the interconnect in words (LinkConfig.Describe); a
// system of one device has none.
func (s *System) Link() string {
	if len(s.devs) == 1 {
		return "none: one device"
	}
	return s.cfg.System.Link.Describe()
}

// LinkStats reports what the links carried since the system opened:
// bytes per pair of devices (copies within a device on the diagonal), the
// time the links carried data (the batches' link terms, without their
// latency) and the time copies waited behind others on a shared link or
// the bridge.
func (s *System) LinkStats() kernels.LinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := kernels.LinkStats{Bytes: make([][]uint64, len(s.bytes)), Busy: s.busy, Queued: s.queued}
	for i, row := range s.bytes {
		out.Bytes[i] = slices.Clone(row)
	}
	return out
}

// Close closes every device; the errors are joined, each naming its
// device.
func (s *System) Close() error {
	var errs []error
	for i, d := range s.devs {
		if err := d.Close(); err != nil {
			errs = append(errs, fmt.Errorf("device %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
