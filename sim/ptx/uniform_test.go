package ptx

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aggregatedLines lists the PTX lines of fn's instructions that
// WarpAggregatedReductions marks, and of every global atomic or reduction.
func aggregatedLines(fn *Function) (marked, atomics []int32) {
	agg := WarpAggregatedReductions(fn)
	for i, in := range fn.Insts {
		if (in.Op == OpAtom || in.Op == OpRed) && in.Space == SpaceGlobal {
			atomics = append(atomics, in.Pos.PTXLine)
		}
		if agg[i] {
			marked = append(marked, in.Pos.PTXLine)
		}
	}
	return marked, atomics
}

// TestWarpAggregatedReductionsMatchH100SASS checks the analysis against
// what ptxas did to kernels/ptx/atomic_contention.ptx for the H100 (CUDA
// 13, -arch=sm_90): atomic_spread's atomicMin, on the CTA's one word with
// its result unused, became REDUX.MIN and one REDG.E.MIN per warp; the
// global contention kernel's, at addresses computed from %tid, stayed one
// REDG per lane.
func TestWarpAggregatedReductionsMatchH100SASS(t *testing.T) {
	src, err := os.ReadFile("../../kernels/ptx/atomic_contention.ptx")
	require.NoError(t, err)
	m, err := Parse("atomic_contention.ptx", src)
	require.NoError(t, err)

	marked, atomics := aggregatedLines(m.Func("atomic_spread"))
	require.Len(t, atomics, 9, "atomic_spread's unrolled loop and its remainder")
	assert.Equal(t, atomics, marked, "every atomicMin of atomic_spread is one per warp on the H100")

	marked, atomics = aggregatedLines(m.Func("atomic_contention_global"))
	require.NotEmpty(t, atomics)
	assert.Empty(t, marked, "lanes' addresses depend on %tid: one atomic per lane on the H100")
}

// TestWarpUniformRegs checks which definitions make a register uniform
// and which atomics qualify.
func TestWarpUniformRegs(t *testing.T) {
	fn := parseKernel(t, `
	ld.param.u64 %rd1, [k_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd5, %r2, 4;
	add.s64 %rd6, %rd2, %rd5;
	setp.eq.u32 %p1, %r2, 0;
	vote.sync.ballot.b32 %r3, %p1, -1;
	mov.u32 %r4, 0;
	@%p1 mov.u32 %r4, 1;
	ld.global.u32 %r5, [%rd4];
	red.global.min.u32 [%rd4], %r2;
	atom.global.add.u32 %r6, [%rd4], %r2;
	atom.global.add.u32 %r7, [%rd4], 1;
	add.u32 %r0, %r7, 1;
	red.global.add.u32 [%rd6], 1;
	red.global.add.u64 [%rd4], 1;
	atom.global.exch.b32 %r6, [%rd4], %r2;
	red.shared.add.u32 [smem], 1;
	st.global.u32 [%rd6], %r0;`)
	u := WarpUniformRegs(fn)
	for name, want := range map[string]bool{
		"%rd1": true, "%rd2": true, "%r1": true, "%rd3": true, "%rd4": true, // parameter + ctaid
		"%r2": false, "%rd5": false, "%rd6": false, "%p1": false, // from %tid
		"%r3": true,  // a ballot is the same in every lane
		"%r4": false, // two definitions: lanes took different ones
		"%r5": false, // loaded from global memory
	} {
		assert.Equal(t, want, u[reg(fn, name)], name)
	}

	agg := WarpAggregatedReductions(fn)
	var got []string
	for i, in := range fn.Insts {
		if agg[i] {
			got = append(got, in.Op.String()+"."+in.Atom.String())
		}
	}
	// red.min and the add whose result (%r6) is only overwritten qualify;
	// not the add whose result is read, a per-lane address, 64 bits, exch,
	// or shared memory.
	assert.Equal(t, []string{"red.min", "atom.add"}, got)
}
