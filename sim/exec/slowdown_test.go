package exec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSlowdownWindowsAndWorkingWarps: a run slows down when a window's
// share of instructions that change memory falls below half of the first
// window's, or when a block of rounds has fewer than half (or the
// WorkingFall given) or more than twice as many warps at work per round as
// the first block had.
func TestSlowdownWindowsAndWorkingWarps(t *testing.T) {
	s := slowdown{window: 100}
	assert.False(t, s.slowed(50, 40), "a window shorter than 100 instructions is not closed")
	assert.False(t, s.slowed(100, 40), "the first window (40% change memory) is the reference")
	assert.False(t, s.slowed(200, 61), "21%: more than half of 40%")
	assert.True(t, s.slowed(300, 80), "19%: less than half")

	// rounds feeds n rounds of c working warps each and says whether any
	// of them ended the run.
	rounds := func(s *slowdown, n, c int) bool {
		stop := false
		for range n {
			stop = s.otherWorking(c, 0) || stop
		}
		return stop
	}
	w := slowdown{window: 100}
	assert.False(t, rounds(&w, workingRounds, 64), "the first block is the reference")
	assert.False(t, rounds(&w, workingRounds, 32), "half as many")
	assert.True(t, rounds(&w, workingRounds, 31), "fewer than half")
	assert.True(t, rounds(&w, workingRounds, 0), "none at work")
	assert.False(t, rounds(&w, workingRounds, 128), "twice as many")
	assert.True(t, rounds(&w, workingRounds, 129), "more than twice")
	assert.False(t, rounds(&w, workingRounds-1, 1000), "a block is not judged before its last round")
	assert.True(t, w.otherWorking(1000, 0), "then it is")

	// With a WorkingFall of 3/4 (a kernel whose warps never poll), a
	// block with fewer than three quarters as many already ends the run.
	tail := slowdown{window: 100, fall: 0.75}
	assert.False(t, rounds(&tail, workingRounds, 64), "the first block is the reference")
	assert.False(t, rounds(&tail, workingRounds, 48), "three quarters as many")
	assert.True(t, rounds(&tail, workingRounds, 47), "fewer than three quarters")

	// Rounds that swing by half either way about 64 (warps leaving and
	// rejoining the back-off) are a steady pace.
	swing := slowdown{window: 100}
	stop := false
	for i := range 10 * workingRounds {
		stop = swing.otherWorking([]int{40, 100, 30, 90}[i%4], 0) || stop
	}
	assert.False(t, stop, "a block's mean stays at 65")

	// With a WorkingWindow, a block also spans that many instructions:
	// rounds that alternate between none and many at work (levels and
	// their grid barriers) average out over it.
	long := slowdown{workingWindow: 1000}
	insts := uint64(0)
	feed := func(n, c int) bool {
		stop := false
		for range n {
			insts += 50
			stop = long.otherWorking(c, insts) || stop
		}
		return stop
	}
	assert.False(t, feed(workingRounds, 64))
	assert.Equal(t, 0.0, long.workingRef, "8 rounds of 400 instructions: no block yet")
	assert.False(t, feed(12, 64))
	assert.Equal(t, 64.0, long.workingRef, "the first block closed at 1000 instructions")
	stop = false
	for i := range 200 {
		stop = feed(1, []int{0, 128}[i%2]) || stop
	}
	assert.False(t, stop, "none and twice as many in turn: the same mean")
	assert.True(t, feed(40, 0), "none at work for a whole block")
}
