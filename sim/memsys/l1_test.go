package memsys

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestL1UseClockWrapKeepsVictims: an L1 whose 32-bit use clock wraps
// (renumberUses) evicts the same lines as one whose clock starts at zero,
// over a random stream of fills that keeps every set evicting.
func TestL1UseClockWrapKeepsVictims(t *testing.T) {
	newL1 := func(clock uint32) *sectoredL1 {
		c := &sectoredL1{lineShift: 7, sectorShift: 5, numSets: 4, ways: 4}
		c.lines = make([]l1Line, c.numSets*uint64(c.ways))
		c.useClock = clock
		return c
	}
	fresh, wrapping := newL1(0), newL1(math.MaxUint32-100)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 5000 {
		line := uint64(r.IntN(48)) << 7 // 48 lines over 16 ways
		fresh.install(line, 1<<r.IntN(4))
		wrapping.install(line, 1<<r.IntN(4))
		for w := range fresh.lines {
			require.Equal(t, fresh.lines[w].tag, wrapping.lines[w].tag, "fill %d, way %d", i, w)
			require.Equal(t, fresh.lines[w].valid != 0, wrapping.lines[w].valid != 0, "fill %d, way %d", i, w)
		}
	}
	assert.Less(t, wrapping.useClock, uint32(math.MaxUint32-100), "the clock wrapped")
}
