package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// wallClockFields are the fields of run --json that measure the host, not
// the simulation: the only ones that may differ between two runs of one
// cell.
var wallClockFields = []string{"load_seconds", "host_seconds"}

// threadCounts are the --sim-threads values the determinism test compares.
var threadCounts = []int{1, 2, 3}

// threadsGraph is the graph the determinism test runs every cell on.
const threadsGraph = "rmat:scale=8+perm=1"

// runJSON runs a command line as main does, on a fresh root command, and
// returns its --json output with the wall-clock fields removed, its keys
// sorted.
func runJSON(args []string) (map[string]any, []byte, error) {
	root := newRootCommand()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		return nil, nil, fmt.Errorf("warpgraph %s: exit status %d: %v\n%s", strings.Join(args, " "), exitStatus(err), err, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		return nil, nil, fmt.Errorf("warpgraph %s: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	for _, k := range wallClockFields {
		delete(v, k)
	}
	data, err := json.Marshal(v) // map keys sorted
	return v, data, err
}

// TestSimThreadsGiveIdenticalFigures runs every registered cell (every
// algorithm under every scheduler variant that supports it) on a small
// graph under the tiny configuration on the parallel timing engine at 1, 2
// and 3 threads: the --json output, wall-clock fields aside, must be the
// same byte for byte, per-iteration rows included, and every result must
// validate against the CPU reference.
func TestSimThreadsGiveIdenticalFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every registered cell three times")
	}
	for _, c := range registeredCells() {
		if c.graph != threadsGraph {
			continue
		}
		t.Run(c.key(), func(t *testing.T) {
			t.Parallel()
			var first []byte
			for _, n := range threadCounts {
				args := append(c.args(), "--per-iteration", "--sim-threads", fmt.Sprint(n))
				v, data, err := runJSON(args)
				require.NoError(t, err)
				ok, _ := v["validation"].(map[string]any)["ok"].(bool)
				require.True(t, ok, "%s --sim-threads %d failed validation: %v", c.key(), n, v["validation"])
				if first == nil {
					first = data
					continue
				}
				if !bytes.Equal(first, data) {
					var want map[string]any
					require.NoError(t, json.Unmarshal(first, &want))
					t.Fatalf("%s: --sim-threads %d differs from --sim-threads %d: %s", c.key(), n, threadCounts[0], firstDifference(want, v))
				}
			}
		})
	}
}

// TestSimThreadsRefusesWhatItCannotDo checks that --sim-threads refuses,
// with exit status 2 and one line, what the parallel engine does not
// support yet, and its misuse.
func TestSimThreadsRefusesWhatItCannotDo(t *testing.T) {
	base := []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--target", "sim", "--config", "tiny", "--sim-threads", "2"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--profile"}, "--sim-threads does not yet support --profile"},
		{[]string{"--trace", t.TempDir() + "/t"}, "--sim-threads does not yet support --trace"},
		{[]string{"--monitor"}, "--sim-threads does not yet support --monitor"},
		{[]string{"--sim-mode", "functional"}, "--sim-threads does not yet support --sim-mode functional"},
		{[]string{"--config", "tiny+memory.l2_model=akita_writeback"}, "--sim-threads does not yet support memory.l2_model akita_writeback"},
		{[]string{"--config", "tiny+memory.coherence=ideal+memory.l1_model=akita_writearound"}, "--sim-threads does not yet support memory.l1_model akita_writearound"},
	} {
		t.Run(strings.Join(tc.extra, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			status := runMain(newRootCommand, append(append([]string(nil), base...), tc.extra...), &stderr)
			require.Equal(t, exitBadInput, status, stderr.String())
			require.Equal(t, "warpgraph: "+tc.want+"\n", stderr.String())
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--sim-threads", "2"}, "--sim-threads runs the simulator's parallel engine: it needs --target sim, not cpu"},
		{append(base[:len(base)-1], "-1"), "--sim-threads -1 is negative (0: one thread per core)"},
	} {
		var stderr bytes.Buffer
		status := runMain(newRootCommand, tc.args, &stderr)
		require.Equal(t, exitBadInput, status, stderr.String())
		require.Equal(t, "warpgraph: "+tc.want+"\n", stderr.String())
	}
}
