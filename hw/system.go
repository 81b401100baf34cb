//go:build cgo

package hw

/*
#include "cuda_driver.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// System is several CUDA devices of one host, opened together by
// OpenSystem. It implements kernels.System and kernels.LinkCounter.
type System struct {
	devices []*Device
	// contexts[i] is device i's context, read once it is open: the copies
	// name both ends' contexts.
	contexts []C.CUcontext
	// peer[i][j] says device i's context has peer access to device j's
	// memory; enabled[i][j] that this System enabled it, so that Close
	// disables it again.
	peer, enabled [][]bool
	link          string
	opened        time.Time

	mu     sync.Mutex // guards bytes and closed
	bytes  [][]uint64 // bytes[i][j]: what device i sent device j
	closed bool
}

var (
	_ kernels.System      = (*System)(nil)
	_ kernels.PeerSystem  = (*System)(nil)
	_ kernels.LinkCounter = (*System)(nil)
)

// OpenSystem opens one device per entry of ordinals, in order: device i of
// the system is CUDA device ordinals[i]. An ordinal's first entry opens on
// its GPU's primary context, as Open does; each repeat gets a context of
// its own, so that two contexts on one GPU stand in for two GPUs. Between
// devices on distinct GPUs it enables peer access wherever the driver
// allows it. The error wraps ErrNoDriver when the machine has no usable
// driver.
func OpenSystem(ordinals []int) (*System, error) {
	if err := checkSystemOrdinals(ordinals); err != nil {
		return nil, err
	}
	if err := loadDriver(); err != nil {
		return nil, err
	}
	count, err := deviceCount()
	if err != nil {
		return nil, err
	}
	for _, o := range ordinals {
		if o >= count {
			return nil, fmt.Errorf("hw: no CUDA device %d: this host has %s", o, cudaDevicesInWords(count))
		}
	}
	n := len(ordinals)
	s := &System{
		peer:    squareBools(n),
		enabled: squareBools(n),
		bytes:   make([][]uint64, n),
	}
	for i := range s.bytes {
		s.bytes[i] = make([]uint64, n)
	}
	opened := map[int]bool{}
	for _, o := range ordinals {
		d, err := openOrdinal(o, opened[o])
		if err != nil {
			return nil, errors.Join(err, s.Close())
		}
		opened[o] = true
		s.devices = append(s.devices, d)
		s.contexts = append(s.contexts, d.ctx)
	}
	if err := s.enablePeerAccess(); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	s.link = describeLink(ordinals, s.peer)
	s.opened = time.Now()
	return s, nil
}

// checkSystemOrdinals refuses what no host could open, before the driver
// is loaded.
func checkSystemOrdinals(ordinals []int) error {
	if len(ordinals) == 0 {
		return errors.New("hw: a system needs at least one CUDA device")
	}
	for _, o := range ordinals {
		if o < 0 {
			return fmt.Errorf("hw: no CUDA device %d: ordinals start at 0", o)
		}
	}
	return nil
}

func cudaDevicesInWords(n int) string {
	if n == 1 {
		return "1 CUDA device"
	}
	return fmt.Sprintf("%d CUDA devices", n)
}

func squareBools(n int) [][]bool {
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
	}
	return m
}

// enablePeerAccess enables, for each ordered pair of devices on distinct
// GPUs, the first's access to the second's memory where the driver says it
// can. Where it cannot (and between two contexts on one GPU, which have no
// peer access), copies still work: cuMemcpyPeerAsync carries them without
// it.
func (s *System) enablePeerAccess() error {
	for i, a := range s.devices {
		for j, b := range s.devices {
			if i == j || a.dev == b.dev {
				continue
			}
			var can C.int
			if err := check(fmt.Sprintf("cuDeviceCanAccessPeer(%d, %d)", a.ordinal, b.ordinal), C.wg_cuDeviceCanAccessPeer(&can, a.dev, b.dev)); err != nil {
				return err
			}
			if can == 0 {
				continue
			}
			err := a.run(func() error {
				switch r := C.wg_cuCtxEnablePeerAccess(s.contexts[j], 0); r {
				case cudaSuccess:
					s.peer[i][j], s.enabled[i][j] = true, true
				case cudaPeerAccessAlreadyEnabled:
					s.peer[i][j] = true
				case cudaPeerAccessUnsupported, cudaTooManyPeers:
					// Copies go without it.
				default:
					return cudaError("cuCtxEnablePeerAccess", r)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("hw: peer access from device %d (CUDA device %d) to device %d (CUDA device %d): %w", i, a.ordinal, j, b.ordinal, err)
			}
		}
	}
	return nil
}

// describeLink says in words what the driver reports of the links between
// devices on CUDA devices ordinals with peer access peer: which pairs have
// it. The driver does not say whether a pair is joined by NVLink or PCIe.
func describeLink(ordinals []int, peer [][]bool) string {
	n := len(ordinals)
	if n == 1 {
		return "none: one device"
	}
	var pairs, peerPairs, sameGPU int
	for i := range n {
		for j := i + 1; j < n; j++ {
			pairs++
			switch {
			case ordinals[i] == ordinals[j]:
				sameGPU++
			case peer[i][j] && peer[j][i]:
				peerPairs++
			}
		}
	}
	switch {
	case sameGPU == pairs:
		return fmt.Sprintf("no peer access (%d contexts on one GPU): the driver copies between the contexts", n)
	case peerPairs == pairs:
		return "peer access between every pair of GPUs (NVLink or PCIe, as the driver routes it)"
	case peerPairs == 0 && sameGPU == 0:
		return "no peer access between the GPUs: the driver stages copies through host memory"
	}
	return fmt.Sprintf("peer access between %d of %d pairs of devices (NVLink or PCIe, as the driver routes it); the driver copies between the others without it", peerPairs, pairs)
}

// PeerAccess reports whether device i has peer access to device j's
// memory: false for i == j, for two contexts on one GPU, and where the
// driver does not allow it.
func (s *System) PeerAccess(i, j int) bool {
	if i < 0 || i >= len(s.peer) || j < 0 || j >= len(s.peer) {
		return false
	}
	return s.peer[i][j]
}

// Devices returns the system's devices, each a *Device.
func (s *System) Devices() []kernels.Device {
	devs := make([]kernels.Device, len(s.devices))
	for i, d := range s.devices {
		devs[i] = d
	}
	return devs
}

// Parallel runs f once per device, each on its own goroutine; each
// device's calls run on their goroutine's locked OS thread (see
// Device.run), so different devices' calls overlap.
func (s *System) Parallel(f func(i int, dev kernels.Device) error) error {
	return kernels.RunParallel(s.Devices(), f)
}

// CoLaunch launches k on every device at once (kernels.PeerSystem), each
// from its own goroutine's thread, and returns when all have finished.
// Pointers are the driver's unified addresses, valid in every context of
// the process: a kernel reaches another device's allocation through peer
// access where it is enabled (PeerAccess), and through the GPU's own
// memory when both devices are contexts on one GPU. Elapsed is the wall
// time from before the first launch to after the last device finished
// (no repeats: a co-launch's kernels usually change what they read). Two
// contexts on one GPU take turns on it, so kernels that wait on each
// other progress only at the driver's time slices: give them spin budgets.
func (s *System) CoLaunch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args [][]any) (kernels.LaunchStats, error) {
	if err := kernels.CheckCoLaunch(k, args, len(s.devices)); err != nil {
		return kernels.LaunchStats{}, fmt.Errorf("hw: %w", err)
	}
	cfg.Warmup, cfg.Repeat = 0, 1
	// Each device's kernel may read any device's memory: what every
	// device has queued (an upload) is finished first.
	for i, d := range s.devices {
		if err := d.run(d.settleForPeers); err != nil {
			return kernels.LaunchStats{}, fmt.Errorf("hw: co-launch of %s: device %d: %w", k.Name, i, err)
		}
	}
	start := time.Now()
	err := kernels.RunParallel(s.Devices(), func(i int, dev kernels.Device) error {
		_, err := dev.Launch(ctx, k, cfg, args[i]...)
		return err
	})
	elapsed := time.Since(start)
	// And may have written any device's memory, after that device's own
	// kernel ended: no read-ahead queued behind it holds the final bytes.
	for _, d := range s.devices {
		_ = d.run(func() error { d.endReadAhead(); return nil })
	}
	if err != nil {
		return kernels.LaunchStats{}, fmt.Errorf("hw: co-launch of %s: %w", k.Name, err)
	}
	return kernels.LaunchStats{Elapsed: elapsed, Samples: []time.Duration{elapsed}}, nil
}

// settleForPeers finishes the work queued on the device's stream and ends
// its read-ahead, before a co-launch whose other devices' kernels may read
// or write this device's memory. It runs on the device's thread (run).
func (d *Device) settleForPeers() error {
	d.endReadAhead()
	return d.drain()
}

// CopyPeer runs the copies and returns when all are done. Each device's
// copies to others run on its own stream (cuMemcpyPeerAsync), so copies
// from different devices run at once; a copy within a device runs on that
// device's stream (cuMemcpyDtoDAsync). Each copy must lie inside one
// allocation at both ends. Work a destination device has queued is
// finished first, so that it cannot land on top of a copy.
func (s *System) CopyPeer(copies []kernels.PeerCopy) error {
	if err := kernels.CheckPeerCopies(copies, len(s.devices)); err != nil {
		return err
	}
	n := len(s.devices)
	sends, receives := make([][]kernels.PeerCopy, n), make([][]kernels.PeerCopy, n)
	for _, c := range copies {
		if c.Bytes == 0 {
			continue
		}
		sends[c.From] = append(sends[c.From], c)
		receives[c.To] = append(receives[c.To], c)
	}
	devs := s.Devices()
	err := kernels.RunParallel(devs, func(i int, _ kernels.Device) error {
		if len(sends[i]) == 0 && len(receives[i]) == 0 {
			return nil
		}
		d := s.devices[i]
		return d.run(func() error { return d.prepareCopies(i, sends[i], receives[i]) })
	})
	if err != nil {
		return err
	}
	return kernels.RunParallel(devs, func(i int, _ kernels.Device) error {
		if len(sends[i]) == 0 {
			return nil
		}
		d := s.devices[i]
		if err := d.run(func() error { return d.sendCopies(i, sends[i], s.contexts) }); err != nil {
			return err
		}
		s.mu.Lock()
		for _, c := range sends[i] {
			s.bytes[c.From][c.To] += uint64(c.Bytes)
		}
		s.mu.Unlock()
		return nil
	})
}

// prepareCopies checks device self's ends of its copies against its
// allocations and, where other devices' copies will write its memory,
// ends its read-ahead (the memory changes behind it) and waits for its
// queued work. run holds the device.
func (d *Device) prepareCopies(self int, sends, receives []kernels.PeerCopy) error {
	for _, c := range sends {
		if err := d.allocs.check(c.Src, c.Bytes); err != nil {
			return fmt.Errorf("hw: CopyPeer from device %d to %d: source: %w", c.From, c.To, err)
		}
	}
	fromOthers := false
	for _, c := range receives {
		if err := d.allocs.check(c.Dst, c.Bytes); err != nil {
			return fmt.Errorf("hw: CopyPeer from device %d to %d: destination: %w", c.From, c.To, err)
		}
		fromOthers = fromOthers || c.From != self
	}
	if len(receives) > 0 {
		d.endReadAhead()
	}
	if fromOthers {
		return d.drain()
	}
	return nil
}

// sendCopies queues device self's copies on its stream, behind its
// earlier work, and waits for them. run holds the device.
func (d *Device) sendCopies(self int, sends []kernels.PeerCopy, contexts []C.CUcontext) error {
	for _, c := range sends {
		var r C.CUresult
		call := "cuMemcpyPeerAsync"
		if c.To == self {
			call = "cuMemcpyDtoDAsync_v2"
			r = C.wg_cuMemcpyDtoDAsync_v2(C.CUdeviceptr(c.Dst), C.CUdeviceptr(c.Src), C.size_t(c.Bytes), d.stream)
		} else {
			r = C.wg_cuMemcpyPeerAsync(C.CUdeviceptr(c.Dst), contexts[c.To], C.CUdeviceptr(c.Src), contexts[self], C.size_t(c.Bytes), d.stream)
		}
		if r != cudaSuccess {
			// Copies queued before this one still run: wait for them too.
			err := d.sticky(cudaError(fmt.Sprintf("%s(device %d to %d, %d bytes)", call, c.From, c.To, c.Bytes), r))
			return errors.Join(err, d.drain())
		}
		d.streamBusy = true
	}
	return d.drain()
}

// LinkStats returns the bytes each device sent each other device (and
// itself) by CopyPeer since the system opened. Busy and Queued stay zero:
// the driver does not report when its links carry data.
func (s *System) LinkStats() kernels.LinkStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	bytes := make([][]uint64, len(s.bytes))
	for i, row := range s.bytes {
		bytes[i] = append([]uint64(nil), row...)
	}
	return kernels.LinkStats{Bytes: bytes}
}

// Clock is the wall time since OpenSystem returned.
func (s *System) Clock() time.Duration { return time.Since(s.opened) }

// Link describes in words what the driver reports of the links: which
// devices have peer access to each other.
func (s *System) Link() string { return s.link }

// Close disables the peer access OpenSystem enabled and closes every
// device: those on primary contexts first, then those on contexts of their
// own. Closing again returns nil.
func (s *System) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	var errs []error
	// A primary context may outlive the system (another Open holds it):
	// leave it without peer mappings, which every later allocation of the
	// peer would pay for. A device that is unusable is left as it is.
	for i, d := range s.devices {
		for j := range s.devices {
			if !s.enabled[i][j] {
				continue
			}
			_ = d.run(func() error {
				if err := check("cuCtxDisablePeerAccess", C.wg_cuCtxDisablePeerAccess(s.contexts[j])); err != nil {
					errs = append(errs, fmt.Errorf("hw: peer access from device %d to %d: %w", i, j, err))
				}
				return nil
			})
		}
	}
	for _, ownContext := range []bool{false, true} {
		for i, d := range s.devices {
			if d.ownsContext != ownContext {
				continue
			}
			if err := d.Close(); err != nil {
				errs = append(errs, fmt.Errorf("device %d: %w", i, err))
			}
		}
	}
	return errors.Join(errs...)
}
