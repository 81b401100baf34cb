package exec

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const storeTwicePTX = `.version 6.4
.target sm_70
.address_size 64

.visible .entry store_twice(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	shl.b32 %r5, %r4, 1;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
}
`

// TestContinueRunsALaunchInParts: Continue from a grid nothing started,
// stopped every few changes, finishes the launch as Run would, never
// holding more CTAs on an SM than its share of Resident, and Changes
// counts the stores that changed memory.
func TestContinueRunsALaunchInParts(t *testing.T) {
	const ctas, block, resident, sms = 24, 64, 5, 2
	m := newMachine(t, storeTwicePTX, true)
	out := m.zeros(4 * ctas * block)
	prog, err := m.mod.Program("store_twice")
	require.NoError(t, err)
	params := binary.LittleEndian.AppendUint64(nil, out)
	g, err := NewGrid(prog, m.mem, Launch{Grid: [3]int{ctas, 1, 1}, Block: [3]int{block, 1, 1}, Params: params, SMs: sms, WarpSlotsPerSM: 64})
	require.NoError(t, err)
	parts := 0
	for {
		done, err := g.Continue(context.Background(), RunOptions{Resident: resident, StopAfterChanges: 3})
		require.NoError(t, err)
		parts++
		perSM := map[int]int{}
		for _, c := range g.Started() {
			perSM[c.SM]++
		}
		for sm, n := range perSM {
			assert.LessOrEqual(t, n, (resident+sms-1)/sms, "SM %d", sm)
		}
		assert.LessOrEqual(t, len(g.Started()), resident)
		if done {
			break
		}
		require.Less(t, parts, 1000)
	}
	assert.Greater(t, parts, 1, "the budget stopped it")
	assert.Equal(t, ctas, g.Finished)
	// Every warp's store changes memory: its lanes store values other
	// than the zeros there (thread 0 alone stores 0).
	assert.Equal(t, uint64(ctas*block/32), g.Changes())
	for i, v := range m.u32s(out, ctas*block) {
		require.Equal(t, uint32(2*i), v, "thread %d", i)
	}
}
