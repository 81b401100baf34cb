package ptx

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slotOf is the slot Slots gives the register named name.
func slotOf(t *testing.T, fn *Function, s RegisterSlots, name string) int32 {
	t.Helper()
	for r, ri := range fn.Regs {
		if ri.Name == name {
			return s.Of[r]
		}
	}
	t.Fatalf("no register %s in %s", name, fn.Name)
	return -1
}

func TestSlotsShareRegistersWhoseLiveRangesDoNotMeet(t *testing.T) {
	fn := parseKernel(t, `	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, 1;
	st.global.u32 [%rd1], %r1;
	mov.u32 %r2, 2;
	st.global.u32 [%rd1+4], %r2;
	add.s32 %r3, %r2, 1;
	st.global.u32 [%rd1+8], %r3;`)
	s := fn.Slots(nil)
	rd1, r1, r2, r3 := slotOf(t, fn, s, "%rd1"), slotOf(t, fn, s, "%r1"), slotOf(t, fn, s, "%r2"), slotOf(t, fn, s, "%r3")
	assert.Equal(t, r1, r2, "r1 dies where r2 is born")
	assert.NotEqual(t, rd1, r1, "rd1 is live across every store")
	// r3 is written by the instruction that reads r2 last: an executor may
	// write a destination before it reads every source.
	assert.NotEqual(t, r2, r3)
	assert.Equal(t, 3, s.N)
	assert.Less(t, s.N, fn.NumRegs)
	assert.Empty(t, s.LiveIn)
}

func TestSlotsKeepAGuardedWritesOldValue(t *testing.T) {
	// Lanes whose guard is false read r2's value from before the guarded
	// move (zero: it is read before any write), so r2 is live from the start
	// and r1 may not borrow its slot; written unguarded, it may.
	for _, guard := range []string{"@%p1 ", ""} {
		fn := parseKernel(t, `	ld.param.u64 %rd1, [k_param_0];
	ld.param.u32 %r3, [k_param_1];
	setp.eq.s32 %p1, %r3, 0;
	mov.u32 %r1, 5;
	st.global.u32 [%rd1], %r1;
	`+guard+`mov.u32 %r2, 7;
	st.global.u32 [%rd1+4], %r2;`)
		s := fn.Slots(nil)
		if guard != "" {
			assert.NotEqual(t, slotOf(t, fn, s, "%r1"), slotOf(t, fn, s, "%r2"))
			assert.Contains(t, s.LiveIn, slotOf(t, fn, s, "%r2"))
		} else {
			assert.Equal(t, slotOf(t, fn, s, "%r1"), slotOf(t, fn, s, "%r2"))
			assert.Empty(t, s.LiveIn)
		}
	}
}

func TestSlotsKeepClassesApart(t *testing.T) {
	fn := parseKernel(t, `	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, 1;
	st.global.u32 [%rd1], %r1;
	mov.u32 %r2, 2;
	st.global.u32 [%rd1+4], %r2;`)
	apart := make([]bool, fn.NumRegs)
	for r, ri := range fn.Regs {
		apart[r] = ri.Name == "%r2"
	}
	together, separate := fn.Slots(nil), fn.Slots(apart)
	assert.Equal(t, slotOf(t, fn, together, "%r1"), slotOf(t, fn, together, "%r2"))
	assert.NotEqual(t, slotOf(t, fn, separate, "%r1"), slotOf(t, fn, separate, "%r2"))
}

func TestSlotsOfAFunctionsParameters(t *testing.T) {
	// The inputs are written together at the start (b unread: it still may
	// not overwrite a); the return value is read at ret, so the scratch
	// register written after it may not take its slot.
	src := `.version 6.4
.target sm_70
.address_size 64
.func (.reg .b32 ret) f(.reg .b32 a, .reg .b32 b)
{
	.reg .b32 %r<4>;
	add.s32 ret, a, 1;
	mov.u32 %r1, 3;
	mov.u32 %r2, %r1;
	ret;
}
`
	m, err := Parse("t.ptx", []byte(src))
	require.NoError(t, err)
	fn := m.Func("f")
	require.NotNil(t, fn)
	s := fn.Slots(nil)
	a, b, ret := slotOf(t, fn, s, "a"), slotOf(t, fn, s, "b"), slotOf(t, fn, s, "ret")
	r1, r2 := slotOf(t, fn, s, "%r1"), slotOf(t, fn, s, "%r2")
	assert.NotEqual(t, a, b)
	assert.NotEqual(t, ret, r1)
	assert.NotEqual(t, ret, r2)
	assert.Equal(t, r1, a, "a is dead once ret is written")
	assert.Equal(t, []int32{a}, s.LiveIn)
}

// TestSlotsNeverMergeLiveValues checks every function of the corpus
// against an instruction-level liveness computed here on its own: at
// every instruction, a register it writes has a slot apart from every
// register live after it, from its other destinations and from its
// sources; a .func's inputs and the registers live at its start have
// distinct slots.
func TestSlotsNeverMergeLiveValues(t *testing.T) {
	funcs, shared := 0, 0
	for _, path := range corpus(t) {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := Parse(path, src)
		if err != nil {
			continue // the corpus holds files that must fail to parse
		}
		for _, fn := range m.Funcs {
			if fn.Extern || len(fn.Blocks) == 0 {
				continue
			}
			s := fn.Slots(nil)
			funcs++
			shared += fn.NumRegs - s.N
			after := instLiveness(fn)
			for i := range fn.Insts {
				in := &fn.Insts[i]
				var others []RegIndex
				forEachUse(in, func(r RegIndex) { others = append(others, r) })
				forEachDef(in, func(r RegIndex) { others = append(others, r) })
				for r := range after[i] {
					others = append(others, r)
				}
				forEachDef(in, func(d RegIndex) {
					for _, o := range others {
						if o != d && s.Of[o] == s.Of[d] {
							t.Fatalf("%s: %s: instruction %d writes %s into the slot of %s", path, fn.Name, i, fn.Regs[d].Name, fn.Regs[o].Name)
						}
					}
				})
			}
			start := map[RegIndex]bool{}
			for r := range instLiveIn(fn, after, 0) {
				start[r] = true
			}
			for _, p := range fn.Inputs() {
				if p.Space == SpaceReg && p.Reg != NoReg {
					start[p.Reg] = true
				}
			}
			bySlot := map[int32]RegIndex{}
			for r := range start {
				if o, ok := bySlot[s.Of[r]]; ok {
					t.Fatalf("%s: %s: %s and %s both hold values at the start in slot %d", path, fn.Name, fn.Regs[r].Name, fn.Regs[o].Name, s.Of[r])
				}
				bySlot[s.Of[r]] = r
			}
		}
	}
	require.Greater(t, funcs, 100)
	require.Greater(t, shared, 0, "no register shares a slot anywhere in the corpus")
}

// instLiveness is the set of registers live after each instruction, to a
// fixed point over the instructions (not the blocks), with a .func's
// return parameters read at ret.
func instLiveness(fn *Function) []map[RegIndex]bool {
	after := make([]map[RegIndex]bool, len(fn.Insts))
	for i := range after {
		after[i] = map[RegIndex]bool{}
	}
	for changed := true; changed; {
		changed = false
		for i := len(fn.Insts) - 1; i >= 0; i-- {
			for _, j := range instSuccs(fn, i) {
				for r := range instLiveIn(fn, after, j) {
					if !after[i][r] {
						after[i][r] = true
						changed = true
					}
				}
			}
		}
	}
	return after
}

// instLiveIn is what is live before instruction i.
func instLiveIn(fn *Function, after []map[RegIndex]bool, i int) map[RegIndex]bool {
	in := &fn.Insts[i]
	live := map[RegIndex]bool{}
	for r := range after[i] {
		live[r] = true
	}
	if in.Guard == NoReg {
		forEachDef(in, func(r RegIndex) { delete(live, r) })
	}
	forEachUse(in, func(r RegIndex) { live[r] = true })
	if in.Op == OpRet {
		for _, p := range fn.Returns() {
			if p.Space == SpaceReg && p.Reg != NoReg {
				live[p.Reg] = true
			}
		}
	}
	return live
}

// instSuccs are the instructions that may run after i.
func instSuccs(fn *Function, i int) []int {
	b := &fn.Blocks[fn.BlockOf[i]]
	if i+1 < b.End {
		return []int{i + 1}
	}
	var out []int
	for _, s := range b.Succs {
		out = append(out, fn.Blocks[s].Start)
	}
	return out
}
