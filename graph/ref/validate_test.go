package ref

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExactValidators(t *testing.T) {
	g := randomGraph(t, 51, 300, 1500, true, 50)
	src := g.MaxDegreeVertex()
	dist, err := SSSP(g, src)
	require.NoError(t, err)
	tests := []struct {
		name     string
		correct  []uint32
		validate func(got []uint32) Report
	}{
		{"BFS", BFS(g, src), func(got []uint32) Report { return ValidateBFS(g, src, got) }},
		{"SSSP", dist, func(got []uint32) Report { return ValidateSSSP(g, src, got) }},
		{"SSWP", SSWP(g, src), func(got []uint32) Report { return ValidateSSWP(g, src, got) }},
		{"k-core", KCore(g), func(got []uint32) Report { return ValidateKCore(g, got) }},
		{"CompareExact", BFS(g, src), func(got []uint32) Report { return CompareExact("BFS", BFS(g, src), got) }},
	}
	for _, tc := range tests {
		t.Run(tc.name+" accepts the reference", func(t *testing.T) {
			r := tc.validate(slices.Clone(tc.correct))
			assert.True(t, r.OK(), r.String())
			assert.NoError(t, r.Err())
			assert.Equal(t, g.NumVertices(), r.Checked)
			assert.Equal(t, Exact, r.Tolerance)
		})
		t.Run(tc.name+" names a corrupted vertex", func(t *testing.T) {
			got := slices.Clone(tc.correct)
			got[137]++
			r := tc.validate(got)
			assert.False(t, r.OK())
			assert.Equal(t, 1, r.Mismatches)
			require.Len(t, r.First, 1)
			assert.Equal(t, uint32(137), r.First[0].Vertex)
			assert.ErrorContains(t, r.Err(), "vertex 137")
		})
		t.Run(tc.name+" rejects a short result", func(t *testing.T) {
			r := tc.validate(tc.correct[:10])
			assert.False(t, r.OK())
			assert.NotEmpty(t, r.Fault)
			assert.ErrorContains(t, r.Err(), "10 entries")
		})
	}
}

func TestValidateBFSShowsUnreached(t *testing.T) {
	g := buildGraph(t, 3, true, edge{0, 1, 0})
	r := ValidateBFS(g, 0, []uint32{0, 1, 1})
	assert.EqualError(t, r.Err(), "BFS from 0: 1 of 3 vertices outside tolerance (exact): vertex 2: want unreached, got 1")
}

func TestValidatorsRejectABadSource(t *testing.T) {
	g := buildGraph(t, 3, true, edge{0, 1, 0})
	got := []uint32{0, 1, U}
	for _, r := range []Report{ValidateBFS(g, 3, got), ValidateSSSP(g, 3, got), ValidateSSWP(g, 3, got)} {
		assert.False(t, r.OK())
		assert.ErrorContains(t, r.Err(), "source 3 is not a vertex")
	}
}

func TestValidateSSSPReportsAnOverflowingReference(t *testing.T) {
	g := buildWeighted(t, 3, true, edge{0, 1, 1 << 31}, edge{1, 2, 1 << 31})
	r := ValidateSSSP(g, 0, []uint32{0, 1 << 31, 0})
	assert.False(t, r.OK())
	assert.Contains(t, r.Fault, "exceeds")
}

func TestValidateKCoreMembers(t *testing.T) {
	g := buildGraph(t, 6, false, append(clique(0, 4), edge{3, 4, 0})...)
	want := []bool{true, true, true, true, false, false}
	assert.True(t, ValidateKCoreMembers(g, 3, want).OK())
	got := slices.Clone(want)
	got[4] = true
	r := ValidateKCoreMembers(g, 3, got)
	assert.ErrorContains(t, r.Err(), "vertex 4: want outside the core, got in the core")
	assert.NotEmpty(t, ValidateKCoreMembers(g, 3, want[:2]).Fault)
}

func TestValidateWCC(t *testing.T) {
	// Components {0,1,2}, {3,4}, {5}.
	g := buildGraph(t, 6, true, edge{0, 1, 0}, edge{2, 1, 0}, edge{4, 3, 0})
	tests := []struct {
		name       string
		got        []uint32
		mismatches int
		wantErr    string
	}{
		{"reference labels", []uint32{0, 0, 0, 3, 3, 5}, 0, ""},
		{"any relabelling", []uint32{9, 9, 9, 1 << 31, 1 << 31, 0}, 0, ""},
		{"split component", []uint32{0, 0, 7, 3, 3, 5}, 1, "vertex 2: want 0, the label of vertex 0 in the same component, got 7"},
		{"merged components", []uint32{0, 0, 0, 0, 0, 5}, 1, "vertex 3: want a label other than 0, which the component of vertex 0 has"},
		{"wrong length", []uint32{0, 0}, 0, "2 entries for a graph of 6 vertices"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ValidateWCC(g, tc.got)
			if tc.wantErr == "" {
				assert.True(t, r.OK(), r.String())
				return
			}
			assert.ErrorContains(t, r.Err(), tc.wantErr)
			assert.Equal(t, tc.mismatches, r.Mismatches)
		})
	}
}

func TestValidatePageRank(t *testing.T) {
	g := randomGraph(t, 61, 500, 3000, true, 0)
	want, _ := PageRank(g)
	t.Run("float64 reference passes", func(t *testing.T) {
		r := ValidatePageRank(g, want)
		assert.True(t, r.OK(), r.String())
		assert.Zero(t, r.L1)
		assert.Contains(t, r.Detail, "sweeps")
	})
	t.Run("float32 rounding passes", func(t *testing.T) {
		got := make([]float32, len(want))
		for v, x := range want {
			got[v] = float32(x)
		}
		r := ValidatePageRank(g, got)
		assert.True(t, r.OK(), r.String())
		assert.Greater(t, r.L1, 0.0)
		assert.Less(t, r.MaxError, 1e-6)
	})
	t.Run("inside the relative tolerance passes", func(t *testing.T) {
		got := slices.Clone(want)
		got[17] *= 1 + 0.9*PageRankRelTolerance
		assert.True(t, ComparePageRank(want, got).OK())
	})
	t.Run("outside the relative tolerance names the vertex", func(t *testing.T) {
		got := slices.Clone(want)
		got[17] *= 1 + 1.1*PageRankRelTolerance
		r := ComparePageRank(want, got)
		assert.Equal(t, 1, r.Mismatches)
		assert.InDelta(t, 1.1*PageRankRelTolerance, r.MaxError, 1e-9)
		assert.InDelta(t, 1.1*PageRankRelTolerance*want[17], r.L1, 1e-15)
		assert.ErrorContains(t, r.Err(), "vertex 17")
	})
	t.Run("NaN fails", func(t *testing.T) {
		got := slices.Clone(want)
		got[3] = math.NaN()
		r := ComparePageRank(want, got)
		assert.ErrorContains(t, r.Err(), "vertex 3")
		assert.True(t, math.IsNaN(r.MaxError))
	})
	t.Run("wrong length", func(t *testing.T) {
		assert.NotEmpty(t, ValidatePageRank(g, want[1:]).Fault)
	})
}

func TestValidateBeliefs(t *testing.T) {
	g := randomGraph(t, 71, 400, 2000, false, 0)
	want := BeliefPropagation(g, 5)
	t.Run("reference passes", func(t *testing.T) {
		assert.True(t, ValidateBeliefs(g, 5, want).OK())
	})
	t.Run("float32 rounding passes", func(t *testing.T) {
		got := make([]float32, len(want))
		for v, x := range want {
			got[v] = float32(x)
		}
		assert.True(t, ValidateBeliefs(g, 5, got).OK())
	})
	t.Run("another seed fails", func(t *testing.T) {
		assert.False(t, ValidateBeliefs(g, 6, want).OK())
	})
	t.Run("small absolute error passes, larger fails naming the vertex", func(t *testing.T) {
		got := slices.Clone(want)
		got[42] += 0.5 * BeliefAbsTolerance
		assert.True(t, CompareBeliefs(want, got).OK())
		got[42] += BeliefAbsTolerance
		r := CompareBeliefs(want, got)
		assert.ErrorContains(t, r.Err(), "vertex 42")
		assert.InDelta(t, 1.5*BeliefAbsTolerance, r.MaxError, 1e-12)
	})
	t.Run("wrong length", func(t *testing.T) {
		assert.NotEmpty(t, ValidateBeliefs(g, 5, want[:3]).Fault)
	})
}

func TestReportListsAtMostTenMismatches(t *testing.T) {
	want := make([]uint32, 100)
	got := make([]uint32, 100)
	for v := range got {
		got[v] = uint32(v % 2)
	}
	r := CompareExact("test", want, got)
	assert.Equal(t, 50, r.Mismatches)
	assert.Len(t, r.First, MaxReported)
	assert.Equal(t, uint32(19), r.First[MaxReported-1].Vertex)
	msg := r.Err().Error()
	assert.Contains(t, msg, "and 40 more")
	assert.Equal(t, MaxReported, strings.Count(msg, "vertex "))
	assert.Equal(t, "test: 50 mismatches of 100 vertices (exact); first: vertex 1: want 0, got 1", r.String())
}

func TestReportString(t *testing.T) {
	tests := []struct {
		report Report
		want   string
	}{
		{Report{Algorithm: "BFS from 0", Tolerance: Exact, Checked: 5}, "BFS from 0: OK, 5 vertices (exact)"},
		{Report{Algorithm: "PageRank", Tolerance: "relative 0.001 per vertex", Checked: 5, L1: 1e-7, MaxError: 2e-6, Detail: "reference converged in 40 sweeps"},
			"PageRank: OK, 5 vertices (relative 0.001 per vertex), L1 1e-07, max error 2e-06, reference converged in 40 sweeps"},
		{Report{Algorithm: "WCC", Fault: "result has 2 entries"}, "WCC: FAULT: result has 2 entries"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.report.String())
			assert.Equal(t, tc.report.OK(), tc.report.Err() == nil, fmt.Sprint(tc.report.Err()))
		})
	}
}
