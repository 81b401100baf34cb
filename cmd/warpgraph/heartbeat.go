package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/warpgraph/warpgraph/kernels"
)

// Progress of a long device run. A simulation can take minutes, so while
// one lasts the user sees which kernel runs, how many launches have
// finished, the simulated cycles so far and the wall time: a line redrawn
// in place on a terminal, a heartbeat line every --heartbeat otherwise
// (logs, CI, Slurm). It watches the device's launches, so it needs nothing
// from the scheduler or the simulator.
const (
	// progressQuiet is how long a run goes without progress output: short
	// runs print nothing extra.
	progressQuiet = 3 * time.Second
	// terminalRedraw is how often the terminal line is redrawn.
	terminalRedraw = 500 * time.Millisecond
)

const heartbeatHelp = "progress of a device run that lasts over 3s (launches done, simulated cycles, the running kernel, wall time): a line redrawn on a terminal, else a line on stderr every DURATION; 0 turns it off"

type launchWatch struct {
	out      io.Writer
	terminal bool
	quiet    time.Duration
	every    time.Duration

	mu       sync.Mutex
	start    time.Time
	kernel   string // the running kernel, or "" between launches
	last     string // the last kernel that ran
	finished int
	cycles   uint64
	drawn    bool // a terminal line is on screen
	// record keeps every launch's statistics in records (micro --json).
	record  bool
	records []launchRecord

	stop, done chan struct{}
	panicked   any
}

// newLaunchWatch returns a watch that writes to out, redrawing one line
// when out is a terminal and a heartbeat every `every` otherwise; with
// every 0 it reports nothing (and may still record launches).
func newLaunchWatch(out io.Writer, every time.Duration) *launchWatch {
	w := &launchWatch{out: out, quiet: progressQuiet, every: every}
	if every <= 0 {
		return w
	}
	if f, ok := out.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		w.terminal, w.every = true, terminalRedraw
	}
	return w
}

// begin starts the clock and the reporting goroutine.
func (w *launchWatch) begin() {
	if w == nil || w.every <= 0 {
		return
	}
	w.start = time.Now()
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go w.report()
}

// end stops reporting and clears a terminal line. A panic in the
// reporting goroutine is raised again here, on the command's goroutine,
// where main turns it into an internal error.
func (w *launchWatch) end() {
	if w == nil || w.stop == nil {
		return
	}
	close(w.stop)
	<-w.done
	w.stop = nil
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.drawn {
		fmt.Fprint(w.out, "\r\033[K")
		w.drawn = false
	}
	if w.panicked != nil {
		panic(w.panicked)
	}
}

func (w *launchWatch) report() {
	defer close(w.done)
	defer func() {
		if r := recover(); r != nil {
			w.panicked = r
		}
	}()
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
			w.print()
		}
	}
}

func (w *launchWatch) print() {
	w.mu.Lock()
	defer w.mu.Unlock()
	wall := time.Since(w.start)
	if wall < w.quiet {
		return
	}
	line := w.line(wall)
	if w.terminal {
		fmt.Fprint(w.out, "\r\033[K"+line)
		w.drawn = true
	} else {
		fmt.Fprintln(w.out, "warpgraph: progress: "+line)
	}
}

// line describes the run so far; the caller holds mu.
func (w *launchWatch) line(wall time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s wall, %d launches done", wall.Round(time.Second), w.finished)
	if w.cycles > 0 {
		fmt.Fprintf(&b, ", %d simulated cycles", w.cycles)
	}
	switch {
	case w.kernel != "":
		fmt.Fprintf(&b, ", running %s", w.kernel)
	case w.last != "":
		fmt.Fprintf(&b, ", last %s", w.last)
	}
	return b.String()
}

// launchRecord is one launch's statistics, for JSON: what ran, with what
// grid, and what it cost (seconds on hardware, cycles and counters in
// simulation).
type launchRecord struct {
	Kernel      string             `json:"kernel"`
	Grid        int                `json:"grid"`
	Block       int                `json:"block"`
	Cooperative bool               `json:"cooperative,omitempty"`
	Seconds     float64            `json:"seconds,omitempty"`
	Samples     []float64          `json:"samples_seconds,omitempty"`
	Cycles      uint64             `json:"cycles,omitempty"`
	Counters    map[string]float64 `json:"counters,omitempty"`
	Error       string             `json:"error,omitempty"`
}

// takeRecords returns the launches recorded since the last call.
func (w *launchWatch) takeRecords() []launchRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.records
	w.records = nil
	return r
}

func (w *launchWatch) launching(kernel string) {
	w.mu.Lock()
	w.kernel = kernel
	w.mu.Unlock()
}

func (w *launchWatch) launched(s kernels.LaunchStats) {
	w.mu.Lock()
	w.last, w.kernel = w.kernel, ""
	w.finished++
	w.cycles += s.Cycles
	w.mu.Unlock()
}

// watchedDevice reports each launch to a launchWatch.
type watchedDevice struct {
	kernels.Device
	watch *launchWatch
	// calls, when not nil, records every device call (--host-calls).
	calls *hostCallLog
}

func (d *watchedDevice) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	d.watch.launching(k.Name)
	s, err := d.launchLogged(ctx, k, cfg, args)
	d.watch.launched(s)
	if err != nil && ctx.Err() != nil {
		// Stopped by the context (a signal, --timeout): say where.
		d.watch.mu.Lock()
		err = &stoppedAt{where: d.watch.where(k.Name, s.Cycles), err: err}
		d.watch.mu.Unlock()
	}
	if d.watch.record {
		r := launchRecord{Kernel: k.Name, Grid: cfg.Grid.Count(), Block: cfg.Block.Count(),
			Cooperative: cfg.Cooperative, Seconds: s.Elapsed.Seconds(), Cycles: s.Cycles, Counters: s.Counters}
		for _, x := range s.Samples {
			r.Samples = append(r.Samples, x.Seconds())
		}
		if err != nil {
			r.Error = err.Error()
		}
		d.watch.mu.Lock()
		d.watch.records = append(d.watch.records, r)
		d.watch.mu.Unlock()
	}
	return s, err
}

// watchedSimulator keeps the simulator's modelled host clock visible
// through the wrapper: the scheduler asks for it to time a run.
type watchedSimulator struct {
	watchedDevice
	clock interface{ HostClock() time.Duration }
}

func (d *watchedSimulator) HostClock() time.Duration { return d.clock.HostClock() }

// Reserve passes the scheduler's room hint on to the simulator
// (sim.Device.Reserve).
func (d *watchedSimulator) Reserve(bytes int) {
	if r, ok := d.Device.(interface{ Reserve(int) }); ok {
		r.Reserve(bytes)
	}
}

// watchDevice wraps dev so that w sees its launches, and calls (nil:
// none) every call to it.
func watchDevice(dev kernels.Device, w *launchWatch, calls *hostCallLog) kernels.Device {
	if c, ok := dev.(interface{ HostClock() time.Duration }); ok {
		return &watchedSimulator{watchedDevice{dev, w, calls}, c}
	}
	return &watchedDevice{dev, w, calls}
}
