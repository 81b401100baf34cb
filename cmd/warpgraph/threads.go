package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"

	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/sim"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// threadFlags is --sim-engine and --sim-threads: which timing engine runs
// the simulator's timing mode (and sampled mode's detailed launches). The
// parallel window engine is the default; a run that needs what only the
// serial engine does (--monitor, --trace, a memory model
// other than the sectored caches) falls back to it and says so, unless
// the flags asked for the window engine, which is then refused. It is a
// pflag.Value so that its help shows its own default.
type threadFlags struct {
	n     int  // --sim-threads (0: one per core)
	given bool // --sim-threads given
	// byJobs: without --sim-threads the threads are the CPUs shared by
	// the points at once (sweep's --jobs), else one per CPU.
	byJobs bool
	engine engineName
	// serialFor, set by check or checkConfigs, is what makes the serial
	// engine run although the flags left the engine to its default.
	serialFor string
}

// engineName is --sim-engine's value.
type engineName struct {
	name  string // "window" or "serial"
	given bool
}

const (
	engineWindow = "window"
	engineSerial = "serial"
)

func (e *engineName) String() string { return e.name }

func (e *engineName) Set(s string) error {
	if s != engineWindow && s != engineSerial {
		return fmt.Errorf("%q is not an engine: window (the parallel engine) or serial", s)
	}
	e.name, e.given = s, true
	return nil
}

func (e *engineName) Type() string { return "string" }

const simThreadsHelp = "threads of the parallel timing engine (--sim-engine window; 0: one per CPU) and of functional execution (functional mode, sampled mode's functional parts); figures are the same for every N and every run"

const simEngineHelp = "the simulator's timing engine: window (parallel and deterministic, --sim-threads) or serial (its figures may differ: sim/timing's package comment, Engines); " +
	"--monitor, --trace and memory models other than the sectored caches run on the serial engine"

// register adds the flags; byJobs shares the CPUs among sweep's points
// when --sim-threads is not given; more, when not empty, ends
// --sim-threads' help.
func (t *threadFlags) register(f *pflag.FlagSet, byJobs bool, more string) {
	t.n, t.byJobs = -1, byJobs
	t.engine = engineName{name: engineWindow}
	help := simThreadsHelp + " (default: one per CPU)"
	if byJobs {
		help = simThreadsHelp + " (default: the CPUs ÷ --jobs, at least 1)"
	}
	if more != "" {
		help += "; " + more
	}
	f.Var(t, "sim-threads", help)
	f.Var(&t.engine, "sim-engine", simEngineHelp)
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

// defaultEngine is the engine of a run with no engine flags (demo's).
func defaultEngine() *threadFlags {
	return &threadFlags{n: -1, engine: engineName{name: engineWindow}}
}

// explicit says whether the flags asked for the window engine.
func (t *threadFlags) explicit() bool {
	return t.given || t.engine.given && t.engine.name == engineWindow
}

// window says whether the window engine runs (after check).
func (t *threadFlags) window() bool {
	return t == nil || t.engine.name != engineSerial && t.serialFor == ""
}

// check rejects the engine flags where they do not apply, and a
// run the window engine cannot do yet when the flags asked for it;
// otherwise such a run falls back to the serial engine (serialFor).
// monitor and profile are the command's --monitor and --trace (nil: it
// has none).
func (t *threadFlags) check(target, simMode string, monitor *monitorFlags, profile *profileFlags) error {
	t.serialFor = ""
	switch {
	case t.given && t.n < 0:
		return badInput("--sim-threads %d is negative (0: one thread per core)", t.n)
	case t.given && t.engine.name == engineSerial:
		return badInput("--sim-threads sets the parallel engine's threads: leave it out with --sim-engine serial")
	case t.given && target != "sim":
		return badInput("--sim-threads runs the simulator's parallel engine: it needs --target sim, not %s", target)
	case t.engine.given && target != "sim":
		return badInput("--sim-engine picks the simulator's timing engine: it needs --target sim, not %s", target)
	case target != "sim":
		return nil
	case simMode == string(sim.ModeFunctional):
		// Functional mode has no timing engine; its rounds run on the
		// threads.
		if t.engine.given && t.engine.name == engineSerial {
			return badInput("--sim-engine picks the timing engine: --sim-mode %s has none", simMode)
		}
		return nil
	}
	what := ""
	switch {
	case monitor != nil && monitor.port.on:
		what = "--monitor"
	case profile != nil && profile.trace != "":
		what = "--trace"
	}
	if what == "" || t.engine.name == engineSerial {
		return nil
	}
	if t.explicit() {
		return t.unsupported(what)
	}
	t.serialFor = what
	return nil
}

// unsupported is the error of a run the window engine cannot do yet,
// which the flags asked for.
func (t *threadFlags) unsupported(what string) error {
	if t.given {
		return unsupportedThreads(what)
	}
	return badInput("--sim-engine window does not yet support %s", what)
}

// note says, on w, why the serial engine runs, if something made it.
func (t *threadFlags) note(w io.Writer) {
	if t != nil && t.serialFor != "" {
		fmt.Fprintf(w, "warpgraph: %s runs on the serial timing engine (the parallel engine does not support it yet); its figures may differ from the parallel engine's\n", t.serialFor)
	}
}

// checkConfigs opens each configuration of a simulator run in simMode on
// the window engine and closes it, so that a memory model the engine cannot simulate is refused before
// anything runs where the flags asked for the engine, and otherwise makes
// the serial engine run (serialFor). Other errors are left to the runs.
func (t *threadFlags) checkConfigs(target, simMode string, configs []string) error {
	if !t.window() || target != "sim" || simMode == string(sim.ModeFunctional) {
		return nil
	}
	for _, c := range configs {
		dev, err := sim.Open(c, sim.WithThreads(1))
		var u *timing.UnsupportedError
		if errors.As(err, &u) {
			if t.explicit() {
				return t.unsupportedError(err)
			}
			t.serialFor = u.What
			return nil
		}
		if err == nil {
			_ = dev.Close()
		}
	}
	return nil
}

// threads is the window engine's thread count on a host of cores CPUs
// running jobs points at once: N, or cores for 0; without the flag,
// cores (run, micro) or cores ÷ jobs (sweep), at least one.
func (t *threadFlags) threads(cores, jobs int) int {
	switch {
	case t.given && t.n == 0:
		return cores
	case t.given:
		return t.n
	case t.byJobs:
		return max(cores/max(jobs, 1), 1)
	}
	return cores
}

// unsupportedThreads is the error of a run the parallel engine cannot do
// yet: one line, exit status 2.
func unsupportedThreads(what string) error {
	return badInput("--sim-threads does not yet support %s", what)
}

// options returns the device options of the flags for a run in simMode.
func (t *threadFlags) options(simMode string) []sim.Option {
	if !t.window() {
		return nil
	}
	n := runtime.NumCPU()
	if t != nil {
		n = t.threads(n, 1)
	}
	return []sim.Option{sim.WithThreads(n)}
}

// unsupportedError rephrases what the parallel engine refused (a
// configuration's memory model) as an error of the flag that asked for it.
func (t *threadFlags) unsupportedError(err error) error {
	var u *timing.UnsupportedError
	if errors.As(err, &u) {
		return t.unsupported(u.What)
	}
	return err
}
