package sim

import (
	"context"
	"os"
	"testing"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// BenchmarkBFS runs BFS under the bsp scheduler on rmat:scale=16+perm=1
// (from the vertex of maximum out-degree, as the command line does; blocks of 256) on the simulated h100, in functional and in
// timing mode, the pair issue 11 (item 11, "cost follows events") measures
// timing mode's cost against:
//
//	cycles/op      simulated cycles of the run's launches (timing)
//	warp-inst/s    warp-instructions per wall second
//
// Every iteration enacts on a fresh device, created with the timer stopped
// (the timing model's GPU, built at the first launch, is timed: some 40
// ms); the graph is generated once. The CPU reference check is timed in
// both modes. WG_BENCH_GRAPH names another graph (a spec or a file) and
// WG_BENCH_VARIANT another scheduler variant and WG_BENCH_ALGO another
// algorithm, to profile other cells.
//
//	go test -run '^$' -bench 'BFS|Stream' ./sim
func BenchmarkBFS(b *testing.B) {
	g, err := graph.Load(benchGraph(), graph.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a, v := schedulerCell(b, benchAlgo(), benchVariant())
	cfg, err := ConfigByName("h100")
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		mode Mode
	}{{"functional", ModeFunctional}, {"timing", ModeTiming}} {
		b.Run("mode="+mode.name, func(b *testing.B) {
			var cycles, warpInsts float64
			for b.Loop() {
				b.StopTimer()
				d, err := New(cfg, WithMode(mode.mode))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, scheduler.RunOptions{})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if !res.Validation.OK() {
					b.Fatal(res.Validation.String())
				}
				cycles += float64(res.Total.Cycles)
				warpInsts += res.Total.Counters["warp_instructions"]
				d.Close()
				b.StartTimer()
			}
			b.ReportMetric(cycles/float64(b.N), "cycles/op")
			b.ReportMetric(warpInsts/b.Elapsed().Seconds(), "warp-inst/s")
		})
	}
}

// benchGraph is BenchmarkBFS's graph: WG_BENCH_GRAPH, or rmat:scale=16+perm=1.
func benchGraph() string {
	if s := os.Getenv("WG_BENCH_GRAPH"); s != "" {
		return s
	}
	return "rmat:scale=16+perm=1"
}

// benchAlgo is BenchmarkBFS's algorithm: WG_BENCH_ALGO, or bfs.
func benchAlgo() string {
	if s := os.Getenv("WG_BENCH_ALGO"); s != "" {
		return s
	}
	return "bfs"
}

// benchVariant is BenchmarkBFS's scheduler variant: WG_BENCH_VARIANT, or bsp.
func benchVariant() string {
	if s := os.Getenv("WG_BENCH_VARIANT"); s != "" {
		return s
	}
	return "bsp"
}
