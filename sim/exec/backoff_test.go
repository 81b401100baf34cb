package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/kernels"
)

// pollPTX: warp 0 of CTA 0 reads data[0..n) through weak loads, then,
// when set is not 0, raises flag with a volatile store; every other warp
// polls flag with volatile loads until it is raised.
const pollPTX = `
.version 7.0
.target sm_70
.address_size 64

.visible .entry pollwait(.param .u64 flag, .param .u64 data, .param .u32 n, .param .u32 set)
{
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [flag];
	ld.param.u64 %rd2, [data];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r9, [set];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %tid.x;
	shr.u32 %r4, %r3, 5;
	or.b32 %r4, %r4, %r2;
	setp.ne.u32 %p1, %r4, 0;
	@%p1 bra POLL;
	mov.u32 %r5, 0;
	mov.u32 %r6, 0;
WORK:
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r7, [%rd4];
	add.u32 %r6, %r6, %r7;
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p2, %r5, %r1;
	@%p2 bra WORK;
	setp.eq.u32 %p3, %r9, 0;
	@%p3 bra DONE;
	add.u32 %r6, %r6, 1;
	st.volatile.global.u32 [%rd1], %r6;
	bra DONE;
POLL:
	ld.volatile.global.u32 %r8, [%rd1];
	setp.eq.u32 %p3, %r8, 0;
	@%p3 bra POLL;
DONE:
	ret;
}
`

// TestPollingWarpsBackOff: in functional mode, warps that poll a flag
// while one warp works do not each run a slice for every slice of the
// worker (without the back-off the 31 pollers would run about 31 times
// the worker's instructions), and the run still ends correctly.
func TestPollingWarpsBackOff(t *testing.T) {
	m := newMachine(t, pollPTX, true)
	const n = 4000
	flag := m.zeros(4)
	data := m.zeros(4 * n)
	g, err := m.launch("pollwait", d1(8, 128), flag, data, n, 1)
	require.NoError(t, err)
	require.Equal(t, uint32(1), m.u32s(flag, 1)[0])
	worker := uint64(n * 6) // the work loop's instructions, about
	require.Greater(t, g.WarpInsts, worker)
	require.Less(t, g.WarpInsts, 2*worker, "polling warps kept running while nothing changed")
}

// TestBackedOffPollersStillDeadlock: when no warp will ever raise the
// flag, the pollers that sat out are woken and the livelock is reported.
func TestBackedOffPollersStillDeadlock(t *testing.T) {
	m := newMachine(t, pollPTX, true)
	flag := m.zeros(4)
	data := m.zeros(4 * 64)
	_, err := m.launch("pollwait", d1(8, 128), flag, data, 64, 0)
	var dl *kernels.DeadlockError
	require.True(t, errors.As(err, &dl), "want a deadlock, got %v", err)
}

// TestSatOutTurnsCountForTheStretchBudget: a functional stretch
// (Continue) with an instruction budget counts the turns that polling
// warps sat out as the slices they would have run, so it stops where it
// would without the back-off, long before the worker's own instructions
// reach the budget.
func TestSatOutTurnsCountForTheStretchBudget(t *testing.T) {
	m := newMachine(t, pollPTX, true)
	const n = 4000
	flag := m.zeros(4)
	data := m.zeros(4 * n)
	prog, err := m.mod.Program("pollwait")
	require.NoError(t, err)
	params := make([]byte, prog.Entry.KernelParamSize)
	for i, v := range []uint64{flag, data, n, 1} {
		p := prog.Entry.Inputs()[i]
		for b := 0; b < p.Size; b++ {
			params[p.Offset+b] = byte(v >> (8 * b))
		}
	}
	g, err := NewGrid(prog, m.mem, Launch{Grid: [3]int{8, 1, 1}, Block: [3]int{128, 1, 1}, Params: params, SMs: 2, WarpSlotsPerSM: 64})
	require.NoError(t, err)
	const budget = 20000
	done, err := g.Continue(context.Background(), RunOptions{Resident: 8, StopAfterInsts: budget})
	require.NoError(t, err)
	require.False(t, done)
	require.Less(t, g.WarpInsts, uint64(budget/2), "the sat-out turns did not count")
	done, err = g.Continue(context.Background(), RunOptions{Resident: 8})
	require.NoError(t, err)
	require.True(t, done)
	require.Equal(t, uint32(1), m.u32s(flag, 1)[0])
}
