package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostCallsAddUpToEndToEnd: on the simulator, --host-calls lists every
// run's calls on the simulated host clock, and each timed run's calls and
// gaps add up to the end-to-end time that run reports, with as many
// launches as the run made.
func TestHostCallsAddUpToEndToEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.csv")
	stdout, stderr, status := runCLI(t, "run", "--algo", "bfs", "--scheduler", "bsp", "--graph", "rmat:scale=9+perm=1",
		"--target", "sim", "--config", "tiny", "--warmup", "1", "--repeat", "2", "--host-calls", path, "--json")
	require.Equal(t, 0, status, stderr)
	var res struct {
		Runs     []float64 `json:"runs_end_to_end_seconds"`
		Launches int       `json:"launches"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	require.Len(t, res.Runs, 2)

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Equal(t, []string{"run", "timed", "call", "detail", "start_us", "duration_us", "gap_us"}, rows[0])
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		return v
	}
	type runSum struct {
		timed            string
		launches         int
		spent, end       float64
		begins, ends     int
		copies, memsets  int
		lastRowWasTheEnd bool
	}
	runs := map[string]*runSum{}
	for _, r := range rows[1:] {
		s := runs[r[0]]
		if s == nil {
			s = &runSum{timed: r[1]}
			runs[r[0]] = s
		}
		assert.Equal(t, s.timed, r[1], "run %s changes its timed flag", r[0])
		s.lastRowWasTheEnd = false
		switch r[2] {
		case "run begin":
			s.begins++
		case "run end":
			s.ends++
			s.end = num(r[4])
			s.lastRowWasTheEnd = true
		case "Launch":
			s.launches++
		case "CopyFromDevice", "CopyToDevice":
			s.copies++
		case "Memset":
			s.memsets++
		}
		s.spent += num(r[5]) + num(r[6])
	}
	require.Len(t, runs, 3, "the warm-up run and the two timed ones")
	assert.Equal(t, "false", runs["0"].timed)
	for i, e2e := range res.Runs {
		s := runs[strconv.Itoa(i+1)]
		require.NotNil(t, s)
		assert.Equal(t, "true", s.timed)
		assert.Equal(t, 1, s.begins)
		assert.Equal(t, 1, s.ends)
		assert.True(t, s.lastRowWasTheEnd)
		assert.Equal(t, res.Launches, s.launches, "run %d", i+1)
		assert.Positive(t, s.copies, "bsp reads each level's frontier back")
		assert.InDelta(t, e2e*1e6, s.end, 0.01, "run %d: the end row's start is the run's end-to-end time", i+1)
		assert.InDelta(t, s.end, s.spent, 0.01*float64(len(rows)), "run %d: calls and gaps add up to it", i+1)
	}
}

// TestHostCallsRefusals: combinations --host-calls cannot record, and a
// path no file can be written at (for it and for --out), are bad input
// before the run starts.
func TestHostCallsRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "calls.csv")
	missing := filepath.Join(dir, "missing", "calls.csv")
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--host-calls", out, "--target", "cpu"}, "--host-calls records a device's calls: use --target sim or hw"},
		{[]string{"--host-calls", out, "--target", "sim", "--config", "tiny", "--sources", "2"}, "--host-calls records one traversal's runs: leave out --sources"},
		{[]string{"--host-calls", missing, "--target", "sim", "--config", "tiny"}, "--host-calls: cannot write to " + filepath.Dir(missing)},
		{[]string{"--host-calls", dir, "--target", "sim", "--config", "tiny"}, "--host-calls: " + dir + " is a folder"},
		{[]string{"--out", missing}, "--out: cannot write to " + filepath.Dir(missing)},
	} {
		args := append([]string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4"}, c.args...)
		_, stderr, status := runCLI(t, args...)
		assert.Equal(t, exitBadInput, status, stderr)
		assert.Contains(t, stderr, c.mention)
		assert.NoFileExists(t, out)
		assert.NoFileExists(t, missing)
	}
}
