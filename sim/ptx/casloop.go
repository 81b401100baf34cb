package ptx

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// sharedFloatAdd matches one atom.shared.add.f32 or red.shared.add.f32
// statement on its own line, clang's form: an optional guard, the opcode,
// then the operands. A memory-order or scope qualifier leaves the
// statement alone (clang's float atomicAdd has none).
var sharedFloatAdd = regexp.MustCompile(`^(\s*)(?:@(!?)(%[\w$]+)\s+)?(atom|red)\.shared(?:::cta)?\.add\.f32\s+([^;]*);\s*$`)

// ExpandSharedFloatAdds rewrites every shared-memory float add of a PTX
// module's text (atom.shared.add.f32 and red.shared.add.f32) into the
// compare-and-swap loop ptxas compiles it to for the GPU: there is no
// native shared float add, and the SASS of such an atomicAdd is
//
//	retry: LDS old, [a]; FADD new, old, v; ATOMS.CAST.SPIN [a], old, new; @!ok BRA retry
//
// so the lanes of a warp on one address succeed one per pass, and a lane of
// another warp that writes the word between the load and the swap sends
// the lane round again. The loop here is the same: load,
// add, atom.shared.cas.b32, compare, branch back; the atom's destination
// gets the value the successful swap replaced, as atomicAdd returns. Each
// expansion stays on its statement's line, and each function's extra
// registers are declared on the line of its opening brace, so line numbers
// (the profile's PTX lines, the .loc mapping) do not move. It returns the
// new text and how many statements it expanded.
func ExpandSharedFloatAdds(src []byte) ([]byte, int, error) {
	lines := bytes.Split(src, []byte("\n"))
	open := -1  // the line of the current function's opening brace
	inBody := 0 // 1 inside a function body
	k := 0      // expansions in the current function
	total := 0
	for i, line := range lines {
		s := string(line)
		switch {
		case inBody == 0 && strings.TrimSpace(s) == "{":
			open, inBody, k = i, 1, 0
			continue
		case inBody == 1 && s == "}":
			if k > 0 {
				lines[open] = []byte(fmt.Sprintf("{ .reg .pred %%wgcasp<%d>; .reg .f32 %%wgcasf<%d>;", k, 3*k))
			}
			inBody = 0
			continue
		}
		if !strings.Contains(s, ".add.f32") { // most lines: spare the expression
			continue
		}
		m := sharedFloatAdd.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if inBody == 0 {
			return nil, 0, fmt.Errorf("line %d: %s outside a function body", i+1, strings.TrimSpace(s))
		}
		indent, not, guard, op, operands := m[1], m[2], m[3], m[4], strings.Split(m[5], ",")
		var dst, addr, val string
		switch {
		case op == "atom" && len(operands) == 3:
			dst, addr, val = strings.TrimSpace(operands[0]), strings.TrimSpace(operands[1]), strings.TrimSpace(operands[2])
		case op == "red" && len(operands) == 2:
			addr, val = strings.TrimSpace(operands[0]), strings.TrimSpace(operands[1])
		default:
			return nil, 0, fmt.Errorf("line %d: %s: unexpected operands", i+1, strings.TrimSpace(s))
		}
		old, sum, seen, retry := fmt.Sprintf("%%wgcasf%d", 3*k), fmt.Sprintf("%%wgcasf%d", 3*k+1), fmt.Sprintf("%%wgcasf%d", 3*k+2), fmt.Sprintf("%%wgcasp%d", k)
		loop := fmt.Sprintf("$WGCAS_%d", k)
		var b strings.Builder
		b.WriteString(indent)
		if guard != "" {
			// A guarded add skips the whole loop where its guard is false.
			skipIf := "!"
			if not == "!" {
				skipIf = ""
			}
			fmt.Fprintf(&b, "@%s%s bra %s_SKIP; ", skipIf, guard, loop)
		}
		fmt.Fprintf(&b, "%s: ld.shared.f32 %s, %s; add.f32 %s, %s, %s; atom.shared.cas.b32 %s, %s, %s, %s; setp.ne.b32 %s, %s, %s; @%s bra %s;",
			loop, old, addr, sum, old, val, seen, addr, old, sum, retry, seen, old, retry, loop)
		if dst != "" {
			fmt.Fprintf(&b, " mov.f32 %s, %s;", dst, old)
		}
		if guard != "" {
			fmt.Fprintf(&b, " %s_SKIP:", loop)
		}
		lines[i] = []byte(b.String())
		k++
		total++
	}
	return bytes.Join(lines, []byte("\n")), total, nil
}
