package memsys

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// L1Values keeps, for every SM whose L1 holds a sector, the bytes that
// other SMs' stores and atomics changed since, and forgets them when the
// line leaves the L1 (eviction, InvalidateL1, InvalidateL1s).
func TestL1Values(t *testing.T) {
	cfg := testConfig()
	cfg.Coherence = CoherenceL1
	r := newRig(t, cfg, 3)
	r.sms[1].read(lineA, 0x1) // sector 0 of lineA in SM 1's L1
	r.sms[2].read(lineA, 0x1) // and in SM 2's
	r.run(t)
	v := r.sys.L1Values()
	require.NotNil(t, v)
	require.NoError(t, v.check())
	assert.False(t, v.HasStale(1))
	assert.Equal(t, uint64(9), v.LoadWeak(1, lineA+4, 4, 9), "nothing changed: memory's value")

	// SM 0 stores 7 at lineA+4 (was 0): SMs 1 and 2 keep the 0.
	v.Write(0, lineA+4, 4, 0, 7)
	require.NoError(t, v.check())
	assert.False(t, v.HasStale(0), "the writer holds no copy")
	for _, sm := range []int{1, 2} {
		assert.True(t, v.HasStale(sm))
		assert.Equal(t, uint64(0), v.LoadWeak(sm, lineA+4, 4, 7), "SM %d reads its stale copy", sm)
		assert.Equal(t, uint64(0), v.LoadWeak(sm, lineA+6, 2, 7>>16), "SM %d: the upper half", sm)
		assert.Equal(t, uint64(5), v.LoadWeak(sm, lineA, 8, 7<<32|5), "SM %d: an 8-byte load mixes memory's low bytes and the stale high ones", sm)
		assert.Equal(t, uint64(3), v.LoadWeak(sm, lineA, 4, 3), "SM %d: bytes nobody changed", sm)
	}
	// A store to a sector SM 1 does not hold is fetched fresh later.
	v.Write(0, lineA+32, 4, 0, 1)
	assert.Equal(t, uint64(1), v.LoadWeak(1, lineA+32, 4, 1))
	// A store that leaves memory as it was keeps nothing.
	v.Write(0, lineA+8, 4, 6, 6)
	assert.Equal(t, uint64(6), v.LoadWeak(1, lineA+8, 4, 6))

	// SM 1's own store makes its copy current; SM 2 keeps the oldest value.
	v.Write(1, lineA+4, 4, 7, 8)
	assert.Equal(t, uint64(8), v.LoadWeak(1, lineA+4, 4, 8))
	assert.False(t, v.HasStale(1))
	assert.Equal(t, uint64(0), v.LoadWeak(2, lineA+4, 4, 8))
	require.NoError(t, v.check())

	// A fence on SM 2 empties its L1.
	r.sys.InvalidateL1(2)
	assert.False(t, v.HasStale(2))
	assert.Equal(t, uint64(8), v.LoadWeak(2, lineA+4, 4, 8))
	require.NoError(t, v.check())
	v.Write(0, lineA+4, 4, 8, 9)
	assert.False(t, v.HasStale(2), "SM 2 no longer holds the line")
	assert.True(t, v.HasStale(1))
	assert.Equal(t, uint64(1), r.sys.Stats().L1PerSM[2].Invalidations)

	// Evicting lineA from SM 1 (two more lines of its 2-way set) forgets
	// its stale bytes.
	sets := uint64(cfg.L1SizeBytes / (cfg.L1Ways * cfg.LineSizeBytes))
	stride := sets * uint64(cfg.LineSizeBytes)
	later(r)
	r.sms[1].read(lineA+stride, 0x1)
	r.sms[1].read(lineA+2*stride, 0x1)
	r.run(t)
	assert.False(t, v.HasStale(1), "lineA was evicted")
	require.NoError(t, v.check())

	// The invalidation at a launch empties every L1.
	later(r)
	r.sms[2].read(lineA, 0x1)
	r.run(t)
	v.Write(0, lineA, 4, 0, 1)
	assert.True(t, v.HasStale(2))
	require.NoError(t, r.sys.InvalidateL1s())
	assert.False(t, v.HasStale(2))
	require.NoError(t, v.check())
	for _, p := range v.parts {
		assert.Zero(t, p.holders.len())
	}
}

// later makes the rig's SMs start after the engine's current time.
func later(r *rig) {
	for _, sm := range r.sms {
		sm.startCycle = int(sim.GHz.Cycle(r.engine.CurrentTime())) + 10
	}
}

func TestCoherenceConfig(t *testing.T) {
	cfg := testConfig()
	for _, c := range []string{"", CoherenceIdeal} {
		cfg.Coherence = c
		assert.NoError(t, cfg.Validate())
		r := newRig(t, cfg, 1)
		assert.Nil(t, r.sys.L1Values(), "coherence %q keeps no values", c)
	}
	cfg.Coherence = "mesi"
	assert.ErrorContains(t, cfg.Validate(), `coherence must be "ideal" or "l1", got "mesi"`)
	cfg.Coherence = CoherenceL1
	cfg.L1Model = L1AkitaWriteAround
	assert.ErrorContains(t, cfg.Validate(), `coherence "l1" needs l1_model "sectored"`)
	cfg.L1Model = L1Sectored
	_, err := MakeBuilder().WithEngine(newEngine()).WithConfig(cfg).WithNumSMs(300).Build("Mem")
	assert.ErrorContains(t, err, "at most 256 SMs")
}
