//go:build cgo

package hw

/*
#include "cuda_driver.h"
*/
import "C"

import (
	"context"
	"fmt"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// Launch runs k with args and returns when it has finished: cfg.Warmup
// untimed launches, then max(cfg.Repeat, 1) launches timed with device
// events, reporting their median in Elapsed and each in Samples. The host
// polls for completion until ctx ends; a kernel still running then is a
// *HungKernelError and leaves the device unusable.
//
// Errors: a launch the device cannot hold is a *kernels.LaunchResourceError
// (checked before launching where possible; a cooperative grid over the
// co-resident limit included); a bad memory access inside the kernel is a
// *kernels.MemoryFaultError; both also unwrap to the *CUDAError behind
// them when there is one.
func (d *Device) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	if k == nil {
		return kernels.LaunchStats{}, fmt.Errorf("hw: Launch of a nil kernel")
	}
	packed, err := k.PackArgs(args...)
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	var stats kernels.LaunchStats
	err = d.run(func() error {
		var err error
		stats, err = d.launchOnThread(ctx, k, cfg, packed)
		return err
	})
	return stats, err
}

func (d *Device) launchOnThread(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, packed []byte) (kernels.LaunchStats, error) {
	f, err := d.function(k)
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	if err := checkLaunch(k.Name, cfg, d.props, d.limits, f.attrs); err != nil {
		return kernels.LaunchStats{}, err
	}
	if cfg.Cooperative && !d.trustDriverCoResidency {
		perSM, err := d.occupancy(k.Name, f, cfg.Block.Count(), cfg.DynamicSharedMem)
		if err != nil {
			return kernels.LaunchStats{}, err
		}
		if cfg.Grid.Count() > perSM*d.props.SMs {
			return kernels.LaunchStats{}, coResidentError(k.Name, cfg, perSM, d.props.SMs, nil)
		}
	}
	d.endReadAhead()
	d.params.set(packed, k.ParamOffsets())

	warmup, timed := max(cfg.Warmup, 0), max(cfg.Repeat, 1)
	samples := make([]time.Duration, 0, timed)
	for i := range warmup + timed {
		last := i == warmup+timed-1
		elapsed, err := d.launchOnce(ctx, k, f, cfg, last)
		if err != nil {
			return kernels.LaunchStats{}, err
		}
		if i >= warmup {
			samples = append(samples, elapsed)
		}
	}
	d.afterLaunch = true
	return kernels.LaunchStats{Elapsed: median(samples), Samples: samples}, nil
}

// launchOnce launches k once between the start and end events and waits
// for the end event, so that a hang is caught on the launch that hangs.
// The last launch of a Launch queues the read-ahead behind the end event
// (see CopyFromDevice), while the kernel runs.
func (d *Device) launchOnce(ctx context.Context, k *kernels.Kernel, f *loadedFunction, cfg kernels.LaunchConfig, last bool) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("hw: launch of %s not started: %w", k.Name, err)
	}
	if err := d.sticky(check("cuEventRecord(start)", C.wg_cuEventRecord(d.start, d.stream))); err != nil {
		return 0, err
	}
	grid, block := dims(cfg.Grid), dims(cfg.Block)
	call, cooperative := "cuLaunchKernel", 0
	if cfg.Cooperative {
		call, cooperative = "cuLaunchCooperativeKernel", 1
	}
	r := C.wg_launch(f.handle,
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(cfg.DynamicSharedMem), d.stream, d.params.kernelParams(), C.int(cooperative))
	if r != cudaSuccess {
		return 0, d.launchError(k.Name, f, cfg, cudaError(fmt.Sprintf("%s(%s)", call, k.Name), r))
	}
	d.streamBusy = true
	if err := d.sticky(check("cuEventRecord(end)", C.wg_cuEventRecord(d.end, d.stream))); err != nil {
		return 0, err
	}
	ahead := span{}
	if last && d.follow.size > 0 && d.queueReadAhead() {
		ahead = d.follow
	}
	if err := d.wait(ctx, k.Name); err != nil {
		return 0, err
	}
	// Everything queued before the end event has run: only the read-ahead
	// may still be under way, into its own buffer.
	d.stagingUsed, d.streamBusy, d.ahead = 0, ahead.size > 0, ahead
	var ms C.float
	if r := C.wg_cuEventElapsedTime(&ms, d.start, d.end); r != cudaSuccess {
		return 0, d.sticky(cudaError(fmt.Sprintf("cuEventElapsedTime(%s)", k.Name), r))
	}
	return eventMilliseconds(float32(ms)), nil
}

// wait polls the end event until the kernel finishes, fails, or ctx ends:
// spinning at first, then sleeping (pollUntil).
func (d *Device) wait(ctx context.Context, kernel string) error {
	began := time.Now()
	var fault error
	err := pollUntil(ctx, func() bool {
		switch r := C.wg_cuEventQuery(d.end); r {
		case cudaSuccess:
			return true
		case cudaNotReady:
			return false
		default:
			fault = d.kernelFault(kernel, cudaError(fmt.Sprintf("cuEventQuery(%s)", kernel), r))
			return true
		}
	})
	if fault != nil {
		return fault
	}
	if err != nil {
		hung := &HungKernelError{Kernel: kernel, Waited: time.Since(began), Cause: err}
		d.hung = true
		d.unusable = &unusableError{ordinal: d.ordinal, cause: hung}
		return hung
	}
	return nil
}

// launchError converts a failed cuLaunchKernel or cuLaunchCooperativeKernel.
func (d *Device) launchError(kernel string, f *loadedFunction, cfg kernels.LaunchConfig, e *CUDAError) error {
	switch e.Code {
	case CodeLaunchOutOfResources:
		return launchResource(kernel, fmt.Sprintf("a block of %d threads at %d registers per thread with %d bytes of dynamic shared memory does not fit an SM",
			cfg.Block.Count(), f.attrs.RegistersPerThread, cfg.DynamicSharedMem), e)
	case CodeCooperativeLaunchTooLarge:
		perSM, err := d.occupancy(kernel, f, cfg.Block.Count(), cfg.DynamicSharedMem)
		if err != nil {
			return e
		}
		return coResidentError(kernel, cfg, perSM, d.props.SMs, e)
	}
	return d.kernelFault(kernel, e)
}

// kernelFault converts an error that a kernel caused while running (or an
// earlier kernel's, surfacing late): bad memory accesses become
// *kernels.MemoryFaultError, and sticky errors mark the device unusable.
func (d *Device) kernelFault(kernel string, e *CUDAError) error {
	var err error = e
	if e.memoryFault() {
		err = &kernelError{
			neutral: &kernels.MemoryFaultError{Kernel: kernel, Detail: e.Error() + "; the CUDA context is now unusable and the process must exit"},
			cuda:    e,
		}
	}
	if e.Sticky() && d.unusable == nil {
		d.unusable = &unusableError{ordinal: d.ordinal, cause: err}
	}
	return err
}
