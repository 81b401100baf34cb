package memsys

import (
	"sync"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/sarchlab/akita/v3/tracing"
)

// CacheStats counts how one cache (or a sum of caches) handled requests. An
// MSHR hit is a request to a line whose miss is already outstanding; it
// counts neither as a hit nor as a miss. A bypass is a strong (volatile,
// or relaxed/acquire at gpu or sys scope) load the L1 passed to L2 without
// looking it up (NewLineReadBypass); only the sectored L1 counts them.
// Invalidations counts InvalidateL1 calls that emptied the cache during a
// launch (fences; the invalidation at each launch is not counted); only
// the sectored L1 counts them.
type CacheStats struct {
	ReadHits      uint64 `json:"read_hits"`
	ReadMisses    uint64 `json:"read_misses"`
	ReadMSHRHits  uint64 `json:"read_mshr_hits"`
	WriteHits     uint64 `json:"write_hits"`
	WriteMisses   uint64 `json:"write_misses"`
	WriteMSHRHits uint64 `json:"write_mshr_hits"`
	ReadBypasses  uint64 `json:"read_bypasses,omitempty"`
	Invalidations uint64 `json:"invalidations,omitempty"`
}

// Reads is the number of read requests the cache handled.
func (c CacheStats) Reads() uint64 {
	return c.ReadHits + c.ReadMisses + c.ReadMSHRHits + c.ReadBypasses
}

// Writes is the number of write requests the cache handled.
func (c CacheStats) Writes() uint64 { return c.WriteHits + c.WriteMisses + c.WriteMSHRHits }

// ReadHitRate is the fraction of reads that hit; 0 when there were none.
func (c CacheStats) ReadHitRate() float64 {
	if c.Reads() == 0 {
		return 0
	}
	return float64(c.ReadHits) / float64(c.Reads())
}

func (c *CacheStats) add(o CacheStats) {
	c.ReadHits += o.ReadHits
	c.ReadMisses += o.ReadMisses
	c.ReadMSHRHits += o.ReadMSHRHits
	c.WriteHits += o.WriteHits
	c.WriteMisses += o.WriteMisses
	c.WriteMSHRHits += o.WriteMSHRHits
	c.ReadBypasses += o.ReadBypasses
	c.Invalidations += o.Invalidations
}

// AtomicStats counts the work of the atomic units.
type AtomicStats struct {
	// Requests is the number of AtomicReqs (warp-sector pieces) completed.
	Requests uint64 `json:"requests"`
	// Operations is the number of lane operations they carried.
	Operations uint64 `json:"operations"`
	// MaxSameAddressDepth is the most operations ever queued on one address
	// (the one that starts plus those waiting behind it); 1 when no two
	// operations on one address overlapped.
	MaxSameAddressDepth int `json:"max_same_address_depth"`
	// SameAddressWaitCycles is the total time operations waited for an
	// earlier operation on their address to release it.
	SameAddressWaitCycles float64 `json:"same_address_wait_cycles"`
	// LoadsBehindAtomics is the number of loads that reached a slice while
	// atomics were booked on their line and queued behind them
	// (Config.AtomicLineLoadCycles), and LoadBehindAtomicsCycles the
	// cycles they waited and held the line.
	LoadsBehindAtomics      uint64  `json:"loads_behind_atomics"`
	LoadBehindAtomicsCycles float64 `json:"load_behind_atomics_cycles"`
}

func (a *AtomicStats) add(o AtomicStats) {
	a.Requests += o.Requests
	a.Operations += o.Operations
	a.MaxSameAddressDepth = max(a.MaxSameAddressDepth, o.MaxSameAddressDepth)
	a.SameAddressWaitCycles += o.SameAddressWaitCycles
	a.LoadsBehindAtomics += o.LoadsBehindAtomics
	a.LoadBehindAtomicsCycles += o.LoadBehindAtomicsCycles
}

// Stats is a snapshot of the memory system's counters since it was built or
// last reset.
type Stats struct {
	L1         CacheStats   `json:"l1"`
	L2         CacheStats   `json:"l2"`
	L1PerSM    []CacheStats `json:"l1_per_sm"`
	L2PerSlice []CacheStats `json:"l2_per_slice"`
	// DRAMReadBytes are the bytes the DRAM channels read. DRAMWriteBytes
	// are the dirty sectors evicted to DRAM plus the change in the sectors
	// L2 holds dirty, so every dirty sector counts once, in the period
	// that dirtied it, evicted or not (System.Stats); writes count whole
	// sectors.
	DRAMReadBytes  uint64      `json:"dram_read_bytes"`
	DRAMWriteBytes uint64      `json:"dram_write_bytes"`
	Atomics        AtomicStats `json:"atomics"`
}

// cacheStatsSource is where System.Stats reads one cache's counters: a
// sectored L1 or a cacheCounter on an akita cache. Both guard their counters
// with a lock, for the parallel engine.
type cacheStatsSource interface {
	snapshot() CacheStats
	reset()
}

// cacheCounter is a hook that counts a cache's hits and misses from the
// task steps akita's caches report ("read-hit", "write-mshr-hit", ...), so
// the counts come from the caches' own decisions without editing akita.
type cacheCounter struct {
	mu    sync.Mutex // the cache's tick writes, System.Stats reads
	stats CacheStats

	lastTask, lastStep string
}

func (h *cacheCounter) snapshot() CacheStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stats
}

func (h *cacheCounter) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stats = CacheStats{}
}

// Func counts one task step.
func (h *cacheCounter) Func(ctx sim.HookCtx) {
	if ctx.Pos != tracing.HookPosTaskStep {
		return
	}
	task, ok := ctx.Item.(tracing.Task)
	if !ok || len(task.Steps) == 0 {
		return
	}
	step := task.Steps[0].What
	h.mu.Lock()
	defer h.mu.Unlock()
	// akita's writeback directory reports "read-hit" before it knows whether
	// the bank can take the request and reports it again when it retries;
	// a transaction reaches a given step once otherwise.
	if task.ID == h.lastTask && step == h.lastStep {
		return
	}
	h.lastTask, h.lastStep = task.ID, step

	switch step {
	case "read-hit":
		h.stats.ReadHits++
	case "read-miss":
		h.stats.ReadMisses++
	case "read-mshr-hit":
		h.stats.ReadMSHRHits++
	case "write-hit":
		h.stats.WriteHits++
	case "write-miss":
		h.stats.WriteMisses++
	case "write-mshr-hit":
		h.stats.WriteMSHRHits++
	}
}
