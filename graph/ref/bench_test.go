package ref

import (
	"os"
	"sync"
	"testing"

	"github.com/warpgraph/warpgraph/graph"
)

// benchSpec is the benchmark graph: Graph500's R-MAT at scale 20 (1M
// vertices, 16M generated edges, about 30M stored after symmetrization,
// weights 1..64), the size the references must validate in seconds.
// WARPGRAPH_REF_BENCH_GRAPH overrides it, e.g. "rmat:scale=16" for a quick
// run.
const benchSpec = "rmat:scale=20"

// benchGraph is generated once per benchmark binary run and shared, so its
// cost (and its cached reverse CSR) is not charged to any benchmark.
var benchGraph = sync.OnceValues(func() (*graph.Graph, error) {
	spec := benchSpec
	if s := os.Getenv("WARPGRAPH_REF_BENCH_GRAPH"); s != "" {
		spec = s
	}
	g, err := graph.Load(spec, graph.LoadOptions{})
	if err != nil {
		return nil, err
	}
	g.Reverse()
	return g, nil
})

func loadBenchGraph(b *testing.B) *graph.Graph {
	b.Helper()
	g, err := benchGraph()
	if err != nil {
		b.Fatalf("benchmark graph: %v", err)
	}
	return g
}

// reportEdgeRate reports stored edges traversed per second, edges being
// the edges one operation visits.
func reportEdgeRate(b *testing.B, edges int) {
	b.ReportMetric(float64(edges)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

func BenchmarkBFS(b *testing.B) {
	g := loadBenchGraph(b)
	src := g.MaxDegreeVertex()
	b.ResetTimer()
	for b.Loop() {
		BFS(g, src)
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkSSSP(b *testing.B) {
	g := loadBenchGraph(b)
	src := g.MaxDegreeVertex()
	b.ResetTimer()
	for b.Loop() {
		if _, err := SSSP(g, src); err != nil {
			b.Fatal(err)
		}
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkSSWP(b *testing.B) {
	g := loadBenchGraph(b)
	src := g.MaxDegreeVertex()
	b.ResetTimer()
	for b.Loop() {
		SSWP(g, src)
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkPageRank(b *testing.B) {
	g := loadBenchGraph(b)
	b.ResetTimer()
	var sweeps int
	for b.Loop() {
		_, sweeps = PageRank(g)
	}
	b.ReportMetric(float64(sweeps), "sweeps")
	reportEdgeRate(b, g.NumEdges()*sweeps)
}

func BenchmarkWCC(b *testing.B) {
	g := loadBenchGraph(b)
	b.ResetTimer()
	for b.Loop() {
		WCC(g)
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkKCore(b *testing.B) {
	g := loadBenchGraph(b)
	b.ResetTimer()
	for b.Loop() {
		KCore(g)
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkGreedyColoring(b *testing.B) {
	g := loadBenchGraph(b)
	b.ResetTimer()
	for b.Loop() {
		GreedyColoring(g)
	}
	reportEdgeRate(b, g.NumEdges())
}

func BenchmarkBeliefPropagation(b *testing.B) {
	g := loadBenchGraph(b)
	b.ResetTimer()
	for b.Loop() {
		BeliefPropagation(g, 1)
	}
	reportEdgeRate(b, g.NumEdges()*BPIterations)
}

// BenchmarkValidateBFS measures what a driver pays to check one BFS result:
// the reference plus the comparison.
func BenchmarkValidateBFS(b *testing.B) {
	g := loadBenchGraph(b)
	src := g.MaxDegreeVertex()
	got := BFS(g, src)
	b.ResetTimer()
	for b.Loop() {
		if r := ValidateBFS(g, src, got); !r.OK() {
			b.Fatal(r.Err())
		}
	}
	reportEdgeRate(b, g.NumEdges())
}
