package micro

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/warpgraph/warpgraph/kernels"
)

// LoadLatencyFootprints are the chains' sizes in bytes: 16 KB fits in any
// L1, so weak loads hit there; 2 MB exceeds every configuration's L1 and
// fits in every L2, so every timed load is an L2 hit.
var LoadLatencyFootprints = []int{16 << 10, 2 << 20}

// loadLatencyLine is the chain's spacing: one word per 128-byte line.
const loadLatencyLine = 128

// LoadLatency measures the round trip of one dependent global load, weak
// (ld.global) and strong (ld.volatile.global, the load spin loops poll
// with), on chains of the given footprints, with the load_latency kernel:
// one thread walks a random cyclic chain of lines once untimed and then
// again timed with %clock64 (p.Reps times round the chain: 0 or 1 is
// once). Cycles per load are the timed walk's cycles ÷ its loads (the loop's own integer instructions included, a few cycles
// per step). Every run is validated: the index the walk reached is the
// host's.
func LoadLatency(ctx context.Context, dev kernels.Device, footprints []int, p Params) (*Table, error) {
	k, err := kernels.Lookup("load_latency")
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "load_latency", Device: dev.Properties().Name,
		Columns: []string{"footprint (KB)", "load", "steps", "cycles per load", "validated"}}
	for _, fp := range footprints {
		lines := fp / loadLatencyLine
		if lines < 2 {
			return nil, fmt.Errorf("load_latency: footprint %d B holds fewer than two %d-byte lines", fp, loadLatencyLine)
		}
		chain, next := loadLatencyChain(lines)
		// A whole cycle untimed puts every line in L2, then a whole cycle
		// (p.Reps of them if more) is timed.
		steps := lines * max(p.Reps, 1)
		// The walk starts at index 0 and takes 2 × steps hops.
		want := uint32(0)
		for range 2 * steps {
			want = next[want]
		}
		for strong, kind := range []string{"weak (ld.global)", "strong (ld.volatile.global)"} {
			cycles, reached, err := runLoadLatency(ctx, dev, k, chain, steps, strong, p)
			if err != nil {
				return nil, fmt.Errorf("load_latency %d KB %s: %w", fp>>10, kind, err)
			}
			if wantWord := uint64(want) * loadLatencyLine / 4; reached != wantWord {
				return nil, fmt.Errorf("load_latency %d KB %s: the walk reached word %d, want %d", fp>>10, kind, reached, wantWord)
			}
			t.add(fp>>10, kind, steps, float64(cycles)/float64(steps), "walk ends where the host's does")
		}
	}
	if err := syncLatency(ctx, dev, t, p); err != nil {
		return nil, err
	}
	t.Notes = append(t.Notes,
		"Rows 'atomic round trip' and 'store + fence' (sync_latency): a chain of dependent atomicAdd on one word, and a volatile store followed by __threadfence(), the two halves of a grid barrier's round; footprint 0: one word.",
		"One thread chases a random cyclic chain with one word per 128-byte line, first untimed (the lines reach L2, and L1 when they fit and the loads are weak), then timed with %clock64.",
		"Cycles per load include the loop's few integer instructions per step. A 16 KB chain is an L1 hit for weak loads; 2 MB misses every L1 and hits L2. Strong loads bypass L1 at either size.")
	return t, nil
}

// loadLatencyChain builds a random cyclic chain over lines words spaced a
// line apart: chain[w] is the word index of the next hop, next[i] the same
// in line numbers. The order is fixed (seeded) so runs repeat.
func loadLatencyChain(lines int) (chain []uint32, next []uint32) {
	words := loadLatencyLine / 4
	order := rand.New(rand.NewPCG(1, uint64(lines))).Perm(lines)
	next = make([]uint32, lines)
	chain = make([]uint32, lines*words)
	for i, l := range order {
		to := order[(i+1)%lines]
		next[l] = uint32(to)
		chain[l*words] = uint32(to * words)
	}
	return chain, next
}

// syncSteps are sync_latency's timed iterations.
const syncSteps = 512

// syncLatency adds sync_latency's two rows to t: cycles per dependent
// atomic, and per volatile store + __threadfence().
func syncLatency(ctx context.Context, dev kernels.Device, t *Table, p Params) error {
	k, err := kernels.Lookup("sync_latency")
	if err != nil {
		return err
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	word, err := kernels.Slice[uint32](mem, 2)
	if err != nil {
		return err
	}
	out, err := kernels.Slice[uint64](mem, 1)
	if err != nil {
		return err
	}
	for kind, name := range []string{"atomic round trip (atomicAdd)", "store + fence (st.volatile, membar.gl)"} {
		want := [2]uint32{syncSteps + 1, 0}
		if kind == 1 {
			want = [2]uint32{0, syncSteps}
		}
		cycles, err := medianCycles(p, func() (uint64, error) {
			if err := kernels.Upload(dev, word, []uint32{0, 0}); err != nil {
				return 0, err
			}
			if _, err := dev.Launch(ctx, k, oneWarp, word, uint32(syncSteps), uint32(kind), out); err != nil {
				return 0, err
			}
			got := make([]uint32, 2)
			if err := kernels.Download(dev, got, word); err != nil {
				return 0, err
			}
			if [2]uint32(got) != want {
				return 0, fmt.Errorf("words %v, want %v", got, want)
			}
			c := make([]uint64, 1)
			err := kernels.Download(dev, c, out)
			return c[0], err
		})
		if err != nil {
			return fmt.Errorf("sync_latency %s: %w", name, err)
		}
		t.add(0, name, syncSteps, float64(cycles)/syncSteps, "final words exact")
	}
	return nil
}

func runLoadLatency(ctx context.Context, dev kernels.Device, k *kernels.Kernel, chain []uint32, steps, strong int, p Params) (cycles, reached uint64, err error) {
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	in, err := kernels.Copy(mem, chain)
	if err != nil {
		return 0, 0, err
	}
	out, err := kernels.Slice[uint64](mem, 2)
	if err != nil {
		return 0, 0, err
	}
	got := make([]uint64, 2)
	cycles, err = medianCycles(p, func() (uint64, error) {
		if _, err := dev.Launch(ctx, k, oneWarp, in, uint32(steps), uint32(strong), out); err != nil {
			return 0, err
		}
		err := kernels.Download(dev, got, out)
		return got[0], err
	})
	return cycles, got[1], err
}

// oneWarp is the launch of the one-thread probes.
var oneWarp = kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}

// medianCycles runs a probe p.Warmup untimed and p.Repeat (at least one)
// timed times, each run timing itself in cycles, and returns the median of
// the timed runs.
func medianCycles(p Params, run func() (uint64, error)) (uint64, error) {
	var samples []uint64
	for i := range max(p.Warmup, 0) + max(p.Repeat, 1) {
		c, err := run()
		if err != nil {
			return 0, err
		}
		if i >= max(p.Warmup, 0) {
			samples = append(samples, c)
		}
	}
	slices.Sort(samples)
	return samples[len(samples)/2], nil
}

func loadLatencyBenchmark() *Benchmark {
	return &Benchmark{
		Name: "load_latency",
		Help: map[Setting]string{Reps: "timed walks round each chain"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			p := s.timing()
			p.Reps = s.Reps
			return LoadLatency(ctx, dev, LoadLatencyFootprints, p)
		},
	}
}
