package ptx

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeReduxAndMatchPredicate(t *testing.T) {
	fn := parseKernel(t, "redux.sync.min.s32 %r1, %r2, %r3;")
	in := fn.Insts[0]
	assert.Equal(t, OpRedux, in.Op)
	assert.Equal(t, AtomMin, in.Atom)
	assert.Equal(t, TypeS32, in.Type)
	assert.True(t, in.Mods.Has(ModSync))
	assert.EqualValues(t, 1, in.NDst)
	assert.EqualValues(t, 2, in.NSrc)
	assert.Equal(t, "redux.sync.min.s32 %r1, %r2, %r3", fn.InstString(nil, 0))

	fn = parseKernel(t, "match.all.sync.b64 %r1|%p1, %rd1, %r3;")
	in = fn.Insts[0]
	assert.Equal(t, OpMatch, in.Op)
	assert.Equal(t, VoteAll, in.Vote)
	assert.EqualValues(t, 2, in.NDst)
	assert.Equal(t, "%p1", fn.Regs[in.Dst[1].Reg].Name)
}

func TestDecodeReduxAndMatchErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"redux without sync", "redux.add.s32 %r1, %r2, %r3;", "redux needs .sync"},
		{"redux add on b32", "redux.sync.add.b32 %r1, %r2, %r3;", "redux.sync.add takes .u32 or .s32, not .b32"},
		{"redux and on u32", "redux.sync.and.u32 %r1, %r2, %r3;", "redux.sync.and takes .b32"},
		{"redux exch", "redux.sync.exch.b32 %r1, %r2, %r3;", "redux has no .exch operation"},
		{"match.any with a predicate", "match.any.sync.b32 %r1|%p1, %r2, %r3;", "only match.all takes a predicate destination"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.ptx", []byte(kernel(tc.body)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestParseReportsEveryBadInstruction: one load names every instruction
// that cannot be decoded, each with its line and text, and errors.As
// still finds an *Error.
func TestParseReportsEveryBadInstruction(t *testing.T) {
	src := kernel("frobnicate.u32 %r1, %r2;\n\tadd.s32 %r1, %r1, 1;\n\tbra $gone;\n\twibble %r1;\n\tadd.s33 %r1, %r1, 1;")
	_, err := Parse("t.ptx", []byte(src))
	require.Error(t, err)
	var list ErrorList
	require.True(t, errors.As(err, &list), "%T %v", err, err)
	require.Len(t, list, 3, "%v", err)
	first := int32(kernelHeaderLines + 1)
	assert.Equal(t, []int32{first, first + 3, first + 4}, []int32{list[0].Line, list[1].Line, list[2].Line})
	assert.Contains(t, err.Error(), "3 instructions cannot be loaded")
	assert.Contains(t, err.Error(), "`wibble %r1;`")
	assert.Contains(t, err.Error(), "bad suffix .s33")
	assert.NotContains(t, err.Error(), "undefined label", "labels are not resolved once an instruction failed")
	var one *Error
	require.True(t, errors.As(err, &one))
	assert.Contains(t, one.Msg, "frobnicate")
	assert.Equal(t, 1, strings.Count(err.Error(), "unsupported instruction frobnicate"))
}
