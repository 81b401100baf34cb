package ref

import (
	"fmt"
	"strings"
)

// MaxReported is how many mismatches a Report keeps in First; Mismatches
// still counts all of them.
const MaxReported = 10

// Mismatch is one vertex whose result differs from the reference. Want and
// Got are already formatted, because what they show depends on the
// algorithm: a depth or "unreached", a rank, a component label together with
// the label its component was given elsewhere, a colour shared with a
// neighbour.
type Mismatch struct {
	Vertex uint32
	Want   string
	Got    string
}

// String formats the mismatch as "vertex 5: want 2, got 3".
func (m Mismatch) String() string {
	return fmt.Sprintf("vertex %d: want %s, got %s", m.Vertex, m.Want, m.Got)
}

// Report is the outcome of validating one result against the reference.
type Report struct {
	// Algorithm names what was checked, e.g. "BFS from 3".
	Algorithm string
	// Tolerance states the comparison rule, e.g. "exact" or
	// "relative 1e-3 per vertex".
	Tolerance string
	// Checked is the number of vertices compared.
	Checked int
	// Mismatches counts the vertices (for colourings: the conflicting edges)
	// outside the tolerance.
	Mismatches int
	// First holds the first MaxReported mismatches in vertex order.
	First []Mismatch
	// L1 is the sum over vertices of |got - want|; only the floating-point
	// validators (PageRank, belief propagation) fill it.
	L1 float64
	// MaxError is the largest per-vertex error in the unit of Tolerance
	// (relative for PageRank, absolute for belief propagation); only the
	// floating-point validators fill it.
	MaxError float64
	// Fault is set when the result could not be compared at all: a result
	// of the wrong length, a source that is not a vertex, a reference that
	// cannot be computed.
	Fault string
	// Detail carries an algorithm-specific note, e.g. the number of colours
	// or the reference's iteration count.
	Detail string
}

// OK reports whether the result matched: no fault and no mismatch.
func (r Report) OK() bool { return r.Fault == "" && r.Mismatches == 0 }

// Err returns nil when the result matched, else an error naming the
// algorithm, the tolerance and the first mismatches with their vertex ids.
func (r Report) Err() error {
	if r.OK() {
		return nil
	}
	if r.Fault != "" {
		return fmt.Errorf("%s: %s", r.Algorithm, r.Fault)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d vertices outside tolerance (%s)", r.Algorithm, r.Mismatches, r.Checked, r.Tolerance)
	if r.L1 != 0 || r.MaxError != 0 {
		fmt.Fprintf(&b, ", L1 %.3g, max error %.3g", r.L1, r.MaxError)
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, ", %s", r.Detail)
	}
	for i, m := range r.First {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(m.String())
	}
	if r.Mismatches > len(r.First) {
		fmt.Fprintf(&b, "; and %d more", r.Mismatches-len(r.First))
	}
	return fmt.Errorf("%s", b.String())
}

// String is a one-line summary, e.g.
// "BFS from 3: OK, 1048576 vertices (exact)".
func (r Report) String() string {
	var b strings.Builder
	b.WriteString(r.Algorithm)
	switch {
	case r.Fault != "":
		fmt.Fprintf(&b, ": FAULT: %s", r.Fault)
		return b.String()
	case r.Mismatches == 0:
		fmt.Fprintf(&b, ": OK, %d vertices (%s)", r.Checked, r.Tolerance)
	default:
		fmt.Fprintf(&b, ": %d mismatches of %d vertices (%s); first: %s", r.Mismatches, r.Checked, r.Tolerance, r.First[0])
	}
	if r.L1 != 0 || r.MaxError != 0 {
		fmt.Fprintf(&b, ", L1 %.3g, max error %.3g", r.L1, r.MaxError)
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, ", %s", r.Detail)
	}
	return b.String()
}

// add records one mismatch, keeping only the first MaxReported.
func (r *Report) add(v uint32, want, got string) {
	r.Mismatches++
	if len(r.First) < MaxReported {
		r.First = append(r.First, Mismatch{Vertex: v, Want: want, Got: got})
	}
}

// faulty returns a report that could not compare anything.
func faulty(algorithm, tolerance, format string, args ...any) Report {
	return Report{Algorithm: algorithm, Tolerance: tolerance, Fault: fmt.Sprintf(format, args...)}
}
