package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// cpuProfile is the root's --cpu-profile: a Go CPU profile of the warpgraph
// process itself (where the simulator's wall time goes, for `go tool
// pprof`), written from the command's start to its end, an error or an
// interrupt included.
type cpuProfile struct {
	path string
	file *os.File
}

const cpuProfileHelp = "write a Go CPU profile of this warpgraph process (the simulator's own cost, not the simulated GPU's: --profile is that) to FILE, for go tool pprof"

func (p *cpuProfile) register(root *cobra.Command) {
	root.PersistentFlags().StringVar(&p.path, "cpu-profile", "", cpuProfileHelp)
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return p.start() }
}

func (p *cpuProfile) start() error {
	if p.path == "" {
		return nil
	}
	f, err := os.Create(p.path)
	if err != nil {
		return badInput("--cpu-profile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close() // the error to report is the profiler's
		return fmt.Errorf("--cpu-profile: %w", err)
	}
	p.file = f
	return nil
}

// stop ends the profile, if one runs, and closes its file.
func (p *cpuProfile) stop() error {
	if p.file == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.file.Close()
	p.file = nil
	if err != nil {
		return fmt.Errorf("--cpu-profile: %w", err)
	}
	return nil
}
