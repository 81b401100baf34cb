package memsys

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortOutboxIsTheStableSort deals outboxes of random receivers and due
// cycles, with many ties and stretches already in order, and checks that
// sortOutbox gives exactly what a stable sort by compareCrossings gives:
// the window's exchange depends on that order among equals.
func TestSortOutboxIsTheStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	f := &fabric{}
	for i := range 149 {
		f.doms = append(f.doms, &fabricDomain{f: f, index: i})
	}
	d := f.doms[3]
	for round := range 300 {
		n := rng.Intn(400)
		receivers := 1 + rng.Intn(len(f.doms))
		box := make([]crossing, n)
		for i := range box {
			// Each crossing's own sender end tells it apart.
			box[i] = crossing{
				at:  float64(round*10 + rng.Intn(1+rng.Intn(40))),
				src: &fabricEnd{},
				dst: &fabricEnd{dom: f.doms[rng.Intn(receivers)]},
			}
			if rng.Intn(3) == 0 && i > 0 { // runs in due order, as most are
				box[i].at = box[i-1].at + float64(rng.Intn(3))
			}
		}
		want := slices.Clone(box)
		slices.SortStableFunc(want, compareCrossings)
		d.outbox = box
		d.sortOutbox()
		require.Len(t, d.outbox, n)
		for i := range want {
			require.Same(t, want[i].src, d.outbox[i].src, "round %d, place %d", round, i)
		}
		for _, c := range d.sortSpare[:cap(d.sortSpare)] {
			require.Nil(t, c.src, "the spare holds no messages")
		}
	}
}
