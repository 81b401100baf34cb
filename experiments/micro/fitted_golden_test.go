package micro_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments/micro"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

var updateFitted = flag.Bool("update", false, "rewrite testdata/fitted_h100.json from the current simulator")

// fittedGolden is where the h100's fitted constants show, at small scale:
// the microbenchmarks they were fitted on (and the checks the fits did not
// see), on the h100 cut to two SMs, in timing mode. sim/configs/h100.yaml
// cites these benchmarks for shared_atomic.interval, atomic_ops_per_cycle,
// atomic_same_address_cycles, l2_hash,
// l1_hit_latency_cycles, shared_pass_cycles and atomic_line_load_*; a change to the model or to those values moves the
// cycles below, and this test fails until the figures are re-measured
// against the H100 (sim/configs/README.md) and the file is rewritten with
// go test ./experiments/micro -run FittedH100 -update.
const fittedGolden = "testdata/fitted_h100.json"

// TestFittedH100FiguresArePinned runs the fitted microbenchmarks on the
// command line's default engine (the window engine, here on one thread:
// its figures are the same on any number) and compares every cycle count
// with the golden file.
func TestFittedH100FiguresArePinned(t *testing.T) {
	dev, err := sim.Open("h100+sms=2", sim.WithMode(sim.ModeTiming), sim.WithThreads(1))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	got := map[string]uint64{}
	rec := &cycleRecorder{Device: dev, into: got}
	record := func(prefix string, run func() error) {
		t.Helper()
		rec.prefix = prefix
		require.NoError(t, run(), prefix)
	}
	// Shared and global atomics, one CTA and every SM full (4 CTAs).
	record("atomic_contention/cta", func() error {
		_, err := micro.AtomicContention(ctx(t), rec, []int{1, 8, 32}, micro.Params{Reps: 4})
		return err
	})
	record("atomic_contention/gpu", func() error {
		_, err := micro.AtomicContention(ctx(t), rec, []int{1, 8, 32}, micro.Params{Reps: 4, CTAs: micro.AtomicCTAsFullGPU(dev)})
		return err
	})
	record("atomic_spread", func() error {
		_, err := micro.AtomicSpread(ctx(t), rec, []int{4, 128, 4096}, 8, micro.Params{Reps: 2})
		return err
	})
	record("load_latency", func() error {
		_, err := micro.LoadLatency(ctx(t), rec, []int{16 << 10}, micro.Params{})
		return err
	})
	record("bank_stride", func() error {
		_, err := micro.BankStride(ctx(t), rec, []int{1, 32}, 1, 256, micro.Params{Reps: 8})
		return err
	})
	// The poll model (memory.atomic_line_load_*), fitted on atomic_poll.
	record("atomic_poll", func() error {
		ctas, err := micro.AtomicPollCTAs(dev)
		if err != nil {
			return err
		}
		for _, pollers := range []int{0, 1, 3} {
			if _, err := micro.AtomicPoll(ctx(t), rec, ctas, pollers, 1, 0, micro.Params{Reps: 8}); err != nil {
				return err
			}
		}
		return nil
	})
	if *updateFitted {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(fittedGolden), 0o755))
		require.NoError(t, os.WriteFile(fittedGolden, append(b, '\n'), 0o644))
	}
	b, err := os.ReadFile(fittedGolden)
	require.NoError(t, err, "missing golden file; run go test ./experiments/micro -run FittedH100 -update")
	var want map[string]uint64
	require.NoError(t, json.Unmarshal(b, &want))
	assert.Equal(t, want, got, "the fitted h100 figures moved: re-check them against the H100 (sim/configs/README.md), then -update")
}

// cycleRecorder records each launch's cycles under prefix/kernel#n.
type cycleRecorder struct {
	kernels.Device
	into   map[string]uint64
	prefix string
	n      int
}

func (r *cycleRecorder) Launch(c context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	s, err := r.Device.Launch(c, k, cfg, args...)
	r.n++
	r.into[fmt.Sprintf("%s/%s#%02d", r.prefix, k.Name, r.n)] = s.Cycles
	return s, err
}
