package micro

import (
	"context"
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/kernels"
)

// PartitionLatency's probe: 64 words 384 bytes apart (three lines, so
// consecutive words fall in different L2 slices under any interleave),
// from every eleventh SM.
const (
	PartitionWords       = 64
	partitionStrideWords = 96
	partitionSMStep      = 11
)

// PartitionProbe is one SM's round trips to the probed words, in cycles
// per operation: the medians over the timed launches, word by word.
type PartitionProbe struct {
	SM      int
	Loads   []float64 // dependent ld.volatile.global on the word
	Atomics []float64 // dependent atomicAdd on the word
}

// PartitionSMs are the SMs PartitionLatency probes on dev: 0, 11, 22, ...
func PartitionSMs(dev kernels.Device) []int {
	var sms []int
	for sm := 0; sm < dev.Properties().SMs; sm += partitionSMStep {
		sms = append(sms, sm)
	}
	return sms
}

// PartitionLatency times, from each SM of sms, a chain of p.Reps (0: 64)
// dependent volatile loads and then of as many dependent atomicAdd on each
// of PartitionWords words spread over the L2 (kernels/load_latency.cu,
// partition_latency). On a GPU whose L2 is split in partitions (A100,
// H100) an operation that must reach a line's home partition costs more
// from the SMs of the other half: the table gives, per SM, the spread of
// each kind and how the atomics split about the midpoint of all the
// atomics measured. Every launch is validated: the probing CTA ran on its
// SM and every probed word holds exactly its atomics.
func PartitionLatency(ctx context.Context, dev kernels.Device, sms []int, p Params) (*Table, []PartitionProbe, error) {
	k, err := kernels.Lookup("partition_latency")
	if err != nil {
		return nil, nil, err
	}
	steps := p.Reps
	if steps <= 0 {
		steps = 64
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	words, err := kernels.Slice[uint32](mem, PartitionWords*partitionStrideWords)
	if err != nil {
		return nil, nil, err
	}
	claim, err := kernels.Slice[uint32](mem, 1)
	if err != nil {
		return nil, nil, err
	}
	out, err := kernels.Slice[uint64](mem, 1+2*PartitionWords)
	if err != nil {
		return nil, nil, err
	}
	zero := make([]uint32, PartitionWords*partitionStrideWords)
	// A few CTAs per SM, so that every SM gets one however the GPU places
	// them; all but the claiming one return at once.
	launch := kernels.LaunchConfig{Grid: kernels.D1(4 * dev.Properties().SMs), Block: kernels.D1(32)}
	var probes []PartitionProbe
	for _, sm := range sms {
		if sm < 0 || sm >= dev.Properties().SMs {
			return nil, nil, fmt.Errorf("partition_latency: SM %d is not one of the device's %d", sm, dev.Properties().SMs)
		}
		var runs [][]uint64
		for i := range max(p.Warmup, 0) + max(p.Repeat, 1) {
			if err := kernels.Upload(dev, words, zero); err != nil {
				return nil, nil, err
			}
			if err := kernels.Upload(dev, claim, []uint32{0}); err != nil {
				return nil, nil, err
			}
			if _, err := dev.Launch(ctx, k, launch, words, uint32(PartitionWords), uint32(partitionStrideWords), uint32(steps), uint32(sm), claim, out); err != nil {
				return nil, nil, fmt.Errorf("partition_latency SM %d: %w", sm, err)
			}
			got := make([]uint64, 1+2*PartitionWords)
			if err := kernels.Download(dev, got, out); err != nil {
				return nil, nil, err
			}
			if got[0] != uint64(sm+1) {
				return nil, nil, fmt.Errorf("partition_latency SM %d: no CTA of the %d probed from it (out[0] = %d)", sm, launch.Grid.X, got[0])
			}
			w := make([]uint32, len(zero))
			if err := kernels.Download(dev, w, words); err != nil {
				return nil, nil, err
			}
			if err := firstMismatch(fmt.Sprintf("partition_latency SM %d", sm), w, func(i int) uint32 {
				if i%partitionStrideWords == 0 {
					return uint32(steps)
				}
				return 0
			}); err != nil {
				return nil, nil, err
			}
			if i >= max(p.Warmup, 0) {
				runs = append(runs, got[1:])
			}
		}
		probe := PartitionProbe{SM: sm}
		for wi := range PartitionWords {
			probe.Loads = append(probe.Loads, medianOf(runs, 2*wi)/float64(steps))
			probe.Atomics = append(probe.Atomics, medianOf(runs, 2*wi+1)/float64(steps))
		}
		probes = append(probes, probe)
	}
	return partitionTable(dev.Properties().Name, probes, steps), probes, nil
}

// medianOf is the median of column i over the runs.
func medianOf(runs [][]uint64, i int) float64 {
	col := make([]uint64, len(runs))
	for r, run := range runs {
		col[r] = run[i]
	}
	slices.Sort(col)
	return float64(col[len(col)/2])
}

// partitionTable summarises the probes: per SM the loads' and the
// atomics' minimum, median and maximum, and the atomics on each side of
// the midpoint between the fastest and the slowest atomic of all SMs.
func partitionTable(device string, probes []PartitionProbe, steps int) *Table {
	t := &Table{Name: "partition_latency", Device: device,
		Columns: []string{"sm", "words", "load min", "load median", "load max", "atomic min", "atomic median", "atomic max",
			"atomics near (≤ split)", "near mean", "atomics far", "far mean"}}
	lo, hi := 0.0, 0.0
	for i, pr := range probes {
		a := slices.Clone(pr.Atomics)
		slices.Sort(a)
		if i == 0 || a[0] < lo {
			lo = a[0]
		}
		hi = max(hi, a[len(a)-1])
	}
	split := (lo + hi) / 2
	for _, pr := range probes {
		l, a := slices.Clone(pr.Loads), slices.Clone(pr.Atomics)
		slices.Sort(l)
		slices.Sort(a)
		var near, far []float64
		for _, x := range pr.Atomics {
			if x <= split {
				near = append(near, x)
			} else {
				far = append(far, x)
			}
		}
		t.add(pr.SM, len(a), l[0], l[len(l)/2], l[len(l)-1], a[0], a[len(a)/2], a[len(a)-1],
			len(near), meanOrDash(near), len(far), meanOrDash(far))
	}
	t.Notes = append(t.Notes,
		fmt.Sprintf("Cycles per operation (%%clock64) of one thread's chain of %d dependent operations on each of %d words %d bytes apart, the median of the timed launches; loads are ld.volatile.global (L2), atomics atomicAdd.", steps, PartitionWords, 4*partitionStrideWords),
		fmt.Sprintf("Near and far split the atomics at %.0f cycles, midway between the fastest and the slowest of every SM: on a GPU with one L2 partition, or one the simulator models as one, the split means nothing and both sides are close.", split))
	return t
}

// meanOrDash is the mean of xs, or "-" when there are none.
func meanOrDash(xs []float64) any {
	if len(xs) == 0 {
		return "-"
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func partitionLatencyBenchmark() *Benchmark {
	return &Benchmark{
		Name: "partition_latency",
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			p := s.timing()
			p.Reps = s.Reps
			t, _, err := PartitionLatency(ctx, dev, PartitionSMs(dev), p)
			return t, err
		},
	}
}
