package memsys

import (
	"math"

	"github.com/warpgraph/warpgraph/sim/internal/check"
)

// L1 models.
const (
	// L1Sectored is warpgraph's own L1 (the default): sectored as NVIDIA's
	// L1 is (a miss fetches only the 32-byte sectors it lacks), write-through
	// with no allocation on a store miss, and event-driven, so it costs no
	// ticks. See sectoredL1 for why it replaces akita's caches by default.
	L1Sectored = "sectored"
	// L1AkitaWriteAround is akita's writearound cache: write-through, no
	// allocation on a store miss, whole-line fills, ticked every cycle
	// while busy.
	L1AkitaWriteAround = "akita_writearound"
	// L1AkitaWriteThrough is akita's writethrough cache: write-through with
	// allocation on a store miss (a partial store fetches the line first),
	// whole-line fills, ticked every cycle while busy.
	L1AkitaWriteThrough = "akita_writethrough"
)

// L2 models (Config.L2Model).
const (
	// L2Sectored is warpgraph's own L2 slice (the default): sectored,
	// write-back and write-validate, event-driven (sectoredL2).
	L2Sectored = "sectored"
	// L2AkitaWriteback is akita's writeback cache, ticked every cycle while
	// busy, with the slice shadow (shadow.go) making it write-validate.
	L2AkitaWriteback = "akita_writeback"
)

// L2 hashes (Config.L2Hash) and atomic-unit models (Config.AtomicModel).
const (
	L2HashLinear = "linear"
	L2HashXOR    = "xor"
	L2HashMix    = "mix"
	AtomicLane   = "lane"
	AtomicSector = "sector"
)

// Config describes one GPU's global memory system. Every latency is in core
// cycles, end to end, as a dependent-load (pointer-chasing) microbenchmark
// measures it on an otherwise idle GPU: from the cycle the SM sends the
// request to the cycle its Tick can retrieve the response. The Builder splits
// each latency between the caches' pipelines and the interconnect.
//
// The fields carry YAML tags so that a simulator configuration can embed a
// Config under a `memory:` key.
type Config struct {
	// LineSizeBytes is the cache line of L1 and L2. NVIDIA's L1 fetches
	// only the 32-byte sectors that missed (NVIDIA's answer on the Volta L1
	// in the forum thread "Pascal L1 cache",
	// forums.developer.nvidia.com/t/pascal-l1-cache/49571), and so does the
	// sectored L1; akita's caches are not sectored, so akita L1s fetch
	// whole lines from L2, and L2 always fetches whole lines from DRAM:
	// scattered accesses cost more DRAM traffic here than on hardware.
	// Setting LineSizeBytes equal to SectorSizeBytes makes every fetch a
	// sector, at up to four times the requests and L2 blocks. A power of
	// two; 128 on NVIDIA GPUs.
	LineSizeBytes int `yaml:"line_size_bytes"`
	// SectorSizeBytes is the unit an SM coalesces into and an atomic
	// request covers, and the unit DRAM write traffic is counted in. A power
	// of two that divides LineSizeBytes; 32 on NVIDIA GPUs.
	SectorSizeBytes int `yaml:"sector_size_bytes"`

	// L1SizeBytes is the capacity of each SM's L1 data cache (on GPUs whose
	// L1 shares storage with shared memory, the part left to L1).
	L1SizeBytes int `yaml:"l1_size_bytes"`
	// L1Ways is the associativity of L1.
	L1Ways int `yaml:"l1_ways"`
	// L1MSHRs is the number of distinct lines L1 can have outstanding misses
	// to; a miss to a line that already has one waits in that entry (an
	// MSHR hit).
	L1MSHRs int `yaml:"l1_mshrs"`
	// L1MaxInflight bounds the requests one L1 holds at once: loads waiting
	// for fills in the sectored L1, every transaction in akita's. The SM's
	// further requests wait in the interconnect.
	L1MaxInflight int `yaml:"l1_max_inflight"`
	// L1RequestsPerCycle is the number of line requests an L1 accepts, looks
	// up and answers per cycle (128 bytes per cycle when it is 1).
	L1RequestsPerCycle int `yaml:"l1_requests_per_cycle"`
	// L1HitLatency is the load-to-use latency of an L1 hit.
	L1HitLatency int `yaml:"l1_hit_latency_cycles"`
	// L1Model picks the L1 implementation: L1Sectored (the default when
	// empty), L1AkitaWriteAround or L1AkitaWriteThrough. All three write
	// global stores through to L2.
	L1Model string `yaml:"l1_model"`
	// Coherence says what values a weak load sees in timing mode:
	// CoherenceL1 ("l1"), its SM's L1 copy when the L1 holds the sector,
	// stale or not (NVIDIA's L1 is not coherent: a weak load hitting in L1
	// does not see another SM's later store until the line is evicted or
	// invalidated, at a launch or a GPU-scope fence); CoherenceIdeal
	// ("ideal", also what "" means), always memory's current value. Strong
	// loads (ld.volatile, relaxed or acquire wider than the CTA) bypass L1
	// and always read memory. "l1" needs the sectored L1 and sectors of at
	// least 8 bytes.
	Coherence string `yaml:"coherence"`

	// L2Model picks the L2 implementation: L2Sectored (the default when
	// empty) or L2AkitaWriteback. Both are write-back and write-validate,
	// and fetch a line they do not hold whole from DRAM.
	L2Model string `yaml:"l2_model"`
	// L2Slices is the number of L2 slices; each has its own DRAM channel and
	// atomic unit.
	L2Slices int `yaml:"l2_slices"`
	// L2SliceSizeBytes is the capacity of one slice.
	L2SliceSizeBytes int `yaml:"l2_slice_size_bytes"`
	// L2Ways is the associativity of each slice.
	L2Ways int `yaml:"l2_ways"`
	// L2MSHRs is the number of distinct lines a slice can be fetching from
	// DRAM at once.
	L2MSHRs int `yaml:"l2_mshrs"`
	// L2RequestsPerCycle is the number of requests a slice accepts and looks
	// up per cycle.
	L2RequestsPerCycle int `yaml:"l2_requests_per_cycle"`
	// L2FillBytes is what a sectored slice fetches from DRAM for a miss on
	// a line it does not hold: the missing sectors widened to aligned
	// groups of this many bytes (a multiple of the sector dividing the
	// line). 0 or the line's size: the whole line.
	L2FillBytes int `yaml:"l2_fill_bytes"`
	// L2LookupCycles, when positive, replaces 1/L2RequestsPerCycle as the
	// cycles between a sectored slice's lookups (a fractional rate, e.g.
	// 1.25: four lookups every five cycles); 0 keeps 1/L2RequestsPerCycle.
	L2LookupCycles float64 `yaml:"l2_lookup_cycles"`
	// L2SliceBytesPerCycle is the data bandwidth of one slice's port to the
	// interconnect in each direction: read data leaving the slice and write
	// data entering it each get this much. 0 means unlimited.
	L2SliceBytesPerCycle float64 `yaml:"l2_slice_bytes_per_cycle"`
	// L2HitLatency is the load-to-use latency of a load that misses L1 and
	// hits L2.
	L2HitLatency int `yaml:"l2_hit_latency_cycles"`
	// L2InterleaveBytes is how many consecutive bytes map to one slice
	// (a chunk): chunk = address / L2InterleaveBytes. A multiple of
	// LineSizeBytes.
	L2InterleaveBytes int `yaml:"l2_interleave_bytes"`
	// L2Hash maps a chunk to its slice: L2HashLinear ("linear", also "")
	// takes chunk mod L2Slices, so chunks a power-of-two stride apart pile
	// onto a few slices; L2HashXOR ("xor") first folds the chunk's higher
	// bits onto its low bits with XOR, as real GPUs' partition hashing
	// does, so that every power-of-two stride spreads (sliceOf).
	L2Hash string `yaml:"l2_hash"`
	// L2HashSkipBit is an address bit the slice hash does not see (0:
	// none): the address is taken with that bit removed before it is cut
	// into chunks, so addresses that differ only there share a slice. It
	// must lie above the chunk's own bits, and needs a hash (xor or mix).
	L2HashSkipBit int `yaml:"l2_hash_skip_bit"`

	// SMToL2BytesPerCycle is the data bandwidth between one SM's L1 and the
	// interconnect in each direction: fills arriving and write-throughs
	// leaving each get this much. 0 means unlimited.
	SMToL2BytesPerCycle float64 `yaml:"sm_l2_bytes_per_cycle"`

	// DRAMLatency is the load-to-use latency of a load that misses L1 and
	// L2.
	DRAMLatency int `yaml:"dram_latency_cycles"`
	// DRAMBandwidthGBPerS is the total DRAM bandwidth in GB/s (1e9 bytes
	// per second), split evenly over the slices' channels and converted to
	// bytes per cycle with the core clock. Reads and writes share it.
	DRAMBandwidthGBPerS float64 `yaml:"dram_bandwidth_gb_per_s"`
	// DRAMQueueDepth is the number of requests an L2 slice may have waiting
	// for its DRAM channel's bandwidth before it stops sending to DRAM.
	// Requests in service are not limited. 0 picks 64.
	DRAMQueueDepth int `yaml:"dram_queue_depth"`
	// DRAMRowBytes is a DRAM row's size within one channel; 0 turns the
	// row model off (every access costs only its bytes). With it on, each
	// channel keeps the DRAMOpenRows rows it used last open (a controller
	// that batches requests to open rows over many banks), and an access
	// to any other row costs DRAMRowMissBytes more of the channel's time,
	// in bytes at its rate: streams stay at the channel's rate, scattered
	// sectors pay for opening rows.
	DRAMRowBytes int `yaml:"dram_row_bytes"`
	// DRAMOpenRows is how many rows each channel keeps open (row model).
	DRAMOpenRows int `yaml:"dram_open_rows"`
	// DRAMRowMissBytes is what opening a row costs (row model).
	DRAMRowMissBytes float64 `yaml:"dram_row_miss_bytes"`

	// AtomicLatency is the latency of an uncontended global atomic whose
	// line is in L2, from the SM sending it to the SM retrieving its
	// response. Atomics bypass L1.
	AtomicLatency int `yaml:"atomic_latency_cycles"`
	// AtomicModel is how a slice's atomic unit works through a request (one
	// warp's atomic on one sector). AtomicLane ("lane", also ""): every
	// lane is an operation taking an issue slot. AtomicSector ("sector"):
	// one pass serves the request's distinct words together, and the lanes
	// that name one word follow one another, so only same-word contention
	// costs more than one pass (atomicunit.go).
	AtomicModel string `yaml:"atomic_model"`
	// AtomicOpsPerCycle is how many operations one slice's atomic unit
	// starts per cycle (may be fractional): lane operations in the lane
	// model, passes (requests) in the sector model.
	AtomicOpsPerCycle float64 `yaml:"atomic_ops_per_cycle"`
	// AtomicSameAddressCycles is how long a lane's operation on a word
	// holds that word: the next lane on the same word, in the same or
	// another request, starts this many cycles later at the earliest. In
	// the sector model the unit stays busy while a request's longest
	// same-word chain runs.
	AtomicSameAddressCycles float64 `yaml:"atomic_same_address_cycles"`
	// AtomicSameLineCycles, in the sector model, is what each further
	// lane on one word costs instead of AtomicSameAddressCycles when the
	// unit's previous request was on the same line: a unit working through
	// one line's requests keeps the line at hand and chains a word's
	// updates back to back, while requests that alternate between lines
	// (many SMs on many lines) pay the full cost per lane. 0: no such
	// distinction (AtomicSameAddressCycles always).
	AtomicSameLineCycles float64 `yaml:"atomic_same_line_cycles"`
	// AtomicOpenLines is how many lines an atomic unit keeps at hand for
	// AtomicSameLineCycles: a request on one of the last this many lines it
	// served (least recently used out) chains at the same-line cost. 0 or
	// 1: the previous request's line only.
	AtomicOpenLines int `yaml:"atomic_open_lines"`
	// AtomicOpenLinePassCycles, in the sector model, is the issue slot a
	// request on one of the unit's open lines (AtomicOpenLines) takes in
	// place of 1/AtomicOpsPerCycle: a unit working a few lines turns its
	// requests faster than one whose requests each bring another line.
	// 0: every request takes 1/AtomicOpsPerCycle.
	AtomicOpenLinePassCycles float64 `yaml:"atomic_open_line_pass_cycles"`
	// AtomicPacketLineCycles and AtomicPacketSectorCycles, in the sector
	// model, are what a packet (one warp instruction's atomics on one
	// slice, sent as one request when the SM's atomic_slice_packets is on)
	// adds to its pass for each line after its first and for each sector
	// beyond one per line.
	AtomicPacketLineCycles   float64 `yaml:"atomic_packet_line_cycles"`
	AtomicPacketSectorCycles float64 `yaml:"atomic_packet_sector_cycles"`
	// AtomicOneWordCycles, in the sector model, is what each further lane
	// costs in a request whose lanes all target one word (a warp's atomic
	// on one address), whatever line the unit served before; requests
	// over several words chain each word's lanes at the cost above. 0: no
	// such distinction.
	AtomicOneWordCycles float64 `yaml:"atomic_one_word_cycles"`
	// AtomicOneWordOpenLineOnly limits AtomicOneWordCycles to a request on
	// one of the unit's open lines (AtomicOpenLines): a one-word request
	// after requests on other lines chains at AtomicSameAddressCycles, as
	// when a slice interleaves many warps' hot words. false: the one-word
	// cost whatever line the unit served before.
	AtomicOneWordOpenLineOnly bool `yaml:"atomic_one_word_open_line_only"`
	// AtomicLineLoadCycles makes a line with atomics booked on it one queue
	// for strong loads too: a strong load (volatile, relaxed or acquire: it
	// bypasses L1) that hits in the slice while the atomic unit has work
	// booked on its line past the load's arrival queues at the line rather
	// than for a lookup slot, answers only after that work, and holds the
	// line this many cycles if it is the first load behind an atomic
	// (AtomicLineLoadExtraCycles if loads are already queued behind it), so
	// that atomics booked after it start later. Weak loads (L1 fills) pass:
	// only strong polls were measured (results/atomic-poll). 0: every load
	// passes the atomics.
	AtomicLineLoadCycles float64 `yaml:"atomic_line_load_cycles"`
	// AtomicLineLoadExtraCycles is what each further strong load queued
	// behind the same atomics holds the line (AtomicLineLoadCycles).
	AtomicLineLoadExtraCycles float64 `yaml:"atomic_line_load_extra_cycles"`
	// AtomicLineTurnCycles, in the sector model, is the fewest cycles
	// between the starts of two requests on one line at an atomic unit: a
	// request on a line whose last request started fewer cycles ago waits,
	// and the unit with it (it serves its requests in order). Requests
	// spread over many lines never meet it; a slice whose requests keep
	// coming back to a few lines (a small table, a few roots that many
	// warps hook onto) is held by it. 0: off.
	AtomicLineTurnCycles float64 `yaml:"atomic_line_turn_cycles"`

	// L2Partitions splits the SMs and the L2 slices into this many
	// partitions (A100 and H100 have two, each nearer half the SMs): SM s
	// is in partition s × L2Partitions ÷ SMs, slice i in i × L2Partitions
	// ÷ L2Slices. An atomic whose slice is in another partition than its
	// SM takes L2FarAtomicCycles longer, half on the way there and half on
	// the way back (loads and stores do not: the H100's volatile loads cost
	// the same from every SM, as if the near partition served them). 1: one
	// partition, every atomic near (0 too).
	L2Partitions      int     `yaml:"l2_partitions"`
	L2FarAtomicCycles float64 `yaml:"l2_far_atomic_cycles"`
	// L2ReadsInPartition, with L2Partitions > 1, serves a load that hits
	// in L2 in its SM's partition: the lookup slot (and the answer's port)
	// is that of the home slice's peer in the SM's partition, the slice at
	// the same place among that partition's slices, as if each partition
	// held a copy of the lines its SMs read. Misses, stores and atomics go
	// to the home slice. Needs l2_model sectored and L2Slices a multiple
	// of L2Partitions.
	L2ReadsInPartition bool `yaml:"l2_reads_in_partition"`
	// L2LatencySpreadCycles spreads the L2 round trip over the SM-slice
	// pairs: a request from an SM to a slice takes a fixed offset of its
	// pair, uniform over [-spread/2, spread/2) and averaging zero, so one
	// chase over many slices keeps the configured latencies while a warp
	// whose lines go to many slices waits for the farthest. 0: every pair
	// alike.
	L2LatencySpreadCycles float64 `yaml:"l2_latency_spread_cycles"`
	// L2CombineReads lets a slice's read hits of one line share a lookup:
	// a hit arriving while the line's last read hit still waits for its
	// lookup slot is answered with it (sectored L2), so many SMs polling one
	// line do not queue a slot each. false: every hit takes a slot.
	L2CombineReads bool `yaml:"l2_combine_reads"`
	// L2StoresWaitForAtomics makes a slice's write path one queue with its
	// atomic unit: a store from an SM is acknowledged no earlier than when
	// the unit has worked through the operations booked before the store
	// arrived, so a fence after a store waits out a saturated unit's
	// backlog (results/load-latency, fences beside atomic gathers). false:
	// stores pass the atomics.
	L2StoresWaitForAtomics bool `yaml:"l2_stores_wait_for_atomics"`
}

// overheads are the cycles the components' own pipelines add to each
// end-to-end latency, beyond what the Builder places on the interconnect and
// in the models' delays. The Builder subtracts them from the configured
// latencies; TestLatencies checks that the sums come out exact.
type overheads struct {
	// l1Hit is what an L1 hit costs beyond the delay placed on the L1's
	// responses.
	l1Hit int
	// l2Hit is what an L2 hit costs beyond an L1 hit and the
	// interconnect's latency both ways.
	l2Hit int
	// dram is what an L2 miss costs beyond an L2 hit and the DRAM
	// channel's latency.
	dram int
	// atomic is what an atomic costs beyond the interconnect both ways and
	// the atomic unit's latency (its write to L2 included).
	atomic int
}

func (c Config) overheads() overheads {
	if c.l2Model() == L2Sectored {
		// The sectored L2 answers sectoredL2Pipeline cycles after its
		// lookup and adds nothing to a miss beyond the DRAM channel.
		if c.l1Model() == L1Sectored {
			return overheads{l1Hit: 1, l2Hit: sectoredL2Pipeline, dram: 0, atomic: 6}
		}
		return overheads{l1Hit: 6, l2Hit: sectoredL2Pipeline - 1, dram: 0, atomic: 6}
	}
	if c.l1Model() == L1Sectored {
		// The sectored L1 adds no pipeline: only the SM's tick after a
		// delivery (1 cycle) and the hops through akita's L2 stages remain.
		return overheads{l1Hit: 1, l2Hit: 5, dram: 5, atomic: 6}
	}
	// akita's caches run their directory and bank stages with zero
	// pipeline stages, which still costs a cycle per hop between stages.
	return overheads{l1Hit: 6, l2Hit: 4, dram: 5, atomic: 6}
}

// sectoredL2Pipeline is the sectored L2's cycles from a lookup (or a fill)
// to its answer leaving the slice: the hops akita's cache took, so that
// the interconnect's share of each latency is the same under both models.
const sectoredL2Pipeline = 5

// linearL2 reports whether chunks map to slices linearly (chunk mod
// slices, L2HashLinear or ""): then a slice indexes its sets with the
// slice's share of the address stripped, while under a hash the hash
// spreads a slice's lines and sets index by the line.
func (c Config) linearL2() bool { return c.L2Hash == L2HashLinear || c.L2Hash == "" }

// Validate reports every field that is missing, out of range or inconsistent
// with another, joined into one error.
func (c Config) Validate() error {
	var p check.Problems
	bad, positive, powerOfTwo := p.Add, p.Positive, p.PowerOfTwo

	positive("line_size_bytes", c.LineSizeBytes)
	powerOfTwo("line_size_bytes", c.LineSizeBytes)
	positive("sector_size_bytes", c.SectorSizeBytes)
	powerOfTwo("sector_size_bytes", c.SectorSizeBytes)
	p.SectorsPerLine("sector_size_bytes", c.SectorSizeBytes, "line_size_bytes", c.LineSizeBytes)

	positive("l1_ways", c.L1Ways)
	positive("l1_size_bytes", c.L1SizeBytes)
	c.checkSets(&p, "l1", c.L1SizeBytes, c.L1Ways)
	positive("l1_mshrs", c.L1MSHRs)
	positive("l1_max_inflight", c.L1MaxInflight)
	positive("l1_requests_per_cycle", c.L1RequestsPerCycle)
	switch c.L1Model {
	case "", L1Sectored, L1AkitaWriteAround, L1AkitaWriteThrough:
	default:
		bad("l1_model must be %q, %q or %q, got %q",
			L1Sectored, L1AkitaWriteAround, L1AkitaWriteThrough, c.L1Model)
	}

	switch c.Coherence {
	case "", CoherenceIdeal:
	case CoherenceL1:
		if c.l1Model() != L1Sectored {
			bad("coherence %q needs l1_model %q (akita's L1s keep no stale copies), got %q",
				CoherenceL1, L1Sectored, c.L1Model)
		}
		if c.SectorSizeBytes > 0 && c.SectorSizeBytes < 8 {
			bad("coherence %q needs sector_size_bytes of at least 8, got %d", CoherenceL1, c.SectorSizeBytes)
		}
	default:
		bad("coherence must be %q or %q, got %q", CoherenceIdeal, CoherenceL1, c.Coherence)
	}

	positive("l2_slices", c.L2Slices)
	positive("l2_ways", c.L2Ways)
	positive("l2_slice_size_bytes", c.L2SliceSizeBytes)
	c.checkSets(&p, "l2", c.L2SliceSizeBytes, c.L2Ways)
	positive("l2_mshrs", c.L2MSHRs)
	positive("l2_requests_per_cycle", c.L2RequestsPerCycle)
	positive("l2_interleave_bytes", c.L2InterleaveBytes)
	if c.L2InterleaveBytes > 0 && c.LineSizeBytes > 0 &&
		c.L2InterleaveBytes%c.LineSizeBytes != 0 {
		bad("l2_interleave_bytes (%d) must be a multiple of line_size_bytes (%d)",
			c.L2InterleaveBytes, c.LineSizeBytes)
	}
	switch c.L2Model {
	case "", L2Sectored, L2AkitaWriteback:
	default:
		bad("l2_model must be %q or %q, got %q", L2Sectored, L2AkitaWriteback, c.L2Model)
	}
	switch c.L2Hash {
	case "", L2HashLinear, L2HashXOR, L2HashMix:
	default:
		bad("l2_hash must be %q, %q or %q, got %q", L2HashLinear, L2HashXOR, L2HashMix, c.L2Hash)
	}
	if k := c.L2HashSkipBit; k != 0 {
		switch {
		case c.linearL2():
			bad("l2_hash_skip_bit (%d) needs l2_hash xor or mix", k)
		case k < 0 || k > 47 || (c.L2InterleaveBytes > 0 && 1<<k < c.L2InterleaveBytes):
			bad("l2_hash_skip_bit (%d) must be an address bit from log2(l2_interleave_bytes) to 47", k)
		}
	}
	switch c.AtomicModel {
	case "", AtomicLane, AtomicSector:
	default:
		bad("atomic_model must be %q or %q, got %q", AtomicLane, AtomicSector, c.AtomicModel)
	}

	// zero says what 0 means for the key.
	nonNegative := func(name string, v float64, zero string) {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			bad("%s must be a finite number >= 0 (0 = %s), got %v", name, zero, v)
		}
	}
	nonNegative("l2_slice_bytes_per_cycle", c.L2SliceBytesPerCycle, "unlimited")
	nonNegative("sm_l2_bytes_per_cycle", c.SMToL2BytesPerCycle, "unlimited")
	if !(c.DRAMBandwidthGBPerS > 0) || math.IsInf(c.DRAMBandwidthGBPerS, 0) {
		bad("dram_bandwidth_gb_per_s must be positive, got %v", c.DRAMBandwidthGBPerS)
	}
	if c.DRAMQueueDepth < 0 {
		bad("dram_queue_depth must be >= 0 (0 picks 64), got %d", c.DRAMQueueDepth)
	}
	nonNegative("l2_lookup_cycles", c.L2LookupCycles, "1/l2_requests_per_cycle")
	if f := c.L2FillBytes; f != 0 && f != c.LineSizeBytes {
		switch {
		case f < 0 || c.SectorSizeBytes <= 0 || f%c.SectorSizeBytes != 0 || c.LineSizeBytes%f != 0:
			bad("l2_fill_bytes must be 0 (the whole line) or a multiple of sector_size_bytes (%d) that divides line_size_bytes (%d), got %d",
				c.SectorSizeBytes, c.LineSizeBytes, f)
		case c.l2Model() != L2Sectored:
			bad("l2_fill_bytes applies to the sectored L2 only (l2_model %q): set it to 0", c.L2Model)
		}
	}
	if c.L2LookupCycles > 0 && c.l2Model() != L2Sectored {
		bad("l2_lookup_cycles applies to the sectored L2 only (l2_model %q): set it to 0", c.L2Model)
	}
	switch {
	case c.DRAMRowBytes < 0:
		bad("dram_row_bytes must be >= 0 (0 = no row model), got %d", c.DRAMRowBytes)
	case c.DRAMRowBytes > 0 && c.DRAMOpenRows < 1:
		bad("dram_open_rows must be at least 1 with the row model (dram_row_bytes %d), got %d", c.DRAMRowBytes, c.DRAMOpenRows)
	case c.DRAMOpenRows < 0 || c.DRAMOpenRows > 4096:
		bad("dram_open_rows must be 0 to 4096, got %d", c.DRAMOpenRows)
	}
	nonNegative("dram_row_miss_bytes", c.DRAMRowMissBytes, "free rows")
	if !(c.AtomicOpsPerCycle > 0) || math.IsInf(c.AtomicOpsPerCycle, 0) {
		bad("atomic_ops_per_cycle must be positive, got %v", c.AtomicOpsPerCycle)
	}
	nonNegative("atomic_same_address_cycles", c.AtomicSameAddressCycles, "no hold")
	nonNegative("atomic_same_line_cycles", c.AtomicSameLineCycles, "no same-line cost")
	nonNegative("atomic_one_word_cycles", c.AtomicOneWordCycles, "no one-word cost")
	nonNegative("atomic_open_line_pass_cycles", c.AtomicOpenLinePassCycles, "every pass at 1/atomic_ops_per_cycle")
	nonNegative("atomic_packet_line_cycles", c.AtomicPacketLineCycles, "a packet's further lines free")
	nonNegative("atomic_packet_sector_cycles", c.AtomicPacketSectorCycles, "a packet's further sectors free")
	if c.AtomicOpenLines < 0 || c.AtomicOpenLines > 64 {
		bad("atomic_open_lines must be between 0 and 64, got %d", c.AtomicOpenLines)
	}
	nonNegative("atomic_line_load_cycles", c.AtomicLineLoadCycles, "loads pass the atomics")
	nonNegative("atomic_line_turn_cycles", c.AtomicLineTurnCycles, "no wait between requests on one line")
	nonNegative("atomic_line_load_extra_cycles", c.AtomicLineLoadExtraCycles, "a queued load's followers cost nothing")
	if c.L2Partitions < 0 || (c.L2Slices > 0 && c.L2Partitions > c.L2Slices) {
		bad("l2_partitions must be between 1 (or 0, the same) and l2_slices (%d), got %d", c.L2Slices, c.L2Partitions)
	}
	nonNegative("l2_far_atomic_cycles", c.L2FarAtomicCycles, "no cost beyond a near atomic's")
	nonNegative("l2_latency_spread_cycles", c.L2LatencySpreadCycles, "every SM-slice pair alike")
	if req := c.timing().crossReq; c.L2LatencySpreadCycles > 2*req {
		bad("l2_latency_spread_cycles %g is more than twice the %g cycles a request takes from SM to L2 (an offset would be negative)", c.L2LatencySpreadCycles, req)
	}
	if c.L2ReadsInPartition && c.L2Partitions > 1 && (c.l2Model() != L2Sectored || c.L2Slices%c.L2Partitions != 0) {
		bad("l2_reads_in_partition needs l2_model %q and l2_slices (%d) a multiple of l2_partitions (%d), got l2_model %q",
			L2Sectored, c.L2Slices, c.L2Partitions, c.L2Model)
	}
	if c.AtomicLineLoadCycles > 0 && (c.l2Model() != L2Sectored || c.l1Model() != L1Sectored) {
		bad("atomic_line_load_cycles needs l1_model %q and l2_model %q (akita's caches neither mark strong loads nor see the atomic units), got %q and %q",
			L1Sectored, L2Sectored, c.L1Model, c.L2Model)
	}

	// The end-to-end latencies must leave room for the fixed pipeline
	// overheads and must grow down the hierarchy.
	o := c.overheads()
	if c.L1HitLatency < o.l1Hit {
		bad("l1_hit_latency_cycles must be at least %d (the L1 pipeline), got %d",
			o.l1Hit, c.L1HitLatency)
	}
	if minL2 := c.L1HitLatency + o.l2Hit; c.L2HitLatency < minL2 {
		bad("l2_hit_latency_cycles must be at least l1_hit_latency_cycles+%d = %d, got %d",
			o.l2Hit, minL2, c.L2HitLatency)
	}
	if minDRAM := c.L2HitLatency + o.dram; c.DRAMLatency < minDRAM {
		bad("dram_latency_cycles must be at least l2_hit_latency_cycles+%d = %d, got %d",
			o.dram, minDRAM, c.DRAMLatency)
	}
	if c.L2HitLatency >= c.L1HitLatency+o.l2Hit {
		roundTrip := c.L2HitLatency - c.L1HitLatency - o.l2Hit
		if minAtomic := roundTrip + o.atomic; c.AtomicLatency < minAtomic {
			bad("atomic_latency_cycles must be at least the interconnect round trip "+
				"(l2_hit_latency_cycles-l1_hit_latency_cycles-%d) + %d = %d, got %d",
				o.l2Hit, o.atomic, minAtomic, c.AtomicLatency)
		}
	}

	return p.Err("memory configuration")
}

// checkSets reports a capacity that does not divide into whole sets of
// whole lines.
func (c Config) checkSets(p *check.Problems, level string, size, ways int) {
	if size <= 0 || ways <= 0 || c.LineSizeBytes <= 0 {
		return
	}
	setBytes := ways * c.LineSizeBytes
	if size%setBytes != 0 {
		p.Add("%s size (%d bytes) must be a multiple of ways*line_size_bytes (%d)",
			level, size, setBytes)
	}
}

func (c Config) l1Model() string {
	if c.L1Model == "" {
		return L1Sectored
	}
	return c.L1Model
}

// l2LookupCycles is the cycles between a sectored slice's lookups.
func (c Config) l2LookupCycles() float64 {
	if c.L2LookupCycles > 0 {
		return c.L2LookupCycles
	}
	return 1 / float64(c.L2RequestsPerCycle)
}

// dramRows are a new DRAM channel's open rows; nil without the row model.
func (c Config) dramRows() *dramRows {
	if c.DRAMRowBytes == 0 {
		return nil
	}
	return newDRAMRows(c.DRAMRowBytes, c.L2Slices, c.DRAMOpenRows, c.DRAMRowMissBytes)
}

// l2FillSectors is how many sectors a slice's fill group holds (the whole
// line without l2_fill_bytes).
func (c Config) l2FillSectors() int {
	if c.L2FillBytes <= 0 || c.SectorSizeBytes <= 0 {
		return c.LineSizeBytes / max(c.SectorSizeBytes, 1)
	}
	return c.L2FillBytes / c.SectorSizeBytes
}

func (c Config) l2Model() string {
	if c.L2Model == "" {
		return L2Sectored
	}
	return c.L2Model
}

func (c Config) dramQueueDepth() int {
	if c.DRAMQueueDepth == 0 {
		return 64
	}
	return c.DRAMQueueDepth
}

// timing is where the Builder places each configured latency.
type timing struct {
	l1Response  float64 // added to every L1 response on its way to the SM
	crossReq    float64 // SM side to L2 side
	crossRsp    float64 // L2 side to SM side
	dramLatency int     // the DRAM channel's own latency
	atomicALU   float64 // the atomic unit's read-modify-write latency
	// sectorFetchRelease delays an L2 answer held for a sector fetch
	// (sliceShadow) after the sectors arrive.
	sectorFetchRelease float64
}

func (c Config) timing() timing {
	o := c.overheads()
	cross := c.L2HitLatency - c.L1HitLatency - o.l2Hit
	req := cross / 2
	t := timing{
		l1Response:  float64(c.L1HitLatency - o.l1Hit),
		crossReq:    float64(req),
		crossRsp:    float64(cross - req),
		dramLatency: c.DRAMLatency - c.L2HitLatency - o.dram,
		// A load that waits for a sector fetch pays an L2 hit, the DRAM
		// channel's latency, the cycle its controller takes to answer and
		// this delay: as much as a miss (TestReadOfUnwrittenSectorsFetches).
		sectorFetchRelease: float64(o.dram - 1),
	}
	t.atomicALU = float64(c.AtomicLatency) - t.crossReq - t.crossRsp - float64(o.atomic)
	return t
}
