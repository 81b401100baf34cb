package micro

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// LaunchOverhead measures what the host pays per step of a host-driven
// loop, with the launch_increment kernel (one CTA of 32 threads; thread 0
// adds 1 to a counter, so the kernel itself takes a few microseconds at
// most). Three patterns, each run p.Warmup untimed iterations and then n
// timed ones, timing every iteration with the host's wall clock, or with
// the simulated host clock of a device that has one (sim.Device):
//
//   - launch: back-to-back launches (each synchronous, as Device.Launch
//     is);
//   - launch + read-back: a launch, then the 4-byte counter copied back
//     (kernels.Download): one level of a host-driven BFS that reads its
//     frontier size;
//   - upload + launch + read-back: the counter zeroed by a 4-byte upload
//     first, the full pattern of a BFS level that resets its counter.
//
// Each row reports the median and mean host time per iteration and the
// median of the device's own time per launch (LaunchStats: event time on
// hardware, cycles or thread-instructions in simulation). Every pattern is
// validated through the counter: it equals the number of launches.
func LaunchOverhead(ctx context.Context, dev kernels.Device, n int, p Params) (*Table, error) {
	if n <= 0 {
		return nil, fmt.Errorf("launch_overhead: %d iterations: need at least 1", n)
	}
	k, err := kernels.Lookup("launch_increment")
	if err != nil {
		return nil, err
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	counter, err := kernels.Slice[uint32](mem, 1)
	if err != nil {
		return nil, err
	}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)} // one launch per call: the kernel is not idempotent
	warm := max(p.Warmup, 0)
	word := []uint32{0}
	launch := func() (kernels.LaunchStats, error) { return dev.Launch(ctx, k, cfg, counter) }
	readBack := func() (uint32, error) {
		err := kernels.Download(dev, word, counter)
		return word[0], err
	}
	zero := func() error { return kernels.Upload(dev, counter, []uint32{0}) }

	type pattern struct {
		name string
		// step runs iteration i (counting warm-up ones from 0) and checks
		// what it can see.
		step func(i int) (kernels.LaunchStats, error)
		// after checks the counter once all iterations have run.
		after func(launches int) error
		check string
	}
	patterns := []pattern{
		{
			name: "launch",
			step: func(int) (kernels.LaunchStats, error) { return launch() },
			after: func(launches int) error {
				got, err := readBack()
				if err != nil {
					return err
				}
				if got != uint32(launches) {
					return fmt.Errorf("counter %d after %d launches", got, launches)
				}
				return nil
			},
			check: "counter = launches at the end",
		},
		{
			name: "launch + read-back",
			step: func(i int) (kernels.LaunchStats, error) {
				s, err := launch()
				if err != nil {
					return s, err
				}
				got, err := readBack()
				if err == nil && got != uint32(i+1) {
					err = fmt.Errorf("counter %d after launch %d", got, i+1)
				}
				return s, err
			},
			check: "counter = launches after each",
		},
		{
			name: "upload + launch + read-back",
			step: func(i int) (kernels.LaunchStats, error) {
				if err := zero(); err != nil {
					return kernels.LaunchStats{}, err
				}
				s, err := launch()
				if err != nil {
					return s, err
				}
				got, err := readBack()
				if err == nil && got != 1 {
					err = fmt.Errorf("counter %d after zeroing and one launch (iteration %d)", got, i)
				}
				return s, err
			},
			check: "counter = 1 after each",
		},
	}

	t := &Table{Name: "launch_overhead", Device: dev.Properties().Name}
	measured := false // the device timed its launches itself (hardware)
	var unit string
	// A simulator with a host clock (sim.Device: the configuration's host:
	// figures plus each launch's simulated time) is timed by that clock,
	// so that its table compares with the GPU's; the simulator's own wall
	// time says nothing about the modelled machine.
	origin := time.Now()
	now := func() time.Duration { return time.Since(origin) } // monotonic
	simulatedHost := false
	if c, ok := dev.(interface{ HostClock() time.Duration }); ok {
		now, simulatedHost = c.HostClock, true
	}
	for _, pat := range patterns {
		if err := zero(); err != nil {
			return nil, err
		}
		host := make([]time.Duration, 0, n)
		stats := make([]kernels.LaunchStats, 0, n)
		for i := range warm + n {
			began := now()
			s, err := pat.step(i)
			took := now() - began
			if err != nil {
				return nil, fmt.Errorf("launch_overhead: %s: %w", pat.name, err)
			}
			if i >= warm {
				host = append(host, took)
				stats = append(stats, s)
			}
		}
		if pat.after != nil {
			if err := pat.after(warm + n); err != nil {
				return nil, fmt.Errorf("launch_overhead: %s: %w", pat.name, err)
			}
		}
		dm := medianStats(stats)
		measured = measured || len(dm.Samples) > 0
		unit = costUnit(dm)
		t.add(pat.name, n, kernels.Median(host), meanDuration(host), cost(dm), pat.check)
	}
	t.Columns = []string{"pattern", "iterations", "host median (µs)", "host mean (µs)", "device median (" + unit + ")", "validated"}
	clock := "the wall clock around each iteration on the calling goroutine"
	if simulatedHost {
		clock = "the simulated host clock around each iteration (the configuration's host: launch, sync and copy figures plus each launch's simulated time)"
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Host time: %s, %d timed iterations after %d untimed ones; the median and the mean per iteration.", clock, n, warm),
		"Device: the median of the launches' own cost (event time on hardware; the difference to the host time is what the host and the driver add).",
		"launch_increment runs one CTA of 32 threads; thread 0 adds 1 to a 4-byte counter, which every pattern checks.")
	if !measured && !simulatedHost {
		t.Notes = append(t.Notes, "This device has no host clock: the host time is its own wall time per iteration, not a model of launch overhead.")
	}
	return t, nil
}

// medianStats condenses per-launch stats into one with the median of each
// measure cost reads (Elapsed, Cycles, thread-instructions), keeping all
// event-timed samples.
func medianStats(all []kernels.LaunchStats) kernels.LaunchStats {
	var out kernels.LaunchStats
	elapsed := make([]time.Duration, 0, len(all))
	cycles := make([]uint64, 0, len(all))
	insts := make([]float64, 0, len(all))
	for _, s := range all {
		elapsed = append(elapsed, s.Elapsed)
		cycles = append(cycles, s.Cycles)
		if v, ok := s.Counters["thread_instructions"]; ok {
			insts = append(insts, v)
		}
		out.Samples = append(out.Samples, s.Samples...)
	}
	out.Elapsed = kernels.Median(elapsed)
	if len(cycles) > 0 {
		slices.Sort(cycles)
		out.Cycles = cycles[len(cycles)/2]
	}
	if len(insts) > 0 {
		slices.Sort(insts)
		out.Counters = map[string]float64{"thread_instructions": insts[len(insts)/2]}
	}
	return out
}

func meanDuration(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

// LaunchGridSizes are the grids of the launch-grid experiment, in CTAs:
// one, one per H100 SM, and 8, 32 and 128 per SM.
var LaunchGridSizes = []int{1, 132, 1056, 4224, 16896}

// LaunchGrid times one launch of launch_increment over a grid of grid CTAs
// of block threads: an empty kernel (only thread 0 of CTA 0 touches
// memory), so the event time is what the GPU pays to launch, dispatch and
// drain that grid. host.kernel_overhead_ns was measured with one CTA; the
// cross-check's per-launch fit asks whether a full grid costs more. The
// counter validates that every launch ran: it equals the launches made
// (p.Warmup untimed and one per timed sample on hardware, one in
// simulation).
func LaunchGrid(ctx context.Context, dev kernels.Device, grid, block int, p Params) (kernels.LaunchStats, error) {
	if grid < 1 || block < 1 {
		return kernels.LaunchStats{}, fmt.Errorf("launch_grid: %d CTAs of %d threads: need at least one of one", grid, block)
	}
	k, err := kernels.Lookup("launch_increment")
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	counter, err := kernels.Copy(mem, []uint32{0})
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	s, err := dev.Launch(ctx, k, p.launch(grid, block), counter)
	if err != nil {
		return s, fmt.Errorf("launch_grid: %w", err)
	}
	got := []uint32{0}
	if err := kernels.Download(dev, got, counter); err != nil {
		return s, err
	}
	want := 1
	if len(s.Samples) > 0 {
		want = max(p.Warmup, 0) + len(s.Samples)
	}
	if got[0] != uint32(want) {
		return s, fmt.Errorf("launch_grid: counter %d after %d launches of %d CTAs × %d threads (want %d)", got[0], want, grid, block, want)
	}
	return s, nil
}

func launchOverheadBenchmark() *Benchmark {
	return &Benchmark{
		Name:      "launch_overhead",
		Defaults:  map[Setting]PerTarget{Iterations: {HW: 2000, Sim: 10}},
		Help:      map[Setting]string{Iterations: "timed iterations per pattern (0: 2000 on hw, 10 in simulation); --warmup untimed ones go first (at least 100 on hw)"},
		WallClock: true,
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			p := s.timing()
			if !s.Simulated {
				p.Warmup = max(p.Warmup, 100) // first launches load the module and warm the driver's paths
			}
			return LaunchOverhead(ctx, dev, s.Iterations, p)
		},
	}
}
