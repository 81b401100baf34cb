package sim

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim/exec"
)

// Co-launches (colaunch.go): one kernel on every device of a system at
// once, reaching the other devices' memory (testdata/peer.cu).

func TestPeerTestdataFresh(t *testing.T) { checkTestdataFresh(t, "peer") }

func words(vals ...uint32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func readWords(t *testing.T, dev kernels.Device, p kernels.DevPtr, n int) []uint32 {
	t.Helper()
	b := read(t, dev, p, 4*n)
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// ring is the peer_push ring of a system: device i pushes counts[i]
// values into device (i+1) mod n's queue and waits for its own to fill.
type ring struct {
	values, tail, items, abort []kernels.DevPtr
	sent                       [][]uint32
}

func newRing(t *testing.T, s *System, counts []int) *ring {
	t.Helper()
	r := &ring{}
	for i, dev := range s.Devices() {
		vals := make([]uint32, counts[i])
		for j := range vals {
			vals[j] = uint32(1000*(i+1) + j)
		}
		r.sent = append(r.sent, vals)
		r.values = append(r.values, alloc(t, dev, 4*max(len(vals), 1), words(vals...)))
		r.tail = append(r.tail, alloc(t, dev, 4, nil))
		r.items = append(r.items, alloc(t, dev, 4*(slices.Max(counts)+1), nil))
		r.abort = append(r.abort, alloc(t, dev, 4, nil))
	}
	return r
}

// args are the co-launch's arguments, device i expecting expected[i]
// pushes.
func (r *ring) args(expected []uint32, budget uint32) [][]any {
	n := len(r.tail)
	out := make([][]any, n)
	for i := range n {
		to := (i + 1) % n
		out[i] = []any{r.values[i], uint32(len(r.sent[i])), r.tail[to], r.items[to], r.tail[i], expected[i], budget, r.abort[i]}
	}
	return out
}

func TestCoLaunchPushesIntoEveryPeersQueue(t *testing.T) {
	k := testdataKernel(t, "peer", "peer_push")
	for _, n := range []int{2, 4} {
		s := openTinyX4(t, n)
		devs := s.Devices()
		counts := []int{70, 33, 128, 5}[:n]
		r := newRing(t, s, counts)
		for i := range n {
			assert.Equal(t, i, exec.DeviceOf(uint64(r.tail[i])), "device %d's pointers lie in its own window", i)
		}
		expected := make([]uint32, n)
		for i := range n {
			expected[(i+1)%n] = uint32(counts[i])
		}
		before := s.Clock()
		st, err := s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(64)}, r.args(expected, 0))
		require.NoError(t, err, "%d devices", n)
		assert.Greater(t, s.Clock(), before, "a co-launch takes the system's time")
		assert.EqualValues(t, n, st.Counters["devices"])
		assert.Positive(t, st.Counters["warp_instructions"])
		for i := range n {
			from := (i + n - 1) % n
			dev := devs[i]
			tail := readWords(t, dev, r.tail[i], 1)[0]
			require.EqualValues(t, counts[from], tail, "device %d's queue received device %d's pushes", i, from)
			got := readWords(t, dev, r.items[i], counts[from])
			slices.Sort(got)
			assert.Equal(t, r.sent[from], got, "device %d's queue holds device %d's values once each", i, from)
			assert.Zero(t, readWords(t, dev, r.abort[i], 1)[0])
		}
	}
}

func TestCoLaunchThatCannotFinishIsADeadlockOfTheWhole(t *testing.T) {
	k := testdataKernel(t, "peer", "peer_push")
	for _, mode := range modes {
		s, err := OpenSystem("tiny-x4", 2, WithMode(mode), WithDeadlockWindow(20000))
		require.NoError(t, err)
		defer s.Close()
		r := newRing(t, s, []int{10, 10})
		// Device 1 waits for more pushes than device 0 sends: device 0
		// finishes, device 1 spins on its tail for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err = s.CoLaunch(ctx, k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, r.args([]uint32{10, 11}, 0))
		var dl *kernels.DeadlockError
		require.ErrorAs(t, err, &dl, "%s: %v", mode, err)
		assert.Equal(t, "peer_push", dl.Kernel)
		assert.Contains(t, dl.Detail, "device 1 CTA 0 warp 0", "%s: the diagnosis names the device that waits", mode)
		assert.NotContains(t, dl.Detail, "device 0", "%s: device 0 finished", mode)
		assert.NoError(t, ctx.Err(), "%s: found by the detector, not the deadline", mode)
		// Every push landed all the same.
		assert.Equal(t, []uint32{10}, readWords(t, s.Devices()[1], r.tail[1], 1), mode)
	}
}

func TestPeerMemoryOnlyInACoLaunch(t *testing.T) {
	k := testdataKernel(t, "peer", "peer_push")
	s := openTinyX4(t, 2)
	r := newRing(t, s, []int{4, 4})
	a := r.args([]uint32{0, 0}, 0)
	// Device 0 alone, pushing into device 1's queue: the simulator runs
	// kernels that reach another device only as a co-launch, so that they
	// are simulated together.
	_, err := s.Devices()[0].Launch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, a[0]...)
	var mf *kernels.MemoryFaultError
	require.ErrorAs(t, err, &mf)
	assert.Contains(t, mf.Detail, "co-launch")
}

func TestCoLaunchRefusals(t *testing.T) {
	k := testdataKernel(t, "peer", "peer_push")
	s := openTinyX4(t, 2)
	r := newRing(t, s, []int{4, 4})
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}
	_, err := s.CoLaunch(context.Background(), k, cfg, r.args([]uint32{0, 0}, 0)[:1])
	assert.ErrorContains(t, err, "1 lists of arguments for a system of 2 devices")
	_, err = s.CoLaunch(context.Background(), nil, cfg, nil)
	assert.ErrorContains(t, err, "nil kernel")
	bad := r.args([]uint32{0, 0}, 0)
	bad[1] = bad[1][:3]
	_, err = s.CoLaunch(context.Background(), k, cfg, bad)
	assert.ErrorContains(t, err, "device 1")

	sampled, err := OpenSystem("tiny-x4", 2, WithMode(ModeSampled))
	require.NoError(t, err)
	defer sampled.Close()
	rs := newRing(t, sampled, []int{4, 4})
	_, err = sampled.CoLaunch(context.Background(), k, cfg, rs.args([]uint32{0, 0}, 0))
	assert.ErrorContains(t, err, "sampled mode")
}

// coLaunchRing runs the ring on a timing system of n devices with opts and
// returns the co-launch's statistics, after checking every queue.
func coLaunchRing(t *testing.T, n int, toSelf bool, opts ...Option) kernels.LaunchStats {
	t.Helper()
	k := testdataKernel(t, "peer", "peer_push")
	s, err := OpenSystem("tiny-x4", n, opts...)
	require.NoError(t, err)
	defer s.Close()
	counts := []int{200, 150, 256, 90}[:n]
	r := newRing(t, s, counts)
	expected := make([]uint32, n)
	for i := range n {
		expected[(i+1)%n] = uint32(counts[i])
	}
	args := r.args(expected, 0)
	if toSelf {
		// Each device pushes into its own queue and waits for its own
		// pushes: the same work, no link.
		for i := range n {
			args[i][2], args[i][3], args[i][5] = r.tail[i], r.items[i], uint32(counts[i])
		}
	}
	st, err := s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(64)}, args)
	require.NoError(t, err)
	for i := range n {
		from := (i + n - 1) % n
		if toSelf {
			from = i
		}
		got := readWords(t, s.Devices()[i], r.items[i], counts[from])
		slices.Sort(got)
		require.Equal(t, r.sent[from], got, "device %d's queue", i)
	}
	return st
}

func TestCoLaunchInTiming(t *testing.T) {
	for _, n := range []int{2, 4} {
		peer := coLaunchRing(t, n, false)
		local := coLaunchRing(t, n, true)
		require.Positive(t, peer.Cycles)
		assert.Positive(t, peer.Counters["link_bytes"], "%d devices: the pushes' data crossed the link", n)
		assert.Zero(t, local.Counters["link_bytes"])
		// tiny-x4's 500 ns each way at tiny's clock, at least once there
		// and back on the pushes' and the waits' path.
		f, err := LoadConfig("tiny-x4")
		require.NoError(t, err)
		link := uint64(f.System.Link.AccessLatencyNs) * uint64(f.ClockMHz) / 1000
		assert.Greater(t, peer.Cycles, local.Cycles+2*link, "%d devices: a peer's queue is a link away", n)
	}
}

// TestCoLaunchSameAtEveryThreadCount: the co-launch's model runs on the
// window engine, whose figures are the same for every thread count.
func TestCoLaunchSameAtEveryThreadCount(t *testing.T) {
	var first kernels.LaunchStats
	for i, threads := range []int{1, 2, 3} {
		st := coLaunchRing(t, 4, false, WithThreads(threads))
		if i == 0 {
			first = st
			continue
		}
		assert.Equal(t, first.Cycles, st.Cycles, "%d threads", threads)
		assert.Equal(t, first.Counters, st.Counters, "%d threads", threads)
	}
}

// packSide is one device's buffers for exchange_pack: n values (device
// i's own), listed in reverse, every third stamped, the out buffer and
// count that another device's kernel may fill, and the pairs it packs.
type packSide struct {
	values, list, stamps, out, count kernels.DevPtr
	want                             [][2]uint32
}

const packStamp = 7

func newPackSide(t *testing.T, dev kernels.Device, i, n int) packSide {
	values, stamps, list := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	var sd packSide
	for v := range n {
		values[v] = uint32(1000*(i+1) + v)
		list[v] = uint32(n - 1 - v)
		if v%3 == 0 {
			stamps[v] = packStamp
			sd.want = append(sd.want, [2]uint32{uint32(v), values[v]})
		}
	}
	sd.values, sd.list, sd.stamps = alloc(t, dev, 4*n, words(values...)), alloc(t, dev, 4*n, words(list...)), alloc(t, dev, 4*n, words(stamps...))
	sd.out, sd.count = alloc(t, dev, 8*n, nil), alloc(t, dev, 4, nil)
	return sd
}

// packArgs packs from's values into into's buffer.
func packArgs(from, into packSide, n int) []any {
	return []any{from.values, from.list, uint32(n), from.stamps, uint32(packStamp), into.out, into.count}
}

// packed are the pairs dev's buffer of sd holds, by vertex.
func packed(t *testing.T, dev kernels.Device, sd packSide) [][2]uint32 {
	count := int(readWords(t, dev, sd.count, 1)[0])
	out := readWords(t, dev, sd.out, 2*count)
	var got [][2]uint32
	for j := range count {
		got = append(got, [2]uint32{out[2*j], out[2*j+1]})
	}
	slices.SortFunc(got, func(a, b [2]uint32) int { return int(a[0]) - int(b[0]) })
	return got
}

// The multi-GPU exchange's pack kernel as a co-launch, each device packing
// the other's values into the other's buffer (the same run as package hw's
// TestHardwareSystem/CoLaunchReachesThePeersMemory on two contexts of one
// GPU): loads, stores and atomics all on the other device's memory.
func TestCoLaunchPacksThePeersValues(t *testing.T) {
	k, err := kernels.Lookup("exchange_pack")
	require.NoError(t, err)
	s := openTinyX4(t, 2)
	const n = 300
	var sides []packSide
	for i, dev := range s.Devices() {
		sides = append(sides, newPackSide(t, dev, i, n))
	}
	args := [][]any{packArgs(sides[1], sides[1], n), packArgs(sides[0], sides[0], n)}
	_, err = s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(64)}, args)
	require.NoError(t, err)
	for i, sd := range sides {
		assert.Equal(t, sd.want, packed(t, s.Devices()[i], sd), "device %d's buffer holds the pairs the other device packed", i)
	}
}

// A co-launch sees the L2 each device's own launches left, and leaves its
// own behind for them: a chain that device 1 walked is read by device 0's
// co-launched walk from device 1's L2, not its DRAM, and device 1's next
// launch finds it there still.
func TestCoLaunchSharesTheDevicesL2s(t *testing.T) {
	k, err := kernels.Lookup("load_latency")
	require.NoError(t, err)
	const lines, perLine = 64, 32 // 8 KB, one word per 128-byte line
	chain := make([]uint32, lines*perLine)
	for l := range lines {
		chain[l*perLine] = uint32((l + 1) % lines * perLine)
	}
	walk := kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}
	dramReads := func(warm bool) (coDRAM, afterDRAM float64) {
		s, err := OpenSystem("tiny-x4", 2)
		require.NoError(t, err)
		defer s.Close()
		devs := s.Devices()
		c1 := alloc(t, devs[1], 4*len(chain), words(chain...))
		out0, out1 := alloc(t, devs[0], 16, nil), alloc(t, devs[1], 16, nil)
		if warm {
			_, err := devs[1].Launch(context.Background(), k, walk, c1, uint32(lines), uint32(1), out1)
			require.NoError(t, err)
		}
		st, err := s.CoLaunch(context.Background(), k, walk, [][]any{{c1, uint32(lines), uint32(1), out0}, {c1, uint32(0), uint32(1), out1}})
		require.NoError(t, err)
		assert.EqualValues(t, 2*lines%lines*perLine, readWords(t, devs[0], out0+8, 1)[0], "the walk ends where it began")
		after, err := devs[1].Launch(context.Background(), k, walk, c1, uint32(lines), uint32(1), out1)
		require.NoError(t, err)
		return st.Counters["dram_read_bytes"], after.Counters["dram_read_bytes"]
	}
	coCold, afterCold := dramReads(false)
	coWarm, afterWarm := dramReads(true)
	assert.Positive(t, coCold, "a cold L2 reads the chain from DRAM")
	assert.Zero(t, coWarm, "device 1's walk left the chain in its L2 for the co-launch")
	assert.Zero(t, afterCold, "the co-launch left the chain in device 1's L2 for its next launch")
	assert.Zero(t, afterWarm)
}

// A co-launch of one CTA per device runs every device's CTA: each device
// packs its own values into the next one's buffer (local loads, stores
// and atomics across the link), in both modes.
func TestCoLaunchRunsEveryDevicesCTAs(t *testing.T) {
	k, err := kernels.Lookup("exchange_pack")
	require.NoError(t, err)
	for _, mode := range modes {
		for _, n := range []int{2, 4} {
			s, err := OpenSystem("tiny-x4", n, WithMode(mode))
			require.NoError(t, err)
			defer s.Close()
			const size = 50
			var sides []packSide
			for i, dev := range s.Devices() {
				sides = append(sides, newPackSide(t, dev, i, size))
			}
			args := make([][]any, n)
			for i := range n {
				args[i] = packArgs(sides[i], sides[(i+1)%n], size)
			}
			_, err = s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(64)}, args)
			require.NoError(t, err)
			for i, dev := range s.Devices() {
				assert.Equal(t, sides[(i+n-1)%n].want, packed(t, dev, sides[i]), "%s, %d devices: device %d received the previous one's pairs", mode, n, i)
			}
		}
	}
}

// A profiled system records each co-launch as one launch of every
// device's warps, its cycles charged to them whole.
func TestCoLaunchIsProfiled(t *testing.T) {
	p := NewProfile()
	k := testdataKernel(t, "peer", "peer_push")
	s, err := OpenSystem("tiny-x4", 2, WithProfileInto(p))
	require.NoError(t, err)
	defer s.Close()
	r := newRing(t, s, []int{40, 40})
	_, err = s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(64)}, r.args([]uint32{40, 40}, 0))
	require.NoError(t, err)
	require.Equal(t, 1, p.Launches())
	assert.Zero(t, p.Unbalanced())
	lp := p.launches[0]
	assert.Equal(t, "peer_push", lp.kernel)
	assert.Equal(t, 4, lp.ctas, "both devices' CTAs")
	assert.Equal(t, OutcomeCompleted, lp.outcome)
}

// Atos's workers across devices, in miniature (testdata/peer.cu,
// peer_bfs): each device owns a range of vertices with their out-edges and
// a task queue; a worker relaxes a vertex's edges with atomicMin on the
// owner's depths and pushes each improved neighbour into its owner's
// queue; a count of unfinished tasks on device 0 ends the run. The depths
// match graph/ref's BFS on 1, 2 and 4 devices, in both modes.
func TestCoLaunchRunsAtosStyleBFSAcrossDevices(t *testing.T) {
	k := testdataKernel(t, "peer", "peer_bfs")
	g, err := graph.Load("rmat:scale=8+perm=1", graph.LoadOptions{})
	require.NoError(t, err)
	n := g.NumVertices()
	const src = 3
	want := ref.BFS(g, src)
	for _, mode := range modes {
		for _, p := range []int{1, 2, 4} {
			s, err := OpenSystem("tiny-x4", p, WithMode(mode))
			require.NoError(t, err)
			defer s.Close()
			devs := s.Devices()
			chunk := (n + p - 1) / p
			empty := func(words int) []byte {
				b := make([]byte, 4*words)
				for i := range b {
					b[i] = 0xFF
				}
				return b
			}
			rows, cols, depths, items, tails, heads := make([]kernels.DevPtr, p), make([]kernels.DevPtr, p), make([]kernels.DevPtr, p), make([]kernels.DevPtr, p), make([]kernels.DevPtr, p), make([]kernels.DevPtr, p)
			for d, dev := range devs {
				lo, hi := min(d*chunk, n), min((d+1)*chunk, n)
				row := []uint32{0}
				var col []uint32
				for v := lo; v < hi; v++ {
					col = append(col, g.Neighbors(uint32(v))...)
					row = append(row, uint32(len(col)))
				}
				rows[d], cols[d] = alloc(t, dev, 4*len(row), words(row...)), alloc(t, dev, 4*max(len(col), 1), words(col...))
				depths[d] = alloc(t, dev, 4*chunk, empty(chunk))
				items[d] = alloc(t, dev, 4*(len(g.Targets)+1), empty(len(g.Targets)+1))
				tails[d], heads[d] = alloc(t, dev, 4, nil), alloc(t, dev, 4, nil)
			}
			ptrs := func(dev kernels.Device, ps []kernels.DevPtr) kernels.DevPtr {
				b := make([]byte, 8*len(ps))
				for i, q := range ps {
					binary.LittleEndian.PutUint64(b[8*i:], uint64(q))
				}
				return alloc(t, dev, len(b), b)
			}
			owner := src / chunk
			require.NoError(t, devs[owner].CopyToDevice(depths[owner]+kernels.DevPtr(4*(src-owner*chunk)), words(0)))
			require.NoError(t, devs[owner].CopyToDevice(items[owner], words(src)))
			require.NoError(t, devs[owner].CopyToDevice(tails[owner], words(1)))
			pending, abort := alloc(t, devs[0], 4, words(1)), alloc(t, devs[0], 4, nil)
			args := make([][]any, p)
			for d, dev := range devs {
				args[d] = []any{uint32(d), uint32(chunk), rows[d], cols[d], ptrs(dev, depths), ptrs(dev, items), ptrs(dev, tails), heads[d], pending, uint32(0), abort}
			}
			st, err := s.CoLaunch(context.Background(), k, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(64)}, args)
			require.NoError(t, err, "%s on %d devices", mode, p)
			var got []uint32
			for d, dev := range devs {
				got = append(got, readWords(t, dev, depths[d], chunk)...)
			}
			assert.Equal(t, want, got[:n], "%s on %d devices: depths", mode, p)
			if mode == ModeTiming && p > 1 {
				assert.Positive(t, st.Counters["link_bytes"], "%d devices: pushes and relaxations crossed the link", p)
			}
		}
	}
}
