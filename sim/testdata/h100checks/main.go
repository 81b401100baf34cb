// Command h100checks runs testdata kernels of two simulator mechanisms on
// a real GPU (the hw backend) and on the simulated h100 (timing mode), and
// prints what each did on both:
//
//   - independent thread scheduling (sim/testdata/its.cu): the intra-warp
//     spin lock, the ballot after it and the handshake across a branch
//     complete on Volta and later;
//   - the non-coherent L1 (sim/testdata/coherence.cu, the bounded
//     kernels): a plain reread of data another SM published is stale
//     unless a GPU-scope fence precedes it, and a wait on another CTA's
//     flag through a plain load never sees the flag and ends by its spin
//     budget, while the volatile wait ends.
//
// It lives in testdata so that `go build ./...` and `go test ./...` skip
// it; build it here and run it on the GPU machine from the repository
// root (results/hopper-checks has the output):
//
//	CGO_ENABLED=1 go build -ldflags='-s -w' -o .device/h100checks ./sim/testdata/h100checks
//	./.device/h100checks
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
	its, coherence := module("its"), module("coherence")
	gpu, err := hw.Open(0)
	check(err)
	cfg, err := sim.ConfigByName("h100")
	check(err)
	simulated, err := sim.New(cfg, sim.WithMode(sim.ModeTiming))
	check(err)
	for _, d := range []kernels.Device{gpu, simulated} {
		fmt.Printf("%s:\n", d.Properties().Name)
		independentThreadScheduling(d, its, d == kernels.Device(simulated))
		nonCoherentL1(d, coherence, d == kernels.Device(simulated))
	}
}

// independentThreadScheduling runs its.cu's lock and handshake.
func independentThreadScheduling(d kernels.Device, kernel func(string) *kernels.Kernel, simulated bool) {
	for _, shape := range [][2]int{{3, 64}, {132, 256}} {
		grid, block := shape[0], shape[1]
		n := grid * block
		if simulated && n > 3*64 {
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

// nonCoherentL1 runs coherence.cu's bounded kernels on 2 CTAs of 32
// threads (thread 0 of each acts).
func nonCoherentL1(d kernels.Device, kernel func(string) *kernels.Kernel, simulated bool) {
	for _, name := range []string{"read_after_threadfence_bounded", "read_after_threadfence_block_bounded", "read_without_fence_bounded"} {
		data, flag, ready := alloc[uint32](d, 1), alloc[uint32](d, 1), alloc[uint32](d, 1)
		out, abort := alloc[uint32](d, 6), alloc[int32](d, 1)
		st := launch(d, kernel(name), 2, 32, data, flag, ready, out, int32(0), uint32(1<<20), abort)
		o := download[uint32](d, out, 6)
		fmt.Printf("  %s: first read %d, reread %d (stale: %v), SMs %d and %d, waits ended %v, aborted %v, %v\n",
			name, o[0], o[1], o[1] != 42, o[2], o[3], o[4] == 1 && o[5] == 1, download[int32](d, abort, 1)[0] != 0, st)
	}
	budgets := []uint32{1 << 16, 1 << 20}
	if simulated {
		budgets = budgets[:1] // a second per 10^5 polls of simulation
	}
	for _, name := range []string{"spin_on_plain_load_bounded", "spin_on_volatile_load_bounded"} {
		for _, budget := range budgets {
			flag, ready := alloc[uint32](d, 1), alloc[uint32](d, 1)
			out, abort := alloc[uint32](d, 3), alloc[int32](d, 1)
			st := launch(d, kernel(name), 2, 32, flag, ready, out, budget, abort)
			o := download[uint32](d, out, 3)
			fmt.Printf("  %s budget %d: writer set the flag %v, reader saw it %v after %d polls, aborted by the spin budget %v, %v\n",
				name, budget, o[2] == 1, o[0] == 1, o[1], download[int32](d, abort, 1)[0] != 0, st)
		}
	}
}

// module loads sim/testdata/NAME.ptx and returns its kernels by name.
func module(name string) func(string) *kernels.Kernel {
	src, err := os.ReadFile("sim/testdata/" + name + ".ptx")
	check(err)
	mod, err := kernels.ParseModule(name, src)
	check(err)
	return func(k string) *kernels.Kernel {
		for _, kk := range mod.Kernels {
			if kk.Name == k {
				return kk
			}
		}
		panic("no kernel " + k + " in " + name)
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

// alloc allocates n zeroed elements (the GPU's allocations are not zeroed).
func alloc[T kernels.Word](d kernels.Device, n int) kernels.DevPtr {
	p, err := kernels.AllocSlice[T](d, n)
	check(err)
	check(kernels.Upload(d, p, make([]T, n)))
	return p
}

func download[T kernels.Word](d kernels.Device, p kernels.DevPtr, n int) []T {
	out := make([]T, n)
	check(kernels.Download(d, out, p))
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "h100checks:", err)
		os.Exit(1)
	}
}
