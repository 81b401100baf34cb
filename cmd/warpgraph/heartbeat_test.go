package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer the watch's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A long device run writes heartbeat lines (off a terminal) naming the
// launches done, the simulated cycles so far and the kernel; they never
// exceed the run's total, and the wrapper leaves the simulated times as
// they are.
func TestRunHeartbeatReportsLaunchesAndCycles(t *testing.T) {
	args := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=7", "--target", "sim", "--config", "tiny", "--json"}
	quiet, _, err := execute(t, append(args, "--heartbeat", "0")...)
	require.NoError(t, err)
	var want runResult
	require.NoError(t, json.Unmarshal([]byte(quiet), &want))

	saved := newWatch
	t.Cleanup(func() { newWatch = saved })
	// The run takes milliseconds: on a loaded host the reporting goroutine
	// may not get a tick in while a kernel runs, so a run whose lines name
	// none is tried again (a few times at most).
	var stderr syncBuffer
	var got runResult
	namesKernel := regexp.MustCompile(`(?m)(running|last) bfs_`)
	for attempt := 0; attempt < 5 && !namesKernel.MatchString(stderr.String()); attempt++ {
		w := newLaunchWatch(&stderr, time.Millisecond)
		w.quiet = 0
		newWatch = func(runOptions) *launchWatch { return w }
		out, _, err := execute(t, args...)
		require.NoError(t, err)
		got = runResult{}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.Equal(t, want.Cycles, got.Cycles, "the wrapper changes no cycle")
		assert.Equal(t, want.EndToEndSeconds, got.EndToEndSeconds, "nor the simulated host clock")
	}

	require.NotEmpty(t, strings.TrimSpace(stderr.String()), "heartbeat lines in five runs")
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	pattern := regexp.MustCompile(`^warpgraph: progress: \d+s wall, (\d+) launches done(?:, (\d+) simulated cycles)?(?:, (?:running|last) (bfs_\w+))?$`)
	sawKernel := false
	for _, line := range lines {
		m := pattern.FindStringSubmatch(line)
		require.NotNil(t, m, "line %q", line)
		launches, _ := strconv.Atoi(m[1])
		assert.LessOrEqual(t, launches, got.Launches)
		if m[2] != "" {
			cycles, _ := strconv.ParseUint(m[2], 10, 64)
			assert.LessOrEqual(t, cycles, got.Cycles)
		}
		sawKernel = sawKernel || m[3] != ""
	}
	assert.True(t, sawKernel, "some line names a kernel: %q", lines)
}

func TestHeartbeatQuietForShortRunsAndOff(t *testing.T) {
	var out syncBuffer
	w := newLaunchWatch(&out, time.Millisecond) // the default quiet period: 3s
	w.begin()
	time.Sleep(20 * time.Millisecond)
	w.end()
	assert.Empty(t, out.String(), "a short run prints nothing")
	off := newLaunchWatch(&out, 0)
	off.begin()
	off.end()
	assert.Zero(t, off.every, "0 turns progress off")
	_, status, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--heartbeat", "-1s")
	require.Error(t, err)
	assert.Equal(t, 2, status)
}
