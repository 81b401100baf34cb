package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

func TestReserveKeepsAddressesAndValues(t *testing.T) {
	vals := []uint32{7, 8, 9}
	run := func(reserve int) ([]kernels.DevPtr, []uint32) {
		d := tinyDevice(t)
		d.Reserve(reserve)
		var ptrs []kernels.DevPtr
		for range 3 {
			ptrs = append(ptrs, upload(t, d, vals))
		}
		got := download[uint32](t, d, ptrs[2], 3)
		require.NoError(t, d.Close())
		d.Reserve(reserve) // a closed device ignores it
		return ptrs, got
	}
	plain, plainVals := run(0)
	reserved, reservedVals := run(1 << 20)
	assert.Equal(t, plain, reserved)
	assert.Equal(t, vals, plainVals)
	assert.Equal(t, vals, reservedVals)
}
