package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// info --gpus P prints the partition: its JSON holds a part per device
// whose vertices and edges add up to the graph's, and a cut matrix whose
// off-diagonal sum is the cut; impossible splits exit with status 2.
func TestInfoPrintsThePartition(t *testing.T) {
	for _, method := range []string{"range", "hash"} {
		stdout, stderr, status := runCLI(t, "info", "--graph", "rmat:scale=9+perm=1", "--gpus", "3", "--partition", method, "--json")
		require.Equal(t, exitSuccess, status, stderr)
		var out struct {
			Vertices  int `json:"vertices"`
			Edges     int `json:"edges"`
			Partition struct {
				Method string `json:"method"`
				Parts  []struct {
					Vertices int    `json:"vertices"`
					Edges    uint64 `json:"edges"`
				} `json:"parts"`
				Cut      [][]uint64 `json:"cut_edges"`
				CutEdges uint64     `json:"total_cut_edges"`
			} `json:"partition"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &out))
		p := out.Partition
		assert.Equal(t, method, p.Method)
		require.Len(t, p.Parts, 3)
		vertices, edges, cut := 0, uint64(0), uint64(0)
		for i, ps := range p.Parts {
			vertices += ps.Vertices
			edges += ps.Edges
			for j, c := range p.Cut[i] {
				if i != j {
					cut += c
				}
			}
		}
		assert.Equal(t, out.Vertices, vertices)
		assert.Equal(t, uint64(out.Edges), edges)
		assert.Equal(t, cut, p.CutEdges)
		assert.Positive(t, cut)
	}
	stdout, stderr, status := runCLI(t, "info", "--graph", "grid:w=4,h=4", "--gpus", "2")
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "partition over 2 devices (range)")
	assert.Contains(t, stdout, "edges from part (row) to part (column):")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gpus", "0"}, "--gpus 0: give one device or more"},
		{[]string{"--gpus", "17"}, "--gpus 17: 17 parts for 16 vertices: at most one part per vertex"},
		{[]string{"--gpus", "2", "--partition", "metis"}, `--partition "metis": use range or hash`},
		{[]string{"--partition", "hash"}, "--partition applies with --gpus P"},
	} {
		_, stderr, status := runCLI(t, append([]string{"info", "--graph", "grid:w=4,h=4"}, tc.args...)...)
		assert.Equal(t, exitBadInput, status, stderr)
		assert.Equal(t, "warpgraph: "+tc.want+"\n", stderr)
	}
}
