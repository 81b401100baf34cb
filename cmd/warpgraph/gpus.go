package main

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// registerGPUFlags adds --gpus, --partition and --devices: a run over
// several devices (the mgpu scheduler).
func registerGPUFlags(f *pflag.FlagSet, o *runOptions) {
	f.IntVar(&o.gpus, "gpus", 1, "devices the run spans, the graph's vertices partitioned over them (needs a scheduler that runs partitioned graphs: mgpu, or atos:worker=warp); on sim the configuration must describe a system of at least this many GPUs (e.g. h100-x8-nvlink)")
	f.StringVar(&o.partition, "partition", graph.PartitionRange, "with --gpus P: how the vertices are split: range (contiguous ranges balanced by in-edges) or hash")
	f.StringVar(&o.devices, "devices", "", "with --target hw: the CUDA device ordinals the run spans, in order (default 0..P-1 for --gpus P); an ordinal listed twice gets a second context on that GPU, which checks the multi-GPU path on one GPU (no peer link: its times mean nothing)")
}

// checkGPUs rejects --gpus, --partition and --devices values that are out
// of range or do not apply, and sets gpus from --devices.
func (o *runOptions) checkGPUs() error {
	if o.devices != "" {
		if o.target != "hw" {
			return badInput("--devices applies to --target hw")
		}
		ordinals, err := parseOrdinals(o.devices)
		if err != nil {
			return badInput("--devices %q: %v", o.devices, err)
		}
		if o.set["gpus"] && o.gpus != len(ordinals) {
			return badInput("--gpus %d but --devices lists %d", o.gpus, len(ordinals))
		}
		o.gpus, o.ordinals = len(ordinals), ordinals
	}
	switch {
	case o.gpus < 1:
		return badInput("--gpus %d: give one device or more", o.gpus)
	case o.gpus > scheduler.MaxPartitionDevices:
		return badInput("--gpus %d: at most %d devices", o.gpus, scheduler.MaxPartitionDevices)
	case o.target == "cpu" && o.gpus > 1:
		return badInput("--gpus %d applies to device runs (--target sim or hw), not to the CPU reference", o.gpus)
	case o.set["partition"] && o.gpus == 1:
		return badInput("--partition applies with --gpus P, P > 1")
	case o.partition != graph.PartitionRange && o.partition != graph.PartitionHash:
		return badInput("--partition %q: use %s or %s", o.partition, graph.PartitionRange, graph.PartitionHash)
	}
	if o.gpus > 1 {
		for _, name := range []string{"monitor", "profile", "trace", "sample-inside", "sample-slice", "sample-stops-only"} {
			if o.set[name] {
				return badInput("--%s follows one simulated device: not with --gpus %d", name, o.gpus)
			}
		}
	}
	return nil
}

func parseOrdinals(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a device ordinal (0, 1, ...)", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// openSystem opens the devices of a --gpus run: simulated GPUs of the
// configuration's system, or CUDA devices.
func openSystem(o runOptions) (*deviceEnv, error) {
	switch o.target {
	case "hw":
		ordinals := o.ordinals
		if ordinals == nil {
			for i := range o.gpus {
				ordinals = append(ordinals, i)
			}
		}
		present, err := hw.ListDevices()
		if err == nil {
			for _, d := range ordinals {
				if d >= len(present) {
					return nil, badInput("--gpus %d: device %d asked, this host has %d CUDA devices", o.gpus, d, len(present))
				}
			}
		}
		var sys *hw.System
		if err == nil {
			sys, err = hw.OpenSystem(ordinals)
		}
		if err != nil {
			if errors.Is(err, hw.ErrNoDriver) {
				return nil, fmt.Errorf("--target hw needs an NVIDIA GPU with its driver: %w", err)
			}
			return nil, err
		}
		return &deviceEnv{dev: sys.Devices()[0], target: "hw", system: sys}, nil
	case "sim":
		m, err := sim.ParseMode(o.simMode)
		if err != nil {
			return nil, &inputError{err}
		}
		opts := []sim.Option{sim.WithMode(m)}
		if o.checkBounds {
			opts = append(opts, sim.WithBoundsCheck())
		}
		if o.threads.window() && m != sim.ModeFunctional {
			// The devices share the host's cores.
			n := runtime.NumCPU()
			if o.threads != nil {
				n = o.threads.threads(n, 1)
			}
			opts = append(opts, sim.WithThreads(max(1, n/o.gpus)))
		}
		sys, err := sim.OpenSystem(o.config, o.gpus, opts...)
		if err != nil {
			return nil, &inputError{err}
		}
		first := sys.Devices()[0].(*sim.Device)
		return &deviceEnv{dev: first, target: "sim", simMode: string(m), config: o.config, sim: first, system: sys}, nil
	default:
		return nil, badInput("target %q has no device", o.target)
	}
}
