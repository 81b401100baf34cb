package timing

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim/exec"
)

// loopKernel: every thread adds 1 to its own word %r1 times, a CTA
// barrier between the load and the store of each round.
var loopKernel = kernel("loop", `
	mov.u32 %r4, %ctaid.x;
	mov.u32 %r5, %ntid.x;
	mad.lo.u32 %r6, %r4, %r5, %r2;
	mul.wide.u32 %rd4, %r6, 4;
	add.s64 %rd5, %rd1, %rd4;
	mov.u32 %r7, 0;
$L_loop:
	ld.global.u32 %r3, [%rd5];
	add.s32 %r3, %r3, 1;
	bar.sync 0;
	st.global.u32 [%rd5], %r3;
	add.s32 %r7, %r7, 1;
	setp.lt.u32 %p1, %r7, %r1;
	@%p1 bra $L_loop;`)

// TestProbeStopsAndResumeFinishes: a Probe stops a launch mid-way (warps
// at barriers, CTAs still waiting), exec.Grid.Continue runs it on for a
// while, and Launch.Resume finishes it on the timing model: every thread
// did all its rounds, once.
func TestProbeStopsAndResumeFinishes(t *testing.T) {
	const ctas, block, rounds = 16, 64, 60
	r := newRig(t, loopKernel, testSM(), testLimits())
	out := r.alloc(ctas * block)
	prog, err := r.mod.Program("loop")
	require.NoError(t, err)
	params := binary.LittleEndian.AppendUint64(nil, out)
	params = binary.LittleEndian.AppendUint32(params, rounds)
	g, err := exec.NewGrid(prog, r.mem, exec.Launch{
		Grid: [3]int{ctas, 1, 1}, Block: [3]int{block, 1, 1}, Params: params,
		SMs: r.gpu.limits.SMs, WarpSlotsPerSM: r.gpu.limits.MaxWarpsPerSM, Clock: r.gpu.Clock,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l := Launch{Grid: g, ThreadsPerCTA: block, WarpsPerCTA: block / 32,
		RegistersPerThread: 32, RegistersPerCTA: 32 * block}
	var probes []Progress
	l.Probe = func(p Progress) bool {
		probes = append(probes, p)
		return p.Cycles >= 4000
	}
	l.ProbeCycles = 256
	st, err := r.gpu.Run(ctx, l)
	require.NoError(t, err)
	require.NotZero(t, st.StoppedAt, "the probe stopped the launch")
	assert.GreaterOrEqual(t, st.StoppedAt, uint64(4000))
	assert.Less(t, st.CTAs, ctas, "CTAs were left to finish")
	last := probes[len(probes)-1]
	assert.Equal(t, g.WarpInsts, last.WarpInsts, "nothing issued after the stop")
	assert.Positive(t, last.Changes)

	done, err := g.Continue(ctx, exec.RunOptions{Resident: 8, StopAfterChanges: 40})
	require.NoError(t, err)
	require.False(t, done)
	assert.GreaterOrEqual(t, g.Changes()-last.Changes, uint64(40))
	assert.Less(t, g.Finished, ctas)

	l.Probe, l.Resume = nil, true
	st, err = r.gpu.Run(ctx, l)
	require.NoError(t, err)
	assert.Zero(t, st.StoppedAt)
	assert.Equal(t, ctas, g.Finished)
	for i, v := range r.words(out, ctas*block) {
		require.Equal(t, uint32(rounds), v, "thread %d", i)
	}
}

// TestProbeNeedsAnInterval: a probe without an interval is refused.
func TestProbeNeedsAnInterval(t *testing.T) {
	r := newRig(t, loopKernel, testSM(), testLimits())
	prog, err := r.mod.Program("loop")
	require.NoError(t, err)
	params := binary.LittleEndian.AppendUint64(nil, r.alloc(64))
	params = binary.LittleEndian.AppendUint32(params, 1)
	g, err := exec.NewGrid(prog, r.mem, exec.Launch{Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}, Params: params,
		SMs: r.gpu.limits.SMs, WarpSlotsPerSM: r.gpu.limits.MaxWarpsPerSM, Clock: r.gpu.Clock})
	require.NoError(t, err)
	_, err = r.gpu.Run(context.Background(), Launch{Grid: g, ThreadsPerCTA: 64, WarpsPerCTA: 2,
		RegistersPerThread: 32, RegistersPerCTA: 32 * 64, Probe: func(Progress) bool { return true }})
	require.ErrorContains(t, err, "probe")
}
