package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/sim"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// threadFlags is --sim-threads: the simulator's parallel timing engine.
// It is a pflag.Value so that its help shows no default: without it the
// serial engine runs.
type threadFlags struct {
	n     int  // threads (0: one per core)
	given bool // without the flag the serial engine runs
}

const simThreadsHelp = "run timing mode (and sampled mode's detailed launches) on the parallel engine with N threads (0: one per core); its figures are the same for every N and every run, " +
	"and may differ from those of the serial engine, which runs without the flag (sim/timing's package comment, Engines)"

// register adds the flag; more, when not empty, ends its help.
func (t *threadFlags) register(f *pflag.FlagSet, more string) {
	t.n = -1
	help := simThreadsHelp
	if more != "" {
		help += "; " + more
	}
	f.Var(t, "sim-threads", help)
}

func (t *threadFlags) String() string {
	if t == nil || t.n < 0 {
		return ""
	}
	return strconv.Itoa(t.n)
}

func (t *threadFlags) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a whole number of threads", s)
	}
	t.n, t.given = n, true
	return nil
}

func (t *threadFlags) Type() string { return "int" }

// check rejects --sim-threads where it does not apply or where the
// parallel engine cannot run yet; monitor and profile are the command's
// --monitor and --trace (nil: it has none).
func (t *threadFlags) check(target, simMode string, monitor *monitorFlags, profile *profileFlags) error {
	switch {
	case !t.on():
		return nil
	case t.n < 0:
		return badInput("--sim-threads %d is negative (0: one thread per core)", t.n)
	case target != "sim":
		return badInput("--sim-threads runs the simulator's parallel engine: it needs --target sim, not %s", target)
	case simMode != string(sim.ModeTiming) && simMode != string(sim.ModeSampled):
		// sim.New refuses functional mode, which has no timing engine:
		// say so before anything runs. Sampled mode runs its detailed
		// launches on the parallel engine.
		return unsupportedThreads("--sim-mode " + simMode)
	case monitor != nil && monitor.port.on:
		return unsupportedThreads("--monitor")
	case profile != nil && profile.trace != "":
		return unsupportedThreads("--trace")
	}
	return nil
}

// checkConfigs opens each configuration on the parallel engine and closes
// it, so that a memory model the engine cannot simulate is refused before
// anything runs. Other errors are left to the runs.
func (t *threadFlags) checkConfigs(configs []string) error {
	if !t.on() {
		return nil
	}
	for _, c := range configs {
		dev, err := sim.Open(c, sim.WithThreads(1))
		var u *timing.UnsupportedError
		if errors.As(err, &u) {
			return threadsError(err)
		}
		if err == nil {
			_ = dev.Close()
		}
	}
	return nil
}

// on says whether --sim-threads was given.
func (t *threadFlags) on() bool { return t != nil && t.given }

// perRun is the threads one simulation runs with on a host of cores
// CPUs: N, or cores for 0.
func (t *threadFlags) perRun(cores int) int {
	if t.n == 0 {
		return cores
	}
	return t.n
}

// unsupportedThreads is the error of a run the parallel engine cannot do
// yet: one line, exit status 2.
func unsupportedThreads(what string) error {
	return badInput("--sim-threads does not yet support %s", what)
}

// options returns the device options of the flag.
func (t *threadFlags) options() []sim.Option {
	if !t.on() || t.n < 0 {
		return nil
	}
	return []sim.Option{sim.WithThreads(t.n)}
}

// threadsError rephrases what the parallel engine refused (a
// configuration's memory model) as a --sim-threads error.
func threadsError(err error) error {
	var u *timing.UnsupportedError
	if errors.As(err, &u) {
		return unsupportedThreads(u.What)
	}
	return err
}
