package scheduler

import "github.com/warpgraph/warpgraph/graph/ref"

// CPUResult is a run of an algorithm's CPU reference. The reference is the
// result, so its check must be independent of the reference's code: path
// problems are checked by certificate (ref.Certify*), colourings by
// validity, WCC as a partition against a union-find count, PageRank by its
// residual, belief propagation against a second implementation that shares
// no arithmetic with the reference (odds multiplied out, not log-odds
// summed). Where no independent check exists, Checked is false and
// Method says why.
type CPUResult struct {
	Validation ref.Report
	// Method names the check; Checked is false when nothing independent
	// was checked.
	Method     string
	Checked    bool
	Summary    []Field
	Iterations int
	Values     Values
	// Notes say how the run differs from the plain definition.
	Notes []string
}
