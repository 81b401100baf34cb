package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execute runs the command line in-process and returns its output and the
// exit status main would use.
func execute(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		return out.String(), exitStatus(err), err
	}
	return out.String(), 0, nil
}

func TestBadInputExitsWithStatus2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.mtx")
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"missing file", []string{"info", "--graph", missing}, "nope.mtx"},
		{"unknown generator", []string{"info", "--graph", "rmta:scale=3"}, "unknown generator"},
		{"bad generator key", []string{"info", "--graph", "rmat:scale=3,bogus=1"}, "bogus"},
		{"no graph", []string{"info"}, "--graph is required"},
		{"unknown algorithm", []string{"run", "--algo", "dfs", "--graph", "grid:w=2,h=2"}, "unknown algorithm"},
		{"unknown target", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "fpga"}, "unknown target"},
		{"source out of range", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--source", "4"}, "--source 4 is not a vertex"},
		{"no GPU kernel yet", []string{"run", "--algo", "kcore", "--graph", "grid:w=2,h=2", "--target", "hw"}, "no GPU kernel"},
		{"unknown flag", []string{"info", "--grpah", "x"}, "unknown flag"},
		{"convert needs .wgc", []string{"convert", "--graph", "grid:w=2,h=2", "--out", "x.bin"}, ".wgc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, status, err := execute(t, tc.args...)
			require.Error(t, err)
			assert.Equal(t, exitBadInput, status, "error: %v", err)
			assert.Contains(t, err.Error(), tc.mention)
			assert.NotContains(t, err.Error(), "\n", "bad input gets one line")
		})
	}
}

func TestMalformedFileIsBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.gr")
	require.NoError(t, os.WriteFile(path, []byte("p sp 2 1\na 1 2 -3\n"), 0o644))
	_, status, err := execute(t, "info", "--graph", path)
	require.Error(t, err)
	assert.Equal(t, exitBadInput, status)
	assert.Contains(t, err.Error(), "bad.gr:2")
}

func TestRunEveryAlgorithmOnCPUValidates(t *testing.T) {
	for _, algo := range algorithmNames() {
		t.Run(algo, func(t *testing.T) {
			out, status, err := execute(t, "run", "--algo", algo, "--graph", "rmat:scale=8", "--json")
			require.NoError(t, err, out)
			require.Equal(t, 0, status)
			var res runResult
			require.NoError(t, json.Unmarshal([]byte(out), &res))
			assert.Equal(t, algo, res.Algorithm)
			assert.Equal(t, "cpu", res.Target)
			assert.Equal(t, 256, res.Vertices)
			assert.True(t, res.Validation.OK, res.Validation.Detail)
			assert.NotEmpty(t, res.Summary)
		})
	}
}

func TestRunTableNamesSourceAndVerdict(t *testing.T) {
	out, _, err := execute(t, "run", "--algo", "sssp", "--graph", "grid:w=8,h=8", "--source", "9")
	require.NoError(t, err)
	assert.Contains(t, out, "source           9")
	assert.Contains(t, out, "max distance")
	assert.Contains(t, out, "PASS (certificate)")
}

func TestConvertThenInfoRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.wgc")
	_, _, err := execute(t, "convert", "--graph", "er:n=100,m=300,seed=4", "--out", path)
	require.NoError(t, err)
	out, _, err := execute(t, "info", "--graph", path, "--json")
	require.NoError(t, err)
	var info infoOutput
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, 100, info.Stats.Vertices)
	assert.Equal(t, 600, info.Stats.Edges, "300 undirected edges stored both ways")
}

func TestDemoValidatesBothGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("the main job takes a few seconds")
	}
	out, _, err := execute(t, "demo")
	require.NoError(t, err)
	// BFS and SSSP on the CPU per graph, and one validated simulator row
	// holding both graphs.
	assert.Equal(t, 2*len(demoGraphs)+len(demoGraphs), strings.Count(out, "PASS"))
	assert.NotContains(t, out, "FAIL")
	for _, label := range []string{"cycles", "warp execution efficiency", "bank conflicts", "worst global same-address serialisation"} {
		assert.Contains(t, out, label)
	}
}
