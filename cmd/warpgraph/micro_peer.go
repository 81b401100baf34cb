package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments/micro"
)

// peerCopyName and peerLatencyName are the microbenchmarks of a system's
// links: they run on several devices, so they sit outside the registry of
// one-device benchmarks.
const (
	peerCopyName    = "peer_copy"
	peerLatencyName = "peer_latency"
)

// runPeer times copies (peer_copy) or kernels' accesses (peer_latency)
// between every pair of --gpus devices.
func runPeer(cmd *cobra.Command, name string, o microOptions) error {
	if o.target != "hw" && o.target != "sim" {
		return badInput("unknown target %q: microbenchmarks run on hw or sim", o.target)
	}
	if o.gpus < 2 {
		return badInput("--gpus %d: %s needs two devices or more", o.gpus, name)
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
	var t *micro.Table
	if name == peerLatencyName {
		t, err = micro.PeerLatency(ctx, env.system, o.warmup, o.repeat, o.target == "sim")
	} else {
		t, err = micro.PeerCopy(ctx, env.system, micro.PeerCopySizes, o.warmup, o.repeat, o.target == "sim")
	}
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
