package timing

import (
	"fmt"

	"github.com/warpgraph/warpgraph/sim/memsys"
)

// MaxDegree is the largest bank-conflict degree the histogram tells apart;
// wider accesses (8- and 16-byte lanes can need more passes) count in it.
const MaxDegree = 32

// Stats describes one launch in timing mode. Counters returns the same
// figures as a flat map with the snake_case names of the JSON tags.
type Stats struct {
	// Cycles is the launch's duration in core cycles: from the cycle its
	// first CTA starts to the cycle its last CTA finishes or its last
	// memory request completes, whichever is later.
	Cycles uint64 `json:"cycles"`
	// StoppedAt, when not 0, is the cycle of the launch at which its
	// Probe stopped it (Launch.Probe); the other figures cover the cycles
	// up to then and the requests that drained after.
	StoppedAt uint64 `json:"-"`
	// SMs is the number of SMs of the device.
	SMs int `json:"sms"`
	// CTAs is the number of CTAs the launch ran; MaxResidentCTAs the most
	// that were resident at once.
	CTAs            int `json:"ctas"`
	MaxResidentCTAs int `json:"max_resident_ctas"`

	// WarpInstructions counts issued warp-instructions; ThreadInstructions
	// sums their active lanes (docs/architecture.md's thread-instructions).
	WarpInstructions   uint64 `json:"warp_instructions"`
	ThreadInstructions uint64 `json:"thread_instructions"`
	// IPC is warp-instructions per cycle per SM, averaged over every SM of
	// the device (nvprof's ipc); IPCTotal is warp-instructions per cycle of
	// the whole device (IPC × SMs).
	IPC      float64 `json:"ipc"`
	IPCTotal float64 `json:"ipc_total"`
	// WarpExecutionEfficiency is ThreadInstructions / (32 ×
	// WarpInstructions): the average fraction of lanes active.
	WarpExecutionEfficiency float64 `json:"warp_execution_efficiency"`
	// AchievedOccupancy is the average number of resident (not yet exited)
	// warps per SM divided by the SM's warp slots, over the cycles in which
	// the SM had at least one resident warp (nvprof's achieved_occupancy).
	AchievedOccupancy float64 `json:"achieved_occupancy"`
	// ResidentWarpCycles and WarpSlotCycles are AchievedOccupancy's
	// numerator and denominator, so occupancy can be combined over
	// launches.
	ResidentWarpCycles uint64 `json:"resident_warp_cycles"`
	WarpSlotCycles     uint64 `json:"warp_slot_cycles"`

	// SharedAccesses counts warp-instructions that accessed shared memory
	// (loads, stores and atomics). BankConflicts counts the extra passes
	// they took: the sum over accesses of (degree - 1).
	SharedAccesses uint64 `json:"shared_accesses"`
	BankConflicts  uint64 `json:"bank_conflicts"`
	// BankConflictDegree[d] counts shared accesses of conflict degree d
	// (1..MaxDegree; index 0 is unused): the most distinct words one bank
	// had to serve.
	BankConflictDegree [MaxDegree + 1]uint64 `json:"bank_conflict_degree"`

	// SharedAtomics and GlobalAtomics count lane operations of atom and
	// red on shared and global memory.
	SharedAtomics uint64 `json:"shared_atomics"`
	GlobalAtomics uint64 `json:"global_atomics"`
	// MaxSameAddressSerializationShared is the most lanes of one warp
	// instruction that named one shared address; ...Global is the most
	// operations the L2 atomic units ever had queued on one address.
	MaxSameAddressSerializationShared int `json:"max_same_address_serialization_shared"`
	MaxSameAddressSerializationGlobal int `json:"max_same_address_serialization_global"`
	// StrongLoadsBehindAtomics counts the strong loads that queued behind
	// the atomics booked on their line at an L2 slice
	// (memory.atomic_line_load_cycles).
	StrongLoadsBehindAtomics uint64 `json:"strong_loads_behind_atomics"`
	// SharedAtomicLockRetries counts, in the lock model, the lock
	// attempts that failed and looped.
	SharedAtomicLockRetries uint64 `json:"shared_atomic_lock_retries"`

	// GlobalLoadRequests, GlobalStoreRequests and GlobalAtomicRequests
	// count the line (or atomic sector) requests the SMs sent to the
	// memory system, local memory included.
	GlobalLoadRequests   uint64 `json:"global_load_requests"`
	GlobalStoreRequests  uint64 `json:"global_store_requests"`
	GlobalAtomicRequests uint64 `json:"global_atomic_requests"`

	// L1HitRate and L2HitRate are the read hit rates of the L1s and L2
	// slices (0 without reads).
	L1HitRate float64 `json:"l1_hit_rate"`
	L2HitRate float64 `json:"l2_hit_rate"`
	// DRAMReadBytes and DRAMWriteBytes are the DRAM traffic; a launch's
	// stores count as written when it ends, whether or not L2 has
	// written them back yet (memsys.Stats).
	DRAMReadBytes  uint64 `json:"dram_read_bytes"`
	DRAMWriteBytes uint64 `json:"dram_write_bytes"`

	// Memory is the memory system's own statistics for the launch.
	Memory memsys.Stats `json:"memory"`
}

// DeriveRates sets IPC, IPCTotal and WarpExecutionEfficiency from the
// cycles, the SMs and the instruction counts.
func (s *Stats) DeriveRates() {
	s.IPC, s.IPCTotal, s.WarpExecutionEfficiency = 0, 0, 0
	if s.Cycles > 0 {
		s.IPCTotal = float64(s.WarpInstructions) / float64(s.Cycles)
		s.IPC = s.IPCTotal / float64(max(s.SMs, 1))
	}
	if s.WarpInstructions > 0 {
		s.WarpExecutionEfficiency = float64(s.ThreadInstructions) / (32 * float64(s.WarpInstructions))
	}
}

// Counters returns the statistics as a map with stable snake_case names:
// every scalar field under its JSON name, and the histogram as
// bank_conflict_degree_1 ... bank_conflict_degree_32.
func (s *Stats) Counters() map[string]float64 {
	m := map[string]float64{
		"cycles":                                float64(s.Cycles),
		"sms":                                   float64(s.SMs),
		"ctas":                                  float64(s.CTAs),
		"max_resident_ctas":                     float64(s.MaxResidentCTAs),
		"warp_instructions":                     float64(s.WarpInstructions),
		"thread_instructions":                   float64(s.ThreadInstructions),
		"ipc":                                   s.IPC,
		"ipc_total":                             s.IPCTotal,
		"warp_execution_efficiency":             s.WarpExecutionEfficiency,
		"achieved_occupancy":                    s.AchievedOccupancy,
		"shared_accesses":                       float64(s.SharedAccesses),
		"bank_conflicts":                        float64(s.BankConflicts),
		"shared_atomics":                        float64(s.SharedAtomics),
		"global_atomics":                        float64(s.GlobalAtomics),
		"max_same_address_serialization_shared": float64(s.MaxSameAddressSerializationShared),
		"max_same_address_serialization_global": float64(s.MaxSameAddressSerializationGlobal),
		"strong_loads_behind_atomics":           float64(s.StrongLoadsBehindAtomics),
		"shared_atomic_lock_retries":            float64(s.SharedAtomicLockRetries),
		"global_load_requests":                  float64(s.GlobalLoadRequests),
		"global_store_requests":                 float64(s.GlobalStoreRequests),
		"global_atomic_requests":                float64(s.GlobalAtomicRequests),
		"l1_hit_rate":                           s.L1HitRate,
		"l2_hit_rate":                           s.L2HitRate,
		"l1_reads":                              float64(s.Memory.L1.Reads()),
		"l1_read_hits":                          float64(s.Memory.L1.ReadHits),
		"l1_read_bypasses":                      float64(s.Memory.L1.ReadBypasses),
		"l1_invalidations":                      float64(s.Memory.L1.Invalidations),
		"l2_reads":                              float64(s.Memory.L2.Reads()),
		"l2_read_hits":                          float64(s.Memory.L2.ReadHits),
		"resident_warp_cycles":                  float64(s.ResidentWarpCycles),
		"warp_slot_cycles":                      float64(s.WarpSlotCycles),
		"dram_read_bytes":                       float64(s.DRAMReadBytes),
		"dram_write_bytes":                      float64(s.DRAMWriteBytes),
	}
	for d := 1; d <= MaxDegree; d++ {
		m[fmt.Sprintf("bank_conflict_degree_%d", d)] = float64(s.BankConflictDegree[d])
	}
	return m
}

// smStats are one SM's counters during a launch.
type smStats struct {
	warpInsts, threadInsts uint64
	sharedAccesses         uint64
	bankConflicts          uint64
	degree                 [MaxDegree + 1]uint64
	sharedAtomics          uint64
	globalAtomics          uint64
	maxSameAddrShared      int
	lockRetries            uint64
	loadReqs, storeReqs    uint64
	atomicReqs             uint64
	// Occupancy: resident warps integrated over cycles, and the cycles
	// with at least one resident warp.
	warpCycles, activeCycles uint64
}

func (s *Stats) add(o *smStats) {
	s.WarpInstructions += o.warpInsts
	s.ThreadInstructions += o.threadInsts
	s.SharedAccesses += o.sharedAccesses
	s.BankConflicts += o.bankConflicts
	for d := range o.degree {
		s.BankConflictDegree[d] += o.degree[d]
	}
	s.SharedAtomics += o.sharedAtomics
	s.GlobalAtomics += o.globalAtomics
	s.MaxSameAddressSerializationShared = max(s.MaxSameAddressSerializationShared, o.maxSameAddrShared)
	s.SharedAtomicLockRetries += o.lockRetries
	s.GlobalLoadRequests += o.loadReqs
	s.GlobalStoreRequests += o.storeReqs
	s.GlobalAtomicRequests += o.atomicReqs
}
