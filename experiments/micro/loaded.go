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
var loadedKinds = []string{"volatile load (L2 hit)", "volatile store + __threadfence()", "atomicAdd on its own word",
	"volatile gather, 32 lanes (L2 hits)", "weak gather, 32 lanes (through L1)",
	"store + __threadfence() beside atomic gathers"}

// loadedFenceBesideAtomics is the kind whose warp 0 fences while the
// CTA's other warps chase the chain with atomics.
const loadedFenceBesideAtomics = 5

// loadedGather reports whether loaded_latency's kind is a gather: every lane
// walks the chain, not lane 0 alone.
func loadedGather(kind int) bool { return kind == 3 || kind == 4 }

// loadedOwnLine reports whether loaded_latency's kind works on a line of
// the warp's own (the stores with fences and the atomics), which the
// driver zeroes before each launch and checks after it.
func loadedOwnLine(kind int) bool { return kind == 1 || kind == 2 }

// LoadedLatency measures round trips while the GPU is loaded with them
// (kernels/load_latency.cu, loaded_latency): one CTA per SM, each of its
// warps' lane 0 timing p.Reps (0: 64) dependent operations of one kind:
// volatile loads walking the chain from a start of its own (the same path
// first untimed), volatile stores each followed by __threadfence(), or
// atomicAdd, the last two on a line of the warp's own; or all 32 lanes
// walking the chain, each from its own start, with volatile or with weak
// loads (a gather: every warp-load asks for 32 lines); or warp 0's fences
// timed while the CTA's other warps chase the chain with atomics
// (atomicAdd of 0 at each hop: scattered read-modify-writes, as a graph
// kernel's relaxations are, beside the fences of its pushes). The table gives,
// per kind and warps per CTA, the cycles per operation over the warps:
// minimum, median and maximum. Every walk is validated against the host's
// and every store and atomic by its word's final value.
//
// p.CTAs above 1 launches that many CTAs instead of one per SM.
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
	if p.CTAs > 1 { // fewer SMs loaded: does a throughput limit belong to each SM or to the L2?
		if p.CTAs > ctas {
			return nil, fmt.Errorf("loaded_latency: %d CTAs: at most one per SM (%d)", p.CTAs, ctas)
		}
		ctas = p.CTAs
	}
	own, err := kernels.Slice[uint32](mem, 32*ctas*32) // a line per warp, 32 warps per CTA at most
	if err != nil {
		return nil, err
	}
	// Kind 5's buffer: the chain, then a line per warp for the fencing
	// warps' stores.
	fenced, err := kernels.Copy(mem, append(slices.Clone(chain), make([]uint32, 32*ctas*32)...))
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "loaded_latency", Device: dev.Properties().Name,
		Columns: []string{"operation", "warps per CTA", "warps", "steps", "cycles per operation (min)", "median", "max", "operations per SM-cycle", "validated"}}
	for kind, name := range loadedKinds {
		for _, wpc := range warps {
			if err := loadedRow(ctx, dev, k, t, kind, name, wpc, ctas, steps, loadedBuffers{in, own, fenced}, next, mem, p); err != nil {
				return nil, err
			}
		}
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("%d CTAs (one per SM of %d); lane 0 of each of its warps works alone: a chase of a 2 MB chain of volatile loads (one word per line: L2 hits) from its own start, the same path first untimed, then timed; or volatile stores each followed by __threadfence(); or dependent atomicAdd; the last two on a line of the warp's own. Cycles per operation (%%clock64) over every warp of every timed launch.", ctas, dev.Properties().SMs),
		"With 1 warp per CTA the round trip is the unloaded one (load_latency's and sync_latency's); more warps put more operations in flight on every SM and slice at once.",
		"The gathers: all 32 lanes of every warp walk the chain, each from its own start, so every warp-load asks for 32 lines, as a neighbour gather does; volatile loads (L2 hits: the timed path was walked untimed first) or weak loads (through L1: the untimed walk was volatile, so L1 holds only what other weak walks brought). Cycles per warp-load, lane 0's clock.",
		"Operations per SM-cycle: the operations (a gather's lane loads count one each) of a CTA's warps over its span, from the first warp's timed start to the last one's end (median over CTAs and launches): throughput, where a median round trip can hide warps served one after another.",
		"Fences beside atomic gathers: warp 0 of each CTA times the stores and fences while every lane of the CTA's other warps (warps per CTA - 1 of them; none at 1) chases the chain with atomicAdd(word, 0) until warp 0 is done: cycles per fenced store are warp 0's; operations per SM-cycle are the gathers' lane atomics over warp 0's timed span. Every walk is checked after the hops it reports.")
	return t, nil
}

// loadedBuffers are loaded_latency's device buffers: the chain, a line per
// warp (kinds 1 and 2), and the chain followed by a line per warp (kind 5).
type loadedBuffers struct{ chain, own, fenced kernels.DevPtr }

// loadedRow runs one kind at one load level and adds its row.
func loadedRow(ctx context.Context, dev kernels.Device, k *kernels.Kernel, t *Table, kind int, name string, wpc, ctas, steps int,
	bufs loadedBuffers, next []uint32, mem *kernels.Allocations, p Params) error {
	n := ctas * wpc
	out, err := kernels.Slice[uint64](mem, 3*n)
	if err != nil {
		return err
	}
	buf, lines := bufs.chain, loadedLatencyLines
	switch {
	case loadedOwnLine(kind):
		buf, lines = bufs.own, n
	case kind == loadedFenceBesideAtomics:
		buf = bufs.fenced
	}
	launch := kernels.LaunchConfig{Grid: kernels.D1(ctas), Block: kernels.D1(32 * wpc)}
	zero := make([]uint32, 32*n)
	var perOp, rates []float64
	lanes := 1
	if loadedGather(kind) {
		lanes = 32
	}
	for run := range max(p.Warmup, 0) + max(p.Repeat, 1) {
		switch {
		case loadedOwnLine(kind):
			if err := kernels.Upload(dev, bufs.own, zero); err != nil {
				return err
			}
		case kind == loadedFenceBesideAtomics: // the stores' lines, after the chain
			if err := kernels.Upload(dev, bufs.fenced+kernels.DevPtr(4*32*loadedLatencyLines), zero); err != nil {
				return err
			}
		}
		if _, err := dev.Launch(ctx, k, launch, buf, uint32(lines), uint32(steps), uint32(kind), out); err != nil {
			return fmt.Errorf("loaded_latency %s, %d warps per CTA: %w", name, wpc, err)
		}
		got := make([]uint64, 3*n)
		if err := kernels.Download(dev, got, out); err != nil {
			return err
		}
		words := make([]uint32, 32*n)
		if loadedOwnLine(kind) {
			if err := kernels.Download(dev, words, bufs.own); err != nil {
				return err
			}
		}
		if kind == loadedFenceBesideAtomics {
			fencedOps, r, err := loadedFenceRun(dev, got, bufs.fenced, next, n, wpc, steps)
			if err != nil {
				return fmt.Errorf("loaded_latency %s, %d warps per CTA: %w", name, wpc, err)
			}
			if run >= max(p.Warmup, 0) {
				perOp = append(perOp, fencedOps...)
				rates = append(rates, r...)
			}
			continue
		}
		for w := range n {
			want := uint64(steps) // kind 1: the last value stored
			switch {
			case kind == 0:
				want = uint64(loadedWalk(next, uint32(w), steps))
			case kind == 2:
				want = uint64(steps - 1) // the last atomic's old value
			case loadedGather(kind):
				var sum uint32
				for lane := range uint32(32) {
					sum += loadedWalk(next, uint32(w)*32+lane, steps)
				}
				want = uint64(sum)
			}
			if got[3*w+1] != want || (loadedOwnLine(kind) && words[32*w] != uint32(steps)) {
				return fmt.Errorf("loaded_latency %s, %d warps per CTA: warp %d ended at %d (word %d), want %d (word %d)",
					name, wpc, w, got[3*w+1], words[32*w], want, steps)
			}
			if run >= max(p.Warmup, 0) {
				perOp = append(perOp, float64(got[3*w])/float64(steps))
			}
		}
		if run >= max(p.Warmup, 0) {
			for cta := range ctas {
				rates = append(rates, float64(wpc*lanes*steps)/float64(ctaSpan(got[3*cta*wpc:3*(cta+1)*wpc])))
			}
		}
	}
	slices.Sort(perOp)
	slices.Sort(rates)
	check := "every walk ends where the host's does"
	switch {
	case loadedOwnLine(kind):
		check = "every word and result exact"
	case kind == loadedFenceBesideAtomics:
		check = "every word exact, every walk ends where the host's does"
	}
	t.add(name, wpc, n, steps, perOp[0], perOp[len(perOp)/2], perOp[len(perOp)-1], rates[len(rates)/2], check)
	return nil
}

// loadedWalk is the word index where loaded_latency's walk number start
// (a warp's for kind 0, a thread's for the gathers) ends after steps hops.
func loadedWalk(next []uint32, start uint32, steps int) uint32 {
	line := start * 2654435761 % loadedLatencyLines
	for range steps {
		line = next[line]
	}
	return line * loadLatencyLine / 4
}

// ctaSpan is the cycles from the first of a CTA's warps starting its timed
// part to the last one ending it (out words 3 per warp: cycles, check,
// start; one SM's clock, so comparable).
func ctaSpan(out []uint64) uint64 {
	first, last := out[2], out[2]+out[0]
	for w := 0; w < len(out); w += 3 {
		first = min(first, out[w+2])
		last = max(last, out[w+2]+out[w])
	}
	return max(last-first, 1)
}

// loadedFenceRun checks one launch of kind 5 (warp 0 of each CTA fences,
// the others chase with atomics) and returns warp 0's cycles per fenced
// store, and per CTA the chasers' lane atomics per cycle of warp 0's span.
func loadedFenceRun(dev kernels.Device, got []uint64, lines kernels.DevPtr, next []uint32, n, wpc, steps int) (fenced, rates []float64, err error) {
	words := make([]uint32, 32*(loadedLatencyLines+n))
	if err := kernels.Download(dev, words, lines); err != nil {
		return nil, nil, err
	}
	for cta := range n / wpc {
		w0 := cta * wpc
		if got[3*w0+1] != uint64(steps) || words[32*(loadedLatencyLines+w0)] != uint32(steps) {
			return nil, nil, fmt.Errorf("CTA %d's fencing warp stored %d (word %d), want %d", cta, got[3*w0+1], words[32*(loadedLatencyLines+w0)], steps)
		}
		var atomics uint64
		for w := w0 + 1; w < w0+wpc; w++ {
			hops := int(got[3*w])
			if hops < 1 || hops > 64*steps {
				return nil, nil, fmt.Errorf("warp %d made %d hops: between 1 and %d", w, hops, 64*steps)
			}
			var sum uint32
			for lane := range uint32(32) {
				sum += loadedWalk(next, uint32(w)*32+lane, hops)
			}
			if got[3*w+1] != uint64(sum) {
				return nil, nil, fmt.Errorf("warp %d's walks ended at %d after %d hops, want %d", w, got[3*w+1], hops, sum)
			}
			atomics += 32 * uint64(hops)
		}
		fenced = append(fenced, float64(got[3*w0])/float64(steps))
		rates = append(rates, float64(atomics)/float64(max(got[3*w0], 1)))
	}
	return fenced, rates, nil
}

func loadedLatencyBenchmark() *Benchmark {
	return &Benchmark{
		Name: "loaded_latency",
		Help: map[Setting]string{CTAs: "its CTAs, one per SM (0 or 1: every SM)"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			if sms := dev.Properties().SMs; s.CTAs > sms {
				return nil, settingError("--ctas %d: loaded_latency runs at most one CTA per SM (%d)", s.CTAs, sms)
			}
			p := s.timing()
			p.Reps, p.CTAs = s.Reps, s.CTAs
			return LoadedLatency(ctx, dev, LoadedLatencyWarps, p)
		},
	}
}
