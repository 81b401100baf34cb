package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/memsys"
)

// monitorGet fetches path from the monitor and returns the body.
func monitorGet(t *testing.T, m *Monitor, path string) string {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(m.URL() + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", path, body)
	return string(body)
}

// streamRun runs the stream kernel of 4096 elements on d and returns its
// statistics and output.
func streamRun(t *testing.T, d *Device) (kernels.LaunchStats, []float32) {
	a := make([]float32, 4096)
	for i := range a {
		a[i] = float32(i)
	}
	pa, pb, pc := upload(t, d, a), upload(t, d, a), zeros[float32](t, d, 4096)
	st := launch(t, d, lookup(t, "stream"), 16, 256, pa, pb, pc, uint32(4096))
	return st, download[float32](t, d, pc, 4096)
}

func TestMonitor(t *testing.T) {
	m, err := StartMonitor(0)
	require.NoError(t, err)
	assert.Positive(t, m.Port())
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, m.URL())

	t.Run("one per process", func(t *testing.T) {
		again, err := StartMonitor(0)
		require.NoError(t, err)
		assert.Same(t, m, again)
		again, err = StartMonitor(m.Port())
		require.NoError(t, err)
		assert.Same(t, m, again)
		other := m.Port() + 1
		if other > 65535 {
			other = m.Port() - 1
		}
		_, err = StartMonitor(other)
		assert.ErrorContains(t, err, "already serves")
		_, err = StartMonitor(80)
		assert.ErrorContains(t, err, "use 0 (any free port) or 1001..65535")
	})

	t.Run("functional mode is refused", func(t *testing.T) {
		cfg, err := ConfigByName("tiny")
		require.NoError(t, err)
		_, err = New(cfg, WithMode(ModeFunctional), WithMonitor(m))
		assert.ErrorContains(t, err, "functional mode has none")
	})

	before := m.Launches()
	watched, watchedOut := streamRun(t, tinyDevice(t, WithMonitor(m)))
	plain, plainOut := streamRun(t, tinyDevice(t))
	assert.Equal(t, before+1, m.Launches())

	t.Run("results do not change", func(t *testing.T) {
		assert.Positive(t, plain.Cycles)
		assert.Equal(t, plain.Cycles, watched.Cycles)
		assert.Equal(t, plain.Counters, watched.Counters)
		assert.Equal(t, plainOut, watchedOut)
	})

	t.Run("page", func(t *testing.T) {
		page := monitorGet(t, m, "/")
		assert.Contains(t, page, "<title>Akita Monitoring Tool</title>")
		assert.Contains(t, page, `id="now-label"`)
	})

	t.Run("components", func(t *testing.T) {
		var names []string
		require.NoError(t, json.Unmarshal([]byte(monitorGet(t, m, "/api/list_components")), &names))
		for _, want := range []string{"GPU.SM[0]", "GPU.SM[1]", "GPU.Mem.L2[0]", "GPU.Mem.Atomic[0]", "GPU.Mem.DRAM[0]"} {
			assert.Contains(t, names, want)
		}
		// What the page shows when a component is clicked.
		assert.Contains(t, monitorGet(t, m, "/api/component/GPU.SM[0]"), `"id"`)
	})

	t.Run("engine time", func(t *testing.T) {
		var now struct{ Now float64 }
		require.NoError(t, json.Unmarshal([]byte(monitorGet(t, m, "/api/now")), &now))
		want := float64(watched.Cycles) / (float64(tinyClockMHz(t)) * 1e6)
		assert.GreaterOrEqual(t, now.Now, want, "the engine ran the launch's cycles")
	})

	t.Run("akita's L1s", func(t *testing.T) {
		// akita's caches register with their buffers (the hang analyzer's
		// view) as the sectored L1 model's components do.
		for _, model := range []string{memsys.L1AkitaWriteAround, memsys.L1AkitaWriteThrough} {
			cfg, err := ConfigByName("tiny")
			require.NoError(t, err)
			cfg.Memory.L1Model, cfg.Memory.Coherence = model, memsys.CoherenceIdeal
			d, err := New(cfg, WithMonitor(m))
			require.NoError(t, err, model)
			streamRun(t, d)
			require.NoError(t, d.Close())
		}
		var names []string
		require.NoError(t, json.Unmarshal([]byte(monitorGet(t, m, "/api/list_components")), &names))
		assert.Contains(t, names, "GPU.Mem.L1[1]", "writearound")
		assert.Contains(t, names, "GPU.Mem.L1Of1", "writethrough")
		assert.Contains(t, monitorGet(t, m, "/api/hangdetector/buffers?limit=5"), `"buffer":"GPU.`)
	})

	t.Run("progress bar", func(t *testing.T) {
		var bars []struct {
			Name       string
			Total      uint64
			Finished   uint64
			InProgress uint64 `json:"in_progress"`
		}
		require.NoError(t, json.Unmarshal([]byte(monitorGet(t, m, "/api/progress")), &bars))
		require.Len(t, bars, 1, "the latest launch's bar")
		assert.Regexp(t, `^launch \d+: stream, CTAs$`, bars[0].Name)
		assert.Equal(t, uint64(16), bars[0].Total)
		assert.Equal(t, uint64(16), bars[0].Finished)
		assert.Zero(t, bars[0].InProgress)
	})
}

func tinyClockMHz(t *testing.T) int {
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	return cfg.ClockMHz
}
