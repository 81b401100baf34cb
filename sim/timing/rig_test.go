package timing

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// testSM is a small SM configuration with round, distinct numbers, not a
// model of any GPU.
func testSM() SMConfig {
	c := func(l, i int) ClassTiming { return ClassTiming{Latency: l, Interval: i} }
	return SMConfig{
		WarpSchedulers: 1, SchedulingPolicy: PolicyGTO, IssueWidth: 1,
		Integer: c(6, 1), IntegerMultiply: c(8, 2), IntegerDivide: c(40, 16),
		Float32: c(4, 1), Float64: c(8, 2), SpecialFunction: c(20, 4),
		Branch: c(3, 1), WarpCollective: c(24, 2), ConstLoad: c(8, 1),
		SharedLoad: c(20, 1), SharedStore: c(16, 1), SharedAtomic: c(30, 2),
		SharedMemBanks: 32, SharedMemBankWidthBytes: 4, SharedPassCycles: 2,
		SharedAtomicModel: SharedAtomicNative, SharedAtomicNativeCycles: 2,
		SharedAtomicLockIterationCycles: 24,
		GlobalLoad:                      c(4, 1), GlobalStore: c(4, 1), GlobalAtomic: c(4, 1),
		CoalesceSectorBytes: 32, CoalesceLineBytes: 128, LSURequestsPerCycle: 1,
		MaxOutstandingRequests: 64, Barrier: c(20, 1), Fence: c(20, 1),
		CTALaunchCycles: 10, DeadlockWindowCycles: 20_000,
	}
}

// testMemory is a small memory system (memsys's own test values).
func testMemory() memsys.Config {
	return memsys.Config{
		LineSizeBytes: 128, SectorSizeBytes: 32,
		L1SizeBytes: 16 << 10, L1Ways: 4, L1MSHRs: 16, L1MaxInflight: 64, L1RequestsPerCycle: 1, L1HitLatency: 30,
		L2Slices: 4, L2SliceSizeBytes: 64 << 10, L2Ways: 8, L2MSHRs: 16, L2RequestsPerCycle: 1,
		L2SliceBytesPerCycle: 64, L2HitLatency: 200, L2InterleaveBytes: 256, SMToL2BytesPerCycle: 64,
		DRAMLatency: 400, DRAMBandwidthGBPerS: 256,
		AtomicLatency: 300, AtomicOpsPerCycle: 1, AtomicSameAddressCycles: 10,
	}
}

func testLimits() Limits {
	return Limits{SMs: 2, MaxWarpsPerSM: 32, MaxCTAsPerSM: 4, MaxThreadsPerSM: 1024, RegistersPerSM: 32768, SharedMemPerSM: 32 << 10}
}

// rig runs hand-written PTX on a GPU built from testSM.
type rig struct {
	t   testing.TB
	gpu *GPU
	mem *exec.Memory
	mod *exec.Module
}

// parallelSuite makes rigs use akita's parallel engine (TestParallelEngine
// sets it while it runs the suite again).
var parallelSuite bool

func newRig(t testing.TB, src string, sm SMConfig, lim Limits) *rig {
	t.Helper()
	return newRigWith(t, src, sm, lim, func(b Builder) Builder { return b })
}

// newRigWith is newRig with more builder settings.
func newRigWith(t testing.TB, src string, sm SMConfig, lim Limits, with func(Builder) Builder) *rig {
	t.Helper()
	gpu, err := with(MakeBuilder().WithFreq(1 * sim.GHz).WithSMConfig(sm).WithMemoryConfig(testMemory()).WithLimits(lim).
		WithParallelEngine(parallelSuite)).Build("GPU")
	require.NoError(t, err)
	mem := exec.NewMemory(1 << 26)
	pm, err := ptx.Parse("test.ptx", []byte(src))
	require.NoError(t, err)
	mod, err := exec.LoadModule(pm, mem)
	require.NoError(t, err)
	return &rig{t: t, gpu: gpu, mem: mem, mod: mod}
}

// alloc returns a zeroed buffer of n words.
func (r *rig) alloc(n int) uint64 {
	a, err := r.mem.Alloc(4 * n)
	require.NoError(r.t, err)
	return a
}

func (r *rig) words(a uint64, n int) []uint32 {
	b := make([]byte, 4*n)
	require.NoError(r.t, r.mem.Read(b, a))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// run launches entry with 8-byte (pointer) and 4-byte (uint32) parameters.
func (r *rig) run(entry string, grid, block int, params ...any) (Stats, error) {
	r.t.Helper()
	prog, err := r.mod.Program(entry)
	require.NoError(r.t, err)
	var buf []byte
	for _, p := range params {
		switch v := p.(type) {
		case uint64:
			for len(buf)%8 != 0 {
				buf = append(buf, 0)
			}
			buf = binary.LittleEndian.AppendUint64(buf, v)
		case uint32:
			buf = binary.LittleEndian.AppendUint32(buf, v)
		default:
			r.t.Fatalf("parameter %T", p)
		}
	}
	g, err := exec.NewGrid(prog, r.mem, exec.Launch{
		Grid: [3]int{grid, 1, 1}, Block: [3]int{block, 1, 1}, Params: buf,
		SMs: r.gpu.limits.SMs, WarpSlotsPerSM: r.gpu.limits.MaxWarpsPerSM, Clock: r.gpu.Clock,
	})
	require.NoError(r.t, err)
	warps := (block + 31) / 32
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.gpu.Run(ctx, Launch{
		Grid: g, ThreadsPerCTA: block, WarpsPerCTA: warps,
		RegistersPerThread: 32, RegistersPerCTA: 32 * 32 * warps,
		SharedPerCTA: prog.Entry.StaticSharedSize,
	})
}

func (r *rig) mustRun(entry string, grid, block int, params ...any) Stats {
	r.t.Helper()
	st, err := r.run(entry, grid, block, params...)
	require.NoError(r.t, err)
	return st
}

// kernel wraps a body in an entry with one pointer parameter %rd1 (out)
// and one u32 parameter %r1 (n), and registers %r<512>, %rd<64>,
// %p<16>, %f<64>.
func kernel(name, body string) string {
	return fmt.Sprintf(`.version 6.4
.target sm_70
.address_size 64

.visible .entry %[1]s(
	.param .u64 %[1]s_param_0,
	.param .u32 %[1]s_param_1
)
{
	.reg .pred %%p<16>;
	.reg .b32 %%r<512>;
	.reg .f32 %%f<64>;
	.reg .b64 %%rd<64>;
	ld.param.u64 %%rd1, [%[1]s_param_0];
	ld.param.u32 %%r1, [%[1]s_param_1];
	mov.u32 %%r2, %%tid.x;
	mul.wide.u32 %%rd2, %%r2, 4;
	add.s64 %%rd3, %%rd1, %%rd2;
%[2]s
	ret;
}
`, name, body)
}

// repeat renders f(i) for i < n, one line each.
func repeat(n int, f func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("\t" + f(i) + "\n")
	}
	return b.String()
}

// issueLog is a hook recording issued instructions.
type issueLog struct{ issues []IssueInfo }

func (h *issueLog) Func(ctx sim.HookCtx) {
	if ctx.Pos == HookPosIssue {
		h.issues = append(h.issues, ctx.Item.(IssueInfo))
	}
}
