package exec

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllocator(t *testing.T) {
	m := NewMemory(1 << 20)
	a, err := m.Alloc(10)
	require.NoError(t, err)
	assert.Equal(t, GlobalBase, a, "the first allocation is at the base, never at 0")
	b, err := m.Alloc(300)
	require.NoError(t, err)
	assert.Equal(t, GlobalBase+AllocAlign, b)
	c, err := m.Alloc(1)
	require.NoError(t, err)
	assert.Equal(t, GlobalBase+3*AllocAlign, c)
	for _, p := range []uint64{a, b, c} {
		assert.Zero(t, p%AllocAlign)
	}

	require.NoError(t, m.Write(b, []byte{1, 2, 3}))
	require.NoError(t, m.Free(b))
	assert.Error(t, m.Free(b), "double free")
	assert.Error(t, m.Write(b, []byte{1}), "write to freed memory")
	d, err := m.Alloc(256)
	require.NoError(t, err)
	assert.Equal(t, b, d, "first fit reuses the hole")
	got := make([]byte, 3)
	require.NoError(t, m.Read(got, d))
	assert.Equal(t, []byte{0, 0, 0}, got, "allocations are zeroed")

	assert.Error(t, m.Write(a, make([]byte, 257)), "a copy may not cross an allocation's end")
	assert.Error(t, m.Read(make([]byte, 4), 0), "null")
	assert.Error(t, m.Fill(c+200, 1, 100))
	require.NoError(t, m.Fill(c, 0xAB, 256))

	size := m.Size()
	require.NoError(t, m.Free(c))
	assert.Less(t, m.Size(), size, "freeing the top shrinks the image")
	require.NoError(t, m.Free(d))
	require.NoError(t, m.Free(a))
	assert.Zero(t, m.Size())

	_, err = m.Alloc(2 << 20)
	assert.ErrorContains(t, err, "out of device memory")
	_, err = m.Alloc(-1)
	assert.Error(t, err)
}

func TestImageGrowth(t *testing.T) {
	tests := []struct {
		name    string
		reserve int
	}{
		{"growing", 0},
		{"reserved", 64 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMemory(1 << 20)
			m.Reserve(tc.reserve)
			var addrs []uint64
			for i := range 24 {
				a, err := m.Alloc(1000 + i)
				require.NoError(t, err)
				require.NoError(t, m.Fill(a, 0xCD, 1000+i))
				addrs = append(addrs, a)
			}
			for i, a := range addrs {
				assert.Equal(t, GlobalBase+uint64(i)*4*AllocAlign, a, "Reserve never changes an address")
				got := make([]byte, 1000+i)
				require.NoError(t, m.Read(got, a))
				assert.Equal(t, bytes.Repeat([]byte{0xCD}, 1000+i), got, "moving the image keeps its contents")
			}
			// Shrink the image, then reach into the bytes it left.
			for _, a := range addrs[12:] {
				require.NoError(t, m.Free(a))
			}
			a, err := m.Alloc(30 << 10)
			require.NoError(t, err)
			assert.Equal(t, addrs[12], a)
			got := make([]byte, 30<<10)
			require.NoError(t, m.Read(got, a))
			assert.Equal(t, make([]byte, 30<<10), got, "an allocation over bytes the image used before is zeroed")
		})
	}
	m := NewMemory(4096)
	m.Reserve(1 << 20)
	assert.LessOrEqual(t, cap(m.data), 4096, "the room is capped at the limit")
}
