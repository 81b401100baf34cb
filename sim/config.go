package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/warpgraph/warpgraph/sim/exec"
	"slices"
	"strings"

	"github.com/warpgraph/warpgraph/sim/memsys"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// Config describes a simulated GPU: the SM count and the per-SM limits
// that decide how many CTAs are co-resident, the clock, and (for timing
// mode) the SMs' timing and the memory system. The YAML files of
// sim/configs fill it; the field tags are their keys.
type Config struct {
	Name string `yaml:"name"`
	// ComputeCapability also selects the warp scheduling model: 7.0 and
	// later schedule a warp's threads independently (Volta), earlier ones
	// reconverge on the pre-Volta stack alone (exec.Launch.IndependentThreads).
	ComputeCapability [2]int `yaml:"compute_capability"`
	SMs               int    `yaml:"sms"`
	WarpSize          int    `yaml:"warp_size"`

	MaxThreadsPerCTA int `yaml:"max_threads_per_cta"`
	MaxThreadsPerSM  int `yaml:"max_threads_per_sm"`
	MaxWarpsPerSM    int `yaml:"max_warps_per_sm"`
	MaxCTAsPerSM     int `yaml:"max_ctas_per_sm"`

	RegistersPerSM        int `yaml:"registers_per_sm"`
	RegistersPerCTA       int `yaml:"registers_per_cta"`
	MaxRegistersPerThread int `yaml:"max_registers_per_thread"`
	// RegisterAllocUnit: registers are allocated per warp in units of
	// this many (a warp of r registers per thread takes
	// roundup(32*r, RegisterAllocUnit)).
	RegisterAllocUnit int `yaml:"register_alloc_unit"`

	SharedMemPerSM int `yaml:"shared_mem_per_sm"` // bytes
	// SharedMemPerCTA is the default (non-opt-in) limit per CTA, the one a
	// launch is checked against; SharedMemPerCTAOptIn is the most a kernel
	// may opt into (reported, not used yet).
	SharedMemPerCTA      int `yaml:"shared_mem_per_cta"`
	SharedMemPerCTAOptIn int `yaml:"shared_mem_per_cta_opt_in"`
	SharedMemAllocUnit   int `yaml:"shared_mem_alloc_unit"`
	// SharedMemReservedPerCTA is shared memory the system reserves for
	// each resident CTA (1 KB from compute capability 8.0).
	SharedMemReservedPerCTA int `yaml:"shared_mem_reserved_per_cta"`

	ClockMHz       int    `yaml:"clock_mhz"`
	GlobalMemBytes uint64 `yaml:"global_mem_bytes"`

	// AttrsGPU names the kernels/attrs table (measured registers and
	// occupancy) used for residency; "" or a missing table falls back to
	// the front end's register estimate.
	AttrsGPU string `yaml:"attrs_gpu"`

	// SM is the timing of one SM (warp schedulers, latencies per
	// instruction class, shared memory banks and atomics, load/store unit,
	// deadlock window): see timing.SMConfig. Used in timing mode only.
	SM timing.SMConfig `yaml:"sm"`
	// Memory is the timing of the global memory system (L1, L2 slices,
	// DRAM, atomic units): see memsys.Config. Used in timing mode only.
	Memory memsys.Config `yaml:"memory"`
	// Host is what the host pays per launch, copy and memset, which the
	// device's simulated host clock (Device.HostClock) adds up: see
	// HostConfig. Used in both modes.
	Host HostConfig `yaml:"host"`
	// System is the optional `system:` section: how many GPUs of this
	// configuration a System (OpenSystem) may join and the link between
	// them (see SystemConfig). Leaving it out means a single GPU with no
	// link. Left out, it is also absent from the YAML a configuration
	// marshals to and from the JSON behind Digest, so configurations
	// without it keep their digests.
	System SystemConfig `yaml:"system,omitempty" json:",omitzero" config:"optional"`
}

// Validate checks that every limit is positive and consistent, and within
// what the timing model and the memory system can build.
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
	// The timing model's and the memory system's own limits, checked here
	// too so that a configuration fails when it is read, in either mode,
	// rather than at the first timing launch.
	if most := c.Memory.MaxSMs(); most > 0 && c.SMs > most {
		errs = append(errs, fmt.Errorf("SMs (%d) exceeds %d, the most that memory.coherence %q supports", c.SMs, most, c.Memory.Coherence))
	} else if c.SMs > timing.MaxSMs {
		errs = append(errs, fmt.Errorf("SMs (%d) exceeds %d, the most the timing model holds", c.SMs, timing.MaxSMs))
	}
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
	if c.MaxThreadsPerCTA > exec.MaxThreadsPerCTA {
		errs = append(errs, fmt.Errorf("MaxThreadsPerCTA (%d) exceeds %d, the most a block holds", c.MaxThreadsPerCTA, exec.MaxThreadsPerCTA))
	}
	if c.MaxThreadsPerCTA > c.MaxThreadsPerSM {
		errs = append(errs, fmt.Errorf("MaxThreadsPerCTA (%d) exceeds MaxThreadsPerSM (%d)", c.MaxThreadsPerCTA, c.MaxThreadsPerSM))
	}
	if c.MaxWarpsPerSM*32 < c.MaxThreadsPerSM {
		errs = append(errs, fmt.Errorf("MaxWarpsPerSM (%d) holds fewer than MaxThreadsPerSM (%d) threads", c.MaxWarpsPerSM, c.MaxThreadsPerSM))
	}
	if err := c.Host.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			errs = append(errs, errors.New("host."+line))
		}
	}
	if err := c.System.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			errs = append(errs, errors.New("system."+line))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("config %q: %w", c.Name, err)
	}
	return nil
}

// ConfigNames lists the shipped configurations (the YAML files of
// sim/configs), sorted.
func ConfigNames() []string { return embeddedConfigNames() }

// ConfigByName returns a shipped configuration, loaded from its YAML file in
// sim/configs (see LoadConfig, which also reads files by path); the error
// for an unknown name lists the known ones.
func ConfigByName(name string) (Config, error) {
	if !slices.Contains(ConfigNames(), name) {
		return Config{}, fmt.Errorf("no simulator configuration named %q; known: %s", name, strings.Join(ConfigNames(), ", "))
	}
	f, err := LoadConfig(name)
	if err != nil {
		return Config{}, err
	}
	return f.Config, nil
}

// Digest is a short digest of the configuration's effective values (every
// key of the merged, validated configuration except its name), so that
// outputs can say exactly which machine was simulated: two spellings of
// one machine (h100 and h100+sms=132) share it, and any changed value,
// even one a file inherited through its base, changes it.
func (c Config) Digest() string {
	name := c.Name
	c.Name = ""
	data, err := json.Marshal(c)
	if err != nil {
		// Config holds numbers, strings and structs of them only.
		panic(fmt.Sprintf("sim: config %q does not encode: %v", name, err))
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:8])
}
