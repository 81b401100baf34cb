package ptx

import (
	"fmt"
	"strings"
)

// Error is a parse or decode error. It names the module, the function being
// decoded (when there is one), the PTX line and the offending text, so a
// kernel author can find the construct the simulator does not support.
type Error struct {
	Module   string // the name given to Parse
	Function string // the .entry/.func being decoded, "" at module level
	Line     int32  // 1-based PTX line, 0 when unknown
	Text     string // the source line, trimmed
	Msg      string
}

func (e *Error) Error() string {
	s := "ptx: " + e.Module
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Function != "" {
		s += ": in " + e.Function
	}
	s += ": " + e.Msg
	if e.Text != "" {
		s += ": `" + e.Text + "`"
	}
	return s
}

// ErrorList is every instruction of a module that failed to decode, in
// source order (Parse returns a lone failure as its *Error). errors.As
// finds the first *Error through Unwrap.
type ErrorList []*Error

// maxInstErrors bounds the list: past it, Parse stops at the next one.
const maxInstErrors = 100

func (l ErrorList) Error() string {
	if len(l) == 0 {
		return "ptx: no errors"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ptx: %s: %d instructions cannot be loaded:", l[0].Module, len(l))
	for _, e := range l {
		b.WriteString("\n\t")
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
