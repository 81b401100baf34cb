package timing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answeredKernel has every thread loop n times over a 64 KB table (four
// times testMemory's L1, so loads hit and miss and fills evict lines that
// loads are about to hit), a load, an atomic issued behind its lines, the
// instruction between (a fence, which waits for both, or not) and the
// load's use and a store each iteration, and end on a load that hits in L1 (after a load of
// the same line) and exit, which does not wait for the load (ret would):
// the warp may not retire before it is answered, and CTAs wait for the
// slots it frees. With 8 warps per CTA and 4 CTAs per SM, requests in
// flight reach testSM's 64 and the L1's MSHRs (16) and waiting loads (64)
// run out.
func answeredKernel(between string) string {
	return kernel("answered", fmt.Sprintf(`
	mov.u32 %%r20, 0;
	mov.u32 %%r21, 0;
	mov.u32 %%r22, %%ctaid.x;
	mad.lo.u32 %%r23, %%r22, 256, %%r2;
	add.s64 %%rd10, %%rd1, 65536;
LOOP:
	mul.lo.u32 %%r24, %%r23, 17;
	mad.lo.u32 %%r24, %%r20, 5, %%r24;
	and.b32 %%r24, %%r24, 16383;
	mul.wide.u32 %%rd11, %%r24, 4;
	add.s64 %%rd12, %%rd10, %%rd11;
	and.b32 %%r26, %%r23, 7;
	mul.wide.u32 %%rd13, %%r26, 4;
	add.s64 %%rd14, %%rd1, %%rd13;
	ld.global.u32 %%r25, [%%rd12];
	atom.global.add.u32 %%r27, [%%rd14], 1;
	%s;
	add.u32 %%r21, %%r21, %%r25;
	st.global.u32 [%%rd12], %%r21;
	add.u32 %%r20, %%r20, 1;
	setp.lt.u32 %%p1, %%r20, %%r1;
	@%%p1 bra LOOP;
	ld.global.u32 %%r28, [%%rd3];
	mul.wide.u32 %%rd20, %%r28, 0;
	add.s64 %%rd21, %%rd3, %%rd20;
	ld.global.u32 %%r30, [%%rd21];
	exit;`, between))
}

func TestAnsweredHitsKeepTheFigures(t *testing.T) {
	for _, c := range []struct {
		name, between string
		// answers: hits are answered at once (not in a kernel with a
		// fence).
		answers bool
	}{{"no fence", "add.u32 %r31, %r31, 1", true}, {"membar.cta", "membar.cta", false}, {"membar.gl", "membar.gl", false}} {
		t.Run(c.name, func(t *testing.T) {
			run := func(asMessages bool) (Stats, []uint32, uint64) {
				r := newRigWith(t, answeredKernel(c.between), testSM(), testLimits(),
					func(b Builder) Builder { return b.WithHitsAsMessages(asMessages) })
				out := r.alloc(16384 + 16384)
				st := r.mustRun("answered", 24, 256, out, uint32(24))
				return st, r.words(out, 16384+16384), r.gpu.LoadsAnsweredAtOnce()
			}
			want, wantMem, none := run(true)
			got, gotMem, answered := run(false)
			assert.Zero(t, none, "hits went as messages")
			if c.answers {
				assert.Greater(t, answered, uint64(1000), "loads answered at once")
			} else {
				assert.Zero(t, answered)
			}
			require.Equal(t, want, got, "the same figures")
			assert.Equal(t, wantMem, gotMem, "the same memory")
			assert.Positive(t, want.Memory.L1.ReadHits)
			assert.Positive(t, want.Memory.L1.ReadMisses)
		})
	}
}
