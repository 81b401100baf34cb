package ptx

import "fmt"

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
