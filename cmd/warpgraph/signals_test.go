package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childQuiet, set in a child's environment, makes its progress lines
// start at once rather than after progressQuiet, so that a test knows
// when a launch is running.
const childQuiet = "WARPGRAPH_TEST_CHILD_QUIET"

func init() {
	if os.Getenv(childQuiet) != "" {
		newWatch = func(o runOptions) *launchWatch {
			w := newLaunchWatch(o.progress, o.heartbeat)
			w.quiet = 0
			return w
		}
	}
}

// signalledRun is a child running a long simulated BFS, with its output.
type signalledRun struct {
	cmd            *exec.Cmd
	stdout         strings.Builder
	mu             sync.Mutex
	stderr         strings.Builder
	ready, stopped chan struct{}
}

// startSignalledRun starts the child under sh with prelude, and returns
// once its progress says a launch has finished and another is running.
func startSignalledRun(t *testing.T, prelude string) *signalledRun {
	t.Helper()
	r := &signalledRun{ready: make(chan struct{}), stopped: make(chan struct{})}
	r.cmd = childCommand(prelude, "run", "--algo", "bfs", "--graph", "rmat:scale=17", "--target", "sim", "--per-iteration", "--heartbeat", "100ms")
	r.cmd.Env = append(r.cmd.Env, childQuiet+"=1")
	r.cmd.Stdout = &r.stdout
	pipe, err := r.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, r.cmd.Start())
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	running := regexp.MustCompile(`progress: .*[1-9]\d* launches done, .*running `)
	go func() {
		defer close(r.stopped)
		sc := bufio.NewScanner(pipe)
		seen := false
		for sc.Scan() {
			r.mu.Lock()
			r.stderr.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			if !seen && running.MatchString(sc.Text()) {
				seen = true
				close(r.ready)
			}
		}
	}()
	select {
	case <-r.ready:
	case <-r.stopped:
		t.Fatalf("the child ended before a launch ran: %s", r.stderrText())
	case <-time.After(2 * time.Minute):
		t.Fatalf("no launch finished within 2 minutes: %s", r.stderrText())
	}
	return r
}

func (r *signalledRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// wait waits for the child and returns its exit status.
func (r *signalledRun) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { <-r.stopped; done <- r.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the child did not stop within a minute of the signal: %s", r.stderrText())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode() // -1 when a signal killed it
	}
	require.NoError(t, err)
	return 0
}

// TestSignalStopsASimulatedRunCleanly: SIGINT, and SIGTERM, stop a long
// simulated run with the table of the iterations that finished and one
// line saying where it was, and exit 130 and 143; a process that started
// with SIGINT ignored (nohup, a script's background job) keeps ignoring
// it.
func TestSignalStopsASimulatedRunCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a simulation in a child process")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	where := `in launch [2-9]\d* \(kernel \w+\) at simulated cycle \d+ \(\d+ into the launch\)`
	tests := []struct {
		name    string
		prelude string
		signals []syscall.Signal
		status  int
		line    string
	}{
		{"SIGINT", "true", []syscall.Signal{syscall.SIGINT}, exitInterrupted, "^warpgraph: interrupted by SIGINT " + where + "$"},
		{"SIGTERM", "true", []syscall.Signal{syscall.SIGTERM}, exitTerminated, "^warpgraph: interrupted by SIGTERM " + where + "$"},
		{"SIGINT ignored at start", "trap '' INT", []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, exitTerminated, "^warpgraph: interrupted by SIGTERM " + where + "$"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := startSignalledRun(t, tc.prelude)
			for i, sig := range tc.signals {
				if i > 0 {
					// The run must outlive the ignored signal.
					select {
					case <-r.stopped:
						t.Fatalf("the ignored %s stopped the run: %s", tc.signals[i-1], r.stderrText())
					case <-time.After(time.Second):
					}
				}
				require.NoError(t, r.cmd.Process.Signal(sig))
			}
			status := r.wait(t)
			stderr := r.stderrText()
			assert.Equal(t, tc.status, status, "stderr: %s", stderr)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			assert.Regexp(t, tc.line, lines[len(lines)-1])
			for _, l := range lines[:len(lines)-1] {
				assert.True(t, strings.HasPrefix(l, "warpgraph: progress: "), "only progress before the last line: %q", l)
			}
			stdout := r.stdout.String()
			assert.Regexp(t, `^per-iteration table \(SIG(INT|TERM) stopped the run after [1-9]\d* finished iterations\):\niteration +phases`, stdout)
			assert.Regexp(t, `(?m)^0 +push +push +- +1 +\d+ +1 +\S+ +\d+$`, stdout, "the first iteration's row")
			assert.NotContains(t, stdout, "validation", "no summary of a run that did not finish")
		})
	}
}

// TestInterruptedStatus: which commands a signal stopped and what main
// prints for them.
func TestInterruptedStatus(t *testing.T) {
	interrupted, cancel := context.WithCancelCause(context.Background())
	cancel(newSignalStop(syscall.SIGINT))
	terminated, cancel := context.WithCancelCause(context.Background())
	cancel(newSignalStop(syscall.SIGTERM))
	at := &stoppedAt{where: "in launch 3 (kernel k) at simulated cycle 99 (9 into the launch)", err: context.Canceled}
	tests := []struct {
		name   string
		ctx    context.Context
		err    error
		ok     bool
		status int
		line   string
	}{
		{"no signal", context.Background(), context.Canceled, false, 0, ""},
		{"finished despite the signal", interrupted, nil, false, 0, ""},
		{"stopped in a launch", interrupted, &wrapped{at}, true, exitInterrupted, "interrupted by SIGINT in launch 3 (kernel k) at simulated cycle 99 (9 into the launch)"},
		{"stopped elsewhere", terminated, &wrapped{context.Canceled}, true, exitTerminated, "interrupted by SIGTERM"},
		{"the command's own message", interrupted, errors.New("sweep x interrupted: finished points are in d"), true, exitInterrupted, "sweep x interrupted: finished points are in d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, line, ok := interruptedStatus(tc.ctx, tc.err)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.status, status)
			assert.Equal(t, tc.line, line)
		})
	}
}

// wrapped wraps an error as the scheduler and the simulator do.
type wrapped struct{ err error }

func (w *wrapped) Error() string { return "bfs under bsp: sim: " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }
