package sim

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// TestThreadsGiveTheSameFigures runs the kernel cases of
// TestParallelEngineMatchesSerial on the window engine (WithThreads) with
// 1, 2 and 3 threads (run it with -race): memory, cycles and errors
// (deadlock diagnoses included) must be the same for every thread count.
// Against the serial engine, a model of its own, the memory each case
// checks must be the same (the cases' results do not depend on the order
// of racing warps, and the window engine applies values in the serial
// engine's order of issue), and the cycles close (engineSlack).
func TestThreadsGiveTheSameFigures(t *testing.T) {
	for _, tc := range engineCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			serial := tc.run(t, tinyDevice(t, WithMode(ModeTiming)))
			var first engineRun
			for i, n := range []int{1, 2, 3} {
				d := tinyDevice(t, WithThreads(n))
				got := tc.run(t, d)
				require.Zero(t, d.gpu.Memory().LateCrossings(), "messages due inside the window they were sent in")
				if i == 0 {
					first = got
					continue
				}
				assert.Equal(t, first.memory, got.memory, "%d threads", n)
				assert.Equal(t, first.cycles, got.cycles, "%d threads", n)
				if first.err == nil {
					assert.NoError(t, got.err, "%d threads", n)
				} else {
					require.Error(t, got.err, "%d threads", n)
					assert.Equal(t, first.err.Error(), got.err.Error(), "%d threads", n)
				}
			}
			assert.Equal(t, serial.memory, first.memory)
			var sd, wd *kernels.DeadlockError
			if errors.As(serial.err, &sd) {
				require.ErrorAs(t, first.err, &wd)
				assert.Equal(t, sd.Kernel, wd.Kernel)
				assert.Contains(t, wd.Detail, "deadlock window")
			} else {
				require.NoError(t, serial.err)
				require.NoError(t, first.err)
			}
			require.Positive(t, serial.cycles)
			assert.InEpsilon(t, float64(serial.cycles), float64(first.cycles), engineSlack,
				"serial %d cycles, window engine %d", serial.cycles, first.cycles)
			t.Logf("serial %d cycles, window engine %d (%+.3f%%)", serial.cycles, first.cycles,
				100*(float64(first.cycles)/float64(serial.cycles)-1))
		})
	}
}

// TestThreadsRunSchedulers runs BFS, SSSP, WCC and PageRank under the bsp
// scheduler on a small graph on the window engine with 1 and 3 threads (run
// it with -race): every result validates, and the figures of the two are
// the same.
func TestThreadsRunSchedulers(t *testing.T) {
	g, err := graph.Load("rmat:scale=8+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	for _, algo := range []string{"bfs", "sssp", "wcc", "pr"} {
		t.Run(algo, func(t *testing.T) {
			a, v := schedulerCell(t, algo, "bsp")
			var cycles []uint64
			var counters []map[string]float64
			for _, n := range []int{1, 3} {
				d := tinyDevice(t, WithThreads(n))
				res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, scheduler.RunOptions{})
				require.NoError(t, err)
				require.True(t, res.Validation.OK(), res.Validation.String())
				cycles = append(cycles, res.Total.Cycles)
				counters = append(counters, res.Total.Counters)
			}
			assert.Equal(t, cycles[0], cycles[1])
			assert.Equal(t, counters[0], counters[1])
		})
	}
}

// TestThreadsGiveTheSameProfiles profiles the kernel cases of
// TestThreadsGiveTheSameFigures, the spins of sim/testdata/progress.cu and
// BFS under Atos (racy) and bsp on a small graph on the window engine with
// 1, 2 and 3 threads (run it with -race): every profile is the same, and
// its cycles add up.
func TestThreadsGiveTheSameProfiles(t *testing.T) {
	type profiled struct {
		name string
		run  func(t *testing.T, d *Device)
	}
	var cases []profiled
	for _, tc := range engineCases(t) {
		cases = append(cases, profiled{tc.name, func(t *testing.T, d *Device) { tc.run(t, d) }})
	}
	for _, tc := range spinCases() {
		cases = append(cases, profiled{"spin/" + tc.name, func(t *testing.T, d *Device) {
			_, err := launchWith(t, d, progressKernel(t, tc.kernel), tc.grid, 64, tc.args(t, d)...)
			var dl *kernels.DeadlockError
			require.ErrorAs(t, err, &dl)
		}})
	}
	g, err := graph.Load("rmat:scale=8+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	for _, variant := range []string{"atos", "bsp"} {
		cases = append(cases, profiled{"bfs/" + variant, func(t *testing.T, d *Device) {
			a, v := schedulerCell(t, "bfs", variant)
			res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, scheduler.RunOptions{})
			require.NoError(t, err)
			require.True(t, res.Validation.OK(), res.Validation.String())
		}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var first *ProfileReport
			for _, n := range []int{1, 2, 3} {
				d := tinyDevice(t, WithThreads(n), WithProfile())
				tc.run(t, d)
				r := d.Profile().Report()
				checkReport(t, r)
				require.Positive(t, r.WarpCycles)
				if first == nil {
					first = r
					continue
				}
				assert.Equal(t, first, r, "%d threads", n)
			}
		})
	}
}

// TestFunctionalThreadsRunSchedulers runs racy and bulk-synchronous
// cells in functional mode with 1 and 3 threads (run it with -race):
// every result validates and the counts (instructions, iterations) are
// the same.
func TestFunctionalThreadsRunSchedulers(t *testing.T) {
	g, err := graph.Load("rmat:scale=9+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	for _, cell := range [][2]string{{"bfs", "atos"}, {"sssp", "atos"}, {"bfs", "simdx:fusion=all"}, {"wcc", "bsp"}, {"pr", "simdx"}} {
		t.Run(cell[0]+"/"+cell[1], func(t *testing.T) {
			a, v := schedulerCell(t, cell[0], cell[1])
			var counters []map[string]float64
			var iterations []int
			for _, n := range []int{1, 3} {
				d := tinyDevice(t, WithMode(ModeFunctional), WithThreads(n))
				res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, scheduler.RunOptions{})
				require.NoError(t, err)
				require.True(t, res.Validation.OK(), res.Validation.String())
				counters = append(counters, res.Total.Counters)
				iterations = append(iterations, len(res.Iterations))
			}
			require.Positive(t, counters[0]["warp_instructions"])
			assert.Equal(t, counters[0], counters[1])
			assert.Equal(t, iterations[0], iterations[1])
		})
	}
}

// TestThreadsRefuse checks that New refuses what the window engine does not
// support yet, with a *timing.UnsupportedError.
func TestThreadsRefuse(t *testing.T) {
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	akita := cfg
	akita.Memory.L2Model = "akita_writeback"
	for _, tc := range []struct {
		name string
		cfg  Config
		opts []Option
	}{
		{"akita's parallel engine", cfg, []Option{WithParallelEngine(true)}},
		{"akita's L2", akita, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg, append(tc.opts, WithThreads(2))...)
			var u *timing.UnsupportedError
			require.ErrorAs(t, err, &u)
		})
	}
}

// TestDevicesShareParsesConcurrently runs one cell on four Devices at once
// (two timing, two functional), as a sweep's jobs do: they share the
// module's parse (parsedModules), which none may change (run it with
// -race), and each validates with the same counters as its twin.
func TestDevicesShareParsesConcurrently(t *testing.T) {
	g, err := graph.Load("rmat:scale=9+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	a, v := schedulerCell(t, "bfs", "bsp")
	modes := []Mode{ModeTiming, ModeFunctional, ModeTiming, ModeFunctional}
	devs := make([]*Device, len(modes))
	for i, m := range modes {
		devs[i] = tinyDevice(t, WithMode(m))
	}
	results := make([]*scheduler.Result, len(modes))
	errs := make([]error, len(modes))
	var wg sync.WaitGroup
	for i := range modes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = scheduler.Enact(context.Background(), devs[i], a, v, g, nil, scheduler.RunOptions{})
		}()
	}
	wg.Wait()
	for i := range modes {
		require.NoError(t, errs[i])
		require.True(t, results[i].Validation.OK(), results[i].Validation.String())
		require.Positive(t, results[i].Total.Counters["warp_instructions"])
	}
	assert.Equal(t, results[0].Total.Counters, results[2].Total.Counters)
	assert.Equal(t, results[1].Total.Counters, results[3].Total.Counters)
}
