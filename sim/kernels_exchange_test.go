package sim

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpgraph/warpgraph/kernels"
)

// TestKernelExchange checks the multi-GPU exchange's kernels
// (kernels/exchange.cu) against their comment's formulas: a dense pack in
// list order, a pack of the changed entries' pairs, and the apply of both,
// counting the useful updates.
func TestKernelExchange(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		pack, apply := lookup(t, "exchange_pack"), lookup(t, "exchange_apply")
		const n = 100
		values := make([]uint32, n)
		stamps := make([]uint32, n)
		for v := range values {
			values[v] = uint32(1000 + v)
			if v%3 == 0 {
				stamps[v] = 7 // changed in the sweep stamped 7
			}
		}
		var list []uint32
		for v := uint32(1); v < n; v += 2 {
			list = append(list, v)
		}
		vals, listPtr, stampPtr := upload(t, d, values), upload(t, d, list), upload(t, d, stamps)
		dense := upload(t, d, make([]uint32, len(list)))
		// One warp over 50 entries: a grid-stride loop ending in a partial warp.
		launch(t, d, pack, 1, 32, vals, listPtr, uint32(len(list)), kernels.DevPtr(0), uint32(0), dense, kernels.DevPtr(0))
		got := download[uint32](t, d, dense, len(list))
		for i, v := range list {
			assert.Equal(t, values[v], got[i], "dense entry %d", i)
		}

		pairs, count := upload(t, d, make([]uint32, 2*len(list))), upload(t, d, []uint32{0})
		launch(t, d, pack, 2, 32, vals, listPtr, uint32(len(list)), stampPtr, uint32(7), pairs, count)
		c := int(download[uint32](t, d, count, 1)[0])
		var want []uint32
		for _, v := range list {
			if stamps[v] == 7 {
				want = append(want, v)
			}
		}
		assert.Len(t, want, c)
		raw := download[uint32](t, d, pairs, 2*c)
		var sent []uint32
		for i := 0; i < c; i++ {
			assert.Equal(t, values[raw[2*i]], raw[2*i+1], "pair %d carries its vertex's value", i)
			sent = append(sent, raw[2*i])
		}
		slices.Sort(sent)
		assert.Equal(t, want, sent)

		// Apply the pairs to a copy where some values are already current
		// and only some vertices are read.
		copyVals := make([]uint32, n)
		reads := make([]uint32, n)
		usefulWant := 0
		for v := range copyVals {
			copyVals[v] = 5
			if v%5 == 0 {
				copyVals[v] = values[v] // already current: not useful
			}
			reads[v] = uint32(v % 2)
		}
		for _, v := range want {
			if copyVals[v] != values[v] && reads[v] != 0 {
				usefulWant++
			}
		}
		dst, readPtr, useful := upload(t, d, copyVals), upload(t, d, reads), upload(t, d, []uint32{0})
		launch(t, d, apply, 1, 64, dst, pairs, pairs+4, uint32(2), uint32(c), readPtr, useful)
		after := download[uint32](t, d, dst, n)
		for v := range after {
			expect := copyVals[v]
			if slices.Contains(want, uint32(v)) {
				expect = values[v]
			}
			assert.Equal(t, expect, after[v], "vertex %d", v)
		}
		assert.Equal(t, usefulWant, int(download[uint32](t, d, useful, 1)[0]))

		// A dense buffer applies by the list it follows.
		dst2, useful2 := upload(t, d, make([]uint32, n)), upload(t, d, []uint32{0})
		launch(t, d, apply, 1, 32, dst2, listPtr, dense, uint32(1), uint32(len(list)), readPtr, useful2)
		after = download[uint32](t, d, dst2, n)
		for _, v := range list {
			assert.Equal(t, values[v], after[v])
		}
		assert.Equal(t, len(list), int(download[uint32](t, d, useful2, 1)[0]), "every odd vertex is read and changes")
	})
}
