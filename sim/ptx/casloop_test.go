package ptx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const floatAddSrc = `.version 7.0
.target sm_70
.address_size 64

.visible .entry adds(
	.param .u64 adds_param_0
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 cache[64];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 8;
	mov.u64 %rd1, cache;
	atom.shared.add.f32 %f1, [%rd1], 0f3F800000;
	@%p1 atom.shared.add.f32 %f2, [%rd1+4], %f1;
	@!%p1 red.shared.add.f32 [cache+8], %f1;
	atom.shared.add.u32 %r2, [%rd1+12], 1;
	atom.global.add.f32 %f3, [%rd1], %f1;
	ret;
}
`

// TestExpandSharedFloatAdds: the three shared float adds (plain, guarded,
// and a reduction under a negated guard) become compare-and-swap loops on
// their own lines, the integer and global adds stay, and the module parses
// with every instruction on its original PTX line.
func TestExpandSharedFloatAdds(t *testing.T) {
	out, n, err := ExpandSharedFloatAdds([]byte(floatAddSrc))
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	text := string(out)
	assert.Equal(t, strings.Count(floatAddSrc, "\n"), strings.Count(text, "\n"), "lines kept")
	assert.NotContains(t, text, "shared.add.f32")
	assert.Equal(t, 3, strings.Count(text, "atom.shared.cas.b32"))
	assert.Contains(t, text, "atom.shared.add.u32 %r2")
	assert.Contains(t, text, "atom.global.add.f32 %f3")
	assert.Contains(t, text, "{ .reg .pred %wgcasp<3>; .reg .f32 %wgcasf<9>;")
	assert.Contains(t, text, "@!%p1 bra $WGCAS_1_SKIP;", "the guarded add skips its loop where the guard fails")
	assert.Contains(t, text, "@%p1 bra $WGCAS_2_SKIP;", "the negated guard skips where the predicate holds")
	assert.Contains(t, text, "mov.f32 %f1, %wgcasf0;", "the atom's result is the value its swap replaced")

	m, err := Parse("adds.ptx", out)
	require.NoError(t, err)
	fn := m.Funcs[m.FuncsByName["adds"]]
	lines := map[int32]int{}
	for i := range fn.Insts {
		lines[fn.Insts[i].Pos.PTXLine]++
	}
	// Line 17 (the first add) holds its loop: ld, add, cas, setp, bra, mov;
	// line 18 the guarded one's, after the branch past it.
	assert.Equal(t, 6, lines[17])
	assert.Equal(t, 7, lines[18])

	_, _, err = ExpandSharedFloatAdds([]byte("atom.shared.add.f32 %f1, [%rd1], %f2;\n"))
	assert.ErrorContains(t, err, "outside a function body")
	_, _, err = ExpandSharedFloatAdds([]byte("{\n\tatom.shared.add.f32 %f1, [%rd1];\n}\n"))
	assert.ErrorContains(t, err, "unexpected operands")
}
