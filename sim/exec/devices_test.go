package exec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The devices' memory windows of one address space (NewMemoryOf).
func TestDeviceWindows(t *testing.T) {
	assert.Equal(t, GlobalBase, DeviceBase(0))
	assert.Equal(t, NewMemory(0).Base(), GlobalBase, "a lone device's memory is device 0's")
	assert.Less(t, DeviceBase(MaxDevices-1)+DeviceStride, LocalWindow+1, "every window lies below the local and shared windows")
	for _, d := range []int{0, 1, 7, MaxDevices - 1} {
		m := NewMemoryOf(d, 1<<20)
		a, err := m.Alloc(100)
		require.NoError(t, err)
		assert.Equal(t, DeviceBase(d), a, "device %d's first allocation", d)
		assert.Equal(t, d, DeviceOf(a))
		assert.Equal(t, d, DeviceOf(a+DeviceStride-1-(a-DeviceBase(d))), "the window's last byte")
		require.NoError(t, m.Write(a+96, []byte{1, 2, 3, 4}))
		b := make([]byte, 4)
		require.NoError(t, m.Read(b, a+96))
		assert.Equal(t, []byte{1, 2, 3, 4}, b)
		assert.Error(t, m.Write(DeviceBase(d+1), []byte{1}), "device %d's memory holds nothing of the next window", d)
	}
	assert.Equal(t, -1, DeviceOf(GlobalBase-1))
	assert.Equal(t, -1, DeviceOf(LocalWindow))
	assert.Panics(t, func() { NewMemoryOf(MaxDevices, 0) })
	assert.Panics(t, func() { NewMemoryOf(-1, 0) })
	_, err := NewMemoryOf(1, 512).Alloc(1024)
	assert.ErrorContains(t, err, "out of device memory", "the limit holds in every window")
}
