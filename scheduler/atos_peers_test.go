package scheduler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// enactOn runs algorithm name under variant on the system's devices and
// returns the result and the error.
func enactOn(t *testing.T, sys *sim.System, name, variant string, g *graph.Graph, partition string) (*scheduler.Result, error) {
	t.Helper()
	a, err := scheduler.LookupAlgorithm(name)
	require.NoError(t, err)
	v, err := scheduler.ParseVariant(variant)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return scheduler.Enact(ctx, sys.Devices()[0], a, v, g, a.Select(scheduler.Params{}), scheduler.RunOptions{Block: 64, System: sys, Partition: partition})
}

// TestAtosAcrossDevices runs Atos's warp workers across 1, 2 and 4
// simulated GPUs (tiny-x4's link) on the corpus graphs of at most 300
// vertices, with and without deduplication, in functional and timing
// mode, validated against graph/ref (PageRank's ranks normalised by the
// finishing pass across devices): every task a device pushes into
// another's queue is processed there, and the run ends only when no task
// is pending on any device. With several devices, every pop is counted on
// some device and the statistics say how the pops were spread.
func TestAtosAcrossDevices(t *testing.T) {
	forPartitionedCorpus(t, func(mode sim.Mode, gpus int, sys *sim.System, cg corpusGraph, partition string) {
		for _, name := range []string{"bfs", "sssp", "sswp", "wcc", "pr"} {
			for _, dedup := range []string{"on", "off"} {
				t.Run(fmt.Sprintf("%s/%d/%s/%s/dedup=%s", mode, gpus, cg.name, name, dedup), func(t *testing.T) {
					res, err := enactOn(t, sys, name, "atos:worker=warp,dedup="+dedup, cg.g, partition)
					require.NoError(t, err)
					require.True(t, res.Validation.OK(), res.Validation.String())
					pops, ok := summaryNumber(res, "queue_pops")
					require.True(t, ok)
					for _, f := range res.Summary {
						if f.Key == "queue_pops" && pops > 0 { // one device of a system runs the workers across devices too
							assert.Contains(t, f.Value, "by device 0: ")
						}
					}
					switch {
					case name == "pr" && gpus > 1: // every device pulls its vertices' in-edges first
						assert.Contains(t, []string{"pull", "pull+exchange"}, res.Iterations[0].Phases)
						edges, ok := summaryNumber(res, "edges_walked")
						require.True(t, ok)
						assert.GreaterOrEqual(t, edges, float64(cg.g.NumEdges()))
					case name != "pr": // on one device PageRank's pulls may leave no task
						assert.Positive(t, pops)
					}
					if mode == sim.ModeTiming {
						assert.Positive(t, res.EndToEnd)
					}
				})
			}
		}
	})
}

// On a graph split over four devices the pushes cross the link: the
// modelled links are busy, every device pops tasks, and the timing-mode
// run's figures are the same at every thread count of the engine.
func TestAtosAcrossDevicesReachesEveryDevice(t *testing.T) {
	g := load(t, "rmat:scale=9+perm=1")
	var figures []string
	for _, threads := range []int{1, 3} {
		sys, err := sim.OpenSystem("tiny-x4", 4, sim.WithMode(sim.ModeTiming), sim.WithThreads(threads))
		require.NoError(t, err)
		res, err := enactOn(t, sys, "bfs", "atos:worker=warp", g, graph.PartitionRange)
		sys.Close()
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		moved, ok := summaryNumber(res, "link_bytes")
		assert.True(t, ok && moved > 0, "the pushes and remote updates cross the links")
		text := fmt.Sprint(res.Iterations[0].Stats.Cycles)
		for _, f := range res.Summary {
			if f.Key == "queue_pops" {
				for d := range 4 {
					assert.Regexp(t, fmt.Sprintf(`%d: [1-9]`, d), f.Value, "device %d popped tasks", d)
				}
			}
			text += "; " + f.Value
		}
		figures = append(figures, text)
	}
	assert.Equal(t, figures[0], figures[1], "1 and 3 engine threads")
}

// Across devices atos needs persistent warp workers and an algorithm with
// entries across devices; each refusal is one clear error.
func TestAtosAcrossDevicesRefusals(t *testing.T) {
	sys := openSimSystem(t, 2, sim.ModeFunctional)
	g := load(t, "grid:w=6,h=6")
	_, err := enactOn(t, sys, "bfs", "atos", g, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "atos:worker=warp")
	_, err = enactOn(t, sys, "bfs", "atos:mode=discrete,worker=warp", g, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "persistent warp workers")
	_, err = enactOn(t, sys, "color", "atos:worker=warp", g, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bfs, pr, ")
}

// PageRank's prelude across devices pulls as the one-device prelude does:
// on a system of one device, and with every carry sent after each pull on
// 2 and 4, as many pulls,
// each device's share of the vertices left active adding up to the same
// frontiers, and the exchanges move every vertex's carry to every other
// device after every pull but the last.
func TestAtosAcrossDevicesPageRankPrelude(t *testing.T) {
	g := load(t, "rmat:scale=10+perm=1")
	n := g.NumVertices()
	pulls := func(res *scheduler.Result) []int {
		var out []int
		for _, it := range res.Iterations {
			if it.Phases == "pull" || it.Phases == "pull+exchange" {
				out = append(out, it.FrontierOut)
			}
		}
		return out
	}
	// The one-device prelude: no system, so atos's own workers on one device.
	dev, err := sim.Open("tiny", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	a, err := scheduler.LookupAlgorithm("pr")
	require.NoError(t, err)
	v, err := scheduler.ParseVariant("atos:worker=warp")
	require.NoError(t, err)
	res, err := scheduler.Enact(context.Background(), dev, a, v, g, a.Select(scheduler.Params{}), scheduler.RunOptions{Block: 64})
	require.NoError(t, err)
	require.True(t, res.Validation.OK(), res.Validation.String())
	one := pulls(res)
	require.Greater(t, len(one), 1, "the prelude pulls more than once")
	for _, gpus := range []int{1, 2, 4} {
		res, err := enactOn(t, openSimSystem(t, gpus, sim.ModeFunctional), "pr", "atos:worker=warp", g, graph.PartitionHash)
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		got := pulls(res)
		if gpus == 1 {
			assert.Equal(t, one, got, "the workers across devices on a one-device system")
			continue
		}
		assert.Equal(t, one, got, "%d GPUs: the active vertices after each pull", gpus)
		bytes, ok := summaryNumber(res, "prelude_exchange_bytes")
		require.True(t, ok)
		assert.Equal(t, float64(4*n*(gpus-1)*(len(got)-1)), bytes, "%d GPUs", gpus)
	}
}
