package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments/micro"
)

// peerCopyName is the microbenchmark of a system's links: it runs on
// several devices, so it sits outside the registry of one-device
// benchmarks.
const peerCopyName = "peer_copy"

// runPeerCopy times copies between every pair of --gpus devices.
func runPeerCopy(cmd *cobra.Command, o microOptions) error {
	if o.target != "hw" && o.target != "sim" {
		return badInput("unknown target %q: microbenchmarks run on hw or sim", o.target)
	}
	if o.gpus < 2 {
		return badInput("--gpus %d: peer_copy needs two devices or more", o.gpus)
	}
	env, err := openSystem(runOptions{target: o.target, simMode: o.simMode, config: o.config, gpus: o.gpus, threads: o.threads})
	if err != nil {
		return err
	}
	defer env.close()
	timeout := o.timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
	defer cancel()
	t, err := micro.PeerCopy(ctx, env.system, micro.PeerCopySizes, o.warmup, o.repeat, o.target == "sim")
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.asJSON {
		config := ""
		if o.target == "sim" {
			config = o.config
		}
		return writeJSON(out, []microJSON{{t, nil, newProvenance(config, nil)}})
	}
	return t.Write(out)
}
