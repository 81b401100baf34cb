package sim

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/warpgraph/warpgraph/kernels"
)

// BenchmarkStreamFunctional1M runs the stream kernel with 1M threads
// (blocks of 256) on the simulated h100 in functional mode — the speed
// anchor of results/sim-speed — and reports the simulator's speed and memory:
//
//	thread-inst/s  thread-instructions per wall second
//	bytes/thread   peak Go heap during a launch minus the simulated global
//	               memory image, divided by the threads launched
//
// Run it on one core: go test -run '^$' -bench StreamFunctional -cpu 1 ./sim
func BenchmarkStreamFunctional1M(b *testing.B) {
	const n = 1 << 20
	const block = 256
	cfg, err := ConfigByName("h100")
	if err != nil {
		b.Fatal(err)
	}
	d, err := New(cfg, WithMode(ModeFunctional))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	k, err := kernels.Lookup("stream")
	if err != nil {
		b.Fatal(err)
	}
	a, bb := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], bb[i] = float32(i), float32(2*i)+0.5
	}
	pa, err := kernels.AllocCopy(d, a)
	if err != nil {
		b.Fatal(err)
	}
	pb, err := kernels.AllocCopy(d, bb)
	if err != nil {
		b.Fatal(err)
	}
	pc, err := kernels.AllocSlice[float32](d, n)
	if err != nil {
		b.Fatal(err)
	}
	lc := kernels.LaunchConfig{Grid: kernels.D1(n / block), Block: kernels.D1(block)}
	run := func() kernels.LaunchStats {
		st, err := d.Launch(context.Background(), k, lc, pa, pb, pc, uint32(n))
		if err != nil {
			b.Fatal(err)
		}
		return st
	}

	// Memory per simulated thread, measured on one launch with the
	// collector off, so the heap after the launch is its peak: everything
	// the launch allocated is still there.
	run() // load and prepare the module outside the measurement
	runtime.GC()
	old := debug.SetGCPercent(-1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	debug.SetGCPercent(old)
	peak := float64(after.HeapInuse)
	image := float64(d.MemoryBytes())
	bytesPerThread := (peak - image) / n

	c := make([]float32, n)
	if err := kernels.Download(d, c, pc); err != nil {
		b.Fatal(err)
	}
	for i := range c {
		if c[i] != a[i]+bb[i] {
			b.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+bb[i])
		}
	}

	var threadInsts float64
	b.ResetTimer()
	for b.Loop() {
		threadInsts += run().Counters["thread_instructions"]
	}
	b.ReportMetric(threadInsts/b.Elapsed().Seconds(), "thread-inst/s")
	b.ReportMetric(bytesPerThread, "bytes/thread")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "alloc-bytes/thread")
}

// BenchmarkStreamTiming1M runs the stream kernel with 1M threads (blocks of
// 256) on the simulated h100 in timing mode, once on akita's serial engine
// (the default) and once on its parallel engine, and reports the simulated
// cycles and the simulator's speed:
//
//	cycles/op      simulated cycles of the launch
//	ns/cycle       wall time per simulated cycle
//	thread-inst/s  thread-instructions per wall second
//	warp-inst/s    warp-instructions per wall second
//
// Every iteration launches on a fresh device, so the caches start cold as
// in the first launch of a program; building the device (the memory
// system's L2 directories dominate), copying the inputs and a one-CTA
// warm-up launch happen with the timer stopped.
//
//	go test -run '^$' -bench StreamTiming -benchtime 3x ./sim
func BenchmarkStreamTiming1M(b *testing.B) {
	for _, engine := range []struct {
		name     string
		parallel bool
	}{{"serial", false}, {"parallel", true}} {
		b.Run("engine="+engine.name, func(b *testing.B) { benchStreamTiming(b, WithParallelEngine(engine.parallel)) })
	}
}

func benchStreamTiming(b *testing.B, opts ...Option) {
	const n = 1 << 20
	const block = 256
	cfg, err := ConfigByName("h100")
	if err != nil {
		b.Fatal(err)
	}
	k, err := kernels.Lookup("stream")
	if err != nil {
		b.Fatal(err)
	}
	a, bb := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], bb[i] = float32(i), float32(2*i)+0.5
	}
	var threadInsts, warpInsts, cycles float64
	var d *Device
	var pc kernels.DevPtr
	for b.Loop() {
		b.StopTimer()
		if d != nil {
			d.Close()
		}
		d, err = New(cfg, append([]Option{WithMode(ModeTiming)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		pa, err := kernels.AllocCopy(d, a)
		if err != nil {
			b.Fatal(err)
		}
		pb, err := kernels.AllocCopy(d, bb)
		if err != nil {
			b.Fatal(err)
		}
		pc, err = kernels.AllocSlice[float32](d, n)
		if err != nil {
			b.Fatal(err)
		}
		// Builds the GPU and prepares the module; touches three lines.
		if _, err := d.Launch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, pa, pb, pc, uint32(32)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := d.Launch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(n / block), Block: kernels.D1(block)}, pa, pb, pc, uint32(n))
		if err != nil {
			b.Fatal(err)
		}
		threadInsts += st.Counters["thread_instructions"]
		warpInsts += st.Counters["warp_instructions"]
		cycles += float64(st.Cycles)
	}
	b.StopTimer()
	defer d.Close()
	c := make([]float32, n)
	if err := kernels.Download(d, c, pc); err != nil {
		b.Fatal(err)
	}
	for i := range c {
		if c[i] != a[i]+bb[i] {
			b.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+bb[i])
		}
	}
	b.ReportMetric(cycles/float64(b.N), "cycles/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/cycles, "ns/cycle")
	b.ReportMetric(threadInsts/b.Elapsed().Seconds(), "thread-inst/s")
	b.ReportMetric(warpInsts/b.Elapsed().Seconds(), "warp-inst/s")
	if st := d.LastStats(); st != nil {
		b.Logf("ipc %.2f per SM, occupancy %.2f, L1 hit %.2f, L2 hit %.2f, DRAM %d B read, %d B written",
			st.IPC, st.AchievedOccupancy, st.L1HitRate, st.L2HitRate, st.DRAMReadBytes, st.DRAMWriteBytes)
	}
}
