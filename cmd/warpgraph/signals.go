package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/warpgraph/warpgraph/scheduler"
)

// Signals. SIGTERM, and SIGINT (Ctrl-C) unless the process started with it
// ignored (nohup, a background job of a script), cancel the command's
// context: a simulation stops at its next check of it, the command
// returns, and main prints one line saying where the run was (launch,
// kernel, simulated cycle) after whatever the user asked for that exists
// (the per-iteration table of the iterations that finished, the profile),
// and exits 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM. A
// second signal ends the process at once, as if nothing handled it, and a
// command that has not returned stopGrace after the first (graph
// generation and the CPU reference do not look at the context) is ended
// with the same line and status.

// stopGrace is how long a command has to stop cleanly after a signal.
const stopGrace = 10 * time.Second

// signalStop is the cause of the context's end when a signal stopped the
// command.
type signalStop struct {
	name   string // "SIGINT"
	status int    // 128 + the signal's number
}

func (s *signalStop) Error() string { return "interrupted by " + s.name }

func newSignalStop(sig os.Signal) *signalStop {
	switch sig {
	case syscall.SIGTERM:
		return &signalStop{name: "SIGTERM", status: exitTerminated}
	default:
		return &signalStop{name: "SIGINT", status: exitInterrupted}
	}
}

// watchSignals cancels the command's context with a signalStop on the
// first SIGTERM or (unless ignored at start) SIGINT, then restores their
// default action; if the command has not returned stopGrace later it
// prints why and calls exit. stop ends the watch.
func watchSignals(cancel context.CancelCauseFunc, stderr io.Writer, exit func(int)) (stop func()) {
	sigs := []os.Signal{syscall.SIGTERM}
	if !signal.Ignored(os.Interrupt) {
		sigs = append(sigs, os.Interrupt)
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case sig := <-ch:
			signal.Reset(sigs...) // a second signal ends the process at once
			s := newSignalStop(sig)
			cancel(s)
			select {
			case <-done:
			case <-time.After(stopGrace):
				fmt.Fprintf(stderr, "warpgraph: %s; the command did not stop within %s, so the process ends now\n", s, stopGrace)
				exit(s.status)
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// interruptedStatus is the exit status and line of a command that a
// signal stopped (ok false otherwise, or when the command finished despite
// the signal: a --monitor-hold that Ctrl-C ended, say).
func interruptedStatus(ctx context.Context, err error) (status int, line string, ok bool) {
	var s *signalStop
	if err == nil || !errors.As(context.Cause(ctx), &s) {
		return 0, "", false
	}
	var at *stoppedAt
	switch {
	case errors.As(err, &at):
		line = s.Error() + " " + at.where
	case errors.Is(err, context.Canceled):
		line = s.Error()
	default:
		// The command said how it stopped (a sweep: where its points are).
		line = err.Error()
	}
	return s.status, line, true
}

// stoppedAt is the error of a launch that a cancelled context stopped,
// with where the run was.
type stoppedAt struct {
	where string
	err   error
}

func (e *stoppedAt) Error() string { return e.err.Error() }
func (e *stoppedAt) Unwrap() error { return e.err }

// where says which launch stopped and at what simulated cycle; the
// caller holds mu, after launched has counted the stopped launch.
func (w *launchWatch) where(kernel string, launchCycles uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "in launch %d (kernel %s)", w.finished, kernel)
	if w.cycles > 0 {
		fmt.Fprintf(&b, " at simulated cycle %d (%d into the launch)", w.cycles, launchCycles)
	}
	return b.String()
}

// printStoppedIterations prints, after a run stopped by a signal, the
// per-iteration table of the iterations that finished when the user asked
// for the table (--per-iteration, without --json: a JSON document would
// be incomplete).
func printStoppedIterations(ctx context.Context, w io.Writer, o runOptions, err error) {
	var s *signalStop
	var stopped *scheduler.StoppedRunError
	if !o.perIteration || o.asJSON || !errors.As(context.Cause(ctx), &s) || !errors.As(err, &stopped) {
		return
	}
	fmt.Fprintf(w, "per-iteration table (%s stopped the run after %d finished iterations):\n", s.name, len(stopped.Iterations))
	if len(stopped.Iterations) == 0 {
		return
	}
	rows := make([]iterationRow, len(stopped.Iterations))
	for i, it := range stopped.Iterations {
		rows[i] = iterationRow{it, it.Stats.Elapsed.Seconds(), it.Stats.Cycles, it.Stats.Counters}
	}
	_ = writeIterationTable(w, rows, o.simMode != "functional")
}
