package memsys

import (
	"testing"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// InvalidateL1s empties every L1, whichever the model, and leaves the L2
// as it was: a line read before it misses L1 and hits L2 after it.
func TestInvalidateL1s(t *testing.T) {
	for _, model := range l1Models {
		t.Run(model, func(t *testing.T) {
			cfg := withModel(testConfig(), model)
			r := newRig(t, cfg, 2)
			sm := r.sms[0]
			sm.serial = true
			sm.read(lineA, 0xf) // cold: DRAM
			sm.read(lineA, 0xf) // L1 hit
			r.run(t)
			assert.Equal(t, []uint64{uint64(cfg.DRAMLatency), uint64(cfg.L1HitLatency)}, r.latencies(0))

			require.NoError(t, r.sys.InvalidateL1s())
			require.NoError(t, r.sys.InvalidateL1s(), "twice in a row")
			r.sys.ResetStats()
			sm.records = nil
			sm.startCycle = int(sim.GHz.Cycle(r.engine.CurrentTime())) + 10
			sm.read(lineA, 0xf) // L1 miss, L2 hit
			sm.read(lineA, 0xf) // L1 hit again
			r.run(t)
			assert.Equal(t, []uint64{uint64(cfg.L2HitLatency), uint64(cfg.L1HitLatency)}, r.latencies(0))
			st := r.sys.Stats()
			assert.Equal(t, 0.5, st.L1.ReadHitRate())
			assert.Equal(t, 1.0, st.L2.ReadHitRate())
		})
	}
}
