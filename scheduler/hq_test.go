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

// enactHQ runs one algorithm under an hq variant with W w-queues and
// requires a validated result.
func enactHQ(t *testing.T, dev kernels.Device, algo, variant string, g *graph.Graph, w int, ro scheduler.RunOptions) *scheduler.Result {
	t.Helper()
	a, err := scheduler.LookupAlgorithm(algo)
	require.NoError(t, err)
	v, err := scheduler.ParseVariant(withKey(variant, fmt.Sprintf("queues=%d", w)))
	require.NoError(t, err)
	res, err := scheduler.Enact(context.Background(), dev, a, v, g, a.Select(scheduler.Params{"source": 0}), ro)
	require.NoError(t, err)
	require.True(t, res.Validation.OK(), res.Validation.String())
	return res
}

// hubGraph: vertex 0 points at `leaves` leaves (one level activates them
// all), every leaf at one of ten vertices, and those ten at a path of
// five.
func hubGraph(t *testing.T, leaves uint32) *graph.Graph {
	var edges [][3]uint32
	for v := uint32(1); v <= leaves; v++ {
		edges = append(edges, [3]uint32{0, v, 1}, [3]uint32{v, leaves + 1 + v%10, 1})
	}
	for v := leaves + 1; v < leaves+11; v++ {
		edges = append(edges, [3]uint32{v, leaves + 11, 1})
	}
	for v := leaves + 11; v < leaves+15; v++ {
		edges = append(edges, [3]uint32{v, v + 1, 1})
	}
	return build(t, int(leaves)+16, true, edges)
}

// One level activates 5000 vertices, spread evenly over the CTA's threads
// and so over the W w-queues (2048 entries together): every w-queue
// overflows into the b-queue (2048 entries), which overflows into the
// g-queue, and consolidating the full w-queues behind the full b-queue
// spills them too. Every vertex still arrives (the BFS validates), and the
// counts are exact: 5000 - W*floor(2048/W) inserts overflow the w-queues
// and 5000 - 2048 the b-queue (in a multi-CTA launch the w-queues go
// straight to the g-queue, so only the 904 inserts that found the b-queue
// full count there). The overflow sends the single CTA's output
// to the g-queue and the 5000-vertex level to a multi-CTA launch; the
// 10-vertex level after it fits a block and goes back to the single CTA.
func TestHQOverflowFallsDownTheHierarchy(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := hubGraph(t, 5000)
	local := []float64{1, 0, 1, 1, 1, 1, 1, 1}
	multi := []float64{0, 0, 0, 0, 0, 0, 0, 0}
	tests := []struct {
		variant      string
		w            int
		wOver, bOver float64
		modes        []float64 // single_cta per level
	}{
		{"hq", 8, 2952, 2952, local},
		{"hq:layout=naive", 8, 2952, 2952, local},
		{"hq", 1, 2952, 2952, local},
		{"hq", 32, 2952, 2952, local},
		{"hq:layout=naive", 5, 5000 - 5*409, 2952, local}, // five queues of 409 hold 2045
		{"hq:queue=bg", 8, 0, 2952, local},
		{"hq:local=off", 8, 2952, 2952 - 2048, multi}, // a multi-CTA flush sends the w-queues straight to the g-queue
		{"hq:queue=bg,local=off", 8, 0, 2952, multi},
		{"hq:queue=g", 8, 0, 0, multi},
		{"hq:local=round", 8, 2952, 2952, local},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/w=%d", tc.variant, tc.w), func(t *testing.T) {
			res := enactHQ(t, dev, "bfs", tc.variant, g, tc.w, scheduler.RunOptions{Block: 64})
			require.Len(t, res.Iterations, len(tc.modes))
			first := res.Iterations[0]
			assert.Equal(t, 1, first.FrontierIn)
			assert.Equal(t, 5000, first.FrontierOut)
			assert.Equal(t, tc.wOver, first.Statistics["w_overflows"])
			assert.Equal(t, tc.bOver, first.Statistics["b_overflows"])
			assert.Equal(t, tc.wOver+tc.bOver > 0, first.Overflow)
			for i, it := range res.Iterations {
				assert.Equal(t, tc.modes[i], it.Statistics["single_cta"], "level %d", i)
				if i > 1 {
					assert.Zero(t, it.Statistics["w_overflows"]+it.Statistics["b_overflows"], "level %d", i)
				}
			}
		})
	}
}

// A level that outputs 100 vertices fits the b-queue, so local=cta keeps
// the whole BFS in one CTA; local=round hands the 100 vertices (more than
// the 64 threads) to a multi-CTA launch and takes the 10 after them back.
func TestHQRoundHandsOverSooner(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := hubGraph(t, 100)
	for variant, modes := range map[string][]float64{
		"hq":             {1, 1, 1, 1, 1, 1, 1, 1},
		"hq:local=round": {1, 0, 1, 1, 1, 1, 1, 1},
	} {
		t.Run(variant, func(t *testing.T) {
			res := enactHQ(t, dev, "bfs", variant, g, 8, scheduler.RunOptions{Block: 64})
			require.Len(t, res.Iterations, len(modes))
			for i, it := range res.Iterations {
				assert.Equal(t, modes[i], it.Statistics["single_cta"], "level %d", i)
			}
			launches := 1
			if variant != "hq" {
				launches = 3
			}
			assert.Equal(t, launches, res.Launches)
		})
	}
}

// Every W from 1 to 32, with both layouts, gives the right BFS, SSSP and
// WCC; only the variant and W change.
func TestHQEveryWQueueCount(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "rmat:scale=9+perm=1")
	for w := 1; w <= 32; w++ {
		for _, variant := range []string{"hq", "hq:layout=naive,local=off"} {
			algo := []string{"bfs", "sssp", "wcc"}[w%3]
			t.Run(fmt.Sprintf("%s/%s/w=%d", algo, variant, w), func(t *testing.T) {
				res := enactHQ(t, dev, algo, variant, g, w, scheduler.RunOptions{Block: 64})
				assert.NotEmpty(t, res.Iterations)
			})
		}
	}
}

// With a power-of-two W the naive layout puts the slots that a warp's
// lanes fill together a multiple of 32 words apart (one bank); the
// interleaved layout spreads them. The simulator counts the difference.
func TestHQInterleavedLayoutHasFewerBankConflicts(t *testing.T) {
	if testing.Short() {
		t.Skip("timing-mode BFS runs skipped in -short mode")
	}
	dev := openSim(t, sim.ModeTiming)
	g := load(t, "regular:n=4096,d=8,w=none")
	for _, w := range []int{8, 32} {
		t.Run(fmt.Sprintf("w=%d", w), func(t *testing.T) {
			conflicts := map[string]float64{}
			for _, layout := range []string{"naive", "interleaved"} {
				res := enactHQ(t, dev, "bfs", "hq:local=off,layout="+layout, g, w, scheduler.RunOptions{})
				conflicts[layout] = res.Total.Counters["bank_conflicts"]
			}
			t.Logf("W=%d: bank conflicts naive %.0f, interleaved %.0f", w, conflicts["naive"], conflicts["interleaved"])
			assert.Less(t, conflicts["interleaved"], conflicts["naive"]/2)
		})
	}
}

func TestHQRejectsWhatItCannotRun(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "grid:w=4,h=4")
	v, err := scheduler.ParseVariant("hq")
	require.NoError(t, err)
	pr, err := scheduler.LookupAlgorithm("pr")
	require.NoError(t, err)
	_, err = scheduler.Enact(context.Background(), dev, pr, v, g, nil, scheduler.RunOptions{})
	assert.ErrorContains(t, err, "pr aggregates")
	for _, w := range []string{"-1", "0", "33", "2.5", "NaN"} {
		_, err = scheduler.ParseVariant("hq:queues=" + w)
		assert.ErrorContains(t, err, "use a whole number in [1, 32]", "W=%s", w)
	}
	_, err = scheduler.ParseVariant("hq:layout=diagonal")
	assert.ErrorContains(t, err, "use one of interleaved, naive")
}
