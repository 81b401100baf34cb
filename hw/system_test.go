//go:build cgo

package hw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/kernels"
)

func TestOpenSystemRefusesOrdinalsBeforeLoadingTheDriver(t *testing.T) {
	for _, tc := range []struct {
		ordinals []int
		want     string
	}{
		{nil, "hw: a system needs at least one CUDA device"},
		{[]int{}, "hw: a system needs at least one CUDA device"},
		{[]int{0, -1}, "hw: no CUDA device -1: ordinals start at 0"},
	} {
		s, err := OpenSystem(tc.ordinals)
		assert.Nil(t, s)
		assert.EqualError(t, err, tc.want, "ordinals %v", tc.ordinals)
		assert.NotErrorIs(t, err, ErrNoDriver, "ordinals %v are refused on any host", tc.ordinals)
	}
}

func TestDescribeLink(t *testing.T) {
	yes, no := true, false
	peer := func(rows ...[]bool) [][]bool { return rows }
	assert.Equal(t, "none: one device", describeLink([]int{0}, peer([]bool{no})))
	assert.Equal(t, "no peer access (2 contexts on one GPU): the driver copies between the contexts",
		describeLink([]int{0, 0}, peer([]bool{no, no}, []bool{no, no})))
	assert.Equal(t, "peer access between every pair of GPUs (NVLink or PCIe, as the driver routes it)",
		describeLink([]int{0, 1}, peer([]bool{no, yes}, []bool{yes, no})))
	assert.Equal(t, "no peer access between the GPUs: the driver stages copies through host memory",
		describeLink([]int{0, 1}, peer([]bool{no, no}, []bool{no, no})))
	assert.Equal(t, "peer access between 2 of 3 pairs of devices (NVLink or PCIe, as the driver routes it); the driver copies between the others without it",
		describeLink([]int{0, 1, 0}, peer([]bool{no, yes, no}, []bool{yes, no, yes}, []bool{no, yes, no})))
	assert.Equal(t, "peer access between 0 of 3 pairs of devices (NVLink or PCIe, as the driver routes it); the driver copies between the others without it",
		describeLink([]int{0, 1, 0}, peer([]bool{no, yes, no}, []bool{no, no, no}, []bool{no, no, no})), "one-way access is not counted")
}

// systemTestProcessEnv marks the fresh process in which TestHardwareSystem
// runs its tests.
const systemTestProcessEnv = "WARPGRAPH_HW_SYSTEM_TEST_PROCESS"

// TestHardwareSystem runs the System's hardware tests in a fresh process
// of this test binary: the last tests of hardware_test.go, which run before
// this file's, leave GPU 0's primary context unusable on purpose.
func TestHardwareSystem(t *testing.T) {
	if os.Getenv(systemTestProcessEnv) == "" {
		if _, _, err := DriverVersion(); errors.Is(err, ErrNoDriver) {
			t.Skipf("no CUDA driver: %v", err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestHardwareSystem$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), systemTestProcessEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in a fresh process:\n%s", out)
		require.NoError(t, err, "the System's hardware tests failed in their process")
		return
	}
	t.Run("TwoContextsOnOneGPU", testSystemTwoContextsOnOneGPU)
	t.Run("CoLaunchReachesThePeersMemory", testSystemCoLaunch)
	t.Run("PeerCopyEndsTheReadAhead", testSystemPeerCopyEndsTheReadAhead)
	t.Run("OrdinalOutOfRange", testSystemOrdinalOutOfRange)
	t.Run("TwoGPUs", testSystemTwoGPUs)
}

// openSystem opens a system of the given CUDA devices, skipping the test on
// a machine without a driver.
func openSystem(t *testing.T, ordinals ...int) *System {
	t.Helper()
	s, err := OpenSystem(ordinals)
	if errors.Is(err, ErrNoDriver) {
		t.Skipf("no CUDA driver: %v", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func systemDevice(t *testing.T, s *System, i int) *Device {
	t.Helper()
	d, ok := s.Devices()[i].(*Device)
	require.True(t, ok, "device %d is a *Device", i)
	return d
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13) + seed
	}
	return b
}

func testSystemTwoContextsOnOneGPU(t *testing.T) {
	s := openSystem(t, 0, 0)
	require.Len(t, s.Devices(), 2)
	d0, d1 := systemDevice(t, s, 0), systemDevice(t, s, 1)
	assert.False(t, d0.ownsContext, "the first device is on the primary context")
	assert.True(t, d1.ownsContext, "the second device has a context of its own")
	assert.False(t, s.PeerAccess(0, 1))
	assert.False(t, s.PeerAccess(1, 0))
	assert.False(t, s.PeerAccess(0, 2), "out of range")
	assert.Equal(t, "no peer access (2 contexts on one GPU): the driver copies between the contexts", s.Link())

	// Larger than the staging buffer, so that uploads and read-backs go
	// both ways through the Device.
	const n = 3*stagingBytes + 40
	p1, p2 := pattern(n, 1), pattern(n, 2)

	x0 := upload(t, d0, p1)
	y1, err := d1.Alloc(n)
	require.NoError(t, err)
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x0, Dst: y1, Bytes: n}}))
	assert.Equal(t, p1, download(t, d1, y1, n), "device 0 to 1")

	z1, err := d1.Alloc(n)
	require.NoError(t, err)
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{{From: 1, To: 1, Src: y1 + 8, Dst: z1 + 16, Bytes: 100}}))
	assert.Equal(t, p1[8:108], download(t, d1, z1+16, 100), "within device 1, at offsets")

	// Both directions in one batch, each behind work queued on its
	// destination: the memsets must not land on top of the copies.
	x1 := upload(t, d1, p2)
	y0, err := d0.Alloc(n)
	require.NoError(t, err)
	require.NoError(t, d0.Memset(y0, 0xEE, n))
	require.NoError(t, d1.Memset(y1, 0xEE, n))
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{
		{From: 0, To: 1, Src: x0, Dst: y1, Bytes: n},
		{From: 1, To: 0, Src: x1, Dst: y0, Bytes: n},
	}))
	assert.Equal(t, p1, download(t, d1, y1, n), "device 0 to 1 in the batch")
	assert.Equal(t, p2, download(t, d0, y0, n), "device 1 to 0 in the batch")

	require.NoError(t, s.CopyPeer(nil))
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x0, Dst: y1}}), "an empty copy")
	stats := s.LinkStats()
	assert.Equal(t, [][]uint64{{0, 2 * n}, {n, 100}}, stats.Bytes)
	assert.Zero(t, stats.Busy)
	assert.Zero(t, stats.Queued)

	assert.ErrorContains(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 2, Src: x0, Dst: y1, Bytes: 4}}), "the system has devices 0 to 1")
	assert.ErrorContains(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x0, Dst: y1, Bytes: n + 1}}), "overrun")
	assert.ErrorContains(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x0, Dst: y0, Bytes: 4}}), "destination: ", "device 0's memory is not device 1's")
	assert.Equal(t, stats, s.LinkStats(), "refused copies carry nothing")

	err = s.Parallel(func(i int, dev kernels.Device) error {
		p, err := dev.Alloc(64)
		if err != nil {
			return err
		}
		if err := dev.Memset(p, byte(i+1), 64); err != nil {
			return err
		}
		b := make([]byte, 64)
		if err := dev.CopyFromDevice(b, p); err != nil {
			return err
		}
		if b[63] != byte(i+1) {
			return fmt.Errorf("read %d back", b[63])
		}
		if i == 1 {
			return errors.New("refused on purpose")
		}
		return dev.Free(p)
	})
	assert.EqualError(t, err, "device 1: refused on purpose")

	began := s.Clock()
	time.Sleep(time.Millisecond)
	assert.Greater(t, s.Clock(), began)

	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing again")
	_, err = d1.Alloc(16)
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: x0, Dst: y1, Bytes: 4}}), ErrClosed)
}

// A read-back that follows a launch is read ahead behind the next launch
// (see Device.CopyFromDevice); a peer copy into those bytes in between must
// end that read-ahead.
func testSystemPeerCopyEndsTheReadAhead(t *testing.T) {
	s := openSystem(t, 0, 0)
	d0, d1 := systemDevice(t, s, 0), systemDevice(t, s, 1)
	k, err := kernels.Lookup("launch_increment")
	require.NoError(t, err)
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}
	counter := upload(t, d1, make([]byte, 4))
	word := make([]byte, 4)
	for i := range 3 {
		_, err := d1.Launch(testContext(t), k, cfg, counter)
		require.NoError(t, err)
		require.NoError(t, d1.CopyFromDevice(word, counter))
		require.Equal(t, uint32(i+1), binary.LittleEndian.Uint32(word))
	}
	_, err = d1.Launch(testContext(t), k, cfg, counter)
	require.NoError(t, err)
	src := upload(t, d0, binary.LittleEndian.AppendUint32(nil, 1000))
	require.NoError(t, s.CopyPeer([]kernels.PeerCopy{{From: 0, To: 1, Src: src, Dst: counter, Bytes: 4}}))
	require.NoError(t, d1.CopyFromDevice(word, counter))
	assert.Equal(t, uint32(1000), binary.LittleEndian.Uint32(word), "the read-back sees the copy, not the read-ahead")
}

func testSystemOrdinalOutOfRange(t *testing.T) {
	all, err := ListDevices()
	if errors.Is(err, ErrNoDriver) {
		t.Skipf("no CUDA driver: %v", err)
	}
	require.NoError(t, err)
	_, err = OpenSystem([]int{0, len(all)})
	assert.EqualError(t, err, fmt.Sprintf("hw: no CUDA device %d: this host has %s", len(all), cudaDevicesInWords(len(all))))
	assert.NotErrorIs(t, err, ErrNoDriver, "a bad ordinal is not a missing driver")
}

// Two GPUs and a second context on the first: copies between GPUs, with
// peer access where the driver allows it, and around all three at once.
func testSystemTwoGPUs(t *testing.T) {
	all, err := ListDevices()
	if errors.Is(err, ErrNoDriver) {
		t.Skipf("no CUDA driver: %v", err)
	}
	require.NoError(t, err)
	if len(all) < 2 {
		t.Skipf("needs two CUDA devices: this host has %d", len(all))
	}
	s := openSystem(t, 0, 1, 0)
	t.Logf("link: %s", s.Link())
	for i := range 3 {
		for j := range 3 {
			t.Logf("peer access from device %d to %d: %v", i, j, s.PeerAccess(i, j))
		}
	}
	assert.Equal(t, s.PeerAccess(0, 1), s.PeerAccess(2, 1), "both contexts on GPU 0 reach GPU 1 alike")
	assert.False(t, s.PeerAccess(0, 2))

	const n = 1 << 20
	devs := []*Device{systemDevice(t, s, 0), systemDevice(t, s, 1), systemDevice(t, s, 2)}
	src, dst := make([]kernels.DevPtr, 3), make([]kernels.DevPtr, 3)
	for i, d := range devs {
		src[i] = upload(t, d, pattern(n, byte(i)))
		dst[i], err = d.Alloc(n)
		require.NoError(t, err)
	}
	var ring []kernels.PeerCopy
	for i := range 3 {
		ring = append(ring, kernels.PeerCopy{From: i, To: (i + 1) % 3, Src: src[i], Dst: dst[(i+1)%3], Bytes: n})
	}
	require.NoError(t, s.CopyPeer(ring))
	for i := range 3 {
		assert.Equal(t, pattern(n, byte(i)), download(t, devs[(i+1)%3], dst[(i+1)%3], n), "device %d to %d", i, (i+1)%3)
	}
	assert.Equal(t, [][]uint64{{0, n, 0}, {0, 0, n}, {n, 0, 0}}, s.LinkStats().Bytes)
}

// exchangeSide is one device's buffers for exchange_pack, packed by the
// other device's kernel in a co-launch.
type exchangeSide struct {
	values, list, stamps, out, count kernels.DevPtr
	want                             map[[2]uint32]bool // the pairs to pack
}

func u32s(vals ...uint32) []byte {
	b := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// newExchangeSide fills device d's buffers: n vertices, every third of the
// listed ones stamped with stamp.
func newExchangeSide(t *testing.T, d *Device, n int, seed, stamp uint32) exchangeSide {
	values, stamps, list := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	side := exchangeSide{want: map[[2]uint32]bool{}}
	for v := range n {
		values[v] = seed*1000 + uint32(v)
		list[v] = uint32(n - 1 - v)
		if v%3 == 0 {
			stamps[v] = stamp
			side.want[[2]uint32{uint32(v), values[v]}] = true
		}
	}
	side.values, side.list, side.stamps = upload(t, d, u32s(values...)), upload(t, d, u32s(list...)), upload(t, d, u32s(stamps...))
	side.out, side.count = upload(t, d, make([]byte, 8*n)), upload(t, d, make([]byte, 4))
	return side
}

// The multi-GPU exchange's pack kernel run as a co-launch on two contexts
// of one GPU, each device packing the other's values into the other's
// buffer: loads, stores and atomics on the other context's allocations,
// through the unified addresses (the driver refuses peer access between
// contexts of one GPU, and the kernels need none there).
func testSystemCoLaunch(t *testing.T) {
	s := openSystem(t, 0, 0)
	k, err := kernels.Lookup("exchange_pack")
	require.NoError(t, err)
	const n, stamp = 3000, 7
	sides := []exchangeSide{newExchangeSide(t, systemDevice(t, s, 0), n, 1, stamp), newExchangeSide(t, systemDevice(t, s, 1), n, 2, stamp)}
	args := make([][]any, 2)
	for i := range 2 {
		o := sides[1-i]
		args[i] = []any{o.values, o.list, uint32(n), o.stamps, uint32(stamp), o.out, o.count}
	}
	st, err := s.CoLaunch(testContext(t), k, kernels.LaunchConfig{Grid: kernels.D1(4), Block: kernels.D1(128)}, args)
	require.NoError(t, err)
	assert.Positive(t, st.Elapsed)
	for i, side := range sides {
		d := systemDevice(t, s, i)
		count := binary.LittleEndian.Uint32(download(t, d, side.count, 4))
		require.EqualValues(t, len(side.want), count, "device %d's buffer holds the pairs the other device packed", i)
		out := download(t, d, side.out, 8*int(count))
		got := map[[2]uint32]bool{}
		for j := range int(count) {
			got[[2]uint32{binary.LittleEndian.Uint32(out[8*j:]), binary.LittleEndian.Uint32(out[8*j+4:])}] = true
		}
		assert.Equal(t, side.want, got, "device %d", i)
	}
	_, err = s.CoLaunch(testContext(t), k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, args[:1])
	assert.ErrorContains(t, err, "1 lists of arguments for a system of 2 devices")
}
