package hw

import (
	"fmt"
	"slices"
	"sort"

	"github.com/warpgraph/warpgraph/kernels"
)

// allocTable records a device's live allocations, so that a copy or memset
// that overruns one is a clear error instead of silently corrupting the
// neighbouring allocation (the driver checks only that pages are mapped).
type allocTable struct {
	spans []span // sorted by base
}

type span struct {
	base kernels.DevPtr
	size int
}

func (t *allocTable) add(base kernels.DevPtr, size int) {
	i := sort.Search(len(t.spans), func(i int) bool { return t.spans[i].base >= base })
	t.spans = slices.Insert(t.spans, i, span{base, size})
}

// remove forgets the allocation at base; it fails for any other address,
// including one inside an allocation and one already freed.
func (t *allocTable) remove(base kernels.DevPtr) error {
	i := sort.Search(len(t.spans), func(i int) bool { return t.spans[i].base >= base })
	if i == len(t.spans) || t.spans[i].base != base {
		return fmt.Errorf("%#x is not the start of a live allocation of this device", uint64(base))
	}
	t.spans = slices.Delete(t.spans, i, i+1)
	return nil
}

// check verifies that [p, p+n) lies inside one live allocation.
func (t *allocTable) check(p kernels.DevPtr, n int) error {
	i := sort.Search(len(t.spans), func(i int) bool { return t.spans[i].base > p }) - 1
	if i < 0 || p >= t.spans[i].base+kernels.DevPtr(t.spans[i].size) {
		return fmt.Errorf("%#x is not inside a live allocation of this device", uint64(p))
	}
	s := t.spans[i]
	if end := uint64(p-s.base) + uint64(n); end > uint64(s.size) {
		return fmt.Errorf("%d bytes at %#x (offset %d) overrun the %d-byte allocation at %#x", n, uint64(p), uint64(p-s.base), s.size, uint64(s.base))
	}
	return nil
}

// all returns the live allocations' bases, for Close to free.
func (t *allocTable) all() []kernels.DevPtr {
	bases := make([]kernels.DevPtr, len(t.spans))
	for i, s := range t.spans {
		bases[i] = s.base
	}
	return bases
}
