package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// hostCallLog records every call a run makes to its device (--host-calls):
// what it was, when it began and how long it took, on the device's host
// clock (the simulator's simulated one) or on the wall clock (hardware),
// and where each run's end-to-end time begins and ends
// (kernels.RunMarker). Between two calls, and between a run's ends and its
// first and last call, is the host's own code, which the simulator does
// not charge.
type hostCallLog struct {
	mu    sync.Mutex
	clock func() time.Duration
	calls []hostCall
	// run is the run in progress (-1: none) and timed whether it is timed.
	run   int
	timed bool
}

// hostCall is one call, or a run's begin or end (Call "run begin", "run
// end"), at Start on the log's clock.
type hostCall struct {
	Run      int
	Timed    bool
	Call     string
	Detail   string
	Start    time.Duration
	Duration time.Duration
}

// newHostCallLog logs on dev's simulated host clock where it has one, else
// on the wall clock from now.
func newHostCallLog(dev kernels.Device) *hostCallLog {
	l := &hostCallLog{run: -1}
	if c, ok := dev.(interface{ HostClock() time.Duration }); ok {
		l.clock = c.HostClock
	} else {
		began := time.Now()
		l.clock = func() time.Duration { return time.Since(began) }
	}
	return l
}

// call runs f, recording it as call with detail() when a run is in
// progress; without a log it runs f alone, so that a run without
// --host-calls pays nothing on the host for the log.
func (l *hostCallLog) call(name string, detail func() string, f func() error) error {
	if l == nil {
		return f()
	}
	start := l.clock()
	err := f()
	end := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.run >= 0 {
		detail := detail()
		if err != nil {
			detail += " (failed)"
		}
		l.calls = append(l.calls, hostCall{Run: l.run, Timed: l.timed, Call: name, Detail: detail, Start: start, Duration: end - start})
	}
	return err
}

// MarkRun implements kernels.RunMarker.
func (l *hostCallLog) MarkRun(run int, timed, begin bool) {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	what := "run end"
	if begin {
		what = "run begin"
		l.run, l.timed = run, timed
	}
	l.calls = append(l.calls, hostCall{Run: run, Timed: timed, Call: what, Start: now})
	if !begin {
		l.run = -1
	}
}

// write writes the log as CSV: per row the run, whether it is timed, the
// call and its detail, its start from the run's begin, its duration, and
// the gap since the previous call's end (or the run's begin): the host's
// own time. A run's "run end" row's gap is the time after its last call,
// and the start of that row is the run's end-to-end time.
func (l *hostCallLog) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--host-calls: %w", err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"run", "timed", "call", "detail", "start_us", "duration_us", "gap_us"})
	us := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e3, 'f', 3, 64) }
	var begin, last time.Duration
	for _, c := range l.calls {
		if c.Call == "run begin" {
			begin, last = c.Start, c.Start
		}
		_ = w.Write([]string{strconv.Itoa(c.Run), strconv.FormatBool(c.Timed), c.Call, c.Detail,
			us(c.Start - begin), us(c.Duration), us(c.Start - last)})
		last = c.Start + c.Duration
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("--host-calls: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--host-calls: %w", err)
	}
	return nil
}

// checkWritable reports why a file could not be written at path once a run
// is done (its folder missing or not writable, or path a folder), so that
// a long run's output is not lost to a bad path given at its start.
func checkWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	probe, err := os.CreateTemp(filepath.Dir(path), ".warpgraph-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write to %s: %w", filepath.Dir(path), errors.Unwrap(err))
	}
	name := probe.Name()
	probe.Close()
	return os.Remove(name)
}

// The device calls watchedDevice passes through its hostCallLog.

// bytesOf is a call's detail: its size.
func bytesOf(n int) func() string { return func() string { return fmt.Sprintf("%d bytes", n) } }

func (d *watchedDevice) Alloc(bytes int) (p kernels.DevPtr, err error) {
	err = d.calls.call("Alloc", bytesOf(bytes), func() error {
		p, err = d.Device.Alloc(bytes)
		return err
	})
	return p, err
}

func (d *watchedDevice) Free(p kernels.DevPtr) error {
	return d.calls.call("Free", func() string { return "" }, func() error { return d.Device.Free(p) })
}

func (d *watchedDevice) CopyToDevice(dst kernels.DevPtr, src []byte) error {
	return d.calls.call("CopyToDevice", bytesOf(len(src)), func() error { return d.Device.CopyToDevice(dst, src) })
}

func (d *watchedDevice) CopyFromDevice(dst []byte, src kernels.DevPtr) error {
	return d.calls.call("CopyFromDevice", bytesOf(len(dst)), func() error { return d.Device.CopyFromDevice(dst, src) })
}

func (d *watchedDevice) Memset(p kernels.DevPtr, value byte, bytes int) error {
	return d.calls.call("Memset", bytesOf(bytes), func() error { return d.Device.Memset(p, value, bytes) })
}

func (d *watchedDevice) Occupancy(k *kernels.Kernel, blockThreads, dynamicSmem int) (n int, err error) {
	err = d.calls.call("Occupancy", func() string { return k.Name }, func() error {
		n, err = d.Device.Occupancy(k, blockThreads, dynamicSmem)
		return err
	})
	return n, err
}

// MarkRun passes the scheduler's run marks to the log (kernels.RunMarker).
func (d *watchedDevice) MarkRun(run int, timed, begin bool) {
	if d.calls != nil {
		d.calls.MarkRun(run, timed, begin)
	}
}

// launchLogged is Launch through the log.
func (d *watchedDevice) launchLogged(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args []any) (s kernels.LaunchStats, err error) {
	err = d.calls.call("Launch", func() string { return fmt.Sprintf("%s grid %d block %d", k.Name, cfg.Grid.Count(), cfg.Block.Count()) }, func() error {
		s, err = d.Device.Launch(ctx, k, cfg, args...)
		return err
	})
	return s, err
}
