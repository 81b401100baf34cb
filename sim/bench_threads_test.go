package sim

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// BenchmarkThreads runs one cell (BenchmarkBFS's: WG_BENCH_GRAPH,
// WG_BENCH_ALGO and WG_BENCH_VARIANT, default BFS under bsp, here on
// rmat:scale=14+perm=1) in timing mode on the h100 configuration (or
// WG_BENCH_CONFIG) on the serial engine and on the window engine with each
// thread count of WG_BENCH_THREADS (default "1,2"), a fresh device per
// iteration; WG_BENCH_GRID forces the grid as run's --grid does. Compare the window engine's ns/op across thread counts for
// its speed-up; its cycles/op are the same for every count.
//
//	go test -run '^$' -bench Threads -benchtime 3x ./sim
func BenchmarkThreads(b *testing.B) {
	spec := os.Getenv("WG_BENCH_GRAPH")
	if spec == "" {
		spec = "rmat:scale=14+perm=1"
	}
	g, err := graph.Load(spec, graph.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	a, v := schedulerCell(b, benchAlgo(), benchVariant())
	name := os.Getenv("WG_BENCH_CONFIG")
	if name == "" {
		name = "h100"
	}
	cfg, err := ConfigByName(name)
	if err != nil {
		b.Fatal(err)
	}
	var ro scheduler.RunOptions
	if s := os.Getenv("WG_BENCH_GRID"); s != "" {
		if ro.Grid, err = strconv.Atoi(s); err != nil {
			b.Fatalf("WG_BENCH_GRID %q: %v", s, err)
		}
	}
	counts := []int{-1}
	list := os.Getenv("WG_BENCH_THREADS")
	if list == "" {
		list = "1,2"
	}
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("WG_BENCH_THREADS %q: %v", list, err)
		}
		counts = append(counts, n)
	}
	for _, n := range counts {
		label := fmt.Sprintf("threads=%d", n)
		var opts []Option
		if n < 0 {
			label = "serial"
		} else {
			opts = append(opts, WithThreads(n))
		}
		b.Run(label, func(b *testing.B) {
			var cycles float64
			for b.Loop() {
				b.StopTimer()
				d, err := New(cfg, opts...)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				res, err := scheduler.Enact(context.Background(), d, a, v, g, nil, ro)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if !res.Validation.OK() {
					b.Fatal(res.Validation.String())
				}
				cycles += float64(res.Total.Cycles)
				d.Close()
				b.StartTimer()
			}
			b.ReportMetric(cycles/float64(b.N), "cycles/op")
		})
	}
}
