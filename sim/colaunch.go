package sim

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
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
// Functional mode only for now: in timing and sampled mode the
// co-launch is refused with an error that says so, since the timing model
// of accesses across the link is not built yet. Each device's host clock
// advances by its launch and synchronisation costs (the devices launch
// at once), and the system clock by the largest advance, as a Parallel
// step's.
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
	if m := lead.opts.mode; m != ModeFunctional {
		return stats, fmt.Errorf("sim: co-launch of %s in %s mode: the simulator runs co-launches in functional mode only so far (--sim-mode functional); the timing model of kernels' accesses across the link is not built yet", k.Name, m)
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
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("sim: co-launch of %s not started: %w", k.Name, err)
	}
	for _, d := range s.devs {
		d.launches++
	}
	el := lead.execLaunch(cfg, nil)
	el.Parts = parts
	g, err := exec.NewGrid(p, nil, el)
	if err != nil {
		return stats, fmt.Errorf("sim: %w", err)
	}
	o := lead.opts
	runErr := g.Run(ctx, exec.RunOptions{Resident: resident * len(s.devs), Slice: o.slice, QuietWindow: o.quietWindow, Threads: lead.Threads()})
	stats.Counters = map[string]float64{
		"warp_instructions":   float64(g.WarpInsts),
		"thread_instructions": float64(g.ThreadInsts),
		"ctas":                float64(g.CTAs()),
		"devices":             float64(len(s.devs)),
	}
	step := lead.cfg.Host.launchCost(lead.cfg.Host.kernelTime(0, lead.cfg.ClockMHz))
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
