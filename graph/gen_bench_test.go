package graph

import "testing"

// BenchmarkGenerateRMAT measures R-MAT generation end to end (edges drawn,
// CSR built, weights drawn) in generated edges per second.
func BenchmarkGenerateRMAT(b *testing.B) {
	p := DefaultRMAT(18)
	edges := float64(p.EdgeFactor << p.Scale)
	for b.Loop() {
		if _, err := p.Load(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(edges*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

// BenchmarkGenerateGrid measures the mesh generator in stored edges per
// second.
func BenchmarkGenerateGrid(b *testing.B) {
	p := Grid{Width: 2048, Height: 2048, Seed: 1, Weights: DefaultWeights}
	for b.Loop() {
		if _, err := p.Load(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.storedEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

// BenchmarkGenerateER measures G(n, m) generation in edges per second.
func BenchmarkGenerateER(b *testing.B) {
	p := ER{N: 1 << 18, M: 4 << 20, Seed: 1, Weights: DefaultWeights}
	for b.Loop() {
		if _, err := p.Load(nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.M)*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}

// BenchmarkComputeStats measures statistics, dominated by the BFS sweeps,
// in stored edges per second.
func BenchmarkComputeStats(b *testing.B) {
	g, err := DefaultRMAT(18).Load(nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ComputeStats(g)
	}
	b.ReportMetric(float64(g.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
