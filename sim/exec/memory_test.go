package exec

import (
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
