package memsys

import (
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestXORHashSpreadsPowerOfTwoStrides: with 80 slices of 256-byte chunks,
// 264 addresses a power-of-two stride apart (the atomic_spread benchmark)
// pile onto few slices under the linear mapping from 512 B on (a 4 KB
// stride uses 5 of 80) and use nearly all slices under the XOR hash, which
// still walks consecutive chunks over every slice evenly.
func TestXORHashSpreadsPowerOfTwoStrides(t *testing.T) {
	cfg := Config{L2Slices: 80, L2InterleaveBytes: 256, L2Hash: L2HashLinear}
	assert.Equal(t, 5, slicesUsed(cfg, 4096))
	cfg.L2Hash = L2HashXOR
	for stride := uint64(256); stride <= 1<<24; stride *= 2 {
		assert.GreaterOrEqual(t, slicesUsed(cfg, stride), 70, "stride %d under the XOR hash", stride)
	}
	for s, n := range chunksPerSlice(cfg, 80*64) {
		assert.InDelta(t, 64, n, 16, "slice %d's share of 5120 consecutive chunks", s)
	}
	cfg.L2Slices = 1
	assert.Equal(t, 0, sliceOf(cfg, 12345678), "one slice")
}

// TestMixHashCollidesLikeRandomDraws: the mix hash puts a few consecutive
// chunks on one slice, as drawing each chunk's slice at random would (the
// H100's atomic-occupancy curve follows such collisions), where the XOR
// hash walks the first 80 chunks over 80 slices; over many chunks it
// still spreads evenly, also at power-of-two strides.
func TestMixHashCollidesLikeRandomDraws(t *testing.T) {
	cfg := Config{L2Slices: 80, L2InterleaveBytes: 256}
	mostOnOneSlice := func(hash string, chunks uint64) int {
		cfg.L2Hash = hash
		return slices.Max(chunksPerSlice(cfg, chunks))
	}
	assert.Equal(t, 1, mostOnOneSlice(L2HashXOR, 80))
	assert.GreaterOrEqual(t, mostOnOneSlice(L2HashMix, 80), 3, "80 chunks at random on 80 slices: the busiest holds about 4")
	assert.LessOrEqual(t, mostOnOneSlice(L2HashMix, 80), 7)
	cfg.L2Hash = L2HashMix
	for s, n := range chunksPerSlice(cfg, 80*256) {
		assert.InDelta(t, 256, n, 64, "slice %d's share of 20480 consecutive chunks", s)
	}
	for stride := uint64(512); stride <= 1<<24; stride *= 2 {
		assert.GreaterOrEqual(t, slicesUsed(cfg, stride), 70, "stride %d under the mix hash", stride)
	}
	assert.Equal(t, sliceOf(cfg, 1<<40+4096), sliceOf(cfg, 1<<40+4096+255), "one chunk, one slice")
}

// TestSkipBitPairsChunks: with address bit 9 skipped, 256-byte chunk c
// shares its slice with chunk c XOR 2 (as on the H200: results/random-atomic),
// so the first 64 chunks use 32 slices where the XOR hash alone gives 64;
// over many chunks every slice still gets its share.
func TestSkipBitPairsChunks(t *testing.T) {
	cfg := Config{L2Slices: 80, L2InterleaveBytes: 256, L2Hash: L2HashXOR, L2HashSkipBit: 9}
	for c := uint64(0); c < 1024; c++ {
		assert.Equal(t, sliceOf(cfg, c*256), sliceOf(cfg, (c^2)*256+128), "chunk %d and chunk %d", c, c^2)
	}
	assert.NotEqual(t, sliceOf(cfg, 0), sliceOf(cfg, 256), "chunks 0 and 1")
	used := func() int {
		n := 0
		for _, k := range chunksPerSlice(cfg, 64) {
			n += min(k, 1)
		}
		return n
	}
	assert.Equal(t, 32, used(), "the first 64 chunks")
	for s, n := range chunksPerSlice(cfg, 80*64) {
		assert.InDelta(t, 64, n, 16, "slice %d's share of 5120 consecutive chunks", s)
	}
	cfg.L2HashSkipBit = 0
	assert.Equal(t, 64, used(), "without the skip")
}

// slicesUsed is how many slices 264 addresses stride bytes apart (the
// atomic_spread benchmark's CTAs) land on.
func slicesUsed(cfg Config, stride uint64) int {
	seen := map[int]bool{}
	for b := range uint64(264) {
		seen[sliceOf(cfg, b*stride)] = true
	}
	return len(seen)
}

// chunksPerSlice is how many of the chunks 0 to chunks-1 each slice gets.
func chunksPerSlice(cfg Config, chunks uint64) []int {
	count := make([]int, cfg.L2Slices)
	for c := range chunks {
		count[sliceOf(cfg, c*uint64(cfg.L2InterleaveBytes))]++
	}
	return count
}

// sectorConfig is the test configuration with the sector model's atomic
// unit and sameAddress cycles per further lane on a word.
func sectorConfig(sameAddress float64) Config {
	cfg := testConfig()
	cfg.AtomicModel = AtomicSector
	cfg.AtomicSameAddressCycles = sameAddress
	return cfg
}

// warmedRig is a rig of sms SMs whose first SM, sending one request at a
// time, has read lines A and B whole first, so that the atomics after
// them find both in L2.
func warmedRig(t *testing.T, cfg Config, sms int) (*rig, *fakeSM) {
	t.Helper()
	r := newRig(t, cfg, sms)
	sm := r.sms[0]
	sm.serial = true
	sm.read(lineA, 0xf)
	sm.read(lineB, 0xf)
	return r, sm
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

// TestAtomicSameLineChainsFaster: with atomic_same_line_cycles set, a
// request on the line of the unit's previous request chains its
// same-word lanes at that cost; the first request, and one after a request
// on another line, pay atomic_same_address_cycles per lane.
func TestAtomicSameLineChainsFaster(t *testing.T) {
	cfg := sectorConfig(10)
	cfg.AtomicSameLineCycles = 2
	r, sm := warmedRig(t, cfg, 1)
	word := func(line uint64) AtomicOp { return AtomicOp{Address: line + 8, Lanes: 32} }
	sm.atomic(lineA, word(lineA)) // first request: no previous line
	sm.atomic(lineA, word(lineA)) // same line
	sm.atomic(lineB, word(lineB)) // another line
	sm.atomic(lineB, word(lineB)) // same line again
	r.run(t)
	lat := r.latencies(0)[2:]
	slow := uint64(cfg.AtomicLatency) + 31*uint64(cfg.AtomicSameAddressCycles)
	fast := uint64(cfg.AtomicLatency) + 31*uint64(cfg.AtomicSameLineCycles)
	assert.Equal(t, []uint64{slow, fast, slow, fast}, lat)

	cfg.AtomicSameLineCycles = 0 // off: every chain at atomic_same_address_cycles
	r = newRig(t, cfg, 1)
	sm = r.sms[0]
	sm.serial = true
	sm.read(lineA, 0xf)
	sm.atomic(lineA, word(lineA))
	sm.atomic(lineA, word(lineA))
	r.run(t)
	assert.Equal(t, []uint64{slow, slow}, r.latencies(0)[1:])
}

// TestAtomicOpenLinesKeepAlternatingLinesFast: with atomic_open_lines 2 a
// unit alternating between two lines chains both at the same-line cost
// once each is open; with one open line (the default) every switch pays
// atomic_same_address_cycles.
func TestAtomicOpenLinesKeepAlternatingLinesFast(t *testing.T) {
	run := func(open int) []uint64 {
		cfg := sectorConfig(10)
		cfg.AtomicSameLineCycles = 2
		cfg.AtomicOpenLines = open
		r, sm := warmedRig(t, cfg, 1)
		word := func(line uint64) AtomicOp { return AtomicOp{Address: line + 8, Lanes: 32} }
		for _, line := range []uint64{lineA, lineA, lineB, lineA, lineB} {
			sm.atomic(line, word(line))
		}
		r.run(t)
		return r.latencies(0)[2:]
	}
	cfg := testConfig()
	slow := uint64(cfg.AtomicLatency) + 31*10
	fast := uint64(cfg.AtomicLatency) + 31*2
	assert.Equal(t, []uint64{slow, fast, slow, slow, slow}, run(0))
	assert.Equal(t, []uint64{slow, fast, slow, slow, slow}, run(1))
	assert.Equal(t, []uint64{slow, fast, slow, fast, fast}, run(2))
}

// TestAtomicOpenLinePassTurnsRequestsFaster: sixteen one-lane requests on
// distinct words of one line, sent at once, each take a pass of
// 1/atomic_ops_per_cycle; with atomic_open_line_pass_cycles set, the
// requests after the first (the line is then open) take that shorter pass.
func TestAtomicOpenLinePassTurnsRequestsFaster(t *testing.T) {
	last := func(openPass float64) uint64 {
		cfg := sectorConfig(10)
		cfg.AtomicOpsPerCycle = 0.25 // a pass every 4 cycles
		cfg.AtomicOpenLinePassCycles = openPass
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		sm.perCycle = 16
		for w := range uint64(16) {
			sm.atomic(lineA+4*w&^31, AtomicOp{Address: lineA + 4*w, Lanes: 1})
		}
		r.run(t)
		return slices.Max(r.latencies(0))
	}
	slow, fast := last(0), last(1)
	// Up to fifteen passes of 1 cycle in place of 4 (a request that
	// arrives after the unit went idle gains nothing).
	assert.InDelta(t, 15*(4-1), float64(slow-fast), 4, "the last answer at cycle %d against %d", fast, slow)
}

// TestAtomicOneWordRequestsChainAtTheirCost: with atomic_one_word_cycles
// set, a request whose 32 lanes hit one word chains them at that cost,
// also right after a request on another line, while a request over two
// words chains each word's lanes at atomic_same_address_cycles.
func TestAtomicOneWordRequestsChainAtTheirCost(t *testing.T) {
	cfg := sectorConfig(10)
	cfg.AtomicOneWordCycles = 3
	r, sm := warmedRig(t, cfg, 1)
	sm.atomic(lineA, AtomicOp{Address: lineA + 8, Lanes: 32})
	sm.atomic(lineB, AtomicOp{Address: lineB + 8, Lanes: 32})
	sm.atomic(lineA, AtomicOp{Address: lineA, Lanes: 16}, AtomicOp{Address: lineA + 4, Lanes: 16})
	r.run(t)
	latency := uint64(cfg.AtomicLatency)
	assert.Equal(t, []uint64{latency + 31*3, latency + 31*3, latency + 15*10}, r.latencies(0)[2:])
}

// TestAtomicOneWordCostOnlyOnAnOpenLine: with
// atomic_one_word_open_line_only, a one-word request chains at the one-word
// cost only when the unit's previous request was on its line; after a
// request on another line it chains at the same-address cost. Without the
// option every one-word request takes the one-word cost.
func TestAtomicOneWordCostOnlyOnAnOpenLine(t *testing.T) {
	run := func(openOnly bool) []uint64 {
		cfg := sectorConfig(10)
		cfg.AtomicOneWordCycles = 3
		cfg.AtomicOneWordOpenLineOnly = openOnly
		r, sm := warmedRig(t, cfg, 1)
		sm.atomic(lineA, AtomicOp{Address: lineA + 8, Lanes: 32})  // after the warm-up's reads: no line open
		sm.atomic(lineA, AtomicOp{Address: lineA + 16, Lanes: 32}) // line A open
		sm.atomic(lineB, AtomicOp{Address: lineB + 8, Lanes: 32})  // after line A
		r.run(t)
		return r.latencies(0)[2:]
	}
	latency := uint64(sectorConfig(10).AtomicLatency)
	assert.Equal(t, []uint64{latency + 31*3, latency + 31*3, latency + 31*3}, run(false))
	assert.Equal(t, []uint64{latency + 31*10, latency + 31*3, latency + 31*10}, run(true))
}

// TestStrongLoadsQueueBehindAtomicsOnTheirLine: with
// atomic_line_load_cycles set, a strong load of a line whose atomic unit
// has a long same-word chain booked answers after the chain and holds the
// line, a second strong load queued behind the same chain adds
// atomic_line_load_extra_cycles, and an atomic on that line sent after them
// starts after both; a weak load (an L1 fill) of the line and a strong load
// of another line pass. With it off, every load passes.
func TestStrongLoadsQueueBehindAtomicsOnTheirLine(t *testing.T) {
	type result struct {
		strongA, strongA2, weakA, strongB, atomicAfter uint64 // latencies
		secondDoneAfterFirst                           int64  // cycles
	}
	run := func(loadCycles, extraCycles float64) result {
		cfg := testConfig()
		cfg.AtomicModel = AtomicSector
		cfg.AtomicSameAddressCycles = 20 // 32 lanes on one word: 620 cycles
		cfg.AtomicLineLoadCycles = loadCycles
		cfg.AtomicLineLoadExtraCycles = extraCycles
		r, _ := warmedRig(t, cfg, 7)
		at := func(sm int, cycle int) *fakeSM {
			r.sms[sm].startCycle = cycle
			return r.sms[sm]
		}
		at(1, 3000).atomic(lineA, AtomicOp{Address: lineA + 8, Lanes: 32})
		at(2, 3200).readBypass(lineA, 0x1)
		at(3, 3200).read(lineA, 0x1)
		at(4, 3200).readBypass(lineB, 0x1)
		at(5, 3300).atomic(lineA, AtomicOp{Address: lineA + 16, Lanes: 1})
		at(6, 3250).readBypass(lineA, 0x1)
		r.run(t)
		if loadCycles > 0 {
			assert.Equal(t, uint64(2), r.sys.Stats().Atomics.LoadsBehindAtomics, "only the two strong loads of line A queued")
		}
		return result{
			strongA: r.latencies(2)[0], strongA2: r.latencies(6)[0], weakA: r.latencies(3)[0],
			strongB: r.latencies(4)[0], atomicAfter: r.latencies(5)[0],
			secondDoneAfterFirst: int64(r.sms[6].records[0].done) - int64(r.sms[2].records[0].done),
		}
	}
	off := run(0, 0)
	on := run(50, 10)
	assert.InDelta(t, off.strongB, off.strongA, 2, "off: a strong load of the busy line costs what one of another line does")
	assert.Greater(t, on.strongA, off.strongA+300, "the strong load of line A waits for the chain booked on it")
	assert.Equal(t, int64(10), on.secondDoneAfterFirst, "the second load queued behind the chain adds the extra hold")
	// The queued load takes no lookup slot, so the others may go a cycle
	// sooner.
	assert.InDelta(t, off.weakA, on.weakA, 1, "a weak load (an L1 fill) passes the atomics")
	assert.InDelta(t, off.strongB, on.strongB, 1, "a strong load of another line passes")
	// Off, the unit is busy for the whole chain (the sector model), so the
	// later atomic waits for it either way; on, the loads' holds come first.
	assert.GreaterOrEqual(t, on.atomicAfter, off.atomicAfter+60, "the atomic sent after the loads waits for their 50 + 10 cycles")
}

// TestFarAtomicsCrossThePartitions: with two partitions (SM 0 and slices
// 0-1 in one, SM 1 and slices 2-3 in the other), an atomic on a slice of the
// SM's own partition takes atomic_latency_cycles and one on the other
// partition l2_far_atomic_cycles more, from either side; loads pay nothing
// for the partitions.
func TestFarAtomicsCrossThePartitions(t *testing.T) {
	cfg := testConfig()
	cfg.L2Partitions, cfg.L2FarAtomicCycles = 2, 40
	slice0, slice2 := uint64(0), uint64(2*cfg.L2InterleaveBytes)
	if sliceOf(cfg, slice0) != 0 || sliceOf(cfg, slice2) != 2 {
		t.Fatalf("the linear mapping moved: slices %d and %d", sliceOf(cfg, slice0), sliceOf(cfg, slice2))
	}
	r := newRig(t, cfg, 2)
	for _, sm := range r.sms {
		sm.serial = true
		sm.read(slice0, 0xf)
		sm.read(slice2, 0xf)
		sm.read(slice0, 0xf) // L1 hits: the lines are in L2 and this L1
		sm.atomic(slice0, AtomicOp{Address: slice0 + 4, Lanes: 1})
		sm.atomic(slice2, AtomicOp{Address: slice2 + 4, Lanes: 1})
	}
	r.run(t)
	near, far := uint64(cfg.AtomicLatency), uint64(cfg.AtomicLatency)+40
	assert.Equal(t, []uint64{near, far}, r.latencies(0)[3:], "SM 0: slice 0 near, slice 2 far")
	assert.Equal(t, []uint64{far, near}, r.latencies(1)[3:], "SM 1: slice 0 far, slice 2 near")
	assert.Equal(t, r.latencies(0)[0], r.latencies(0)[1], "SM 0's misses on its near and its far line cost the same")

	cfg.L2Partitions = 0
	assert.NoError(t, cfg.Validate())
	cfg.L2Partitions = 5
	assert.ErrorContains(t, cfg.Validate(), "l2_partitions")
	cfg.L2Partitions, cfg.L2FarAtomicCycles = 2, -1
	assert.ErrorContains(t, cfg.Validate(), "l2_far_atomic_cycles")
}

// TestReadsInPartitionShareAHotLine: eight SMs, four in each partition,
// each send 40 strong loads of one line. With one lookup slot a cycle at
// the home slice they take 320 slots there; with l2_reads_in_partition the
// far SMs' hits take their peer slice's slots, so the last answer comes
// over 100 cycles sooner, while a far SM's first load, before the queue
// builds, costs the same.
func TestReadsInPartitionShareAHotLine(t *testing.T) {
	lastDone := func(inPartition bool) (uint64, []uint64) {
		cfg := testConfig()
		cfg.L2Partitions, cfg.L2ReadsInPartition = 2, true
		cfg.L2ReadsInPartition = inPartition
		// SMs 0-4 are in partition 1 (with slice 0, lineA's), 5-8 in 2.
		done, r := hotLineLoads(t, cfg, 1)
		return done, r.latencies(8)[:1]
	}
	home, firstHome := lastDone(false)
	split, firstSplit := lastDone(true)
	t.Logf("last of 320 hot-line loads: cycle %d at home, %d split over the partitions", home, split)
	assert.Less(t, split+100, home, "the far SMs' hits are looked up in their own partition")
	assert.Equal(t, firstHome, firstSplit, "the far SM's first load costs the same either way")

	cfg := testConfig()
	cfg.L2Partitions, cfg.L2ReadsInPartition, cfg.L2Model = 2, true, L2AkitaWriteback
	assert.ErrorContains(t, cfg.Validate(), "l2_reads_in_partition")
}

// TestLatencySpreadOffsetsEachPair: with l2_latency_spread_cycles, SM 1's
// L2 hits on four slices each take their pair's fixed offset (the same on
// a second visit), within half the spread of the unspread round trip; a
// spread beyond twice the request's crossing is refused.
func TestLatencySpreadOffsetsEachPair(t *testing.T) {
	hits := func(spread float64) []uint64 {
		cfg := testConfig()
		cfg.L2LatencySpreadCycles = spread
		r := newRig(t, cfg, 2)
		r.sms[1].startCycle = 5000 // after SM 0 has brought the lines into L2
		for _, sm := range r.sms {
			sm.serial = true
			for round := 0; round < 2; round++ {
				for slice := range uint64(4) {
					sm.readBypass(slice*uint64(cfg.L2InterleaveBytes), 0xf)
				}
			}
		}
		r.run(t)
		return r.latencies(1)
	}
	flat, spread := hits(0), hits(40)
	require.Len(t, spread, 8)
	distinct := map[uint64]bool{}
	for i, l := range spread {
		assert.InDelta(t, float64(flat[i]), float64(l), 21, "hit %d: %d cycles, %d unspread", i, l, flat[i])
		assert.Equal(t, l, spread[(i+4)%8], "a pair's offset is fixed")
		distinct[l] = true
	}
	assert.Greater(t, len(distinct), 1, "the four slices' offsets differ: %v", spread)
	for i := 1; i < 8; i++ {
		assert.Equal(t, flat[0], flat[i], "without a spread every hit costs the same")
	}

	cfg := testConfig()
	cfg.L2LatencySpreadCycles = 2*cfg.timing().crossReq + 1
	assert.ErrorContains(t, cfg.Validate(), "l2_latency_spread_cycles")
	cfg.L2LatencySpreadCycles = -1
	assert.ErrorContains(t, cfg.Validate(), "l2_latency_spread_cycles")
}

// TestCombinedReadsShareALookup: eight SMs each send 40 strong loads of one
// line (320 hits at one slice). With one lookup slot a cycle each hit waits
// for a slot of its own; with l2_combine_reads a hit that arrives while the
// line's last hit still waits for its slot is answered with it, so the last
// answer comes over 100 cycles sooner, while a lone load costs the same.
func TestCombinedReadsShareALookup(t *testing.T) {
	run := func(combine bool) (uint64, []uint64) {
		cfg := testConfig()
		cfg.L2CombineReads = combine
		// SM 0's second load is alone, after the line is in L2.
		done, r := hotLineLoads(t, cfg, 2)
		return done, r.latencies(0)[1:]
	}
	apart, lone := run(false)
	combined, loneCombined := run(true)
	t.Logf("last of 320 hot-line loads: cycle %d, %d combined", apart, combined)
	assert.Less(t, combined+100, apart, "hits waiting for the line's lookup share it")
	assert.Equal(t, lone, loneCombined, "a lone hit costs the same either way")
}

// hotLineLoads runs SM 0's warm loads of lineA (the first brings it into
// L2), then, from cycle 2000, 40 strong loads of it from each of SMs 1-8,
// and returns the cycle the last of those was answered, and the rig.
func hotLineLoads(t *testing.T, cfg Config, warm int) (uint64, *rig) {
	t.Helper()
	require.NoError(t, cfg.Validate())
	r := newRig(t, cfg, 9)
	r.sms[0].serial = true
	for range warm {
		r.sms[0].readBypass(lineA, 0x1)
	}
	for _, sm := range r.sms[1:] {
		sm.startCycle = 2000
		for range 40 {
			sm.readBypass(lineA, 0x1)
		}
	}
	r.run(t)
	var done uint64
	for _, sm := range r.sms[1:] {
		for _, rec := range sm.records {
			done = max(done, rec.done)
		}
	}
	return done, r
}

// TestStoresWaitForTheAtomicUnitsBacklog: with l2_stores_wait_for_atomics
// a store to a slice whose atomic unit has a chain booked is acknowledged
// after the chain (a fence after it waits that long); a store to another
// slice, and every store with the option off, is not held up.
func TestStoresWaitForTheAtomicUnitsBacklog(t *testing.T) {
	run := func(wait bool) (same, other uint64) {
		cfg := testConfig()
		cfg.AtomicModel = AtomicSector
		cfg.AtomicSameAddressCycles = 20 // 32 lanes on one word: 620 cycles
		cfg.L2StoresWaitForAtomics = wait
		otherSlice := lineA + uint64(cfg.L2InterleaveBytes)
		require.NotEqual(t, sliceOf(cfg, lineA), sliceOf(cfg, otherSlice))
		r := newRig(t, cfg, 4)
		warm := r.sms[0]
		warm.serial = true
		warm.read(lineA, 0xf)
		warm.read(otherSlice, 0xf)
		r.sms[1].startCycle = 3000
		r.sms[1].atomic(lineA, AtomicOp{Address: lineA + 8, Lanes: 32})
		r.sms[2].startCycle = 3200
		r.sms[2].write(lineA, 0x4) // another sector of the atomics' line
		r.sms[3].startCycle = 3200
		r.sms[3].write(otherSlice, 0x1)
		r.run(t)
		return r.latencies(2)[0], r.latencies(3)[0]
	}
	offSame, offOther := run(false)
	onSame, onOther := run(true)
	assert.InDelta(t, offOther, offSame, 2, "off: a store beside the chain costs what one elsewhere does")
	assert.Greater(t, onSame, offSame+300, "on: the store waits for the 620-cycle chain booked before it")
	assert.InDelta(t, offOther, onOther, 1, "a store to another slice is not held up")
}

// TestDRAMRowModelChargesScatteredSectors: with the row model on, 64 cold
// one-sector reads of lines scattered over many rows finish later than
// with it off, by about the row misses each channel serves, while 64 reads
// of consecutive lines (a stream: two rows per channel) hardly move; with
// the model off both pay only their bytes.
func TestDRAMRowModelChargesScatteredSectors(t *testing.T) {
	finish := func(rowMissBytes float64, addr func(i uint64) uint64) uint64 {
		cfg := testConfig()
		cfg.L1MSHRs, cfg.L1MaxInflight, cfg.L2MSHRs = 64, 64, 64 // all 64 in flight: the channels, not the latency, decide
		if rowMissBytes > 0 {
			cfg.DRAMRowBytes, cfg.DRAMOpenRows, cfg.DRAMRowMissBytes = 1024, 4, rowMissBytes
		}
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		sm.perCycle = 4
		for i := range uint64(64) {
			sm.read(addr(i), 1)
		}
		r.run(t)
		last := uint64(0)
		for _, rec := range sm.records {
			last = max(last, rec.done)
		}
		return last
	}
	stream := func(i uint64) uint64 { return i * 128 }
	// 1 MB + one 256-byte chunk apart: a new row every time, on every channel in turn.
	scattered := func(i uint64) uint64 { return i * (1<<20 + 256) }
	const miss = 640 // 10 cycles of a 64-byte-per-cycle channel
	perChannel := uint64(64 / testConfig().L2Slices)
	offScattered, onScattered := finish(0, scattered), finish(miss, scattered)
	assert.GreaterOrEqual(t, onScattered, offScattered+perChannel*10/2, "scattered: %d cycles off, %d on", offScattered, onScattered)
	offStream, onStream := finish(0, stream), finish(miss, stream)
	assert.LessOrEqual(t, onStream, offStream+2*10+2, "stream: %d cycles off, %d on", offStream, onStream)
}

func TestDRAMRowsKeepTheMostRecentlyUsed(t *testing.T) {
	r := newDRAMRows(1024, 2, 2, 100) // a row spans 2 KB of addresses
	assert.Equal(t, 100.0, r.access(0))
	assert.Equal(t, 0.0, r.access(2047), "same row")
	assert.Equal(t, 100.0, r.access(2048))
	assert.Equal(t, 0.0, r.access(10), "row 0 still open")
	assert.Equal(t, 100.0, r.access(4096), "a third row closes the least recently used (row 1)")
	assert.Equal(t, 0.0, r.access(0))
	assert.Equal(t, 100.0, r.access(2048))
}

// TestL2LookupCyclesSpaceASlicesLookups: 32 strong loads of lines one slice
// holds, sent four a cycle, finish about 32 cycles later when the slice
// looks up every 2 cycles instead of every cycle, and 8 later at 1.25.
func TestL2LookupCyclesSpaceASlicesLookups(t *testing.T) {
	finish := func(lookup float64) uint64 {
		cfg := testConfig()
		cfg.L1MSHRs, cfg.L1MaxInflight, cfg.L2MSHRs = 64, 64, 64
		cfg.L2LookupCycles = lookup
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		lines := make([]uint64, 8) // every 1 KB: chunks 0, 4, 8, ... all on slice 0 of 4
		for i := range lines {
			lines[i] = uint64(i) * 1024
			sm.read(lines[i], 0xf)
		}
		sm.serial = true
		r.run(t)
		sm.serial, sm.perCycle = false, 4
		sm.startCycle = int(sm.Freq.Cycle(r.engine.CurrentTime())) + 1
		start := len(sm.records)
		for i := range 32 {
			sm.readBypass(lines[i%len(lines)], 1)
		}
		r.run(t)
		last := uint64(0)
		for _, rec := range sm.records[start:] {
			last = max(last, rec.done)
		}
		return last - sm.records[start].issued
	}
	one, two, quarter := finish(0), finish(2), finish(1.25)
	assert.InDelta(t, float64(one+32), float64(two), 4, "every 2 cycles: %d against %d", two, one)
	assert.InDelta(t, float64(one+8), float64(quarter), 3, "every 1.25 cycles: %d against %d", quarter, one)
}

// TestL2FillBytesWidensAMissToItsGroup: a cold one-sector read makes the
// slice read the whole line from DRAM by default, the sector's aligned
// 64-byte pair with l2_fill_bytes 64 and the sector alone with 32; two
// sectors in different pairs fetch both pairs.
func TestL2FillBytesWidensAMissToItsGroup(t *testing.T) {
	read := func(fill int, mask uint32) uint64 {
		cfg := testConfig()
		cfg.L2FillBytes = fill
		r := newRig(t, cfg, 1)
		r.sms[0].read(lineA, mask)
		r.run(t)
		return r.sys.Stats().DRAMReadBytes
	}
	assert.Equal(t, uint64(128), read(0, 0b0100))
	assert.Equal(t, uint64(128), read(128, 0b0100))
	assert.Equal(t, uint64(64), read(64, 0b0100))
	assert.Equal(t, uint64(32), read(32, 0b0100))
	assert.Equal(t, uint64(128), read(64, 0b1001), "sectors 0 and 3: both pairs")
	assert.Equal(t, uint64(64), read(32, 0b1001))
}

// TestAtomicLineTurnHoldsRequestsOnOneLine: with atomic_line_turn_cycles
// set, a request on the line of a request that started fewer cycles ago
// waits for the turn, while a request on another line does not; off, both
// follow at the unit's issue rate.
func TestAtomicLineTurnHoldsRequestsOnOneLine(t *testing.T) {
	const turn = 200
	second := func(turnCycles float64, other uint64) uint64 {
		cfg := sectorConfig(10)
		cfg.AtomicLineTurnCycles = turnCycles
		r := newRig(t, cfg, 1)
		sm := r.sms[0]
		sm.atomic(lineA, AtomicOp{Address: lineA, Lanes: 1})
		sm.atomic(other, AtomicOp{Address: other + 4, Lanes: 1})
		r.run(t)
		lat := r.latencies(0)
		require.Len(t, lat, 2)
		return lat[1]
	}
	sameOff, sameOn := second(0, lineA), second(turn, lineA)
	assert.GreaterOrEqual(t, sameOn, sameOff+turn/2, "the second request on the line waits for the turn")
	assert.Equal(t, second(0, lineB), second(turn, lineB), "a request on another line does not")
}

// TestAtomicPacketPassGrowsWithLinesAndSectors: a packet (one warp
// instruction's atomics on one slice) keeps the unit busy one pass, plus
// atomic_packet_line_cycles for each line after its first and
// atomic_packet_sector_cycles for each sector beyond one per line; a
// request of one sector pays the pass alone.
func TestAtomicPacketPassGrowsWithLinesAndSectors(t *testing.T) {
	busy := func(sectors ...uint64) float64 {
		u := &atomicUnit{cyclesPerOp: 4, sameAddrCycles: 10, lineBytes: 128, sectorPasses: true,
			packetLineCycles: 10, packetSectorCycles: 3, openLines: openLines(1),
			addrFree: map[uint64]float64{}, purgeAt: 1024}
		req := &AtomicReq{SectorAddress: sectors[0]}
		if len(sectors) > 1 {
			req.Sectors = sectors
		}
		for _, sec := range sectors {
			req.Ops = append(req.Ops, AtomicOp{Address: sec + 4, Lanes: 1})
		}
		u.executePass(0, req)
		return u.aluFree
	}
	assert.Equal(t, 4.0, busy(lineA), "one sector: the pass")
	assert.Equal(t, 4.0+3, busy(lineA, lineA+32), "two sectors of one line")
	assert.Equal(t, 4.0+10, busy(lineA, lineA+1024), "two lines")
	assert.Equal(t, 4.0+10+2*3, busy(lineA, lineA+32, lineA+1024, lineA+1024+64), "two lines, four sectors")
}

// TestAtomicPacketAnsweredAfterEverySectorWrite: a packet writes each of
// its sectors through L2 (a missing line is fetched) and is answered once
// the last write is done and its lanes have run; a packet whose sectors
// lie on two slices is refused.
func TestAtomicPacketAnsweredAfterEverySectorWrite(t *testing.T) {
	cfg := sectorConfig(10)
	r := newRig(t, cfg, 1)
	sm := r.sms[0]
	sectors := []uint64{lineA, lineA + 32, lineB} // lineB is on lineA's slice (chunk 512 of 4 slices)
	sm.script = append(sm.script, func(sim.VTimeInSec) sim.Msg {
		return sm.sys.NewAtomicPacket(sm.port, sectors, []AtomicOp{{Address: lineA, Lanes: 2}, {Address: lineA + 36, Lanes: 1}, {Address: lineB + 8, Lanes: 1}}, sm.nextID())
	})
	r.run(t)
	require.Len(t, sm.records, 1)
	assert.True(t, sm.records[0].ok, "answered")
	st := r.sys.Stats()
	assert.Equal(t, uint64(1), st.Atomics.Requests)
	assert.Equal(t, uint64(4), st.Atomics.Operations)
	assert.Panics(t, func() { r.sys.NewAtomicPacket(sm.port, []uint64{lineA, lineA + 256}, nil, "x") }, "chunks 256 and 257 are on two slices")
}
