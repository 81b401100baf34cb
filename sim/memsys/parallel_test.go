package memsys

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParallelEngine runs the suite's timing tests again on akita's
// parallel engine, where the components' events of one time run on
// concurrent goroutines (run it with -race). The fake SMs send from
// concurrent ticks into the fabric, atomic units take requests from
// several SMs at once, and the DRAM channels answer concurrently; the
// tests' exact latencies and counts must hold as they do on the serial
// engine.
func TestParallelEngine(t *testing.T) {
	parallelSuite = true
	defer func() { parallelSuite = false }()
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"Latencies", TestLatencies},
		{"ReadAfterEviction", TestReadAfterEviction},
		{"L2EvictionWritesBack", TestL2EvictionWritesBack},
		{"StoresWriteThrough", TestStoresWriteThrough},
		{"SectoredL1FetchesSectors", TestSectoredL1FetchesSectors},
		{"SectoredL1SkipsHoles", TestSectoredL1SkipsHoles},
		{"MSHRMergesAndPushesBack", TestMSHRMergesAndPushesBack},
		{"BackPressureReachesSM", TestBackPressureReachesSM},
		{"SliceInterleaving", TestSliceInterleaving},
		{"AtomicSameAddressSerializes", TestAtomicSameAddressSerializes},
		{"AtomicLanesSerialize", TestAtomicLanesSerialize},
		{"AtomicsInDifferentSlicesRunInParallel", TestAtomicsInDifferentSlicesRunInParallel},
		{"DRAMBandwidth", TestDRAMBandwidth},
		{"StatsCountTraffic", TestStatsCountTraffic},
		{"EngineDrains", TestEngineDrains},
		{"StreamSmall", TestStreamSmall},
	} {
		t.Run(tc.name, tc.test)
	}
}

// TestParallelStreamMatchesSerial replays the same stream traffic on both
// engines and compares what it did and how long it took.
func TestParallelStreamMatchesSerial(t *testing.T) {
	const sms, elements, maxWarps = 16, 16 * 8 * 256, 16
	for _, model := range l1Models {
		t.Run(model, func(t *testing.T) {
			cfg := withModel(benchConfig(), model)
			serial := runStream(t, cfg, sms, elements, maxWarps)
			parallelSuite = true
			defer func() { parallelSuite = false }()
			par := runStream(t, cfg, sms, elements, maxWarps)
			assert.Equal(t, serial.stats.L1.Reads(), par.stats.L1.Reads())
			assert.Equal(t, serial.stats.L1.Writes(), par.stats.L1.Writes())
			assert.Equal(t, serial.stats.DRAMReadBytes, par.stats.DRAMReadBytes)
			require.Positive(t, serial.cycles)
			assert.InEpsilon(t, float64(serial.cycles), float64(par.cycles), 0.02,
				"serial %d cycles, parallel %d", serial.cycles, par.cycles)
			t.Logf("%s: serial %d cycles (%d events, %v), parallel %d cycles (%d events, %v)",
				model, serial.cycles, serial.events, serial.wall, par.cycles, par.events, par.wall)
		})
	}
}

// TestParallelWriteBacks keeps the DRAM channels busy with reads and
// write-backs at once (a stream whose stores overflow small L2 slices), so
// that several of a channel's answers fall on one time: under the parallel
// engine they run one at a time (eventSerialiser).
func TestParallelWriteBacks(t *testing.T) {
	cfg := benchConfig()
	cfg.L2Slices = 4
	cfg.L2SliceSizeBytes = 16 * 1024
	const sms, elements, maxWarps = 8, 8 * 8 * 256, 16
	serial := runStream(t, cfg, sms, elements, maxWarps)
	parallelSuite = true
	defer func() { parallelSuite = false }()
	par := runStream(t, cfg, sms, elements, maxWarps)
	require.Positive(t, serial.stats.DRAMWriteBytes, "the stores must be written back")
	assert.Equal(t, serial.stats.DRAMReadBytes, par.stats.DRAMReadBytes)
	assert.Equal(t, serial.stats.DRAMWriteBytes, par.stats.DRAMWriteBytes)
	assert.InEpsilon(t, float64(serial.cycles), float64(par.cycles), 0.02,
		"serial %d cycles, parallel %d", serial.cycles, par.cycles)
}

// busyHandler records how many of its events run at once.
type busyHandler struct {
	active, most atomic.Int32
	count        int // unsynchronised: the race detector sees overlaps
}

func (h *busyHandler) Handle(sim.Event) error {
	n := h.active.Add(1)
	for {
		m := h.most.Load()
		if n <= m || h.most.CompareAndSwap(m, n) {
			break
		}
	}
	h.count++
	time.Sleep(time.Millisecond)
	h.active.Add(-1)
	return nil
}

type busyEvent struct {
	t sim.VTimeInSec
	h sim.Handler
}

func (e busyEvent) Time() sim.VTimeInSec { return e.t }
func (e busyEvent) Handler() sim.Handler { return e.h }
func (e busyEvent) IsSecondary() bool    { return false }

// TestEventSerialiser checks that the parallel engine runs a serialised
// handler's same-time events one at a time and leaves others alone.
func TestEventSerialiser(t *testing.T) {
	engine := sim.NewParallelEngine()
	ser := &eventSerialiser{locks: make(map[sim.Handler]*sync.Mutex)}
	serialised, other := &busyHandler{}, &busyHandler{}
	ser.serialise(serialised)
	engine.AcceptHook(ser)
	const n = 8
	for range n {
		engine.Schedule(busyEvent{t: 1e-9, h: serialised})
	}
	engine.Schedule(busyEvent{t: 1e-9, h: other})
	require.NoError(t, engine.Run())
	assert.Equal(t, n, serialised.count)
	assert.Equal(t, int32(1), serialised.most.Load())
	assert.Equal(t, 1, other.count)
}
