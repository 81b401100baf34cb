package memsys

// lineTable maps line addresses to per-line records (a cache's MSHRs, the
// L1s that hold a line, an L1's stale bytes): open addressing with linear
// probing, at most half full. A Go map cost a hash and a probe of its
// control bytes per lookup, and the MSHR lookup of every L1 miss and L2
// access was a sixth of a full-occupancy BFS level's memory-side time.
// Only consistency checks iterate over it (each), so its order does not
// matter.
type lineTable[T any] struct {
	keys []uint64 // line address + 1; 0: empty
	vals []*T
	n    int
}

func newLineTable[T any]() lineTable[T] {
	return lineTable[T]{keys: make([]uint64, 16), vals: make([]*T, 16)}
}

// len is the number of entries.
func (t *lineTable[T]) len() int { return t.n }

// home is the slot a line address hashes to (Fibonacci hashing spreads
// the consecutive line numbers of a stream and the strided ones alike).
func (t *lineTable[T]) home(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> 32 & uint64(len(t.keys)-1)
}

// get returns the entry for line (nil: none).
func (t *lineTable[T]) get(line uint64) *T {
	key := line + 1
	mask := uint64(len(t.keys) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key:
			return t.vals[i]
		case 0:
			return nil
		}
	}
}

// put adds the entry for line, which has none.
func (t *lineTable[T]) put(line uint64, v *T) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	key := line + 1
	mask := uint64(len(t.keys) - 1)
	i := t.home(key)
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = key, v
	t.n++
}

// del removes line's entry, if any.
func (t *lineTable[T]) del(line uint64) {
	key := line + 1
	mask := uint64(len(t.keys) - 1)
	i := t.home(key)
	for t.keys[i] != key {
		if t.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = 0, nil
	t.n--
	// Move back the entries after i that probed past it, so that no
	// lookup stops early at the hole.
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		h := t.home(t.keys[j])
		if (j-h)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			t.keys[j], t.vals[j] = 0, nil
			i = j
		}
	}
}

func (t *lineTable[T]) grow() {
	keys, vals := t.keys, t.vals
	t.keys, t.vals, t.n = make([]uint64, 2*len(keys)), make([]*T, 2*len(keys)), 0
	for i, k := range keys {
		if k != 0 {
			t.put(k-1, vals[i])
		}
	}
}

// each calls f for every entry, in no particular order.
func (t *lineTable[T]) each(f func(line uint64, v *T)) {
	for i, k := range t.keys {
		if k != 0 {
			f(k-1, t.vals[i])
		}
	}
}

// reset removes every entry, keeping the table's size.
func (t *lineTable[T]) reset() {
	if t.n == 0 {
		return
	}
	clear(t.keys)
	clear(t.vals)
	t.n = 0
}
