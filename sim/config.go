package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Config describes a simulated GPU: the SM count and the per-SM limits
// that decide how many CTAs are co-resident, and the clock. (The timing
// model's latencies, caches and DRAM join it in the next issue, loaded from
// YAML; until then the configurations are built in.)
type Config struct {
	Name              string
	ComputeCapability [2]int
	SMs               int
	WarpSize          int

	MaxThreadsPerCTA int
	MaxThreadsPerSM  int
	MaxWarpsPerSM    int
	MaxCTAsPerSM     int

	RegistersPerSM        int
	RegistersPerCTA       int
	MaxRegistersPerThread int
	// RegisterAllocUnit: registers are allocated per warp in units of
	// this many (a warp of r registers per thread takes
	// roundup(32*r, RegisterAllocUnit)).
	RegisterAllocUnit int

	SharedMemPerSM int // bytes
	// SharedMemPerCTA is the default (non-opt-in) limit per CTA, the one a
	// launch is checked against; SharedMemPerCTAOptIn is the most a kernel
	// may opt into (reported, not used yet).
	SharedMemPerCTA      int
	SharedMemPerCTAOptIn int
	SharedMemAllocUnit   int
	// SharedMemReservedPerCTA is shared memory the system reserves for
	// each resident CTA (1 KB from compute capability 8.0).
	SharedMemReservedPerCTA int

	ClockMHz       int
	GlobalMemBytes uint64

	// AttrsGPU names the kernels/attrs table (measured registers and
	// occupancy) used for residency; "" or a missing table falls back to
	// the front end's register estimate.
	AttrsGPU string
}

// Validate checks that every limit is positive and consistent.
func (c Config) Validate() error {
	var errs []error
	pos := func(name string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", name, v))
		}
	}
	pos("SMs", c.SMs)
	pos("MaxThreadsPerCTA", c.MaxThreadsPerCTA)
	pos("MaxThreadsPerSM", c.MaxThreadsPerSM)
	pos("MaxWarpsPerSM", c.MaxWarpsPerSM)
	pos("MaxCTAsPerSM", c.MaxCTAsPerSM)
	pos("RegistersPerSM", c.RegistersPerSM)
	pos("RegistersPerCTA", c.RegistersPerCTA)
	pos("MaxRegistersPerThread", c.MaxRegistersPerThread)
	pos("RegisterAllocUnit", c.RegisterAllocUnit)
	pos("SharedMemPerSM", c.SharedMemPerSM)
	pos("SharedMemPerCTA", c.SharedMemPerCTA)
	pos("SharedMemAllocUnit", c.SharedMemAllocUnit)
	pos("ClockMHz", c.ClockMHz)
	if c.WarpSize != 32 {
		errs = append(errs, fmt.Errorf("WarpSize must be 32, got %d", c.WarpSize))
	}
	if c.SharedMemReservedPerCTA < 0 {
		errs = append(errs, fmt.Errorf("SharedMemReservedPerCTA must not be negative"))
	}
	if c.SharedMemPerCTA > c.SharedMemPerSM {
		errs = append(errs, fmt.Errorf("SharedMemPerCTA (%d) exceeds SharedMemPerSM (%d)", c.SharedMemPerCTA, c.SharedMemPerSM))
	}
	if c.SharedMemPerCTAOptIn != 0 && c.SharedMemPerCTAOptIn < c.SharedMemPerCTA {
		errs = append(errs, fmt.Errorf("SharedMemPerCTAOptIn (%d) is below SharedMemPerCTA (%d)", c.SharedMemPerCTAOptIn, c.SharedMemPerCTA))
	}
	if c.MaxThreadsPerCTA > c.MaxThreadsPerSM {
		errs = append(errs, fmt.Errorf("MaxThreadsPerCTA (%d) exceeds MaxThreadsPerSM (%d)", c.MaxThreadsPerCTA, c.MaxThreadsPerSM))
	}
	if c.MaxWarpsPerSM*32 < c.MaxThreadsPerSM {
		errs = append(errs, fmt.Errorf("MaxWarpsPerSM (%d) holds fewer than MaxThreadsPerSM (%d) threads", c.MaxWarpsPerSM, c.MaxThreadsPerSM))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("config %q: %w", c.Name, err)
	}
	return nil
}

// builtinConfigs are the named configurations. Sources:
//   - h100: NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022) and
//     the CUDA C++ Programming Guide, "Compute Capabilities" table for 9.0
//     (132 SMs on H100 SXM5, 64K 32-bit registers per SM, 255 per thread,
//     2048 threads, 64 warps and 32 CTAs per SM, 228 KB shared memory per
//     SM of which 227 KB per CTA by opt-in, 48 KB by default, 1 KB
//     reserved per CTA). Clock: 1755 MHz, the H100 boost clock of the
//     project brief — the PCIe card's; the 132-SM SXM5 part boosts to
//     1980 MHz. To be confirmed with nvidia-smi on the project's H100 (a
//     check on 2026-11-21 got an H200 instead, which reports 1980 MHz).
//   - v100: NVIDIA Tesla V100 GPU Architecture whitepaper (2017) and the
//     compute capability 7.0 table: 80 SMs, 64K registers, 2048 threads, 64
//     warps, 32 CTAs per SM, 96 KB shared memory per SM (48 KB per CTA by
//     default, 96 KB opt-in), 1530 MHz boost, 16 GB HBM2.
//   - gtx780ti: NVIDIA GeForce GTX 780 Ti (GK110B, compute capability
//     3.5; the WolfGraph GPU): 15 SMXs, 64K registers, 2048 threads, 64
//     warps and 16 CTAs per SMX, 48 KB shared memory per CTA and SMX (in
//     the 48/16 split), 928 MHz boost, 3 GB (Kepler GK110 whitepaper; CUDA
//     compute capability 3.5 table).
//   - tiny: not a real GPU: two small SMs so tests exercise residency
//     limits, CTA dispatch and barriers with few threads.
var builtinConfigs = map[string]Config{
	"h100": {
		Name: "h100", ComputeCapability: [2]int{9, 0}, SMs: 132, WarpSize: 32,
		MaxThreadsPerCTA: 1024, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxCTAsPerSM: 32,
		RegistersPerSM: 65536, RegistersPerCTA: 65536, MaxRegistersPerThread: 255, RegisterAllocUnit: 256,
		SharedMemPerSM: 228 << 10, SharedMemPerCTA: 48 << 10, SharedMemPerCTAOptIn: 227 << 10,
		SharedMemAllocUnit: 128, SharedMemReservedPerCTA: 1 << 10,
		ClockMHz: 1755, GlobalMemBytes: 80 << 30, AttrsGPU: "h100",
	},
	"v100": {
		Name: "v100", ComputeCapability: [2]int{7, 0}, SMs: 80, WarpSize: 32,
		MaxThreadsPerCTA: 1024, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxCTAsPerSM: 32,
		RegistersPerSM: 65536, RegistersPerCTA: 65536, MaxRegistersPerThread: 255, RegisterAllocUnit: 256,
		SharedMemPerSM: 96 << 10, SharedMemPerCTA: 48 << 10, SharedMemPerCTAOptIn: 96 << 10,
		SharedMemAllocUnit: 256,
		ClockMHz:           1530, GlobalMemBytes: 16 << 30, AttrsGPU: "v100",
	},
	"gtx780ti": {
		Name: "gtx780ti", ComputeCapability: [2]int{3, 5}, SMs: 15, WarpSize: 32,
		MaxThreadsPerCTA: 1024, MaxThreadsPerSM: 2048, MaxWarpsPerSM: 64, MaxCTAsPerSM: 16,
		RegistersPerSM: 65536, RegistersPerCTA: 65536, MaxRegistersPerThread: 255, RegisterAllocUnit: 256,
		SharedMemPerSM: 48 << 10, SharedMemPerCTA: 48 << 10, SharedMemPerCTAOptIn: 48 << 10,
		SharedMemAllocUnit: 256,
		ClockMHz:           928, GlobalMemBytes: 3 << 30, AttrsGPU: "gtx780ti",
	},
	"tiny": {
		Name: "tiny", ComputeCapability: [2]int{7, 0}, SMs: 2, WarpSize: 32,
		MaxThreadsPerCTA: 1024, MaxThreadsPerSM: 1024, MaxWarpsPerSM: 32, MaxCTAsPerSM: 4,
		RegistersPerSM: 32768, RegistersPerCTA: 32768, MaxRegistersPerThread: 255, RegisterAllocUnit: 256,
		SharedMemPerSM: 32 << 10, SharedMemPerCTA: 32 << 10, SharedMemPerCTAOptIn: 32 << 10,
		SharedMemAllocUnit: 128,
		ClockMHz:           1000, GlobalMemBytes: 1 << 30,
	},
}

// ConfigNames lists the built-in configurations, sorted.
func ConfigNames() []string {
	names := make([]string, 0, len(builtinConfigs))
	for n := range builtinConfigs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ConfigByName returns a built-in configuration; the error for an unknown
// name lists the known ones.
func ConfigByName(name string) (Config, error) {
	c, ok := builtinConfigs[name]
	if !ok {
		return Config{}, fmt.Errorf("no simulator configuration named %q; known: %s", name, strings.Join(ConfigNames(), ", "))
	}
	return c, nil
}
