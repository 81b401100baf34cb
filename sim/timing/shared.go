package timing

import (
	"math/bits"
	"slices"

	"github.com/warpgraph/warpgraph/sim/exec"
)

// bankDegree is the conflict degree of a shared access: the most distinct
// words any one bank must serve (lanes on the same word share one read, a
// broadcast). It also returns the most lanes that named one address.
func bankDegree(m *exec.MemAccess, lanes uint32, banks, width int) (degree, sameAddr int) {
	if d, s, ok := bankDegreeCommon(m, lanes, banks, width); ok {
		return d, s
	}
	return bankDegreeSorted(m, lanes, banks, width)
}

// bankDegreeCommon is bankDegree for the two common shapes, without
// sorting: every lane within one word, each in a bank of its own (degree
// 1, no address shared), or every lane on one address (degree 1, all
// lanes on it). ok is false for any other access.
func bankDegreeCommon(m *exec.MemAccess, lanes uint32, banks, width int) (degree, sameAddr int, ok bool) {
	if lanes == 0 || banks > 64 {
		return 0, 0, false
	}
	size, bw, mask := uint64(max(m.Size, 1)), uint64(width), uint64(banks-1)
	first := m.Addr[bits.TrailingZeros32(lanes)]
	var seen uint64
	distinct, same := true, true
	for mm := lanes; mm != 0; mm &= mm - 1 {
		a := m.Addr[bits.TrailingZeros32(mm)]
		w := a / bw
		if w != (a+size-1)/bw {
			return 0, 0, false // the lane spans several words
		}
		b := uint64(1) << (w & mask)
		distinct = distinct && seen&b == 0
		same = same && a == first
		if !distinct && !same {
			return 0, 0, false
		}
		seen |= b
	}
	if distinct {
		return 1, 1, true
	}
	return 1, bits.OnesCount32(lanes), true
}

// bankDegreeSorted is bankDegree for any access: the lanes' words and
// addresses sorted and counted.
func bankDegreeSorted(m *exec.MemAccess, lanes uint32, banks, width int) (degree, sameAddr int) {
	size := uint64(max(m.Size, 1))
	bw := uint64(width)
	var buf [4 * exec.WarpSize]uint64
	words := buf[:0]
	var addrs [exec.WarpSize]uint64
	na := 0
	for mm := lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		a := m.Addr[l]
		addrs[na] = a
		na++
		for wd := a / bw; wd <= (a+size-1)/bw; wd++ {
			if len(words) == cap(words) {
				break
			}
			words = append(words, wd)
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	var perBank [32]int
	mask := uint64(banks - 1)
	for _, wd := range words {
		b := wd & mask
		perBank[b]++
		degree = max(degree, perBank[b])
	}
	a := addrs[:na]
	slices.Sort(a)
	run := 0
	for i := range a {
		if i > 0 && a[i] == a[i-1] {
			run++
		} else {
			run = 1
		}
		sameAddr = max(sameAddr, run)
	}
	return max(degree, 1), max(sameAddr, 1)
}

// sharedAccess charges the shared-memory lanes of an access and returns
// the cycle its result is ready. cas marks a compare-and-swap, whose lanes
// on one word take one pass in the native model: one lane's swap succeeds
// and the others compare against its result and fail, with nothing to
// write (the H100 runs a shared float add as such a loop, and its passes
// do not grow with the lanes on the word: sim/configs/README.md, "Shared
// float adds").
func (s *SM) sharedAccess(w *warpCtx, m *exec.MemAccess, lanes uint32, cyc uint64, cas bool) uint64 {
	c := s.cfg
	degree, same := bankDegree(m, lanes, c.SharedMemBanks, c.SharedMemBankWidthBytes)
	st := &s.stats
	st.sharedAccesses++
	st.bankConflicts += uint64(degree - 1)
	st.degree[min(degree, MaxDegree)]++
	extra := uint64(degree-1) * uint64(c.SharedPassCycles)
	start := max(cyc, s.smemFree)
	// The cuts split busy time and latency for the profiler (SM.smemCut1).
	switch m.Kind {
	case exec.MemLoad:
		busy, lat := start+uint64(c.SharedLoad.Interval), start+uint64(c.SharedLoad.Latency)
		s.smemFree = busy + extra
		s.smemCut1, s.smemCut2, s.sharedCut1, s.sharedCut2 = busy, busy+extra, lat, lat+extra
		return lat + extra
	case exec.MemStore:
		busy, lat := start+uint64(c.SharedStore.Interval), start+uint64(c.SharedStore.Latency)
		s.smemFree = busy + extra
		s.smemCut1, s.smemCut2, s.sharedCut1, s.sharedCut2 = busy, busy+extra, lat, lat+extra
		return lat + extra
	}
	// Atomics.
	st.sharedAtomics += uint64(bits.OnesCount32(lanes))
	st.maxSameAddrShared = max(st.maxSameAddrShared, same)
	busy, lat := start+uint64(c.SharedAtomic.Interval), start+uint64(c.SharedAtomic.Latency)
	if c.SharedAtomicModel == SharedAtomicLock {
		passes := s.lockPasses(m, lanes, start)
		s.smemFree = start + uint64(passes)*uint64(c.SharedAtomic.Interval)
		// The lock loop's passes are the atomic's serialisation.
		s.smemCut1, s.smemCut2, s.sharedCut1, s.sharedCut2 = busy, busy, lat, lat
		return start + uint64(passes)*uint64(c.SharedAtomicLockIterationCycles) + uint64(c.SharedAtomic.Latency)
	}
	serial := uint64(same-1) * uint64(c.SharedAtomicNativeCycles)
	if cas {
		serial = 0
	}
	s.smemFree = busy + extra + serial
	s.smemCut1, s.smemCut2, s.sharedCut1, s.sharedCut2 = busy, busy+extra, lat, lat+extra
	return lat + extra + serial
}

// lockPasses runs Kepler's lock loop for a warp's shared atomic starting at
// cycle start and returns how many passes it took. In each pass every lane
// still waiting tries to take its word's lock: a lock that another warp
// holds admits none, a free one admits one lane (the lowest), which holds
// the lock for the pass; the others retry in the next pass.
func (s *SM) lockPasses(m *exec.MemAccess, lanes uint32, start uint64) int {
	c := s.cfg
	iter := uint64(c.SharedAtomicLockIterationCycles)
	nlocks := c.SharedAtomicLocks
	if nlocks == 0 {
		nlocks = max(s.g.limits.SharedMemPerSM/c.SharedMemBankWidthBytes, 1)
	}
	if len(s.locks) != nlocks {
		s.locks = make([]uint64, nlocks)
	}
	// Lanes per lock, in order of first appearance.
	var ids [exec.WarpSize]int
	var count [exec.WarpSize]int
	n := 0
	for mm := lanes; mm != 0; mm &= mm - 1 {
		l := bits.TrailingZeros32(mm)
		id := int(m.Addr[l] / uint64(c.SharedMemBankWidthBytes) % uint64(nlocks))
		k := 0
		for k < n && ids[k] != id {
			k++
		}
		if k == n {
			ids[k] = id
			n++
		}
		count[k]++
	}
	left := bits.OnesCount32(lanes)
	passes := 0
	for left > 0 {
		t := start + uint64(passes)*iter
		for k := range n {
			if count[k] == 0 {
				continue
			}
			if s.locks[ids[k]] > t {
				s.stats.lockRetries += uint64(count[k])
				continue
			}
			count[k]--
			left--
			s.locks[ids[k]] = t + iter
			s.stats.lockRetries += uint64(count[k])
		}
		passes++
	}
	return passes
}
