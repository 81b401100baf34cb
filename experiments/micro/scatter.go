package micro

import (
	"context"
	"fmt"
	"math/rand/v2"

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
	return scatterOver(ctx, dev, k, words, gatherIndices(words, n, 1), warmIndices(words, n), grid, p, simulated)
}

// scatterOver launches random_atomic_min over idx on a table of words
// (in simulation after a launch over warm) and checks every table word
// against the host's minimum.
func scatterOver(ctx context.Context, dev kernels.Device, k *kernels.Kernel, words int, idx, warm []uint32, grid int, p Params, simulated bool) (kernels.LaunchStats, error) {
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
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	stats, dTable, _, err := launchOverTable(ctx, dev, mem, k, table, idx, warm, grid, p, simulated)
	if err != nil {
		return stats, err
	}
	if simulated {
		offer(warm)
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

// LinePairs measures random returning atomics confined to two lines of
// the L2: the line base bytes into a table (the first line) and the line
// offset bytes after it (offset 0: the first line alone), for each
// offset: n atomicMin spread uniformly over the two lines' words, on the
// co-resident grid (p.CTAs CTAs when above 1). Where the two lines share
// the unit that serves atomics (a slice of the L2), the pair runs at one
// unit's rate, as the first line alone does; on two units at up to twice
// that: the offsets at which the rate halves map the address-to-slice
// hash around the first line. Every table word is checked.
func LinePairs(ctx context.Context, dev kernels.Device, base int, offsets []int, n int, p Params, simulated bool) (*Table, error) {
	k, err := kernels.Lookup("random_atomic_min")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, settingError("atomic_line_pairs: %d atomics: at least 1", n)
	}
	if base < 0 || base%pairLineBytes != 0 || base > maxPairOffset {
		return nil, settingError("--base %d: a multiple of %d bytes from 0 to %d", base, pairLineBytes, maxPairOffset)
	}
	grid, err := tableGrid(dev, k, p.CTAs, "atomic_line_pairs")
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "atomic_line_pairs", Device: dev.Properties().Name,
		Columns: []string{"offset (B)", "atomics", "grid", "cost", "G atomics/s", "validated"}}
	for _, off := range offsets {
		if off < 0 || off%pairLineBytes != 0 || off > maxPairOffset {
			return nil, settingError("--offsets %d: each offset must be a multiple of %d bytes from 0 to %d", off, pairLineBytes, maxPairOffset)
		}
		words := (base + off + pairLineBytes) / 4
		stats, err := scatterOver(ctx, dev, k, words, pairIndices(base, off, n, 1), pairIndices(base, off, n, 2), grid, p, simulated)
		if err != nil {
			return nil, fmt.Errorf("atomic_line_pairs offset %d: %w", off, err)
		}
		t.add(off, n, grid, cost(stats)+" "+costUnit(stats), ratePerSecond(dev, stats, n), "every table word")
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Each atomic is an atomicMin on a random word of the first line (%d bytes into the table) or of the line the offset names past it (each with probability 1/2; offset 0: the first line only), the old value summed by the thread; the same kernel as random_atomic, CTAs of %d threads, four atomics in flight per thread.", base, gatherBlock),
		"Two lines served by one L2 slice run at that slice's rate, as one line does; on two slices up to twice as fast.")
	return t, nil
}

// The line and the farthest offset of atomic_line_pairs.
const (
	pairLineBytes = 128
	maxPairOffset = 64 << 20
)

// pairIndices are n word indices, each uniform over the words of the
// line base bytes in or (with probability 1/2, when off > 0) of the line
// off bytes past it, from seed.
func pairIndices(base, off, n int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, uint64(base)<<32|uint64(off)))
	const lineWords = pairLineBytes / 4
	idx := make([]uint32, n)
	for i := range idx {
		w := uint32(base/4 + r.IntN(lineWords))
		if off > 0 && r.IntN(2) == 1 {
			w += uint32(off / 4)
		}
		idx[i] = w
	}
	return idx
}

// defaultPairOffsets are line 0 alone and every line of the next 16 KB.
func defaultPairOffsets() []int {
	offs := []int{0}
	for off := pairLineBytes; off <= 16<<10; off += pairLineBytes {
		offs = append(offs, off)
	}
	return offs
}

func linePairsBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "atomic_line_pairs",
		Defaults: map[Setting]PerTarget{Elements: {HW: 1 << 20, Sim: 1 << 18}},
		Help: map[Setting]string{Elements: "atomics per offset (0: 1M on hw, 256K in simulation)",
			Offsets: "byte offsets of the second line past the first, multiples of 128 (default 0 and every line up to 16 KB)",
			Base:    "byte offset of the first line in the table, a multiple of 128 (default 0)",
			CTAs:    "CTAs of 256 threads (0 or 1: the co-resident grid)"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			offsets := s.Offsets
			if len(offsets) == 0 {
				offsets = defaultPairOffsets()
			}
			p := s.timing()
			p.CTAs = s.CTAs
			return LinePairs(ctx, dev, s.Base, offsets, s.Elements, p, s.Simulated)
		},
	}
}
