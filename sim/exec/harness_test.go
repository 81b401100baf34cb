package exec

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// machine is a memory with one module loaded, for tests.
type machine struct {
	t   testing.TB
	mem *Memory
	mod *Module
}

// newMachine parses src and loads it; fast selects the specialised paths.
func newMachine(t testing.TB, src string, fast bool) *machine {
	t.Helper()
	pm, err := ptx.Parse("test.ptx", []byte(src))
	require.NoError(t, err)
	mem := NewMemory(0)
	mod, err := LoadModule(pm, mem)
	require.NoError(t, err)
	mod.fast = fast
	return &machine{t: t, mem: mem, mod: mod}
}

// alloc allocates and fills a buffer.
func (m *machine) alloc(data []byte) uint64 {
	m.t.Helper()
	a, err := m.mem.Alloc(len(data))
	require.NoError(m.t, err)
	require.NoError(m.t, m.mem.Write(a, data))
	return a
}

func (m *machine) allocU32(vals ...uint32) uint64 {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return m.alloc(b)
}

func (m *machine) allocF32(vals ...float32) uint64 {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return m.alloc(b)
}

func (m *machine) allocU64(vals ...uint64) uint64 {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return m.alloc(b)
}

func (m *machine) zeros(n int) uint64 { return m.alloc(make([]byte, n)) }

func (m *machine) u32s(a uint64, n int) []uint32 {
	m.t.Helper()
	b := make([]byte, 4*n)
	require.NoError(m.t, m.mem.Read(b, a))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func (m *machine) u64s(a uint64, n int) []uint64 {
	m.t.Helper()
	b := make([]byte, 8*n)
	require.NoError(m.t, m.mem.Read(b, a))
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}

func (m *machine) f32s(a uint64, n int) []float32 {
	u := m.u32s(a, n)
	out := make([]float32, n)
	for i, v := range u {
		out[i] = math.Float32frombits(v)
	}
	return out
}

// run launches entry with a one-dimensional grid and block; args fill the
// parameters in order, each at its size.
type runCfg struct {
	grid, block [3]int
	dyn         int
	resident    int
	sms         int
	slice       int
	timeout     time.Duration
	l1          L1 // Grid.SetL1
	threads     int
	inOrder     bool // RunOptions.InOrder
}

// launchInOrder makes machine.launch run every grid in order
// (RunOptions.InOrder), for the tests that run their kernels both ways.
var launchInOrder bool

func d1(grid, block int) runCfg {
	return runCfg{grid: [3]int{grid, 1, 1}, block: [3]int{block, 1, 1}}
}

func (m *machine) launch(entry string, rc runCfg, args ...uint64) (*Grid, error) {
	m.t.Helper()
	prog, err := m.mod.Program(entry)
	if err != nil {
		return nil, err
	}
	params := make([]byte, prog.Entry.KernelParamSize)
	require.Len(m.t, args, prog.Entry.NumInputs, "argument count")
	for i, p := range prog.Entry.Inputs() {
		switch p.Size {
		case 4:
			binary.LittleEndian.PutUint32(params[p.Offset:], uint32(args[i]))
		case 8:
			binary.LittleEndian.PutUint64(params[p.Offset:], args[i])
		default:
			m.t.Fatalf("parameter size %d", p.Size)
		}
	}
	if rc.sms == 0 {
		rc.sms = 2
	}
	g, err := NewGrid(prog, m.mem, Launch{Grid: rc.grid, Block: rc.block, DynamicShared: rc.dyn, Params: params, SMs: rc.sms, WarpSlotsPerSM: 64})
	require.NoError(m.t, err)
	if rc.resident == 0 {
		rc.resident = 8
	}
	if rc.l1 != nil {
		// The L1 is the timing model's: step the grid as its serial
		// engine does.
		g.SetL1(rc.l1)
		return g, stepGrid(g, rc.resident)
	}
	if rc.timeout == 0 {
		rc.timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), rc.timeout)
	defer cancel()
	return g, g.Run(ctx, RunOptions{Resident: rc.resident, Slice: rc.slice, Threads: rc.threads, InOrder: rc.inOrder || launchInOrder})
}

// stepGrid runs g to completion by Step, round robin over the warps of up
// to resident CTAs, as a serial timing model issues them.
func stepGrid(g *Grid, resident int) error {
	slots := make([]*CTA, min(resident, g.CTAs()))
	for i := range slots {
		slots[i] = g.Dispatch(i % g.L.SMs)
	}
	for live := len(slots); live > 0; {
		for i, c := range slots {
			if c == nil {
				continue
			}
			for _, w := range c.Warps() {
				if w.State() == WarpReady {
					if _, err := w.Step(); err != nil {
						return err
					}
				}
			}
			if c.Done() {
				g.Retire(c)
				if slots[i] = g.Dispatch(c.SM); slots[i] == nil {
					live--
				}
			}
		}
	}
	return nil
}

// both runs f with the specialised paths and with the generic ones.
func both(t *testing.T, f func(t *testing.T, fast bool)) {
	t.Run("fast", func(t *testing.T) { f(t, true) })
	t.Run("generic", func(t *testing.T) { f(t, false) })
}
