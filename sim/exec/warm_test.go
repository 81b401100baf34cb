package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadAddStorePTX: each thread loads in[i], adds it to *sum atomically and
// stores it twice over to out[i].
const loadAddStorePTX = `.version 6.4
.target sm_70
.address_size 64

.visible .entry load_add_store(.param .u64 in, .param .u64 out, .param .u64 sum)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	ld.param.u64 %rd3, [sum];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd4, %r4, 4;
	add.s64 %rd5, %rd1, %rd4;
	ld.global.u32 %r5, [%rd5];
	atom.global.add.u32 %r6, [%rd3], %r5;
	shl.b32 %r7, %r5, 1;
	add.s64 %rd6, %rd2, %rd4;
	st.global.u32 [%rd6], %r7;
	ret;
}
`

// TestWarmInRoundsHandsEveryAccessOnce: a run in rounds with
// RunOptions.Warm hands over every global lane access once, the same
// ones as a run in order, in the same sequence for every thread count;
// both count the global atomics (Grid.GlobalAtomics).
func TestWarmInRoundsHandsEveryAccessOnce(t *testing.T) {
	const ctas, block, sms = 12, 64, 4
	run := func(threads int, inOrder bool) []string {
		m := newMachine(t, loadAddStorePTX, true)
		in := m.zeros(4 * ctas * block)
		out := m.zeros(4 * ctas * block)
		sum := m.zeros(4)
		prog, err := m.mod.Program("load_add_store")
		require.NoError(t, err)
		params := binary.LittleEndian.AppendUint64(nil, in)
		params = binary.LittleEndian.AppendUint64(params, out)
		params = binary.LittleEndian.AppendUint64(params, sum)
		g, err := NewGrid(prog, m.mem, Launch{Grid: [3]int{ctas, 1, 1}, Block: [3]int{block, 1, 1}, Params: params, SMs: sms, WarpSlotsPerSM: 64})
		require.NoError(t, err)
		var seen []string
		warm := func(acc *MemAccess) {
			for l := range WarpSize {
				if acc.Lanes&(1<<l) != 0 {
					seen = append(seen, fmt.Sprintf("%d %d %#x", acc.Kind, acc.Size, acc.Addr[l]))
				}
			}
		}
		require.NoError(t, g.Run(context.Background(), RunOptions{Resident: 8, Threads: threads, InOrder: inOrder, Warm: warm}))
		assert.Equal(t, uint64(ctas*block), g.GlobalAtomics, "GlobalAtomics counts each thread's atomic")
		return seen
	}
	one, three := run(1, false), run(3, false)
	assert.Equal(t, 3*ctas*block, len(one), "a load, an atomic and a store per thread")
	assert.Equal(t, one, three, "the same sequence on one thread and three")
	ordered := run(1, true)
	slices.Sort(one)
	slices.Sort(ordered)
	assert.Equal(t, ordered, one, "the accesses of a run in order")
}
