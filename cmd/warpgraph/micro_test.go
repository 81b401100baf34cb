package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments/micro"
)

// `micro all` gives every benchmark the table it gives alone: each starts
// from a fresh device, so no cache or clock state carries over (the global
// barrier's cycles once depended on what ran before it).
func TestMicroAllMatchesEachBenchmarkAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every microbenchmark twice in simulation")
	}
	// Small sizes: the carry-over this checks does not depend on them.
	flags := []string{"--target", "sim", "--config", "tiny", "--grids", "2", "--no-boundary", "--elements", "65536", "--tables", "16,256", "--offsets", "0,256", "--json", "--heartbeat", "0"}
	tables := func(name string) []micro.Table {
		out, status, err := execute(t, append([]string{"micro", name}, flags...)...)
		require.NoError(t, err, out)
		require.Equal(t, 0, status)
		var got []micro.Table
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		return got
	}
	all := tables("all")
	require.Len(t, all, len(microRegistry.Names()))
	for i, name := range microRegistry.Names() {
		if b, _ := microRegistry.Lookup(name); b.WallClock {
			continue // its host-side columns are wall-clock times
		}
		alone := tables(name)
		require.Len(t, alone, 1)
		assert.Equal(t, alone[0].Rows, all[i].Rows, "%s alone and within all", name)
	}
}

// The stream's default sizes differ between targets, so the table says so
// (and how to compare); an explicit --elements needs no such note.
func TestMicroStreamTableNamesTheDefaultSizes(t *testing.T) {
	out, _, err := execute(t, "micro", "stream", "--target", "sim", "--config", "tiny", "--sim-mode", "functional")
	require.NoError(t, err)
	assert.Contains(t, out, "16777216 elements on hw, 1048576 in simulation")
	out, _, err = execute(t, "micro", "stream", "--target", "sim", "--config", "tiny", "--sim-mode", "functional", "--elements", "4096")
	require.NoError(t, err)
	assert.NotContains(t, out, "Default size")
	assert.Contains(t, out, "4096")
}

// micro --json carries every launch's statistics beside the table: the
// atomic-contention sweep launches a shared and a global kernel per
// degree, each with its cycles and counters.
func TestMicroJSONCarriesEveryLaunch(t *testing.T) {
	out, _, err := execute(t, "micro", "atomic_contention", "--target", "sim", "--config", "tiny", "--json", "--heartbeat", "0")
	require.NoError(t, err)
	var got []struct {
		Rows     [][]string     `json:"rows"`
		Launches []launchRecord `json:"launches"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got, 1)
	rows, launches := got[0].Rows, got[0].Launches
	require.Len(t, launches, 2*len(rows))
	for i, l := range launches {
		assert.Positive(t, l.Cycles, "launch %d", i)
		assert.Positive(t, l.Counters["thread_instructions"], "launch %d", i)
		assert.Equal(t, 1, l.Grid)
		assert.Empty(t, l.Error)
	}
	assert.Equal(t, "atomic_contention_shared", launches[0].Kernel)
	assert.Equal(t, "atomic_contention_global", launches[1].Kernel)
}

// micro --sim-threads prints the same tables and launches (cycles,
// counters) at every thread count.
func TestMicroSimThreadsGiveIdenticalFigures(t *testing.T) {
	var first string
	for _, n := range []string{"1", "2"} {
		out, status, err := execute(t, "micro", "atomic_contention", "--target", "sim", "--config", "tiny", "--json", "--heartbeat", "0", "--sim-threads", n)
		require.NoError(t, err, out)
		require.Equal(t, 0, status)
		if first == "" {
			first = out
			continue
		}
		assert.Equal(t, first, out, "--sim-threads %s against 1", n)
	}
}

// With sm.atomic_slice_packets an SM sends a warp instruction's atomics on
// one slice as one request: on one hot line (four sectors) the requests
// fall to about a quarter, and every table word still validates.
func TestMicroAtomicSlicePacketsCutRequests(t *testing.T) {
	requests := func(config string) float64 {
		out, status, err := execute(t, "micro", "atomic_line_pairs", "--target", "sim", "--config", config,
			"--offsets", "0", "--elements", "4096", "--json", "--heartbeat", "0")
		require.NoError(t, err, out)
		require.Equal(t, 0, status)
		var got []struct {
			Rows     [][]string     `json:"rows"`
			Launches []launchRecord `json:"launches"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		require.Len(t, got[0].Rows, 1)
		assert.Equal(t, "every table word", got[0].Rows[0][5])
		last := got[0].Launches[len(got[0].Launches)-1] // the timed launch, after the warming one
		return last.Counters["global_atomic_requests"]
	}
	sectors, packets := requests("tiny"), requests("tiny+sm.atomic_slice_packets=true")
	assert.InDelta(t, 0.25, packets/sectors, 0.05, "requests per sector %.0f, per packet %.0f", sectors, packets)
}
