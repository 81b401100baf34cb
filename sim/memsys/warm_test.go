package memsys

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// TestWarmL2InSliceGroups: accesses warmed by several goroutines at once,
// each handed in order the lanes whose WarmL2SliceOf falls in its group,
// leave every slice's tags, sectors, LRU order within each set and dirty
// bytes as one goroutine warming them all in order does, with evictions
// (more lines than the L2 holds); run it under -race. (The use clocks
// differ: a group's lanes on one line, apart in the access, touch it once.)
func TestWarmL2InSliceGroups(t *testing.T) {
	cfg := testConfig()
	serial, grouped := newRig(t, cfg, 1), newRig(t, cfg, 1)
	type access struct {
		addr  [32]uint64
		write bool
	}
	lines := 4 * cfg.L2Slices * cfg.L2SliceSizeBytes / cfg.LineSizeBytes
	rng := rand.New(rand.NewPCG(1, 2))
	accesses := make([]access, 3000)
	for i := range accesses {
		a := &accesses[i]
		a.write = rng.IntN(4) == 0
		for l := range a.addr {
			a.addr[l] = uint64(rng.IntN(lines))*uint64(cfg.LineSizeBytes) + uint64(4*rng.IntN(32))
		}
	}
	for i := range accesses {
		serial.sys.WarmL2(&accesses[i].addr, ^uint32(0), 4, accesses[i].write)
	}
	const groups = 3
	var wg sync.WaitGroup
	for g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range accesses {
				var mine uint32
				for l, a := range accesses[i].addr {
					if grouped.sys.WarmL2SliceOf(a)%groups == g {
						mine |= 1 << l
					}
				}
				grouped.sys.WarmL2(&accesses[i].addr, mine, 4, accesses[i].write)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, len(serial.sys.sectoredL2s), len(grouped.sys.sectoredL2s))
	evicted := false
	for i, s := range serial.sys.sectoredL2s {
		gs := grouped.sys.sectoredL2s[i]
		assert.Equal(t, s.tags, gs.tags, "slice %d's tags", i)
		assert.Equal(t, lruRanks(s), lruRanks(gs), "slice %d's lines (valid, dirty, LRU rank in the set)", i)
		assert.Equal(t, s.dirtyBytes, gs.dirtyBytes, "slice %d's dirty bytes", i)
		evicted = evicted || s.useClock > uint64(len(s.tags))
	}
	assert.True(t, evicted, "the accesses overflow some slice")
}

// lruRanks is the slice's lines with each last use replaced by its rank
// among its set's: what the slice's replacement reads of it.
func lruRanks(c *sectoredL2) []l2Line {
	out := slices.Clone(c.lines)
	for base := 0; base < len(out); base += c.ways {
		set := out[base : base+c.ways]
		for i := range set {
			rank := 0
			for j := range set {
				if c.lines[base+j].lastUse < c.lines[base+i].lastUse {
					rank++
				}
			}
			set[i].lastUse = uint64(rank)
		}
	}
	return out
}
