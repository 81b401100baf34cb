package exec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSlowdownWindowsAndWorkingWarps: a run slows down when a window's
// share of instructions that change memory falls below half of the first
// window's, or when a round has fewer than half or more than twice as
// many warps at work as the first round had.
func TestSlowdownWindowsAndWorkingWarps(t *testing.T) {
	s := slowdown{window: 100}
	assert.False(t, s.slowed(50, 40), "a window shorter than 100 instructions is not closed")
	assert.False(t, s.slowed(100, 40), "the first window (40% change memory) is the reference")
	assert.False(t, s.slowed(200, 61), "21%: more than half of 40%")
	assert.True(t, s.slowed(300, 80), "19%: less than half")

	w := slowdown{window: 100}
	assert.False(t, w.otherWorking(64), "the first round is the reference")
	assert.False(t, w.otherWorking(32), "half as many")
	assert.True(t, w.otherWorking(31), "fewer than half")
	assert.True(t, w.otherWorking(0), "none at work")
	assert.False(t, w.otherWorking(128), "twice as many")
	assert.True(t, w.otherWorking(129), "more than twice")
}
