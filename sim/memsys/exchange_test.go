package memsys

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/sarchlab/akita/v3/sim"
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
		d.boxes[0] = box
		d.sortOutbox(0)
		require.Len(t, d.boxes[0], n)
		for i := range want {
			require.Same(t, want[i].src, d.boxes[0][i].src, "round %d, place %d", round, i)
		}
		for _, c := range d.sortSpare[:cap(d.sortSpare)] {
			require.Nil(t, c.src, "the spare holds no messages")
		}
	}
}

// TestWindowEndHandsCrossingsToTheNextWindow sends crossings from two
// domains to a third in one window, ends it, lets the senders send again
// in the next, and checks what the receiver takes then: the first window's
// crossings alone, by due cycle and then by sender, the late one held to
// the window's end; and that a window cannot end, nor the receivers be
// taken between windows, while some receiver has not taken its own.
func TestWindowEndHandsCrossingsToTheNextWindow(t *testing.T) {
	f := &fabric{freq: 1 * sim.GHz}
	for i := range 4 {
		f.doms = append(f.doms, newFabricDomain(f, i, sim.NewSerialEngine()))
	}
	f.sizeSlots()
	dst := &fabricEnd{dom: f.doms[0]}
	from1, from2 := &fabricEnd{dom: f.doms[1]}, &fabricEnd{dom: f.doms[2]}
	send := func(src *fabricEnd, at float64) {
		src.dom.send(crossing{at: at, src: src, dst: dst})
	}
	// Window 1, ending at cycle 100: sender 2 first, then sender 1, one
	// tie at cycle 130 and one crossing due before the window's end.
	send(from2, 130)
	send(from2, 150)
	send(from1, 140)
	send(from1, 130)
	send(from1, 90)
	receivers := f.endWindow(sim.VTimeInSec(99e-9), 100, []int{1, 2})
	require.Equal(t, []int{0}, receivers)
	require.PanicsWithValue(t, "memsys: a window ended before every receiver of the last took its crossings",
		func() { f.endWindow(sim.VTimeInSec(199e-9), 200, nil) })

	// Window 2: sender 1 sends again while the receiver takes window 1's.
	send(from1, 210)
	f.receiveFor(0)
	type got struct {
		at  float64
		src *fabricEnd
	}
	var order []got
	for dst.pending.len() > 0 {
		d := dst.pending.pop()
		order = append(order, got{d.at, d.src})
	}
	require.Equal(t, []got{{100, from1}, {130, from1}, {130, from2}, {140, from1}, {150, from2}}, order)
	require.Equal(t, uint64(1), f.lateCrossings())
	require.Len(t, f.doms[1].boxes[f.sealParity], 1, "the second window's crossing waits for its own window's end")

	// Window 2 ends; its receiver takes between the windows.
	require.Equal(t, []int{0}, f.endWindow(sim.VTimeInSec(199e-9), 200, []int{1}))
	f.receiveAll(nil)
	require.Equal(t, 1, dst.pending.len())
	require.Equal(t, 210.0, dst.pending.pop().at)

	// Window 3: two receivers, one of which takes in its task; the other
	// cannot then be taken with receiveAll. Sender 2 runs again without
	// sending: its box of window 1's parity, taken long ago, must not be
	// handed out again.
	other := &fabricEnd{dom: f.doms[3]}
	from1.dom.send(crossing{at: 310, src: from1, dst: dst})
	from1.dom.send(crossing{at: 320, src: from1, dst: other})
	from2.dom.seal()
	require.Equal(t, []int{0, 3}, f.endWindow(sim.VTimeInSec(299e-9), 300, []int{1, 2}))
	f.receiveFor(3)
	require.PanicsWithValue(t, "memsys: some receivers took their crossings in a window, some between", func() { f.receiveAll(nil) })
	f.receiveFor(0)
	require.Equal(t, 1, dst.pending.len(), "window 3's one crossing to domain 0, none of window 1's again")
	require.Equal(t, 310.0, dst.pending.pop().at)
	require.Equal(t, 1, other.pending.len())

	// Window 4: a sender that sealed and then sent again is sealed again
	// at the window's end.
	from2.dom.send(crossing{at: 410, src: from2, dst: dst})
	from2.dom.seal()
	from2.dom.send(crossing{at: 420, src: from2, dst: dst})
	require.Equal(t, []int{0}, f.endWindow(sim.VTimeInSec(399e-9), 400, []int{2}))
	f.receiveAll(nil)
	require.Equal(t, 2, dst.pending.len())
}
