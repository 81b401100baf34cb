package micro_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// The drivers are exercised on the functional simulator with the tiny
// configuration; the same code runs on hardware through hw.
func tinyDevice(t *testing.T) *sim.Device {
	t.Helper()
	dev, err := sim.Open("tiny", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

// timingDevice opens config in timing mode, closed with the test.
func timingDevice(t *testing.T, config string) *sim.Device {
	t.Helper()
	dev, err := sim.Open(config, sim.WithMode(sim.ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

// tableNumber reads the number in a table's cell.
func tableNumber(t *testing.T, tab *micro.Table, row, col int) float64 {
	t.Helper()
	var v float64
	_, err := fmt.Sscan(tab.Rows[row][col], &v)
	require.NoError(t, err)
	return v
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func TestStreamValidates(t *testing.T) {
	tab, stats, err := micro.Stream(ctx(t), tinyDevice(t), 5000, 128, micro.Params{})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 1)
	assert.Equal(t, "5000", tab.Rows[0][0])
	assert.Positive(t, stats.Counters["thread_instructions"])
}

func TestAtomicContentionValidatesEveryDegree(t *testing.T) {
	tab, err := micro.AtomicContention(ctx(t), tinyDevice(t), []int{1, 3, 32, 1000}, micro.Params{Reps: 3})
	require.NoError(t, err)
	assert.Len(t, tab.Rows, 4)
	_, err = micro.AtomicContention(ctx(t), tinyDevice(t), []int{0}, micro.Params{Reps: 1})
	assert.ErrorContains(t, err, "degree 0")
	// Every SM full: each CTA's slots are checked.
	dev := tinyDevice(t)
	tab, err = micro.AtomicContention(ctx(t), dev, []int{1, 32}, micro.Params{Reps: 2, CTAs: micro.AtomicCTAsFullGPU(dev)})
	require.NoError(t, err)
	assert.Len(t, tab.Rows, 2)
	assert.Contains(t, tab.Notes[0], "4 CTAs of 1024 threads")
}

func TestBankStrideValidatesBothLayouts(t *testing.T) {
	tab, err := micro.BankStride(ctx(t), tinyDevice(t), []int{1, 2, 32, 33}, 2, 64, micro.Params{Reps: 5})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 4)
	assert.Equal(t, "1", tab.Rows[3][1], "stride 33 is conflict-free: gcd(33, 32) = 1")
}

func TestBarrierStudyShowsTheDeadlockBoundary(t *testing.T) {
	dev := tinyDevice(t)
	k, err := kernels.Lookup("global_barrier")
	require.NoError(t, err)
	limit, err := scheduler.CoResidentGrid(dev, k, 64, 0)
	require.NoError(t, err)
	_, err = micro.GlobalBarrier(ctx(t), dev, micro.BarrierRun{Grid: limit, Block: 64, Rounds: 3, SpinBudget: 100000})
	require.NoError(t, err, "at the co-resident limit the barrier completes")
	_, err = micro.GlobalBarrier(ctx(t), dev, micro.BarrierRun{Grid: limit + 1, Block: 64, Rounds: 3, SpinBudget: 500})
	var spin *kernels.SpinBudgetError
	require.True(t, errors.As(err, &spin), "one CTA past the limit ends by its budget: %v", err)
	_, err = micro.GlobalBarrier(ctx(t), dev, micro.BarrierRun{Grid: limit + 1, Block: 64, Rounds: 3, Cooperative: true, SpinBudget: 500})
	var res *kernels.LaunchResourceError
	require.True(t, errors.As(err, &res), "a cooperative launch past the limit is refused: %v", err)

	tab, err := micro.BarrierStudy(ctx(t), dev, 64, 2, 100000, true)
	require.NoError(t, err)
	outcomes := make([]string, len(tab.Rows))
	for i, r := range tab.Rows {
		outcomes[i] = r[3]
	}
	assert.Equal(t, []string{"completed 2 rounds, validated", "completed 2 rounds, validated",
		"aborted by its spin budget", "refused before launch", "completed 2 rounds, validated", "deadlock detected"}, outcomes)
	assert.True(t, strings.Contains(strings.Join(tab.Notes, "\n"), "PTX line"), "the deadlock note says where warps spin")
}

// Every library barrier (kernels/lib/barrier.cuh) is timed at the grids
// asked for that fit (0 = the co-resident limit; 1056 is past tiny's limit
// and left out), completes at the limit and not one CTA past it.
func TestBarriersShowCostAndDeadlockBoundary(t *testing.T) {
	dev := tinyDevice(t)
	tab, err := micro.Barriers(ctx(t), dev, micro.BarrierSweep{Grids: []int{2, 1056, 0}, Block: 64, Rounds: 2, SpinBudget: 2000, Unbounded: true})
	require.NoError(t, err)
	type row struct{ kind, ctas, launch, budget, outcome string }
	var got []row
	for _, r := range tab.Rows {
		got = append(got, row{r[0], r[1], r[2], r[3], r[4]})
		if strings.HasPrefix(r[4], "completed") {
			assert.NotEqual(t, "-", r[6], "a completed row has a cost per round")
		}
	}
	var want []row
	for _, kind := range scheduler.BarrierKinds {
		limit, err := scheduler.CoResidentGrid(dev, mustLookup(t, "grid_barrier_"+kind), 64, 0)
		require.NoError(t, err)
		launch := "normal"
		if kind == "coop" {
			launch = "cooperative"
		}
		want = append(want,
			row{kind, "2", launch, "2000", "completed 2 rounds, validated"},
			row{kind, fmt.Sprint(limit), launch, "2000", "completed 2 rounds, validated"})
		if kind == "coop" {
			want = append(want, row{kind, fmt.Sprint(limit + 1), launch, "2000", "refused before launch"})
		} else {
			want = append(want,
				row{kind, fmt.Sprint(limit + 1), launch, "2000", "aborted by its spin budget"},
				row{kind, fmt.Sprint(limit + 1), launch, "0", "deadlock detected"})
		}
	}
	assert.Equal(t, want, got)
	notes := strings.Join(tab.Notes, "\n")
	assert.Contains(t, notes, "grids [1056] are past its co-resident limit")
	assert.Contains(t, tab.Columns[6], "thread-inst", "the functional simulator counts thread-instructions")

	_, err = micro.Barriers(ctx(t), dev, micro.BarrierSweep{Kinds: []string{"butterfly"}, Grids: []int{0}, Block: 64, Rounds: 1})
	assert.ErrorContains(t, err, "unknown grid barrier")
}

// GridBarrier runs back-to-back launches on one barrier state, validating
// each (the state a completed launch leaves is ready for the next).
func TestGridBarrierRepeatsOnOneState(t *testing.T) {
	for _, kind := range scheduler.BarrierKinds {
		_, err := micro.GridBarrier(ctx(t), tinyDevice(t), micro.GridBarrierRun{Kind: kind, Grid: 5, Block: 64, Rounds: 3,
			SpinBudget: 2000, Cooperative: scheduler.BarrierCooperative(kind), Warmup: 1, Repeat: 3})
		require.NoError(t, err, kind)
	}
}

func mustLookup(t *testing.T, name string) *kernels.Kernel {
	t.Helper()
	k, err := kernels.Lookup(name)
	require.NoError(t, err)
	return k
}

func TestDivModProbeChecksOrdinaryCases(t *testing.T) {
	r, tab, err := micro.DivModProbe(ctx(t), tinyDevice(t))
	require.NoError(t, err)
	assert.Len(t, tab.Rows, len(micro.DivModInputs32)+len(micro.DivModInputs64))
	assert.Equal(t, uint32(100/7), r.Q32U[0])
}

// The simulator reproduces, bit for bit, what the H100 computed for the
// cases PTX leaves machine-specific.
func TestSimulatorDivModMatchesH100(t *testing.T) {
	r, _, err := micro.DivModProbe(ctx(t), tinyDevice(t))
	require.NoError(t, err)
	assert.Equal(t, micro.H100DivMod, *r)
}

func TestLaunchOverheadValidatesEveryPattern(t *testing.T) {
	tab, err := micro.LaunchOverhead(ctx(t), tinyDevice(t), 5, micro.Params{Warmup: 2})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 3)
	patterns := make([]string, len(tab.Rows))
	for i, r := range tab.Rows {
		patterns[i] = r[0]
		assert.Equal(t, "5", r[1])
		assert.NotEqual(t, "0", r[4], "the device reports its cost")
	}
	assert.Equal(t, []string{"launch", "launch + read-back", "upload + launch + read-back"}, patterns)
	assert.Contains(t, tab.Columns[4], "thread-inst", "the functional simulator counts thread-instructions")
	assert.Contains(t, strings.Join(tab.Notes, "\n"), "simulated host clock", "the simulator times the patterns by its host clock")
	// tiny's host (sim/configs/tiny.yaml): sync 0.5 µs, copy latency 0.2 µs.
	// A read-back adds a wait and a copy, an upload a copy, whatever the
	// speed of the machine running the simulator.
	host := make([]float64, len(tab.Rows))
	for i, r := range tab.Rows {
		v, err := strconv.ParseFloat(r[2], 64)
		require.NoError(t, err)
		host[i] = v
	}
	assert.InDelta(t, 0.7, host[1]-host[0], 0.0015, "a read-back adds sync_ns and copy_latency_ns")
	assert.InDelta(t, 0.2, host[2]-host[1], 0.0015, "an upload adds copy_latency_ns")

	_, err = micro.LaunchOverhead(ctx(t), tinyDevice(t), 0, micro.Params{})
	assert.ErrorContains(t, err, "need at least 1")
}

// lossyDevice pretends every third launch ran without running it.
type lossyDevice struct {
	*sim.Device
	launches int
}

func (d *lossyDevice) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	d.launches++
	if d.launches%3 == 0 {
		return kernels.LaunchStats{}, nil
	}
	return d.Device.Launch(ctx, k, cfg, args...)
}

func TestLaunchOverheadCatchesALostLaunch(t *testing.T) {
	_, err := micro.LaunchOverhead(ctx(t), &lossyDevice{Device: tinyDevice(t)}, 5, micro.Params{})
	assert.ErrorContains(t, err, "launch: counter 4 after 5 launches")
}

// TestLoadLatencySeparatesL1L2AndStrongLoads: on the simulated h100 a weak
// load of a chain that fits in L1 is an L1 hit, a chain larger than L1 is
// an L2 hit, and a strong (volatile) load goes to L2 at either size; the
// cycles per load follow the configuration's latencies (plus the loop's
// few instructions).
func TestLoadLatencySeparatesL1L2AndStrongLoads(t *testing.T) {
	dev := timingDevice(t, "h100")
	mem := dev.Config().Memory
	tab, err := micro.LoadLatency(ctx(t), dev, []int{16 << 10, 512 << 10}, micro.Params{})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 6)
	cycles := func(row int) float64 { return tableNumber(t, tab, row, 3) }
	l1, l2 := float64(mem.L1HitLatency), float64(mem.L2HitLatency)
	assert.InDelta(t, l1, cycles(0), 20, "16 KB weak: L1 hits")
	assert.InDelta(t, l2, cycles(1), 20, "16 KB strong: L2")
	assert.InDelta(t, l2, cycles(2), 20, "512 KB weak: beyond L1, L2 hits")
	assert.InDelta(t, l2, cycles(3), 20, "512 KB strong: L2")
	// The word's slice may lie in the SM's L2 partition or the other one.
	near, far := float64(mem.AtomicLatency), float64(mem.AtomicLatency)+mem.L2FarAtomicCycles
	assert.True(t, math.Abs(cycles(4)-near) <= 20 || math.Abs(cycles(4)-far) <= 20,
		"a dependent atomic: the near (%.0f) or far (%.0f) atomic round trip, got %.0f", near, far, cycles(4))
	assert.Greater(t, cycles(5), l2*0.9, "a fence waits for its store's acknowledgement from L2")
	_, err = micro.LoadLatency(ctx(t), dev, []int{64}, micro.Params{})
	assert.ErrorContains(t, err, "fewer than two")
}

func TestAtomicSpreadValidatesEveryStride(t *testing.T) {
	dev := tinyDevice(t)
	tab, err := micro.AtomicSpread(ctx(t), dev, []int{4, 256, 4096}, 4, micro.Params{Reps: 3})
	require.NoError(t, err)
	assert.Len(t, tab.Rows, 3)
	_, err = micro.AtomicSpread(ctx(t), dev, []int{6}, 4, micro.Params{Reps: 1})
	assert.ErrorContains(t, err, "stride 6 B")
	_, err = micro.AtomicSpread(ctx(t), dev, []int{4}, 0, micro.Params{Reps: 1})
	assert.ErrorContains(t, err, "0 CTAs")
}

func TestAtomicPollValidatesAndRefusesBadShapes(t *testing.T) {
	dev := tinyDevice(t)
	ctas, err := micro.AtomicPollCTAs(dev)
	require.NoError(t, err)
	require.Greater(t, ctas, dev.Properties().SMs, "several CTAs per SM")
	for _, pollers := range micro.AtomicPollers {
		for _, line := range micro.AtomicPollLines {
			_, err := micro.AtomicPoll(ctx(t), dev, ctas, pollers, line.DoneWord, 0, micro.Params{Reps: 5})
			assert.NoError(t, err, "%d pollers on the %s line", pollers, line.Name)
		}
	}
	// Repeated launches on the same counters: pollers wait for their own
	// launch's workers, and the counters add up.
	_, err = micro.AtomicPoll(ctx(t), dev, ctas, 7, 1, 0, micro.Params{Reps: 3, Warmup: 2, Repeat: 3})
	assert.NoError(t, err)
	for _, c := range []struct {
		ctas, pollers, word, reps int
		want                      string
	}{
		{0, 1, 1, 1, "0 CTAs"},
		{1, 8, 1, 1, "8 pollers per CTA is outside 0..7"},
		{1, 1, 0, 1, "done word 0"},
		{1, 1, 1, 0, "0 tickets per worker"},
	} {
		_, err := micro.AtomicPoll(ctx(t), dev, c.ctas, c.pollers, c.word, 0, micro.Params{Reps: c.reps})
		assert.ErrorContains(t, err, c.want)
	}
}

func TestLaunchGridCountsEveryLaunchAndRefusesEmptyGrids(t *testing.T) {
	dev, err := sim.Open("tiny", sim.WithMode(sim.ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	small, err := micro.LaunchGrid(ctx(t), dev, 1, 32, micro.Params{})
	require.NoError(t, err)
	big, err := micro.LaunchGrid(ctx(t), dev, 64, 256, micro.Params{})
	require.NoError(t, err)
	assert.Greater(t, big.Cycles, small.Cycles, "64 CTAs take longer to dispatch and drain than one")
	_, err = micro.LaunchGrid(ctx(t), dev, 0, 256, micro.Params{})
	assert.ErrorContains(t, err, "0 CTAs of 256 threads")
}

// TestPartitionLatencyValidatesEveryProbe: every probed SM's chains run and
// leave each probed word at its atomics; an SM the device lacks is an
// error.
func TestPartitionLatencyValidatesEveryProbe(t *testing.T) {
	dev := tinyDevice(t)
	sms := micro.PartitionSMs(dev)
	tab, probes, err := micro.PartitionLatency(ctx(t), dev, sms, micro.Params{Reps: 3})
	require.NoError(t, err)
	require.Len(t, probes, len(sms))
	require.Len(t, tab.Rows, len(sms))
	for _, pr := range probes {
		assert.Len(t, pr.Atomics, micro.PartitionWords)
		assert.Len(t, pr.Loads, micro.PartitionWords)
	}
	_, _, err = micro.PartitionLatency(ctx(t), dev, []int{dev.Properties().SMs}, micro.Params{Reps: 1})
	assert.ErrorContains(t, err, "is not one of the device's")
}

// TestLoadedLatencyValidatesEveryWalk: every warp's walk, stores and
// atomics check out at each load level; in timing mode the unloaded load
// is an L2 hit, the unloaded atomic an atomic round trip, and more warps in
// flight never make a median faster.
func TestLoadedLatencyValidatesEveryWalk(t *testing.T) {
	tab, err := micro.LoadedLatency(ctx(t), tinyDevice(t), []int{1, 4}, micro.Params{Reps: 5})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 12)
	_, err = micro.LoadedLatency(ctx(t), tinyDevice(t), []int{33}, micro.Params{Reps: 1})
	assert.ErrorContains(t, err, "between 1 and 32")

	dev := timingDevice(t, "h100+sms=4")
	tab, err = micro.LoadedLatency(ctx(t), dev, []int{1, 32}, micro.Params{Reps: 16})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 12)
	median := func(row int) float64 { return tableNumber(t, tab, row, 5) }
	mem := dev.Config().Memory
	assert.InDelta(t, float64(mem.L2HitLatency), median(0), 30, "one chase per SM: the L2 round trip")
	near, far := float64(mem.AtomicLatency), float64(mem.AtomicLatency)+mem.L2FarAtomicCycles
	assert.True(t, median(4) > near-30 && median(4) < far+30, "one atomic chain per SM: %v cycles per atomic", median(4))
	for kind := range 6 {
		assert.GreaterOrEqual(t, median(2*kind+1), median(2*kind)-1, "kind %d: 32 warps per SM are not faster", kind)
	}
	// A gather asks for 32 lines: it waits longer than one load, and 32
	// warps of it keep more of them in flight per SM-cycle than one.
	rate := func(row int) float64 { return tableNumber(t, tab, row, 7) }
	assert.Greater(t, median(6), median(0)+16, "one warp's gather: %v cycles, one load %v", median(6), median(0))
	assert.Greater(t, rate(7), 4*rate(6), "32 warps of gathers per SM: %v lines per SM-cycle, one warp %v", rate(7), rate(6))
	// Fences beside atomic gathers: alone (1 warp per CTA) the fenced store
	// of kind 1; beside 31 chasing warps their atomics are counted.
	assert.InDelta(t, median(2), median(10), 0.05*median(2), "a CTA of one warp fences as kind 1 does")
	assert.Zero(t, rate(10), "no chasers beside one warp")
	assert.Greater(t, rate(11), 1.0, "31 warps of atomic gathers: %v lane atomics per SM-cycle", rate(11))
}

// TestSharedAddRunsTheFloatLoop: every slot checks out, as uint32 and as
// float; in timing mode a float add costs what a uint32 add does when it
// is one native atomic, and grows with the lanes on a word when it is the
// GPU's compare-and-swap loop (sm.shared_float_add_loop).
func TestSharedAddRunsTheFloatLoop(t *testing.T) {
	tab, err := micro.SharedAdd(ctx(t), tinyDevice(t), []int{1, 7, 1024}, micro.Params{Reps: 3})
	require.NoError(t, err)
	require.Len(t, tab.Rows, 3)
	_, err = micro.SharedAdd(ctx(t), tinyDevice(t), []int{1}, micro.Params{Reps: 1 << 14})
	assert.ErrorContains(t, err, "exact as a float")

	// growth is the float add's time at degree 32 over degree 1.
	growth := func(config string) float64 {
		tab, err := micro.SharedAdd(ctx(t), timingDevice(t, config), []int{1, 32}, micro.Params{Reps: 16})
		require.NoError(t, err)
		return tableNumber(t, tab, 1, 2) / tableNumber(t, tab, 0, 2)
	}
	tab, err = micro.SharedAdd(ctx(t), timingDevice(t, "h100+sms=1+sm.shared_float_add_loop=false"), []int{32}, micro.Params{Reps: 2})
	require.NoError(t, err)
	assert.InDelta(t, 1.0, tableNumber(t, tab, 0, 3), 0.01, "one native atomic either way")
	native, loop := growth("h100+sms=1+sm.shared_float_add_loop=false"), growth("h100+sms=1")
	assert.Greater(t, loop, 1.5*native, "32 lanes on a word take a pass each: degree 32 costs %.2fx degree 1 (native %.2fx)", loop, native)
}

// tableBenchmarkChecks runs a benchmark over table sizes (run, registered
// as name) on the tiny model: one validated row per size, a count below 1
// refused, --tables picking the sizes; it returns the registered benchmark.
func tableBenchmarkChecks(t *testing.T, name, validation string, run func(context.Context, kernels.Device, []int, int, micro.Params, bool) (*micro.Table, error)) *micro.Benchmark {
	t.Helper()
	tab, err := run(ctx(t), tinyDevice(t), []int{1 << 10, 64 << 10}, 5000, micro.Params{}, true)
	require.NoError(t, err)
	require.Len(t, tab.Rows, 2)
	assert.Equal(t, validation, tab.Rows[1][6])
	_, err = run(ctx(t), tinyDevice(t), []int{1 << 10}, 0, micro.Params{}, true)
	assert.ErrorContains(t, err, "at least 1")
	b, err := micro.Default.Lookup(name)
	require.NoError(t, err)
	tab, err = b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 2000, Tables: []int{2, 8}})
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"2", "2000"}, {"8", "2000"}}, [][]string{tab.Rows[0][:2], tab.Rows[1][:2]}, "--tables picks the sizes")
	return b
}

func TestGatherValidatesAndSeparatesL1FromDRAM(t *testing.T) {
	b := tableBenchmarkChecks(t, "random_gather", "every thread's sum", micro.Gather)
	_, err := b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Tables: []int{0}})
	var bad *micro.SettingError
	assert.ErrorAs(t, err, &bad, "a table of 0 KB is the caller's error")

	// On the h100 model (8 of its SMs, so each thread makes 16 gathers) a
	// table that fits L1 serves gathers faster than one four times the L2,
	// whose gathers go to DRAM (8 SMs cannot load DRAM much: the margin is
	// small but the simulator is deterministic).
	tab, err := micro.Gather(ctx(t), timingDevice(t, "h100+sms=8"), []int{64 << 10, 200 << 20}, 1<<18, micro.Params{}, true)
	require.NoError(t, err)
	l1, dram := tableNumber(t, tab, 0, 4), tableNumber(t, tab, 1, 4)
	assert.Greater(t, l1, dram, "G gathers/s: L1-sized %.3g, DRAM-sized %.3g", l1, dram)
}

func TestScatterValidatesEveryWord(t *testing.T) {
	var bad *micro.SettingError
	b := tableBenchmarkChecks(t, "random_atomic", "every table word", micro.Scatter)
	tab, err := b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 2000, Tables: []int{2}, CTAs: 3})
	require.NoError(t, err)
	assert.Equal(t, "3", tab.Rows[0][2], "--ctas sets the grid")
	_, err = b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 2000, Tables: []int{2}, CTAs: -1})
	assert.ErrorAs(t, err, &bad, "a negative grid is the caller's error")

	// In timing mode too, and the returning atomics cost more than the
	// gathers of the same indices: each is a read-modify-write at the L2.
	dev := timingDevice(t, "h100+sms=8")
	atomics, err := micro.Scatter(ctx(t), dev, []int{4 << 20}, 1<<16, micro.Params{}, true)
	require.NoError(t, err)
	gathers, err := micro.Gather(ctx(t), timingDevice(t, "h100+sms=8"), []int{4 << 20}, 1<<16, micro.Params{}, true)
	require.NoError(t, err)
	assert.Less(t, tableNumber(t, atomics, 0, 4), tableNumber(t, gathers, 0, 4), "G/s: atomics below gathers")
}

func TestLinePairsSeeWhichLinesShareASlice(t *testing.T) {
	// tiny (with 8 SMs, so that the slices bind) maps 256-byte chunks to its 4 slices in turn: line 0 shares its
	// slice with the line 128 bytes on (same chunk) and 1024 bytes on
	// (chunk 4), not with the line 256 bytes on (chunk 1).
	tab, err := micro.LinePairs(ctx(t), timingDevice(t, "tiny+sms=8"), 0, []int{0, 128, 256, 1024}, 1<<13, micro.Params{}, true)
	require.NoError(t, err)
	require.Len(t, tab.Rows, 4)
	rate := func(row int) float64 { return tableNumber(t, tab, row, 4) }
	for row := range tab.Rows {
		assert.Equal(t, "every table word", tab.Rows[row][5])
	}
	t.Logf("G atomics/s: one line %.3g, +128 B %.3g, +256 B %.3g, +1 KB %.3g", rate(0), rate(1), rate(2), rate(3))
	assert.Greater(t, rate(2), 1.5*rate(3), "two slices serve a pair faster than one")
	assert.Greater(t, rate(2), 1.5*rate(1), "two slices serve a pair faster than one")

	b, err := micro.Default.Lookup("atomic_line_pairs")
	require.NoError(t, err)
	var bad *micro.SettingError
	for _, off := range []int{-128, 100, 64<<20 + 128} {
		_, err = b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 100, Offsets: []int{off}})
		assert.ErrorAs(t, err, &bad, "offset %d is the caller's error", off)
	}
	_, err = b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 100, Offsets: []int{0}, Base: 64})
	assert.ErrorAs(t, err, &bad, "a base off a line is the caller's error")
	tab, err = b.Run(ctx(t), tinyDevice(t), micro.Settings{Simulated: true, Elements: 2000})
	require.NoError(t, err)
	assert.Len(t, tab.Rows, 1+16<<10/128, "by default line 0 alone and every line of the next 16 KB")

	// From a base line, the pair is the same pair of slices as from line 0
	// shifted by it: on tiny, base 256 (chunk 1) with +768 B is chunk 4
	// (slice 0), a pair on two slices; with +1024 B chunk 5 (slice 1), the
	// base's own slice.
	tab, err = micro.LinePairs(ctx(t), timingDevice(t, "tiny+sms=8"), 256, []int{768, 1024}, 1<<13, micro.Params{}, true)
	require.NoError(t, err)
	two, same := tableNumber(t, tab, 0, 4), tableNumber(t, tab, 1, 4)
	assert.Greater(t, two, 1.5*same, "from base 256: +768 B two slices (%.3g), +1024 B one (%.3g)", two, same)
}
