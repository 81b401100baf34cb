package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// HostConfig is what the host pays around the kernels, in nanoseconds of
// host (wall) time: the simulated host clock of a Device (HostClock)
// advances by these costs at every launch, copy and memset, so that a
// host-driven loop's simulated end-to-end time compares with the
// hardware's. Its fields are the `host:` keys of a configuration.
//
// The model, as the hardware backend (hw) drives a GPU:
//
//   - Launch (synchronous): LaunchNs (from the call until the kernel's
//     start event: the driver's submission), then the kernel's time between
//     its events — KernelOverheadNs (the GPU's own cost of a grid: its
//     launch and drain, which the H100's events measure even around an
//     empty kernel) plus the kernel's cycles at the clock (none in
//     functional mode) — then SyncNs (from the kernel's end until the
//     waiting host returns). In timing mode LaunchStats.Elapsed is that
//     event time, KernelOverheadNs included, as on hardware.
//   - CopyFromDevice of n bytes: SyncNs (the host waits for the copy's
//     completion, one round trip, as for a launch) + CopyLatencyNs + n /
//     CopyBytesPerNs.
//   - CopyToDevice of n bytes: CopyLatencyNs + n / CopyBytesPerNs (the
//     host hands the bytes over and does not wait for the device).
//   - Memset of n bytes: CopyLatencyNs + n / the DRAM bandwidth
//     (memory.dram_bandwidth_gb_per_s, in bytes per ns): an operation
//     queued on the device, charged at once.
//   - Zero-byte copies and memsets, Alloc, Free and Load cost nothing;
//     nor does a launch refused before it starts.
//
// With these three keys the three patterns of the launch_overhead
// microbenchmark (experiments/micro) cost, per iteration, by construction:
// launch = LaunchNs + KernelOverheadNs + SyncNs; launch + 4-byte
// read-back = that + SyncNs + CopyLatencyNs; 4-byte upload + launch +
// read-back = that + CopyLatencyNs (4 bytes add 4 / CopyBytesPerNs,
// rounded to 0 ns), plus
// the kernel's simulated time in timing mode. h100.yaml sets them from the
// H100's measured figures; sim/configs/README.md has the derivation.
type HostConfig struct {
	// LaunchNs is the host time of a synchronous launch until the kernel
	// starts.
	LaunchNs int64 `yaml:"launch_ns"`
	// KernelOverheadNs is what every kernel's event time adds to its
	// cycles: the device-side cost of starting and draining a grid.
	KernelOverheadNs int64 `yaml:"kernel_overhead_ns"`
	// SyncNs is what a host call that waits for the device pays once the
	// device is done: after a kernel, and for a device-to-host copy.
	SyncNs int64 `yaml:"sync_ns"`
	// CopyLatencyNs is the fixed host cost of a copy or memset.
	CopyLatencyNs int64 `yaml:"copy_latency_ns"`
	// CopyBytesPerNs is the bandwidth of copies between host and device
	// (bytes per ns = GB/s); 0 means unlimited.
	CopyBytesPerNs float64 `yaml:"copy_bytes_per_ns"`
}

// Validate checks that every cost is finite and not negative.
func (h HostConfig) Validate() error {
	var errs []error
	for _, f := range []struct {
		key string
		v   int64
	}{{"launch_ns", h.LaunchNs}, {"kernel_overhead_ns", h.KernelOverheadNs}, {"sync_ns", h.SyncNs}, {"copy_latency_ns", h.CopyLatencyNs}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %d", f.key, f.v))
		}
	}
	if b := h.CopyBytesPerNs; b < 0 || math.IsNaN(b) || math.IsInf(b, 0) {
		errs = append(errs, fmt.Errorf("copy_bytes_per_ns must be a finite number >= 0 (0 = unlimited), got %v", b))
	}
	return errors.Join(errs...)
}

// transfer is the time to move n bytes at bytesPerNs (0: unlimited),
// rounded to the nanosecond.
func transfer(n int, bytesPerNs float64) time.Duration {
	if bytesPerNs <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(math.Round(float64(n) / bytesPerNs))
}

// kernelTime is a kernel's time between its start and end events: the
// grid's fixed overhead plus its cycles (0 in functional mode).
func (h HostConfig) kernelTime(cycles uint64, clockMHz int) time.Duration {
	return time.Duration(h.KernelOverheadNs) + time.Duration(float64(cycles)/float64(clockMHz)*1e3)
}

// launchCost is the host time of a launch whose kernel took kernel between
// its events (kernelTime).
func (h HostConfig) launchCost(kernel time.Duration) time.Duration {
	return time.Duration(h.LaunchNs) + kernel + time.Duration(h.SyncNs)
}

// uploadCost is the host time of copying n bytes to the device.
func (h HostConfig) uploadCost(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(h.CopyLatencyNs) + transfer(n, h.CopyBytesPerNs)
}

// downloadCost is the host time of copying n bytes from the device.
func (h HostConfig) downloadCost(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(h.SyncNs) + time.Duration(h.CopyLatencyNs) + transfer(n, h.CopyBytesPerNs)
}

// memsetCost is the host time of setting n bytes of device memory, filled
// at dramBytesPerNs.
func (h HostConfig) memsetCost(n int, dramBytesPerNs float64) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(h.CopyLatencyNs) + transfer(n, dramBytesPerNs)
}

// HostClock is the simulated host time since the device was opened: every
// launch, copy and memset so far advanced it by its modelled cost
// (HostConfig: the configuration's host keys, plus each kernel's simulated
// time, Elapsed). It never decreases. A scheduler reports simulated
// end-to-end time as the difference of two readings.
func (d *Device) HostClock() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hostClock
}
