package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wallClockFields are the fields of run --json that measure the host, not
// the simulation, or say how it ran (the window engine's threads): the
// only ones that may differ between two runs of one cell.
var wallClockFields = []string{"load_seconds", "host_seconds", "sim_threads"}

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
// graph under the tiny configuration, in timing mode at 1, 2 and 3
// threads (the parallel timing engine) and in functional mode at 1 and 3
// (its rounds):
// the --json output, wall-clock fields aside, must be the same byte for
// byte, per-iteration rows included, and every result must validate
// against the CPU reference.
func TestSimThreadsGiveIdenticalFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every registered cell five times")
	}
	for _, c := range registeredCells() {
		if c.graph != threadsGraph {
			continue
		}
		for _, mode := range []string{"timing", "functional"} {
			t.Run(c.key()+"/"+mode, func(t *testing.T) {
				t.Parallel()
				var first []byte
				counts := threadCounts
				if mode == "functional" {
					// Rounds on one thread and on several: the
					// functional runs add the least test time.
					counts = []int{1, 3}
				}
				for _, n := range counts {
					args := append(c.args(), "--per-iteration", "--sim-mode", mode, "--sim-threads", fmt.Sprint(n))
					v, data, err := runJSON(args)
					require.NoError(t, err)
					ok, _ := v["validation"].(map[string]any)["ok"].(bool)
					require.True(t, ok, "%s --sim-mode %s --sim-threads %d failed validation: %v", c.key(), mode, n, v["validation"])
					if first == nil {
						first = data
						continue
					}
					if !bytes.Equal(first, data) {
						var want map[string]any
						require.NoError(t, json.Unmarshal(first, &want))
						t.Fatalf("%s --sim-mode %s: --sim-threads %d differs from --sim-threads %d: %s", c.key(), mode, n, counts[0], firstDifference(want, v))
					}
				}
			})
		}
	}
}

// TestSimThreadsProfileTheSame profiles a racy cell (BFS under Atos) on the
// parallel engine at 1 and 2 threads: the profiles run writes are the same
// byte for byte, and so are the runs' --json.
func TestSimThreadsProfileTheSame(t *testing.T) {
	dir := t.TempDir()
	var profiles, outputs [][]byte
	for _, n := range []int{1, 2} {
		file := fmt.Sprintf("%s/profile-%d.json", dir, n)
		_, data, err := runJSON([]string{"run", "--algo", "bfs", "--scheduler", "atos", "--graph", threadsGraph, "--target", "sim",
			"--config", "tiny", "--json", "--profile=" + file, "--sim-threads", fmt.Sprint(n)})
		require.NoError(t, err)
		p, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Contains(t, string(p), `"by_reason"`)
		profiles, outputs = append(profiles, p), append(outputs, data)
	}
	assert.Equal(t, string(profiles[0]), string(profiles[1]))
	assert.Equal(t, string(outputs[0]), string(outputs[1]))
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
		{[]string{"--trace", t.TempDir() + "/t"}, "--sim-threads does not yet support --trace"},
		{[]string{"--monitor"}, "--sim-threads does not yet support --monitor"},
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
	// Functional mode runs its rounds on the threads.
	var stderr bytes.Buffer
	status := runMain(newRootCommand, append(append([]string(nil), base...), "--sim-mode", "functional"), &stderr)
	require.Equal(t, 0, status, stderr.String())
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

// TestSimEngineDefaultAndFallback: without engine flags a run is on the
// parallel engine; one that needs the serial engine (a trace, a memory
// model the parallel engine lacks) runs there and says so on stderr, while
// --sim-engine window refuses it; --sim-engine serial runs the serial
// engine, and its misuse is refused with exit status 2 and one line.
func TestSimEngineDefaultAndFallback(t *testing.T) {
	base := []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--target", "sim", "--config", "tiny", "--json"}
	engineOf := func(args ...string) (string, string) {
		t.Helper()
		stdout, stderr, status := runCLI(t, append(append([]string(nil), base...), args...)...)
		require.Equal(t, exitSuccess, status, stderr)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &v))
		return fmt.Sprint(v["sim_engine"]), stderr
	}
	engine, stderr := engineOf()
	assert.Equal(t, "window", engine)
	assert.NotContains(t, stderr, "serial")
	engine, _ = engineOf("--sim-engine", "serial")
	assert.Equal(t, "serial", engine)
	engine, stderr = engineOf("--trace", t.TempDir()+"/t")
	assert.Equal(t, "serial", engine)
	assert.Contains(t, stderr, "warpgraph: --trace runs on the serial timing engine (the parallel engine does not support it yet); its figures may differ from the parallel engine's\n")
	engine, stderr = engineOf("--config", "tiny+memory.l2_model=akita_writeback")
	assert.Equal(t, "serial", engine)
	assert.Contains(t, stderr, "warpgraph: memory.l2_model akita_writeback runs on the serial timing engine")
	engine, _ = engineOf("--sim-mode", "functional")
	assert.Equal(t, "<nil>", engine, "functional mode has no timing engine")

	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--sim-engine", "window", "--trace", t.TempDir() + "/t"}, "--sim-engine window does not yet support --trace"},
		{[]string{"--sim-engine", "window", "--config", "tiny+memory.l2_model=akita_writeback"}, "--sim-engine window does not yet support memory.l2_model akita_writeback"},
		{[]string{"--sim-engine", "serial", "--sim-threads", "2"}, "--sim-threads sets the parallel engine's threads: leave it out with --sim-engine serial"},
		{[]string{"--sim-engine", "fast"}, `invalid argument "fast" for "--sim-engine" flag: "fast" is not an engine: window (the parallel engine) or serial`},
		{[]string{"--sim-engine", "serial", "--sim-mode", "functional"}, "--sim-engine picks the timing engine: --sim-mode functional has none"},
		{[]string{"--sim-engine", "serial", "--target", "cpu"}, "--sim-engine picks the simulator's timing engine: it needs --target sim, not cpu"},
	} {
		t.Run(strings.Join(tc.extra, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			status := runMain(newRootCommand, append(append([]string(nil), base...), tc.extra...), &stderr)
			require.Equal(t, exitBadInput, status, stderr.String())
			require.Equal(t, "warpgraph: "+tc.want+"\n", stderr.String())
		})
	}
}

// TestMicroAndSweepSimThreadsRefusals checks that micro and sweep refuse
// --sim-threads as run does, and sweep more threads in all (--jobs ×
// --sim-threads) than the host has CPUs: exit status 2, one line.
func TestMicroAndSweepSimThreadsRefusals(t *testing.T) {
	cpus := runtime.NumCPU()
	micro := []string{"micro", "stream", "--target", "sim", "--config", "tiny", "--sim-threads", "1"}
	sweep := []string{"sweep", "test-slow", "--out", t.TempDir(), "--sim-threads", "1"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(micro, "--sim-threads", "-1"), "--sim-threads -1 is negative (0: one thread per core)"},
		{append(micro, "--target", "hw"), "--sim-threads runs the simulator's parallel engine: it needs --target sim, not hw"},
		{append(micro, "--trace", t.TempDir()+"/t"), "--sim-threads does not yet support --trace"},
		{append(micro, "--monitor"), "--sim-threads does not yet support --monitor"},
		{append(micro, "--config", "tiny+memory.l2_model=akita_writeback"), "--sim-threads does not yet support memory.l2_model akita_writeback"},
		{append(sweep, "--sim-threads", "-1"), "--sim-threads -1 is negative (0: one thread per core)"},
		{append(sweep, "--target", "hw"), "--sim-threads runs the simulator's parallel engine: it needs --target sim, not hw"},
		{append(sweep, "--config", "tiny+memory.l2_model=akita_writeback"), "--sim-threads does not yet support memory.l2_model akita_writeback"},
		{append(sweep, "--sim-threads", fmt.Sprint(cpus+1)),
			fmt.Sprintf("--jobs 1 × --sim-threads %d is %d threads, more than this host's %d CPUs: lower --sim-threads", cpus+1, cpus+1, cpus)},
		{append(sweep, "--sim-threads", fmt.Sprint(cpus+1), "--jobs", "0"),
			fmt.Sprintf("--jobs 0 (one point) × --sim-threads %d is %d threads, more than this host's %d CPUs: lower --sim-threads", cpus+1, cpus+1, cpus)},
		{append(sweep, "--sim-threads", "0", "--jobs", "2"),
			fmt.Sprintf("--jobs 2 × --sim-threads 0 (one per CPU: %d) is %d threads, more than this host's %d CPUs: give --jobs 1 at most, or 0 for that many", cpus, 2*cpus, cpus)},
		{append(sweep, "--slurm", "--sim-threads", "2", "--slurm-opts", "-c 2"),
			"--slurm-opts sets --cpus-per-task, which --sim-threads 2 sets to 2 (--jobs × --sim-threads): leave it out"},
	} {
		t.Run(strings.Join(tc.args[len(tc.args)-2:], " "), func(t *testing.T) {
			var stderr bytes.Buffer
			status := runMain(newRootCommand, tc.args, &stderr)
			require.Equal(t, exitBadInput, status, stderr.String())
			require.Equal(t, "warpgraph: "+tc.want+"\n", stderr.String())
		})
	}
}

// sweepJobs shares the CPUs among the points: --jobs 0 with --sim-threads
// N runs one point per N CPUs, at least one.
func TestSweepJobsShareTheCPUs(t *testing.T) {
	threads := func(n int) *threadFlags { return &threadFlags{n: n, given: true} }
	unset := &threadFlags{n: -1, byJobs: true}
	for _, tc := range []struct {
		jobs    int
		threads *threadFlags
		cores   int
		want    int
	}{
		{0, unset, 8, 8},
		{3, unset, 2, 3},
		{0, threads(2), 8, 4},
		{0, threads(3), 8, 2},
		{0, threads(8), 8, 1},
		{0, threads(0), 8, 1},
		{2, threads(4), 8, 2},
		{1, threads(0), 8, 1},
	} {
		got, err := sweepJobs(tc.jobs, tc.threads, tc.cores)
		require.NoError(t, err, "%+v", tc)
		assert.Equal(t, tc.want, got, "%+v", tc)
	}
	// Without --sim-threads the points share the CPUs.
	assert.Equal(t, 1, unset.threads(8, 8))
	assert.Equal(t, 4, unset.threads(8, 2))
	assert.Equal(t, 1, unset.threads(2, 3))
	assert.Equal(t, 8, (&threadFlags{n: -1}).threads(8, 2), "run and micro: one per CPU")
	_, err := sweepJobs(3, threads(3), 8)
	assert.EqualError(t, err, "--jobs 3 × --sim-threads 3 is 9 threads, more than this host's 8 CPUs: give --jobs 2 at most, or 0 for that many")
}
