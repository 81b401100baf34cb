package micro

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/warpgraph/warpgraph/kernels"
)

// GatherTableBytes are random_gather's table sizes: 128 KB fits an SM's
// L1; 4 MB (rmat20's per-vertex floats) and 16 MB fit the L2 of the
// large GPUs; 64 MB and 256 MB exceed the H100's 50 MB L2, so most gathers
// go to DRAM.
var GatherTableBytes = []int{128 << 10, 4 << 20, 16 << 20, 64 << 20, 256 << 20}

// gatherBlock is random_gather's CTA size.
const gatherBlock = 256

// Gather measures the rate of random 4-byte gathers (kernels/gather.cu,
// random_gather): n gathers table[idx[i]] with idx uniform over the table,
// the index array streamed coalesced, on the co-resident grid (p.CTAs CTAs when above 1), for each
// table size in bytes. It is the inner loop of a pull over in-edges whose
// sources have random ids, so a pull's time is at least its gathers ÷ the
// rate at its table size. Every thread's sum is checked against the
// host's. The table is warmed first: on hardware by the warm-up launches
// over the same indices; in simulation (one timed launch) by a launch over
// indices drawn from another seed, so that the timed gathers find what a
// long run leaves in the caches, not their own earlier fills.
func Gather(ctx context.Context, dev kernels.Device, tables []int, n int, p Params, simulated bool) (*Table, error) {
	t, err := perTable(ctx, dev, "random_gather", "gathers", "every thread's sum", tables, n, p.CTAs, func(k *kernels.Kernel, words, grid int) (kernels.LaunchStats, error) {
		return runGather(ctx, dev, k, words, n, grid, p, simulated)
	})
	if err != nil {
		return nil, err
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Each gather reads one random word of the table (uniform indices, seeded) and one word of the index array in order; CTAs of %d threads (the grid column: the co-resident grid unless --ctas sets it), four gathers in flight per thread.", gatherBlock),
		"G gathers/s: gathers ÷ the launch's time (the median on hardware; in simulation cycles ÷ the configured SM clock). A gather that misses L1 costs one 32-byte sector from L2 or DRAM.",
		"Warmed first: on hardware by the warm-up launches over the same indices, in simulation by one launch over indices of another seed.")
	return t, nil
}

// perTable runs kernel name (ctas CTAs of gatherBlock threads; 0 or 1:
// the co-resident grid) once per table size in bytes through run, which
// makes n operations (gathers, atomics: what) on a table of words and
// checks (checked says what), and tabulates each size's rate.
func perTable(ctx context.Context, dev kernels.Device, name, what, checked string, tables []int, n, ctas int,
	run func(k *kernels.Kernel, words, grid int) (kernels.LaunchStats, error)) (*Table, error) {
	k, err := kernels.Lookup(name)
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, settingError("%s: %d %s: at least 1", name, n, what)
	}
	props := dev.Properties()
	grid, err := tableGrid(dev, k, ctas, name)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name, Device: props.Name,
		Columns: []string{"table (KB)", what, "grid", "cost", "G " + what + "/s", "index GB/s", "validated"}}
	for _, bytes := range tables {
		words := bytes / 4
		if words < 1 {
			return nil, fmt.Errorf("%s: a table of %d bytes holds no word", name, bytes)
		}
		stats, err := run(k, words, grid)
		if err != nil {
			return nil, fmt.Errorf("%s %d KB: %w", name, bytes>>10, err)
		}
		seconds := launchSeconds(dev, stats)
		rate, stream := ratePerSecond(dev, stats, n), "-"
		if seconds > 0 {
			stream = formatCell(4 * float64(n) / seconds / 1e9)
		}
		t.add(bytes>>10, n, grid, cost(stats)+" "+costUnit(stats), rate, stream, checked)
	}
	return t, nil
}

// tableGrid is the grid of the table benchmarks: ctas CTAs when above 1,
// else the co-resident grid of k in CTAs of gatherBlock threads.
func tableGrid(dev kernels.Device, k *kernels.Kernel, ctas int, name string) (int, error) {
	if ctas < 0 {
		return 0, settingError("%s: %d CTAs: 0 or 1 for the co-resident grid, or more", name, ctas)
	}
	if ctas > 1 {
		return ctas, nil
	}
	perSM, err := dev.Occupancy(k, gatherBlock, 0)
	if err != nil {
		return 0, err
	}
	return dev.Properties().SMs * perSM, nil
}

// launchSeconds is a launch's time: the measured one, or on the simulator
// its cycles at the configured clock.
func launchSeconds(dev kernels.Device, stats kernels.LaunchStats) float64 {
	seconds := stats.Elapsed.Seconds()
	if props := dev.Properties(); stats.Elapsed == 0 && stats.Cycles > 0 && props.ClockKHz > 0 {
		seconds = float64(stats.Cycles) / (float64(props.ClockKHz) * 1e3)
	}
	return seconds
}

// ratePerSecond is n operations over the launch's time in G/s ("-" for a
// launch of no time).
func ratePerSecond(dev kernels.Device, stats kernels.LaunchStats, n int) string {
	if s := launchSeconds(dev, stats); s > 0 {
		return formatCell(float64(n) / s / 1e9)
	}
	return "-"
}

// gatherIndices are n uniform word indices below words, from seed.
func gatherIndices(words, n int, seed uint64) []uint32 {
	r := rand.New(rand.NewPCG(seed, uint64(words)))
	idx := make([]uint32, n)
	for i := range idx {
		idx[i] = uint32(r.IntN(words))
	}
	return idx
}

// gatherWord is table word w's value: distinct words, so a gather of the
// wrong word changes the sum.
func gatherWord(w int) uint32 { return uint32(w)*2654435761 + 1 }

func runGather(ctx context.Context, dev kernels.Device, k *kernels.Kernel, words, n, grid int, p Params, simulated bool) (kernels.LaunchStats, error) {
	table := make([]uint32, words)
	for w := range table {
		table[w] = gatherWord(w)
	}
	idx := gatherIndices(words, n, 1)
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	threads := grid * gatherBlock
	stats, _, dSums, err := launchOverTable(ctx, dev, mem, k, table, idx, warmIndices(words, n), grid, p, simulated)
	if err != nil {
		return stats, err
	}
	got := make([]uint32, threads)
	if err := kernels.Download(dev, got, dSums); err != nil {
		return stats, err
	}
	want := make([]uint32, threads)
	for i, w := range idx {
		want[i%threads] += table[w]
	}
	return stats, firstMismatch("random_gather sums", got, func(i int) uint32 { return want[i] })
}

// launchOverTable copies table and idx to the device and launches k(idx,
// table, sums, n) on grid CTAs of gatherBlock threads with p's timing;
// in simulation it first launches k once over warmIdx (indices of
// another seed), whose effect a caller checking table must include. It
// returns the timed launch's statistics and the table and sums buffers.
func launchOverTable(ctx context.Context, dev kernels.Device, mem *kernels.Allocations, k *kernels.Kernel, table, idx, warmIdx []uint32, grid int, p Params, simulated bool) (stats kernels.LaunchStats, dTable, dSums kernels.DevPtr, err error) {
	if dTable, err = kernels.Copy(mem, table); err != nil {
		return
	}
	dIdx, err := kernels.Copy(mem, idx)
	if err != nil {
		return
	}
	if dSums, err = kernels.Slice[uint32](mem, grid*gatherBlock); err != nil {
		return
	}
	n := uint32(len(idx))
	if simulated {
		var warm kernels.DevPtr
		if warm, err = kernels.Copy(mem, warmIdx); err != nil {
			return
		}
		if _, err = dev.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(gatherBlock)}, warm, dTable, dSums, n); err != nil {
			return
		}
	}
	stats, err = dev.Launch(ctx, k, p.launch(grid, gatherBlock), dIdx, dTable, dSums, n)
	return
}

// warmIndices are the indices of the warming launch in simulation.
func warmIndices(words, n int) []uint32 { return gatherIndices(words, n, 2) }

// The default gathers per table: about rmat20's 31.4M in-edges on
// hardware; a simulation of that many would take many minutes.
const (
	gatherCountHW  = 1 << 25
	gatherCountSim = 1 << 21
)

func gatherBenchmark() *Benchmark {
	return tableBenchmark("random_gather", "gathers", Gather)
}

// tableBenchmark is the benchmark name that runs measure (Gather, Scatter:
// n operations, what, per table size) over --tables.
func tableBenchmark(name, what string, measure func(ctx context.Context, dev kernels.Device, tables []int, n int, p Params, simulated bool) (*Table, error)) *Benchmark {
	return &Benchmark{
		Name:     name,
		Defaults: map[Setting]PerTarget{Elements: {HW: gatherCountHW, Sim: gatherCountSim}},
		Help: map[Setting]string{Elements: what + " per table size (0: 32M on hw, 2M in simulation)",
			Tables: "table sizes in KB (default 128,4096,16384,65536,262144)",
			CTAs:   "CTAs of 256 threads (0 or 1: the co-resident grid)"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			tables, err := s.tableBytes()
			if err != nil {
				return nil, err
			}
			p := s.timing()
			p.CTAs = s.CTAs
			return measure(ctx, dev, tables, s.Elements, p, s.Simulated)
		},
	}
}

// tableBytes are the table sizes of --tables in bytes (GatherTableBytes
// when none is given).
func (v Settings) tableBytes() ([]int, error) {
	if len(v.Tables) == 0 {
		return GatherTableBytes, nil
	}
	var tables []int
	for _, kb := range v.Tables {
		if kb < 1 || kb > 16<<20 {
			return nil, settingError("--tables %d: each table must be 1 to 16777216 KB (16 GB)", kb)
		}
		tables = append(tables, kb<<10)
	}
	return tables, nil
}
