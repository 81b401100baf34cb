package timing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// cyclesOf runs body in a one-warp launch on a fresh GPU and returns the
// launch's cycles and the first output word.
func cyclesOf(t *testing.T, sm SMConfig, body string) (uint64, uint32) {
	t.Helper()
	r := newRig(t, kernel("k", body), sm, testLimits())
	out := r.alloc(32)
	st := r.mustRun("k", 1, 32, out, uint32(0))
	return st.Cycles, r.words(out, 1)[0]
}

func TestFixedLatencies(t *testing.T) {
	sm := testSM()
	const n = 64
	tests := []struct {
		name string
		// body(k) is a kernel doing k operations and storing the result
		// of the last one to out[tid].
		body func(k int) string
		want func(k int) uint32
		// perOp is the expected cost of one more operation, within tol
		// (independent operations also fill cycles the prologue leaves
		// idle).
		perOp int
		tol   float64
	}{
		{
			name: "dependent integer chain pays the latency per op",
			body: func(k int) string {
				return "\tmov.u32 %r3, %r2;\n" + repeat(k, func(int) string { return "add.s32 %r3, %r3, 1;" }) +
					"\tst.global.u32 [%rd3], %r3;"
			},
			want:  func(k int) uint32 { return uint32(k) },
			perOp: sm.Integer.Latency, tol: 0.05,
		},
		{
			name: "independent integer ops overlap at the initiation interval",
			body: func(k int) string {
				return "\tmov.u32 %r3, %r2;\n" + repeat(k, func(i int) string { return fmt.Sprintf("add.s32 %%r%d, %%r2, %d;", 16+i%8, i) }) +
					"\tst.global.u32 [%rd3], %r3;"
			},
			want:  func(int) uint32 { return 0 },
			perOp: sm.Integer.Interval, tol: 0.15,
		},
		{
			name: "independent multiplies issue every interval",
			body: func(k int) string {
				return "\tmov.u32 %r3, %r2;\n" + repeat(k, func(i int) string { return fmt.Sprintf("mul.lo.s32 %%r%d, %%r2, %d;", 16+i%8, i) }) +
					"\tst.global.u32 [%rd3], %r3;"
			},
			want:  func(int) uint32 { return 0 },
			perOp: sm.IntegerMultiply.Interval, tol: 0.15,
		},
		{
			name: "dependent float chain pays the float latency",
			body: func(k int) string {
				return "\tcvt.rn.f32.u32 %f1, %r2;\n" + repeat(k, func(int) string { return "add.f32 %f1, %f1, 0f3F800000;" }) +
					"\tcvt.rzi.u32.f32 %r3, %f1;\n\tst.global.u32 [%rd3], %r3;"
			},
			want:  func(k int) uint32 { return uint32(k) },
			perOp: sm.Float32.Latency, tol: 0.05,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c0, v0 := cyclesOf(t, sm, tc.body(0))
			c1, v1 := cyclesOf(t, sm, tc.body(n))
			assert.Equal(t, tc.want(0), v0)
			assert.Equal(t, tc.want(n), v1)
			per := float64(c1-c0) / n
			t.Logf("%d ops: %d cycles, 0 ops: %d cycles: %.2f cycles per op", n, c1, c0, per)
			assert.InDelta(t, float64(tc.perOp), per, tc.tol*float64(tc.perOp))
		})
	}
}

func TestLoadUseWaitsForMemory(t *testing.T) {
	sm := testSM()
	mem := testMemory()
	without, _ := cyclesOf(t, sm, "\tadd.s32 %r4, %r2, 1;\n\tst.global.u32 [%rd3], %r4;")
	with, _ := cyclesOf(t, sm, "\tld.global.u32 %r3, [%rd3];\n\tadd.s32 %r4, %r3, 1;\n\tst.global.u32 [%rd3], %r4;")
	// A cold load goes to DRAM; the SM adds its global_load latency.
	extra := float64(with - without)
	t.Logf("load-use adds %v cycles (DRAM latency %d)", extra, mem.DRAMLatency)
	assert.InDelta(t, float64(mem.DRAMLatency+sm.GlobalLoad.Latency), extra, 30)
}

func TestSchedulingPolicies(t *testing.T) {
	// Two warps of 16 independent moves each, one scheduler.
	body := repeat(16, func(i int) string { return fmt.Sprintf("mov.u32 %%r%d, %d;", 16+i, i) }) +
		"\tst.global.u32 [%rd3], %r20;"
	runs := map[string][]int{}
	for _, policy := range []string{PolicyGTO, PolicyLRR} {
		sm := testSM()
		sm.SchedulingPolicy = policy
		r := newRig(t, kernel("k", body), sm, testLimits())
		log := &issueLog{}
		r.gpu.SMs()[0].AcceptHook(log)
		out := r.alloc(64)
		r.mustRun("k", 1, 64, out, uint32(0))
		var order []int
		for _, is := range log.issues {
			order = append(order, is.Warp)
		}
		require.Len(t, order, 2*(16+7))
		// The longest run of consecutive issues by one warp.
		longest, cur := 1, 1
		for i := 1; i < len(order); i++ {
			if order[i] == order[i-1] {
				cur++
			} else {
				cur = 1
			}
			longest = max(longest, cur)
		}
		runs[policy] = order
		t.Logf("%s: issue order %v, longest run %d", policy, order, longest)
		if policy == PolicyGTO {
			assert.GreaterOrEqual(t, longest, 16, "GTO keeps issuing from one warp while it can")
		} else {
			assert.LessOrEqual(t, longest, 2, "LRR takes turns")
		}
	}
	assert.NotEqual(t, runs[PolicyGTO], runs[PolicyLRR])
}

// starveBody is a one-CTA flag handoff in the shape of a software grid
// barrier: warps 0-14 spin on out[0] until warp 15, the youngest, has done
// an atomic, waited for it at a fence (as a CTA does before it arrives) and
// set the flag; every thread then stores its thread id to out[2+tid].
const starveBody = `	shr.u32 %r4, %r2, 5;
	setp.eq.u32 %p2, %r4, 15;
	@%p2 bra $L_young;
$L_spin:
	ld.volatile.global.u32 %r5, [%rd1];
	setp.eq.u32 %p1, %r5, 0;
	@%p1 bra $L_spin;
	bra.uni $L_end;
$L_young:
	atom.global.add.u32 %r6, [%rd1+4], 1;
	membar.gl;
	bra.uni $L_set;
$L_set:
	st.volatile.global.u32 [%rd1], 1;
$L_end:
	st.global.u32 [%rd3+8], %r2;`

// TestNoWarpStarves: fifteen spinning warps keep one scheduler's branch
// unit (4-cycle interval) busy, and GTO gives it to an older warp every time
// it frees, so without the starvation bound the youngest warp never issued
// the branch after its fence, never set the flag, and the launch ended in a
// deadlock error, as global_barrier did at its co-resident limit on 66 or
// more h100 SMs. With the bound it waits at most starvationCycles longer
// than under LRR, which takes turns.
func TestNoWarpStarves(t *testing.T) {
	// gap is, per policy, the cycles from warp 15's fence (which waits for
	// its atomic) to its next issue.
	gap := map[string]uint64{}
	for _, policy := range []string{PolicyLRR, PolicyGTO} {
		sm := testSM()
		sm.SchedulingPolicy = policy
		sm.Branch.Interval = 4
		r := newRig(t, kernel("k", starveBody), sm, testLimits())
		log := &issueLog{}
		r.gpu.SMs()[0].AcceptHook(log)
		out := r.alloc(2 + 512)
		st, err := r.run("k", 1, 512, out, uint32(0))
		require.NoError(t, err, policy)
		words := r.words(out, 2+512)
		require.Equal(t, []uint32{1, 32}, words[:2], "%s: flag set, 32 atomic lanes", policy)
		for i, v := range words[2:] {
			require.Equal(t, uint32(i), v, "%s: thread %d", policy, i)
		}
		var young []IssueInfo
		for _, is := range log.issues {
			if is.Warp == 15 {
				young = append(young, is)
			}
		}
		for i, is := range young[:len(young)-1] {
			if is.Func.Insts[is.PC].Op == ptx.OpMembar {
				gap[policy] = young[i+1].Cycle - is.Cycle
			}
		}
		require.NotZero(t, gap[policy], policy)
		t.Logf("%s: %d cycles, %d from warp 15's fence to its next issue", policy, st.Cycles, gap[policy])
	}
	assert.LessOrEqual(t, gap[PolicyGTO], gap[PolicyLRR]+starvationCycles)
}

func TestSchedulersPartitionWarps(t *testing.T) {
	sm := testSM()
	sm.WarpSchedulers = 4
	r := newRig(t, kernel("k", "\tst.global.u32 [%rd3], %r2;"), sm, testLimits())
	log := &issueLog{}
	r.gpu.SMs()[0].AcceptHook(log)
	out := r.alloc(256)
	r.mustRun("k", 1, 256, out, uint32(0))
	perCycle := map[uint64]int{}
	for _, is := range log.issues {
		assert.Equal(t, is.Slot%4, is.Scheduler, "warp slot %d", is.Slot)
		perCycle[is.Cycle]++
	}
	most := 0
	for _, n := range perCycle {
		most = max(most, n)
	}
	assert.Equal(t, 4, most, "four schedulers issue four warps in one cycle")
}

func TestResidencyQueuesCTAs(t *testing.T) {
	// out[g] += tid for the global index g.
	body := "\tmov.u32 %r5, %ctaid.x;\n\tmad.lo.s32 %r6, %r5, 64, %r2;\n\tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n" +
		"\tld.global.u32 %r3, [%rd5];\n\tadd.s32 %r3, %r3, %r2;\n\tst.global.u32 [%rd5], %r3;"
	cycles := map[int]Stats{}
	for _, perSM := range []int{4, 1} {
		lim := testLimits()
		lim.MaxCTAsPerSM = perSM
		r := newRig(t, kernel("k", body), testSM(), lim)
		out := r.alloc(8 * 64)
		st := r.mustRun("k", 8, 64, out, uint32(0))
		assert.Equal(t, 8, st.CTAs)
		assert.Equal(t, 2*perSM, st.MaxResidentCTAs)
		cycles[perSM] = st
		got := r.words(out, 8*64)
		for i, v := range got {
			require.Equal(t, uint32(i%64), v)
		}
	}
	t.Logf("8 CTAs: %d cycles with 4 per SM, %d with 1 per SM", cycles[4].Cycles, cycles[1].Cycles)
	assert.Greater(t, cycles[1].Cycles, 2*cycles[4].Cycles, "one CTA per SM runs four rounds")
	assert.Greater(t, cycles[4].AchievedOccupancy, cycles[1].AchievedOccupancy)
}

// TestDispatcherPacesCTAs: the GPU-wide dispatcher starts one CTA per
// cta_dispatch_cycles + warps × cta_dispatch_warp_cycles, so a grid of many
// short CTAs lasts at least that pace × CTAs, while with both 0 every CTA
// that fits starts at once; every CTA still runs.
func TestDispatcherPacesCTAs(t *testing.T) {
	body := "\tmov.u32 %r5, %ctaid.x;\n\tmad.lo.s32 %r6, %r5, 64, %r2;\n\tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n" +
		"\tst.global.u32 [%rd5], %r2;"
	const ctas = 64
	run := func(perCTA, perWarp float64) Stats {
		sm := testSM()
		sm.CTADispatchCycles, sm.CTADispatchWarpCycles = perCTA, perWarp
		r := newRig(t, kernel("k", body), sm, testLimits())
		out := r.alloc(ctas * 64)
		st := r.mustRun("k", ctas, 64, out, uint32(0))
		got := r.words(out, ctas*64)
		for i, v := range got {
			require.Equal(t, uint32(i%64), v, "word %d", i)
		}
		return st
	}
	free, paced, perWarp := run(0, 0), run(50, 0), run(10, 20) // 64-thread CTAs: 2 warps, 50 cycles each
	t.Logf("%d CTAs: %d cycles unpaced, %d at 50 per CTA, %d at 10 + 20 per warp", ctas, free.Cycles, paced.Cycles, perWarp.Cycles)
	assert.Less(t, free.Cycles, uint64(ctas*50/2), "unpaced, the grid runs in rounds of 8 resident CTAs")
	assert.GreaterOrEqual(t, paced.Cycles, uint64((ctas-1)*50))
	assert.Less(t, paced.Cycles, uint64((ctas-1)*50)+free.Cycles)
	assert.Equal(t, paced.Cycles, perWarp.Cycles, "10 + 2 warps × 20 is the same 50-cycle pace")
	sm := testSM()
	sm.CTADispatchCycles = -1
	assert.ErrorContains(t, sm.Validate(), "cta_dispatch_cycles")
}

func TestStatistics(t *testing.T) {
	// Half the lanes of each warp store.
	body := "\tand.b32 %r3, %r2, 1;\n\tsetp.eq.s32 %p1, %r3, 0;\n\t@%p1 bra $L_end;\n\tst.global.u32 [%rd3], %r2;\n$L_end:"
	r := newRig(t, kernel("k", body), testSM(), testLimits())
	out := r.alloc(128)
	st := r.mustRun("k", 2, 64, out, uint32(0))
	// 7 instructions of the prologue and the branch at full width, the
	// store at half, the return at full after reconvergence: per warp 8
	// full and 1 half.
	assert.Equal(t, uint64(4*10), st.WarpInstructions)
	assert.Equal(t, uint64(4*(9*32+16)), st.ThreadInstructions)
	assert.InDelta(t, float64(9*32+16)/(10*32), st.WarpExecutionEfficiency, 1e-9)
	assert.InDelta(t, st.IPCTotal/2, st.IPC, 1e-12)
	assert.Equal(t, uint64(4), st.GlobalStoreRequests, "one line per warp")
	assert.Equal(t, 2, st.CTAs)
	c := st.Counters()
	for _, name := range []string{"cycles", "ipc", "warp_execution_efficiency", "bank_conflicts", "bank_conflict_degree_1",
		"bank_conflict_degree_32", "shared_atomics", "global_atomics", "max_same_address_serialization_shared",
		"max_same_address_serialization_global", "l1_hit_rate", "l2_hit_rate", "dram_read_bytes", "dram_write_bytes",
		"achieved_occupancy", "ctas"} {
		assert.Contains(t, c, name)
	}
	assert.Equal(t, float64(st.Cycles), c["cycles"])
	assert.Positive(t, st.AchievedOccupancy)
	assert.LessOrEqual(t, st.AchievedOccupancy, 1.0)
}

const spinBody = `
$L_spin:
	ld.volatile.global.u32 %r3, [%rd1+4];
	setp.eq.s32 %p1, %r3, 0;
	@%p1 bra $L_spin;
	st.global.u32 [%rd3], %r3;`

func TestDeadlockWindow(t *testing.T) {
	r := newRig(t, kernel("k", spinBody), testSM(), testLimits())
	out := r.alloc(64)
	start := time.Now()
	_, err := r.run("k", 1, 32, out, uint32(0))
	var dl *kernels.DeadlockError
	require.ErrorAs(t, err, &dl)
	assert.Equal(t, "k", dl.Kernel)
	assert.Contains(t, dl.Detail, "(the deadlock window is 20000)")
	assert.Contains(t, dl.Detail, "spinning on the load")
	assert.Contains(t, dl.Detail, "CTA 0 warp 0")
	assert.Less(t, time.Since(start), 10*time.Second)
	t.Log(err)

	// The same GPU runs the next launch normally.
	r.mem.Write(out+4, []byte{1, 0, 0, 0})
	st, err := r.run("k", 1, 32, out, uint32(0))
	require.NoError(t, err)
	assert.Equal(t, 1, st.CTAs)
}

func TestBarrierDeadlockEndsWhenNothingCanIssue(t *testing.T) {
	// bar.sync expecting 64 threads in a CTA of 32: it never completes.
	r := newRig(t, kernel("k", "\tbar.sync 0, 64;\n\tst.global.u32 [%rd3], %r2;"), testSM(), testLimits())
	out := r.alloc(32)
	_, err := r.run("k", 1, 32, out, uint32(0))
	var dl *kernels.DeadlockError
	require.ErrorAs(t, err, &dl)
	assert.Contains(t, dl.Detail, "no warp can issue again")
	assert.Contains(t, dl.Detail, "waiting at barrier 0 at PTX line")
	assert.Contains(t, dl.Detail, "bar.sync")
	t.Log(err)
}

func TestBarrierArriveDoesNotWait(t *testing.T) {
	// Warp 1 arrives (bar.arrive) and goes on; warp 0 waits (bar.sync)
	// for both.
	body := `	setp.lt.u32 %p1, %r2, 32;
	@%p1 bra $L_sync;
	bar.arrive 1, 64;
	bra.uni $L_end;
$L_sync:
	bar.sync 1, 64;
$L_end:
	st.global.u32 [%rd3], %r2;`
	r := newRig(t, kernel("k", body), testSM(), testLimits())
	out := r.alloc(64)
	st := r.mustRun("k", 1, 64, out, uint32(0))
	assert.Equal(t, 1, st.CTAs)
	for i, v := range r.words(out, 64) {
		assert.Equal(t, uint32(i), v)
	}
}

func TestContextEndsALaunch(t *testing.T) {
	sm := testSM()
	sm.DeadlockWindowCycles = 1 << 40
	r := newRig(t, kernel("k", spinBody), sm, testLimits())
	out := r.alloc(64)
	prog, err := r.mod.Program("k")
	require.NoError(t, err)
	g, err := exec.NewGrid(prog, r.mem, exec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{32, 1, 1},
		Params: append(le64(out), 0, 0, 0, 0), SMs: 2, WarpSlotsPerSM: 32, Clock: r.gpu.Clock})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = r.gpu.Run(ctx, Launch{Grid: g, ThreadsPerCTA: 32, WarpsPerCTA: 1, RegistersPerCTA: 1024})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func TestFaultStopsTheLaunch(t *testing.T) {
	r := newRig(t, kernel("k", "\tst.global.u32 [%rd3], %r2;"), testSM(), testLimits())
	_, err := r.run("k", 1, 32, uint64(64), uint32(0))
	var f *kernels.MemoryFaultError
	require.ErrorAs(t, err, &f)
	assert.Contains(t, f.Detail, "null pointer")
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, testSM().Validate())
	bad := testSM()
	bad.SchedulingPolicy = "fifo"
	bad.SharedMemBanks = 24
	bad.Integer.Interval = 0
	bad.SharedAtomicModel = "magic"
	bad.MaxOutstandingRequests = 8
	err := bad.Validate()
	require.Error(t, err)
	for _, want := range []string{"scheduling_policy", "shared_memory_banks", "integer.interval", "shared_atomic_model", "max_outstanding_requests"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = MakeBuilder().WithSMConfig(testSM()).WithMemoryConfig(testMemory()).WithLimits(Limits{}).Build("GPU")
	assert.ErrorContains(t, err, "SMs must be positive")
	m := testMemory()
	m.SectorSizeBytes = 64
	_, err = MakeBuilder().WithSMConfig(testSM()).WithMemoryConfig(m).WithLimits(testLimits()).Build("GPU")
	assert.ErrorContains(t, err, "coalescer")
}

// TestFenceContention: with fence_contention_cycles C, a fence waits
// C × (n - 1) / n more when n warps of its SM are fencing; one warp alone
// pays nothing more, and C = 0 keeps every fence at its latency.
func TestFenceContention(t *testing.T) {
	body := repeat(8, func(int) string { return "\tst.volatile.global.u32 [%rd3], %r2;\n\tmembar.gl;" })
	run := func(contention float64, warps int) uint64 {
		sm := testSM()
		sm.FenceContentionCycles = contention
		r := newRig(t, kernel("k", body), sm, testLimits())
		out := r.alloc(32 * warps)
		return r.mustRun("k", 1, 32*warps, out, uint32(0)).Cycles
	}
	alone0, alone200 := run(0, 1), run(200, 1)
	four0, four200 := run(0, 4), run(200, 4)
	t.Logf("8 fences: one warp %d / %d cycles, four warps %d / %d (contention 0 / 200)", alone0, alone200, four0, four200)
	assert.Equal(t, alone0, alone200, "a warp fencing alone pays no contention")
	assert.InDelta(t, float64(four0+8*150), float64(four200), 8*20, "four warps fencing: 200 × 3/4 more per fence")
	sm := testSM()
	sm.FenceContentionCycles = -1
	assert.ErrorContains(t, sm.Validate(), "fence_contention_cycles")
}

// TestAtomicRequestsAreSpaced: a warp whose 32 lanes add to 32 lines sends
// 32 atomic requests; with atomic_request_cycles 4 they leave the unit 4
// cycles apart instead of one a cycle, so the warp waits ~93 cycles more,
// while the same warp's loads of those lines are not slowed.
func TestAtomicRequestsAreSpaced(t *testing.T) {
	const atomics = `	mul.wide.u32 %rd4, %r2, 128;
	add.s64 %rd5, %rd1, %rd4;
	atom.global.add.u32 %r3, [%rd5], 1;
	st.global.u32 [%rd3+8192], %r3;`
	const loads = `	mul.wide.u32 %rd4, %r2, 128;
	add.s64 %rd5, %rd1, %rd4;
	ld.volatile.global.u32 %r3, [%rd5];
	st.global.u32 [%rd3+8192], %r3;`
	cycles := func(body string, spacing float64) uint64 {
		sm := testSM()
		sm.AtomicRequestCycles = spacing
		r := newRig(t, kernel("k", body), sm, testLimits())
		out := r.alloc(4096)
		st, err := r.run("k", 1, 32, out, uint32(0))
		require.NoError(t, err)
		if body == atomics {
			assert.Equal(t, uint32(1), r.words(out, 1)[0], "each lane's line got its add")
		}
		return st.Cycles
	}
	base, spaced := cycles(atomics, 0), cycles(atomics, 4)
	assert.InDelta(t, float64(base+31*3), float64(spaced), 4, "31 gaps of 4 cycles instead of 1")
	assert.Equal(t, cycles(loads, 0), cycles(loads, 4), "loads keep the unit's rate")
	for _, bad := range []float64{-1, math.Inf(1), math.NaN()} {
		sm := testSM()
		sm.AtomicRequestCycles = bad
		assert.ErrorContains(t, sm.Validate(), "atomic_request_cycles", "%v", bad)
	}
}

// nanosleep holds a warp for its delay (the longest its lanes ask for),
// at the clock: 1 GHz here, so a nanosecond is a cycle. The rest of the
// SM goes on meanwhile.
func TestNanosleepHoldsTheWarp(t *testing.T) {
	store := "\tst.global.u32 [%rd3], %r2;\n"
	run := func(body string) uint64 {
		r := newRig(t, kernel("k", body+store), testSM(), testLimits())
		out := r.alloc(64)
		st := r.mustRun("k", 1, 64, out, uint32(0))
		assert.Equal(t, []uint32{0, 1, 2, 3}, r.words(out, 64)[:4], "the stores after the sleep happen")
		return st.Cycles
	}
	plain := run("")
	fixed := run("\tnanosleep.u32 2000;\n")
	assert.InDelta(t, 2000, float64(fixed-plain), 20, "a 2000 ns sleep at 1 GHz: %d cycles against %d", fixed, plain)
	// Per lane: thread t asks 30 t ns; each warp sleeps its longest
	// lane's (warp 1: lane 63, 1890 ns), and the warps sleep side by side.
	perLane := run("\tmul.lo.u32 %r3, %r2, 30;\n\tnanosleep.u32 %r3;\n")
	assert.InDelta(t, 1890, float64(perLane-plain), 20, "the longest lane's delay: %d cycles against %d", perLane, plain)

	// The window engine sleeps as long, whatever its thread count.
	var windowed []uint64
	for _, threads := range []int{1, 3} {
		r := newRigWith(t, kernel("k", "\tnanosleep.u32 2000;\n"+store), testSM(), testLimits(),
			func(b Builder) Builder { return b.WithThreads(threads) })
		out := r.alloc(64)
		windowed = append(windowed, r.mustRun("k", 2, 64, out, uint32(0)).Cycles)
		require.NotZero(t, r.gpu.Window(), "the window engine ran it")
	}
	assert.Equal(t, windowed[0], windowed[1], "the same cycles at 1 and 3 threads")
	assert.Greater(t, windowed[0], uint64(2000))

	// A profile charges the delay to the nanosleep, as sleep.
	r := newProfileRig(t, "\tnanosleep.u32 2000;\n"+store, testSM(), testLimits())
	out := r.alloc(64)
	r.mustRun("k", 1, 64, out, uint32(0))
	lp := r.gpu.Profile()
	checkBalance(t, lp)
	at := instCounts(t, lp, "nanosleep", 0)
	assert.Equal(t, ReasonSleep, top(at), "the nanosleep's cycles: %v", at)
	assert.InDelta(t, 2*2000, float64(at[ReasonSleep]), 2*20, "two warps, 2000 cycles each")
}
