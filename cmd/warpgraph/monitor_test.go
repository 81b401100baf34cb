package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMonitorFlagsWhereTheyDoNotApply(t *testing.T) {
	bfs := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=5"}
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"cpu target", append(bfs, "--monitor"), "--monitor watches a simulation: it needs --target sim, not cpu"},
		{"hw target", append(bfs, "--target", "hw", "--monitor"), "needs --target sim, not hw"},
		{"functional mode", append(bfs, "--target", "sim", "--sim-mode", "functional", "--monitor"), "--sim-mode functional runs none"},
		{"hold without monitor", append(bfs, "--target", "sim", "--monitor-hold"), "--monitor-hold applies only with --monitor"},
		{"port akita refuses", append(bfs, "--target", "sim", "--monitor=80"), "use a port in 1001..65535"},
		{"port out of range", append(bfs, "--target", "sim", "--monitor=70000"), "use a port in 1001..65535"},
		{"not a port", append(bfs, "--target", "sim", "--monitor=x"), `not a port number: "x"`},
		{"micro functional", []string{"micro", "stream", "--target", "sim", "--sim-mode", "functional", "--monitor"}, "runs none"},
		{"micro hw", []string{"micro", "stream", "--monitor"}, "needs --target sim, not hw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, status, stderr)
			assert.Contains(t, stderr, tc.mention)
		})
	}
}

var monitorLine = regexp.MustCompile(`(?m)^monitor: (http://127\.0\.0\.1:\d+)$`)

func TestRunMonitorServesAndKeepsResults(t *testing.T) {
	// The monitor runs on the serial engine (it says so), the plain run is
	// asked for it.
	args := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=8", "--target", "sim", "--config", "tiny", "--json"}
	plainOut, stderr, status := runCLI(t, append(args, "--sim-engine", "serial")...)
	require.Equal(t, exitSuccess, status, stderr)
	watchedOut, stderr, status := runCLI(t, append(args, "--monitor")...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stderr, "warpgraph: --monitor runs on the serial timing engine")

	m := monitorLine.FindStringSubmatch(stderr)
	require.NotNil(t, m, "stderr names the monitor's URL: %s", stderr)
	var plain, watched runResult
	require.NoError(t, json.Unmarshal([]byte(plainOut), &plain))
	require.NoError(t, json.Unmarshal([]byte(watchedOut), &watched))
	assert.Positive(t, plain.Cycles)
	assert.Equal(t, plain.Cycles, watched.Cycles, "watching does not change the simulation")
	assert.Equal(t, plain.Counters, watched.Counters)

	// The process serves the monitor still (this test's process runs the
	// command in-process): the run's SMs are listed.
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(m[1] + "/api/list_components")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var names []string
	require.NoError(t, json.Unmarshal(body, &names))
	assert.Contains(t, names, "GPU.SM[0]")
	assert.Contains(t, names, "GPU.Mem.L2[0]")
}
