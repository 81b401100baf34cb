package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreOverlay stores random values of 1, 2, 4 and 8 bytes at aligned
// addresses of a small region into an overlay and checks every aligned
// load of every size against a byte array holding the image with the
// stores applied in order.
func TestStoreOverlay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const region = 256
	for round := range 20 {
		var o storeOverlay
		image := make([]byte, region)
		for i := range image {
			image[i] = byte(rng.Uint32())
		}
		want := append([]byte(nil), image...)
		stores := 1 + rng.IntN(3000) // enough to grow the table
		if round%4 == 0 {
			stores = 0
		}
		for range stores {
			size := 1 << rng.IntN(4)
			a := uint64(rng.IntN(region/size) * size)
			v := rng.Uint64()
			o.put(GlobalBase+a, size, v)
			store(want, a, size, v)
		}
		for size := 1; size <= 8; size *= 2 {
			for a := uint64(0); a < region; a += uint64(size) {
				got := o.get(GlobalBase+a, size, load(image, a, size))
				require.Equal(t, load(want, a, size), got, "round %d: %d bytes at %d", round, size, a)
			}
		}
		o.reset()
		require.True(t, o.empty())
		for a := uint64(0); a < region; a += 8 {
			require.Equal(t, load(image, a, 8), o.get(GlobalBase+a, 8, load(image, a, 8)), "after reset")
		}
	}
}

// roundsPTX: every thread takes a ticket with atomicAdd on ticket[0] and
// writes its global id at order[ticket]; it also stores its id into
// last[id % 7] (racing plain stores), and stores id + 1000 at mine[id],
// reads it back and stores it plus one (a thread sees its own store at
// once).
const roundsPTX = `
.version 7.0
.target sm_70
.address_size 64

.visible .entry tickets(.param .u64 ticket, .param .u64 order, .param .u64 last, .param .u64 mine)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [ticket];
	ld.param.u64 %rd2, [order];
	ld.param.u64 %rd3, [last];
	ld.param.u64 %rd4, [mine];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.u32 %r4, %r1, %r2, %r3;
	atom.global.add.u32 %r5, [%rd1], 1;
	mul.wide.u32 %rd5, %r5, 4;
	add.s64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r4;
	rem.u32 %r6, %r4, 7;
	mul.wide.u32 %rd7, %r6, 4;
	add.s64 %rd8, %rd3, %rd7;
	st.global.u32 [%rd8], %r4;
	mul.wide.u32 %rd9, %r4, 4;
	add.s64 %rd10, %rd4, %rd9;
	add.u32 %r8, %r4, 1000;
	st.global.u32 [%rd10], %r8;
	ld.global.u32 %r7, [%rd10];
	add.u32 %r7, %r7, 1;
	st.global.u32 [%rd10], %r7;
	ret;
}
`

// TestRoundsSameForEveryThreadCount runs a racy kernel (tickets from one
// atomic counter, plain stores racing to the same words) on 4 SMs with
// 1, 2 and 3 threads: memory and instruction counts are the same every
// time, each ticket is taken once, and every thread read its own store.
func TestRoundsSameForEveryThreadCount(t *testing.T) {
	// Rounds of 32 resident CTAs of 8 warps log hundreds of operations,
	// which apply deals to threads by line (minParallelApply).
	const ctas, block = 64, 256
	const n = ctas * block
	var first []uint32
	var firstInsts uint64
	for _, threads := range []int{1, 2, 3} {
		m := newMachine(t, roundsPTX, true)
		ticket, order, last, mine := m.zeros(4), m.zeros(4*n), m.zeros(4*7), m.zeros(4*n)
		rc := d1(ctas, block)
		rc.sms, rc.resident, rc.threads = 4, 32, threads
		g, err := m.launch("tickets", rc, ticket, order, last, mine)
		require.NoError(t, err)
		require.Equal(t, []uint32{n}, m.u32s(ticket, 1))
		got := append(m.u32s(order, n), m.u32s(last, 7)...)
		seen := make([]bool, n)
		for _, id := range got[:n] {
			require.False(t, seen[id], "thread %d took two tickets", id)
			seen[id] = true
		}
		for id, v := range m.u32s(mine, n) {
			require.Equal(t, uint32(id+1001), v, "thread %d did not read its own store", id)
		}
		if first == nil {
			first, firstInsts = got, g.WarpInsts
			continue
		}
		assert.Equal(t, first, got, "%d threads", threads)
		assert.Equal(t, firstInsts, g.WarpInsts, "%d threads", threads)
	}
}

// visibilityPTX: CTA 0's thread 0 stores data = 42, then flag = 1, and
// reads flag back into out[0]; CTA 1's thread 0 reads flag once into
// out[1], then polls flag with volatile loads until it is 1 and reads
// data into out[2].
const visibilityPTX = `
.version 7.0
.target sm_70
.address_size 64

.visible .entry publish(.param .u64 flag, .param .u64 data, .param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [flag];
	ld.param.u64 %rd2, [data];
	ld.param.u64 %rd3, [out];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra DONE;
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra READER;
	st.global.u32 [%rd2], 42;
	st.global.u32 [%rd1], 1;
	ld.global.u32 %r3, [%rd1];
	st.global.u32 [%rd3], %r3;
	bra DONE;
READER:
	ld.global.u32 %r4, [%rd1];
	st.global.u32 [%rd3+4], %r4;
POLL:
	ld.volatile.global.u32 %r5, [%rd1];
	setp.eq.u32 %p3, %r5, 0;
	@%p3 bra POLL;
	ld.global.u32 %r6, [%rd2];
	st.global.u32 [%rd3+8], %r6;
DONE:
	ret;
}
`

// TestRoundsVisibility: a thread reads its own store at once; another
// SM's warp reads memory as it was when the round began (CTA 0's SM runs
// first, yet CTA 1's first read of the flag is 0), and sees the stores of
// a round together and in order from the next round on (the flag, then
// the data it publishes).
func TestRoundsVisibility(t *testing.T) {
	for _, threads := range []int{1, 2} {
		m := newMachine(t, visibilityPTX, true)
		flag, data, out := m.zeros(4), m.zeros(4), m.zeros(12)
		rc := d1(2, 32)
		rc.sms, rc.threads = 2, threads
		_, err := m.launch("publish", rc, flag, data, out)
		require.NoError(t, err)
		assert.Equal(t, []uint32{1, 0, 42}, m.u32s(out, 3), "%d threads", threads)
	}
}

// faultPTX: every thread of CTA bad and above loads through a null
// pointer; the others store their id.
const faultPTX = `
.version 7.0
.target sm_70
.address_size 64

.visible .entry late_fault(.param .u64 out, .param .u32 bad)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [bad];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.u32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra FAULT;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r5;
	ret;
FAULT:
	mov.u64 %rd4, 0;
	ld.global.u32 %r6, [%rd4];
	ret;
}
`

// TestRoundsFaultTheSameForEveryThreadCount: when warps on several SMs
// fault in the same round, the run reports the fault of the
// lowest-numbered SM, the same at 1, 2 and 3 threads.
func TestRoundsFaultTheSameForEveryThreadCount(t *testing.T) {
	var first string
	for _, threads := range []int{1, 2, 3} {
		m := newMachine(t, faultPTX, true)
		out := m.zeros(4 * 16 * 64)
		rc := d1(16, 64)
		rc.sms, rc.resident, rc.threads = 4, 16, threads
		_, err := m.launch("late_fault", rc, out, 5)
		var f *MemoryFault
		require.ErrorAs(t, err, &f, "%d threads", threads)
		require.Contains(t, err.Error(), "null pointer")
		if first == "" {
			first = err.Error()
			continue
		}
		assert.Equal(t, first, err.Error(), "%d threads", threads)
	}
}
