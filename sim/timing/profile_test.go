package timing

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
)

func newProfileRig(t testing.TB, body string, sm SMConfig, lim Limits) *rig {
	t.Helper()
	return newRigWith(t, kernel("k", body), sm, lim, func(b Builder) Builder { return b.WithProfile(true) })
}

// checkBalance asserts that every warp's cycles add up: the launch's
// reasons sum to warps × cycles, and no warp was found unbalanced.
func checkBalance(t *testing.T, lp *LaunchProfile) ReasonCounts {
	t.Helper()
	require.NotNil(t, lp)
	tot := lp.Totals()
	assert.Zero(t, lp.Unbalanced, "warps whose cycles do not add up")
	assert.Equal(t, lp.WarpCycles(), tot.Total(), "reasons sum to warps × cycles")
	return tot
}

// instCounts returns the counters of the first instruction of the kernel
// whose text contains text, after skip matches.
func instCounts(t *testing.T, lp *LaunchProfile, text string, skip int) ReasonCounts {
	t.Helper()
	for fn, counts := range lp.Insts {
		for pc := range fn.Insts {
			if strings.Contains(fn.InstString(lp.Module, pc), text) {
				if skip == 0 {
					return counts[pc]
				}
				skip--
			}
		}
	}
	t.Fatalf("no instruction %q", text)
	return ReasonCounts{}
}

// top is the reason with the most cycles.
func top(c ReasonCounts) Reason {
	best := Reason(0)
	for r := range NumReasons {
		if c[r] > c[best] {
			best = r
		}
	}
	return best
}

func TestProfileCyclesAddUp(t *testing.T) {
	// 20 CTAs of 2 warps on 2 SMs of 4 CTAs: most wait for an SM. Each
	// thread loads, computes, goes through a barrier and stores.
	body := "\tmov.u32 %r5, %ctaid.x;\n\tmad.lo.s32 %r6, %r5, 64, %r2;\n\tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n" +
		"\tld.global.u32 %r3, [%rd5];\n\tmul.lo.s32 %r3, %r3, 3;\n\tbar.sync 0;\n\tadd.s32 %r3, %r3, %r2;\n\tst.global.u32 [%rd5], %r3;"
	for _, policy := range []string{PolicyGTO, PolicyLRR} {
		t.Run(policy, func(t *testing.T) {
			sm := testSM()
			sm.SchedulingPolicy = policy
			sm.WarpSchedulers = 2
			r := newProfileRig(t, body, sm, testLimits())
			out := r.alloc(20 * 64)
			st := r.mustRun("k", 20, 64, out, uint32(0))
			lp := r.gpu.Profile()
			tot := checkBalance(t, lp)
			assert.Equal(t, st.Cycles, lp.Cycles, "a completed launch is profiled over its Stats.Cycles")
			assert.Equal(t, uint64(40), lp.Warps())
			assert.Equal(t, 20, lp.CTAsStarted)
			assert.Equal(t, st.WarpInstructions, tot[ReasonIssued], "one issued cycle per warp-instruction")
			assert.Positive(t, tot[ReasonNotResident], "CTAs waited for an SM")
			assert.Positive(t, tot[ReasonFinished])
			assert.Positive(t, tot[ReasonCTALaunch])
			assert.Positive(t, tot[ReasonGlobalLoad])
			assert.Positive(t, tot[ReasonBarrier])
			// Not resident: each warp from the launch's start to its CTA's
			// start; the first 8 CTAs start at once.
			assert.Less(t, tot[ReasonNotResident], 32*lp.Cycles)
		})
	}
}

func TestProfileDoesNotChangeTheSimulation(t *testing.T) {
	body := "\tld.global.u32 %r3, [%rd3];\n\tadd.s32 %r3, %r3, 1;\n\tbar.sync 0;\n\tst.global.u32 [%rd3], %r3;"
	plain := newRig(t, kernel("k", body), testSM(), testLimits())
	prof := newProfileRig(t, body, testSM(), testLimits())
	a := plain.mustRun("k", 12, 128, plain.alloc(128), uint32(0))
	b := prof.mustRun("k", 12, 128, prof.alloc(128), uint32(0))
	assert.Equal(t, a, b)
	assert.Nil(t, plain.gpu.Profile(), "no profile unless asked")
}

func TestProfileBankConflicts(t *testing.T) {
	// One warp, 32 dependent shared loads at a stride of 32 words: each
	// takes 31 extra passes (62 cycles) beside its 20-cycle latency.
	body := "\tshl.b32 %r4, %r2, 7;\n\tmov.u32 %r9, smem;\n\tadd.s32 %r4, %r4, %r9;\n\tmov.u32 %r6, 0;\n" + repeat(32, func(int) string {
		return "ld.shared.u32 %r5, [%r4];\n\tadd.s32 %r6, %r6, %r5;"
	}) + "\tst.global.u32 [%rd3], %r6;"
	src := strings.Replace(kernel("k", body), "\tld.param.u64", "\t.shared .align 4 .b8 smem[4096];\n\tld.param.u64", 1)
	r := newRigWith(t, src, testSM(), testLimits(), func(b Builder) Builder { return b.WithProfile(true) })
	r.mustRun("k", 1, 32, r.alloc(32), uint32(0))
	lp := r.gpu.Profile()
	tot := checkBalance(t, lp)
	assert.Equal(t, ReasonBankConflict, top(tot), "%v", tot)
	assert.InDelta(t, 62.0/82, float64(tot[ReasonBankConflict])/float64(tot[ReasonBankConflict]+tot[ReasonSharedMemory]), 0.05)
	add := instCounts(t, lp, "add.s32 %r6, %r6, %r5", 0)
	assert.Equal(t, ReasonBankConflict, top(add), "the load's consumer waits for the extra passes: %v", add)
}

func TestProfileBarrierWaits(t *testing.T) {
	// Warp 0 runs a chain of 20 divides (40 cycles each); warp 1 waits at
	// the barrier for it.
	body := "\tsetp.ge.u32 %p1, %r2, 32;\n\tmov.u32 %r3, 1000000;\n\t@%p1 bra $L_bar;\n" +
		repeat(20, func(int) string { return "div.u32 %r3, %r3, 1;" }) +
		"$L_bar:\n\tbar.sync 0;\n\tst.global.u32 [%rd3], %r3;"
	r := newProfileRig(t, body, testSM(), testLimits())
	r.mustRun("k", 1, 64, r.alloc(64), uint32(0))
	lp := r.gpu.Profile()
	checkBalance(t, lp)
	bar := instCounts(t, lp, "bar.sync", 0)
	assert.Equal(t, ReasonBarrier, top(bar), "%v", bar)
	assert.Greater(t, bar[ReasonBarrier], uint64(19*40), "warp 1 waits out warp 0's divides at the bar")
	div := instCounts(t, lp, "div.u32", 1)
	assert.Equal(t, ReasonALU, top(div), "each divide waits for the one before: %v", div)
}

func TestProfileSpinning(t *testing.T) {
	t.Run("a spin the deadlock detector ends", func(t *testing.T) {
		r := newProfileRig(t, spinBody, testSM(), testLimits())
		_, err := r.run("k", 1, 32, r.alloc(64), uint32(0))
		var dl *kernels.DeadlockError
		require.ErrorAs(t, err, &dl)
		lp := r.gpu.Profile()
		tot := checkBalance(t, lp)
		assert.Greater(t, float64(tot[ReasonSpinning]), 0.95*float64(tot.Total()), "%v", tot)
		for _, text := range []string{"ld.volatile.global.u32", "setp.eq.s32 %p1, %r3, 0", "bra"} {
			c := instCounts(t, lp, text, 0)
			assert.Equal(t, ReasonSpinning, top(c), "%s: %v", text, c)
		}
	})
	t.Run("a spin with a poll counter", func(t *testing.T) {
		// 300 polls of a flag nobody sets, counting them: the registers
		// change, the addresses polled do not.
		body := "\tmov.u32 %r7, 0;\n$L_spin:\n\tld.volatile.global.u32 %r3, [%rd1+4];\n\tadd.s32 %r7, %r7, 1;\n" +
			"\tsetp.lt.u32 %p2, %r7, 300;\n\tsetp.eq.s32 %p1, %r3, 0;\n\tand.pred %p1, %p1, %p2;\n\t@%p1 bra $L_spin;\n\tst.global.u32 [%rd3], %r7;"
		r := newProfileRig(t, body, testSM(), testLimits())
		r.mustRun("k", 1, 32, r.alloc(64), uint32(0))
		lp := r.gpu.Profile()
		tot := checkBalance(t, lp)
		assert.Equal(t, ReasonSpinning, top(tot), "%v", tot)
		assert.Greater(t, float64(tot[ReasonSpinning]), 0.9*float64(tot.Total()), "%v", tot)
	})
	t.Run("a loop over new addresses does not spin", func(t *testing.T) {
		// 100 loads of consecutive words, summed: nothing changes memory,
		// but every iteration reads elsewhere.
		body := "\tmov.u32 %r7, 0;\n\tmov.u32 %r8, 0;\n\tmov.u64 %rd6, %rd1;\n$L_loop:\n\tld.global.u32 %r3, [%rd6];\n\tadd.s32 %r8, %r8, %r3;\n" +
			"\tadd.s64 %rd6, %rd6, 4;\n\tadd.s32 %r7, %r7, 1;\n\tsetp.lt.u32 %p1, %r7, 100;\n\t@%p1 bra $L_loop;\n\tst.global.u32 [%rd3], %r8;"
		r := newProfileRig(t, body, testSM(), testLimits())
		r.mustRun("k", 1, 32, r.alloc(256), uint32(0))
		tot := checkBalance(t, r.gpu.Profile())
		assert.Zero(t, tot[ReasonSpinning], "%v", tot)
		assert.Equal(t, ReasonGlobalLoad, top(tot), "%v", tot)
	})
	t.Run("a stopped spin", func(t *testing.T) {
		// The deadlock window never ends, the context does.
		sm := testSM()
		sm.DeadlockWindowCycles = 1 << 40
		r := newProfileRig(t, spinBody, sm, testLimits())
		out := r.alloc(64)
		prog, err := r.mod.Program("k")
		require.NoError(t, err)
		g, err := exec.NewGrid(prog, r.mem, exec.Launch{Grid: [3]int{3, 1, 1}, Block: [3]int{32, 1, 1},
			Params: append(le64(out), 0, 0, 0, 0), SMs: 2, WarpSlotsPerSM: 32, Clock: r.gpu.Clock})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err = r.gpu.Run(ctx, Launch{Grid: g, ThreadsPerCTA: 32, WarpsPerCTA: 1, RegistersPerCTA: 1024})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		tot := checkBalance(t, r.gpu.Profile())
		assert.Greater(t, float64(tot[ReasonSpinning]), 0.95*float64(tot.Total()), "%v", tot)
	})
}

func TestProfileAtomicsAndLoads(t *testing.T) {
	tests := []struct {
		name string
		body string
		want Reason
	}{
		{"dependent global loads", "\tmov.u64 %rd6, %rd1;\n" + repeat(8, func(int) string {
			return "ld.global.u64 %rd6, [%rd6];"
		}) + "\tcvt.u32.u64 %r3, %rd6;\n\tst.global.u32 [%rd3+256], %r3;", ReasonGlobalLoad},
		{"dependent atomics on one address", "\tmov.u32 %r3, 1;\n" + repeat(8, func(int) string {
			return "atom.global.add.u32 %r3, [%rd1], %r3;"
		}) + "\tst.global.u32 [%rd3+256], %r3;", ReasonAtomic},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newProfileRig(t, tc.body, testSM(), testLimits())
			out := r.alloc(256)
			// A pointer to itself, for the chain of loads.
			r.mem.Write(out, le64(out))
			r.mustRun("k", 1, 32, out, uint32(0))
			tot := checkBalance(t, r.gpu.Profile())
			assert.Equal(t, tc.want, top(tot), "%v", tot)
		})
	}
}

func TestReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for r := range NumReasons {
		name := r.String()
		assert.Regexp(t, "^[a-z_]+$", name)
		assert.False(t, seen[name], "duplicate %s", name)
		seen[name] = true
		assert.NotEmpty(t, r.Description())
		assert.Equal(t, r != ReasonNotResident && r != ReasonFinished, r.AtInstruction())
	}
}
