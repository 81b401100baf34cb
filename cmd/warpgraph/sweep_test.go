package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments"
)

// slowExperiment's points take a while and need no device, so a test can
// kill a sweep of it in the middle.
var slowExperiment = &experiments.Experiment{
	Name:    "test-slow",
	About:   "a test sweep whose points sleep",
	Targets: []string{experiments.TargetSim, experiments.TargetHW},
	Configs: []string{"tiny"},
	Axes:    []experiments.Axis{{Name: "n", About: "a number", Values: strings.Fields("1 2 3 4 5 6 7 8 9 10")}},
	Params:  []experiments.Param{{Name: "sleep", About: "milliseconds per point", Default: func(string, string) string { return "100" }}},
	Stats:   []experiments.Stat{{Name: "square", About: "n²"}},
	Run: func(ctx context.Context, _ *experiments.Env, p experiments.Point) (experiments.Outcome, error) {
		n, _ := p.Int("n")
		ms, _ := p.Int("sleep")
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
			return experiments.Outcome{}, ctx.Err()
		}
		return experiments.Outcome{Values: map[string]string{"square": fmt.Sprint(n * n)}, Valid: n != 7, Validation: "n is not 7"}, nil
	},
	Table: []string{"n", "square", "status"},
}

func init() {
	r := experiments.NewRegistry()
	for _, e := range experiments.Default.All() {
		r.Register(e)
	}
	r.Register(slowExperiment)
	sweepRegistry = r
}

// stableCSV reads a sweep's CSV without the volatile columns.
func stableCSV(t *testing.T, path string) []string {
	t.Helper()
	header, rows, err := experiments.ReadCSV(path)
	require.NoError(t, err)
	var out []string
	for _, r := range rows {
		var cells []string
		for _, c := range header {
			if !slices.Contains(experiments.VolatileColumns, c) {
				cells = append(cells, r[c])
			}
		}
		out = append(out, strings.Join(cells, ","))
	}
	return out
}

// TestKilledSweepProcessResumes kills a sweep process with SIGKILL after
// a few points, reruns the same command, and gets the CSV of a sweep that
// was never interrupted.
func TestKilledSweepProcessResumes(t *testing.T) {
	if dir := os.Getenv("WARPGRAPH_TEST_SWEEP_OUT"); dir != "" {
		os.Args = []string{"warpgraph", "sweep", "test-slow", "--out", dir}
		main()
		t.Fatal("main returned")
	}
	dir := t.TempDir()
	killed := filepath.Join(dir, "killed")
	child := exec.Command(os.Args[0], "-test.run=^TestKilledSweepProcessResumes$")
	child.Env = append(os.Environ(), "WARPGRAPH_TEST_SWEEP_OUT="+killed)
	require.NoError(t, child.Start())
	data := filepath.Join(killed, experiments.DataFile)
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(data)
		if strings.Count(string(b), "\n") >= 4 { // the header and three points
			break
		}
		require.True(t, time.Now().Before(deadline), "the child recorded no points")
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	_ = child.Wait()
	_, rows, err := experiments.ReadCSV(data)
	require.NoError(t, err)
	before := len(rows)
	require.Less(t, before, 10, "killed before the end")

	stdout, stderr, status := runCLI(t, "sweep", "test-slow", "--out", killed)
	assert.Equal(t, exitFailure, status, "point 7 does not validate")
	assert.Contains(t, stdout, fmt.Sprintf("10 points (%d recorded before, %d run now", before, 10-before))
	assert.Contains(t, stderr, "1 points failed or did not validate")

	whole := filepath.Join(dir, "whole")
	_, _, status = runCLI(t, "sweep", "test-slow", "--out", whole)
	assert.Equal(t, exitFailure, status)
	assert.Equal(t, stableCSV(t, filepath.Join(whole, experiments.DataFile)), stableCSV(t, data))
	assert.FileExists(t, filepath.Join(killed, "README.md"))
}

func TestSweepCommands(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr, status := runCLI(t, "sweep", "list")
	require.Equal(t, exitSuccess, status, stderr)
	for _, name := range []string{"atomics", "banks", "bsp-corpus"} {
		assert.Contains(t, stdout, name+" — ")
	}
	assert.Contains(t, stdout, "param reps")

	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"sweep", "nosuch"}, `unknown experiment "nosuch"`},
		{[]string{"sweep", "test-slow", "--target", "cpu"}, `unknown target "cpu"`},
		{[]string{"sweep", "test-slow", "--points", "m=1"}, `no axis "m"`},
		{[]string{"sweep", "test-slow", "--param", "reps=1"}, `no parameter "reps"`},
		{[]string{"sweep", "test-slow", "--shard", "5/4"}, `shard "5/4"`},
		{[]string{"sweep", "test-slow", "--target", "hw", "--config", "h100"}, "--config applies to --target sim"},
		{[]string{"sweep", "test-slow", "--slurm", "--shard", "1/2"}, "leave out --shard"},
		{[]string{"sweep", "test-slow", "--finish-by", "1h"}, "--finish-by needs --longest-first"},
		{[]string{"sweep", "test-slow", "--finish-by", "-1s", "--longest-first", "x"}, "give a positive time"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, status, stderr)
			assert.Contains(t, stderr, tc.mention)
		})
	}

	// Shards, merged, equal the whole sweep.
	args := []string{"sweep", "test-slow", "--param", "sleep=0", "--points", "n=1|2|3|4|5|6"}
	var shards []string
	for i := 1; i <= 3; i++ {
		out := filepath.Join(dir, "shards", fmt.Sprintf("shard-%d-of-3", i))
		stdout, stderr, status := runCLI(t, append(args, "--shard", fmt.Sprintf("%d/3", i), "--out", out)...)
		require.Equal(t, exitSuccess, status, stderr)
		assert.Contains(t, stdout, "2 points")
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "shards")
	stdout, stderr, status = runCLI(t, append([]string{"sweep", "merge"}, shards...)...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "6 points into "+merged)
	_, stderr, status = runCLI(t, append(args, "--out", filepath.Join(dir, "whole"))...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Equal(t, stableCSV(t, filepath.Join(dir, "whole", experiments.DataFile)), stableCSV(t, filepath.Join(merged, experiments.DataFile)))
	readme, err := os.ReadFile(filepath.Join(merged, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "warpgraph sweep merge")
	assert.Contains(t, string(readme), "--param sleep=0 --points 'n=1|2|3|4|5|6' --shard 1/3")

	// Shards missing or given twice are bad arguments (status 2).
	_, stderr, status = runCLI(t, "sweep", "merge", shards[0], shards[1])
	assert.Equal(t, exitBadInput, status, stderr)
	assert.Contains(t, stderr, "2 of 6 points missing")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	_, stderr, status = runCLI(t, "sweep", "merge", shards[0], shards[0], shards[1], shards[2])
	assert.Equal(t, exitBadInput, status, stderr)
	assert.Contains(t, stderr, "2 duplicate points")

	// The hardware half joins the simulated one by point key.
	_, stderr, status = runCLI(t, "sweep", "test-slow", "--target", "hw", "--param", "sleep=0", "--points", "n=2|3", "--out", filepath.Join(dir, "hw"))
	require.Equal(t, exitSuccess, status, stderr)
	joined := filepath.Join(dir, "joined.csv")
	stdout, stderr, status = runCLI(t, "sweep", "join", filepath.Join(merged, experiments.DataFile), filepath.Join(dir, "hw", experiments.DataFile), "--out", joined)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "joined 6 rows")
	_, rows, err := experiments.ReadCSV(joined)
	require.NoError(t, err)
	assert.Equal(t, "n=2", rows[1]["cell"])
	assert.Equal(t, "4", rows[1]["hw_square"])
	assert.Equal(t, "4", rows[1]["sim_square"])

	// One file twice, or the two in the wrong order, are bad arguments.
	simCSV, hwCSV := filepath.Join(merged, experiments.DataFile), filepath.Join(dir, "hw", experiments.DataFile)
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{simCSV, simCSV}, "are the same file"},
		{[]string{hwCSV, filepath.Dir(hwCSV) + "/../hw/" + experiments.DataFile}, "are the same file"},
		{[]string{hwCSV, simCSV}, "give the simulator's CSV first"},
	} {
		_, stderr, status = runCLI(t, append([]string{"sweep", "join"}, tc.args...)...)
		assert.Equal(t, exitBadInput, status, stderr)
		assert.Contains(t, stderr, tc.mention)
	}

	// --slurm writes a job array and runs nothing.
	stdout, stderr, status = runCLI(t, "sweep", "test-slow", "--slurm", "--shards", "3", "--slurm-opts", "--time=10", "--out", filepath.Join(dir, "slurm"))
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "a job array of 3 shards")
	script, err := os.ReadFile(filepath.Join(dir, "slurm", "sweep.sbatch"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "#SBATCH --array=1-3\n#SBATCH --ntasks=1\n")
	assert.Contains(t, string(script), "#SBATCH --time=10\n")
	assert.Contains(t, string(script), "sweep test-slow --target sim --config tiny --sim-mode timing --shard")
	assert.NotContains(t, string(script), "--cpus-per-task")
	assert.NoFileExists(t, filepath.Join(dir, "slurm", experiments.DataFile))
}

// sweep --sim-threads records the same rows at every thread count (the
// serial engine's, on this small sweep), and says in sweep.json and the
// README which engine made them.
func TestSweepSimThreadsGiveIdenticalRows(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("--sim-threads 2 needs 2 CPUs")
	}
	dir := t.TempDir()
	args := []string{"sweep", "schedulers", "--config", "tiny", "--param", "rmat_spec=rmat:scale=6", "--param", "grid_spec=grid:w=4,h=4",
		"--points", "algorithm=bfs|sssp;variant=bsp"}
	data := map[string][]string{}
	for _, n := range []string{"1", "2"} {
		out := filepath.Join(dir, n)
		_, stderr, status := runCLI(t, append(args, "--out", out, "--sim-threads", n)...)
		require.Equal(t, exitSuccess, status, stderr)
		data[n] = stableCSV(t, filepath.Join(out, experiments.DataFile))
		plan, err := os.ReadFile(filepath.Join(out, experiments.PlanFile))
		require.NoError(t, err)
		assert.Contains(t, string(plan), `"sim_threads": `+n)
		assert.Contains(t, string(plan), "--sim-threads "+n)
		readme, err := os.ReadFile(filepath.Join(out, "README.md"))
		require.NoError(t, err)
		assert.Contains(t, string(readme), map[string]string{"1": "the parallel window engine, 1 thread per point", "2": "the parallel window engine, 2 threads per point"}[n])
	}
	require.Len(t, data["1"], 4)
	assert.Equal(t, data["1"], data["2"])

	// The serial engine's figures may differ: it does not resume them.
	_, stderr, status := runCLI(t, append(args, "--out", filepath.Join(dir, "1"), "--sim-engine", "serial")...)
	assert.Equal(t, exitFailure, status)
	assert.Contains(t, stderr, "simulated on the parallel window engine (--sim-engine window, the default), this sweep uses the serial engine (--sim-engine serial)")
}

// sweep --slurm asks each task for --jobs × --sim-threads CPUs and passes
// --sim-threads on to the tasks.
func TestSweepSlurmAsksForTheThreads(t *testing.T) {
	dir := t.TempDir()
	scripts := 0
	script := func(extra ...string) string {
		scripts++
		out := filepath.Join(dir, fmt.Sprint(scripts))
		_, stderr, status := runCLI(t, append([]string{"sweep", "test-slow", "--slurm", "--out", out}, extra...)...)
		require.Equal(t, exitSuccess, status, stderr)
		s, err := os.ReadFile(filepath.Join(out, "sweep.sbatch"))
		require.NoError(t, err)
		return string(s)
	}
	s := script("--sim-threads", "3")
	assert.Contains(t, s, "#SBATCH --cpus-per-task=3\n")
	assert.Contains(t, s, "--sim-threads 3 --shard")
	s = script("--sim-threads", "3", "--jobs", "2")
	assert.Contains(t, s, "#SBATCH --cpus-per-task=6\n")
	assert.Contains(t, s, "--jobs 2 --sim-threads 3 --shard")
	s = script("--sim-threads", "0", "--slurm-opts", "--cpus-per-task=8")
	assert.Contains(t, s, "#SBATCH --cpus-per-task=8\n", "0: one thread per CPU the task is given")
	assert.Equal(t, 1, strings.Count(s, "--cpus-per-task"))
	assert.Contains(t, s, "--sim-threads 0 --shard")
}

// TestSweepFinishBy runs a sweep whose earlier wall seconds say three
// points take an hour: with --finish-by 10m it runs the others, says how
// many it left (status 6), and the same command without the limit
// resumes with them.
func TestSweepFinishBy(t *testing.T) {
	dir := t.TempDir()
	args := []string{"sweep", "test-slow", "--param", "sleep=0", "--points", "n=1|2|3|4|5|6"}
	_, stderr, status := runCLI(t, append(args, "--out", filepath.Join(dir, "earlier"))...)
	require.Equal(t, exitSuccess, status, stderr)
	header, rows, err := experiments.ReadCSV(filepath.Join(dir, "earlier", experiments.DataFile))
	require.NoError(t, err)
	for _, r := range rows {
		if n := r["n"]; n == "1" || n == "2" || n == "3" {
			r["wall_seconds"] = "3600"
		}
	}
	costs := filepath.Join(dir, "costs.csv")
	f, err := os.Create(costs)
	require.NoError(t, err)
	w := csv.NewWriter(f)
	require.NoError(t, w.Write(header))
	for _, r := range rows {
		cells := make([]string, len(header))
		for i, c := range header {
			cells[i] = r[c]
		}
		require.NoError(t, w.Write(cells))
	}
	w.Flush()
	require.NoError(t, w.Error())
	require.NoError(t, f.Close())

	out := filepath.Join(dir, "limited")
	limited := append(args, "--out", out, "--longest-first", costs)
	_, stderr, status = runCLI(t, append(limited, "--finish-by", "10m")...)
	assert.Equal(t, exitTimeout, status, stderr)
	assert.Contains(t, stderr, "3 points not started")
	assert.Equal(t, 1, strings.Count(stderr, "warpgraph: "), "one line: %s", stderr)
	_, got, err := experiments.ReadCSV(filepath.Join(out, experiments.DataFile))
	require.NoError(t, err)
	var ran []string
	for _, r := range got {
		ran = append(ran, r["n"])
	}
	assert.ElementsMatch(t, []string{"4", "5", "6"}, ran)

	stdout, stderr, status := runCLI(t, limited...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "6 points (3 recorded before, 3 run now")
	assert.Equal(t, stableCSV(t, filepath.Join(dir, "earlier", experiments.DataFile)), stableCSV(t, filepath.Join(out, experiments.DataFile)))

	// --slurm passes the limit on to every task.
	slurm := filepath.Join(dir, "slurm")
	_, stderr, status = runCLI(t, append(args, "--out", slurm, "--longest-first", costs, "--finish-by", "50m", "--slurm")...)
	require.Equal(t, exitSuccess, status, stderr)
	script, err := os.ReadFile(filepath.Join(slurm, "sweep.sbatch"))
	require.NoError(t, err)
	assert.Contains(t, string(script), "--finish-by 50m0s --longest-first "+costs)
}

// TestSweepOutThatCannotBeAFolderIsBadInput: an --out folder that cannot
// be made is bad input, before any point runs.
func TestSweepOutThatCannotBeAFolderIsBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, stderr, status := runCLI(t, "sweep", "simhw", "--target", "sim", "--out", filepath.Join(file, "dir"),
		"--points", "graph=grid128;algorithm=bfs;variant=bsp")
	assert.Equal(t, exitBadInput, status, stderr)
	assert.Contains(t, stderr, "--out "+filepath.Join(file, "dir"))
}
