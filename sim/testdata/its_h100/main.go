// Command its_h100 runs the independent-thread-scheduling kernels of
// sim/testdata/its.cu on a real GPU (the hw backend) and on the simulated
// h100, and checks the same results on both: the intra-warp spin lock,
// the ballot after it and the handshake across a branch complete on Volta
// and later. It lives in testdata so that `go build ./...` and `go test
// ./...` skip it; run it on the GPU machine from the repository root:
//
//	go run ./sim/testdata/its_h100
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

func main() {
	src, err := os.ReadFile("sim/testdata/its.ptx")
	check(err)
	mod, err := kernels.ParseModule("its", src)
	check(err)
	kernel := func(name string) *kernels.Kernel {
		for _, k := range mod.Kernels {
			if k.Name == name {
				return k
			}
		}
		panic("no kernel " + name)
	}
	gpu, err := hw.Open(0)
	check(err)
	cfg, err := sim.ConfigByName("h100")
	check(err)
	simulated, err := sim.New(cfg, sim.WithMode(sim.ModeTiming))
	check(err)
	for _, d := range []kernels.Device{gpu, simulated} {
		fmt.Printf("%s:\n", d.Properties().Name)
		for _, shape := range [][2]int{{3, 64}, {132, 256}} {
			grid, block := shape[0], shape[1]
			n := grid * block
			if d == kernels.Device(simulated) && n > 3*64 {
				continue // seconds of simulation per thousand lock hand-offs
			}
			lock, count := alloc[uint32](d, 1), alloc[uint32](d, 1)
			order := alloc[uint32](d, n)
			st := launch(d, kernel("lock_intra_warp"), grid, block, lock, count, order)
			got := download[uint32](d, order, n)
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			ok := download[uint32](d, count, 1)[0] == uint32(n)
			for i, c := range got {
				ok = ok && c == uint32(i+1)
			}
			fmt.Printf("  lock_intra_warp %dx%d: completed, mutual exclusion %v, %v\n", grid, block, ok, st)
		}
		flags, out := alloc[uint32](d, 64), alloc[uint32](d, 64)
		launch(d, kernel("handshake"), 1, 64, flags, out)
		hs := download[uint32](d, out, 64)
		ok := true
		for l, v := range hs {
			ok = ok && v == uint32(l^1)+1
		}
		fmt.Printf("  handshake 1x64: completed, results %v\n", ok)
	}
}

func launch(d kernels.Device, k *kernels.Kernel, grid, block int, args ...any) string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
	check(err)
	if st.Cycles > 0 {
		return fmt.Sprintf("%d simulated cycles", st.Cycles)
	}
	return fmt.Sprintf("%v", st.Elapsed)
}

func alloc[T kernels.Word](d kernels.Device, n int) kernels.DevPtr {
	p, err := kernels.AllocSlice[T](d, n)
	check(err)
	return p
}

func download[T kernels.Word](d kernels.Device, p kernels.DevPtr, n int) []T {
	out := make([]T, n)
	check(kernels.Download(d, out, p))
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "its_h100:", err)
		os.Exit(1)
	}
}
