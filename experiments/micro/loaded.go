package micro

import (
	"context"
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/kernels"
)

// LoadedLatencyWarps are the chasing warps per CTA (one CTA per SM) that
// LoadedLatency loads the GPU with.
var LoadedLatencyWarps = []int{1, 4, 16, 32}

// loadedLatencyLines is the chain: 2 MB, one word per 128-byte line, so
// every timed load is an L2 hit however many warps chase.
const loadedLatencyLines = 16384

// LoadedLatency measures the strong-load round trip while the GPU is
// loaded with chases (kernels/load_latency.cu, loaded_latency): one CTA
// per SM, each of its warps' lane 0 walking the chain from a start of its
// own, p.Reps (0: 64) dependent volatile loads untimed and then the same
// path timed. The table gives, per warps per CTA, the cycles per load over
// the warps: minimum, median and maximum. Every walk is validated against
// the host's.
func LoadedLatency(ctx context.Context, dev kernels.Device, warps []int, p Params) (*Table, error) {
	k, err := kernels.Lookup("loaded_latency")
	if err != nil {
		return nil, err
	}
	steps := p.Reps
	if steps <= 0 {
		steps = 64
	}
	chain, next := loadLatencyChain(loadedLatencyLines)
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	in, err := kernels.Copy(mem, chain)
	if err != nil {
		return nil, err
	}
	ctas := dev.Properties().SMs
	t := &Table{Name: "loaded_latency", Device: dev.Properties().Name,
		Columns: []string{"warps per CTA", "chasing warps", "steps", "cycles per load (min)", "median", "max", "validated"}}
	for _, wpc := range warps {
		if wpc < 1 || wpc > 32 {
			return nil, fmt.Errorf("loaded_latency: %d warps per CTA: between 1 and 32", wpc)
		}
		n := ctas * wpc
		out, err := kernels.Slice[uint64](mem, 2*n)
		if err != nil {
			return nil, err
		}
		launch := kernels.LaunchConfig{Grid: kernels.D1(ctas), Block: kernels.D1(32 * wpc)}
		var perLoad []float64
		for run := range max(p.Warmup, 0) + max(p.Repeat, 1) {
			if _, err := dev.Launch(ctx, k, launch, in, uint32(loadedLatencyLines), uint32(steps), out); err != nil {
				return nil, fmt.Errorf("loaded_latency %d warps per CTA: %w", wpc, err)
			}
			got := make([]uint64, 2*n)
			if err := kernels.Download(dev, got, out); err != nil {
				return nil, err
			}
			for w := range n {
				line := uint32(w) * 2654435761 % loadedLatencyLines
				for range steps {
					line = next[line]
				}
				if got[2*w+1] != uint64(line)*loadLatencyLine/4 {
					return nil, fmt.Errorf("loaded_latency %d warps per CTA: warp %d reached word %d, want %d", wpc, w, got[2*w+1], uint64(line)*loadLatencyLine/4)
				}
				if run >= max(p.Warmup, 0) {
					perLoad = append(perLoad, float64(got[2*w])/float64(steps))
				}
			}
		}
		slices.Sort(perLoad)
		t.add(wpc, n, steps, perLoad[0], perLoad[len(perLoad)/2], perLoad[len(perLoad)-1], "every walk ends where the host's does")
	}
	t.Notes = append(t.Notes,
		"One CTA per SM; lane 0 of each of its warps chases a 2 MB chain of volatile loads (one word per line: L2 hits) from its own start, the same path first untimed, then timed with %clock64; cycles per load over every warp of every timed launch.",
		"With 1 warp per CTA the round trip is the unloaded one (load_latency's); more warps put more chases in flight on every SM and slice at once.")
	return t, nil
}
