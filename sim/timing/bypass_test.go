package timing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStrongLoadsBypassL1 checks that volatile loads, and relaxed or
// acquire loads at a scope wider than the CTA, go to L2 every time, while
// weak and CTA-scoped loads hit in L1.
func TestStrongLoadsBypassL1(t *testing.T) {
	const n = 8
	tests := []struct {
		ld     string
		bypass bool
	}{
		{"ld.global.u32", false},
		{"ld.relaxed.cta.global.u32", false},
		{"ld.volatile.global.u32", true},
		{"ld.relaxed.gpu.global.u32", true},
		{"ld.acquire.gpu.global.u32", true},
		{"ld.acquire.sys.global.u32", true},
		{"ld.relaxed.sys.u32", true}, // generic addressing, a global lane
	}
	mem := testMemory()
	var weak uint64
	for _, tc := range tests {
		t.Run(tc.ld, func(t *testing.T) {
			// n dependent loads of the same word: each waits for the last.
			body := "\tmov.u32 %r4, 0;\n" + repeat(n, func(int) string {
				return fmt.Sprintf("%s %%r3, [%%rd3];\n\tadd.s32 %%r4, %%r4, %%r3;", tc.ld)
			}) + "\tst.global.u32 [%rd3], %r4;"
			r := newRig(t, kernel("k", body), testSM(), testLimits())
			out := r.alloc(32)
			st := r.mustRun("k", 1, 32, out, uint32(0))
			l1 := st.Memory.L1
			assert.Equal(t, uint64(n), st.GlobalLoadRequests)
			assert.Equal(t, uint64(n), l1.Reads())
			if tc.bypass {
				assert.Equal(t, uint64(n), l1.ReadBypasses)
				assert.Zero(t, l1.ReadHits)
				assert.Zero(t, st.L1HitRate)
				assert.Equal(t, float64(n), st.Counters()["l1_read_bypasses"])
				// Every load pays L2's latency instead of L1's.
				assert.Greater(t, st.Cycles, weak+uint64((n-1)*(mem.L2HitLatency-mem.L1HitLatency)*9/10))
			} else {
				assert.Zero(t, l1.ReadBypasses)
				assert.Equal(t, uint64(n-1), l1.ReadHits)
				if weak == 0 {
					weak = st.Cycles
				}
			}
		})
	}
}
