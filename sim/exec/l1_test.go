package exec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeL1 answers every weak load with memory's value plus 1000 and records
// the calls.
type fakeL1 struct {
	loads  []string
	writes []string
}

func (f *fakeL1) HasStale(int) bool { return true }

func (f *fakeL1) LoadWeak(sm int, a uint64, n int, mem uint64) uint64 {
	f.loads = append(f.loads, fmt.Sprintf("sm%d +%d/%d mem=%d", sm, a-GlobalBase, n, mem))
	return mem + 1000
}

func (f *fakeL1) Write(sm int, a uint64, n int, old, new uint64) {
	f.writes = append(f.writes, fmt.Sprintf("sm%d +%d/%d %d->%d", sm, a-GlobalBase, n, old, new))
}

const l1PTX = `
.version 7.0
.target sm_70
.address_size 64

.visible .entry l1probe(.param .u64 buf, .param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 sh[1];
	ld.param.u64 %rd1, [buf];
	ld.param.u64 %rd2, [out];
	ld.global.u32 %r1, [%rd1];
	ld.volatile.global.u32 %r2, [%rd1];
	ld.relaxed.gpu.global.u32 %r3, [%rd1];
	ld.relaxed.cta.global.u32 %r4, [%rd1];
	ld.global.v2.u32 {%r5, %r6}, [%rd1+8];
	ld.u32 %r7, [%rd1+4];
	st.shared.u32 [sh], 9;
	mov.u64 %rd3, sh;
	cvta.shared.u64 %rd3, %rd3;
	ld.u32 %r8, [%rd3];
	st.global.u32 [%rd1+16], 5;
	atom.global.add.u32 %r9, [%rd1+20], 1;
	atom.global.add.u32 %r10, [%rd1+20], 0;
	st.global.v2.u32 [%rd2+32], {%r1, %r2};
	st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 [%rd2+16], {%r5, %r6, %r7, %r8};
	ret;
}
`

// With an L1 set, weak global loads (scalar, vector, generic to global,
// relaxed.cta) read through it and strong ones (volatile, relaxed.gpu) and
// shared ones do not; every global store and atomic reports its old and
// new value first.
func TestGridL1(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, l1PTX, fast)
		buf := m.allocU32(1, 2, 3, 4, 0, 7)
		out := m.zeros(4 * 10)
		f := &fakeL1{}
		rc := d1(1, 1)
		rc.l1 = f
		_, err := m.launch("l1probe", rc, buf, out)
		require.NoError(t, err)
		assert.Equal(t, []uint32{1001, 1, 1, 1001, 1003, 1004, 1002, 9}, m.u32s(out, 8))
		assert.Equal(t, []string{
			"sm0 +0/4 mem=1", "sm0 +0/4 mem=1", "sm0 +8/4 mem=3", "sm0 +12/4 mem=4", "sm0 +4/4 mem=2",
		}, f.loads)
		require.Len(t, f.writes, 3+2+4+4, "and one per element of the results")
		assert.Equal(t, []string{"sm0 +16/4 0->5", "sm0 +20/4 7->8", "sm0 +20/4 8->8"}, f.writes[:3])
		o := out - buf
		assert.Equal(t, []string{fmt.Sprintf("sm0 +%d/4 0->1001", o+32), fmt.Sprintf("sm0 +%d/4 0->1", o+36)}, f.writes[3:5])
		assert.Equal(t, []uint32{1, 2, 3, 4, 5, 8}, m.u32s(buf, 6))
	})
}
