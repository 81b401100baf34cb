//go:build cgo

package hw

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "cuda_driver.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// CUresult codes this package acts on (cuda.h, cudaError_enum).
const (
	cudaSuccess     = 0
	cudaStubLibrary = 34  // CUDA_ERROR_STUB_LIBRARY: the toolkit's stub, not a driver
	cudaNoDevice    = 100 // CUDA_ERROR_NO_DEVICE
	cudaNotFound    = 500 // CUDA_ERROR_NOT_FOUND
	cudaNotReady    = 600 // CUDA_ERROR_NOT_READY

	cudaPeerAccessUnsupported    = 217 // CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
	cudaPeerAccessAlreadyEnabled = 704 // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
	cudaTooManyPeers             = 711 // CUDA_ERROR_TOO_MANY_PEERS
)

// CUdevice_attribute values (cuda.h).
const (
	attrMaxThreadsPerBlock           = 1
	attrMaxBlockDimX                 = 2
	attrMaxBlockDimY                 = 3
	attrMaxBlockDimZ                 = 4
	attrMaxGridDimX                  = 5
	attrMaxGridDimY                  = 6
	attrMaxGridDimZ                  = 7
	attrMaxSharedMemoryPerBlock      = 8
	attrWarpSize                     = 10
	attrMaxRegistersPerBlock         = 12
	attrClockRate                    = 13
	attrMultiprocessorCount          = 16
	attrMaxThreadsPerMultiprocessor  = 39
	attrComputeCapabilityMajor       = 75
	attrComputeCapabilityMinor       = 76
	attrMaxSharedMemoryPerSM         = 81
	attrMaxRegistersPerSM            = 82
	attrCooperativeLaunch            = 95
	attrMaxSharedMemoryPerBlockOptin = 97
	attrMaxBlocksPerMultiprocessor   = 106
)

// CUfunction_attribute values (cuda.h).
const (
	funcAttrMaxThreadsPerBlock = 0
	funcAttrSharedSizeBytes    = 1
	funcAttrLocalSizeBytes     = 3
	funcAttrNumRegs            = 4
)

const (
	cuStreamNonBlocking = 1 // CU_STREAM_NON_BLOCKING: no implicit synchronization with the legacy stream
	cuEventDefault      = 0 // CU_EVENT_DEFAULT: timing enabled, no blocking sync (we poll)
)

// The driver is process-wide state by nature (one dlopen handle, one
// cuInit); it is loaded once, on first use, and never unloaded.
var (
	driverOnce sync.Once
	driverErr  error
)

// loadDriver opens libcuda.so.1, resolves the entry points and initialises
// the driver. The error wraps ErrNoDriver when this machine has no usable
// CUDA driver, so that callers can skip rather than fail.
func loadDriver() error {
	driverOnce.Do(func() {
		var detail *C.char
		switch C.wg_load(&detail) {
		case C.WG_NO_LIBRARY:
			driverErr = fmt.Errorf("%w: dlopen: %s", ErrNoDriver, C.GoString(detail))
			return
		case C.WG_MISSING_SYMBOL:
			driverErr = fmt.Errorf("hw: libcuda.so.1 does not export %s: the CUDA driver is too old for warpgraph", C.GoString(detail))
			return
		}
		if r := C.wg_cuInit(0); r != cudaSuccess {
			err := cudaError("cuInit", r)
			if r == cudaNoDevice || r == cudaStubLibrary {
				driverErr = fmt.Errorf("%w: %w", ErrNoDriver, err)
				return
			}
			driverErr = err
		}
	})
	return driverErr
}

// cudaError turns a failed CUresult into a *CUDAError naming the call.
func cudaError(call string, r C.CUresult) *CUDAError {
	e := &CUDAError{Call: call, Code: int(r)}
	var s *C.char
	if C.wg_cuGetErrorName(r, &s) == cudaSuccess && s != nil {
		e.Name = C.GoString(s)
	}
	s = nil
	if C.wg_cuGetErrorString(r, &s) == cudaSuccess && s != nil {
		e.Description = C.GoString(s)
	}
	return e
}

// check returns nil for CUDA_SUCCESS and a *CUDAError otherwise.
func check(call string, r C.CUresult) error {
	if r == cudaSuccess {
		return nil
	}
	return cudaError(call, r)
}

// driverVersion returns the driver's CUDA version as major*1000+minor*10.
func driverVersion() (int, error) {
	var v C.int
	if err := check("cuDriverGetVersion", C.wg_cuDriverGetVersion(&v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

func deviceCount() (int, error) {
	var n C.int
	if err := check("cuDeviceGetCount", C.wg_cuDeviceGetCount(&n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

func deviceHandle(ordinal int) (C.CUdevice, error) {
	n, err := deviceCount()
	if err != nil {
		return 0, err
	}
	if ordinal < 0 || ordinal >= n {
		return 0, fmt.Errorf("hw: no CUDA device %d: the driver sees %d", ordinal, n)
	}
	var dev C.CUdevice
	if err := check(fmt.Sprintf("cuDeviceGet(%d)", ordinal), C.wg_cuDeviceGet(&dev, C.int(ordinal))); err != nil {
		return 0, err
	}
	return dev, nil
}

// queryDevice reads a device's properties and launch limits. It needs no
// context, so ListDevices can call it from any thread.
func queryDevice(dev C.CUdevice) (kernels.Properties, deviceLimits, error) {
	var firstErr error
	attr := func(a int) int {
		var v C.int
		if err := check(fmt.Sprintf("cuDeviceGetAttribute(%d)", a), C.wg_cuDeviceGetAttribute(&v, C.int(a), dev)); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return 0
		}
		return int(v)
	}
	var name [256]C.char
	if err := check("cuDeviceGetName", C.wg_cuDeviceGetName(&name[0], C.int(len(name)), dev)); err != nil {
		return kernels.Properties{}, deviceLimits{}, err
	}
	var total C.size_t
	if err := check("cuDeviceTotalMem_v2", C.wg_cuDeviceTotalMem_v2(&total, dev)); err != nil {
		return kernels.Properties{}, deviceLimits{}, err
	}
	p := kernels.Properties{
		Name:              C.GoString(&name[0]),
		ComputeCapability: [2]int{attr(attrComputeCapabilityMajor), attr(attrComputeCapabilityMinor)},
		SMs:               attr(attrMultiprocessorCount),
		WarpSize:          attr(attrWarpSize),
		RegistersPerSM:    attr(attrMaxRegistersPerSM),
		RegistersPerCTA:   attr(attrMaxRegistersPerBlock),
		SharedMemPerSM:    attr(attrMaxSharedMemoryPerSM),
		SharedMemPerCTA:   attr(attrMaxSharedMemoryPerBlock),
		MaxThreadsPerCTA:  attr(attrMaxThreadsPerBlock),
		MaxThreadsPerSM:   attr(attrMaxThreadsPerMultiprocessor),
		MaxCTAsPerSM:      attr(attrMaxBlocksPerMultiprocessor),
		GlobalMemBytes:    uint64(total),
	}
	lim := deviceLimits{
		maxBlockDim:          [3]int{attr(attrMaxBlockDimX), attr(attrMaxBlockDimY), attr(attrMaxBlockDimZ)},
		maxGridDim:           [3]int{attr(attrMaxGridDimX), attr(attrMaxGridDimY), attr(attrMaxGridDimZ)},
		cooperative:          attr(attrCooperativeLaunch) != 0,
		sharedMemPerCTAOptIn: attr(attrMaxSharedMemoryPerBlockOptin),
	}
	if firstErr != nil {
		return kernels.Properties{}, deviceLimits{}, firstErr
	}
	// The clock attribute is deprecated in recent toolkits; a driver that
	// stops reporting it leaves ClockKHz zero rather than failing Open.
	var clock C.int
	if C.wg_cuDeviceGetAttribute(&clock, attrClockRate, dev) == cudaSuccess {
		p.ClockKHz = int(clock)
	}
	if p.WarpSize > 0 {
		p.MaxWarpsPerSM = p.MaxThreadsPerSM / p.WarpSize
	}
	p.RegisterAllocUnit, p.SharedMemAllocUnit = allocationUnits(p.ComputeCapability[0])
	return p, lim, nil
}

// paramBlock is a kernel's packed arguments in C memory with the array of
// pointers into it that cuLaunchKernel's kernelParams expects. It lives in
// C memory because the driver must not hold pointers into Go memory.
type paramBlock struct {
	values   unsafe.Pointer // the PackArgs buffer (valuesCap bytes)
	pointers unsafe.Pointer // one void* per parameter, into values (pointersCap of them)
	count    int

	valuesCap, pointersCap int
}

func newParamBlock(packed []byte, offsets []int) *paramBlock {
	b := &paramBlock{}
	b.set(packed, offsets)
	return b
}

// set fills b with packed and offsets, reusing its C memory when it is
// large enough: a launch then allocates nothing.
func (b *paramBlock) set(packed []byte, offsets []int) {
	b.count = len(offsets)
	if len(offsets) == 0 {
		return
	}
	if len(packed) > b.valuesCap {
		C.free(b.values)
		b.valuesCap = max(len(packed), 256)
		b.values = C.malloc(C.size_t(b.valuesCap))
	}
	copy(unsafe.Slice((*byte)(b.values), len(packed)), packed)
	if len(offsets) > b.pointersCap {
		C.free(b.pointers)
		b.pointersCap = max(len(offsets), 32)
		b.pointers = C.malloc(C.size_t(b.pointersCap) * C.size_t(unsafe.Sizeof(uintptr(0))))
	}
	ptrs := unsafe.Slice((*unsafe.Pointer)(b.pointers), len(offsets))
	for i, off := range offsets {
		ptrs[i] = unsafe.Add(b.values, off)
	}
}

// kernelParams returns the void** to pass to the launch (NULL when the
// kernel takes no parameters).
func (b *paramBlock) kernelParams() *unsafe.Pointer {
	if b.count == 0 {
		return nil
	}
	return (*unsafe.Pointer)(b.pointers)
}

func (b *paramBlock) free() {
	C.free(b.values)
	C.free(b.pointers)
	*b = paramBlock{}
}
