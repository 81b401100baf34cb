package memsys

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWarmL2 warms one line by a load and another by a store: a read of
// each then hits in L2 (no DRAM read), the store's sectors are dirty and
// the warming itself counted nothing; a line not warmed still misses.
func TestWarmL2(t *testing.T) {
	cfg := testConfig()
	r := newRig(t, cfg, 1)
	var addr [32]uint64
	for l := range addr {
		addr[l] = lineA + uint64(4*l) // one 128-byte line, every sector
	}
	r.sys.WarmL2(&addr, ^uint32(0), 4, false)
	addr[0] = lineB + 32 // one lane: the line's second sector
	r.sys.WarmL2(&addr, 1, 4, true)
	assert.Equal(t, CacheStats{}, r.sys.Stats().L2, "warming counts nothing")
	assert.Equal(t, uint64(32), r.sys.sectoredL2s[sliceOf(cfg, lineB)].dirtyBytes, "the stored sector is dirty")

	sm := r.sms[0]
	sm.serial = true
	sm.read(lineA, 0xf)
	sm.read(lineB, 0x2)
	sm.read(lineC, 0xf)
	r.run(t)
	st := r.sys.Stats()
	assert.Equal(t, uint64(128), st.DRAMReadBytes, "only the line not warmed is read from DRAM")
	lat := r.latencies(0)
	assert.Equal(t, uint64(cfg.L2HitLatency), lat[0], "warmed by a load")
	assert.Equal(t, uint64(cfg.L2HitLatency), lat[1], "warmed by a store")
	assert.Greater(t, lat[2], uint64(cfg.L2HitLatency), "not warmed")
}
