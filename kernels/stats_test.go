package kernels

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLaunchStatsAddCombinesByKind(t *testing.T) {
	short := LaunchStats{Cycles: 10, Elapsed: time.Microsecond, Counters: map[string]float64{
		"cycles": 10, "sms": 4, "warp_instructions": 40, "thread_instructions": 40 * 32,
		"ipc_total": 4, "ipc": 1, "warp_execution_efficiency": 1,
		"l1_reads": 10, "l1_read_hits": 10, "l1_hit_rate": 1,
		"max_same_address_serialization_global": 7, "bank_conflicts": 3,
	}}
	long := LaunchStats{Cycles: 990, Elapsed: 2 * time.Microsecond, Counters: map[string]float64{
		"cycles": 990, "sms": 4, "warp_instructions": 60, "thread_instructions": 60 * 16,
		"ipc_total": 60.0 / 990, "ipc": 60.0 / 990 / 4, "warp_execution_efficiency": 0.5,
		"l1_reads": 30, "l1_read_hits": 0, "l1_hit_rate": 0,
		"max_same_address_serialization_global": 2, "bank_conflicts": 5,
	}}
	var total LaunchStats
	total.Add(short)
	total.Add(long)
	c := total.Counters
	assert.Equal(t, uint64(1000), total.Cycles)
	assert.Equal(t, 3*time.Microsecond, total.Elapsed)
	assert.Equal(t, 4.0, c["sms"], "a device constant does not add up")
	assert.Equal(t, 7.0, c["max_same_address_serialization_global"])
	assert.Equal(t, 8.0, c["bank_conflicts"])
	assert.InDelta(t, 0.1, c["ipc_total"], 1e-12, "100 warp-instructions in 1000 cycles, not the mean of 4 and 0.06")
	assert.InDelta(t, 0.025, c["ipc"], 1e-12)
	assert.InDelta(t, (40*32+60*16)/(32*100.0), c["warp_execution_efficiency"], 1e-12)
	assert.InDelta(t, 0.25, c["l1_hit_rate"], 1e-12, "10 hits in 40 reads")
}

func TestLaunchStatsAddDropsRatiosWithoutParts(t *testing.T) {
	var total LaunchStats
	total.Add(LaunchStats{Counters: map[string]float64{"l2_hit_rate": 0.5}})
	_, kept := total.Counters["l2_hit_rate"]
	assert.False(t, kept, "a ratio whose parts are unknown is not averaged blindly")
}
