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

func openSimSystem(t *testing.T, gpus int, mode sim.Mode) *sim.System {
	t.Helper()
	sys, err := sim.OpenSystem("tiny-x4", gpus, sim.WithMode(mode))
	require.NoError(t, err)
	t.Cleanup(func() { sys.Close() })
	return sys
}

var exchangeMethods = []string{scheduler.ExchangeAll, scheduler.ExchangeMaximalSubset, scheduler.ExchangeRefineOffline, scheduler.ExchangeRefineOnline, scheduler.ExchangeRefinePut}

// runPartitioned enacts algorithm name under mgpu with the given keys on
// the system and checks the result against graph/ref.
func runPartitioned(t *testing.T, sys *sim.System, name, keys string, g *graph.Graph, partition string) *scheduler.Result {
	t.Helper()
	a, err := scheduler.LookupAlgorithm(name)
	require.NoError(t, err)
	v, err := scheduler.ParseVariant("mgpu:" + keys)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := scheduler.Enact(ctx, sys.Devices()[0], a, v, g, a.Select(scheduler.Params{}), scheduler.RunOptions{Block: 64, System: sys, Partition: partition})
	require.NoError(t, err)
	require.True(t, res.Validation.OK(), res.Validation.String())
	return res
}

func summaryNumber(res *scheduler.Result, key string) (float64, bool) {
	for _, f := range res.Summary {
		if f.Key == key && f.Number != nil {
			return *f.Number, true
		}
	}
	return 0, false
}

// TestPartitionedCorpus runs every partitioned algorithm with every
// exchange method on 1, 2 and 4 simulated GPUs joined by tiny-x4's link,
// on the corpus graphs of at most 300 vertices and at least as many
// vertices as GPUs, in
// functional and timing mode, validated against graph/ref. The methods
// send nested sets (all ⊇ ms ⊇ the changed boundary vertices that both
// vertex refinements send), and in functional mode, for the voting
// algorithms, where every method delivers the same values, they take the
// same sweeps.
func TestPartitionedCorpus(t *testing.T) {
	var names []string
	for _, a := range scheduler.Algorithms() {
		if a.Partition != nil {
			names = append(names, a.Name)
		}
	}
	require.ElementsMatch(t, []string{"bfs", "pr", "sssp", "sswp", "wcc"}, names)
	forPartitionedCorpus(t, func(mode sim.Mode, gpus int, sys *sim.System, cg corpusGraph, partition string) {
		for _, name := range names {
			t.Run(fmt.Sprintf("%s/%d/%s/%s", mode, gpus, cg.name, name), func(t *testing.T) {
				sent := map[string]float64{}
				sweeps := map[string]int{}
				for _, ex := range exchangeMethods {
					res := runPartitioned(t, sys, name, "exchange="+ex, cg.g, partition)
					sweeps[ex] = len(res.Iterations)
					x, ok := summaryNumber(res, "values_transferred")
					assert.Equal(t, gpus > 1, ok, "%s: values transferred reported with several GPUs only", ex)
					sent[ex] = x
					if mode == sim.ModeTiming {
						assert.Positive(t, res.EndToEnd, ex)
					}
				}
				assert.GreaterOrEqual(t, sent["all"], sent["ms"])
				if name != "pr" && mode == sim.ModeFunctional {
					// In timing mode a sweep's in-place reads depend on
					// the warps' timing, which the methods' kernels change.
					assert.GreaterOrEqual(t, sent["ms"], sent["vr-offline"])
					assert.Equal(t, sent["vr-offline"], sent["vr-online"])
					assert.Equal(t, sent["vr-offline"], sent["vr-put"], "puts send what vr-offline packs")
					assert.Equal(t, sweeps["vr-offline"], sweeps["vr-put"])
					assert.Equal(t, sweeps["all"], sweeps["vr-online"], "the same values arrive, so the same sweeps")
					assert.Equal(t, sweeps["ms"], sweeps["vr-offline"])
				}
			})
		}
	})
}

// forPartitionedCorpus calls run for functional and timing mode (timing
// left out under -short), 1, 2 and 4 GPUs of tiny-x4, and every corpus
// graph of at most 300 vertices and at least as many vertices as GPUs,
// with the partition method: half the graphs are split by hash.
func forPartitionedCorpus(t *testing.T, run func(mode sim.Mode, gpus int, sys *sim.System, cg corpusGraph, partition string)) {
	modes := []sim.Mode{sim.ModeFunctional, sim.ModeTiming}
	if testing.Short() {
		modes = modes[:1]
	}
	graphs := corpus(t)
	for _, mode := range modes {
		for _, gpus := range []int{1, 2, 4} {
			sys := openSimSystem(t, gpus, mode)
			for _, cg := range graphs {
				if cg.g.NumVertices() < gpus || cg.g.NumVertices() > 300 {
					continue
				}
				partition := graph.PartitionRange
				if len(cg.name)%2 == 1 {
					partition = graph.PartitionHash
				}
				run(mode, gpus, sys, cg, partition)
			}
		}
	}
}

// Vertex refinement sends only changed boundary values, each of which
// changes a copy its receiver reads: efficiency 1 for the voting
// algorithms, while sending every value wastes most of the link.
func TestExchangeEfficiency(t *testing.T) {
	sys := openSimSystem(t, 4, sim.ModeFunctional)
	g := load(t, "rmat:scale=10+perm=1")
	for _, name := range []string{"bfs", "sssp", "wcc"} {
		all := runPartitioned(t, sys, name, "exchange=all", g, graph.PartitionRange)
		vr := runPartitioned(t, sys, name, "exchange=vr-online", g, graph.PartitionRange)
		effAll, ok := summaryNumber(all, "communication_efficiency")
		require.True(t, ok)
		effVR, ok := summaryNumber(vr, "communication_efficiency")
		require.True(t, ok)
		assert.Equal(t, 1.0, effVR, name)
		assert.Less(t, effAll, 0.5, name)
		bytesAll, ok := summaryNumber(all, "bytes_busiest_link")
		require.True(t, ok)
		assert.Positive(t, bytesAll, name)
		busy, ok := summaryNumber(vr, "link_busy_ns")
		assert.True(t, ok && busy > 0, "%s: the modelled links report their busy time", name)
		for _, it := range vr.Iterations[:len(vr.Iterations)-1] {
			assert.Contains(t, it.Statistics, "exchange_ns", "iteration %d", it.Iteration)
		}
	}
}

// The vwc8 mapping runs the same sweeps as warp segmentation.
func TestPartitionedMappings(t *testing.T) {
	sys := openSimSystem(t, 2, sim.ModeFunctional)
	g := load(t, "rmat:scale=8,directed=1")
	for _, name := range []string{"bfs", "pr", "sswp"} {
		w := runPartitioned(t, sys, name, "mapping=wseg", g, graph.PartitionHash)
		v := runPartitioned(t, sys, name, "mapping=vwc8", g, graph.PartitionHash)
		if name != "pr" { // float sums in another order may take another sweep
			assert.Equal(t, len(w.Iterations), len(v.Iterations), name)
		}
	}
}

// A multi-device run needs a scheduler that runs partitioned graphs, and
// mgpu runs only the algorithms with a partitioned form.
func TestPartitionedRefusals(t *testing.T) {
	sys := openSimSystem(t, 2, sim.ModeFunctional)
	g := load(t, "grid:w=6,h=6")
	bfs, err := scheduler.LookupAlgorithm("bfs")
	require.NoError(t, err)
	bsp, err := scheduler.ParseVariant("bsp")
	require.NoError(t, err)
	_, err = scheduler.Enact(context.Background(), sys.Devices()[0], bfs, bsp, g, bfs.Select(scheduler.Params{}), scheduler.RunOptions{System: sys})
	require.Error(t, err)
	assert.Contains(t, err.Error(), string(scheduler.Partitioned))

	kcore, err := scheduler.LookupAlgorithm("kcore")
	require.NoError(t, err)
	mgpu, err := scheduler.ParseVariant("mgpu")
	require.NoError(t, err)
	_, err = scheduler.NewPlan(kcore, mgpu, kcore.Select(scheduler.Params{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no partitioned form")

	tiny := load(t, "grid:w=1,h=1")
	_, err = scheduler.Enact(context.Background(), sys.Devices()[0], bfs, mgpu, tiny, bfs.Select(scheduler.Params{}), scheduler.RunOptions{System: sys})
	require.Error(t, err, "two GPUs for one vertex")
}

// Hubs: vertices with more in-edges than the hub key have their edges
// split over warps in chunks of 1024 and combined atomically. A threshold
// of 4 makes hubs of many of a small graph's vertices (and a vertex of 3000
// in-edges spans three chunks); every algorithm still validates with every
// method, and BFS, level by level, takes the same sweeps as with no hubs
// (the others update in place, and the hubs' later pass changes the order).
func TestPartitionedHubs(t *testing.T) {
	var edges [][3]uint32
	for u := uint32(1); u < 3001; u++ {
		edges = append(edges, [3]uint32{u, 0, u%7 + 1})     // vertex 0: 3000 in-edges
		edges = append(edges, [3]uint32{u / 2, u, u%5 + 1}) // a binary tree from 0: few sweeps
	}
	wide := build(t, 3001, true, edges)
	graphs := []*graph.Graph{wide, load(t, "rmat:scale=9+perm=1"), load(t, "rmat:scale=8,directed=1")}
	for _, gpus := range []int{1, 2, 4} {
		sys := openSimSystem(t, gpus, sim.ModeFunctional)
		for gi, g := range graphs {
			for _, name := range []string{"bfs", "pr", "sssp", "sswp", "wcc"} {
				for _, ex := range []string{scheduler.ExchangeAll, scheduler.ExchangeRefineOnline} {
					t.Run(fmt.Sprintf("%d/%d/%s/%s", gpus, gi, name, ex), func(t *testing.T) {
						split := runPartitioned(t, sys, name, "hub=4,exchange="+ex, g, graph.PartitionRange)
						whole := runPartitioned(t, sys, name, "hub=0,exchange="+ex, g, graph.PartitionRange)
						if name == "bfs" {
							assert.Equal(t, len(whole.Iterations), len(split.Iterations))
						}
					})
				}
			}
		}
	}
}
