package scheduler_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// segmentGraph is a directed graph whose in-edge lists stress warp
// segmentation: vertex 0 has no in-edges, vertex 1 has 99 (more than three
// 32-edge rounds), vertex 33 (lane 1 of the second group of 32) has 40,
// degrees 0..4 elsewhere put segment ends at every lane, so segments cross
// round boundaries and groups end mid-round, and vertices 64..99 (a chain)
// make BFS and SSSP take many sweeps.
func segmentGraph(t *testing.T) *graph.Graph {
	const n = 100
	var edges [][3]uint32
	add := func(u, v uint32) { edges = append(edges, [3]uint32{u, v, (u+v)%9 + 1}) }
	for u := uint32(0); u < n; u++ {
		if u != 1 {
			add(u, 1)
		}
	}
	for v := uint32(2); v < 64; v++ {
		if v == 33 {
			for i := uint32(0); i < 40; i++ {
				add((v*11+i*7)%n, v)
			}
			continue
		}
		for i := uint32(0); i < v%5; i++ {
			add((v*7+i*13)%n, v)
		}
	}
	add(1, 64)
	for v := uint32(65); v < n; v++ {
		add(v-1, v)
		for i := uint32(0); i < v%3; i++ {
			add((v*3+i*17)%64, v)
		}
	}
	return build(t, n, true, edges)
}

func TestPullMappingsHandleSegmentsAcrossRoundsAndEmptyVertices(t *testing.T) {
	g := segmentGraph(t)
	in := g.Reverse()
	require.Zero(t, in.OutDegree(0), "vertex 0 has no in-edges")
	require.Greater(t, in.OutDegree(1), 96, "vertex 1 spans more than three rounds")
	require.Equal(t, 40, in.OutDegree(33))
	dev := openSim(t, sim.ModeFunctional)
	variants := []string{"wseg", "vwc:k=2", "vwc:k=4", "vwc:k=8", "vwc:k=16", "vwc:k=32"}
	// One warp walking every group in turn (grid-stride), and a grid of
	// several warps.
	for _, ro := range []scheduler.RunOptions{{Block: 32, Grid: 1}, {Block: 64, Grid: 2}} {
		for _, name := range []string{"bfs", "pr", "sssp", "sswp", "wcc"} {
			for _, vname := range variants {
				t.Run(fmt.Sprintf("%s/%s/block%d", name, vname, ro.Block), func(t *testing.T) {
					a, err := scheduler.LookupAlgorithm(name)
					require.NoError(t, err)
					v, err := scheduler.ParseVariant(vname)
					require.NoError(t, err)
					res, err := scheduler.Enact(context.Background(), dev, a, v, g, a.Select(scheduler.Params{"source": 0}), ro)
					require.NoError(t, err)
					assert.True(t, res.Validation.OK(), res.Validation.String())
					for _, it := range res.Iterations {
						eff := it.Statistics["warp_execution_efficiency"]
						assert.True(t, eff > 0 && eff <= 1, "iteration %d: efficiency %v", it.Iteration, eff)
					}
				})
			}
		}
	}
}

// Warp segmentation keeps lanes busy where virtual warps cannot: on a
// scale-free graph a warp per vertex idles most lanes of low-degree
// vertices, and two lanes per vertex wait for the warp's largest vertex.
func TestWarpSegmentationIsMoreSIMDEfficientThanVirtualWarps(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "rmat:scale=9+perm=1")
	a, err := scheduler.LookupAlgorithm("sssp")
	require.NoError(t, err)
	efficiency := map[string]float64{}
	for _, name := range []string{"wseg", "vwc:k=2", "vwc:k=32"} {
		v, err := scheduler.ParseVariant(name)
		require.NoError(t, err)
		res, err := scheduler.Enact(context.Background(), dev, a, v, g, nil, scheduler.RunOptions{})
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		eff, ok := scheduler.WarpExecutionEfficiency(res.Total)
		require.True(t, ok, "the simulator counts thread- and warp-instructions")
		efficiency[name] = eff
		var summarised bool
		for _, f := range res.Summary {
			if f.Key == "warp_execution_efficiency" {
				summarised = true
				assert.InDelta(t, eff, *f.Number, 1e-9)
			}
		}
		assert.True(t, summarised, "the run reports its warp execution efficiency")
	}
	assert.Greater(t, efficiency["wseg"], 0.9, "segments fill the lanes of every round but a group's last")
	assert.Greater(t, efficiency["wseg"], efficiency["vwc:k=2"])
	assert.Greater(t, efficiency["wseg"], efficiency["vwc:k=32"])
}

func TestPullMappingsRefuseAlgorithmsWithoutAPullForm(t *testing.T) {
	for _, vname := range []string{"wseg", "vwc:k=4"} {
		v, err := scheduler.ParseVariant(vname)
		require.NoError(t, err)
		for name, why := range map[string]string{"kcore": "which kcore does not have", "bp": "bp runs in the own, classified form(s)"} {
			a, err := scheduler.LookupAlgorithm(name)
			require.NoError(t, err)
			err = scheduler.Supports(a, v)
			assert.ErrorContains(t, err, why, "%s under %s", name, vname)
		}
	}
	_, err := scheduler.ParseVariant("vwc:k=3")
	assert.ErrorContains(t, err, "use one of 2, 4, 8, 16, 32")
}

func TestWarpExecutionEfficiencyNeedsInstructionCounters(t *testing.T) {
	_, ok := scheduler.WarpExecutionEfficiency(kernels.LaunchStats{})
	assert.False(t, ok, "hardware reports no instruction counters")
	eff, ok := scheduler.WarpExecutionEfficiency(kernels.LaunchStats{Counters: map[string]float64{"thread_instructions": 48, "warp_instructions": 2}})
	assert.True(t, ok)
	assert.InDelta(t, 0.75, eff, 1e-12)
}
