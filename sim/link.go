package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/memsys"
)

// The interconnect of a multi-GPU system (System, system.go): the
// configuration's `system:` section and the model that times a batch of
// peer copies. sim/configs/README.md ("`system:` keys") describes both.

// Link kinds (LinkConfig.Kind).
const (
	// LinkPCIe: the GPUs sit on the host's PCIe bus; every peer transfer
	// crosses the host bridge (root complex), which all of them share.
	LinkPCIe = "pcie"
	// LinkNVLink: the GPUs are joined through a switch, each by its own
	// links; no stage is shared.
	LinkNVLink = "nvlink"
)

// SystemConfig is a configuration's `system:` section: how many GPUs of
// the configuration a System (OpenSystem) may join, and the link between
// them. The section is optional: leaving it out (the zero value) means a
// single GPU with no link. When it is present, every key in it is
// required.
type SystemConfig struct {
	// GPUs is the most GPUs the system has (at least 1).
	GPUs int `yaml:"gpus"`
	// Link is the interconnect between the GPUs.
	Link LinkConfig `yaml:"link"`
}

// LinkConfig is the interconnect between a system's GPUs. A batch of peer
// copies (System.CopyPeer) takes LatencyNs plus the longest of: each GPU's
// bytes out at BytesPerNsPerDirection, each GPU's bytes in at
// BytesPerNsPerDirection, and, on PCIe, the whole batch's bytes at
// BridgeBytesPerNs. Copies within one GPU use no link: they cost their
// bytes at the GPU's DRAM bandwidth.
type LinkConfig struct {
	// Kind is LinkPCIe or LinkNVLink.
	Kind string `yaml:"kind"`
	// BytesPerNsPerDirection is each GPU's link bandwidth each way (bytes
	// per ns = GB/s).
	BytesPerNsPerDirection float64 `yaml:"bytes_per_ns_per_direction"`
	// LatencyNs is the fixed cost of a batch of copies that crosses a
	// link.
	LatencyNs int64 `yaml:"latency_ns"`
	// BridgeBytesPerNs is the bandwidth of the host bridge that every PCIe
	// peer transfer crosses, shared by all GPUs (bytes per ns); 0 for
	// NVLink, which has none.
	BridgeBytesPerNs float64 `yaml:"bridge_bytes_per_ns"`
	// AccessLatencyNs is what a kernel's load, store or atomic on another
	// GPU's memory takes beyond the same access to its own L2, each way:
	// a co-launch's peer access (System.CoLaunch) crosses to the owner's
	// L2 slice, which answers back across the link.
	AccessLatencyNs int64 `yaml:"access_latency_ns"`
}

// present says whether the configuration has a `system:` section.
func (s SystemConfig) present() bool { return s != SystemConfig{} }

// MaxGPUs is the most GPUs a system of the configuration has: GPUs, or 1
// without a `system:` section.
func (s SystemConfig) MaxGPUs() int {
	if !s.present() {
		return 1
	}
	return s.GPUs
}

// Validate checks the section's values; a left-out section (the zero
// value) is valid. Errors name the keys below `system.`.
func (s SystemConfig) Validate() error {
	if !s.present() {
		return nil
	}
	var errs []error
	if s.GPUs < 1 {
		errs = append(errs, fmt.Errorf("gpus must be at least 1, got %d", s.GPUs))
	}
	l := s.Link
	switch l.Kind {
	case LinkPCIe, LinkNVLink:
	default:
		errs = append(errs, fmt.Errorf("link.kind must be %q or %q, got %q", LinkPCIe, LinkNVLink, l.Kind))
	}
	if b := l.BytesPerNsPerDirection; !finitePositive(b) {
		errs = append(errs, fmt.Errorf("link.bytes_per_ns_per_direction must be a finite number > 0, got %v", b))
	}
	if l.LatencyNs < 0 {
		errs = append(errs, fmt.Errorf("link.latency_ns must not be negative, got %d", l.LatencyNs))
	}
	if l.AccessLatencyNs < 0 {
		errs = append(errs, fmt.Errorf("link.access_latency_ns must not be negative, got %d", l.AccessLatencyNs))
	}
	switch b := l.BridgeBytesPerNs; {
	case l.Kind == LinkPCIe && !finitePositive(b):
		errs = append(errs, fmt.Errorf("link.bridge_bytes_per_ns must be a finite number > 0 for %s (the host bridge every peer transfer crosses), got %v", LinkPCIe, b))
	case l.Kind == LinkNVLink && b != 0:
		errs = append(errs, fmt.Errorf("link.bridge_bytes_per_ns must be 0 for %s, which has no shared bridge, got %v", LinkNVLink, b))
	}
	return errors.Join(errs...)
}

func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// Describe says what the link is in words, e.g. "NVLink through a switch,
// 450 GB/s per direction per GPU, 3 µs per copy batch".
func (l LinkConfig) Describe() string {
	per := fmt.Sprintf("%s GB/s per direction per GPU", formatFigure(l.BytesPerNsPerDirection))
	latency := formatNs(l.LatencyNs) + " per copy batch"
	if l.Kind == LinkPCIe {
		return fmt.Sprintf("PCIe, %s through a host bridge of %s GB/s shared by all, %s", per, formatFigure(l.BridgeBytesPerNs), latency)
	}
	return fmt.Sprintf("NVLink through a switch, %s, %s", per, latency)
}

// formatFigure writes a bandwidth with no needless digits (450, 12.5).
func formatFigure(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// formatNs writes a latency in µs from 1 µs on, in ns below.
func formatNs(ns int64) string {
	if ns >= 1000 {
		return strconv.FormatFloat(float64(ns)/1000, 'g', -1, 64) + " µs"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

// forKernels is the link as the timing model of a co-launch sees it
// (memsys.Link) at a clock of mhz: the access latency in cycles, and each
// device's bandwidth each way, on PCIe its share of the bridge when that is
// less (the bridge carries every transfer once, whichever way: each
// device's share each way is an even part of it).
func (l LinkConfig) forKernels(devices, mhz int) memsys.Link {
	perNs := l.BytesPerNsPerDirection
	if l.Kind == LinkPCIe && devices > 0 {
		perNs = min(perNs, l.BridgeBytesPerNs/float64(2*devices))
	}
	ghz := float64(mhz) / 1000
	return memsys.Link{LatencyCycles: float64(l.AccessLatencyNs) * ghz, BytesPerCycle: perNs / ghz}
}

// linkModel times batches of peer copies on a link (LinkConfig).
type linkModel struct {
	link LinkConfig
	// dramBytesPerNs is what a copy within one device moves per ns.
	dramBytesPerNs float64
}

// batchTiming is what one batch of peer copies costs.
type batchTiming struct {
	// total is what the batch adds to the system clock.
	total time.Duration
	// busy is the time the links carried data: the longest of the link
	// terms (each GPU's bytes out and in, the bridge's).
	busy time.Duration
	// queued is busy less the time the batch's longest link copy would
	// take alone on idle links: the time copies waited behind others.
	queued time.Duration
}

// time is the cost of a batch of copies among devices devices, which
// kernels.CheckPeerCopies has accepted. A batch that crosses no link pays
// no latency, and zero-byte copies cost nothing.
func (m linkModel) time(copies []kernels.PeerCopy, devices int) batchTiming {
	bw, bridge := m.link.BytesPerNsPerDirection, m.link.BridgeBytesPerNs
	out := make([]float64, devices)
	in := make([]float64, devices)
	local := make([]float64, devices)
	var crossing, longestAlone float64
	for _, c := range copies {
		if c.Bytes <= 0 {
			continue
		}
		n := float64(c.Bytes)
		if c.From == c.To {
			local[c.From] += n
			continue
		}
		out[c.From] += n
		in[c.To] += n
		crossing += n
		alone := n / bw
		if bridge > 0 {
			alone = max(alone, n/bridge)
		}
		longestAlone = max(longestAlone, alone)
	}
	var linkNs, localNs float64
	for i := range devices {
		linkNs = max(linkNs, out[i]/bw, in[i]/bw)
		if m.dramBytesPerNs > 0 {
			localNs = max(localNs, local[i]/m.dramBytesPerNs)
		}
	}
	if bridge > 0 {
		linkNs = max(linkNs, crossing/bridge)
	}
	var t batchTiming
	if crossing > 0 {
		t.total = time.Duration(m.link.LatencyNs)
	}
	t.total += roundNs(max(linkNs, localNs))
	t.busy = roundNs(linkNs)
	t.queued = roundNs(linkNs - longestAlone)
	return t
}

// roundNs rounds a time in ns to the nanosecond, never below 0.
func roundNs(ns float64) time.Duration {
	if ns <= 0 {
		return 0
	}
	return time.Duration(math.Round(ns))
}
