package micro

import (
	"context"
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/kernels"
)

// Stream runs the stream kernel (c[i] = a[i] + b[i]: two loads and one
// store per thread) on n elements and checks every output.
func Stream(ctx context.Context, dev kernels.Device, n, block int, p Params) (*Table, kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	k, err := kernels.Lookup("stream")
	if err != nil {
		return nil, stats, err
	}
	a := make([]float32, n)
	b := make([]float32, n)
	for i := range a {
		a[i] = float32(i) * 0.5
		b[i] = float32(n-i) * 0.25
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	da, err := kernels.Copy(mem, a)
	if err != nil {
		return nil, stats, err
	}
	db, err := kernels.Copy(mem, b)
	if err != nil {
		return nil, stats, err
	}
	// One guard word past the end catches an out-of-bounds store.
	dc, err := kernels.Slice[float32](mem, n+1)
	if err != nil {
		return nil, stats, err
	}
	guard := float32(math.Pi)
	if err := kernels.Upload(dev, dc+kernels.DevPtr(4*n), []float32{guard}); err != nil {
		return nil, stats, err
	}
	stats, err = dev.Launch(ctx, k, p.launch((n+block-1)/block, block), da, db, dc, uint32(n))
	if err != nil {
		return nil, stats, err
	}
	c := make([]float32, n+1)
	if err := kernels.Download(dev, c, dc); err != nil {
		return nil, stats, err
	}
	for i := 0; i < n; i++ {
		if want := a[i] + b[i]; c[i] != want {
			return nil, stats, fmt.Errorf("stream: c[%d] = %g, want %g", i, c[i], want)
		}
	}
	if c[n] != guard {
		return nil, stats, fmt.Errorf("stream: the word after c[%d] was overwritten", n-1)
	}
	t := &Table{Name: "stream", Device: dev.Properties().Name,
		Columns: []string{"elements", "block", "cost (" + costUnit(stats) + ")", "GB/s", "validated"}}
	gbps := "-"
	if stats.Elapsed > 0 {
		gbps = formatCell(float64(12*n) / stats.Elapsed.Seconds() / 1e9)
	}
	t.add(n, block, cost(stats), gbps, "all outputs exact")
	t.Notes = append(t.Notes, "12 bytes move per element (two 4-byte loads, one 4-byte store).")
	return t, stats, nil
}

// The stream's default sizes: a GPU needs a long kernel to time; a
// simulation of 16M elements would take minutes.
const (
	streamElementsHW  = 1 << 24
	streamElementsSim = 1 << 20
)

func streamBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "stream",
		Defaults: map[Setting]PerTarget{Elements: {HW: streamElementsHW, Sim: streamElementsSim}},
		Help:     map[Setting]string{Elements: "elements (0: 16M on hw, 1M in simulation)"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			t, _, err := Stream(ctx, dev, s.Elements, 256, s.timing())
			if err == nil && s.Defaulted(Elements) {
				// The defaults differ, so the tables say how to compare them.
				t.Notes = append(t.Notes, fmt.Sprintf("Default size: %d elements on hw, %d in simulation; the simulated L2 holds the smaller run, so compare a simulated table with a hardware one at the same --elements.", streamElementsHW, streamElementsSim))
			}
			return t, err
		},
	}
}
