package memsys

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Several devices in one system (devices.go): the refusals, where an
// address is served, and copying a device's L2.
func TestDevicesRefuseWhatTheyCannotModel(t *testing.T) {
	link := Link{LatencyCycles: 100, BytesPerCycle: 32}
	build := func(cfg Config, sms, devices int, l Link) error {
		_, err := MakeBuilder().WithEngine(newEngine()).WithConfig(cfg).WithNumSMs(sms).WithDevices(devices, l).Build("Mem")
		return err
	}
	cfg := testConfig()
	require.NoError(t, build(cfg, 4, 2, link))
	assert.ErrorContains(t, build(cfg, 3, 2, link), "whole shares: 3 SMs")
	akita := cfg
	akita.L2Model = L2AkitaWriteback
	assert.ErrorContains(t, build(akita, 4, 2, link), "sectored L1 and L2")
	assert.ErrorContains(t, build(cfg, 4, 2, Link{LatencyCycles: 100}), "positive bandwidth")
	assert.ErrorContains(t, build(cfg, 4, 2, Link{LatencyCycles: -1, BytesPerCycle: 8}), "latency of at least 0")
	coherent := cfg
	coherent.Coherence = CoherenceL1
	require.NoError(t, build(coherent, 2*200, 2, link), "L1 coherence counts SMs per device: 200 each")
	assert.ErrorContains(t, build(coherent, 2*300, 2, link), "at most 256 SMs a device")
}

func TestDevicesServeAnAddressAtItsOwnersSlices(t *testing.T) {
	lone, err := MakeBuilder().WithEngine(newEngine()).WithConfig(testConfig()).WithNumSMs(2).Build("Lone")
	require.NoError(t, err)
	sys, err := MakeBuilder().WithEngine(newEngine()).WithConfig(testConfig()).WithNumSMs(6).WithDevices(3, Link{BytesPerCycle: 16}).Build("Three")
	require.NoError(t, err)
	require.Equal(t, 12, sys.NumSlices(), "three devices' slices")
	for _, local := range []uint64{1 << 32, 1<<32 + 256, 1<<32 + 4096 + 128, 1<<32 + 1<<20} {
		for d := range 3 {
			a := uint64(d)<<deviceAddressBits + local
			assert.Equal(t, d*4+lone.SliceOf(local), sys.SliceOf(a), "device %d's address %#x: its own slices, placed as a lone device's", d, a)
		}
	}
}

func TestCopyL2Refusals(t *testing.T) {
	a, err := MakeBuilder().WithEngine(newEngine()).WithConfig(testConfig()).WithNumSMs(2).Build("A")
	require.NoError(t, err)
	cfg := testConfig()
	cfg.L2Slices = 8
	b, err := MakeBuilder().WithEngine(newEngine()).WithConfig(cfg).WithNumSMs(2).Build("B")
	require.NoError(t, err)
	assert.ErrorContains(t, CopyL2(b, 0, a, 0), "an L2 of 4 slices into one of 8")
	assert.ErrorContains(t, CopyL2(a, 1, a, 0), "device 0's L2 of 1 devices into device 1's of 1")
	require.NoError(t, CopyL2(a, 0, a, 0))
}
