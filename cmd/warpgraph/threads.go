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
	n int // -1: not given (the serial engine)
}

const simThreadsHelp = "run timing mode on the parallel engine with N threads (0: one per core); its figures are the same for every N and every run, " +
	"and may differ from those of the serial engine, which runs without the flag (sim/timing's package comment, Engines)"

func (t *threadFlags) register(f *pflag.FlagSet) {
	t.n = -1
	f.Var(t, "sim-threads", simThreadsHelp)
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
	t.n = n
	return nil
}

func (t *threadFlags) Type() string { return "int" }

// check rejects --sim-threads where it does not apply or where the
// parallel engine cannot run yet.
func (t *threadFlags) check(o runOptions) error {
	switch {
	case t == nil || !o.set["sim-threads"]:
		return nil
	case t.n < 0:
		return badInput("--sim-threads %d is negative (0: one thread per core)", t.n)
	case o.target != "sim":
		return badInput("--sim-threads runs the simulator's parallel engine: it needs --target sim, not %s", o.target)
	case o.simMode == string(sim.ModeFunctional):
		return unsupportedThreads("--sim-mode functional")
	case o.monitor != nil && o.monitor.port.on:
		return unsupportedThreads("--monitor")
	case o.profile != nil && o.profile.file.on:
		return unsupportedThreads("--profile")
	case o.profile != nil && o.profile.trace != "":
		return unsupportedThreads("--trace")
	}
	return nil
}

// unsupportedThreads is the error of a run the parallel engine cannot do
// yet: one line, exit status 2.
func unsupportedThreads(what string) error {
	return badInput("--sim-threads does not yet support %s", what)
}

// options returns the device options of the flag.
func (t *threadFlags) options() []sim.Option {
	if t == nil || t.n < 0 {
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
