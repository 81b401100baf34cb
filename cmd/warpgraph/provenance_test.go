package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim"
)

// wantProvenance is the provenance an output of this process must carry;
// config is "" when no simulator ran, seed nil when nothing is drawn.
func wantProvenance(t *testing.T, config string, seed *uint64) provenance {
	t.Helper()
	host, err := os.Hostname()
	require.NoError(t, err)
	p := provenance{Commit: commitForRows(), Version: versionLine(), Seed: seed, Host: host}
	if config != "" {
		c, err := sim.LoadConfig(config)
		require.NoError(t, err)
		p.Config = &configProvenance{Name: config, Digest: c.Digest()}
	}
	return p
}

func seedOf(s uint64) *uint64 { return &s }

// TestJSONCarriesProvenance: every --json document names the commit, the
// version, the simulated configuration with a digest of its values, the
// seed and the host.
func TestJSONCarriesProvenance(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want provenance
		// list: the output is a JSON array, each element with its own.
		list bool
	}{
		{"run on the simulator", []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--target", "sim", "--config", "tiny+sms=1", "--sim-mode", "functional", "--json"},
			wantProvenance(t, "tiny+sms=1", seedOf(1)), false},
		{"run on the CPU", []string{"run", "--algo", "bp", "--graph", "grid:w=4,h=4", "--seed", "7", "--json"},
			wantProvenance(t, "", seedOf(7)), false},
		{"run from sources", []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--sources", "2", "--seed", "3", "--json"},
			wantProvenance(t, "", seedOf(3)), false},
		{"info of a generated graph", []string{"info", "--graph", "er:n=20,m=30,seed=9", "--json"},
			wantProvenance(t, "", seedOf(9)), false},
		{"micro", []string{"micro", "stream", "--target", "sim", "--config", "tiny", "--elements", "256", "--json"},
			wantProvenance(t, "tiny", nil), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, status := runCLI(t, tc.args...)
			require.Equal(t, exitSuccess, status, stderr)
			type doc struct {
				Provenance *provenance `json:"provenance"`
			}
			var docs []doc
			if tc.list {
				require.NoError(t, json.Unmarshal([]byte(stdout), &docs))
			} else {
				var d doc
				require.NoError(t, json.Unmarshal([]byte(stdout), &d))
				docs = append(docs, d)
			}
			require.NotEmpty(t, docs)
			for _, d := range docs {
				require.NotNil(t, d.Provenance, stdout)
				assert.Equal(t, tc.want, *d.Provenance)
			}
		})
	}
	assert.NotEqual(t, wantProvenance(t, "tiny", nil).Config.Digest, wantProvenance(t, "tiny+sms=1", nil).Config.Digest)
}

// TestOutHeaderCarriesProvenance: both --out formats' headers carry the
// provenance.
func TestOutHeaderCarriesProvenance(t *testing.T) {
	dir := t.TempDir()
	text, bin := filepath.Join(dir, "depth.txt"), filepath.Join(dir, "depth.bin")
	run := []string{"run", "--algo", "bfs", "--graph", "grid:w=4,h=4", "--target", "sim", "--config", "tiny", "--sim-mode", "functional"}
	for _, out := range [][]string{{"--out", text}, {"--out", bin, "--out-format", "binary"}} {
		_, stderr, status := runCLI(t, append(run, out...)...)
		require.Equal(t, exitSuccess, status, stderr)
	}
	want := wantProvenance(t, "tiny", seedOf(1))

	data, err := os.ReadFile(text)
	require.NoError(t, err)
	for _, line := range []string{"# commit " + want.Commit, "# version " + want.Version, "# config tiny (" + want.Config.Digest + ")", "# seed 1", "# host " + want.Host} {
		assert.Contains(t, strings.Split(string(data), "\n"), line)
	}

	data, err = os.ReadFile(bin)
	require.NoError(t, err)
	require.Greater(t, len(data), 16)
	n := binary.LittleEndian.Uint32(data[12:16])
	var h valuesHeader
	require.NoError(t, json.Unmarshal(data[16:16+n], &h))
	require.NotNil(t, h.Provenance)
	assert.Equal(t, want, *h.Provenance)
}
