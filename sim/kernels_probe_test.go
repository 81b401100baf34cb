package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKernelAtomicSpread: every CTA's word holds the minimum of its
// threads' values; the words between are untouched.
func TestKernelAtomicSpread(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "atomic_spread")
		for _, tc := range []struct{ grid, threads, stride, reps int }{{4, 64, 1, 3}, {3, 32, 40, 2}, {2, 96, 8, 0}} {
			t.Run(fmt.Sprintf("grid=%d/T=%d/stride=%d/reps=%d", tc.grid, tc.threads, tc.stride, tc.reps), func(t *testing.T) {
				n := (tc.grid-1)*tc.stride + 1
				out := zeros[uint32](t, d, n)
				launch(t, d, k, tc.grid, tc.threads, out, uint32(tc.stride), uint32(tc.reps))
				got := download[uint32](t, d, out, n)
				want := uint32(0xFFFFFFFF)
				for th := range tc.threads {
					for r := range tc.reps {
						want = min(want, contentionValue(uint32(th), uint32(r)))
					}
				}
				for i, g := range got {
					if i%tc.stride == 0 {
						assert.Equal(t, want, g, "CTA %d's word", i/tc.stride)
					} else {
						assert.Zero(t, g, "word %d lies between the CTAs' words", i)
					}
				}
			})
		}
	})
}

// TestKernelLoadLatency: the walk ends where the host's does, and in
// timing mode a chain that stays in L1 is faster per load than the same
// chain read with volatile loads, which go to L2.
func TestKernelLoadLatency(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "load_latency")
		const lines, words = 16, 32
		chain := make([]uint32, lines*words)
		next := func(l int) int { return (l*5 + 3) % lines } // a cycle over the 16 lines
		for l := range lines {
			chain[l*words] = uint32(next(l) * words)
		}
		in := upload(t, d, chain)
		var perLoad [2]uint64
		for strong := range 2 {
			out := zeros[uint64](t, d, 2)
			launch(t, d, k, 1, 32, in, uint32(40), uint32(strong), out)
			got := download[uint64](t, d, out, 2)
			want := 0
			for range 80 {
				want = next(want)
			}
			require.Equal(t, uint64(want*words), got[1], "strong=%d: where the walk ends", strong)
			perLoad[strong] = got[0] / 40
		}
		if d.Mode() == ModeTiming {
			assert.Less(t, perLoad[0], perLoad[1], "weak loads hit in L1, volatile ones go to L2")
		}
	})
}

// TestKernelSyncLatency: the atomics chain adds exactly steps (plus the
// final 1) and the store-and-fence loop leaves its last store; in timing
// mode both take at least an L2 round trip per step.
func TestKernelSyncLatency(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		k := lookup(t, "sync_latency")
		for kind, want := range [][2]uint32{{21, 0}, {0, 20}} {
			word := zeros[uint32](t, d, 2)
			out := zeros[uint64](t, d, 1)
			launch(t, d, k, 1, 32, word, uint32(20), uint32(kind), out)
			got := download[uint32](t, d, word, 2)
			assert.Equal(t, want[:], got, "kind %d", kind)
			if d.Mode() == ModeTiming {
				cycles := download[uint64](t, d, out, 1)[0]
				assert.GreaterOrEqual(t, cycles/20, uint64(d.Config().Memory.L1HitLatency), "kind %d: cycles per step", kind)
			}
		}
	})
}
