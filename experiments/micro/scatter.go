package micro

import (
	"context"
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// Scatter measures the rate of random returning atomics
// (kernels/scatter.cu, random_atomic_min): n atomicMin on table[idx[i]]
// with idx uniform over the table, each old value used, the index array
// streamed coalesced, on the co-resident grid (p.CTAs CTAs when above 1), for each table size in
// bytes. It is the relaxation of an asynchronous traversal (Atos pushes a
// neighbour when its atomicMin lowered the distance), where every edge
// step is one such atomic at a random vertex. Every table word is checked
// against the host's minimum. The table is warmed first, as random_gather's:
// on hardware by the warm-up launches over the same indices; in
// simulation by a launch over indices of another seed.
func Scatter(ctx context.Context, dev kernels.Device, tables []int, n int, p Params, simulated bool) (*Table, error) {
	t, err := perTable(ctx, dev, "random_atomic_min", "atomics", "every table word", tables, n, p.CTAs, func(k *kernels.Kernel, words, grid int) (kernels.LaunchStats, error) {
		return runScatter(ctx, dev, k, words, n, grid, p, simulated)
	})
	if err != nil {
		return nil, err
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Each atomic is an atomicMin on one random word of the table (uniform indices, seeded) whose old value the thread sums, after one word of the index array read in order; CTAs of %d threads (the grid column: the co-resident grid unless --ctas sets it), four atomics in flight per thread.", gatherBlock),
		"G atomics/s: atomics ÷ the launch's time (the median on hardware; in simulation cycles ÷ the configured SM clock). Every atomic goes to the L2 (or through it to DRAM); most leave the word as it was once the table is warm, as most relaxations of a long traversal do.",
		"Warmed first: on hardware by the warm-up launches over the same indices (the table keeps its minima: repeats offer the same keys), in simulation by one launch over indices of another seed.")
	return t, nil
}

// scatterKey is kernels/scatter.cu's scatter_key.
func scatterKey(i uint32) uint32 { return (i * 2654435761) ^ (i >> 7) }

func runScatter(ctx context.Context, dev kernels.Device, k *kernels.Kernel, words, n, grid int, p Params, simulated bool) (kernels.LaunchStats, error) {
	table := make([]uint32, words)
	for w := range table {
		table[w] = gatherWord(w)
	}
	want := append([]uint32(nil), table...)
	offer := func(idx []uint32) {
		for i, w := range idx {
			want[w] = min(want[w], scatterKey(uint32(i)))
		}
	}
	idx := gatherIndices(words, n, 1)
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	stats, dTable, _, err := launchOverTable(ctx, dev, mem, k, table, idx, grid, p, simulated)
	if err != nil {
		return stats, err
	}
	if simulated {
		offer(warmIndices(words, n))
	}
	offer(idx)
	got := make([]uint32, words)
	if err := kernels.Download(dev, got, dTable); err != nil {
		return stats, err
	}
	return stats, firstMismatch("random_atomic_min table", got, func(i int) uint32 { return want[i] })
}

func scatterBenchmark() *Benchmark {
	return tableBenchmark("random_atomic", "atomics", Scatter)
}
