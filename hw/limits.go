package hw

import (
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// deviceLimits are the launch limits that kernels.Properties does not hold.
type deviceLimits struct {
	maxBlockDim, maxGridDim [3]int
	cooperative             bool
	// sharedMemPerCTAOptIn is the shared memory a CTA may use once the
	// kernel opts in through cuFuncSetAttribute, which this backend does
	// not do yet; it only makes the over-limit message more helpful.
	sharedMemPerCTAOptIn int
}

// allocationUnits returns the register allocation unit (registers per
// warp) and the shared memory allocation unit (bytes) of a compute
// capability, which no device attribute reports. Values from the CUDA
// occupancy calculator, cuda_occupancy.h: cudaOccRegAllocationGranularity
// is 256 for every architecture since 3.x; cudaOccSMemAllocationGranularity
// is 256 for 3.x-7.x and 128 from 8.x on.
func allocationUnits(ccMajor int) (registers, sharedMem int) {
	if ccMajor >= 8 {
		return 256, 128
	}
	return 256, 256
}

// dims returns a Dim3's extents with zero meaning 1, as Dim3.Count does.
func dims(d kernels.Dim3) [3]int {
	out := [3]int{d.X, d.Y, d.Z}
	for i, v := range out {
		if v == 0 {
			out[i] = 1
		}
	}
	return out
}

// checkLaunch rejects, before anything reaches the driver, a launch that
// the device cannot run: a clear LaunchResourceError instead of the
// driver's terse CUDA_ERROR_INVALID_VALUE or LAUNCH_OUT_OF_RESOURCES.
func checkLaunch(kernel string, cfg kernels.LaunchConfig, p kernels.Properties, lim deviceLimits, attrs kernels.KernelAttrs) error {
	grid, block := dims(cfg.Grid), dims(cfg.Block)
	axes := [3]string{"x", "y", "z"}
	for i := range 3 {
		if grid[i] < 0 || block[i] < 0 {
			return fmt.Errorf("kernel %s: negative extent in grid %v or block %v", kernel, grid, block)
		}
		if lim.maxGridDim[i] > 0 && grid[i] > lim.maxGridDim[i] {
			return launchResource(kernel, fmt.Sprintf("grid %s extent %d exceeds the device limit of %d", axes[i], grid[i], lim.maxGridDim[i]), nil)
		}
	}
	if cfg.DynamicSharedMem < 0 {
		return fmt.Errorf("kernel %s: negative dynamic shared memory %d", kernel, cfg.DynamicSharedMem)
	}
	threads := cfg.Block.Count()
	if threads > p.MaxThreadsPerCTA {
		return launchResource(kernel, fmt.Sprintf("a block of %d threads exceeds the device limit of %d threads per CTA", threads, p.MaxThreadsPerCTA), nil)
	}
	for i := range 3 {
		if lim.maxBlockDim[i] > 0 && block[i] > lim.maxBlockDim[i] {
			return launchResource(kernel, fmt.Sprintf("block %s extent %d exceeds the device limit of %d", axes[i], block[i], lim.maxBlockDim[i]), nil)
		}
	}
	if attrs.MaxThreadsPerCTA > 0 && threads > attrs.MaxThreadsPerCTA {
		return launchResource(kernel, fmt.Sprintf("a block of %d threads exceeds this kernel's limit of %d threads per CTA (it uses %d registers per thread; a CTA may use %d)",
			threads, attrs.MaxThreadsPerCTA, attrs.RegistersPerThread, p.RegistersPerCTA), nil)
	}
	if smem := attrs.StaticSharedMem + cfg.DynamicSharedMem; smem > p.SharedMemPerCTA {
		detail := fmt.Sprintf("a CTA needs %d bytes of shared memory (%d static + %d dynamic), over the limit of %d bytes per CTA",
			smem, attrs.StaticSharedMem, cfg.DynamicSharedMem, p.SharedMemPerCTA)
		if lim.sharedMemPerCTAOptIn > p.SharedMemPerCTA {
			detail += fmt.Sprintf(" (the device allows up to %d bytes to kernels that opt in, which this backend does not do)", lim.sharedMemPerCTAOptIn)
		}
		return launchResource(kernel, detail, nil)
	}
	if cfg.Cooperative && !lim.cooperative {
		return launchResource(kernel, "the device does not support cooperative launches", nil)
	}
	return nil
}

// coResidentError describes a cooperative grid larger than what can be
// resident at once: ctasPerSM (from the occupancy query) times the SMs.
func coResidentError(kernel string, cfg kernels.LaunchConfig, ctasPerSM, sms int, cause *CUDAError) error {
	return launchResource(kernel, fmt.Sprintf("a cooperative grid of %d CTAs exceeds the co-resident limit of %d CTAs (%d per SM for blocks of %d threads with %d bytes of dynamic shared memory × %d SMs)",
		cfg.Grid.Count(), ctasPerSM*sms, ctasPerSM, cfg.Block.Count(), cfg.DynamicSharedMem, sms), cause)
}
