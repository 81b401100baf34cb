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
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// Device is one CUDA GPU driven through the driver API. It implements
// kernels.Device and is safe for use from any goroutine: every CUDA call
// runs on the device's own locked OS thread, one at a time.
type Device struct {
	ordinal       int
	props         kernels.Properties
	limits        deviceLimits
	driverVersion int
	thread        *cudaThread

	// Owned by the CUDA thread: read and written only inside thread.do.
	dev        C.CUdevice
	ctx        C.CUcontext
	stream     C.CUstream // launches and small copies; see openOnThread
	start, end C.CUevent  // bracket each launch for timing and polling
	// staging is stagingBytes of pinned host memory through which small
	// copies go, asynchronously on stream; stagingBusy says an upload from
	// it may still be in flight (see CopyToDevice).
	staging     unsafe.Pointer
	stagingBusy bool
	modules     map[*kernels.Module]*loadedModule
	allocs      allocTable
	unusable    error // set by a hung kernel or a sticky CUDA error
	hung        bool  // a kernel may still be running: touch nothing on Close
	closed      bool

	// trustDriverCoResidency skips Launch's own co-residency check for
	// cooperative grids so that tests can see the driver's error 720.
	trustDriverCoResidency bool
}

var _ kernels.Device = (*Device)(nil)

// Open loads the CUDA driver and opens device ordinal (0 for the first
// GPU), retaining its primary context. The error wraps ErrNoDriver when
// the machine has no usable driver.
func Open(ordinal int) (*Device, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	dev, err := deviceHandle(ordinal)
	if err != nil {
		return nil, err
	}
	props, limits, err := queryDevice(dev)
	if err != nil {
		return nil, err
	}
	version, err := driverVersion()
	if err != nil {
		return nil, err
	}
	d := &Device{
		ordinal:       ordinal,
		props:         props,
		limits:        limits,
		driverVersion: version,
		thread:        startCUDAThread(),
		dev:           dev,
		modules:       map[*kernels.Module]*loadedModule{},
	}
	if err := d.thread.do(func() { err = d.openOnThread() }); err != nil {
		return nil, err
	}
	if err != nil {
		d.thread.stop()
		return nil, fmt.Errorf("hw: opening CUDA device %d: %w", ordinal, err)
	}
	return d, nil
}

// openOnThread makes the primary context current on the CUDA thread and
// creates the launch stream and timing events, undoing what it did when a
// step fails.
func (d *Device) openOnThread() (err error) {
	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	if err := check("cuDevicePrimaryCtxRetain", C.wg_cuDevicePrimaryCtxRetain(&d.ctx, d.dev)); err != nil {
		return err
	}
	undo = append(undo, func() { C.wg_cuDevicePrimaryCtxRelease_v2(d.dev) })
	if err := check("cuCtxSetCurrent", C.wg_cuCtxSetCurrent(d.ctx)); err != nil {
		return err
	}
	// A blocking stream (flags 0): launches and small copies on it wait for
	// earlier work on the legacy stream, where Memset and large copies run,
	// and that work may still be in flight when those calls return (a
	// memset is asynchronous; a copy from pageable memory returns once
	// staged); work on the legacy stream likewise waits for this stream's
	// (a small upload returns once staged in pinned memory).
	if err := check("cuStreamCreate", C.wg_cuStreamCreate(&d.stream, cuStreamDefault)); err != nil {
		return err
	}
	undo = append(undo, func() { C.wg_cuStreamDestroy_v2(d.stream) })
	if err := check("cuEventCreate", C.wg_cuEventCreate(&d.start, cuEventDefault)); err != nil {
		return err
	}
	undo = append(undo, func() { C.wg_cuEventDestroy_v2(d.start) })
	if err := check("cuEventCreate", C.wg_cuEventCreate(&d.end, cuEventDefault)); err != nil {
		return err
	}
	undo = append(undo, func() { C.wg_cuEventDestroy_v2(d.end) })
	return check(fmt.Sprintf("cuMemAllocHost_v2(%d bytes)", stagingBytes), C.wg_cuMemAllocHost_v2(&d.staging, stagingBytes))
}

// ListDevices returns the properties of every CUDA device, for
// `warpgraph devices`. The error wraps ErrNoDriver when the machine has
// no usable driver.
func ListDevices() ([]kernels.Properties, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	n, err := deviceCount()
	if err != nil {
		return nil, err
	}
	all := make([]kernels.Properties, 0, n)
	for i := range n {
		dev, err := deviceHandle(i)
		if err != nil {
			return nil, err
		}
		p, _, err := queryDevice(dev)
		if err != nil {
			return nil, fmt.Errorf("hw: device %d: %w", i, err)
		}
		all = append(all, p)
	}
	return all, nil
}

// DriverVersion returns the CUDA version the installed driver supports,
// e.g. 13, 0. The error wraps ErrNoDriver when there is no usable driver.
func DriverVersion() (major, minor int, err error) {
	if err := loadDriver(); err != nil {
		return 0, 0, err
	}
	v, err := driverVersion()
	return v / 1000, v % 1000 / 10, err
}

// Ordinal returns the device number Open was given.
func (d *Device) Ordinal() int { return d.ordinal }

// Properties returns the device's properties, read once at Open.
func (d *Device) Properties() kernels.Properties { return d.props }

// DriverVersion returns the CUDA version the driver supports, e.g. 13, 0.
func (d *Device) DriverVersion() (major, minor int) {
	return d.driverVersion / 1000, d.driverVersion % 1000 / 10
}

// run executes f on the CUDA thread once the device is known to be usable.
func (d *Device) run(f func() error) error {
	var err error
	if terr := d.thread.do(func() {
		if d.closed {
			err = ErrClosed
			return
		}
		if d.unusable != nil {
			err = d.unusable
			return
		}
		err = f()
	}); terr != nil {
		return terr
	}
	return err
}

// MemInfo returns the device's free and total global memory in bytes.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = d.run(func() error {
		var f, t C.size_t
		if err := check("cuMemGetInfo_v2", C.wg_cuMemGetInfo_v2(&f, &t)); err != nil {
			return err
		}
		free, total = uint64(f), uint64(t)
		return nil
	})
	return free, total, err
}

// Alloc allocates bytes of global memory (not cleared).
func (d *Device) Alloc(bytes int) (kernels.DevPtr, error) {
	if bytes <= 0 {
		return 0, fmt.Errorf("hw: Alloc(%d): size must be positive", bytes)
	}
	var p kernels.DevPtr
	err := d.run(func() error {
		var ptr C.CUdeviceptr
		if err := check(fmt.Sprintf("cuMemAlloc_v2(%d bytes)", bytes), C.wg_cuMemAlloc_v2(&ptr, C.size_t(bytes))); err != nil {
			return err
		}
		p = kernels.DevPtr(ptr)
		d.allocs.add(p, bytes)
		return nil
	})
	return p, err
}

// Free releases an allocation made by Alloc.
func (d *Device) Free(p kernels.DevPtr) error {
	return d.run(func() error {
		if err := d.allocs.remove(p); err != nil {
			return fmt.Errorf("hw: Free: %w", err)
		}
		// A staged upload into p may still be in flight.
		if err := d.drainStaging(); err != nil {
			return err
		}
		return check(fmt.Sprintf("cuMemFree_v2(%#x)", uint64(p)), C.wg_cuMemFree_v2(C.CUdeviceptr(p)))
	})
}

// stagingBytes bounds the copies that go through the pinned staging
// buffer. A synchronous copy from or to pageable memory costs the host
// about ten microseconds however small it is; an asynchronous copy through
// pinned memory, on the launch stream, with a spinning wait, costs a few.
// Larger copies are dominated by bandwidth and stay synchronous.
const stagingBytes = 64 << 10

// Ordering. Small copies run on d.stream, which is blocking (see
// openOnThread): they wait for earlier work on the legacy stream (Memset,
// large copies), later work there waits for them, and launches on d.stream
// follow them in order. So every copy, memset and launch still observes
// every earlier one, whichever stream each took.

// CopyToDevice copies src to dst, which must lie inside one allocation.
// A small copy returns once src is staged in pinned memory; the device
// copies it before any later copy, memset or launch of this device.
func (d *Device) CopyToDevice(dst kernels.DevPtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return d.run(func() error {
		if err := d.allocs.check(dst, len(src)); err != nil {
			return fmt.Errorf("hw: CopyToDevice: %w", err)
		}
		if len(src) <= stagingBytes {
			// The previous upload must have left the buffer first.
			if err := d.drainStaging(); err != nil {
				return err
			}
			copy(unsafe.Slice((*byte)(d.staging), len(src)), src)
			if r := C.wg_cuMemcpyHtoDAsync_v2(C.CUdeviceptr(dst), d.staging, C.size_t(len(src)), d.stream); r != cudaSuccess {
				return d.sticky(cudaError(fmt.Sprintf("cuMemcpyHtoDAsync_v2(%#x, %d bytes)", uint64(dst), len(src)), r))
			}
			d.stagingBusy = true
			return nil
		}
		return d.sticky(check(fmt.Sprintf("cuMemcpyHtoD_v2(%#x, %d bytes)", uint64(dst), len(src)),
			C.wg_cuMemcpyHtoD_v2(C.CUdeviceptr(dst), unsafe.Pointer(&src[0]), C.size_t(len(src)))))
	})
}

// CopyFromDevice fills dst from src, which must lie inside one allocation.
func (d *Device) CopyFromDevice(dst []byte, src kernels.DevPtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.run(func() error {
		if err := d.allocs.check(src, len(dst)); err != nil {
			return fmt.Errorf("hw: CopyFromDevice: %w", err)
		}
		if len(dst) <= stagingBytes {
			// On the stream, after any upload still reading the buffer.
			if r := C.wg_cuMemcpyDtoHAsync_v2(d.staging, C.CUdeviceptr(src), C.size_t(len(dst)), d.stream); r != cudaSuccess {
				return d.sticky(cudaError(fmt.Sprintf("cuMemcpyDtoHAsync_v2(%#x, %d bytes)", uint64(src), len(dst)), r))
			}
			d.stagingBusy = true
			if err := d.drainStaging(); err != nil {
				return err
			}
			copy(dst, unsafe.Slice((*byte)(d.staging), len(dst)))
			return nil
		}
		return d.sticky(check(fmt.Sprintf("cuMemcpyDtoH_v2(%#x, %d bytes)", uint64(src), len(dst)),
			C.wg_cuMemcpyDtoH_v2(unsafe.Pointer(&dst[0]), C.CUdeviceptr(src), C.size_t(len(dst)))))
	})
}

// drainStaging waits, spinning first (pollUntil), until the copies queued
// on d.stream through the staging buffer have finished. Launches on the
// stream are waited for when they are made, so nothing else is queued
// there that could hang.
func (d *Device) drainStaging() error {
	if !d.stagingBusy {
		return nil
	}
	var r C.CUresult
	_ = pollUntil(context.Background(), func() bool {
		r = C.wg_cuStreamQuery(d.stream)
		return r != cudaNotReady
	})
	if r != cudaSuccess {
		return d.sticky(cudaError("cuStreamQuery(staged copy)", r))
	}
	d.stagingBusy = false
	return nil
}

// Memset sets bytes bytes at p to value. Like every operation on the
// legacy stream it completes before a later copy or launch observes p.
func (d *Device) Memset(p kernels.DevPtr, value byte, bytes int) error {
	if bytes == 0 {
		return nil
	}
	if bytes < 0 {
		return fmt.Errorf("hw: Memset(%#x, %d bytes): negative size", uint64(p), bytes)
	}
	return d.run(func() error {
		if err := d.allocs.check(p, bytes); err != nil {
			return fmt.Errorf("hw: Memset: %w", err)
		}
		return d.sticky(check(fmt.Sprintf("cuMemsetD8_v2(%#x, %d bytes)", uint64(p), bytes),
			C.wg_cuMemsetD8_v2(C.CUdeviceptr(p), C.uchar(value), C.size_t(bytes))))
	})
}

// sticky marks the device unusable when err is a sticky CUDA error (a
// fault of an earlier kernel can surface at any later call).
func (d *Device) sticky(err error) error {
	var ce *CUDAError
	if errors.As(err, &ce) && ce.Sticky() && d.unusable == nil {
		d.unusable = &unusableError{ordinal: d.ordinal, cause: err}
	}
	return err
}

// Close releases the device's modules, allocations, staging buffer, stream, events and its
// hold on the primary context, and stops the CUDA thread. Later calls
// return ErrClosed; closing again returns nil. After a hung kernel Close
// releases nothing (any CUDA call could wait forever behind the kernel)
// and says so; the process is expected to exit.
func (d *Device) Close() error {
	var err error
	if terr := d.thread.do(func() { err = d.closeOnThread() }); terr != nil {
		return nil // already closed
	}
	d.thread.stop()
	return err
}

func (d *Device) closeOnThread() error {
	if d.closed {
		return nil
	}
	d.closed = true
	if d.hung {
		return fmt.Errorf("hw: CUDA device %d not released: %w", d.ordinal, d.unusable)
	}
	// After a sticky error every call fails the same way; release what can
	// be released and report only failures of a healthy context.
	var errs []error
	keep := func(err error) {
		if err != nil && d.unusable == nil {
			errs = append(errs, err)
		}
	}
	keep(check("cuStreamSynchronize", C.wg_cuStreamSynchronize(d.stream)))
	for m, lm := range d.modules {
		keep(check(fmt.Sprintf("cuModuleUnload(%s)", m.Name), C.wg_cuModuleUnload(lm.handle)))
	}
	d.modules = nil
	for _, p := range d.allocs.all() {
		keep(check(fmt.Sprintf("cuMemFree_v2(%#x)", uint64(p)), C.wg_cuMemFree_v2(C.CUdeviceptr(p))))
	}
	d.allocs = allocTable{}
	keep(check("cuEventDestroy_v2", C.wg_cuEventDestroy_v2(d.start)))
	keep(check("cuEventDestroy_v2", C.wg_cuEventDestroy_v2(d.end)))
	keep(check("cuStreamDestroy_v2", C.wg_cuStreamDestroy_v2(d.stream)))
	keep(check("cuMemFreeHost", C.wg_cuMemFreeHost(d.staging)))
	d.staging, d.stagingBusy = nil, false
	keep(check("cuCtxSetCurrent(NULL)", C.wg_cuCtxSetCurrent(nil)))
	keep(check("cuDevicePrimaryCtxRelease_v2", C.wg_cuDevicePrimaryCtxRelease_v2(d.dev)))
	if len(errs) > 0 {
		return fmt.Errorf("hw: closing CUDA device %d: %w", d.ordinal, errors.Join(errs...))
	}
	return nil
}
