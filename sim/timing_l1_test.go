package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every launch starts with empty L1s, as on the hardware; the L2 keeps its
// contents. The same stream launch repeated hits L1 as often at each
// launch as at the first (never: stream reads each element once), instead
// of finding the previous launch's lines there (100% before, when L1s kept
// their contents: 1,061 -> 401 -> 401 cycles), and launches after the
// first cost the same cycles. The first is slower than the others by the
// L2 alone: its reads go to DRAM, the others' hit L2.
func TestTimingL1InvalidatedPerLaunch(t *testing.T) {
	d := timingDevice(t, nil)
	k := lookup(t, "stream")
	const n, block = 1024, 128
	a, b, c := zeros[float32](t, d, n), zeros[float32](t, d, n), zeros[float32](t, d, n)
	var cycles []uint64
	var l1, l2 []float64
	for range 3 {
		st := launch(t, d, k, n/block, block, a, b, c, uint32(n))
		ls := d.LastStats()
		require.NotNil(t, ls)
		cycles = append(cycles, st.Cycles)
		l1 = append(l1, ls.L1HitRate)
		l2 = append(l2, ls.L2HitRate)
	}
	t.Logf("stream n=%d launched 3 times: cycles %v, L1 hit rate %v, L2 hit rate %v", n, cycles, l1, l2)
	for i := 1; i < 3; i++ {
		assert.Equal(t, l1[0], l1[i], "L1 hit rate of launch %d", i+1)
	}
	assert.InEpsilon(t, float64(cycles[1]), float64(cycles[2]), 0.02, "launches 2 and 3")
	assert.Greater(t, l2[1], l2[0], "the L2 keeps its contents across launches")
	assert.Equal(t, l2[1], l2[2])
}
