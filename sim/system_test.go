package sim

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// The multi-GPU system (system.go) and its link model (link.go).

// openTinyX4 opens the tiny-x4 system of n GPUs in functional mode.
func openTinyX4(t *testing.T, n int, opts ...Option) *System {
	t.Helper()
	s, err := OpenSystem("tiny-x4", n, append([]Option{WithMode(ModeFunctional)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// pattern is n bytes that differ from device to device and byte to byte.
func pattern(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// alloc allocates n bytes on dev holding data (zeros when data is nil).
func alloc(t *testing.T, dev kernels.Device, n int, data []byte) kernels.DevPtr {
	t.Helper()
	p, err := dev.Alloc(n)
	require.NoError(t, err)
	if data != nil {
		require.NoError(t, dev.CopyToDevice(p, data))
	}
	return p
}

func read(t *testing.T, dev kernels.Device, p kernels.DevPtr, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	require.NoError(t, dev.CopyFromDevice(b, p))
	return b
}

// hostClocks are the devices' host clocks.
func hostClocks(s *System) []time.Duration {
	out := make([]time.Duration, len(s.Devices()))
	for i := range out {
		out[i] = s.Device(i).HostClock()
	}
	return out
}

// TestSystemConfigsLoad: the multi-GPU configurations load, validate, carry
// their cited figures, and are their base GPU in every other key.
func TestSystemConfigsLoad(t *testing.T) {
	tests := []struct {
		name, base string
		want       SystemConfig
	}{
		{"h100-x8-nvlink", "h100", SystemConfig{GPUs: 8, Link: LinkConfig{Kind: LinkNVLink, BytesPerNsPerDirection: 450, LatencyNs: 14000, AccessLatencyNs: 350}}},
		{"gtx780ti-x2-pcie", "gtx780ti", SystemConfig{GPUs: 2, Link: LinkConfig{Kind: LinkPCIe, BytesPerNsPerDirection: 12, LatencyNs: 10000, BridgeBytesPerNs: 24, AccessLatencyNs: 1000}}},
		{"gtx780ti-x4-pcie", "gtx780ti", SystemConfig{GPUs: 4, Link: LinkConfig{Kind: LinkPCIe, BytesPerNsPerDirection: 12, LatencyNs: 10000, BridgeBytesPerNs: 24, AccessLatencyNs: 1000}}},
		{"tiny-x4", "tiny", SystemConfig{GPUs: 4, Link: LinkConfig{Kind: LinkPCIe, BytesPerNsPerDirection: 4, LatencyNs: 1000, BridgeBytesPerNs: 6, AccessLatencyNs: 500}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := LoadConfig(tc.name)
			require.NoError(t, err)
			require.NoError(t, f.Validate())
			assert.Equal(t, tc.want, f.System)
			assert.Equal(t, tc.want.GPUs, f.System.MaxGPUs())
			assert.Equal(t, []string{"configs/" + tc.base + ".yaml"}, f.Bases)
			assert.NotEmpty(t, f.Description)

			base, err := LoadConfig(tc.base)
			require.NoError(t, err)
			assert.Zero(t, base.System)
			assert.Equal(t, 1, base.System.MaxGPUs())
			gpu := f.Config
			gpu.Name, gpu.System = base.Name, SystemConfig{}
			assert.Equal(t, base.Config, gpu, "every key but system: is the base's")
			assert.NotEqual(t, base.Digest(), f.Digest())
		})
	}
	// A configuration without the section marshals none, so its digest
	// is what it was before the section existed.
	h, err := LoadConfig("h100")
	require.NoError(t, err)
	data, err := json.Marshal(h.Config)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "System")
}

// TestSystemConfigErrors: bad `system:` values are refused, each with one
// line naming the file and the key.
func TestSystemConfigErrors(t *testing.T) {
	good := map[string]string{
		"gpus": "4", "kind": "pcie", "bytes_per_ns_per_direction": "4", "latency_ns": "1000", "bridge_bytes_per_ns": "6",
		"access_latency_ns": "500",
	}
	yamlOf := func(edit map[string]string) string {
		v := map[string]string{}
		for k, x := range good {
			v[k] = x
		}
		for k, x := range edit {
			v[k] = x
		}
		var b strings.Builder
		b.WriteString("base: tiny\nname: custom\nsystem:\n")
		if x := v["gpus"]; x != "-" {
			b.WriteString("  gpus: " + x + "\n")
		}
		b.WriteString("  link:\n")
		for _, k := range []string{"kind", "bytes_per_ns_per_direction", "latency_ns", "bridge_bytes_per_ns", "access_latency_ns", "latency"} {
			if x, ok := v[k]; ok && x != "-" {
				b.WriteString("    " + k + ": " + x + "\n")
			}
		}
		return b.String()
	}
	tests := []struct {
		name string
		edit map[string]string // "-": leave the key out
		want string
	}{
		{"no GPU", map[string]string{"gpus": "0"}, "system.gpus must be at least 1, got 0"},
		{"unknown kind", map[string]string{"kind": "infiniband"}, `system.link.kind must be "pcie" or "nvlink", got "infiniband"`},
		{"negative bandwidth", map[string]string{"bytes_per_ns_per_direction": "-4"}, "system.link.bytes_per_ns_per_direction must be a finite number > 0, got -4"},
		{"zero bandwidth", map[string]string{"bytes_per_ns_per_direction": "0"}, "system.link.bytes_per_ns_per_direction must be a finite number > 0, got 0"},
		{"infinite bandwidth", map[string]string{"bytes_per_ns_per_direction": ".inf"}, "system.link.bytes_per_ns_per_direction must be a finite number > 0, got +Inf"},
		{"NaN bandwidth", map[string]string{"bytes_per_ns_per_direction": ".nan"}, "system.link.bytes_per_ns_per_direction must be a finite number > 0, got NaN"},
		{"negative latency", map[string]string{"latency_ns": "-5"}, "system.link.latency_ns must not be negative, got -5"},
		{"pcie without bridge", map[string]string{"bridge_bytes_per_ns": "0"}, "system.link.bridge_bytes_per_ns must be a finite number > 0 for pcie"},
		{"nvlink with bridge", map[string]string{"kind": "nvlink"}, "system.link.bridge_bytes_per_ns must be 0 for nvlink, which has no shared bridge, got 6"},
		{"negative access latency", map[string]string{"access_latency_ns": "-1"}, "system.link.access_latency_ns must not be negative, got -1"},
		{"missing access latency", map[string]string{"access_latency_ns": "-"}, `custom.yaml: missing key "system.link.access_latency_ns"`},
		{"missing key", map[string]string{"latency_ns": "-"}, `custom.yaml: missing key "system.link.latency_ns" (set neither here nor in its base configs/tiny.yaml)`},
		{"missing gpus", map[string]string{"gpus": "-"}, `custom.yaml: missing key "system.gpus"`},
		{"unknown key", map[string]string{"latency": "3"}, `unknown key "system.link.latency"`},
		{"wrong type", map[string]string{"gpus": "eight"}, "system.gpus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := yamlOf(tc.edit)
			path := filepath.Join(t.TempDir(), "custom.yaml")
			require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			_, err := LoadConfig(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "custom.yaml")
			assert.NotContains(t, err.Error(), "\n", "one line")
			_, err = OpenSystem(path, 2)
			assert.Error(t, err)
		})
	}
	// The good file loads, and without the section it is one GPU.
	path := filepath.Join(t.TempDir(), "custom.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yamlOf(nil)), 0o644))
	f, err := LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, 4, f.System.MaxGPUs())

	// Inline overrides reach the section's keys; a base without the
	// section needs the whole of it.
	f, err = LoadConfig("tiny-x4+system.gpus=2+system.link.latency_ns=5")
	require.NoError(t, err)
	assert.Equal(t, 2, f.System.GPUs)
	assert.Equal(t, int64(5), f.System.Link.LatencyNs)
	_, err = LoadConfig("tiny+system.gpus=2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `missing key "system.link"`)
}

// TestOpenSystemRefusals: GPU counts outside the configuration's limit and
// options that a device cannot share are refused with one line.
func TestOpenSystemRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		gpus int
		opts []Option
		want string
	}{
		{"tiny-x4", 0, nil, "at least 1 GPU, got 0"},
		{"tiny-x4", -1, nil, "at least 1 GPU, got -1"},
		{"tiny-x4", 5, nil, "configuration tiny-x4 has at most 4 GPUs (system.gpus); asked for 5"},
		{"tiny", 2, nil, "configuration tiny has no system: section, so a system of it has 1 GPU; asked for 2"},
		{"tiny-x4+system.gpus=2", 3, nil, "at most 2 GPUs"},
		{"tiny-x4", 2, []Option{WithMonitor(&Monitor{})}, "the monitor watches one device's engine"},
		{"tiny-x4", 2, []Option{WithTrace(filepath.Join(t.TempDir(), "trace"))}, "a trace file holds one device's trace"},
		{"no-such-config", 1, nil, `no simulator configuration named "no-such-config"`},
	} {
		s, err := OpenSystem(tc.name, tc.gpus, tc.opts...)
		if assert.Error(t, err, "%s with %d GPUs", tc.name, tc.gpus) {
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		}
		assert.Nil(t, s)
	}
	// A device's own refusal is New's.
	_, err := OpenSystem("tiny-x4", 2, WithMode("fast"))
	require.Error(t, err)
	assert.Equal(t, `sim: unknown mode "fast" (want "timing", "functional" or "sampled")`, err.Error())

	// A configuration without the section opens one GPU; so does any
	// system asked for one.
	for _, name := range []string{"tiny", "tiny-x4"} {
		s, err := OpenSystem(name, 1, WithMode(ModeFunctional))
		require.NoError(t, err)
		assert.Len(t, s.Devices(), 1)
		assert.Equal(t, "none: one device", s.Link())
		require.NoError(t, s.Close())
	}
}

// TestSystemCopyPeerMovesBytes: copies between devices and within one
// land in the right place, sources stay, and no device's host clock moves.
func TestSystemCopyPeerMovesBytes(t *testing.T) {
	s := openTinyX4(t, 4)
	devs := s.Devices()
	require.Len(t, devs, 4)
	const n = 1000
	src := make([]kernels.DevPtr, 4)
	dst := make([]kernels.DevPtr, 4)
	for i, d := range devs {
		src[i] = alloc(t, d, n, pattern(byte(16*i+1), n))
		dst[i] = alloc(t, d, n, nil)
	}
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{
		{From: 0, To: 1, Src: src[0], Dst: dst[1], Bytes: n},
		// Part of device 2's buffer into the middle of device 3's.
		{From: 2, To: 3, Src: src[2] + 100, Dst: dst[3] + 500, Bytes: 300},
		// Within device 2.
		{From: 2, To: 2, Src: src[2], Dst: dst[2], Bytes: n},
		{From: 3, To: 0, Src: src[3], Dst: dst[0], Bytes: 0},
	}))
	assert.Equal(t, pattern(1, n), read(t, devs[1], dst[1], n))
	want3 := make([]byte, n)
	copy(want3[500:800], pattern(33, n)[100:400])
	assert.Equal(t, want3, read(t, devs[3], dst[3], n))
	assert.Equal(t, pattern(33, n), read(t, devs[2], dst[2], n))
	assert.Equal(t, make([]byte, n), read(t, devs[0], dst[0], n), "a zero-byte copy writes nothing")
	for i, d := range devs {
		assert.Equal(t, pattern(byte(16*i+1), n), read(t, d, src[i], n), "device %d's source", i)
	}
	// The reads above moved the host clocks; check them around a fresh
	// batch.
	clocks := hostClocks(s)
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{{From: 1, To: 2, Src: src[1], Dst: dst[2], Bytes: n}}))
	assert.Equal(t, clocks, hostClocks(s), "peer copies charge no host time")
	assert.Equal(t, pattern(17, n), read(t, devs[2], dst[2], n))

	// Copies of one batch read memory as it was before the batch: a swap.
	a := alloc(t, devs[0], 8, []byte("AAAAAAAA"))
	b := alloc(t, devs[1], 8, []byte("BBBBBBBB"))
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{
		{From: 0, To: 1, Src: a, Dst: b, Bytes: 8},
		{From: 1, To: 0, Src: b, Dst: a, Bytes: 8},
	}))
	assert.Equal(t, []byte("BBBBBBBB"), read(t, devs[0], a, 8))
	assert.Equal(t, []byte("AAAAAAAA"), read(t, devs[1], b, 8))

	// Bytes[i][j]: what device i sent device j, copies within a device on
	// the diagonal.
	assert.Equal(t, [][]uint64{
		{0, n + 8, 0, 0},
		{8, 0, n, 0},
		{0, 0, n, 300},
		{0, 0, 0, 0},
	}, s.LinkStats().Bytes)
}

// TestSystemLinkModel: a batch's time is the link model's, computed here
// from tiny-x4's figures: each GPU's egress and ingress at its link's
// bandwidth, the whole batch at the bridge's, copies within a device at
// its DRAM's, plus the latency once for a batch that crosses a link.
func TestSystemLinkModel(t *testing.T) {
	s := openTinyX4(t, 4)
	devs := s.Devices()
	cfg := s.Config()
	l := cfg.System.Link
	bw, bridge, lat := l.BytesPerNsPerDirection, l.BridgeBytesPerNs, time.Duration(l.LatencyNs)
	dram := cfg.Memory.DRAMBandwidthGBPerS
	// The figures make each term visible: one link is slower than the
	// bridge, two links' worth is faster.
	require.Less(t, bw, bridge)
	require.Greater(t, 2*bw, bridge)
	ns := func(x float64) time.Duration { return time.Duration(math.Round(x)) }

	const n = 4000
	buf := make([][]kernels.DevPtr, 4) // buf[dev]: four buffers of n bytes
	for i, d := range devs {
		for range 4 {
			buf[i] = append(buf[i], alloc(t, d, n, nil))
		}
	}
	cp := func(from, to, slot, bytes int) kernels.PeerCopy {
		return kernels.PeerCopy{From: from, To: to, Src: buf[from][0], Dst: buf[to][slot], Bytes: bytes}
	}
	tests := []struct {
		name         string
		copies       []kernels.PeerCopy
		want, queued time.Duration
		busy         time.Duration
	}{
		{"one copy: its link", []kernels.PeerCopy{cp(0, 1, 1, n)}, lat + ns(n/bw), 0, ns(n / bw)},
		{"two copies out of one GPU: twice one", []kernels.PeerCopy{cp(0, 1, 1, n), cp(0, 2, 1, n)}, lat + ns(2*n/bw), ns(2*n/bw) - ns(n/bw), ns(2 * n / bw)},
		{"two into one GPU: its ingress", []kernels.PeerCopy{cp(1, 0, 1, n), cp(2, 0, 2, n)}, lat + ns(2*n/bw), ns(2*n/bw) - ns(n/bw), ns(2 * n / bw)},
		{"three into one GPU: its ingress", []kernels.PeerCopy{cp(1, 0, 1, n), cp(2, 0, 2, n), cp(3, 0, 3, n)}, lat + ns(3*n/bw), ns(3*n/bw) - ns(n/bw), ns(3 * n / bw)},
		{"disjoint pairs: the bridge", []kernels.PeerCopy{cp(0, 1, 1, n), cp(2, 3, 1, n)}, lat + ns(2*n/bridge), ns(2*n/bridge - n/bw), ns(2 * n / bridge)},
		{"within a device: its DRAM, no latency", []kernels.PeerCopy{cp(2, 2, 1, n)}, ns(n / dram), 0, 0},
		{"a link copy beside a local one", []kernels.PeerCopy{cp(2, 2, 1, n), cp(0, 1, 1, n)}, lat + ns(n/bw), 0, ns(n / bw)},
		{"zero bytes", []kernels.PeerCopy{cp(0, 1, 1, 0)}, 0, 0, 0},
		{"no copies", nil, 0, 0, 0},
	}
	var clock, busy, queued time.Duration
	for _, tc := range tests {
		require.NoError(t, s.CopyPeer(tc.copies), tc.name)
		clock += tc.want
		busy += tc.busy
		queued += tc.queued
		assert.Equal(t, clock, s.Clock(), tc.name)
		st := s.LinkStats()
		assert.Equal(t, busy, st.Busy, tc.name)
		assert.Equal(t, queued, st.Queued, tc.name)
	}
	// The expectations in numbers, so that a change of tiny-x4 shows here.
	assert.Equal(t, 2000*time.Nanosecond, tests[0].want)
	assert.Equal(t, 3000*time.Nanosecond, tests[1].want)
	assert.Equal(t, 2333*time.Nanosecond, tests[4].want)
}

// TestLinkModelShippedSystems times an all-to-all exchange on the shipped
// systems' links: NVLink is bound by each GPU's egress, PCIe by the bridge.
func TestLinkModelShippedSystems(t *testing.T) {
	const n = 1 << 20
	allToAll := func(gpus int) []kernels.PeerCopy {
		var out []kernels.PeerCopy
		for i := range gpus {
			for j := range gpus {
				if i != j {
					out = append(out, kernels.PeerCopy{From: i, To: j, Bytes: n})
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		want func(l LinkConfig, gpus int) float64
	}{
		{"h100-x8-nvlink", func(l LinkConfig, g int) float64 { return float64((g-1)*n) / l.BytesPerNsPerDirection }},
		{"gtx780ti-x2-pcie", func(l LinkConfig, g int) float64 { return float64(g*(g-1)*n) / l.BridgeBytesPerNs }},
		{"gtx780ti-x4-pcie", func(l LinkConfig, g int) float64 { return float64(g*(g-1)*n) / l.BridgeBytesPerNs }},
	} {
		f, err := LoadConfig(tc.name)
		require.NoError(t, err)
		m := linkModel{link: f.System.Link, dramBytesPerNs: f.Memory.DRAMBandwidthGBPerS}
		g := f.System.GPUs
		got := m.time(allToAll(g), g)
		want := time.Duration(f.System.Link.LatencyNs) + time.Duration(math.Round(tc.want(f.System.Link, g)))
		assert.Equal(t, want, got.total, tc.name)
	}
	h, err := LoadConfig("h100-x8-nvlink")
	require.NoError(t, err)
	assert.Equal(t, "NVLink through a switch, 450 GB/s per direction per GPU, 14 µs per copy batch", h.System.Link.Describe())
	k, err := LoadConfig("gtx780ti-x4-pcie")
	require.NoError(t, err)
	assert.Equal(t, "PCIe, 12 GB/s per direction per GPU through a host bridge of 24 GB/s shared by all, 10 µs per copy batch", k.System.Link.Describe())
}

// TestSystemParallel: a step costs its slowest device's host time. Each
// device uploads a different number of bytes; the clock advances by the
// largest upload's cost.
func TestSystemParallel(t *testing.T) {
	s := openTinyX4(t, 4)
	devs := s.Devices()
	sizes := []int{0, 1000, 5000, 200}
	ptrs := make([]kernels.DevPtr, 4)
	for i, d := range devs {
		ptrs[i] = alloc(t, d, 5000, nil)
	}
	// Work outside Parallel moves the devices' clocks, not the system's.
	require.NoError(t, devs[0].CopyToDevice(ptrs[0], make([]byte, 64)))
	assert.Zero(t, s.Clock())

	called := make([]int, 4)
	require.NoError(t, s.Parallel(func(i int, dev kernels.Device) error {
		called[i]++
		assert.Same(t, s.Device(i), dev)
		return dev.CopyToDevice(ptrs[i], pattern(byte(i), sizes[i]))
	}))
	assert.Equal(t, []int{1, 1, 1, 1}, called)
	host := s.Config().Host
	assert.Equal(t, host.uploadCost(5000), s.Clock())
	assert.Greater(t, host.uploadCost(5000), host.uploadCost(1000))
	// tiny's figures: 200 ns of latency and 5000 bytes at 10 bytes/ns.
	assert.Equal(t, 700*time.Nanosecond, s.Clock())
	for i, d := range devs {
		assert.Equal(t, pattern(byte(i), sizes[i]), read(t, d, ptrs[i], sizes[i]))
	}

	// A failing device's error names it; the step still costs its time.
	before := s.Clock()
	err := s.Parallel(func(i int, dev kernels.Device) error {
		if i == 2 {
			return dev.CopyToDevice(0, []byte{1})
		}
		return dev.Memset(ptrs[i], 0, 2560)
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device 2: ")
	assert.NotContains(t, err.Error(), "device 1: ")
	assert.Equal(t, host.memsetCost(2560, s.Config().Memory.DRAMBandwidthGBPerS), s.Clock()-before)
}

// TestSystemParallelLaunches runs a kernel on every device at once in
// timing mode: each device counts its own launches, and the step costs
// what one launch costs a device's host clock.
func TestSystemParallelLaunches(t *testing.T) {
	s, err := OpenSystem("tiny-x4", 3)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	k := lookup(t, "launch_increment")
	counters := make([]kernels.DevPtr, 3)
	for i, d := range s.Devices() {
		counters[i] = alloc(t, d, 4, nil)
	}
	before := hostClocks(s)
	for range 2 {
		require.NoError(t, s.Parallel(func(i int, dev kernels.Device) error {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := dev.Launch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, counters[i])
			return err
		}))
	}
	// The devices ran the same work from the same state, so each step
	// cost every device the same, and the system what one device paid.
	after := hostClocks(s)
	for i := range after {
		assert.Equal(t, after[0]-before[0], after[i]-before[i], "device %d", i)
	}
	assert.Equal(t, after[0]-before[0], s.Clock())
	host := s.Config().Host
	assert.Greater(t, s.Clock(), 2*time.Duration(host.LaunchNs+host.KernelOverheadNs+host.SyncNs), "two launches and their cycles")
	for i, d := range s.Devices() {
		assert.Equal(t, uint32(2), binary.LittleEndian.Uint32(read(t, d, counters[i], 4)), "device %d", i)
	}
}

// TestSystemCopyPeerRefusals: bad copies are refused with one line, and a
// batch that fails changes nothing and costs nothing.
func TestSystemCopyPeerRefusals(t *testing.T) {
	s := openTinyX4(t, 4)
	devs := s.Devices()
	a := alloc(t, devs[0], 256, pattern(5, 256))
	b := alloc(t, devs[1], 256, nil)
	for _, tc := range []struct {
		name   string
		copies []kernels.PeerCopy
		want   string
	}{
		{"device out of range", []kernels.PeerCopy{{From: 0, To: 4, Src: a, Dst: b, Bytes: 8}}, "peer copy from device 0 to 4: the system has devices 0 to 3"},
		{"negative device", []kernels.PeerCopy{{From: -1, To: 1, Src: a, Dst: b, Bytes: 8}}, "the system has devices 0 to 3"},
		{"negative bytes", []kernels.PeerCopy{{From: 0, To: 1, Src: a, Dst: b, Bytes: -8}}, "peer copy of -8 bytes from device 0 to 1"},
		{"bad source", []kernels.PeerCopy{{From: 0, To: 1, Src: a, Dst: b, Bytes: 8}, {From: 0, To: 1, Src: a + 4096, Dst: b, Bytes: 8}},
			"sim: peer copy 1 of the batch, 8 bytes from device 0 to 1: source"},
		{"bad destination", []kernels.PeerCopy{{From: 0, To: 1, Src: a, Dst: b, Bytes: 8}, {From: 0, To: 1, Src: a, Dst: b + 200, Bytes: 100}},
			"sim: peer copy 1 of the batch, 100 bytes from device 0 to 1: destination"},
	} {
		err := s.CopyPeer(tc.copies)
		if assert.Error(t, err, tc.name) {
			assert.Contains(t, err.Error(), tc.want, tc.name)
			assert.NotContains(t, err.Error(), "\n", tc.name)
		}
	}
	assert.Equal(t, make([]byte, 256), read(t, devs[1], b, 256), "failed batches write nothing")
	assert.Zero(t, s.Clock(), "failed batches cost nothing")
	assert.Zero(t, s.LinkStats().Bytes[0][1])

	// A system of one device copies within it and refuses a peer.
	one := openTinyX4(t, 1)
	d := one.Devices()[0]
	x := alloc(t, d, 64, pattern(9, 64))
	y := alloc(t, d, 64, nil)
	require.NoError(t, one.CopyPeer([]kernels.PeerCopy{{From: 0, To: 0, Src: x, Dst: y, Bytes: 64}}))
	assert.Equal(t, pattern(9, 64), read(t, d, y, 64))
	err := one.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x, Dst: y, Bytes: 64}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the system has devices 0 to 0")

	// After Close every copy fails.
	require.NoError(t, s.Close())
	err = s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: a, Dst: b, Bytes: 8}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device is closed")
}

// TestSystemLink describes the link in words.
func TestSystemLink(t *testing.T) {
	s := openTinyX4(t, 4)
	assert.Equal(t, "PCIe, 4 GB/s per direction per GPU through a host bridge of 6 GB/s shared by all, 1 µs per copy batch", s.Link())
	assert.Equal(t, "NVLink through a switch, 0.5 GB/s per direction per GPU, 250 ns per copy batch",
		LinkConfig{Kind: LinkNVLink, BytesPerNsPerDirection: 0.5, LatencyNs: 250}.Describe())
	var sys kernels.System = s
	assert.Len(t, sys.Devices(), 4)
	_, ok := sys.(kernels.LinkCounter)
	assert.True(t, ok)
}
