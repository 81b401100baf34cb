package sim

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Every kernel in kernels/ runs through sim.Device with the tiny
// configuration and its final memory is checked against host-computed
// values (the formulas of each kernel's comment block).

// kernelTests names the test of every kernel; TestEveryKernelIsTested
// keeps it complete as kernels are added.
var kernelTests = map[string]string{
	"stream":                   "TestKernelStream",
	"atomic_contention_shared": "TestKernelAtomicContention",
	"atomic_contention_global": "TestKernelAtomicContention",
	"atomic_spread":            "TestKernelAtomicSpread",
	"atomic_poll":              "experiments/micro TestAtomicPoll*",
	"load_latency":             "TestKernelLoadLatency",
	"sync_latency":             "TestKernelSyncLatency",
	"partition_latency":        "experiments/micro TestPartitionLatency*",
	"loaded_latency":           "experiments/micro TestLoadedLatency*",
	"atomic_add_shared":        "experiments/micro TestSharedAdd*",
	"bank_stride":              "TestKernelBankStride",
	"bank_stride_padded":       "TestKernelBankStride",
	"global_barrier":           "TestKernelGlobalBarrier",
	"bfs_topdown":              "TestKernelBFSTopDown",
	"intrinsics":               "TestKernelIntrinsics",
	"divmod_probe":             "TestKernelDivMod",
	"launch_increment":         "experiments/micro TestLaunchOverhead*",
	"grid_barrier_monitor":     "scheduler TestGridBarriers*",
	"grid_barrier_counter":     "scheduler TestGridBarriers*",
	"grid_barrier_tree":        "scheduler TestGridBarriers*",
	"grid_barrier_coop":        "scheduler TestGridBarriers*",
	"exchange_pack":            "TestKernelExchange",
	"exchange_apply":           "TestKernelExchange",
	"random_gather":            "experiments/micro TestGather*",
	"random_atomic_min":        "experiments/micro TestScatter*",
}

// frameworkKernel reports whether a kernel is an entry of the algorithm
// framework (kernels/lib): those run in both simulator modes under
// scheduler's corpus test, every registered (algorithm, variant) on every
// corpus graph, validated against graph/ref.
func frameworkKernel(name string) bool {
	for _, a := range scheduler.Algorithms() {
		if a.Kernel != "" && strings.HasPrefix(name, a.Kernel+"_") {
			return true
		}
	}
	return strings.HasPrefix(name, "simdx_")
}

func TestEveryKernelIsTested(t *testing.T) {
	for _, k := range kernels.Kernels() {
		_, ok := kernelTests[k.Name]
		ok = ok || frameworkKernel(k.Name)
		assert.True(t, ok, "kernel %s (kernels/%s.cu) has no simulator test in sim/kernels_test.go", k.Name, k.Module.Name)
	}
}

// modes are the execution modes every kernel test runs in: results must
// match the host formulas, and therefore each other, in both.
var modes = []Mode{ModeFunctional, ModeTiming}

// forModes runs f on a tiny device in each mode.
func forModes(t *testing.T, f func(t *testing.T, d *Device)) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) { f(t, tinyDevice(t, WithMode(m))) })
	}
}

func tinyDevice(t testing.TB, opts ...Option) *Device {
	t.Helper()
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	d, err := New(cfg, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func lookup(t testing.TB, name string) *kernels.Kernel {
	t.Helper()
	k, err := kernels.Lookup(name)
	require.NoError(t, err)
	return k
}

func upload[T kernels.Word](t testing.TB, d *Device, vals []T) kernels.DevPtr {
	t.Helper()
	p, err := kernels.AllocCopy(d, vals)
	require.NoError(t, err)
	return p
}

func zeros[T kernels.Word](t testing.TB, d *Device, n int) kernels.DevPtr {
	t.Helper()
	p, err := kernels.AllocSlice[T](d, n)
	require.NoError(t, err)
	return p
}

func download[T kernels.Word](t testing.TB, d *Device, p kernels.DevPtr, n int) []T {
	t.Helper()
	out := make([]T, n)
	require.NoError(t, kernels.Download(d, out, p))
	return out
}

func launch(t testing.TB, d *Device, k *kernels.Kernel, grid, block int, args ...any) kernels.LaunchStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(grid), Block: kernels.D1(block)}, args...)
	require.NoError(t, err)
	return st
}

func TestKernelStream(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "stream")
		tests := []struct {
			name     string
			n, block int
		}{
			{"one partial CTA", 100, 128},
			{"many CTAs, ragged end", 5000, 128},
			{"block of 96", 1000, 96},
			{"exact multiple", 2048, 256},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a, b := make([]float32, tc.n), make([]float32, tc.n)
				for i := range a {
					a[i] = float32(i)*0.37 - 11
					b[i] = float32(tc.n-i) / 7
				}
				const pad = 64
				pa, pb, pc := upload(t, d, a), upload(t, d, b), zeros[float32](t, d, tc.n+pad)
				grid := (tc.n + tc.block - 1) / tc.block
				st := launch(t, d, k, grid, tc.block, pa, pb, pc, uint32(tc.n))
				c := download[float32](t, d, pc, tc.n+pad)
				for i := 0; i < tc.n; i++ {
					if c[i] != a[i]+b[i] {
						t.Fatalf("c[%d] = %v, want %v", i, c[i], a[i]+b[i])
					}
				}
				assert.Equal(t, make([]float32, pad), c[tc.n:], "nothing past c[n-1] is written")
				assert.Equal(t, float64(grid), st.Counters["ctas"])
				assert.Positive(t, st.Counters["thread_instructions"])
				if d.Mode() == ModeFunctional {
					assert.Zero(t, st.Elapsed)
				} else {
					assert.Positive(t, st.Elapsed)
					assert.Positive(t, st.Cycles)
				}
			})
		}
	})
}

func contentionValue(t, r uint32) uint32 { return t ^ (r * 0x9E3779B9) }

func TestKernelAtomicContention(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		for _, name := range []string{"atomic_contention_shared", "atomic_contention_global"} {
			k := lookup(t, name)
			for _, tc := range []struct{ threads, degree, reps, grid int }{
				{1024, 1, 3, 1}, {1024, 32, 5, 1}, {1024, 1024, 2, 1}, {256, 0, 4, 3}, {256, 7, 9, 2}, {128, 3, 0, 1},
			} {
				t.Run(fmt.Sprintf("%s/T=%d/d=%d/reps=%d/grid=%d", name, tc.threads, tc.degree, tc.reps, tc.grid), func(t *testing.T) {
					deg := max(tc.degree, 1)
					slots := (tc.threads + deg - 1) / deg
					out := zeros[uint32](t, d, tc.grid*slots)
					launch(t, d, k, tc.grid, tc.threads, out, uint32(tc.degree), uint32(tc.reps))
					got := download[uint32](t, d, out, tc.grid*slots)
					for b := 0; b < tc.grid; b++ {
						for a := 0; a < slots; a++ {
							want := uint32(0xFFFFFFFF)
							for th := a * deg; th < min((a+1)*deg, tc.threads); th++ {
								for r := 0; r < tc.reps; r++ {
									want = min(want, contentionValue(uint32(th), uint32(r)))
								}
							}
							if got[b*slots+a] != want {
								t.Fatalf("out[%d*%d+%d] = %#x, want %#x", b, slots, a, got[b*slots+a], want)
							}
						}
					}
				})
			}
		}
	})
}

func TestKernelBankStride(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		for _, name := range []string{"bank_stride", "bank_stride_padded"} {
			k := lookup(t, name)
			for _, tc := range []struct{ stride, reps, grid, block int }{
				{0, 5, 1, 32}, {1, 40, 2, 64}, {2, 7, 1, 96}, {3, 33, 1, 128}, {32, 10, 2, 32}, {33, 3, 1, 1024}, {16, 0, 1, 64},
			} {
				t.Run(fmt.Sprintf("%s/stride=%d/reps=%d", name, tc.stride, tc.reps), func(t *testing.T) {
					n := tc.grid * tc.block
					out := zeros[uint32](t, d, n)
					launch(t, d, k, tc.grid, tc.block, out, uint32(tc.stride), uint32(tc.reps))
					got := download[uint32](t, d, out, n)
					for g := 0; g < n; g++ {
						l := uint32(g % 32)
						var want uint32
						for r := uint32(0); r < uint32(tc.reps); r++ {
							want += (l*uint32(tc.stride) + 32*r) % 1024
						}
						if got[g] != want {
							t.Fatalf("out[%d] = %d, want %d", g, got[g], want)
						}
					}
				})
			}
		}
	})
}

// barrierRun launches global_barrier with G CTAs and returns its buffers.
type barrierResult struct {
	arrive               []uint32
	release, mismatches  uint32
	counters             []uint32
	abort                int32
	err                  error
	warpInstructions     float64
	maxResident, ctasRun float64
}

func runGlobalBarrier(t *testing.T, d *Device, ctas, block, reps int, budget uint32, timeout time.Duration, cooperative bool) barrierResult {
	t.Helper()
	k := lookup(t, "global_barrier")
	arrive := zeros[uint32](t, d, ctas)
	release := zeros[uint32](t, d, 1)
	counters := zeros[uint32](t, d, max(reps, 1))
	mism := zeros[uint32](t, d, 1)
	abort := zeros[int32](t, d, 1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(ctas), Block: kernels.D1(block), Cooperative: cooperative},
		arrive, release, counters, mism, uint32(reps), budget, abort)
	r := barrierResult{err: err}
	r.arrive = download[uint32](t, d, arrive, ctas)
	r.release = download[uint32](t, d, release, 1)[0]
	r.counters = download[uint32](t, d, counters, max(reps, 1))
	r.mismatches = download[uint32](t, d, mism, 1)[0]
	r.abort = download[int32](t, d, abort, 1)[0]
	if st.Counters != nil {
		r.warpInstructions, r.maxResident, r.ctasRun = st.Counters["warp_instructions"], st.Counters["max_resident_ctas"], st.Counters["ctas"]
	}
	return r
}

func TestKernelGlobalBarrier(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "global_barrier")
		const block = 64
		perSM, err := d.Occupancy(k, block, 0)
		require.NoError(t, err)
		require.Positive(t, perSM)
		limit := perSM * d.Properties().SMs
		t.Logf("global_barrier: %d CTAs per SM, %d co-resident on tiny", perSM, limit)

		t.Run("at the co-resident limit it completes", func(t *testing.T) {
			for _, budget := range []uint32{0, 1 << 20} {
				const reps = 4
				r := runGlobalBarrier(t, d, limit, block, reps, budget, 30*time.Second, true)
				require.NoError(t, r.err)
				assert.Zero(t, r.abort, "abort flag")
				assert.Zero(t, r.mismatches, "mismatches")
				g := uint32(limit)
				for i, c := range r.counters {
					assert.Equal(t, g*(g+1)/2, c, "counters[%d]", i)
				}
				assert.Equal(t, uint32(reps), r.release)
				assert.Equal(t, make([]uint32, limit), r.arrive, "arrive flags cleared")
				assert.Equal(t, float64(limit), r.maxResident)
			}
		})
		t.Run("one CTA over the limit with a finite budget aborts", func(t *testing.T) {
			r := runGlobalBarrier(t, d, limit+1, block, 3, 500, 30*time.Second, false)
			require.NoError(t, r.err, "the kernel itself ends: every wait gives up")
			assert.Equal(t, int32(1), r.abort, "abort flag")
			assert.Less(t, r.release, uint32(3))
		})
		t.Run("one CTA over the limit with budget 0 ends as a deadlock", func(t *testing.T) {
			start := time.Now()
			r := runGlobalBarrier(t, d, limit+1, block, 2, 0, 20*time.Second, false)
			require.Error(t, r.err)
			var dl *kernels.DeadlockError
			require.ErrorAs(t, r.err, &dl, "got %v", r.err)
			assert.Equal(t, "global_barrier", dl.Kernel)
			// Both modes run one detector and name the spinning PTX
			// and source lines.
			assert.Contains(t, dl.Detail, "livelock")
			assert.Contains(t, dl.Detail, "deadlock window")
			assert.Contains(t, dl.Detail, "spinning on the load")
			assert.Contains(t, dl.Detail, "global_barrier.cu")
			assert.Contains(t, dl.Detail, "1 CTAs wait to be dispatched")
			if d.Mode() == ModeTiming {
				// The timing model also names the resource that keeps
				// the last CTA out.
				assert.Contains(t, dl.Detail, "CTA slots: 4 of 4 in use on SMs 0, 1")
			}
			assert.Less(t, time.Since(start), 15*time.Second, "detected without waiting for the deadline")
			t.Log(r.err)
		})
		t.Run("a cooperative launch over the limit is refused", func(t *testing.T) {
			r := runGlobalBarrier(t, d, limit+1, block, 1, 0, 10*time.Second, true)
			var le *kernels.LaunchResourceError
			require.ErrorAs(t, r.err, &le)
			assert.Contains(t, le.Detail, "co-resident")
		})
	})
}

// bfsOnDevice drives bfs_topdown level by level, checking every level's
// output frontier, and returns the depths.
func bfsOnDevice(t *testing.T, d *Device, g *graph.Graph, src uint32, block int) []uint32 {
	t.Helper()
	k := lookup(t, "bfs_topdown")
	n := g.NumVertices()
	rows := upload(t, d, g.Offsets)
	targets := g.Targets
	if len(targets) == 0 {
		targets = []uint32{0}
	}
	cols := upload(t, d, targets)
	depth := make([]uint32, n)
	for i := range depth {
		depth[i] = ref.Unreached
	}
	depth[src] = 0
	pDepth := upload(t, d, depth)
	fin, fout := zeros[uint32](t, d, n), zeros[uint32](t, d, n)
	flen := zeros[uint32](t, d, 1)
	require.NoError(t, kernels.Upload(d, fin, []uint32{src}))
	count := 1
	for level := uint32(0); count > 0; level++ {
		require.NoError(t, d.Memset(flen, 0, 4))
		launch(t, d, k, (count+block-1)/block, block, rows, cols, pDepth, fin, uint32(count), fout, flen, level)
		next := int(download[uint32](t, d, flen, 1)[0])
		require.LessOrEqual(t, next, n)
		front := download[uint32](t, d, fout, n)[:next]
		now := download[uint32](t, d, pDepth, n)
		want := []uint32{}
		for v, dv := range now {
			if dv == level+1 {
				want = append(want, uint32(v))
			}
		}
		got := slices.Clone(front)
		slices.Sort(got)
		require.Equal(t, want, got, "level %d: the output frontier is exactly the newly reached vertices, once each", level)
		fin, fout = fout, fin
		count = next
	}
	return download[uint32](t, d, pDepth, n)
}

func TestKernelBFSTopDown(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		for _, tc := range []struct {
			spec  string
			block int
		}{
			{"rmat:scale=10", 128},
			{"grid:w=32,h=32", 64},
		} {
			t.Run(tc.spec, func(t *testing.T) {
				g, err := graph.Load(tc.spec, graph.LoadOptions{})
				require.NoError(t, err)
				for _, src := range []uint32{0, g.MaxDegreeVertex()} {
					got := bfsOnDevice(t, d, g, src, tc.block)
					want := ref.BFS(g, src)
					require.Equal(t, want, got, "depths from %d", src)
				}
			})
		}
	})
}

// roundFMA32 is x*y+z rounded once to float32, computed exactly.
func roundFMA32(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(256).SetFloat64(float64(x))
	p.Mul(p, new(big.Float).SetPrec(256).SetFloat64(float64(y)))
	p.Add(p, new(big.Float).SetPrec(256).SetFloat64(float64(z)))
	f, _ := p.Float32()
	return f
}

func TestKernelIntrinsics(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "intrinsics")
		const ctas, block = 3, 96
		const T = ctas * block
		in := make([]float32, T)
		for i := range in {
			in[i] = 0.03125 + float32(i%89)*0.73 + float32(i%7)/9 // 2^x stays finite
		}
		pin := upload(t, d, in)
		pu := zeros[uint32](t, d, 16*T)
		pf := zeros[float32](t, d, 8*T)
		pc := zeros[uint64](t, d, 13) // 26 words, 8-byte aligned
		launch(t, d, k, ctas, block, pin, pu, pf, pc)
		u := download[uint32](t, d, pu, 16*T)
		f := download[float32](t, d, pf, 8*T)
		c := download[uint32](t, d, pc, 26)
		c64 := download[uint64](t, d, pc, 13)

		ffs := func(x uint32) uint32 {
			if x == 0 {
				return 0
			}
			return uint32(bits.TrailingZeros32(x)) + 1
		}
		for g := uint32(0); g < T; g++ {
			l := g % 32
			b2 := func(b bool) uint32 {
				if b {
					return 1
				}
				return 0
			}
			sel := func(c bool, a, b uint32) uint32 {
				if c {
					return a
				}
				return b
			}
			want := [16]uint32{
				l, (g % block) / 32, 1<<l - 1, 0x49249249, 1, 0,
				7 * (g - l + (l+3)%32),
				sel(l >= 1, g-1, g),
				sel(l < 30, g+2, g),
				g ^ 5,
				g - l%8,
				sel(l%8 < 4, g+4, g),
				uint32(bits.OnesCount32(g * 0x9E3779B9)),
				uint32(bits.LeadingZeros32(g)),
				ffs(g << 4),
				uint32(bits.OnesCount64(uint64(g) * 0x9E3779B97F4A7C15)),
			}
			_ = b2
			require.Equal(t, want[:], u[16*g:16*g+16], "u32 results of thread %d", g)

			x := in[g]
			fr := f[8*g : 8*g+8]
			assert.Equal(t, in[g-l+(l+1)%32], fr[0], "shfl f32 thread %d", g)
			assert.InEpsilon(t, math.Exp2(float64(x)), float64(fr[1]), 1e-6, "ex2 thread %d", g)
			assert.InEpsilon(t, math.Log2(float64(x)), float64(fr[2]), 1e-6, "lg2 thread %d", g)
			assert.Equal(t, 1/x, fr[3], "rcp.rn thread %d", g)
			assert.Equal(t, float32(math.Sqrt(float64(x))), fr[4], "sqrt.rn thread %d", g)
			assert.InEpsilon(t, math.Exp2(float64(x*1.4426950408889634)), float64(fr[5]), 1e-6, "__expf thread %d", g)
			assert.Equal(t, fr[2]*float32(0.6931471805599453), fr[6], "__logf thread %d", g)
			assert.Equal(t, roundFMA32(x, 3, 0.25), fr[7], "fma thread %d", g)
		}
		i32 := func(v int) uint32 { return uint32(int32(v)) }
		tt, cc := uint32(T), uint32(ctas)
		want := map[int]uint32{
			0: tt, 1: 0 - 2*tt, 2: tt - 1, 3: i32(-(T - 1)), 4: uint32(max(0, T-1001)),
			5: 0xFFFFFFFF, 6: 0, 7: 7, 8: 5, 9: 1, 20: math.Float32bits(T), 21: 1,
			22: tt, 23: ctas * (block - 1), 24: i32(-ctas * (block - 1)), 25: cc * 0xFFFFFFFF,
		}
		for i, w := range want {
			assert.Equal(t, w, c[i], "counters[%d]", i)
		}
		assert.Equal(t, uint64(T)*(1<<32+1), c64[5], "u64 add")
		assert.Equal(t, uint64(T-1)<<33, c64[6], "u64 max")
		assert.Equal(t, uint64(1-int64(tt)), c64[7], "s64 min")
		assert.Equal(t, uint64(1<<40+3), c64[8], "u64 exch")
		assert.Equal(t, uint64(9), c64[9], "u64 cas")
	})
}

func TestKernelDivMod(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "divmod_probe")
		in32 := [][2]uint32{
			{100, 7}, {0xFFFFFF9C, 7}, {7, 0}, {0, 0}, {0xFFFFFFFF, 0}, {0x80000000, 0}, {0xFFFFFFF9, 0},
			{0x80000000, 0xFFFFFFFF}, {5, 0xFFFFFFFF}, {123456789, 1000}, {0xFFFFFFFF, 2},
		}
		in64 := [][2]uint64{
			{100, 7}, {math.MaxUint64 - 99, 7}, {7, 0}, {0, 0}, {math.MaxUint64, 0}, {1 << 40, 0}, {1 << 63, 0},
			{math.MaxUint64 - 6, 0}, {1 << 63, math.MaxUint64}, {1 << 40, math.MaxUint64}, {1 << 50, 3},
		}
		n := len(in32)
		a32, b32, a64, b64 := make([]uint32, n), make([]uint32, n), make([]uint64, n), make([]uint64, n)
		for i := range n {
			a32[i], b32[i] = in32[i][0], in32[i][1]
			a64[i], b64[i] = in64[i][0], in64[i][1]
		}
		args := []any{upload(t, d, a32), upload(t, d, b32), upload(t, d, a64), upload(t, d, b64)}
		var outs []kernels.DevPtr
		for i := range 8 {
			if i < 4 {
				outs = append(outs, zeros[uint32](t, d, n))
			} else {
				outs = append(outs, zeros[uint64](t, d, n))
			}
			args = append(args, outs[i])
		}
		args = append(args, uint32(n))
		launch(t, d, k, 1, 32, args...)
		q32u, r32u := download[uint32](t, d, outs[0], n), download[uint32](t, d, outs[1], n)
		q32s, r32s := download[uint32](t, d, outs[2], n), download[uint32](t, d, outs[3], n)
		q64u, r64u := download[uint64](t, d, outs[4], n), download[uint64](t, d, outs[5], n)
		q64s, r64s := download[uint64](t, d, outs[6], n), download[uint64](t, d, outs[7], n)
		// The kernel's 64-bit division takes clang's 32-bit fast path when
		// both operands fit in 32 bits (div.u32, then widened), so a small
		// dividend over zero gives the 32-bit answer; remainders are a - q*b.
		for i := range n {
			a, b := a32[i], b32[i]
			var wq, wqs uint32
			switch {
			case b == 0:
				q, _ := exec.DivByZero(ptx.TypeU32, uint64(a))
				qs, _ := exec.DivByZero(ptx.TypeS32, uint64(a))
				wq, wqs = uint32(q), uint32(qs)
			case int32(a) == math.MinInt32 && int32(b) == -1:
				wq, wqs = a/b, a
			default:
				wq, wqs = a/b, uint32(int32(a)/int32(b))
			}
			wr, wrs := a-wq*b, a-wqs*b
			assert.Equal(t, []uint32{wq, wr, wqs, wrs}, []uint32{q32u[i], r32u[i], q32s[i], r32s[i]}, "32-bit %#x / %#x", a, b)
			c, e := a64[i], b64[i]
			var xq, xqs uint64
			switch {
			case (c|e)>>32 == 0 && e == 0:
				q, _ := exec.DivByZero(ptx.TypeU32, c)
				xq, xqs = q, q
			case e == 0:
				xq, _ = exec.DivByZero(ptx.TypeU64, c)
				xqs, _ = exec.DivByZero(ptx.TypeS64, c)
			case int64(c) == math.MinInt64 && int64(e) == -1:
				xq, xqs = c/e, c
			default:
				xq, xqs = c/e, uint64(int64(c)/int64(e))
			}
			xr, xrs := c-xq*e, c-xqs*e
			assert.Equal(t, []uint64{xq, xr, xqs, xrs}, []uint64{q64u[i], r64u[i], q64s[i], r64s[i]}, "64-bit %#x / %#x", c, e)
		}
	})
}
