package hw

import (
	"errors"
	"fmt"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// ErrNoDriver is wrapped by Open, ListDevices and DriverVersion when this
// machine has no usable CUDA driver: libcuda.so.1 cannot be loaded, it is
// the toolkit's stub, the driver sees no device, or the binary was built
// without cgo. Tests and the command line skip or report on it; any other
// error is a real failure.
var ErrNoDriver = errors.New("hw: no CUDA driver")

// ErrClosed is returned by every call on a Device after Close.
var ErrClosed = errors.New("hw: device is closed")

// CUDA error codes that callers may want to test for in CUDAError.Code
// (cuda.h, cudaError_enum).
const (
	CodeIllegalAddress            = 700 // CUDA_ERROR_ILLEGAL_ADDRESS
	CodeLaunchOutOfResources      = 701 // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
	CodeLaunchTimeout             = 702 // CUDA_ERROR_LAUNCH_TIMEOUT (display watchdog)
	CodeAssert                    = 710 // CUDA_ERROR_ASSERT
	CodeHardwareStackError        = 714 // CUDA_ERROR_HARDWARE_STACK_ERROR
	CodeIllegalInstruction        = 715 // CUDA_ERROR_ILLEGAL_INSTRUCTION
	CodeMisalignedAddress         = 716 // CUDA_ERROR_MISALIGNED_ADDRESS
	CodeInvalidAddressSpace       = 717 // CUDA_ERROR_INVALID_ADDRESS_SPACE
	CodeInvalidPC                 = 718 // CUDA_ERROR_INVALID_PC
	CodeLaunchFailed              = 719 // CUDA_ERROR_LAUNCH_FAILED
	CodeCooperativeLaunchTooLarge = 720 // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
)

// CUDAError is a failed CUDA driver call.
type CUDAError struct {
	// Call names the driver function and what it acted on, e.g.
	// "cuLaunchKernel(bfs_topdown)".
	Call string
	// Code is the CUresult, e.g. 701.
	Code int
	// Name and Description come from cuGetErrorName and cuGetErrorString,
	// e.g. "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" and "too many resources
	// requested for launch"; empty when the driver does not know the code.
	Name, Description string
}

func (e *CUDAError) Error() string {
	name := e.Name
	if name == "" {
		name = "CUDA error"
	}
	s := fmt.Sprintf("%s: %s (%d)", e.Call, name, e.Code)
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// Sticky reports whether the error leaves the CUDA context unusable: after
// a fault inside a kernel every later call in the process fails, and only
// a new process recovers (CUDA driver API, "Error Handling").
func (e *CUDAError) Sticky() bool {
	switch e.Code {
	case CodeIllegalAddress, CodeLaunchTimeout, CodeAssert, CodeHardwareStackError,
		CodeIllegalInstruction, CodeMisalignedAddress, CodeInvalidAddressSpace,
		CodeInvalidPC, CodeLaunchFailed:
		return true
	}
	return false
}

// memoryFault reports whether the error is a bad memory access by a kernel,
// which Launch reports as a *kernels.MemoryFaultError.
func (e *CUDAError) memoryFault() bool {
	switch e.Code {
	case CodeIllegalAddress, CodeMisalignedAddress, CodeInvalidAddressSpace:
		return true
	}
	return false
}

// HungKernelError reports a kernel still running when the launch's context
// ended. CUDA cannot stop a running kernel, and every later call on the
// context would wait behind it, so the device is unusable from then on:
// the process must report the error and exit, which makes the driver
// destroy the context and the kernel with it.
type HungKernelError struct {
	Kernel string
	// Waited is how long the host polled before giving up.
	Waited time.Duration
	// Cause is the context's error: context.DeadlineExceeded or
	// context.Canceled.
	Cause error
}

func (e *HungKernelError) Error() string {
	return fmt.Sprintf("kernel %s still running after %v (%v): a running kernel cannot be stopped, so the CUDA context cannot be recovered and the process must exit",
		e.Kernel, e.Waited.Round(time.Millisecond), e.Cause)
}

func (e *HungKernelError) Unwrap() error { return e.Cause }

// kernelError is one of the executor-neutral errors of package kernels
// (*kernels.MemoryFaultError, *kernels.LaunchResourceError) caused by a
// CUDA error: errors.As finds either, and the message is the neutral one,
// whose Detail already quotes the CUDA error.
type kernelError struct {
	neutral error
	cuda    *CUDAError
}

func (e *kernelError) Error() string   { return e.neutral.Error() }
func (e *kernelError) Unwrap() []error { return []error{e.neutral, e.cuda} }

// unusableError is returned by every call on a device after a hung kernel
// or a sticky CUDA error.
type unusableError struct {
	ordinal int
	cause   error
}

func (e *unusableError) Error() string {
	return fmt.Sprintf("hw: CUDA device %d is unusable after an earlier failure: %v", e.ordinal, e.cause)
}

func (e *unusableError) Unwrap() error { return e.cause }

// launchResource builds a *kernels.LaunchResourceError, wrapping the CUDA
// error that revealed it when there is one.
func launchResource(kernel, detail string, cause *CUDAError) error {
	neutral := &kernels.LaunchResourceError{Kernel: kernel, Detail: detail}
	if cause == nil {
		return neutral
	}
	neutral.Detail += " (" + cause.Error() + ")"
	return &kernelError{neutral: neutral, cuda: cause}
}
