package experiments

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scheduler's study is the schedulers sweep restricted to its variants:
// every point validates, runs from the source and grid the parameters
// give, and a bad grid is an error of that point, not a panic.
func TestSchedulersSweepRunsOneSchedulersStudy(t *testing.T) {
	e, err := Default.Lookup("schedulers")
	require.NoError(t, err)
	dir := t.TempDir()
	pl := Plan{Experiment: "schedulers", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "functional",
		Filter: []string{"algorithm=bfs|pr;variant=atos:mode=persistent,worker=cta,fetch=auto,local=off|bsp"},
		Params: map[string]string{"rmat_spec": "rmat:scale=7+perm=1", "grid_spec": "grid:w=8,h=8", "start": "3", "grid": "2"}}
	sum, err := Sweep(context.Background(), e, Options{Plan: pl, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 8, sum.OK, "two graphs × two algorithms × two variants")
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	for _, r := range rows {
		require.Equal(t, StatusOK, r["status"], "%s: %s", r.Key(), r["error"])
		if r["algorithm"] == "bfs" {
			assert.Equal(t, "3", r["source"], r.Key())
		}
		assert.NotEmpty(t, r["thread_instructions"], r.Key())
	}

	pl.Params["start"] = "100000"
	sum, err = Sweep(context.Background(), e, Options{Plan: pl, Out: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, 4, sum.Errors, "a source outside the graph fails the BFS points (PR has none)")
	pl.Params["start"], pl.Params["grid"] = "max", "3"
	sum, err = Sweep(context.Background(), e, Options{Plan: pl, Out: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, 4, sum.Errors, "persistent workers past the co-resident limit (2 CTAs of the tiny GPU) are refused")
	pl.Params["grid"] = "-1"
	sum, err = Sweep(context.Background(), e, Options{Plan: pl, Out: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, 8, sum.Errors, "a negative grid fails every point")
}

// Functional-mode cells carry no kernel time: the findings say so instead
// of ranking zeros.
func TestCellFindingsDoNotRankFunctionalCells(t *testing.T) {
	rows := []Row{
		{"status": "ok", "sim_mode": "functional", "config": "h100", "graph": "rmat", "algorithm": "bfs", "variant": "bsp", "kernel_us": "0.000", "iterations": "5"},
		{"status": "ok", "sim_mode": "timing", "config": "h100", "graph": "rmat", "algorithm": "bfs", "variant": "bsp", "kernel_us": "12.5", "iterations": "5"},
	}
	got := strings.Join(cellFindings(rows), "\n")
	assert.Contains(t, got, "1 cells ran on the functional simulator")
	assert.NotContains(t, got, "0.000 µs")
	assert.Contains(t, got, "12.5 µs")
}
