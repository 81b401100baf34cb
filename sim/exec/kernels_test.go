package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// Tests over testdata/exec.cu, compiled by clang: realistic divergence,
// calls, memories, collectives, atomics, barriers and failures.

func execPTX(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/exec.ptx")
	require.NoError(t, err)
	return string(b)
}

func TestDivergence(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, execPTX(t), fast)
		const T, n = 192, 150
		in := make([]uint32, T)
		for j := range in {
			in[j] = uint32(int32((j*37+11)%250 - 20))
		}
		out := make([]uint32, T)
		for i := range out {
			out[i] = 0xDEAD
		}
		pin, pout := m.allocU32(in...), m.allocU32(out...)
		_, err := m.launch("divergence", d1(3, 64), pout, pin, n)
		require.NoError(t, err)
		got := m.u32s(pout, T)
		for ti := 0; ti < T; ti++ {
			v := int32(in[ti])
			var acc int32
			if ti&1 != 0 {
				if ti&2 != 0 {
					acc = v * 3
				} else {
					acc = v - 5
				}
				if ti&4 != 0 {
					for i := 0; i < ti&7; i++ {
						acc += int32(i)
					}
				}
			} else {
				acc = v / 3
			}
			for j := 0; j < n; j++ {
				if int32(in[j]) == int32(ti) {
					acc += 1000
					break
				}
				if (j+ti)%5 == 0 {
					continue
				}
				acc ^= int32(j)
			}
			want := uint32(acc)
			if ti%7 == 3 {
				want = 0xDEAD
			}
			assert.Equal(t, want, got[ti], "thread %d", ti)
		}
	})
}

func helperRef(a, b int32) int32 {
	var s int32
	for k := int32(0); k < b; k++ {
		if k&1 != 0 {
			s += a ^ k
		} else {
			s -= k
		}
	}
	return s
}

func TestCalls(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, execPTX(t), fast)
		pout := m.zeros(4 * 64)
		_, err := m.launch("calls", d1(1, 64), pout)
		require.NoError(t, err)
		got := m.u32s(pout, 64)
		for ti := int32(0); ti < 64; ti++ {
			r := helperRef(ti, ti&15)
			if ti&2 != 0 {
				r += helperRef(ti+1, 3)
			}
			want := r + (ti^1)*7 + ti + 100
			if ti&1 == 0 {
				want++
			}
			assert.Equal(t, uint32(want), got[ti], "thread %d", ti)
		}
	})
}

func TestLocalMemoryAndGenericPointers(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, execPTX(t), fast)
		prog, err := m.mod.Program("local_generic")
		require.NoError(t, err)
		assert.Positive(t, prog.LocalBytes(), "the kernel uses local memory")
		for _, k := range []int32{3, -2} {
			pout := m.zeros(4 * 64)
			_, err := m.launch("local_generic", d1(1, 64), pout, uint64(uint32(k)))
			require.NoError(t, err)
			got := m.u32s(pout, 64)
			for ti := int32(0); ti < 64; ti++ {
				var a [8]int32
				for i := range a {
					a[i] = k*int32(i) + ti
				}
				a[ti&7] += 5
				var s int32
				for i := range a {
					s += a[i] * int32(i+1)
				}
				assert.Equal(t, uint32(s+a[(ti+k)&7]), got[ti], "k=%d thread %d", k, ti)
			}
		}
	})
}

func TestDynamicShared(t *testing.T) {
	m := newMachine(t, execPTX(t), true)
	const n, grid = 96, 3
	pout := m.zeros(4 * n * grid)
	rc := d1(grid, n)
	rc.dyn = 4 * n
	_, err := m.launch("dyn_shared", rc, pout)
	require.NoError(t, err)
	got := m.u32s(pout, n*grid)
	for b := 0; b < grid; b++ {
		for ti := 0; ti < n; ti++ {
			assert.Equal(t, uint32((n-1-ti)*(n-1-ti)+b), got[b*n+ti])
		}
	}
	// Without the dynamic memory the same kernel faults in shared memory.
	_, err = m.launch("dyn_shared", d1(1, n), pout)
	var f *MemoryFault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, ptx.SpaceShared, f.Space)
}

func TestCollectives(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, execPTX(t), fast)
		const B = 64
		pu := m.zeros(4 * 32 * B)
		_, err := m.launch("collectives", d1(1, B), pu)
		require.NoError(t, err)
		u := m.u32s(pu, 32*B)
		for ti := uint32(0); ti < B; ti++ {
			l, w := ti%32, ti/32
			o := u[32*ti : 32*ti+14]
			sel := func(c bool, a, b uint32) uint32 {
				if c {
					return a
				}
				return b
			}
			want := []uint32{
				0xAAAAAAAA, 1, 1, sel(w == 0, 1, 0),
				ti - l + 31 - l,
				sel(l%16 >= 3, ti-3, ti),
				sel(l%8 < 3, ti+5, ti),
				ti ^ 12,
				0xF << (4 * (l / 4)),
				sel(l < 10, 0x3FF, 0),
				B / 2, 1, 1,
				sel(l >= 20, 0xCCC00000, 0),
			}
			assert.Equal(t, want, o, "thread %d", ti)
		}
	})
}

func TestAtomicsWithContention(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, execPTX(t), fast)
		const C, B = 3, 96
		const T = C * B
		g := make([]uint32, 16)
		g[7], g[9] = 0xFFFFFFFF, 0xFFFFFFFF
		pg := m.allocU32(g...)
		pg64 := m.zeros(16)
		pgf := m.zeros(4)
		pold, psx := m.zeros(4*T), m.zeros(4*T)
		_, err := m.launch("atomics", d1(C, B), pg, pg64, pgf, pold, psx)
		require.NoError(t, err)
		got := m.u32s(pg, 16)
		var xor, sum, mx uint32
		for ti := uint32(0); ti < T; ti++ {
			xor ^= ti
			sum += ti
			mx = max(mx, ti*7%1000)
		}
		assert.Equal(t, uint32(T), got[0], "add")
		assert.Equal(t, uint32(T%100), got[1], "inc wraps at 99")
		assert.Equal(t, uint32(49-(T-1)%50), got[2], "dec wraps at 49")
		assert.Equal(t, xor, got[3], "xor")
		assert.Equal(t, sum, got[4], "CAS loop")
		assert.Equal(t, mx, got[6], "max")
		assert.Equal(t, uint32(1000-(T-1)), got[7], "min")
		assert.Equal(t, uint32(0xFFFFFFFF), got[8], "or")
		assert.Equal(t, uint32(0x80000000), got[9], "and")
		assert.Equal(t, uint32(T), got[10], "shared add")
		assert.Equal(t, uint32(C*(B%10)), got[11], "shared inc")
		assert.Equal(t, uint32(C*B*(B-1)/2), got[12], "shared CAS loop")
		g64 := m.u64s(pg64, 2)
		assert.Equal(t, uint64(sum), g64[0], "64-bit CAS loop")
		assert.Equal(t, uint64(T-1)<<40, g64[1], "64-bit max")
		assert.Equal(t, float32(T)/2, m.f32s(pgf, 1)[0], "float add")

		// The exchange chains: lanes apply in ascending order, so within a
		// warp lane l >= 1 sees lane l-1's value; globally the old values
		// and the final one are a permutation of the initial 0 and every
		// thread's value.
		old := m.u32s(pold, T)
		sx := m.u32s(psx, T)
		for ti := uint32(0); ti < T; ti++ {
			if ti%32 != 0 {
				assert.Equal(t, ti-1, old[ti], "exch old of thread %d", ti)
				assert.Equal(t, ti%B, sx[ti], "shared exch old of thread %d", ti)
			}
		}
		all := append(slices.Clone(old), got[5])
		slices.Sort(all)
		want := []uint32{0}
		for ti := uint32(0); ti < T; ti++ {
			want = append(want, ti)
		}
		assert.Equal(t, want, all)
	})
}

// TestBarriers runs its kernels in rounds and in order; in order, each
// round checks that the CTAs' ready masks follow their warps' states
// through the barriers' waits and releases and the warps' exits.
func TestBarriers(t *testing.T) {
	t.Run("rounds", testBarriers)
	t.Run("in order", func(t *testing.T) {
		launchInOrder, checkReadyMask = true, true
		defer func() { launchInOrder, checkReadyMask = false, false }()
		testBarriers(t)
	})
}

func testBarriers(t *testing.T) {
	m := newMachine(t, execPTX(t), true)
	t.Run("exited warps count as arrived", func(t *testing.T) {
		out := make([]uint32, 128)
		for i := range out {
			out[i] = 0xFFFF
		}
		p := m.allocU32(out...)
		_, err := m.launch("barrier_exit", d1(1, 128), p)
		require.NoError(t, err)
		got := m.u32s(p, 128)
		for ti := 0; ti < 128; ti++ {
			want := uint32(0xFFFF)
			if ti < 64 {
				want = uint32((63 - ti) * 2)
			}
			assert.Equal(t, want, got[ti], "thread %d", ti)
		}
	})
	t.Run("barrier in a loop", func(t *testing.T) {
		const n, grid, rounds = 96, 2, 5
		p := m.zeros(4 * n * grid)
		_, err := m.launch("barrier_loop", d1(grid, n), p, rounds)
		require.NoError(t, err)
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(i)
		}
		for r := 0; r < rounds; r++ {
			next := make([]int32, n)
			for i := range next {
				next[i] = v[(i+32)%n] + int32(r)
			}
			v = next
		}
		got := m.u32s(p, n*grid)
		for b := 0; b < grid; b++ {
			for i := 0; i < n; i++ {
				assert.Equal(t, uint32(v[i]), got[b*n+i])
			}
		}
	})
	t.Run("named barriers with thread counts", func(t *testing.T) {
		p := m.zeros(4 * 128)
		_, err := m.launch("named_barriers", d1(1, 128), p)
		require.NoError(t, err)
		got := m.u32s(p, 128)
		for ti := 0; ti < 128; ti++ {
			want := uint32(64 - ti)
			if ti >= 64 {
				want = uint32(192 - ti)
			}
			assert.Equal(t, want, got[ti], "thread %d", ti)
		}
	})
	t.Run("a barrier that cannot complete is a deadlock", func(t *testing.T) {
		p := m.zeros(4 * 64)
		_, err := m.launch("barrier_deadlock", d1(2, 64), p)
		var d *kernels.DeadlockError
		require.ErrorAs(t, err, &d)
		assert.Equal(t, "barrier_deadlock", d.Kernel)
		assert.Contains(t, d.Detail, "at barrier 1")
		assert.Contains(t, d.Detail, "at barrier 0")
	})
}

func TestCrossCTASpin(t *testing.T) {
	m := newMachine(t, execPTX(t), true)
	for _, resident := range []int{1, 2} {
		flag, out := m.zeros(4), m.zeros(8)
		rc := d1(2, 32)
		rc.resident = resident
		_, err := m.launch("spin_wait", rc, flag, out, 0)
		require.NoError(t, err, "resident %d", resident)
		assert.Equal(t, uint32(7), m.u32s(out, 2)[1])
	}
	t.Run("nobody sets the flag: livelock", func(t *testing.T) {
		flag, out := m.zeros(4), m.zeros(8)
		rc := d1(2, 32)
		rc.resident = 2
		start := time.Now()
		_, err := m.launch("spin_wait", rc, flag, out, 1)
		var d *kernels.DeadlockError
		require.ErrorAs(t, err, &d)
		assert.Contains(t, d.Detail, "livelock")
		assert.Less(t, time.Since(start), 10*time.Second)
	})
	t.Run("the context bounds a spinning kernel", func(t *testing.T) {
		flag, out := m.zeros(4), m.zeros(8)
		prog, err := m.mod.Program("spin_wait")
		require.NoError(t, err)
		params := make([]byte, prog.Entry.KernelParamSize)
		putArgs(prog, params, flag, out, 1)
		g, err := NewGrid(prog, m.mem, Launch{Grid: [3]int{2, 1, 1}, Block: [3]int{32, 1, 1}, Params: params, SMs: 2})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		// A huge quiet window disables the livelock check.
		err = g.Run(ctx, RunOptions{Resident: 2, QuietWindow: 1 << 62})
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
		assert.Contains(t, err.Error(), "spin_wait")
	})
}

func putArgs(prog *Program, params []byte, args ...uint64) {
	for i, p := range prog.Entry.Inputs() {
		for b := 0; b < p.Size; b++ {
			params[p.Offset+b] = byte(args[i] >> (8 * b))
		}
	}
}

func TestMemoryFaults(t *testing.T) {
	m := newMachine(t, execPTX(t), true)
	buf := m.zeros(64)
	tests := []struct {
		name   string
		args   []uint64
		space  ptx.Space
		reason string
	}{
		{"global out of range", []uint64{buf, 1 << 24, 0, 0}, ptx.SpaceGlobal, "outside global memory"},
		{"null pointer", []uint64{0, 0, 0, 0}, ptx.SpaceGlobal, "null pointer"},
		{"misaligned", []uint64{buf, 0, 0, 1}, ptx.SpaceGlobal, "misaligned"},
		{"shared out of range", []uint64{buf, 100, 1, 0}, ptx.SpaceShared, "shared memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.launch("fault", d1(2, 32), tc.args...)
			var f *MemoryFault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, "fault", f.Kernel)
			assert.Equal(t, [3]uint32{1, 0, 0}, f.CTA)
			assert.Equal(t, [3]uint32{5, 0, 0}, f.Thread)
			assert.Equal(t, tc.space, f.Space)
			assert.Contains(t, f.Reason, tc.reason)
			assert.Positive(t, f.PTXLine)
			assert.Contains(t, f.Source, "sim/exec/testdata/exec.cu:")
			var kf *kernels.MemoryFaultError
			require.ErrorAs(t, err, &kf)
			assert.Equal(t, "fault", kf.Kernel)
			assert.Contains(t, err.Error(), "CTA (1,0,0) thread (5,0,0)")
			t.Log(err)
		})
	}
}

func TestTrap(t *testing.T) {
	m := newMachine(t, execPTX(t), true)
	_, err := m.launch("trap_kernel", d1(1, 32), m.zeros(128))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "trap")
	assert.Contains(t, err.Error(), "CTA (0,0,0) thread (3,0,0)")
	assert.Contains(t, err.Error(), "exec.cu:")
}

func TestCountersAndPartialWarps(t *testing.T) {
	m := newMachine(t, kernelPTX(t, "stream"), true)
	const n = 40 // one full warp and one of 8 threads
	pa, pb, pc := m.zeros(4*n), m.zeros(4*n), m.zeros(4*n)
	g, err := m.launch("stream", d1(1, n), pa, pb, pc, n)
	require.NoError(t, err)
	prog, _ := m.mod.Program("stream")
	insts := uint64(len(prog.Entry.Insts))
	// Every thread is in range, so each warp runs the whole straight-line
	// kernel once.
	assert.Equal(t, 2*insts, g.WarpInsts)
	assert.Equal(t, (32+8)*insts, g.ThreadInsts)
	assert.Equal(t, 1, g.Finished)
	assert.Equal(t, uint32(0xFF), m.warpInit(g))
}

// warpInit dispatches a fresh CTA of g's shape and returns its last warp's
// initial mask.
func (m *machine) warpInit(g *Grid) uint32 {
	g2, err := NewGrid(g.prog, m.mem, g.L)
	require.NoError(m.t, err)
	c := g2.Dispatch(0)
	return c.Warps()[len(c.Warps())-1].ActiveMask()
}

// TestSlotSharingShrinksTheRegisterFile: the entries of testdata/exec.ptx
// need fewer rows than they declare registers when registers share slots,
// and as many without; the kernels' results are the same either way
// (sim's TestRegisterSlotSharingMovesNothing compares cycles too).
func TestSlotSharingShrinksTheRegisterFile(t *testing.T) {
	rows := map[bool]int{}
	declared := 0
	for _, share := range []bool{false, true} {
		was := SetSlotSharing(share)
		m := newMachine(t, execPTX(t), true)
		for _, fn := range m.mod.PTX.Funcs {
			if fn.Kind != ptx.KindEntry || fn.Extern {
				continue
			}
			p, err := m.mod.Program(fn.Name)
			require.NoError(t, err)
			rows[share] += p.Registers()
			if !share {
				declared += fn.NumRegs
			}
		}
		t.Run(fmt.Sprintf("share=%v", share), func(t *testing.T) {
			TestDivergence(t)
			TestCalls(t)
			TestCollectives(t)
			TestBarriers(t)
			TestCrossCTASpin(t)
		})
		SetSlotSharing(was)
	}
	assert.Equal(t, declared, rows[false])
	assert.Less(t, rows[true]*2, rows[false], "shared slots: %d rows for %d registers", rows[true], declared)
	t.Logf("%d registers in %d rows", declared, rows[true])
}
