package timing

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPendingTableMatchesMap puts consecutive numbers and takes them in a
// random order, some long after, against a map.
func TestPendingTableMatchesMap(t *testing.T) {
	var tab pendingTable
	tab.init(4)
	want := map[uint64]*memReq{}
	rng := rand.New(rand.NewSource(1))
	next := uint64(1)
	for step := 0; step < 20000; step++ {
		if len(want) < 40 && (len(want) == 0 || rng.Intn(2) == 0) {
			r := &memReq{addr: next}
			tab.put(next, r)
			want[next] = r
			next++
			continue
		}
		k := uint64(rng.Int63n(int64(next))) + 1 // sometimes absent
		got := tab.take(k)
		assert.Same(t, want[k], got, "take %d", k)
		delete(want, k)
		require.Equal(t, len(want), tab.n)
	}
	for k, r := range want {
		assert.Same(t, r, tab.take(k))
	}
	assert.Equal(t, 0, tab.n)
}
