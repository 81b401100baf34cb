package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

func atosTestDevice(t *testing.T, mode sim.Mode) *sim.Device {
	t.Helper()
	dev, err := sim.Open("tiny", sim.WithMode(mode))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

func atosEnact(t *testing.T, dev kernels.Device, algo, variant, spec string, ro RunOptions) (*Result, error) {
	t.Helper()
	return atosEnactWith(t, dev, algo, variant, spec, Params{SourceParam: 0}, ro)
}

// atosEnactWith is atosEnact with the algorithm's parameters.
func atosEnactWith(t *testing.T, dev kernels.Device, algo, variant, spec string, params Params, ro RunOptions) (*Result, error) {
	t.Helper()
	a, err := LookupAlgorithm(algo)
	require.NoError(t, err)
	v, err := ParseVariant(variant)
	require.NoError(t, err)
	g, err := graph.Load(spec, graph.LoadOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return Enact(ctx, dev, a, v, g, a.Select(params), ro)
}

// withKey adds key=value to a variant's spelling.
func withKey(variant, kv string) string {
	if strings.Contains(variant, ":") {
		return variant + "," + kv
	}
	return variant + ":" + kv
}

func summaryValue(t *testing.T, res *Result, key string) float64 {
	t.Helper()
	for _, f := range res.Summary {
		if f.Key == key && f.Number != nil {
			return *f.Number
		}
	}
	t.Fatalf("no %q in the summary %+v", key, res.Summary)
	return 0
}

// A queue too small for the run: with the capacity fixed it is an error
// naming the overflow, never a result; left to the scheduler, the queue
// grows, the run restarts, validates, and says so.
func TestAtosQueueOverflow(t *testing.T) {
	dev := atosTestDevice(t, sim.ModeFunctional)
	for _, variant := range []string{"atos", "atos:mode=discrete,worker=warp"} {
		_, err := atosEnact(t, dev, "bfs", withKey(variant, "capacity=16"), "rmat:scale=8+perm=1", RunOptions{Block: 64})
		var overflow *QueueOverflowError
		require.ErrorAs(t, err, &overflow, variant)
		assert.Equal(t, 16, overflow.Capacity)
		assert.Greater(t, overflow.Pushed, uint64(16))
		assert.ErrorContains(t, err, "atos:capacity=N")

		// One prelude pull (a pull fraction of 1), then residual push from
		// nearly every vertex.
		res, err := atosEnact(t, dev, "pr", withKey(variant, "pull=1"), "rmat:scale=8+perm=1", RunOptions{Block: 64})
		require.NoError(t, err, variant)
		assert.True(t, res.Validation.OK(), res.Validation.String())
		assert.Contains(t, res.Notes[len(res.Notes)-1], "overflowed", "PageRank's residual push outgrows the first queue of 4|V|")
		assert.Greater(t, summaryValue(t, res, "queue_pushes"), float64(4*256))
	}
	_, err := atosEnact(t, dev, "bfs", "atos:capacity=0", "rmat:scale=8+perm=1", RunOptions{Block: 64, Repeat: 1})
	require.NoError(t, err)
}

// Persistent workers must all be resident: a grid past the co-resident
// limit is refused before launch, with a LaunchResourceError.
func TestAtosPersistentGridOverTheCoResidentLimit(t *testing.T) {
	dev := atosTestDevice(t, sim.ModeFunctional)
	k, err := kernels.Lookup("bfs_atos_cta_persist")
	require.NoError(t, err)
	limit, err := CoResidentGrid(dev, k, 64, 0)
	require.NoError(t, err)
	_, err = atosEnact(t, dev, "bfs", "atos", "grid:w=8,h=8", RunOptions{Block: 64, Grid: limit + 1})
	assert.ErrorContains(t, err, "co-resident")
	var resource *kernels.LaunchResourceError
	assert.ErrorAs(t, err, &resource, "the device cannot hold the launch: exit status 7")
	res, err := atosEnact(t, dev, "bfs", "atos", "grid:w=8,h=8", RunOptions{Block: 64, Grid: limit})
	require.NoError(t, err)
	assert.True(t, res.Validation.OK())
}

// A termination that never comes (the pending count is one too high, as a
// worker that forgot to retire a task would leave it): the simulator
// diagnoses the spin in both modes when the budget is unbounded, and with
// a budget the run ends in a SpinBudgetError — never a hang or a result.
func TestAtosTerminationThatNeverComes(t *testing.T) {
	atos := schedulers["atos"]
	broken := *atos
	// the same entries (named by the scheduler), a Reset that loses a task
	broken.Reset = func(e *Enactment) error {
		if err := atosReset(e); err != nil {
			return err
		}
		st := e.State.(*atosState)
		e.Buffers.Upload(st.control+kernels.DevPtr(4*atosPending), rawBytes([]uint32{uint32(len(e.Problem.Start)) + 1}), "pending")
		return e.Buffers.Err()
	}
	v, err := ParseVariant("atos")
	require.NoError(t, err)
	v.Scheduler = &broken
	a, err := LookupAlgorithm("bfs")
	require.NoError(t, err)
	g, err := graph.Load("grid:w=6,h=6", graph.LoadOptions{})
	require.NoError(t, err)
	for _, mode := range []sim.Mode{sim.ModeFunctional, sim.ModeTiming} {
		dev := atosTestDevice(t, mode)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, err := Enact(ctx, dev, a, v, g, nil, RunOptions{Block: 64, Grid: 2})
		cancel()
		var deadlock *kernels.DeadlockError
		require.ErrorAs(t, err, &deadlock, "mode %v", mode)
		assert.Contains(t, deadlock.Error(), "bfs_atos_cta_persist")

		_, err = Enact(context.Background(), dev, a, v, g, nil, RunOptions{Block: 64, Grid: 2, SpinBudget: 5000})
		var budget *kernels.SpinBudgetError
		require.True(t, errors.As(err, &budget), "mode %v: %v", mode, err)
	}
}

// Overwork and queue statistics are reported for every run, and speculative
// BFS does at least the work of a level-synchronous one.
func TestAtosReportsOverworkAndQueueStatistics(t *testing.T) {
	dev := atosTestDevice(t, sim.ModeTiming)
	for _, variant := range []string{"atos", "atos:local=on", "atos:worker=warp", "atos:mode=discrete"} {
		res, err := atosEnact(t, dev, "bfs", variant, "rmat:scale=8+perm=1", RunOptions{})
		require.NoError(t, err)
		require.True(t, res.Validation.OK())
		assert.GreaterOrEqual(t, summaryValue(t, res, "overwork"), 1.0, variant)
		assert.Positive(t, summaryValue(t, res, "queue_pops"), variant)
		local := 0.0
		if variant == "atos:local=on" {
			local = summaryValue(t, res, "local_tasks")
			assert.Positive(t, local)
		}
		assert.Equal(t, summaryValue(t, res, "queue_pops"), summaryValue(t, res, "queue_pushes")+local+1, "%s: every task pushed or kept is run, plus the source", variant)
		if variant != "atos:mode=discrete" && summaryValue(t, res, "queue_pushes") > 0 {
			assert.Positive(t, summaryValue(t, res, "max_occupancy"), variant)
		}
	}
	res, err := atosEnact(t, dev, "color", "atos:worker=warp", "rmat:scale=8+perm=1", RunOptions{})
	require.NoError(t, err)
	require.True(t, res.Validation.OK())
	assert.GreaterOrEqual(t, summaryValue(t, res, "overwork"), 1.0)
	assert.Equal(t, summaryValue(t, res, "assignments"), summaryValue(t, res, "overwork")*256)
}

// Atos's PageRank pulls in bulk while the active vertices hold more than
// the pull fraction of the edges, queues exactly the vertices the last
// pull left active, and pushes from there without another pull; every
// worker kind validates, a larger fraction pulls less, and the prelude's
// edges count in the work done.
func TestAtosPageRankPullsThenPushes(t *testing.T) {
	dev := atosTestDevice(t, sim.ModeFunctional)
	g, err := graph.Load("rmat:scale=10+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	pulls := func(variant string, fraction float64) int {
		res, err := atosEnact(t, dev, "pr", withKey(variant, fmt.Sprintf("pull=%g", fraction)), "rmat:scale=10+perm=1", RunOptions{Warmup: 1, Repeat: 2})
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), "%s: %s", variant, res.Validation.String())
		var phases []string
		pulled, seeded := 0, -1
		for _, it := range res.Iterations {
			phases = append(phases, it.Phases)
			switch it.Phases {
			case "pull":
				require.Equal(t, -1, seeded, "%s: a pull after the tasks were queued: %v", variant, phases)
				pulled++
				seeded = -1
			case "seed":
				seeded = it.FrontierOut
				assert.Equal(t, res.Iterations[pulled-1].FrontierOut, seeded, "%s: the seed queues the last pull's active vertices", variant)
			}
		}
		require.Positive(t, pulled, "%s: %v", variant, phases)
		assert.Equal(t, "finish", phases[len(phases)-1])
		edges := summaryValue(t, res, "edges_walked")
		assert.GreaterOrEqual(t, edges, float64(pulled)*float64(g.NumEdges()), "%s: the pulls' edges are work done", variant)
		if seeded > 0 {
			assert.GreaterOrEqual(t, summaryValue(t, res, "queue_pops"), float64(seeded), "%s: every queued vertex runs", variant)
		}
		return pulled
	}
	base := pulls("atos", 0.3)
	for _, variant := range []string{"atos:local=on", "atos:worker=warp", "atos:mode=discrete", "atos:mode=discrete,worker=warp,fetch=8"} {
		pulls(variant, 0.3)
	}
	assert.Less(t, pulls("atos", 0.9), base, "a larger pull fraction pulls less")
}

// atosEnactParams runs a cell with the algorithm's parameters and
// requires it to validate.
func atosEnactParams(t *testing.T, dev kernels.Device, algo, variant, spec string, params Params) *Result {
	t.Helper()
	res, err := atosEnactWith(t, dev, algo, variant, spec, params, RunOptions{})
	require.NoError(t, err, "%s %s", algo, variant)
	require.True(t, res.Validation.OK(), "%s %s: %s", algo, variant, res.Validation.String())
	return res
}

// Buckets under the task queue: coreness peels each level with one
// drain of the queue after an admission pass, every vertex runs as a
// task exactly once (it leaves once), and a level at which no vertex
// leaves runs no workers; delta-stepping SSSP finds bsp's distances.
func TestAtosBuckets(t *testing.T) {
	dev := atosTestDevice(t, sim.ModeFunctional)
	for _, spec := range []string{"rmat:scale=9+perm=1", "grid:w=24,h=24"} {
		for _, variant := range []string{"atos", "atos:local=on,dedup=off", "atos:local=on,local_rounds=2", "atos:worker=warp", "atos:mode=discrete"} {
			res := atosEnactParams(t, dev, "coreness", variant, spec, Params{})
			levels := map[uint32]bool{}
			for _, c := range res.Values.Uint32 {
				levels[c] = true
			}
			drains, admissions := 0, 0
			for _, it := range res.Iterations {
				switch it.Phases {
				case "persist":
					drains++
				case "admit":
					admissions++
				}
			}
			if variant != "atos:mode=discrete" {
				assert.Equal(t, len(levels), drains, "%s %s: one drain per level at which vertices leave", spec, variant)
			}
			assert.GreaterOrEqual(t, admissions, len(levels), "%s %s", spec, variant)
			assert.Equal(t, float64(len(res.Values.Uint32)), summaryValue(t, res, "queue_pops"), "%s %s: every vertex runs once", spec, variant)
		}
	}
	spec := "rmat:scale=9+perm=1" // weighted 1..64
	want := atosEnactParams(t, dev, "sssp", "bsp", spec, Params{SourceParam: uint32(0), "delta": uint32(16)})
	for _, variant := range []string{"atos", "atos:local=on,dedup=off", "atos:mode=discrete,worker=warp"} {
		res := atosEnactParams(t, dev, "sssp", variant, spec, Params{SourceParam: uint32(0), "delta": uint32(16)})
		assert.Equal(t, want.Values.Uint32, res.Values.Uint32, variant)
		admissions := 0
		for _, it := range res.Iterations {
			if it.Phases == "admit" {
				admissions++
			}
		}
		assert.Greater(t, admissions, 1, "%s: the buckets were raised", variant)
	}
	// A fixed queue that a bucket outgrows is an error naming the
	// overflow: through the workers' pushes (the grid's wave from its
	// corners) or through the admission pass itself (er's isolated
	// vertices all leave at level 1).
	for _, spec := range []string{"grid:w=12,h=12", "er:n=256,m=16"} {
		for _, variant := range []string{"atos:capacity=8", "atos:mode=discrete,capacity=8"} {
			_, err := atosEnactWith(t, dev, "coreness", variant, spec, Params{}, RunOptions{})
			var overflow *QueueOverflowError
			require.ErrorAs(t, err, &overflow, "%s %s", spec, variant)
			assert.Equal(t, 8, overflow.Capacity, variant)
		}
	}
	a, err := LookupAlgorithm("coreness")
	require.NoError(t, err)
	v, err := ParseVariant("atos:local_rounds=8")
	require.NoError(t, err)
	assert.ErrorContains(t, atosSupports(a, v), "local_rounds=8 is for local=on")
}

// Persistent workers under launch=fit (the default) are as many as the
// graph's vertices could keep busy at once: vertices ÷ (fetch × workers a
// CTA) CTAs; launch=grid, and colouring's CTA workers, fill the device.
func TestAtosPersistentWorkersFitTheGraph(t *testing.T) {
	dev, err := sim.Open("h100", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	k, err := kernels.Lookup("bfs_atos_cta_persist")
	require.NoError(t, err)
	limit, err := CoResidentGrid(dev, k, 256, 0)
	require.NoError(t, err)
	const spec = "rmat:scale=12+perm=1" // 4,096 vertices
	for _, c := range []struct {
		algo, variant string
		ctas          int
	}{
		{"bfs", "atos", 4096 / 32},
		{"bfs", "atos:fetch=128", 4096 / 128},
		{"bfs", "atos:worker=warp", 4096 / (32 * 8)},
		{"sssp", "atos:worker=warp,fetch=128", 4096 / (128 * 8)},
		{"color", "atos:worker=warp", 4096 / (32 * 8)},
		{"bfs", "atos:launch=grid", limit},
		{"color", "atos", -1},
	} {
		rec := &launchGrids{Device: dev, grids: map[string][]int{}}
		res, err := atosEnact(t, rec, c.algo, c.variant, spec, RunOptions{Block: 256})
		require.NoError(t, err, c.variant)
		require.NoError(t, res.Validation.Err(), c.variant)
		var persist []int
		for name, grids := range rec.grids {
			if strings.HasSuffix(name, "_persist") {
				persist = append(persist, grids...)
				if c.ctas < 0 {
					k, err := kernels.Lookup(name)
					require.NoError(t, err)
					c.ctas, err = CoResidentGrid(dev, k, 256, 0)
					require.NoError(t, err)
				}
			}
		}
		require.Len(t, persist, 1, "%s %s: one persistent launch: %v", c.algo, c.variant, rec.grids)
		assert.Equal(t, c.ctas, persist[0], "%s %s", c.algo, c.variant)
	}
}
