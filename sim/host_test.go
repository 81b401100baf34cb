package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// The simulated host clock (HostClock, sim/host.go): every launch, copy and
// memset advances it by the configuration's host costs, so that a
// host-driven loop's simulated end-to-end time compares with the H100's.

// TestHostClockLaunchPatterns runs the three patterns of the
// launch_overhead microbenchmark (experiments/micro) on the simulated
// h100 and checks that each iteration advances the host clock by exactly
// the model's sum of its host keys plus the kernel's event time
// (kernel_overhead_ns, plus the cycles in timing mode), and that this sum
// is within 3% of the figure measured on the H100 (sim/configs/README.md,
// "The H100 calibration").
func TestHostClockLaunchPatterns(t *testing.T) {
	measured := map[string]time.Duration{ // warpgraph micro launch_overhead --target hw, H100, 2026-11-22
		"launch":                      14100 * time.Nanosecond,
		"launch + read-back":          22000 * time.Nanosecond,
		"upload + launch + read-back": 24200 * time.Nanosecond,
	}
	k := lookup(t, "launch_increment")
	for _, mode := range []Mode{ModeFunctional, ModeTiming} {
		t.Run(string(mode), func(t *testing.T) {
			cfg, err := ConfigByName("h100")
			require.NoError(t, err)
			d, err := New(cfg, WithMode(mode))
			require.NoError(t, err)
			t.Cleanup(func() { _ = d.Close() })
			h := d.Config().Host
			launchHost := time.Duration(h.LaunchNs + h.SyncNs)
			readBack := time.Duration(h.SyncNs + h.CopyLatencyNs)
			model := map[string]time.Duration{ // host keys only; the kernel's event time is added per launch
				"launch":                      launchHost,
				"launch + read-back":          launchHost + readBack,
				"upload + launch + read-back": launchHost + readBack + time.Duration(h.CopyLatencyNs),
			}
			counter := zeros[uint32](t, d, 1)
			word := make([]byte, 4)
			launch := func() time.Duration {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, counter)
				require.NoError(t, err)
				return st.Elapsed
			}
			patterns := []struct {
				name string
				step func() time.Duration // returns the kernel's Elapsed
			}{
				{"launch", launch},
				{"launch + read-back", func() time.Duration {
					e := launch()
					require.NoError(t, d.CopyFromDevice(word, counter))
					return e
				}},
				{"upload + launch + read-back", func() time.Duration {
					require.NoError(t, d.CopyToDevice(counter, make([]byte, 4)))
					e := launch()
					require.NoError(t, d.CopyFromDevice(word, counter))
					return e
				}},
			}
			for _, p := range patterns {
				for i := range 3 {
					before := d.HostClock()
					elapsed := p.step()
					got := d.HostClock() - before
					if mode == ModeFunctional {
						assert.Zero(t, elapsed)
					} else {
						assert.Positive(t, elapsed)
					}
					h := d.Config().Host
					kernel := elapsed
					if mode == ModeFunctional {
						kernel = time.Duration(h.KernelOverheadNs)
					} else {
						assert.Greater(t, elapsed, time.Duration(h.KernelOverheadNs), "Elapsed includes kernel_overhead_ns")
					}
					want := model[p.name] + kernel
					assert.Equal(t, want, got, "%s, iteration %d (kernel %v)", p.name, i, elapsed)
					assert.InEpsilon(t, float64(measured[p.name]), float64(got), 0.03, "%s: simulated %v, measured %v", p.name, got, measured[p.name])
					if i == 0 {
						t.Logf("%-28s %v (kernel events %v), measured %v", p.name, got, kernel, measured[p.name])
					}
				}
			}
		})
	}
}

// TestHostClockMonotone: the clock starts at 0, never decreases, and
// advances by exactly each call's modelled cost (tiny's illustrative
// figures: launch 1000 ns, kernel overhead 300 ns, sync 500 ns, copy latency 200 ns, 10 bytes/ns,
// DRAM 900 GB/s); calls that cost nothing leave it alone.
func TestHostClockMonotone(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		h := d.Config().Host
		require.Equal(t, HostConfig{LaunchNs: 1000, KernelOverheadNs: 300, SyncNs: 500, CopyLatencyNs: 200, CopyBytesPerNs: 10}, h)
		dram := d.Config().Memory.DRAMBandwidthGBPerS
		assert.Zero(t, d.HostClock(), "a new device")
		last := d.HostClock()
		step := func(what string, want time.Duration, call func() error) {
			t.Helper()
			require.NoError(t, call(), what)
			now := d.HostClock()
			assert.GreaterOrEqual(t, now, last, "%s: the clock went back", what)
			assert.Equal(t, want, now-last, what)
			last = now
		}
		var p kernels.DevPtr
		step("alloc", 0, func() (err error) { p, err = d.Alloc(4096); return err })
		step("empty upload", 0, func() error { return d.CopyToDevice(p, nil) })
		step("empty read-back", 0, func() error { return d.CopyFromDevice(nil, p) })
		step("empty memset", 0, func() error { return d.Memset(p, 0, 0) })
		step("upload 1000 B", 200+100, func() error { return d.CopyToDevice(p, make([]byte, 1000)) })
		step("upload 4 B", 200, func() error { return d.CopyToDevice(p, make([]byte, 4)) })
		step("read-back 1000 B", 500+200+100, func() error { return d.CopyFromDevice(make([]byte, 1000), p) })
		step("memset 4096 B", 200+time.Duration(float64(4096)/dram+0.5), func() error { return d.Memset(p, 1, 4096) })
		k := lookup(t, "launch_increment")
		ctx := context.Background()
		st, err := d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, p)
		require.NoError(t, err)
		events := st.Elapsed // timing mode: 300 ns of kernel overhead plus the cycles
		if st.Cycles == 0 {
			assert.Zero(t, st.Elapsed, "functional mode has no kernel time")
			events = 300
		} else {
			assert.Equal(t, 300+time.Duration(float64(st.Cycles)/float64(d.Config().ClockMHz)*1e3), st.Elapsed)
		}
		assert.Equal(t, 1000+events+500, d.HostClock()-last, "launch")
		last = d.HostClock()
		_, err = d.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(4096)}, p)
		require.Error(t, err, "a block too large is refused before it starts")
		step("refused launch", 0, func() error { return nil })
		step("free", 0, func() error { return d.Free(p) })
	})
}
