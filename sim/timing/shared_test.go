package timing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// access builds a shared access of the lanes in mask at addr(l).
func access(kind exec.MemKind, size int, mask uint32, addr func(l int) uint64) *exec.MemAccess {
	m := &exec.MemAccess{Kind: kind, Size: size, Lanes: mask, Space: new([exec.WarpSize]ptx.Space), Addr: new([exec.WarpSize]uint64)}
	for l := range exec.WarpSize {
		m.Space[l] = ptx.SpaceShared
		m.Addr[l] = addr(l)
	}
	return m
}

func TestBankDegree(t *testing.T) {
	all := ^uint32(0)
	tests := []struct {
		name           string
		size           int
		mask           uint32
		addr           func(l int) uint64
		degree, shared int
	}{
		{"consecutive words", 4, all, func(l int) uint64 { return uint64(4 * l) }, 1, 1},
		{"stride 2", 4, all, func(l int) uint64 { return uint64(8 * l) }, 2, 1},
		{"stride 4", 4, all, func(l int) uint64 { return uint64(16 * l) }, 4, 1},
		{"stride 32", 4, all, func(l int) uint64 { return uint64(128 * l) }, 32, 1},
		{"stride 3 is conflict-free", 4, all, func(l int) uint64 { return uint64(12 * l) }, 1, 1},
		{"one word broadcasts", 4, all, func(int) uint64 { return 64 }, 1, 32},
		{"two words of one bank", 4, all, func(l int) uint64 { return uint64(128 * (l % 2)) }, 2, 16},
		{"bytes of one word", 1, all, func(l int) uint64 { return uint64(l % 4) }, 1, 8},
		{"8-byte lanes take two passes", 8, all, func(l int) uint64 { return uint64(8 * l) }, 2, 1},
		{"16-byte lanes take four passes", 16, all, func(l int) uint64 { return uint64(16 * l) }, 4, 1},
		{"half the lanes at stride 2", 4, 0x0000FFFF, func(l int) uint64 { return uint64(8 * l) }, 1, 1},
		{"one lane", 4, 1 << 7, func(l int) uint64 { return 4 }, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, s := bankDegree(access(exec.MemLoad, tc.size, tc.mask, tc.addr), tc.mask, 32, 4)
			assert.Equal(t, tc.degree, d, "degree")
			assert.Equal(t, tc.shared, s, "most lanes on one address")
		})
	}
}

// The shortcut for the common shapes gives what counting every word
// gives, on random accesses of every shape: lanes, sizes, strides,
// broadcasts and mixes of them.
func TestBankDegreeShortcutAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shortcuts := 0
	for range 20000 {
		size := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
		mask := rng.Uint32()
		if rng.IntN(4) == 0 {
			mask = ^uint32(0)
		}
		base, stride := uint64(rng.IntN(64)*size), uint64(rng.IntN(5)*size)
		broadcast := rng.IntN(8) == 0
		m := access(exec.MemLoad, size, mask, func(l int) uint64 {
			if broadcast {
				return base
			}
			if rng.IntN(16) == 0 {
				return uint64(rng.IntN(512) * size)
			}
			return base + uint64(l)*stride
		})
		d, s := bankDegreeSorted(m, mask, 32, 4)
		gotD, gotS := bankDegree(m, mask, 32, 4)
		if _, _, ok := bankDegreeCommon(m, mask, 32, 4); ok {
			shortcuts++
		}
		if d != gotD || s != gotS {
			t.Fatalf("size %d mask %#x addresses %v: sorted gives (%d, %d), bankDegree (%d, %d)", size, mask, m.Addr, d, s, gotD, gotS)
		}
	}
	assert.Greater(t, shortcuts, 2000, "the shortcut was taken")
	assert.Less(t, shortcuts, 18000, "the sorted count was needed")
}

// sharedSM returns SM 0 of a test GPU with the given atomic model.
func sharedSM(t *testing.T, model string) *SM {
	sm := testSM()
	sm.SharedAtomicModel = model
	r := newRig(t, kernel("k", ""), sm, testLimits())
	return r.gpu.sms[0]
}

func TestSharedAccessTiming(t *testing.T) {
	s := sharedSM(t, SharedAtomicNative)
	c := s.cfg
	all := ^uint32(0)
	// A conflict-free load, then a stride-32 load: 31 extra passes.
	ready := s.sharedAccess(nil, access(exec.MemLoad, 4, all, func(l int) uint64 { return uint64(4 * l) }), all, 100, false)
	assert.Equal(t, uint64(100+c.SharedLoad.Latency), ready)
	assert.Equal(t, uint64(100+c.SharedLoad.Interval), s.smemFree)
	ready = s.sharedAccess(nil, access(exec.MemLoad, 4, all, func(l int) uint64 { return uint64(128 * l) }), all, 200, false)
	assert.Equal(t, uint64(200+c.SharedLoad.Latency+31*c.SharedPassCycles), ready)
	assert.Equal(t, uint64(2), s.stats.sharedAccesses)
	assert.Equal(t, uint64(31), s.stats.bankConflicts)
	assert.Equal(t, uint64(1), s.stats.degree[1])
	assert.Equal(t, uint64(1), s.stats.degree[32])
}

func TestSharedAtomicModels(t *testing.T) {
	all := ^uint32(0)
	same := func(int) uint64 { return 256 }
	distinct := func(l int) uint64 { return uint64(4 * l) }
	atom := func(addr func(int) uint64) *exec.MemAccess { return access(exec.MemAtomic, 4, all, addr) }

	t.Run("native serialises lanes on one address", func(t *testing.T) {
		s := sharedSM(t, SharedAtomicNative)
		c := s.cfg
		assert.Equal(t, uint64(1000+c.SharedAtomic.Latency), s.sharedAccess(nil, atom(distinct), all, 1000, false))
		assert.Equal(t, uint64(2000+c.SharedAtomic.Latency+31*c.SharedAtomicNativeCycles), s.sharedAccess(nil, atom(same), all, 2000, false))
		assert.Equal(t, 32, s.stats.maxSameAddrShared)
		assert.Equal(t, uint64(64), s.stats.sharedAtomics)
	})
	t.Run("lock admits one lane per lock per pass", func(t *testing.T) {
		s := sharedSM(t, SharedAtomicLock)
		c := s.cfg
		iter := uint64(c.SharedAtomicLockIterationCycles)
		assert.Equal(t, uint64(1000)+iter+uint64(c.SharedAtomic.Latency), s.sharedAccess(nil, atom(distinct), all, 1000, false))
		assert.Zero(t, s.stats.lockRetries)
		assert.Equal(t, uint64(2000)+32*iter+uint64(c.SharedAtomic.Latency), s.sharedAccess(nil, atom(same), all, 2000, false))
		assert.Equal(t, uint64(31*32/2), s.stats.lockRetries, "lane k fails k times")
	})
	t.Run("lock contention between warps", func(t *testing.T) {
		s := sharedSM(t, SharedAtomicLock)
		c := s.cfg
		iter := uint64(c.SharedAtomicLockIterationCycles)
		first := s.sharedAccess(nil, atom(same), all, 1000, false)
		// The second warp starts when the shared memory takes it and
		// finds the lock held until the first warp's last pass ends.
		start := s.smemFree
		second := s.sharedAccess(nil, atom(same), all, start, false)
		assert.Equal(t, uint64(1000)+32*iter+uint64(c.SharedAtomic.Latency), first)
		passes := (1000 + 32*iter - start + iter - 1) / iter
		assert.Equal(t, start+(passes+32)*iter+uint64(c.SharedAtomic.Latency), second)
	})
}
