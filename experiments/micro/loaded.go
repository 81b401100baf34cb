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

// loadedKinds are loaded_latency's operations, by its kind parameter.
var loadedKinds = []string{"volatile load (L2 hit)", "volatile store + __threadfence()", "atomicAdd on its own word"}

// LoadedLatency measures round trips while the GPU is loaded with them
// (kernels/load_latency.cu, loaded_latency): one CTA per SM, each of its
// warps' lane 0 timing p.Reps (0: 64) dependent operations of one kind:
// volatile loads walking the chain from a start of its own (the same path
// first untimed), volatile stores each followed by __threadfence(), or
// atomicAdd, the last two on a line of the warp's own. The table gives,
// per kind and warps per CTA, the cycles per operation over the warps:
// minimum, median and maximum. Every walk is validated against the host's
// and every store and atomic by its word's final value.
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
	for _, wpc := range warps {
		if wpc < 1 || wpc > 32 {
			return nil, fmt.Errorf("loaded_latency: %d warps per CTA: between 1 and 32", wpc)
		}
	}
	ctas := dev.Properties().SMs
	own, err := kernels.Slice[uint32](mem, 32*ctas*32) // a line per warp, 32 warps per CTA at most
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "loaded_latency", Device: dev.Properties().Name,
		Columns: []string{"operation", "warps per CTA", "warps", "steps", "cycles per operation (min)", "median", "max", "validated"}}
	for kind, name := range loadedKinds {
		for _, wpc := range warps {
			if err := loadedRow(ctx, dev, k, t, kind, name, wpc, ctas, steps, in, own, next, mem, p); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = append(t.Notes,
		"One CTA per SM; lane 0 of each of its warps works alone: a chase of a 2 MB chain of volatile loads (one word per line: L2 hits) from its own start, the same path first untimed, then timed; or volatile stores each followed by __threadfence(); or dependent atomicAdd; the last two on a line of the warp's own. Cycles per operation (%clock64) over every warp of every timed launch.",
		"With 1 warp per CTA the round trip is the unloaded one (load_latency's and sync_latency's); more warps put more operations in flight on every SM and slice at once.")
	return t, nil
}

// loadedRow runs one kind at one load level and adds its row.
func loadedRow(ctx context.Context, dev kernels.Device, k *kernels.Kernel, t *Table, kind int, name string, wpc, ctas, steps int,
	in, own kernels.DevPtr, next []uint32, mem *kernels.Allocations, p Params) error {
	n := ctas * wpc
	out, err := kernels.Slice[uint64](mem, 2*n)
	if err != nil {
		return err
	}
	buf, lines := in, loadedLatencyLines
	if kind > 0 {
		buf, lines = own, n
	}
	launch := kernels.LaunchConfig{Grid: kernels.D1(ctas), Block: kernels.D1(32 * wpc)}
	zero := make([]uint32, 32*n)
	var perOp []float64
	for run := range max(p.Warmup, 0) + max(p.Repeat, 1) {
		if kind > 0 {
			if err := kernels.Upload(dev, own, zero); err != nil {
				return err
			}
		}
		if _, err := dev.Launch(ctx, k, launch, buf, uint32(lines), uint32(steps), uint32(kind), out); err != nil {
			return fmt.Errorf("loaded_latency %s, %d warps per CTA: %w", name, wpc, err)
		}
		got := make([]uint64, 2*n)
		if err := kernels.Download(dev, got, out); err != nil {
			return err
		}
		words := make([]uint32, 32*n)
		if kind > 0 {
			if err := kernels.Download(dev, words, own); err != nil {
				return err
			}
		}
		for w := range n {
			want := uint64(steps) // kind 1: the last value stored
			switch kind {
			case 0:
				line := uint32(w) * 2654435761 % loadedLatencyLines
				for range steps {
					line = next[line]
				}
				want = uint64(line) * loadLatencyLine / 4
			case 2:
				want = uint64(steps - 1) // the last atomic's old value
			}
			if got[2*w+1] != want || (kind > 0 && words[32*w] != uint32(steps)) {
				return fmt.Errorf("loaded_latency %s, %d warps per CTA: warp %d ended at %d (word %d), want %d (word %d)",
					name, wpc, w, got[2*w+1], words[32*w], want, steps)
			}
			if run >= max(p.Warmup, 0) {
				perOp = append(perOp, float64(got[2*w])/float64(steps))
			}
		}
	}
	slices.Sort(perOp)
	check := "every walk ends where the host's does"
	if kind > 0 {
		check = "every word and result exact"
	}
	t.add(name, wpc, n, steps, perOp[0], perOp[len(perOp)/2], perOp[len(perOp)-1], check)
	return nil
}
