package memsys

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestXORHashSpreadsPowerOfTwoStrides: with 80 slices of 256-byte chunks,
// 264 addresses a power-of-two stride apart (the atomic_spread benchmark)
// pile onto few slices under the linear mapping from 512 B on (a 4 KB
// stride uses 5 of 80) and use nearly all slices under the XOR hash, which
// still walks consecutive chunks over every slice evenly.
func TestXORHashSpreadsPowerOfTwoStrides(t *testing.T) {
	cfg := Config{L2Slices: 80, L2InterleaveBytes: 256}
	used := func(hash string, stride uint64) int {
		cfg.L2Hash = hash
		seen := map[int]bool{}
		for b := range uint64(264) {
			seen[sliceOf(cfg, b*stride)] = true
		}
		return len(seen)
	}
	assert.Equal(t, 5, used(L2HashLinear, 4096))
	for stride := uint64(256); stride <= 1<<24; stride *= 2 {
		assert.GreaterOrEqual(t, used(L2HashXOR, stride), 70, "stride %d under the XOR hash", stride)
	}
	cfg.L2Hash = L2HashXOR
	count := make([]int, 80)
	for chunk := range uint64(80 * 64) {
		count[sliceOf(cfg, chunk*256)]++
	}
	for s, n := range count {
		assert.InDelta(t, 64, n, 16, "slice %d's share of 5120 consecutive chunks", s)
	}
	cfg.L2Slices = 1
	assert.Equal(t, 0, sliceOf(cfg, 12345678), "one slice")
}

// TestAtomicSectorModelServesDistinctWordsTogether: in the sector model a
// request on eight distinct words costs one pass, while 32 lanes on one
// word follow one another.
func TestAtomicSectorModelServesDistinctWordsTogether(t *testing.T) {
	cfg := testConfig()
	cfg.AtomicModel = AtomicSector
	cfg.AtomicOpsPerCycle = 0.25 // a pass every 4 cycles
	r, lat := oneWordThenEightWords(t, cfg)
	assert.Equal(t, uint64(cfg.AtomicLatency)+31*uint64(cfg.AtomicSameAddressCycles), lat[1], "32 lanes on one word")
	assert.Equal(t, uint64(cfg.AtomicLatency), lat[2], "eight words in one pass (the lane model takes 8 slots)")
	st := r.sys.Stats().Atomics
	assert.Equal(t, 32, st.MaxSameAddressDepth)
	assert.Equal(t, uint64(40), st.Operations)
}
