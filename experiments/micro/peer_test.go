package micro

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim"
)

// On tiny-x4's link (4 GB/s per direction, a 6 GB/s bridge, 1 µs per
// batch) one copy takes the latency plus its bytes at 4 GB/s, and every
// pair at once is held to the bridge; every copy arrives intact.
func TestPeerCopyFollowsTheLinkModel(t *testing.T) {
	sys, err := sim.OpenSystem("tiny-x4", 3, sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	defer sys.Close()
	const size = 1 << 20
	tab, err := PeerCopy(context.Background(), sys, []int{4, size}, 3, 10, true)
	require.NoError(t, err)
	require.Len(t, tab.Rows, 2*6+1)
	for _, r := range tab.Rows {
		assert.Equal(t, "true", r[5], "row %v", r)
	}
	us := func(r []string) float64 {
		x, err := strconv.ParseFloat(r[3], 64)
		require.NoError(t, err)
		return x
	}
	assert.InDelta(t, 1.0, us(tab.Rows[0]), 0.002, "4 bytes: the latency")
	assert.InDelta(t, 1.0+size/4.0/1e3, us(tab.Rows[6]), 0.002, "1 MiB at 4 GB/s")
	all := tab.Rows[12]
	assert.InDelta(t, 1.0+6*size/6.0/1e3, us(all), 0.002, "six copies through the 6 GB/s bridge")

	one, err := sim.OpenSystem("tiny-x4", 1)
	require.NoError(t, err)
	defer one.Close()
	_, err = PeerCopy(context.Background(), one, []int{4}, 0, 1, true)
	assert.ErrorContains(t, err, "two devices")
}

// On tiny-x4 (500 ns each way for a kernel's peer access) a peer's strong
// loads and atomics take 1 µs more than the device's own: the co-launch
// timing model reproduces its link's figure, for every pair of three
// devices, every walk and word checked.
func TestPeerLatencyFollowsTheLinkModel(t *testing.T) {
	sys, err := sim.OpenSystem("tiny-x4", 3)
	require.NoError(t, err)
	defer sys.Close()
	tab, err := PeerLatency(context.Background(), sys, 3, 10, true)
	require.NoError(t, err)
	require.Len(t, tab.Rows, 2*(3+6))
	f, err := sim.LoadConfig("tiny-x4")
	require.NoError(t, err)
	for _, r := range tab.Rows {
		assert.Equal(t, "yes", r[6], "row %v", r)
		if r[0] == r[1] {
			continue
		}
		extra, err := strconv.ParseFloat(r[5], 64)
		require.NoError(t, err, "row %v", r)
		assert.InDelta(t, float64(f.System.Link.AccessLatencyNs), extra, 5, "row %v", r)
	}

	one, err := sim.OpenSystem("tiny-x4", 1)
	require.NoError(t, err)
	defer one.Close()
	_, err = PeerLatency(context.Background(), one, 0, 1, true)
	assert.ErrorContains(t, err, "two devices")
}
