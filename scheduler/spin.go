package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/warpgraph/warpgraph/kernels"
)

// The spin protocol on the host (kernels/README.md), and the grid
// barriers of kernels/lib/barrier.cuh that fused kernels cross.
//
// A kernel that waits for other CTAs ends its parameter list with
// `uint32_t spin_budget, int* abort_flag` (kernels.SpinParams). Spin owns
// the abort flag: it appends the budget and the flag to a launch's
// arguments and reads the flag back afterwards, so a wait that gave up
// becomes a *kernels.SpinBudgetError naming the kernel and its grid,
// never a silently wrong result.

// Spin launches kernels of the spin protocol with one budget and one abort
// flag in device memory, reused across launches (a scheduler that launches
// a fused kernel several times keeps one Spin).
type Spin struct {
	dev kernels.Device
	// Budget is the polls each wait may make before it gives up. 0 means
	// unbounded: only the simulator may run it (its deadlock detector ends
	// a hung launch); on hardware a grid that cannot be co-resident would
	// then hang the GPU.
	Budget uint32
	flag   kernels.DevPtr
	// raised: the flag may be set (an abort, or a launch that failed), so
	// it is zeroed before the next launch.
	raised bool
}

// NewSpin allocates a zeroed abort flag on dev.
func NewSpin(dev kernels.Device, budget uint32) (*Spin, error) {
	flag, err := kernels.AllocCopy(dev, []int32{0})
	if err != nil {
		return nil, fmt.Errorf("abort flag: %w", err)
	}
	return &Spin{dev: dev, Budget: budget, flag: flag}, nil
}

// Free releases the abort flag.
func (s *Spin) Free() error { return s.dev.Free(s.flag) }

// Launch runs k, whose last two parameters are spin_budget and abort_flag,
// with args for every parameter before them, then s.Budget and the abort
// flag. When a wait gave up (the flag is set after the launch) it returns
// the launch's statistics and a *kernels.SpinBudgetError naming the kernel,
// the grid and whether that grid could be co-resident; the kernel's other
// results are then meaningless. A launch error (a refused cooperative
// launch, a deadlock the simulator diagnosed) is returned as it is.
func (s *Spin) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	if err := s.check(k, args); err != nil {
		return stats, err
	}
	if err := s.clear(); err != nil {
		return stats, err
	}
	all := append(slices.Clip(args), s.Budget, s.flag)
	stats, err := s.dev.Launch(ctx, k, cfg, all...)
	s.raised = true
	if err != nil {
		return stats, err
	}
	gaveUp, err := s.gaveUpFlag(k)
	if err != nil {
		return stats, err
	}
	if gaveUp {
		return stats, &kernels.SpinBudgetError{Kernel: k.Name, Budget: s.Budget, Detail: s.gaveUp(k, cfg)}
	}
	s.raised = false
	return stats, nil
}

// check refuses a kernel outside the spin protocol and arguments that do
// not fill the parameters before spin_budget.
func (s *Spin) check(k *kernels.Kernel, args []any) error {
	_, flagIdx, ok := kernels.SpinParams(k)
	if !ok {
		return fmt.Errorf("kernel %s does not follow the spin protocol: its last parameters are not uint32_t spin_budget, int* abort_flag", k.Name)
	}
	if len(args) != flagIdx-1 {
		return fmt.Errorf("kernel %s: %d arguments before spin_budget, it takes %d", k.Name, len(args), flagIdx-1)
	}
	return nil
}

// clear zeroes a flag that may be raised.
func (s *Spin) clear() error {
	if !s.raised {
		return nil
	}
	if err := s.dev.Memset(s.flag, 0, 4); err != nil {
		return fmt.Errorf("clearing the abort flag: %w", err)
	}
	s.raised = false
	return nil
}

// gaveUpFlag reads the flag after a launch of k.
func (s *Spin) gaveUpFlag(k *kernels.Kernel) (bool, error) {
	flag := []int32{0}
	if err := kernels.Download(s.dev, flag, s.flag); err != nil {
		return false, fmt.Errorf("reading the abort flag of %s: %w", k.Name, err)
	}
	return flag[0] != 0, nil
}

// gaveUp explains an abort: a grid larger than what can be co-resident
// (the deadlock a grid barrier cannot escape), or a budget too small for a

// CoLaunchSpinning runs k on every device of ps at once (a co-launch),
// device d with args[d] and then spins[d]'s budget and abort flag. When a
// wait gave up on some device it returns the co-launch's statistics and a
// *kernels.SpinBudgetError naming that device.
func CoLaunchSpinning(ctx context.Context, ps kernels.PeerSystem, k *kernels.Kernel, cfg kernels.LaunchConfig, spins []*Spin, args [][]any) (kernels.LaunchStats, error) {
	var stats kernels.LaunchStats
	if len(spins) != len(args) {
		return stats, fmt.Errorf("co-launch of %s: %d abort flags for %d devices", k.Name, len(spins), len(args))
	}
	all := make([][]any, len(args))
	for d, s := range spins {
		if err := s.check(k, args[d]); err != nil {
			return stats, err
		}
		if err := s.clear(); err != nil {
			return stats, err
		}
		all[d] = append(slices.Clip(args[d]), s.Budget, s.flag)
	}
	stats, err := ps.CoLaunch(ctx, k, cfg, all)
	for _, s := range spins {
		s.raised = true
	}
	if err != nil {
		return stats, err
	}
	for d, s := range spins {
		gaveUp, err := s.gaveUpFlag(k)
		if err != nil {
			return stats, fmt.Errorf("device %d: %w", d, err)
		}
		if gaveUp {
			return stats, &kernels.SpinBudgetError{Kernel: k.Name, Budget: s.Budget, Detail: fmt.Sprintf("on device %d, %s", d, s.gaveUp(k, cfg))}
		}
		s.raised = false
	}
	return stats, nil
}

// grid that could have completed.
func (s *Spin) gaveUp(k *kernels.Kernel, cfg kernels.LaunchConfig) string {
	grid, block := cfg.Grid.Count(), cfg.Block.Count()
	msg := fmt.Sprintf("a wait gave up in a grid of %d CTAs of %d threads", grid, block)
	limit, err := CoResidentGrid(s.dev, k, block, cfg.DynamicSharedMem)
	switch {
	case err != nil:
		return msg + fmt.Sprintf(" (co-resident limit unknown: %v)", err)
	case grid > limit:
		return msg + fmt.Sprintf(": at most %d can be resident at once, so the CTAs that started waited for ones that could not start", limit)
	default:
		return msg + fmt.Sprintf(", all of which can be resident at once (limit %d): the budget was too small for a wait", limit)
	}
}

// spinOn is a Spin on dev with the run's budget, freed when the
// enactment ends.
func (e *Enactment) spinOn(dev kernels.Device) (*Spin, error) {
	spin, err := NewSpin(dev, e.Options.SpinBudget)
	if err != nil {
		return nil, err
	}
	e.cleanups = append(e.cleanups, func() { _ = spin.Free() })
	return spin, nil
}

// LaunchSpinning is Spin.Launch once, with a fresh abort flag: for one-off
// launches (microbenchmarks); schedulers keep a Spin.
func LaunchSpinning(ctx context.Context, dev kernels.Device, k *kernels.Kernel, cfg kernels.LaunchConfig, budget uint32, args ...any) (kernels.LaunchStats, error) {
	s, err := NewSpin(dev, budget)
	if err != nil {
		return kernels.LaunchStats{}, err
	}
	stats, err := s.Launch(ctx, k, cfg, args...)
	if ferr := s.Free(); err == nil && ferr != nil {
		err = fmt.Errorf("freeing the abort flag: %w", ferr)
	}
	return stats, err
}

// BarrierKinds are the grid barriers of kernels/lib/barrier.cuh, by the
// names variants and the command line use (WG_BARRIER_MONITOR, ...).
var BarrierKinds = []string{"monitor", "counter", "tree", "coop"}

// The state layout of kernels/lib/barrier.cuh.
const (
	barrierHeaderWords = 64 // word 0 the generation, then zero padding to 256 bytes
	barrierTreeFanIn   = 8
	barrierTreeStride  = 8 // words per tree node
)

// BarrierCooperative reports whether kind is meant for a cooperative launch
// (LaunchConfig.Cooperative: the driver refuses a grid that cannot be
// co-resident instead of letting it deadlock).
func BarrierCooperative(kind string) bool { return kind == "coop" }

func checkBarrierKind(kind string) error {
	if !slices.Contains(BarrierKinds, kind) {
		return fmt.Errorf("unknown grid barrier %q: use one of %s", kind, strings.Join(BarrierKinds, ", "))
	}
	return nil
}

// barrierTreeNodes is how many nodes the combining tree has for grid CTAs.
func barrierTreeNodes(grid int) int {
	total := 0
	for n := grid; ; {
		nodes := (n + barrierTreeFanIn - 1) / barrierTreeFanIn
		total += nodes
		if nodes <= 1 {
			return total
		}
		n = nodes
	}
}

// BarrierStateWords is the size, in uint32 words, of the state buffer of
// barrier kind for a grid of grid CTAs (kernels/lib/barrier.cuh documents
// the layout). The host allocates it zeroed; a launch that completes
// leaves it ready for the next launch of the same grid.
func BarrierStateWords(kind string, grid int) (int, error) {
	if err := checkBarrierKind(kind); err != nil {
		return 0, err
	}
	if grid < 1 {
		return 0, fmt.Errorf("grid barrier over %d CTAs", grid)
	}
	switch kind {
	case "monitor":
		return barrierHeaderWords + grid, nil
	case "tree":
		return barrierHeaderWords + barrierTreeStride*barrierTreeNodes(grid), nil
	default: // counter, coop: one word
		return barrierHeaderWords + 1, nil
	}
}

// CheckBarrierState checks a barrier's state after launches over grid
// CTAs that completed crossings barriers in all since it was zeroed: the
// generation word counts them (it stays 0 under coop, whose arrival word
// has bit 31 set after an odd number), and every arrival flag and counter
// is back at zero.
func CheckBarrierState(kind string, grid, crossings int, state []uint32) error {
	words, err := BarrierStateWords(kind, grid)
	if err != nil {
		return err
	}
	if len(state) != words {
		return fmt.Errorf("%s barrier state of %d words, want %d for %d CTAs", kind, len(state), words, grid)
	}
	want := make([]uint32, words)
	switch kind {
	case "coop":
		want[barrierHeaderWords] = uint32(crossings%2) << 31
	default:
		want[0] = uint32(crossings)
	}
	for i, w := range want {
		if state[i] != w {
			return fmt.Errorf("%s barrier state after %d crossings by %d CTAs: word %d (%s) is %#x, want %#x",
				kind, crossings, grid, i, barrierWordName(kind, i), state[i], w)
		}
	}
	return nil
}

// barrierWordName says what word i of a state buffer holds.
func barrierWordName(kind string, i int) string {
	switch {
	case i == 0:
		return "the generation"
	case i < barrierHeaderWords:
		return "padding"
	}
	j := i - barrierHeaderWords
	switch kind {
	case "monitor":
		return fmt.Sprintf("CTA %d's arrival flag", j)
	case "tree":
		if j%barrierTreeStride != 0 {
			return "padding"
		}
		return fmt.Sprintf("tree node %d", j/barrierTreeStride)
	case "coop":
		return "the arrival word"
	default:
		return "the arrival count"
	}
}
