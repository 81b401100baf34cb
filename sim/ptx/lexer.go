package ptx

import (
	"fmt"
)

// tokenKind classifies a token of PTX text.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	// tokIdent is a name: a register (%r1), a special register (%tid.x), a
	// label ($L__BB0_1), a symbol, or a dotted mnemonic (ld.global.u32).
	// PTX names contain no dots, so dots inside a name token always
	// separate mnemonic suffixes or special-register fields.
	tokIdent
	tokDirective // a name starting with '.': .reg, .b32, .align
	tokNumber    // an integer or float literal, without sign
	tokString    // "text", quotes removed
	tokPunct     // one of { } ( ) [ ] , ; : @ ! + - < > | =
)

type token struct {
	kind tokenKind
	text string
	line int32
}

// lex splits PTX source into tokens. It fails only on characters PTX never
// uses and on unterminated strings or comments.
func lex(src []byte) ([]token, error) {
	// Tokens slice one copy of the source rather than copying each text;
	// PTX averages a token per four or five bytes.
	text := string(src)
	toks := make([]token, 0, len(src)/4+1)
	line := int32(1)
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			start := line
			i += 2
			for {
				if i+1 >= len(src) {
					return nil, &Error{Line: start, Msg: "unterminated /* comment"}
				}
				if src[i] == '*' && src[i+1] == '/' {
					i += 2
					break
				}
				if src[i] == '\n' {
					line++
				}
				i++
			}
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return nil, &Error{Line: line, Msg: "unterminated string"}
			}
			toks = append(toks, token{tokString, text[i+1 : j], line})
			i = j + 1
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && (isIdentChar(src[j]) || src[j] == '.' || (src[j] == ':' && j+1 < len(src) && src[j+1] == ':')) {
				if src[j] == ':' {
					j++ // "::" inside a mnemonic suffix (.L2::cache_hint)
				}
				j++
			}
			toks = append(toks, token{tokIdent, text[i:j], line})
			i = j
		case c == '.' && i+1 < len(src) && isIdentChar(src[i+1]):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			toks = append(toks, token{tokDirective, text[i:j], line})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (isIdentChar(src[j]) || src[j] == '.' ||
				((src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !isHexPrefixed(src[i:j]))) {
				j++
			}
			toks = append(toks, token{tokNumber, text[i:j], line})
			i = j
		default:
			switch c {
			case '{', '}', '(', ')', '[', ']', ',', ';', ':', '@', '!', '+', '-', '<', '>', '|', '=':
				toks = append(toks, token{tokPunct, text[i : i+1], line})
				i++
			default:
				return nil, &Error{Line: line, Msg: fmt.Sprintf("unexpected character %q", c)}
			}
		}
	}
	toks = append(toks, token{tokEOF, "", line})
	return toks, nil
}

// isHexPrefixed reports whether a number literal so far is a hex integer or
// hex float (0x.., 0f.., 0d..), where 'e' is a digit, not an exponent.
func isHexPrefixed(s []byte) bool {
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '%'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}
