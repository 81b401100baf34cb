package memsys

import (
	"math/rand/v2"
	"slices"
	"testing"

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
