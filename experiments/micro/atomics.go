package micro

import (
	"context"
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/kernels"
)

// AtomicDegrees are the synchronisation degrees (threads per address) of
// WolfGraph's mini-benchmark.
var AtomicDegrees = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

// atomicThreads is the benchmark's CTA: 1024 threads. WolfGraph's geometry
// is one CTA (p.CTAs 0 or 1); AtomicCTAsFullGPU fills every SM.
const atomicThreads = 1024

// AtomicCTAsFullGPU is the grid that keeps every SM of dev full: two CTAs of
// 1024 threads per SM (2048 resident threads, the limit from compute
// capability 3.5 on), each CTA on its own slots. With one CTA the SM's
// issue rate bounds the global atomics; with every SM busy the L2 slices'
// atomic units do.
func AtomicCTAsFullGPU(dev kernels.Device) int { return 2 * dev.Properties().SMs }

// AtomicContention runs atomicMin into shared and into global memory at each
// synchronisation degree, in p.CTAs CTAs (0: one) each on its own slots,
// and checks every slot of every CTA against the host formula of
// kernels/atomic_contention.cu.
func AtomicContention(ctx context.Context, dev kernels.Device, degrees []int, p Params) (*Table, error) {
	ctas := max(p.CTAs, 1)
	shared, err := kernels.Lookup("atomic_contention_shared")
	if err != nil {
		return nil, err
	}
	global, err := kernels.Lookup("atomic_contention_global")
	if err != nil {
		return nil, err
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	out, err := kernels.Slice[uint32](mem, ctas*atomicThreads)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "atomic_contention", Device: dev.Properties().Name}
	for _, d := range degrees {
		if d < 1 || d > atomicThreads {
			return nil, fmt.Errorf("atomic_contention: degree %d is outside 1..%d", d, atomicThreads)
		}
		want := atomicExpected(d, p.Reps)
		var costs [2]kernels.LaunchStats
		for i, k := range []*kernels.Kernel{shared, global} {
			s, err := dev.Launch(ctx, k, p.launch(ctas, atomicThreads), out, uint32(d), uint32(p.Reps))
			if err != nil {
				return nil, fmt.Errorf("atomic_contention degree %d: %w", d, err)
			}
			// CTA b's slots are out[b*S : (b+1)*S], S = len(want).
			got := make([]uint32, ctas*len(want))
			if err := kernels.Download(dev, got, out); err != nil {
				return nil, err
			}
			if err := firstMismatch(k.Name, got, func(i int) uint32 { return want[i%len(want)] }); err != nil {
				return nil, fmt.Errorf("degree %d: %w", d, err)
			}
			costs[i] = s
		}
		_, simulated := costs[0].Counters["max_same_address_serialization_shared"]
		if t.Columns == nil {
			u := costUnit(costs[0])
			t.Columns = []string{"degree", "shared (" + u + ")", "global (" + u + ")", "global/shared"}
			if simulated {
				t.Columns = append(t.Columns, "worst serialisation shared/global")
			}
			t.Columns = append(t.Columns, "validated")
		}
		row := []any{d, cost(costs[0]), cost(costs[1]), ratio(costs[1], costs[0])}
		if simulated {
			row = append(row, fmt.Sprintf("%.0f/%.0f", costs[0].Counters["max_same_address_serialization_shared"],
				costs[1].Counters["max_same_address_serialization_global"]))
		}
		t.add(append(row, "all slots exact")...)
	}
	geometry := "1024 threads in one CTA"
	if ctas > 1 {
		geometry = fmt.Sprintf("%d CTAs of 1024 threads, each on its own slots", ctas)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%s, %d atomicMin per thread; degree = threads per address.", geometry, p.Reps))
	return t, nil
}

// atomicExpected is the final content of the slots of one CTA: the minimum
// of v(t, r) = t ^ (r * 0x9E3779B9) over the d threads of each slot.
func atomicExpected(d, reps int) []uint32 {
	slots := (atomicThreads + d - 1) / d
	want := make([]uint32, slots)
	for a := range want {
		want[a] = 0xFFFFFFFF
	}
	for t := 0; t < atomicThreads; t++ {
		a := t / d
		for r := 0; r < reps; r++ {
			if v := uint32(t) ^ (uint32(r) * 0x9E3779B9); v < want[a] {
				want[a] = v
			}
		}
	}
	return want
}

// ratio divides two launch costs in the unit they share.
func ratio(num, den kernels.LaunchStats) string {
	var n, d float64
	switch {
	case num.Elapsed > 0 && den.Elapsed > 0:
		n, d = float64(num.Elapsed), float64(den.Elapsed)
	case num.Cycles > 0 && den.Cycles > 0:
		n, d = float64(num.Cycles), float64(den.Cycles)
	default:
		return "-"
	}
	return fmt.Sprintf("%.2f", n/d)
}

// AtomicSpreadStrides are the byte distances between the CTAs' words in
// atomic_spread: from one sector to 64 KB, enough to show the granule and
// the hashing of the L2's address-to-slice mapping.
var AtomicSpreadStrides = []int{4, 32, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536}

// AtomicSpread runs atomic_spread: ctas CTAs of 1024 threads, CTA b
// hammering the word at b × stride bytes with reps atomicMin per thread,
// once per stride. Every CTA's word is checked against the host formula.
func AtomicSpread(ctx context.Context, dev kernels.Device, strides []int, ctas int, p Params) (*Table, error) {
	k, err := kernels.Lookup("atomic_spread")
	if err != nil {
		return nil, err
	}
	if ctas < 1 {
		return nil, fmt.Errorf("atomic_spread: %d CTAs: need at least 1", ctas)
	}
	// Every thread of a CTA shares its word: degree atomicThreads, one slot.
	want := atomicExpected(atomicThreads, p.Reps)[0]
	t := &Table{Name: "atomic_spread", Device: dev.Properties().Name}
	for _, stride := range strides {
		if stride < 4 || stride%4 != 0 {
			return nil, fmt.Errorf("atomic_spread: stride %d B is not a positive multiple of 4", stride)
		}
		words := stride / 4
		s, err := func() (kernels.LaunchStats, error) {
			mem := kernels.NewAllocations(dev)
			defer mem.FreeAll()
			out, err := kernels.Slice[uint32](mem, (ctas-1)*words+1)
			if err != nil {
				return kernels.LaunchStats{}, err
			}
			s, err := dev.Launch(ctx, k, p.launch(ctas, atomicThreads), out, uint32(words), uint32(p.Reps))
			if err != nil {
				return s, err
			}
			got := make([]uint32, (ctas-1)*words+1)
			if err := kernels.Download(dev, got, out); err != nil {
				return s, err
			}
			for b := range ctas {
				if g := got[b*words]; g != want {
					return s, fmt.Errorf("CTA %d's word is %d, want %d", b, g, want)
				}
			}
			return s, nil
		}()
		if err != nil {
			return nil, fmt.Errorf("atomic_spread stride %d: %w", stride, err)
		}
		if t.Columns == nil {
			t.Columns = []string{"stride (B)", "time (" + costUnit(s) + ")", "validated"}
		}
		t.add(stride, cost(s), "every CTA's word exact")
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d CTAs of 1024 threads; CTA b's threads do %d atomicMin each on the word at b × stride: "+
		"the time follows how many of the CTAs' words share an L2 slice.", ctas, p.Reps))
	return t, nil
}

// SharedAddMaxReps is the most adds per thread SharedAdd takes: a slot's
// sum (at most 1024 × reps) stays below 2^24, exact as a float.
const SharedAddMaxReps = (1<<24 - 1) / atomicThreads

// SharedAdd runs atomic_add_shared at each synchronisation degree: every
// thread of p.CTAs CTAs (0: one) of 1024 threads adds 1, p.Reps times, to
// slot t / degree of its CTA's shared array, once as uint32 and once as
// float (edge-centric PageRank's shared cache adds floats). Every slot of
// every CTA is checked: degree × reps, as an integer or as a float.
func SharedAdd(ctx context.Context, dev kernels.Device, degrees []int, p Params) (*Table, error) {
	k, err := kernels.Lookup("atomic_add_shared")
	if err != nil {
		return nil, err
	}
	ctas := max(p.CTAs, 1)
	if p.Reps <= 0 || p.Reps > SharedAddMaxReps {
		return nil, fmt.Errorf("atomic_add_shared: %d adds per thread: between 1 and %d, so every sum is exact as a float", p.Reps, SharedAddMaxReps)
	}
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()
	out, err := kernels.Slice[uint32](mem, ctas*atomicThreads)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "shared_add", Device: dev.Properties().Name}
	for _, d := range degrees {
		if d < 1 || d > atomicThreads {
			return nil, fmt.Errorf("shared_add: degree %d is outside 1..%d", d, atomicThreads)
		}
		slots := (atomicThreads + d - 1) / d
		var costs [2]kernels.LaunchStats
		for kind := range costs {
			s, err := dev.Launch(ctx, k, p.launch(ctas, atomicThreads), out, uint32(d), uint32(p.Reps), uint32(kind))
			if err != nil {
				return nil, fmt.Errorf("shared_add degree %d: %w", d, err)
			}
			got := make([]uint32, ctas*slots)
			if err := kernels.Download(dev, got, out); err != nil {
				return nil, err
			}
			want := func(i int) uint32 {
				a := i % slots
				n := uint32(min(d, atomicThreads-a*d) * p.Reps)
				if kind == 1 {
					return math.Float32bits(float32(n))
				}
				return n
			}
			if err := firstMismatch([]string{"uint32 add", "float add"}[kind], got, want); err != nil {
				return nil, fmt.Errorf("shared_add degree %d: %w", d, err)
			}
			costs[kind] = s
		}
		if t.Columns == nil {
			u := costUnit(costs[0])
			t.Columns = []string{"degree", "uint32 add (" + u + ")", "float add (" + u + ")", "float/uint32", "validated"}
		}
		t.add(d, cost(costs[0]), cost(costs[1]), ratio(costs[1], costs[0]), "all slots exact")
	}
	geometry := "1024 threads in one CTA"
	if ctas > 1 {
		geometry = fmt.Sprintf("%d CTAs of 1024 threads, each on its own slots", ctas)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%s, %d shared-memory atomicAdd of 1 per thread, as uint32 and as float; degree = threads per address.", geometry, p.Reps))
	return t, nil
}

// atomicCTAsHelp is what --ctas means to the atomic sweeps of one CTA
// by default.
const atomicCTAsHelp = "CTAs of 1024 threads, each on its own slots (1: WolfGraph's one CTA; 0: two per SM, every SM full)"

// atomicGrid is the CTAs of a sweep whose 0 fills the GPU.
func atomicGrid(dev kernels.Device, ctas int) int {
	if ctas == 0 {
		return AtomicCTAsFullGPU(dev)
	}
	return ctas
}

func atomicContentionBenchmark() *Benchmark {
	return atomicDegreesBenchmark("atomic_contention", nil, AtomicContention)
}

func sharedAddBenchmark() *Benchmark {
	return atomicDegreesBenchmark("shared_add", func(s Settings) error {
		if s.Reps > SharedAddMaxReps {
			return settingError("--reps %d: shared_add adds at most %d times per thread, so that every slot's sum is exact as a float", s.Reps, SharedAddMaxReps)
		}
		return nil
	}, SharedAdd)
}

// atomicDegreesBenchmark is a benchmark over AtomicDegrees on CTAs of
// their own slots (--ctas), whose settings check may refuse.
func atomicDegreesBenchmark(name string, check func(Settings) error,
	measure func(context.Context, kernels.Device, []int, Params) (*Table, error)) *Benchmark {
	return &Benchmark{
		Name:     name,
		Defaults: map[Setting]PerTarget{Reps: {HW: 256, Sim: 8}},
		Help:     map[Setting]string{CTAs: atomicCTAsHelp},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			if check != nil {
				if err := check(s); err != nil {
					return nil, err
				}
			}
			p := s.timing()
			p.Reps, p.CTAs = s.Reps, atomicGrid(dev, s.CTAs)
			return measure(ctx, dev, AtomicDegrees, p)
		},
	}
}

func atomicSpreadBenchmark() *Benchmark {
	return &Benchmark{
		Name:     "atomic_spread",
		Defaults: map[Setting]PerTarget{Reps: {HW: 8, Sim: 2}},
		Help:     map[Setting]string{CTAs: "its CTAs (0 or 1: every SM full)"},
		run: func(ctx context.Context, dev kernels.Device, s Settings) (*Table, error) {
			ctas := s.CTAs
			if ctas <= 1 { // one CTA has no spread: the default fills the GPU
				ctas = AtomicCTAsFullGPU(dev)
			}
			p := s.timing()
			p.Reps = s.Reps
			return AtomicSpread(ctx, dev, AtomicSpreadStrides, ctas, p)
		},
	}
}
