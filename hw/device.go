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
	"runtime"
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// Device is one CUDA GPU driven through the driver API. It implements
// kernels.Device and is safe for use from any goroutine: its calls run one
// at a time, each on a locked OS thread with the device's context current
// (see run).
type Device struct {
	ordinal       int
	props         kernels.Properties
	limits        deviceLimits
	driverVersion int
	thread        *cudaThread
	// ownsContext says ctx was created for this Device (by OpenSystem, for
	// a GPU listed twice) rather than being the GPU's primary context:
	// Close destroys it instead of releasing the primary context.
	ownsContext bool

	// Read and written by one call at a time: under thread.callMu (run,
	// and thread.do for Open and Close).
	dev        C.CUdevice
	ctx        C.CUcontext
	stream     C.CUstream // every launch, memset and small copy; see openOnThread
	start, end C.CUevent  // bracket each launch for timing and polling
	params     paramBlock // the launch's arguments in C memory, reused
	// streamBusy says work may still be queued on stream (a memset, a
	// staged copy, a read-ahead) that nobody has waited for.
	streamBusy bool
	// staging is stagingBytes of pinned host memory through which small
	// copies go, asynchronously on stream; its first stagingUsed bytes may
	// still be read by queued uploads (see CopyToDevice).
	staging     unsafe.Pointer
	stagingUsed int
	// Read-ahead (see CopyFromDevice and readahead.go): readAhead is
	// readAheadBufBytes of pinned memory; follow is the small read-back
	// that followed the last launch, which the next launch queues behind
	// itself (into readAhead); ahead is that queued read while nothing else
	// has run since, aheadSeq its sequence number.
	readAhead       unsafe.Pointer
	follow, ahead   span
	afterLaunch     bool // the last operation was a launch
	aheadSeq        uint32
	readAheadSeq    uint32     // the last sequence number used
	readAheadBroken bool       // wg_read_ahead could not be loaded
	raParams        paramBlock // wg_read_ahead's arguments
	modules         map[*kernels.Module]*loadedModule
	allocs          allocTable
	unusable        error // set by a hung kernel or a sticky CUDA error
	hung            bool  // a kernel may still be running: touch nothing on Close
	closed          bool

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
	return openOrdinal(ordinal, false)
}

// openOrdinal opens device ordinal of a loaded driver on its primary
// context, or on a context of its own with ownContext.
func openOrdinal(ordinal int, ownContext bool) (*Device, error) {
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
		ownsContext:   ownContext,
		modules:       map[*kernels.Module]*loadedModule{},
	}
	if err := d.thread.do(func() { err = d.openOnThread() }); err != nil {
		return nil, err
	}
	if err != nil {
		d.thread.stop()
		if ownContext {
			return nil, fmt.Errorf("hw: opening a further context on CUDA device %d: %w", ordinal, err)
		}
		return nil, fmt.Errorf("hw: opening CUDA device %d: %w", ordinal, err)
	}
	return d, nil
}

// openOnThread makes the device's context (the primary one, or one
// created with ownsContext) current on the CUDA thread and creates the
// launch stream and timing events, undoing what it did when a step fails.
func (d *Device) openOnThread() (err error) {
	var undo []func()
	defer func() {
		if err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()
	if d.ownsContext {
		if err := check("cuCtxCreate_v2", C.wg_cuCtxCreate_v2(&d.ctx, 0, d.dev)); err != nil {
			return err
		}
		undo = append(undo, func() { C.wg_cuCtxDestroy_v2(d.ctx) })
	} else {
		if err := check("cuDevicePrimaryCtxRetain", C.wg_cuDevicePrimaryCtxRetain(&d.ctx, d.dev)); err != nil {
			return err
		}
		undo = append(undo, func() { C.wg_cuDevicePrimaryCtxRelease_v2(d.dev) })
	}
	if err := check("cuCtxSetCurrent", C.wg_cuCtxSetCurrent(d.ctx)); err != nil {
		return err
	}
	// Every launch, memset and small copy is queued on this one stream, so
	// the device runs them in the order they were made. Large copies run
	// synchronously on the legacy stream, with the stream drained before
	// and the legacy stream after (see copyLarge). The stream is
	// non-blocking: it never waits for, nor holds up, the legacy stream,
	// which this package orders explicitly.
	if err := check("cuStreamCreate", C.wg_cuStreamCreate(&d.stream, cuStreamNonBlocking)); err != nil {
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
	if err := check(fmt.Sprintf("cuMemAllocHost_v2(%d bytes)", stagingBytes), C.wg_cuMemAllocHost_v2(&d.staging, stagingBytes)); err != nil {
		return err
	}
	undo = append(undo, func() { C.wg_cuMemFreeHost(d.staging) })
	if err := check(fmt.Sprintf("cuMemAllocHost_v2(%d bytes)", readAheadBufBytes), C.wg_cuMemAllocHost_v2(&d.readAhead, readAheadBufBytes)); err != nil {
		return err
	}
	*(*uint32)(unsafe.Add(d.readAhead, readAheadFlag)) = 0
	return nil
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

// run executes f, once the device is known to be usable, on a thread where
// the device's context is current, one call at a time: the caller's own OS
// thread, locked for the call, with the context made current there, under
// the CUDA thread's call lock (which also excludes Open's and Close's
// closures on that thread). cuCtxSetCurrent costs well under a
// microsecond, while handing each call to the CUDA thread and back
// (cudaThread.do) cost about one on an H100 host even with both sides
// spinning, and a host-driven loop pays that on every launch and every
// read-back.
func (d *Device) run(f func() error) error {
	t := d.thread
	t.callMu.Lock()
	defer t.callMu.Unlock()
	if t.stopped || d.closed {
		return ErrClosed
	}
	if d.unusable != nil {
		return d.unusable
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("cuCtxSetCurrent", C.wg_cuCtxSetCurrent(d.ctx)); err != nil {
		return err
	}
	return f()
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
		d.endReadAhead()
		d.follow = span{} // it may lie in p
		// Queued work (an upload, a memset, a read-ahead) may still touch p.
		if err := d.drain(); err != nil {
			return err
		}
		return check(fmt.Sprintf("cuMemFree_v2(%#x)", uint64(p)), C.wg_cuMemFree_v2(C.CUdeviceptr(p)))
	})
}

// stagingBytes bounds the copies that go through the pinned staging
// buffer. A synchronous copy from or to pageable memory costs the host
// about ten microseconds however small it is; an asynchronous copy through
// pinned memory, on the stream, with a spinning wait, costs a few.
// Larger copies are dominated by bandwidth and stay synchronous.
const stagingBytes = 64 << 10

// Ordering. Launches, memsets and small copies are queued on d.stream in
// the order they are made, so each observes every earlier one. A large
// copy (copyLarge) first waits until d.stream is idle and, when it writes
// device memory, waits for its own DMA to land before it returns, so the
// legacy stream it runs on needs no ordering with d.stream.

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
		d.endReadAhead()
		if len(src) > stagingBytes {
			return d.copyLarge(fmt.Sprintf("cuMemcpyHtoD_v2(%#x, %d bytes)", uint64(dst), len(src)), func() C.CUresult {
				return C.wg_cuMemcpyHtoD_v2(C.CUdeviceptr(dst), unsafe.Pointer(&src[0]), C.size_t(len(src)))
			}, true)
		}
		// Uploads queued earlier may still be reading the buffer: take the
		// next free part of it, or wait until they are done.
		if d.stagingUsed+len(src) > stagingBytes {
			if err := d.drain(); err != nil {
				return err
			}
		}
		at := unsafe.Add(d.staging, d.stagingUsed)
		copy(unsafe.Slice((*byte)(at), len(src)), src)
		if r := C.wg_cuMemcpyHtoDAsync_v2(C.CUdeviceptr(dst), at, C.size_t(len(src)), d.stream); r != cudaSuccess {
			return d.sticky(cudaError(fmt.Sprintf("cuMemcpyHtoDAsync_v2(%#x, %d bytes)", uint64(dst), len(src)), r))
		}
		d.stagingUsed += (len(src) + 63) &^ 63
		d.streamBusy = true
		return nil
	})
}

// CopyFromDevice fills dst from src, which must lie inside one allocation.
//
// Read-ahead: a host-driven loop reads the same few bytes (a frontier's
// length, an abort flag) right after every launch. When a small read-back
// (up to readAheadBytes) directly follows a launch, the device remembers
// it, and each later launch queues that read on the stream right behind
// the kernel (readahead.go), while the host waits for the kernel anyway. A
// read-back that then directly follows the launch, of the same bytes, only
// waits for that read, already under way, instead of queuing its own. The
// data are the same either way: the read ran after the kernel, and nothing
// can have written the device memory since, as every other operation of
// the device ends the read-ahead (and memory of a Device is written only
// through that Device). A launch whose read-ahead goes unused stops the
// guessing until a read-back follows a launch again.
func (d *Device) CopyFromDevice(dst []byte, src kernels.DevPtr) error {
	if len(dst) == 0 {
		return nil
	}
	return d.run(func() error {
		if err := d.allocs.check(src, len(dst)); err != nil {
			return fmt.Errorf("hw: CopyFromDevice: %w", err)
		}
		hit := d.ahead == span{src, len(dst)}
		if !hit && d.afterLaunch && len(dst) <= readAheadBytes {
			d.follow = span{src, len(dst)}
		}
		d.ahead, d.afterLaunch = span{}, false
		if hit {
			if err := d.awaitReadAhead(); err != nil {
				return err
			}
			copy(dst, unsafe.Slice((*byte)(d.readAhead), len(dst)))
			return nil
		}
		if len(dst) > stagingBytes {
			return d.copyLarge(fmt.Sprintf("cuMemcpyDtoH_v2(%#x, %d bytes)", uint64(src), len(dst)), func() C.CUresult {
				return C.wg_cuMemcpyDtoH_v2(unsafe.Pointer(&dst[0]), C.CUdeviceptr(src), C.size_t(len(dst)))
			}, false)
		}
		// Into the staging buffer beyond any upload still reading it.
		if d.stagingUsed+len(dst) > stagingBytes {
			if err := d.drain(); err != nil {
				return err
			}
		}
		at := unsafe.Add(d.staging, d.stagingUsed)
		if r := C.wg_cuMemcpyDtoHAsync_v2(at, C.CUdeviceptr(src), C.size_t(len(dst)), d.stream); r != cudaSuccess {
			return d.sticky(cudaError(fmt.Sprintf("cuMemcpyDtoHAsync_v2(%#x, %d bytes)", uint64(src), len(dst)), r))
		}
		d.streamBusy = true
		if err := d.drain(); err != nil {
			return err
		}
		copy(dst, unsafe.Slice((*byte)(at), len(dst)))
		return nil
	})
}

// endReadAhead ends any read-ahead before an operation other than the
// read-back it was queued for (see CopyFromDevice): a launch's read-ahead
// that goes unused forgets the read-back it guessed.
func (d *Device) endReadAhead() {
	if d.ahead.size > 0 {
		d.follow = span{}
	}
	d.ahead, d.afterLaunch = span{}, false
}

// copyLarge runs a synchronous copy on the legacy stream, ordered with
// d.stream by hand: d.stream is drained first, and a copy to the device,
// which returns once its source is staged, is waited for until the legacy
// stream is idle, so that later work on d.stream sees it.
func (d *Device) copyLarge(call string, copyFn func() C.CUresult, toDevice bool) error {
	if err := d.drain(); err != nil {
		return err
	}
	if err := d.sticky(check(call, copyFn())); err != nil {
		return err
	}
	if !toDevice {
		return nil
	}
	return d.waitStream(nil, call)
}

// drain waits, spinning first (pollUntil), until the work queued on
// d.stream has finished; the staging buffer is then free. Launches are
// waited for when they are made, so nothing is queued there that could
// hang.
func (d *Device) drain() error {
	if !d.streamBusy {
		d.stagingUsed = 0
		return nil
	}
	if err := d.waitStream(d.stream, "queued copies"); err != nil {
		return err
	}
	d.streamBusy, d.stagingUsed = false, 0
	return nil
}

// waitStream polls cuStreamQuery(stream) until the stream is idle (nil:
// the legacy stream).
func (d *Device) waitStream(stream C.CUstream, what string) error {
	var r C.CUresult
	_ = pollUntil(context.Background(), func() bool {
		r = C.wg_cuStreamQuery(stream)
		return r != cudaNotReady
	})
	if r != cudaSuccess {
		return d.sticky(cudaError(fmt.Sprintf("cuStreamQuery(%s)", what), r))
	}
	return nil
}

// Memset sets bytes bytes at p to value. It is queued on the stream and
// returns at once; later copies and launches observe it.
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
		d.endReadAhead()
		if r := C.wg_cuMemsetD8Async(C.CUdeviceptr(p), C.uchar(value), C.size_t(bytes), d.stream); r != cudaSuccess {
			return d.sticky(cudaError(fmt.Sprintf("cuMemsetD8Async(%#x, %d bytes)", uint64(p), bytes), r))
		}
		d.streamBusy = true
		return nil
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

// Close releases the device's modules, allocations, pinned buffers,
// stream, events and its context (its hold on the primary context, or the
// context OpenSystem created for it), and stops the CUDA thread. Later
// calls return ErrClosed; closing again returns nil. After a hung kernel
// Close releases nothing (any CUDA call could wait forever behind the
// kernel) and says so; the process is expected to exit.
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
	keep(check("cuMemFreeHost", C.wg_cuMemFreeHost(d.readAhead)))
	d.params.free()
	d.raParams.free()
	d.staging, d.readAhead, d.stagingUsed, d.streamBusy = nil, nil, 0, false
	keep(check("cuCtxSetCurrent(NULL)", C.wg_cuCtxSetCurrent(nil)))
	if d.ownsContext {
		keep(check("cuCtxDestroy_v2", C.wg_cuCtxDestroy_v2(d.ctx)))
	} else {
		keep(check("cuDevicePrimaryCtxRelease_v2", C.wg_cuDevicePrimaryCtxRelease_v2(d.dev)))
	}
	if len(errs) > 0 {
		return fmt.Errorf("hw: closing CUDA device %d: %w", d.ordinal, errors.Join(errs...))
	}
	return nil
}
