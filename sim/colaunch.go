package sim

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// CoLaunch runs k on every device of the system at once (kernels.PeerSystem):
// device i with cfg and args[i], as one grid of the executor whose CTAs of
// device i run on device i's SMs with device i's parameters and memory,
// each device's warps reaching every device's memory by its addresses.
// Every device's warps step in one run, so a kernel may wait on another
// device's stores or atomics (a remote push, a flag), and a co-launch
// whose devices can never all finish is a deadlock of the whole, which
// the executor's detectors report as for one device.
//
// In timing mode the co-launch runs on the system's own timing model
// (coTiming): every device's SMs, L2 slices and DRAM channels in one
// engine, an access to another device's memory crossing the link to the
// owner's L2 (memsys, devices.go). Each device's L2 contents (and DRAM
// rows) move into that model before the co-launch and back after it
// (shareL2s), so a device's launches and the co-launches see one L2. A
// profile (WithProfile, WithProfileInto) records the co-launch as one
// launch of all the devices' warps. Sampled mode refuses co-launches.
// Each device's host clock advances by its launch and synchronisation
// costs and the kernel time (the devices launch at once and the co-launch
// ends with the last), and the system clock by the same.
func (s *System) CoLaunch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args [][]any) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	if err := kernels.CheckCoLaunch(k, args, len(s.devs)); err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	for _, d := range s.devs {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.closed {
			return stats, errClosed
		}
	}
	lead := s.devs[0]
	mode := lead.opts.mode
	if mode == ModeSampled {
		return stats, fmt.Errorf("sim: co-launch of %s in sampled mode: co-launches run in timing or functional mode (--sim-mode)", k.Name)
	}
	parts := make([]exec.LaunchPart, len(s.devs))
	for i, d := range s.devs {
		params, err := k.PackArgs(args[i]...)
		if err != nil {
			return stats, fmt.Errorf("sim: co-launch of %s, device %d: %w", k.Name, i, err)
		}
		parts[i] = exec.LaunchPart{Params: params, Memory: d.mem}
	}
	p, err := lead.program(k)
	if err != nil {
		return stats, err
	}
	a, err := lead.attributes(k)
	if err != nil {
		return stats, err
	}
	resident, err := lead.checkLaunch(k, a, cfg)
	if err != nil {
		return stats, err
	}
	var gpu *timing.GPU
	if mode == ModeTiming {
		if gpu, err = s.coTiming(); err != nil {
			return stats, err
		}
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("sim: co-launch of %s not started: %w", k.Name, err)
	}
	for _, d := range s.devs {
		d.launches++
	}
	el := lead.execLaunch(cfg, nil)
	el.Parts = parts
	if gpu != nil {
		el.Clock = gpu.Clock
	}
	g, err := exec.NewGrid(p, nil, el)
	if err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	var runErr error
	if gpu != nil {
		if err := s.shareL2s(gpu, true); err != nil {
			return stats, err
		}
		var st timing.Stats
		st, runErr = gpu.Run(ctx, lead.timingLaunch(g, a, cfg))
		lead.opts.profiling.record(gpu, runErr)
		if err := s.shareL2s(gpu, false); err != nil {
			return stats, err
		}
		stats.Cycles = st.Cycles
		stats.Elapsed = lead.cfg.Host.kernelTime(st.Cycles, lead.cfg.ClockMHz)
		stats.Counters = st.Counters()
		link := gpu.Memory().LinkStats()
		var crossed uint64
		for i, row := range link.Bytes {
			for j, b := range row {
				crossed += b
				s.bytes[i][j] += b
			}
		}
		stats.Counters["link_bytes"] = float64(crossed)
		stats.Counters["link_queued_cycles"] = link.QueuedCycles
	} else {
		stats.Counters, runErr = lead.runFunctional(ctx, g, resident*len(s.devs))
	}
	stats.Counters["devices"] = float64(len(s.devs))
	step := lead.cfg.Host.launchCost(stats.Elapsed)
	for _, d := range s.devs {
		d.hostClock += step
	}
	s.mu.Lock()
	s.clock += step
	s.mu.Unlock()
	if runErr != nil {
		return stats, fmt.Errorf("sim: co-launch: %w", runErr)
	}
	return stats, nil
}

// coTiming returns the timing model of the system's co-launches, building
// it on first use: every device's SMs and memory system in one engine,
// joined by the configuration's link as kernels see it
// (LinkConfig.forKernels). Every device's d.mu is held.
func (s *System) coTiming() (*timing.GPU, error) {
	if s.coGPU != nil {
		return s.coGPU, nil
	}
	lead := s.devs[0]
	c := lead.cfg
	g, err := lead.timingBuilder().
		WithDevices(len(s.devs), s.cfg.System.Link.forKernels(len(s.devs), c.ClockMHz)).
		WithProfile(lead.opts.profiling.profiles()).
		Build("System")
	if err != nil {
		return nil, fmt.Errorf("sim: config %s, %d devices in one model: %w", c.Name, len(s.devs), err)
	}
	s.coGPU = g
	return g, nil
}

// shareL2s copies every device's L2 from its own timing model into the
// co-launch model (into) or back (after the co-launch, building a
// device's model if it has none yet, so that its next launch sees what
// the co-launch left). Every device's d.mu is held.
func (s *System) shareL2s(co *timing.GPU, into bool) error {
	for i, d := range s.devs {
		if into && d.gpu == nil {
			continue // nothing cached yet: the co-launch model's is the device's
		}
		own, err := d.timingGPU()
		if err != nil {
			return err
		}
		if into {
			err = memsys.CopyL2(co.Memory(), i, own.Memory(), 0)
		} else {
			err = memsys.CopyL2(own.Memory(), 0, co.Memory(), i)
		}
		if err != nil {
			return fmt.Errorf("sim: device %d's L2 and the co-launch's: %w", i, err)
		}
	}
	return nil
}
