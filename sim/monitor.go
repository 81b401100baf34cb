package sim

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/sarchlab/akita/v3/monitoring"
	akitasim "github.com/sarchlab/akita/v3/sim"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Monitor serves akita's own web monitor (akita/v3/monitoring, its page
// embedded in akita) for timing-mode devices, so that a user can watch a
// simulated GPU in a browser: the component tree (GPU.SM[i], GPU.Mem.L1[i],
// .L2[i], .Atomic[i], .DRAM[i]) with each component's fields, the
// simulated time, the fullest buffers (the hang analyzer), the process's
// CPU and memory, and a progress bar of the launch in progress (its CTAs
// started and finished, from timing.HookPosCTAStart and HookPosCTADone).
//
// Watching does not change what is simulated: the monitor only registers
// the engine and the components, and counts CTAs from hooks. The page's
// buttons act on the simulation, though: pause holds the engine (and so
// the launch, whose --timeout clock keeps running) until continue, and a
// component's tick button ticks it an extra time, which may change the
// cycles of that run. The page's run button does nothing here: launches
// drive the engine.
//
// akita's server registers its routes on net/http's default mux and
// listens on every interface at its port, so a process can serve one
// monitor: StartMonitor starts it once, and later calls return the same
// Monitor. Each device given WithMonitor adds its engine and components
// when New builds it; the page shows the engine of the device made last. akita cannot unregister a component, so
// the components of earlier devices stay listed (under the same names: the
// page shows one tree, and a component's details are the latest device's)
// and stay in memory while the process lives.
type Monitor struct {
	akita  *monitoring.Monitor
	port   int
	engine *monitorEngine

	mu       sync.Mutex
	launches int
	bar      *monitoring.ProgressBar // the latest launch's, nil before one
}

var (
	processMonitorMu sync.Mutex
	processMonitor   *Monitor
)

// MinMonitorPort is the lowest port StartMonitor takes besides 0: akita's
// monitor picks a random one for any port up to 1000.
const MinMonitorPort = 1001

// StartMonitor starts akita's monitor server on port (0: a free port
// chosen by the system) and returns it. A process serves one monitor (see
// Monitor): a second call returns the first Monitor when port is 0 or its
// port, and an error for another port.
func StartMonitor(port int) (m *Monitor, err error) {
	if port != 0 && (port < MinMonitorPort || port > 65535) {
		return nil, fmt.Errorf("sim: monitor port %d: use 0 (any free port) or %d..65535", port, MinMonitorPort)
	}
	processMonitorMu.Lock()
	defer processMonitorMu.Unlock()
	if pm := processMonitor; pm != nil {
		if port != 0 && port != pm.port {
			return nil, fmt.Errorf("sim: the monitor already serves on port %d; a process serves one", pm.port)
		}
		return pm, nil
	}
	// akita listens on ":port" and reports the port it got only in a line
	// on stderr, so choose the port here: ask the system for a free one,
	// or check that the one asked for is free, so that a busy port is an
	// error rather than akita's panic.
	probe, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err != nil {
		return nil, fmt.Errorf("sim: monitor: %w", err)
	}
	port = probe.Addr().(*net.TCPAddr).Port
	if err := probe.Close(); err != nil {
		return nil, fmt.Errorf("sim: monitor: %w", err)
	}
	m = &Monitor{akita: monitoring.NewMonitor().WithPortNumber(port), port: port, engine: &monitorEngine{}}
	m.akita.RegisterEngine(m.engine)
	defer func() {
		// akita panics (log.Panic) when it cannot listen.
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: monitor on port %d: %v", port, r)
		}
	}()
	m.akita.StartServer()
	processMonitor = m
	return m, nil
}

// Port returns the port the monitor serves on.
func (m *Monitor) Port() int { return m.port }

// URL returns the monitor's page on the loopback address (akita listens on
// every interface).
func (m *Monitor) URL() string { return "http://127.0.0.1:" + strconv.Itoa(m.port) }

// Launches returns how many launches the monitor has seen.
func (m *Monitor) Launches() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.launches
}

// attach registers a device's timing model: its engine becomes the one the
// page shows and controls, and its components join the list.
func (m *Monitor) attach(g *timing.GPU) {
	m.engine.set(g.Engine())
	for _, c := range g.Components() {
		m.akita.RegisterComponent(c)
	}
	h := ctaCounter{m}
	for _, s := range g.SMs() {
		s.AcceptHook(h)
	}
}

// beginLaunch shows a progress bar for a launch of kernel with ctas CTAs,
// in place of the previous launch's, which stays on the page until then
// (so that between launches, and after the last, the page shows what ran).
func (m *Monitor) beginLaunch(kernel string, ctas int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bar != nil {
		m.akita.CompleteProgressBar(m.bar)
	}
	m.launches++
	m.bar = m.akita.CreateProgressBar(fmt.Sprintf("launch %d: %s, CTAs", m.launches, kernel), uint64(ctas))
}

// ctaCounter counts the CTAs of the launch in progress into its bar.
type ctaCounter struct{ m *Monitor }

func (h ctaCounter) Func(ctx akitasim.HookCtx) {
	h.m.mu.Lock()
	bar := h.m.bar
	h.m.mu.Unlock()
	if bar == nil {
		return
	}
	switch ctx.Pos {
	case timing.HookPosCTAStart:
		bar.IncrementInProgress(1)
	case timing.HookPosCTADone:
		bar.MoveInProgressToFinished(1)
	}
}

// monitorEngine is the engine akita's monitor holds: it stands for the
// engine of the device attached last, so that devices can come and go
// under one server, and it keeps the page's run button from starting a
// second run of an engine that a launch drives.
type monitorEngine struct {
	mu sync.Mutex
	e  akitasim.Engine
}

var _ akitasim.Engine = (*monitorEngine)(nil)

func (e *monitorEngine) set(engine akitasim.Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.e = engine
}

func (e *monitorEngine) get() akitasim.Engine {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.e
}

// CurrentTime is the attached engine's time (0 before a device attaches).
func (e *monitorEngine) CurrentTime() akitasim.VTimeInSec {
	if x := e.get(); x != nil {
		return x.CurrentTime()
	}
	return 0
}

// Run does nothing: the device's launches run the engine.
func (e *monitorEngine) Run() error { return nil }

func (e *monitorEngine) Pause() {
	if x := e.get(); x != nil {
		x.Pause()
	}
}

func (e *monitorEngine) Continue() {
	if x := e.get(); x != nil {
		x.Continue()
	}
}

var errNoEngine = errors.New("sim: monitor: no device attached")

// The monitor calls none of the following; they complete akita's Engine.

func (e *monitorEngine) Schedule(evt akitasim.Event) {
	x := e.get()
	if x == nil {
		panic(errNoEngine)
	}
	x.Schedule(evt)
}

func (e *monitorEngine) AcceptHook(h akitasim.Hook) {
	if x := e.get(); x != nil {
		x.AcceptHook(h)
	}
}

func (e *monitorEngine) NumHooks() int {
	if x := e.get(); x != nil {
		return x.NumHooks()
	}
	return 0
}

func (e *monitorEngine) Hooks() []akitasim.Hook {
	if x := e.get(); x != nil {
		return x.Hooks()
	}
	return nil
}

func (e *monitorEngine) RegisterSimulationEndHandler(h akitasim.SimulationEndHandler) {
	if x := e.get(); x != nil {
		x.RegisterSimulationEndHandler(h)
	}
}

func (e *monitorEngine) Finished() {
	if x := e.get(); x != nil {
		x.Finished()
	}
}
