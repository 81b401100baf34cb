package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Timing-mode behaviour of the kernels of kernels/ on the tiny
// configuration: the figures the microbenchmarks exist for.

// timingDevice is a tiny device in timing mode, with cfg changed by edit.
func timingDevice(t testing.TB, edit func(c *Config)) *Device {
	t.Helper()
	c, err := ConfigByName("tiny")
	require.NoError(t, err)
	if edit != nil {
		edit(&c)
	}
	d, err := New(c, WithMode(ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// table renders rows of cells as aligned text for the test log.
func table(header []string, rows [][]string) string {
	w := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			w[i] = max(w[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range append([][]string{header}, rows...) {
		b.WriteString("\n")
		for i, c := range r {
			fmt.Fprintf(&b, "  %*s", w[i], c)
		}
	}
	return b.String()
}

func TestTimingBankStride(t *testing.T) {
	d := timingDevice(t, nil)
	const reps = 32
	var rows [][]string
	for _, name := range []string{"bank_stride", "bank_stride_padded"} {
		k := lookup(t, name)
		for _, stride := range []int{1, 2, 4, 8, 16, 32} {
			out := zeros[uint32](t, d, 32)
			st := launch(t, d, k, 1, 32, out, uint32(stride), uint32(reps))
			s := d.LastStats()
			require.NotNil(t, s)
			// One warp: 32 conflict-free fill stores (1024 words, 32 per
			// store), then reps reads of degree gcd(stride, 32) (plain)
			// or 1 (padded).
			want := stride
			if name == "bank_stride_padded" {
				want = 1
			}
			var hist []string
			for deg := 1; deg <= timing.MaxDegree; deg++ {
				n := s.BankConflictDegree[deg]
				switch {
				case deg == want && want == 1:
					assert.Equal(t, uint64(32+reps), n, "%s stride %d: degree 1", name, stride)
				case deg == want:
					assert.Equal(t, uint64(reps), n, "%s stride %d: degree %d", name, stride, deg)
				case deg == 1:
					assert.Equal(t, uint64(32), n, "%s stride %d: the fill", name, stride)
				default:
					assert.Zero(t, n, "%s stride %d: degree %d", name, stride, deg)
				}
				if n > 0 {
					hist = append(hist, fmt.Sprintf("%d:%d", deg, n))
				}
			}
			assert.Equal(t, uint64(reps*(want-1)), s.BankConflicts)
			rows = append(rows, []string{name, fmt.Sprint(stride), fmt.Sprint(st.Cycles), fmt.Sprint(s.BankConflicts), strings.Join(hist, " ")})
		}
	}
	t.Log("bank_stride on tiny, one warp, reps 32:" + table([]string{"kernel", "stride", "cycles", "bank_conflicts", "degree:count"}, rows))
}

func TestTimingAtomicContention(t *testing.T) {
	lock := func(c *Config) {
		c.SM.SharedAtomicModel = timing.SharedAtomicLock
		c.SM.SharedAtomicLockIterationCycles = 24
		c.SM.SharedAtomicLocks = 1024
	}
	devices := []struct {
		name string
		d    *Device
	}{
		{"native", timingDevice(t, nil)},
		{"lock", timingDevice(t, lock)},
	}
	const threads, reps = 1024, 4
	degrees := []int{1, 2, 4, 8, 16, 32, 64, 256, 1024}
	cycles := map[string][]uint64{}
	var rows [][]string
	for _, kn := range []string{"atomic_contention_shared", "atomic_contention_global"} {
		k := lookup(t, kn)
		for _, dv := range devices {
			if kn == "atomic_contention_global" && dv.name == "lock" {
				continue // the model is about shared memory
			}
			key := kn + "/" + dv.name
			for _, deg := range degrees {
				slots := (threads + deg - 1) / deg
				out := zeros[uint32](t, dv.d, slots)
				st := launch(t, dv.d, k, 1, threads, out, uint32(deg), uint32(reps))
				s := dv.d.LastStats()
				got := download[uint32](t, dv.d, out, slots)
				for a := range slots {
					want := uint32(0xFFFFFFFF)
					for th := a * deg; th < min((a+1)*deg, threads); th++ {
						for r := range reps {
							want = min(want, contentionValue(uint32(th), uint32(r)))
						}
					}
					require.Equal(t, want, got[a], "%s degree %d slot %d", key, deg, a)
				}
				cycles[key] = append(cycles[key], st.Cycles)
				same := s.MaxSameAddressSerializationShared
				if kn == "atomic_contention_global" {
					same = s.MaxSameAddressSerializationGlobal
					assert.Equal(t, uint64(threads*reps), s.GlobalAtomics)
				} else {
					assert.Equal(t, uint64(threads*reps), s.SharedAtomics)
					assert.Equal(t, min(deg, 32), same, "%s: lanes of a warp on one address", key)
				}
				rows = append(rows, []string{key, fmt.Sprint(deg), fmt.Sprint(st.Cycles), fmt.Sprint(same), fmt.Sprint(s.SharedAtomicLockRetries)})
			}
		}
	}
	t.Log("atomic_contention on tiny, 1 CTA of 1024 threads, 4 atomicMin each:" +
		table([]string{"kernel/model", "degree", "cycles", "max_same_address", "lock_retries"}, rows))

	// Shapes. At low degrees the slots' initialisation and copy-out
	// dominate (fewer slots, fewer sectors); from 4 threads per address
	// on, more contention never makes it cheaper.
	for key, cs := range cycles {
		for i := 3; i < len(cs); i++ {
			assert.GreaterOrEqual(t, float64(cs[i]), 0.97*float64(cs[i-1]), "%s: degree %d vs %d", key, degrees[i], degrees[i-1])
		}
	}
	at := func(key string, deg int) float64 {
		for i, d := range degrees {
			if d == deg {
				return float64(cycles[key][i])
			}
		}
		panic(deg)
	}
	native, locked := "atomic_contention_shared/native", "atomic_contention_shared/lock"
	// Native: the lanes of a warp on one address serialise, up to 32;
	// warps on one address are already serialised by the shared memory.
	assert.Greater(t, at(native, 32), 4*at(native, 1))
	assert.InEpsilon(t, at(native, 32), at(native, 1024), 0.1)
	// Lock: warps contending for one lock retry too, so the cost keeps
	// growing past 32 threads per address.
	assert.Greater(t, at(locked, 32), at(native, 32))
	assert.Greater(t, at(locked, 1024), 5*at(locked, 32))
	assert.Greater(t, at(locked, 1024), 5*at(native, 1024))
	global := "atomic_contention_global/native"
	assert.Greater(t, at(global, 1024), 4*at(global, 32), "global: one address serialises at its L2 atomic unit")
}

func TestTimingCTAWaitsForSharedMemory(t *testing.T) {
	k := lookup(t, "stream")
	const n, block = 4 * 256, 256
	run := func(dyn int) kernels.LaunchStats {
		// A fresh device each time, so both runs start with cold caches.
		d := timingDevice(t, nil)
		a := upload(t, d, make([]float32, n))
		c := zeros[float32](t, d, n)
		st, err := d.Launch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(n / block), Block: kernels.D1(block), DynamicSharedMem: dyn},
			a, a, c, uint32(n))
		require.NoError(t, err)
		return st
	}
	free := run(0)
	// 20 KB of the SM's 32 KB: one CTA per SM; the other two wait.
	tight := run(20 << 10)
	assert.Equal(t, 4.0, free.Counters["max_resident_ctas"])
	assert.Equal(t, 2.0, tight.Counters["max_resident_ctas"])
	assert.Equal(t, 4.0, tight.Counters["ctas"])
	t.Logf("4 CTAs of stream: %d cycles co-resident, %d when shared memory admits one per SM", free.Cycles, tight.Cycles)
	assert.Greater(t, tight.Cycles, free.Cycles+free.Cycles/5)
}

func TestTimingDeadlockOnlyWhereExpected(t *testing.T) {
	d := timingDevice(t, nil)
	k := lookup(t, "global_barrier")
	const block = 64
	perSM, err := d.Occupancy(k, block, 0)
	require.NoError(t, err)
	limit := perSM * d.Properties().SMs

	r := runGlobalBarrier(t, d, limit+1, block, 2, 0, 20*time.Second, false)
	var dl *kernels.DeadlockError
	require.ErrorAs(t, r.err, &dl)
	assert.Regexp(t, "spinning on the loads? at PTX line \\d+ \\(\\./kernels/warpgraph\\.h:\\d+, inlined near \\./kernels/[\\w/]+\\.cuh?:\\d+\\) `ld\\.volatile\\.global", dl.Detail)
	assert.Regexp(t, "waiting at barrier 0 at PTX line \\d+ \\(\\./kernels/global_barrier\\.cu:\\d+\\) `bar\\.sync", dl.Detail)
	assert.Contains(t, dl.Detail, "no SM has room: CTA slots: 4 of 4 in use on SMs 0, 1")
	t.Logf("limit+1 with budget 0: %v", r.err)

	r = runGlobalBarrier(t, d, limit+1, block, 2, 300, 20*time.Second, false)
	require.NoError(t, r.err, "a finite budget ends the launch by its abort flag, as on hardware")
	assert.Equal(t, int32(1), r.abort)

	r = runGlobalBarrier(t, d, limit, block, 3, 0, 20*time.Second, false)
	require.NoError(t, r.err)
	assert.Zero(t, r.abort)
	assert.Equal(t, uint32(3), r.release)
}

func TestTimingBFSDriver(t *testing.T) {
	bfs, bsp := schedulerCell(t, "bfs", "bsp")
	for _, spec := range []string{"rmat:scale=10", "grid:w=32,h=32"} {
		t.Run(spec, func(t *testing.T) {
			g, err := graph.Load(spec, graph.LoadOptions{})
			require.NoError(t, err)
			d := timingDevice(t, nil)
			src := g.MaxDegreeVertex()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := scheduler.Enact(ctx, d, bfs, bsp, g, scheduler.Params{scheduler.SourceParam: src}, scheduler.RunOptions{Block: 128})
			require.NoError(t, err)
			require.True(t, res.Validation.OK(), res.Validation.String())
			assert.Positive(t, res.Total.Cycles)
			for _, l := range res.Iterations {
				assert.Positive(t, l.Stats.Cycles, "level %d", l.Iteration)
			}
			t.Logf("%s from %d: %d levels, %d cycles, %.0f warp-instructions, %.0f global atomics",
				spec, src, len(res.Iterations), res.Total.Cycles, res.Total.Counters["warp_instructions"], res.Total.Counters["global_atomics"])
		})
	}
}

// TestTimingStoresDRAMTraffic runs short kernels whose output stays in L2:
// their stores count as DRAM writes (dirty L2 sectors count at the end of
// the launch), and a store reads nothing from DRAM, whether a warp writes
// whole lines (stream's output, bank_stride with 32-thread CTAs) or one
// sector of a line (bank_stride with 8-thread CTAs; the L2 is
// write-validate).
func TestTimingStoresDRAMTraffic(t *testing.T) {
	const n = 4096
	t.Run("stream", func(t *testing.T) {
		d := timingDevice(t, nil)
		a := upload(t, d, make([]float32, n))
		b := upload(t, d, make([]float32, n))
		c := zeros[float32](t, d, n)
		st, err := d.Launch(context.Background(), lookup(t, "stream"),
			kernels.LaunchConfig{Grid: kernels.D1(n / 256), Block: kernels.D1(256)}, a, b, c, uint32(n))
		require.NoError(t, err)
		assert.Equal(t, float64(2*4*n), st.Counters["dram_read_bytes"], "a and b, read once")
		assert.Equal(t, float64(4*n), st.Counters["dram_write_bytes"], "c, written once")
	})
	for _, block := range []int{32, 8} {
		t.Run(fmt.Sprintf("bank_stride/block%d", block), func(t *testing.T) {
			d := timingDevice(t, nil)
			out := zeros[uint32](t, d, n)
			st, err := d.Launch(context.Background(), lookup(t, "bank_stride"),
				kernels.LaunchConfig{Grid: kernels.D1(n / block), Block: kernels.D1(block)}, out, uint32(1), uint32(1))
			require.NoError(t, err)
			assert.Zero(t, st.Counters["dram_read_bytes"], "stores read nothing")
			assert.Equal(t, float64(4*n), st.Counters["dram_write_bytes"], "out, written once")
		})
	}
}
