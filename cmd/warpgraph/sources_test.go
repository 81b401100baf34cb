package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
)

func TestPickSourcesGraph500Style(t *testing.T) {
	// A directed star: only vertex 0 and vertices 1..4 have out-edges among
	// 0..9 (5..9 have none).
	l := &graph.EdgeList{NumVertices: 10}
	for v := uint32(1); v < 5; v++ {
		l.Add(0, v, 0)
		l.Add(v, 0, 0)
	}
	g, err := graph.Build(l, graph.BuildOptions{})
	require.NoError(t, err)
	got, err := pickSources(g, 5, 1)
	require.NoError(t, err)
	assert.ElementsMatch(t, []uint32{0, 1, 2, 3, 4}, got, "distinct, each with an out-edge")
	_, err = pickSources(g, 6, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only 5 vertices with out-edges")

	big, err := graph.Load("rmat:scale=10", graph.LoadOptions{})
	require.NoError(t, err)
	a, err := pickSources(big, 16, 7)
	require.NoError(t, err)
	b, err := pickSources(big, 16, 7)
	require.NoError(t, err)
	c, err := pickSources(big, 16, 8)
	require.NoError(t, err)
	assert.Equal(t, a, b, "deterministic for a seed")
	assert.NotEqual(t, a, c, "seeds differ")
}

func TestSpreadOf(t *testing.T) {
	assert.Equal(t, spread{Mean: 2.5, Median: 2.5, Min: 1, Max: 4}, spreadOf([]float64{4, 1, 3, 2}))
	assert.Equal(t, spread{Mean: 3, Median: 2, Min: 1, Max: 6}, spreadOf([]float64{6, 2, 1}))
}

// run --sources K runs K sources and reports each one's figures, equal to a
// run from that source alone, and their spread.
func TestRunSources(t *testing.T) {
	out, status, err := execute(t, "run", "--algo", "bfs", "--graph", "rmat:scale=9,directed=1", "--sources", "5", "--seed", "3", "--json")
	require.NoError(t, err, out)
	assert.Equal(t, 0, status)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Len(t, res.Sources, 5)
	require.Len(t, res.PerSource, 5)
	assert.True(t, res.Validation.OK)
	assert.Contains(t, res.Validation.Detail, "5 of 5 sources passed")
	var reached []float64
	for i, p := range res.PerSource {
		assert.Equal(t, res.Sources[i], p.Source)
		alone, _, err := execute(t, "run", "--algo", "bfs", "--graph", "rmat:scale=9,directed=1", "--source", fmt.Sprint(p.Source), "--json")
		require.NoError(t, err)
		var one runResult
		require.NoError(t, json.Unmarshal([]byte(alone), &one))
		assert.Equal(t, one.Results["reached"], p.Figures["reached"], "source %d", p.Source)
		assert.Equal(t, one.Results["max_depth"], p.Figures["max_depth"], "source %d", p.Source)
		reached = append(reached, p.Figures["reached"])
	}
	assert.Equal(t, spreadOf(reached), res.SourceStats["reached"])

	table, _, err := execute(t, "run", "--algo", "bfs", "--graph", "rmat:scale=9,directed=1", "--sources", "5", "--seed", "3")
	require.NoError(t, err)
	assert.Contains(t, table, "over 5 sources")
	assert.Contains(t, table, "median")
}

func TestRunSourcesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--algo", "pr", "--sources", "3"}, "--sources does not apply to pr"},
		{[]string{"--algo", "bfs", "--sources", "-1"}, "--sources -1"},
		{[]string{"--algo", "bfs", "--sources", "2", "--source", "1"}, "not both"},
		{[]string{"--algo", "bfs", "--sources", "2", "--out", "x.txt"}, "--out writes one run"},
		{[]string{"--algo", "bfs", "--sources", "5"}, "only 4 vertices"},
	} {
		out, status, err := execute(t, append([]string{"run", "--graph", "grid:w=2,h=2"}, tc.args...)...)
		require.Error(t, err, out)
		assert.Equal(t, 2, status, tc.args)
		assert.Contains(t, err.Error(), tc.mention)
	}
}

// k-core on a directed graph counts a reciprocal pair twice, says so, and
// +sym gives the undirected simple graph's k-core instead.
func TestDirectedKCoreNoteAndSym(t *testing.T) {
	path := t.TempDir() + "/recip.el"
	require.NoError(t, os.WriteFile(path, []byte("0 1\n1 0\n1 2\n"), 0o644))
	const directedNote = "a reciprocal pair u->v, v->u counts twice"
	coreSize := func(spec string) (float64, []string) {
		out, _, err := execute(t, "run", "--algo", "kcore", "--k", "2", "--graph", spec, "--json")
		require.NoError(t, err, out)
		var res runResult
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		return res.Results["core_size"], res.Notes
	}
	size, notes := coreSize(path)
	assert.Equal(t, 2.0, size, "0 and 1 keep degree 2 through their reciprocal pair")
	assert.Contains(t, strings.Join(notes, "\n"), directedNote)
	size, notes = coreSize(path + "+sym")
	assert.Equal(t, 0.0, size, "a path 0-1-2 has no 2-core")
	assert.NotContains(t, strings.Join(notes, "\n"), directedNote)
}

// On a timed target --sources reports each traversal's component edges
// (Graph500's count) and GTEPS, and their harmonic mean.
func TestRunSourcesGTEPS(t *testing.T) {
	out, status, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=6,h=5", "--target", "sim", "--config", "tiny",
		"--sources", "3", "--json")
	require.NoError(t, err, out)
	assert.Equal(t, 0, status)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	var rates []float64
	for _, p := range res.PerSource {
		assert.Equal(t, 49.0, p.Figures["component_edges"], "a 6x5 grid's 49 undirected edges, each once")
		require.Positive(t, p.Figures["end_to_end_seconds"])
		assert.InDelta(t, 49/p.Figures["end_to_end_seconds"]/1e9, p.Figures[gtepsKey], 1e-12)
		rates = append(rates, p.Figures[gtepsKey])
	}
	require.Len(t, rates, 3)
	st := res.SourceStats[gtepsKey]
	require.NotNil(t, st.HarmonicMean)
	assert.InDelta(t, 3/(1/rates[0]+1/rates[1]+1/rates[2]), *st.HarmonicMean, 1e-12)
	assert.LessOrEqual(t, *st.HarmonicMean, st.Mean)

	table, _, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=6,h=5", "--target", "sim", "--config", "tiny", "--sources", "3")
	require.NoError(t, err)
	assert.Contains(t, table, "GTEPS, harmonic mean over 3 sources")

	// The CPU reference is not timed: edges, no rate.
	out, _, err = execute(t, "run", "--algo", "bfs", "--graph", "grid:w=6,h=5", "--sources", "2", "--json")
	require.NoError(t, err)
	var cpu runResult
	require.NoError(t, json.Unmarshal([]byte(out), &cpu))
	assert.Equal(t, 49.0, cpu.PerSource[0].Figures["component_edges"])
	assert.NotContains(t, cpu.PerSource[0].Figures, gtepsKey)
}
