package exec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// stepRun drives a grid one warp-instruction at a time, as a timing model
// does: it dispatches CTAs up to resident, issues one Step per ready warp
// in turn, and retires finished CTAs.
func stepRun(t testing.TB, g *Grid, resident int, check func(w *Warp, info *StepInfo)) error {
	slots := make([]*CTA, min(resident, g.CTAs()))
	for i := range slots {
		slots[i] = g.Dispatch(i % g.L.SMs)
	}
	for round := 0; round < 10_000_000; round++ {
		issued, live := false, false
		for i, c := range slots {
			if c == nil {
				continue
			}
			live = true
			for _, w := range c.Warps() {
				if w.State() != WarpReady {
					continue
				}
				info, err := w.Step()
				if err != nil {
					return err
				}
				if check != nil {
					check(w, info)
				}
				issued = true
			}
			if c.Done() {
				g.Retire(c)
				slots[i] = g.Dispatch(c.SM)
			}
		}
		if !live {
			return nil
		}
		if !issued {
			return fmt.Errorf("no warp can issue")
		}
	}
	return fmt.Errorf("too many rounds")
}

const probePTX = `
.version 7.0
.target sm_70
.address_size 64
.visible .entry probe(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<2>;
	.shared .align 4 .b8 sh[256];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	ld.global.u32 %r2, [%rd3];
	mov.u64 %rd4, sh;
	add.s64 %rd5, %rd4, %rd2;
	cvta.shared.u64 %rd6, %rd5;
	st.u32 [%rd6], %r2;
	bar.sync 0;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 atom.shared.add.u32 %r3, [%rd5], 1;
	@%p1 bra DONE;
	st.global.u32 [%rd3], %r1;
DONE:
	ret;
}`

func TestStepInfo(t *testing.T) {
	m := newMachine(t, probePTX, true)
	out := m.zeros(4 * 64)
	prog, err := m.mod.Program("probe")
	require.NoError(t, err)
	params := make([]byte, 8)
	putArgs(prog, params, out)
	g, err := NewGrid(prog, m.mem, Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}, Params: params, SMs: 1})
	require.NoError(t, err)
	c := g.Dispatch(0)
	w0, w1 := c.Warps()[0], c.Warps()[1]
	step := func(w *Warp) *StepInfo {
		t.Helper()
		info, err := w.Step()
		require.NoError(t, err)
		return info
	}
	var info *StepInfo
	for i := 0; i < 5; i++ {
		info = step(w0)
	}
	assert.Equal(t, 4, info.PC)
	assert.Equal(t, ptx.OpLd, info.Inst.Op)
	assert.Equal(t, MemLoad, info.Mem.Kind)
	assert.Equal(t, 4, info.Mem.Size)
	assert.Equal(t, fullMask, info.Exec)
	for l := 0; l < 32; l++ {
		assert.Equal(t, ptx.SpaceGlobal, info.Mem.Space[l])
		assert.Equal(t, out+4*uint64(l), info.Mem.Addr[l])
	}
	for i := 0; i < 4; i++ {
		info = step(w0)
	}
	assert.Equal(t, MemStore, info.Mem.Kind, "generic store")
	for l := 0; l < 32; l++ {
		assert.Equal(t, ptx.SpaceShared, info.Mem.Space[l], "resolved to shared")
		assert.Equal(t, 4*uint64(l), info.Mem.Addr[l])
	}
	info = step(w0)
	assert.True(t, info.Barrier)
	assert.False(t, info.Released)
	assert.Equal(t, WarpAtBarrier, w0.State())
	_, err = w0.Step()
	require.Error(t, err, "a warp at a barrier cannot issue")

	for i := 0; i < 10; i++ {
		info = step(w1)
	}
	assert.True(t, info.Barrier)
	assert.True(t, info.Released, "the last warp completes the barrier")
	assert.Equal(t, WarpReady, w0.State())
	assert.Equal(t, WarpReady, w1.State())

	step(w0) // setp
	info = step(w0)
	assert.Equal(t, MemAtomic, info.Mem.Kind)
	assert.Equal(t, fullMask, info.Active)
	assert.Equal(t, uint32(0xFFFF), info.Exec)
	assert.Equal(t, uint32(0xFFFF), info.Mem.Lanes)
	info = step(w0)
	assert.True(t, info.Diverged)
	assert.Equal(t, uint32(0xFFFF0000), w0.ActiveMask(), "the not-taken path runs first")
	fn, pc := w0.Next()
	assert.Equal(t, "probe", fn.Name)
	assert.Equal(t, 13, pc)
	info = step(w0)
	assert.Equal(t, MemStore, info.Mem.Kind)
	info = step(w0)
	assert.Equal(t, ptx.OpRet, info.Inst.Op, "the paths reconverge at ret")
	assert.Equal(t, fullMask, info.Active)
	assert.Equal(t, fullMask, info.Exited)
	assert.True(t, info.Done)
	assert.Equal(t, WarpDone, w0.State())
	assert.False(t, c.Done())
	for w1.State() != WarpDone {
		step(w1)
	}
	assert.True(t, c.Done())
	assert.Equal(t, 1, g.Finished)
	assert.Nil(t, g.Dispatch(0), "one CTA only")
}

// TestStepMatchesRun runs kernels both ways — the functional scheduler and
// single steps — and compares the memory they leave.
func TestStepMatchesRun(t *testing.T) {
	type setup func(m *machine) (entry string, rc runCfg, args []uint64, result uint64, words int)
	cases := map[string]setup{
		"divergence": func(m *machine) (string, runCfg, []uint64, uint64, int) {
			in := make([]uint32, 128)
			for i := range in {
				in[i] = uint32(i*13%200) - 30
			}
			out := m.zeros(4 * 128)
			return "divergence", d1(2, 64), []uint64{out, m.allocU32(in...), 100}, out, 128
		},
		"calls": func(m *machine) (string, runCfg, []uint64, uint64, int) {
			out := m.zeros(4 * 64)
			return "calls", d1(1, 64), []uint64{out}, out, 64
		},
		"local_generic": func(m *machine) (string, runCfg, []uint64, uint64, int) {
			out := m.zeros(4 * 64)
			return "local_generic", d1(1, 64), []uint64{out, 5}, out, 64
		},
		"collectives": func(m *machine) (string, runCfg, []uint64, uint64, int) {
			out := m.zeros(4 * 32 * 64)
			return "collectives", d1(1, 64), []uint64{out}, out, 32 * 64
		},
		"barrier_loop": func(m *machine) (string, runCfg, []uint64, uint64, int) {
			out := m.zeros(4 * 96 * 3)
			return "barrier_loop", d1(3, 96), []uint64{out, 4}, out, 96 * 3
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			m1 := newMachine(t, execPTX(t), true)
			entry, rc, args, res, words := mk(m1)
			_, err := m1.launch(entry, rc, args...)
			require.NoError(t, err)
			want := m1.u32s(res, words)

			m2 := newMachine(t, execPTX(t), true)
			entry, rc, args, res, words = mk(m2)
			prog, err := m2.mod.Program(entry)
			require.NoError(t, err)
			params := make([]byte, prog.Entry.KernelParamSize)
			putArgs(prog, params, args...)
			g, err := NewGrid(prog, m2.mem, Launch{Grid: rc.grid, Block: rc.block, Params: params, SMs: 2})
			require.NoError(t, err)
			steps := 0
			require.NoError(t, stepRun(t, g, 2, func(w *Warp, info *StepInfo) {
				steps++
				require.NotZero(t, info.Active)
				require.Equal(t, info.Exec, info.Exec&info.Active)
			}))
			assert.Equal(t, want, m2.u32s(res, words))
			assert.Equal(t, uint64(steps), g.WarpInsts)
		})
	}
}
