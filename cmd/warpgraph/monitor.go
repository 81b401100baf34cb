package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/sim"
)

// --monitor and --monitor-hold: akita's web monitor for a simulation
// (sim.Monitor). The monitor watches the timing model's akita engine, so
// it needs --target sim in timing mode; with any other target or with
// functional mode the flag is bad input (exit 2), since watching nothing
// would hide the mistake.
const (
	monitorHelp     = "serve akita's web monitor of the simulation (timing mode) on `PORT` and print its URL on stderr; --monitor alone takes any free port, --monitor=PORT a fixed one (akita listens on every interface)"
	monitorHoldHelp = "with --monitor: when the run ends (or fails), keep serving the page until interrupted (Ctrl-C), then exit with the run's status"
)

// monitorPort is --monitor's value: off, or a port (0: any free one).
type monitorPort struct {
	on   bool
	port int
}

func (p *monitorPort) String() string {
	if !p.on {
		return ""
	}
	return strconv.Itoa(p.port)
}

func (p *monitorPort) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not a port number: %q", s)
	}
	p.on, p.port = true, n
	return nil
}

func (p *monitorPort) Type() string { return "port" }

// monitorFlags are a command's --monitor and --monitor-hold, and the
// monitor once started.
type monitorFlags struct {
	port   monitorPort
	hold   bool
	server *sim.Monitor
}

func (m *monitorFlags) register(f *pflag.FlagSet) {
	f.Var(&m.port, "monitor", monitorHelp)
	f.Lookup("monitor").NoOptDefVal = "0"
	f.BoolVar(&m.hold, "monitor-hold", false, monitorHoldHelp)
}

// check rejects the flags where they do not apply.
func (m *monitorFlags) check(target, simMode string) error {
	switch {
	case m == nil:
		return nil
	case m.hold && !m.port.on:
		return badInput("--monitor-hold applies only with --monitor")
	case !m.port.on:
		return nil
	case target != "sim":
		return badInput("--monitor watches a simulation: it needs --target sim, not %s", target)
	case simMode == string(sim.ModeSampled):
		return badInput("--monitor watches timing mode's akita engine over a whole run; --sim-mode sampled runs most launches without it (use --sim-mode timing)")
	case simMode != string(sim.ModeTiming):
		return badInput("--monitor watches timing mode's akita engine; --sim-mode %s runs none (use --sim-mode timing)", simMode)
	case m.port.port != 0 && (m.port.port < sim.MinMonitorPort || m.port.port > 65535):
		return badInput("--monitor=%d: use a port in %d..65535, or --monitor alone for any free port", m.port.port, sim.MinMonitorPort)
	}
	return nil
}

// start starts the monitor when --monitor is given and prints its URL on
// w; it returns nil when the flag is off.
func (m *monitorFlags) start(w io.Writer) (*sim.Monitor, error) {
	if m == nil || !m.port.on {
		return nil, nil
	}
	if m.server == nil {
		s, err := sim.StartMonitor(m.port.port)
		if err != nil {
			// A busy port is the user's choice of port.
			return nil, &inputError{err}
		}
		m.server = s
		fmt.Fprintf(w, "monitor: %s\n", s.URL())
	}
	return m.server, nil
}

// holdIfAsked keeps the process serving the monitor after the run, with
// --monitor-hold, until ctx ends: main ends it on SIGINT or SIGTERM.
func (m *monitorFlags) holdIfAsked(ctx context.Context, w io.Writer) {
	if m == nil || !m.hold || m.server == nil {
		return
	}
	fmt.Fprintf(w, "monitor: the run has ended; %s stays up until interrupted (Ctrl-C)\n", m.server.URL())
	<-ctx.Done()
}
