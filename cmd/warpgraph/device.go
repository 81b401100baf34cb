package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// deviceEnv is an open executor: the simulator or a GPU.
type deviceEnv struct {
	dev     kernels.Device
	target  string
	simMode string
	config  string
	// sim is the simulator when the target is sim (dev may wrap it).
	sim *sim.Device
	// system spans the devices of a --gpus run (nil: one device); dev is
	// its first.
	system kernels.System
}

func (e *deviceEnv) close() {
	if e.system != nil {
		_ = e.system.Close()
		return
	}
	_ = e.dev.Close()
}

// timed says whether the device's runs have a kernel and end-to-end time:
// the CPU reference (no device, e nil) and functional simulation (no
// cycles) have none, so runs on them report no such times at all.
func (e *deviceEnv) timed() bool { return e != nil && e.simMode != "functional" }

func (e *deviceEnv) describe(r *runResult) {
	r.Device = e.dev.Properties().Name
	if e.system != nil {
		r.GPUs, r.Link = len(e.system.Devices()), e.system.Link()
	}
	r.SimMode = e.simMode
	r.Config = e.config
	if e.sim != nil && e.timed() {
		r.SimEngine, r.SimThreads = engineSerial, e.sim.Threads()
		if r.SimThreads > 0 {
			r.SimEngine = engineWindow
		}
	}
}

// openDevice opens the executor a --target names.
func openDevice(o runOptions) (*deviceEnv, error) {
	if o.gpus > 1 {
		return openSystem(o)
	}
	switch o.target {
	case "hw":
		dev, err := hw.Open(0)
		if err != nil {
			if errors.Is(err, hw.ErrNoDriver) {
				return nil, fmt.Errorf("--target hw needs an NVIDIA GPU with its driver: %w", err)
			}
			return nil, err
		}
		return &deviceEnv{dev: dev, target: "hw"}, nil
	case "sim":
		w := o.progress
		if w == nil {
			w = io.Discard
		}
		mon, err := o.monitor.start(w)
		if err != nil {
			return nil, err
		}
		if o.threads == nil {
			o.threads = defaultEngine()
		}
		extra := o.profile.options()
		if o.checkBounds {
			extra = append(extra, sim.WithBoundsCheck())
		}
		if o.sampleInside > 0 {
			extra = append(extra, sim.WithSamplingInside(o.sampleInside), sim.WithStretchSlice(o.sampleSlice),
				sim.WithStretchRoundsIssue(o.sampleRoundsPace))
			if o.sampleStopsOnly {
				extra = append(extra, sim.WithStopsOnly())
			}
		}
		env, err := openSimulator(o.simMode, o.config, mon, append(extra, o.threads.options(o.simMode)...)...)
		var u *timing.UnsupportedError
		if err != nil && o.threads.window() && errors.As(err, &u) {
			// A memory model the window engine cannot simulate yet.
			if o.threads.explicit() {
				return nil, o.threads.unsupportedError(err)
			}
			o.threads.serialFor = u.What
			return openSimulator(o.simMode, o.config, mon, extra...)
		}
		return env, err
	default:
		return nil, badInput("target %q has no device", o.target)
	}
}
