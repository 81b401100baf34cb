package kernels

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// System is several devices of one host joined by links: what a multi-GPU
// driver speaks. The simulator (sim.System) and the CUDA backend
// (hw.System) implement it; SingleSystem wraps one device.
//
// A driver makes every device call inside Parallel and every transfer
// between devices with CopyPeer, so that Clock can account for them: on
// the simulator a Parallel step costs its slowest device's simulated host
// time and a CopyPeer batch the link model's time; on hardware Clock is
// the wall clock.
type System interface {
	// Devices are the system's devices; device i of a PeerCopy is
	// Devices()[i].
	Devices() []Device
	// Parallel runs f once per device, each on its own goroutine, and
	// returns when every call has: their errors joined, each naming its
	// device.
	Parallel(f func(i int, dev Device) error) error
	// CopyPeer runs the copies at once, each from one device's memory to
	// another's, and returns when all are done. A copy within one device
	// is allowed.
	CopyPeer(copies []PeerCopy) error
	// Clock is the system's time since it opened (see System).
	Clock() time.Duration
	// Link describes the interconnect in words, e.g. "NVLink 4 through
	// NVSwitch, 450 GB/s per direction per GPU".
	Link() string
	// Close closes every device.
	Close() error
}

// PeerSystem is a system whose kernels reach every device's memory, as
// NVSHMEM's one-sided communication does: a pointer that any device of the
// system allocated is valid in a kernel on any other (one address space,
// as CUDA's unified virtual addressing gives), for loads, stores and
// atomics, which cross the link to the owner's memory. CoLaunch starts one
// kernel on every device at once, as NVSHMEM's collective launch does, so
// that the devices' kernels may wait on each other (a push into another
// device's queue, a flag another device raises): a kernel that waits on
// another device needs a co-launch, since a launch on one device alone
// may finish, or spin to its budget, before the other starts.
type PeerSystem interface {
	System
	// CoLaunch runs k on every device at once, device i with cfg and
	// args[i] (one list of arguments per device), and returns when every
	// device's kernel has finished. Its statistics are the co-launch's:
	// Elapsed until the last device finished, counters summed over the
	// devices. A fault, a deadlock or ctx's end on any device ends the
	// co-launch with that error, naming the device where it can.
	CoLaunch(ctx context.Context, k *Kernel, cfg LaunchConfig, args [][]any) (LaunchStats, error)
}

// CheckCoLaunch refuses a co-launch without one list of arguments per
// device.
func CheckCoLaunch(k *Kernel, args [][]any, devices int) error {
	switch {
	case k == nil:
		return errors.New("co-launch of a nil kernel")
	case len(args) != devices:
		return fmt.Errorf("co-launch of %s: %d lists of arguments for a system of %d devices (one per device)", k.Name, len(args), devices)
	}
	return nil
}

// PeerCopy is one transfer between devices: Bytes from Src on device From
// to Dst on device To.
type PeerCopy struct {
	From, To int
	Src, Dst DevPtr
	Bytes    int
}

// LinkStats are what a system's links carried since it opened (systems
// that model or measure them implement LinkCounter).
type LinkStats struct {
	// Bytes[i][j] is what device i sent device j.
	Bytes [][]uint64
	// Busy is the time some link was carrying data; Queued is the time
	// copies waited behind others on a shared link or bridge (simulated
	// systems only).
	Busy, Queued time.Duration
}

// LinkCounter is a system that reports its links' traffic.
type LinkCounter interface{ LinkStats() LinkStats }

// CheckPeerCopies refuses copies that name a device outside [0, devices)
// or a negative size.
func CheckPeerCopies(copies []PeerCopy, devices int) error {
	for _, c := range copies {
		switch {
		case c.From < 0 || c.From >= devices || c.To < 0 || c.To >= devices:
			return fmt.Errorf("peer copy from device %d to %d: the system has devices 0 to %d", c.From, c.To, devices-1)
		case c.Bytes < 0:
			return fmt.Errorf("peer copy of %d bytes from device %d to %d", c.Bytes, c.From, c.To)
		}
	}
	return nil
}

// RunParallel runs f for every device on its own goroutine and joins the
// errors, each prefixed with its device's index: Parallel's body for
// systems that need nothing around it.
func RunParallel(devs []Device, f func(i int, dev Device) error) error {
	errs := make([]error, len(devs))
	done := make(chan struct{}, len(devs))
	for i, d := range devs {
		go func() {
			defer func() { done <- struct{}{} }()
			if err := f(i, d); err != nil {
				errs[i] = fmt.Errorf("device %d: %w", i, err)
			}
		}()
	}
	for range devs {
		<-done
	}
	return errors.Join(errs...)
}

// SingleSystem is a system of one device: Parallel calls f once, CopyPeer
// refuses every copy (there is no second device, and a device has no copy
// within itself), Clock is the device's host clock when it keeps one (the
// simulator's) and the wall clock otherwise.
func SingleSystem(dev Device) System { return &singleSystem{dev: dev, opened: time.Now()} }

type singleSystem struct {
	dev    Device
	opened time.Time
}

func (s *singleSystem) Devices() []Device { return []Device{s.dev} }

func (s *singleSystem) Parallel(f func(i int, dev Device) error) error { return f(0, s.dev) }

func (s *singleSystem) CopyPeer(copies []PeerCopy) error {
	if len(copies) == 0 {
		return nil
	}
	return fmt.Errorf("a system of one device has no peer to copy to (%d copies asked)", len(copies))
}

func (s *singleSystem) Clock() time.Duration {
	if c, ok := s.dev.(interface{ HostClock() time.Duration }); ok {
		return c.HostClock()
	}
	return time.Since(s.opened)
}

func (s *singleSystem) Link() string { return "none: one device" }

func (s *singleSystem) Close() error { return s.dev.Close() }
