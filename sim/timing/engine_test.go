package timing

import (
	"math/rand/v2"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orderRecorder is a handler that records which events it handled.
type orderRecorder struct{ got []string }

func (r *orderRecorder) Handle(e sim.Event) error {
	switch e := e.(type) {
	case *wakeEvent:
		r.got = append(r.got, "sm"+string(rune('0'+e.rank)))
	case *namedEvent:
		r.got = append(r.got, e.name)
	}
	return nil
}

// namedEvent is a memory-system-like event (not an SM's).
type namedEvent struct {
	t    sim.VTimeInSec
	h    sim.Handler
	name string
}

func (e *namedEvent) Time() sim.VTimeInSec { return e.t }
func (e *namedEvent) Handler() sim.Handler { return e.h }
func (e *namedEvent) IsSecondary() bool    { return false }

// TestSameTimeEventsRunInADefinedOrder pins the serial engine's order
// among events of one time: the SMs' first by rank, then the others first
// scheduled first, whatever order they were scheduled in. Under akita's
// order (its binary heap's shape) the same events come out otherwise.
func TestSameTimeEventsRunInADefinedOrder(t *testing.T) {
	e := newSerialEngine(0.5)
	r := &orderRecorder{}
	wake := func(tm sim.VTimeInSec, rank uint64) *wakeEvent {
		return &wakeEvent{time: tm, handler: r, rank: rank}
	}
	e.Schedule(&namedEvent{t: 2, h: r, name: "mem-a"})
	e.Schedule(wake(2, 3))
	e.Schedule(&namedEvent{t: 1, h: r, name: "early"})
	e.Schedule(&namedEvent{t: 2, h: r, name: "mem-b"})
	e.Schedule(wake(2, 0))
	e.Schedule(&namedEvent{t: 2, h: r, name: "mem-c"})
	e.Schedule(wake(2, 1))
	e.Schedule(wake(3, 0))
	require.NoError(t, e.Run())
	assert.Equal(t, []string{"early", "sm0", "sm1", "sm3", "mem-a", "mem-b", "mem-c", "sm0"}, r.got)
}

// TestSMRankRotatesWithTheCycle checks that no SM goes first in every
// cycle: at cycle c, SM c mod n has rank 0 and the others follow in turn.
func TestSMRankRotatesWithTheCycle(t *testing.T) {
	g := &GPU{}
	for i := range 4 {
		g.sms = append(g.sms, &SM{g: g, id: i})
	}
	for c := uint64(0); c < 8; c++ {
		ranks := make([]uint64, 4)
		for i, s := range g.sms {
			ranks[i] = s.tieRank(c)
		}
		first := c % 4
		assert.Equal(t, uint64(0), ranks[first], "cycle %d", c)
		assert.ElementsMatch(t, []uint64{0, 1, 2, 3}, ranks, "cycle %d", c)
		assert.Equal(t, uint64(1), ranks[(first+1)%4], "cycle %d", c)
	}
}

// wakeCounter counts the SMs' wake events the engine handles.
type wakeCounter struct{ wakes int }

func (h *wakeCounter) Func(ctx sim.HookCtx) {
	if _, ok := ctx.Item.(*wakeEvent); ok && ctx.Pos == sim.HookPosBeforeEvent {
		h.wakes++
	}
}

// TestSMSleepsUntilItsWarpCanIssue checks that an SM whose one warp runs a
// chain of dependent additions ticks about once per instruction: it sleeps
// from an issue until the result the next instruction needs is ready. It
// used to tick also the cycle after every issue, to find the warp waiting
// (twice per instruction).
func TestSMSleepsUntilItsWarpCanIssue(t *testing.T) {
	if parallelSuite {
		t.Skip("counts the serial engine's events")
	}
	const n = 256
	body := "\tmov.u32 %r3, %r2;\n" + repeat(n, func(int) string { return "add.s32 %r3, %r3, 1;" }) +
		"\tst.global.u32 [%rd3], %r3;"
	r := newRig(t, kernel("k", body), testSM(), testLimits())
	h := &wakeCounter{}
	r.gpu.engine.(*serialEngine).AcceptHook(h)
	out := r.alloc(32)
	st := r.mustRun("k", 1, 32, out, uint32(0))
	require.Equal(t, uint32(n), r.words(out, 1)[0])
	t.Logf("%d warp-instructions, %d SM wake events, %d cycles", st.WarpInstructions, h.wakes, st.Cycles)
	assert.GreaterOrEqual(t, st.Cycles, uint64(n*testSM().Integer.Latency), "the chain pays its latency")
	assert.LessOrEqual(t, h.wakes, int(st.WarpInstructions)+16, "the SM ticks about once per instruction")
}

// The event heap pops in (time, key) order whatever the order of the
// pushes, with pops interleaved: every pop is the least entry pushed and
// not yet popped.
// TestCalendarPopsInOrder: the engine's calendar gives the earliest entry
// by (time, key), as the heap does, for entries pushed at or after the
// time last popped: in its bucket of the ring, in a later one across the
// ring's end, or beyond the ring in its far heap.
func TestCalendarPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var c calendar
	c.init(0.25)
	var pending []heapEntry
	key, now, fromFar := uint64(0), 0.0, 0
	for range 5000 {
		for range r.IntN(9) {
			key++
			ahead := r.Float64() * 8 // mostly the ring's first buckets
			switch r.IntN(8) {
			case 0:
				ahead = 0 // the current time
			case 1:
				ahead = float64(r.IntN(400)) // beyond the ring now and then (64 buckets of 0.25)
			}
			e := heapEntry{t: sim.VTimeInSec(now + ahead), key: uint64(r.IntN(4))<<rankShift | key}
			c.push(e)
			pending = append(pending, e)
		}
		for range r.IntN(9) {
			if len(pending) == 0 {
				break
			}
			var want heapEntry
			want, pending = takeLeast(pending)
			if len(c.far) > 0 && &c.far[0] == c.peek() {
				fromFar++
			}
			require.Equal(t, want, *c.peek())
			got := c.pop()
			require.Equal(t, want, got)
			now = float64(got.t)
		}
		require.Equal(t, len(pending), c.len())
	}
	assert.Positive(t, fromFar, "no entry came from the far heap")
}

// takeLeast removes the least entry by (time, key) from pending.
func takeLeast(pending []heapEntry) (heapEntry, []heapEntry) {
	least := 0
	for i := range pending {
		if pending[i].before(&pending[least]) {
			least = i
		}
	}
	ent := pending[least]
	return ent, append(pending[:least], pending[least+1:]...)
}

func TestEventHeapPopsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var h eventHeap
	var pending []heapEntry
	key := uint64(0)
	for range 2000 {
		for range r.IntN(9) {
			key++
			e := heapEntry{t: sim.VTimeInSec(r.IntN(30)), key: uint64(r.IntN(4))<<rankShift | key}
			h.push(e)
			pending = append(pending, e)
		}
		for range r.IntN(9) {
			if len(pending) == 0 {
				break
			}
			var want heapEntry
			want, pending = takeLeast(pending)
			require.Equal(t, want, h.pop())
		}
		require.Len(t, h, len(pending))
	}
}
