package kernels

import (
	"bytes"
	"fmt"
	"strings"
)

// Kernel entries are often instantiated by macros (kernels/lib), so their
// names and parameter names exist only after preprocessing. `make kernels`
// therefore writes, beside each module's PTX, a signature file
// (ptx/NAME.sig) extracted from the preprocessed source by
// ExtractSignatures: one line per extern "C" entry, in the plain form
//
//	extern "C" __global__ void name(type name, type name)
//
// The catalog names parameters from it, and the stale-PTX test regenerates
// it, so it cannot drift from the sources.

// ExtractSignatures returns the signature file for a preprocessed CUDA
// source (clang -E output): every extern "C" __global__ function definition
// or declaration, normalised to one line each, in source order. Attributes
// between extern "C" and the name (__attribute__((global)),
// __attribute__((launch_bounds(...)))) are reduced to __global__; a
// parameter list must hold no parentheses (no function pointers).
func ExtractSignatures(pre []byte) ([]byte, error) {
	text := string(pre)
	var out bytes.Buffer
	for {
		at := strings.Index(text, `extern "C"`)
		if at < 0 {
			break
		}
		text = text[at+len(`extern "C"`):]
		rest := strings.TrimLeft(text, " \t\r\n")
		if strings.HasPrefix(rest, "{") {
			return nil, fmt.Errorf(`extern "C" { ... } blocks are not supported: declare each entry extern "C"`)
		}
		global := false
		// Skip attributes: __attribute__((...)) with balanced parentheses,
		// or the unexpanded spellings when the input was not preprocessed.
		for {
			rest = strings.TrimLeft(rest, " \t\r\n")
			switch {
			case strings.HasPrefix(rest, "__attribute__"):
				body, after, err := balanced(rest[len("__attribute__"):])
				if err != nil {
					return nil, fmt.Errorf("extern \"C\" entry: %w", err)
				}
				if strings.Contains(body, "global") {
					global = true
				}
				rest = after
				continue
			case strings.HasPrefix(rest, "__global__"):
				global, rest = true, rest[len("__global__"):]
				continue
			case strings.HasPrefix(rest, "__launch_bounds__"):
				_, after, err := balanced(rest[len("__launch_bounds__"):])
				if err != nil {
					return nil, fmt.Errorf("extern \"C\" entry: %w", err)
				}
				rest = after
				continue
			}
			break
		}
		if !global {
			continue // an extern "C" device function or variable: not an entry
		}
		rest, ok := strings.CutPrefix(rest, "void")
		if !ok {
			return nil, fmt.Errorf("extern \"C\" __global__ entry does not return void: %.60q", rest)
		}
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			return nil, fmt.Errorf("extern \"C\" __global__ entry without a parameter list: %.60q", rest)
		}
		name := strings.TrimSpace(rest[:open])
		if !isIdentifier(name) {
			return nil, fmt.Errorf("extern \"C\" __global__ entry has no plain name: %q", name)
		}
		close := strings.IndexByte(rest[open:], ')')
		if close < 0 {
			return nil, fmt.Errorf("entry %s: parameter list is not closed", name)
		}
		list := rest[open+1 : open+close]
		if strings.ContainsAny(list, "(") {
			return nil, fmt.Errorf("entry %s: parentheses inside the parameter list are not supported", name)
		}
		var params []string
		if l := strings.Join(strings.Fields(list), " "); l != "" && l != "void" {
			for _, p := range strings.Split(l, ",") {
				params = append(params, strings.TrimSpace(p))
			}
		}
		fmt.Fprintf(&out, "extern \"C\" __global__ void %s(%s)\n", name, strings.Join(params, ", "))
		text = rest[open+close:]
	}
	return out.Bytes(), nil
}

// balanced reads a parenthesised group at the start of s (after spaces) and
// returns its inside and what follows it.
func balanced(s string) (inside, after string, err error) {
	s = strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(s, "(") {
		return "", "", fmt.Errorf("expected '(' in %.40q", s)
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[1:i], s[i+1:], nil
			}
		}
	}
	return "", "", fmt.Errorf("unbalanced parentheses in %.40q", s)
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
