package main

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readBinaryValues decodes the binary --out layout as a user's script
// would, from the documented offsets alone.
func readBinaryValues(t *testing.T, path string) (valuesHeader, []float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(data), 16)
	require.Equal(t, binaryValuesMagic, string(data[:8]))
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(data[8:]))
	n := int(binary.LittleEndian.Uint32(data[12:]))
	var h valuesHeader
	require.NoError(t, json.Unmarshal(data[16:16+n], &h))
	body := data[16+n:]
	var out []float64
	switch h.Type {
	case "uint32":
		require.Len(t, body, 4*h.Count)
		for i := 0; i < h.Count; i++ {
			out = append(out, float64(binary.LittleEndian.Uint32(body[4*i:])))
		}
	case "float64":
		require.Len(t, body, 8*h.Count)
		for i := 0; i < h.Count; i++ {
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(body[8*i:])))
		}
	default:
		t.Fatalf("unknown type %q", h.Type)
	}
	return h, out
}

// readTextValues parses the text --out format's value lines.
func readTextValues(t *testing.T, path string) []float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []float64
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		require.Len(t, fields, 2, line)
		require.Equal(t, strconv.Itoa(len(out)), fields[0])
		x, err := strconv.ParseFloat(fields[1], 64)
		require.NoError(t, err)
		out = append(out, x)
	}
	return out
}

// --out-format binary carries the same values as the text format (exactly
// for integers, to the text's 9 digits for floats) behind a header naming
// what produced them.
func TestRunOutBinaryMatchesText(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		algo  string
		extra []string
		typ   string
	}{
		{"bfs", []string{"--source", "3"}, "uint32"},
		{"pr", nil, "float64"},
		{"kcore", []string{"--k", "3"}, "uint32"},
	} {
		t.Run(tc.algo, func(t *testing.T) {
			text, bin := filepath.Join(dir, tc.algo+".txt"), filepath.Join(dir, tc.algo+".bin")
			args := append([]string{"run", "--algo", tc.algo, "--graph", "rmat:scale=6"}, tc.extra...)
			_, _, err := execute(t, append(args, "--out", text)...)
			require.NoError(t, err)
			_, _, err = execute(t, append(args, "--out", bin, "--out-format", "binary")...)
			require.NoError(t, err)
			h, got := readBinaryValues(t, bin)
			assert.Equal(t, tc.algo, h.Algorithm)
			assert.Equal(t, tc.typ, h.Type)
			assert.Equal(t, 64, h.Count)
			assert.Contains(t, h.Graph, "rmat:scale=6")
			assert.Equal(t, "cpu", h.Target)
			if tc.algo == "bfs" {
				require.NotNil(t, h.Source)
				assert.Equal(t, uint32(3), *h.Source)
				assert.Zero(t, got[3], "the source's depth")
			}
			want := readTextValues(t, text)
			require.Len(t, got, len(want))
			for v := range want {
				assert.InEpsilon(t, want[v]+1, got[v]+1, 1e-8, "vertex %d", v)
			}
		})
	}
}

func TestRunOutFormatErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{
		{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--out", path, "--out-format", "csv"},
		{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--out-format", "binary"},
	} {
		out, status, err := execute(t, args...)
		require.Error(t, err, out)
		assert.Equal(t, 2, status)
		assert.Contains(t, err.Error(), "--out-format")
	}
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written on bad input")
}

// run --json names every option that shaped the run: the block size, the
// spin budget, bp's seed.
func TestRunJSONNamesTheOptions(t *testing.T) {
	out, _, err := execute(t, "run", "--algo", "bp", "--graph", "grid:w=3,h=3", "--target", "sim", "--config", "tiny",
		"--sim-mode", "functional", "--seed", "9", "--block", "64", "--json")
	require.NoError(t, err, out)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.EqualValues(t, 9, m["params"].(map[string]any)["seed"])
	assert.EqualValues(t, 64, m["block"])
	assert.EqualValues(t, 0, m["spin_budget"], "unbounded in simulation")
	assert.Equal(t, "bsp", m["scheduler"])
	assert.Equal(t, "functional", m["sim_mode"])
	assert.Equal(t, "tiny", m["config"])
}
