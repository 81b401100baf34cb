package main

import (
	"context"
	"fmt"
	"time"

	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

// warpgraphConfig is the simulated GPU our side runs on.
const warpgraphConfig = "h100"

// runWarpgraph runs the stream kernel (kernels/stream.cu: c[i] = a[i] +
// b[i], one element per thread, two loads and one store: the shape of
// MGPUSim's vectoradd) on n elements on warpgraph's simulator in timing
// mode with the h100 configuration, through the stream microbenchmark's
// driver (experiments/micro.Stream), which checks every output against the
// host's a[i] + b[i] and a guard word past the end. block is the CTA size.
//
// The device builds its timing model and lowers the kernel's PTX on its
// first launch; a warm-up launch with n = 0 (every thread returns at once,
// no memory is touched) does that first, so the timed launch, like
// MGPUSim's, simulates the kernel on a platform already built. Setup is
// reported apart.
func runWarpgraph(ctx context.Context, n, block int) (result, error) {
	r := result{Simulator: "warpgraph sim " + warpgraphConfig, Items: n}
	start := time.Now()
	dev, err := sim.Open(warpgraphConfig, sim.WithMode(sim.ModeTiming))
	if err != nil {
		return r, err
	}
	defer dev.Close()
	r.Lanes = dev.Properties().WarpSize
	k, err := kernels.Lookup("stream")
	if err != nil {
		return r, err
	}
	warm := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(block)}
	if _, err := dev.Launch(ctx, k, warm, kernels.DevPtr(0), kernels.DevPtr(0), kernels.DevPtr(0), uint32(0)); err != nil {
		return r, fmt.Errorf("warpgraph: warm-up launch: %w", err)
	}
	r.SetupWall = time.Since(start)
	td := &timedDevice{Device: dev}
	start = time.Now()
	_, stats, err := micro.Stream(ctx, td, n, block, micro.Params{})
	r.RunWall = time.Since(start)
	r.KernelWall = td.launchWall
	if err != nil {
		return r, fmt.Errorf("warpgraph: %w", err)
	}
	if td.launches != 1 {
		return r, fmt.Errorf("warpgraph: %d launches, want 1", td.launches)
	}
	r.GroupInstructions = uint64(stats.Counters["warp_instructions"])
	r.ThreadInstructions = uint64(stats.Counters["thread_instructions"])
	r.SimTime = stats.Elapsed
	r.Cycles = stats.Cycles
	r.Validated = "all c[i] == a[i]+b[i] (CPU), guard word intact"
	return r, nil
}

// timedDevice times each Launch with the wall clock.
type timedDevice struct {
	kernels.Device
	launches   int
	launchWall time.Duration
}

func (d *timedDevice) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	start := time.Now()
	s, err := d.Device.Launch(ctx, k, cfg, args...)
	d.launchWall += time.Since(start)
	d.launches++
	return s, err
}
