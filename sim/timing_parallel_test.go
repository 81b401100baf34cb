package sim

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
)

// engineRun is what one kernel case produced on one engine: the memory the
// case checks, the simulated cycles summed over its launches, and the
// error of its last launch, if the case expects one.
type engineRun struct {
	memory map[string][]uint32
	cycles uint64
	err    error
}

// engineCase is a kernel case run once per engine.
type engineCase struct {
	name string
	run  func(t *testing.T, d *Device) engineRun
}

// engineSlack is the relative difference in cycles allowed between the
// engines (see TestParallelEngineMatchesSerial). Over ten runs on the
// development machine, intrinsics (three CTAs on two SMs, all atomics on a
// few addresses) differed by -2.0% to +2.5%, bfs_topdown by up to 0.4%,
// the others by at most 0.2%, most not at all.
const engineSlack = 0.05

// launchCycles launches a kernel and returns the launch's cycles.
func launchCycles(t *testing.T, d *Device, k *kernels.Kernel, grid, block int, args ...any) uint64 {
	t.Helper()
	return launch(t, d, k, grid, block, args...).Cycles
}

func engineCases(t *testing.T) []engineCase {
	var cases []engineCase
	cases = append(cases, engineCase{name: "stream/n=5000", run: func(t *testing.T, d *Device) engineRun {
		const n, block = 5000, 128
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i)*0.37-11, float32(n-i)/7
		}
		pa, pb, pc := upload(t, d, a), upload(t, d, b), zeros[uint32](t, d, n+64)
		cyc := launchCycles(t, d, lookup(t, "stream"), (n+block-1)/block, block, pa, pb, pc, uint32(n))
		return engineRun{memory: map[string][]uint32{"c": download[uint32](t, d, pc, n+64)}, cycles: cyc}
	}})
	for _, name := range []string{"atomic_contention_shared", "atomic_contention_global"} {
		for _, tc := range []struct{ threads, degree, reps, grid int }{{1024, 32, 5, 1}, {256, 7, 9, 2}, {1024, 1024, 2, 1}} {
			cases = append(cases, engineCase{
				name: fmt.Sprintf("%s/T=%d/d=%d/grid=%d", name, tc.threads, tc.degree, tc.grid),
				run: func(t *testing.T, d *Device) engineRun {
					slots := (tc.threads + tc.degree - 1) / tc.degree
					out := zeros[uint32](t, d, tc.grid*slots)
					cyc := launchCycles(t, d, lookup(t, name), tc.grid, tc.threads, out, uint32(tc.degree), uint32(tc.reps))
					return engineRun{memory: map[string][]uint32{"out": download[uint32](t, d, out, tc.grid*slots)}, cycles: cyc}
				},
			})
		}
	}
	for _, name := range []string{"bank_stride", "bank_stride_padded"} {
		for _, tc := range []struct{ stride, reps, grid, block int }{{3, 33, 1, 128}, {32, 10, 2, 32}, {33, 3, 1, 1024}} {
			cases = append(cases, engineCase{
				name: fmt.Sprintf("%s/stride=%d/grid=%d", name, tc.stride, tc.grid),
				run: func(t *testing.T, d *Device) engineRun {
					n := tc.grid * tc.block
					out := zeros[uint32](t, d, n)
					cyc := launchCycles(t, d, lookup(t, name), tc.grid, tc.block, out, uint32(tc.stride), uint32(tc.reps))
					return engineRun{memory: map[string][]uint32{"out": download[uint32](t, d, out, n)}, cycles: cyc}
				},
			})
		}
	}
	barrier := func(over, reps int, budget uint32) func(t *testing.T, d *Device) engineRun {
		return func(t *testing.T, d *Device) engineRun {
			const block = 64
			perSM, err := d.Occupancy(lookup(t, "global_barrier"), block, 0)
			require.NoError(t, err)
			ctas := perSM*d.Properties().SMs + over
			r := runGlobalBarrier(t, d, ctas, block, reps, budget, 30*time.Second, over == 0)
			var cyc uint64
			if st := d.LastStats(); st != nil {
				cyc = st.Cycles
			}
			return engineRun{memory: map[string][]uint32{
				"arrive": r.arrive, "release": {r.release}, "counters": r.counters,
				"mismatches": {r.mismatches}, "abort": {uint32(r.abort)},
			}, cycles: cyc, err: r.err}
		}
	}
	cases = append(cases,
		engineCase{name: "global_barrier/at the limit", run: barrier(0, 4, 0)},
		engineCase{name: "global_barrier/at the limit, budget", run: barrier(0, 4, 1<<20)},
		// Spins until the deadlock detector ends it.
		engineCase{name: "global_barrier/over the limit deadlocks", run: barrier(1, 2, 0)},
	)
	cases = append(cases, engineCase{name: "intrinsics", run: func(t *testing.T, d *Device) engineRun {
		const ctas, block = 3, 96
		in := make([]float32, ctas*block)
		for i := range in {
			in[i] = 0.03125 + float32(i%89)*0.73 + float32(i%7)/9
		}
		pu, pf := zeros[uint32](t, d, 16*len(in)), zeros[float32](t, d, 8*len(in))
		pc := zeros[uint64](t, d, 13)
		cyc := launchCycles(t, d, lookup(t, "intrinsics"), ctas, block, upload(t, d, in), pu, pf, pc)
		// The third buffer holds %clock readings, which follow the cycles.
		return engineRun{memory: map[string][]uint32{
			"u": download[uint32](t, d, pu, 16*len(in)), "f": download[uint32](t, d, pf, 8*len(in)),
		}, cycles: cyc}
	}})
	g, err := graph.Load("rmat:scale=10", graph.LoadOptions{})
	require.NoError(t, err)
	src := g.MaxDegreeVertex()
	cases = append(cases, engineCase{name: fmt.Sprintf("bfs_topdown/rmat:scale=10/src=%d", src),
		run: func(t *testing.T, d *Device) engineRun {
			depth, cyc := bfsCycles(t, d, g, src, 128)
			require.Equal(t, ref.BFS(g, src), depth)
			return engineRun{memory: map[string][]uint32{"depth": depth}, cycles: cyc}
		}})
	return cases
}

// bfsCycles runs bfs_topdown level by level and returns the depths and the
// cycles of all levels. The order of each output frontier depends on the
// order in which warps win their atomics, so it is not returned; its set
// is checked against the depths.
func bfsCycles(t *testing.T, d *Device, g *graph.Graph, src uint32, block int) ([]uint32, uint64) {
	t.Helper()
	k := lookup(t, "bfs_topdown")
	n := g.NumVertices()
	rows, cols := upload(t, d, g.Offsets), upload(t, d, g.Targets)
	depth := make([]uint32, n)
	for i := range depth {
		depth[i] = ref.Unreached
	}
	depth[src] = 0
	pDepth := upload(t, d, depth)
	fin, fout := zeros[uint32](t, d, n), zeros[uint32](t, d, n)
	flen := zeros[uint32](t, d, 1)
	require.NoError(t, kernels.Upload(d, fin, []uint32{src}))
	var cycles uint64
	for level, count := uint32(0), 1; count > 0; level++ {
		require.NoError(t, d.Memset(flen, 0, 4))
		cycles += launchCycles(t, d, k, (count+block-1)/block, block, rows, cols, pDepth, fin, uint32(count), fout, flen, level)
		next := int(download[uint32](t, d, flen, 1)[0])
		front := slices.Sorted(slices.Values(download[uint32](t, d, fout, n)[:next]))
		var want []uint32
		for v, dv := range download[uint32](t, d, pDepth, n) {
			if dv == level+1 {
				want = append(want, uint32(v))
			}
		}
		require.Equal(t, want, front, "level %d", level)
		fin, fout, count = fout, fin, next
	}
	return download[uint32](t, d, pDepth, n), cycles
}

// TestParallelEngineMatchesSerial runs representative kernel cases of
// kernels_test.go on the tiny configuration in timing mode with akita's
// serial engine and with its parallel engine (run it with -race). The
// memory each case checks must be the same; so must the error of a launch
// that deadlocks. Cycle counts may differ by a little: under the parallel
// engine the SMs that tick in one cycle run in the order their events
// reach the GPU's queue, and memory components that send in one cycle
// enter the fabric in the order they get its lock, which breaks ties
// between same-cycle requests differently from the serial engine (whose
// same-time order is that of its event heap). Cycles are therefore
// compared within engineSlack, not for equality; under the parallel engine
// they are not reproducible from run to run either.
func TestParallelEngineMatchesSerial(t *testing.T) {
	for _, tc := range engineCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			serial := tc.run(t, tinyDevice(t, WithMode(ModeTiming)))
			par := tc.run(t, tinyDevice(t, WithMode(ModeTiming), WithParallelEngine(true)))
			assert.Equal(t, serial.memory, par.memory)
			var sd, pd *kernels.DeadlockError
			if errors.As(serial.err, &sd) {
				require.ErrorAs(t, par.err, &pd)
				assert.Equal(t, sd.Kernel, pd.Kernel)
				assert.Contains(t, pd.Detail, "deadlock window")
			} else {
				require.NoError(t, serial.err)
				require.NoError(t, par.err)
			}
			require.Positive(t, serial.cycles)
			assert.InEpsilon(t, float64(serial.cycles), float64(par.cycles), engineSlack,
				"serial %d cycles, parallel %d", serial.cycles, par.cycles)
			t.Logf("serial %d cycles, parallel %d (%+.3f%%)", serial.cycles, par.cycles,
				100*(float64(par.cycles)/float64(serial.cycles)-1))
		})
	}
}
