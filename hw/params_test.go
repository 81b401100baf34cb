//go:build cgo

package hw

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/kernels"
)

func TestParamBlockPointsIntoPackedArgs(t *testing.T) {
	k := &kernels.Kernel{Name: "mixed", Params: []kernels.Param{
		{Name: "flags", Size: 1, Align: 1},
		{Name: "out", Size: 8, Align: 8}, // padded to offset 8
		{Name: "n", Size: 4, Align: 4},
		{Name: "scale", Size: 4, Align: 4},
		{Name: "seed", Size: 8, Align: 8}, // padded to offset 24
	}}
	packed, err := k.PackArgs(uint8(7), kernels.DevPtr(0x7f0000001000), int32(-3), float32(2.5), uint64(1<<40+5))
	require.NoError(t, err)
	offsets := k.ParamOffsets()
	require.Equal(t, []int{0, 8, 16, 20, 24}, offsets)

	b := newParamBlock(packed, offsets)
	defer b.free()
	ptrs := unsafe.Slice(b.kernelParams(), len(offsets))
	// Each kernelParams entry must point at its parameter's bytes, which
	// the driver reads with the parameter's size.
	read := func(i, size int) []byte { return unsafe.Slice((*byte)(ptrs[i]), size) }
	le := binary.LittleEndian
	assert.Equal(t, byte(7), read(0, 1)[0])
	assert.Equal(t, uint64(0x7f0000001000), le.Uint64(read(1, 8)))
	assert.Equal(t, int32(-3), int32(le.Uint32(read(2, 4))))
	assert.Equal(t, float32(2.5), math.Float32frombits(le.Uint32(read(3, 4))))
	assert.Equal(t, uint64(1<<40+5), le.Uint64(read(4, 8)))
	for i, p := range ptrs {
		assert.Zero(t, uintptr(p)%uintptr(k.Params[i].Align), "parameter %d misaligned", i)
	}
}

func TestParamBlockWithoutParams(t *testing.T) {
	b := newParamBlock(nil, nil)
	defer b.free()
	assert.Nil(t, b.kernelParams(), "a kernel without parameters gets NULL kernelParams")
}

func TestParamBlockReusesItsMemory(t *testing.T) {
	var b paramBlock
	defer b.free()
	word := func(i int) uint32 {
		return binary.LittleEndian.Uint32(unsafe.Slice((*byte)(unsafe.Slice(b.kernelParams(), b.count)[i]), 4))
	}
	b.set([]byte{1, 0, 0, 0}, []int{0})
	assert.Equal(t, uint32(1), word(0))
	values, pointers := b.values, b.pointers
	b.set([]byte{2, 0, 0, 0, 3, 0, 0, 0}, []int{0, 4})
	assert.Equal(t, values, b.values, "no new allocation for a small block")
	assert.Equal(t, pointers, b.pointers)
	assert.Equal(t, []uint32{2, 3}, []uint32{word(0), word(1)})

	big := make([]byte, 1024)
	offsets := make([]int, 64)
	for i := range offsets {
		offsets[i] = 16 * i
		big[16*i] = byte(i)
	}
	b.set(big, offsets)
	for i := range offsets {
		require.Equal(t, uint32(i), word(i), "parameter %d", i)
	}
	b.set(nil, nil)
	assert.Nil(t, b.kernelParams())
}
