package memsys

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"github.com/stretchr/testify/require"
)

// The delivery queue pops in (at, seq) order whatever the order of the
// pushes, with pops interleaved (the front's space reused): every pop is
// the least delivery pushed and not yet popped.
func TestDeliveryQueuePopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	order := func(a, b delivery) int {
		if a.before(b) {
			return -1
		}
		return 1
	}
	var q deliveryQueue
	var pending []delivery
	seq := uint64(0)
	pops := 0
	for range 300 {
		for range r.IntN(8) {
			seq++
			d := delivery{at: float64(r.IntN(20)), seq: seq}
			q.push(d)
			pending = append(pending, d)
		}
		for range r.IntN(7) {
			if q.len() == 0 {
				break
			}
			least := slices.MinFunc(pending, order)
			require.Equal(t, least, q.pop(), "pop %d", pops)
			pending = slices.DeleteFunc(pending, func(d delivery) bool { return d == least })
			pops++
		}
		require.Equal(t, len(pending), q.len())
	}
	require.Greater(t, pops, 500)
}

// The fill table finds every live fill by its number, out of order and
// across growth, and nothing for a number not in flight.
func TestFillTableTracksFillsInFlight(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var ft fillTable
	live := map[uint64]uint32{}
	next := uint64(1)
	for range 5000 {
		if r.IntN(2) == 0 || len(live) == 0 {
			ft.put(next, l1Fill{sectors: uint32(next)})
			live[next] = uint32(next)
			next++
			continue
		}
		// Take a random live fill, the oldest now and then (a slow one
		// keeps the window wide).
		var num uint64
		for k := range live {
			num = k
			break
		}
		f, ok := ft.take(num)
		require.True(t, ok, "fill %d", num)
		require.Equal(t, live[num], f.sectors)
		delete(live, num)
		_, ok = ft.take(num)
		require.False(t, ok, "fill %d taken twice", num)
	}
	_, ok := ft.take(next + 7)
	require.False(t, ok, "a number never sent")
	require.Greater(t, len(ft.slots), 64, "the window outgrew the first ring")
}

// A cycleMap agrees with a Go map under random puts, gets and deletes of
// cycles that often share a ring slot (cycleRing apart), so that entries
// move between the ring and its overflow map.
func TestCycleMapAgreesWithAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := newCycleMap[int](cycleRing)
	want := map[int64]int{}
	for i := range 20000 {
		c := int64(r.IntN(4))*cycleRing + int64(r.IntN(3))
		switch r.IntN(3) {
		case 0:
			m.put(c, i)
			want[c] = i
		case 1:
			m.del(c)
			delete(want, c)
		}
		for k := int64(0); k < 4*cycleRing; k += cycleRing {
			for j := int64(0); j < 3; j++ {
				v, ok := m.get(k + j)
				w, wok := want[k+j]
				require.Equal(t, wok, ok, "cycle %d after step %d", k+j, i)
				require.Equal(t, w, v, "cycle %d after step %d", k+j, i)
			}
		}
	}
	require.NotEmpty(t, m.far, "no entry went to the overflow map: the test exercises only the ring")
}

// A memPools pool hands a message given back out again, zeroed.
func TestMsgPoolReusesZeroed(t *testing.T) {
	var p msgPool[delivery]
	a := p.new()
	a.seq = 7
	p.give(a)
	b := p.new()
	require.Same(t, a, b)
	require.Zero(t, *b)
	require.NotSame(t, b, p.new())
}

// countHook counts the fabric's hook calls; attached, it also stops the
// memory side from reusing messages (a tracer may keep them).
type countHook struct{ n int }

func (h *countHook) Func(sim.HookCtx) { h.n++ }

// The memory side reuses the messages of a miss (the L1's fill, the
// slice's answer, the slice's DRAM read and DRAM's answer) once their
// receivers are done with them, and none while the fabric has a hook;
// either way every load takes the same time.
func TestMissMessagesAreReusedOnlyWithoutHooks(t *testing.T) {
	if parallelSuite {
		t.Skip("nothing is reused under the parallel engine")
	}
	run := func(hooked bool) ([]uint64, *memPools) {
		r := newRig(t, testConfig(), 1)
		h := &countHook{}
		if hooked {
			r.sys.fabric.AcceptHook(h)
		}
		sm := r.sms[0]
		sm.serial = true
		for i := range 6 {
			sm.read(lineA+uint64(i)*4096, 0xf) // six lines, each from DRAM
		}
		r.run(t)
		require.Equal(t, hooked, h.n > 0)
		return r.latencies(0), &r.sys.pools
	}
	plain, pools := run(false)
	// One miss at a time: each takes a fill and a DRAM read, an L2 answer
	// and a DRAM answer, and gives all four back, so two of each kind
	// serve every miss.
	require.Len(t, pools.reads.free, 2, "fills and DRAM reads reused")
	require.Len(t, pools.answers.free, 2, "L2 and DRAM answers reused")
	hooked, pools := run(true)
	require.Empty(t, pools.reads.free)
	require.Empty(t, pools.answers.free)
	require.Equal(t, plain, hooked)
}
