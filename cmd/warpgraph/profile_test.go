package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim"
)

func TestProfileFlagsWhereTheyDoNotApply(t *testing.T) {
	bfs := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=5"}
	existing := filepath.Join(t.TempDir(), "old")
	require.NoError(t, os.WriteFile(existing+".sqlite3", nil, 0o644))
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"cpu target", append(bfs, "--profile"), "--profile is of a simulation's cycles: it needs --target sim, not cpu"},
		{"hw target", append(bfs, "--target", "hw", "--profile"), "needs --target sim, not hw"},
		{"functional mode", append(bfs, "--target", "sim", "--sim-mode", "functional", "--profile"), "--sim-mode functional has none"},
		{"not a JSON file", append(bfs, "--target", "sim", "--profile=p.txt"), "name a FILE.json"},
		{"trace on the cpu", append(bfs, "--trace", "t"), "--trace is of a simulation's cycles"},
		{"trace in functional mode", append(bfs, "--target", "sim", "--sim-mode", "functional", "--trace", "t"), "--sim-mode functional has none"},
		{"trace file exists", append(bfs, "--target", "sim", "--config", "tiny", "--trace", existing), "exists"},
		{"profile in a missing folder", append(bfs, "--target", "sim", "--config", "tiny", "--profile="+filepath.Join(missing, "p.json")), "cannot write to " + missing},
		{"trace in a missing folder", append(bfs, "--target", "sim", "--config", "tiny", "--trace", filepath.Join(missing, "t")), "cannot write to " + missing},
		{"micro on hw", []string{"micro", "stream", "--profile"}, "needs --target sim, not hw"},
		{"micro functional", []string{"micro", "stream", "--target", "sim", "--sim-mode", "functional", "--trace", "t"}, "has none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, status, stderr)
			assert.Contains(t, stderr, tc.mention)
		})
	}
}

// readProfile reads a --profile JSON file and checks that its cycles add
// up.
func readProfile(t *testing.T, path string) *sim.ProfileReport {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r sim.ProfileReport
	require.NoError(t, json.Unmarshal(b, &r))
	var sum uint64
	for _, v := range r.ByReason {
		sum += v
	}
	assert.Equal(t, r.WarpCycles, sum, "reasons add up to every warp's lifetime")
	assert.Zero(t, r.Unbalanced)
	return &r
}

func TestRunProfilePrintsTheTableAndWritesJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bfs.json")
	stdout, stderr, status := runCLI(t, "run", "--algo", "bfs", "--graph", "rmat:scale=6", "--target", "sim", "--config", "tiny", "--profile="+path)
	require.Equal(t, exitSuccess, status, stderr)
	for _, want := range []string{"validation", "profile: where the warps' cycles went", "source lines, by warp-cycles (top",
		"PTX instructions, by warp-cycles", "bfs_bsp_base_push", "kernels/bfs.cu:", "launches", "profile: wrote " + path} {
		assert.Contains(t, stdout, want)
	}
	assert.Less(t, strings.Index(stdout, "validation"), strings.Index(stdout, "profile:"), "the profile follows the run's table")
	r := readProfile(t, path)
	require.NotEmpty(t, r.Lines)
	require.Len(t, r.Kernels, 1)
	assert.Equal(t, r.Launches, r.Kernels[0].Launches)
	var bfsLine bool
	for _, l := range r.Lines {
		if l.File == "./kernels/bfs.cu" {
			bfsLine = true
			assert.NotEmpty(t, l.Source, "the source text, found from the repository's root: %+v", l)
		}
	}
	assert.True(t, bfsLine)

	// With --json the table goes to stderr and stdout stays one document.
	stdout, stderr, status = runCLI(t, "run", "--algo", "bfs", "--graph", "rmat:scale=6", "--target", "sim", "--config", "tiny", "--profile", "--json")
	require.Equal(t, exitSuccess, status, stderr)
	var res runResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.Contains(t, stderr, "source lines, by warp-cycles")
}

// TestRunProfileOfADeadlock: a fused BFS whose grid barrier cannot
// complete (one CTA more than fit on tiny's SMs) ends in a deadlock, and
// the profile, printed all the same, shows the warps spinning in the
// barrier and waiting at the __syncthreads after it.
func TestRunProfileOfADeadlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deadlock.json")
	stdout, stderr, status := runCLI(t, "run", "--algo", "bfs", "--graph", "rmat:scale=6", "--target", "sim", "--config", "tiny",
		"--scheduler", "simdx:fusion=all", "--grid", "9", "--profile="+path)
	require.Equal(t, exitDeadlock, status, stderr)
	assert.Contains(t, stderr, "deadlocked")
	assert.Contains(t, stdout, "profile: where the warps' cycles went")
	assert.Contains(t, stdout, "deadlock")
	r := readProfile(t, path)
	require.Len(t, r.LaunchList, 1)
	assert.Equal(t, sim.OutcomeDeadlock, r.LaunchList[0].Outcome)
	assert.Positive(t, r.ByReason["spinning"])
	assert.Positive(t, r.ByReason["barrier"])
	assert.Positive(t, r.ByReason["not_resident"], "7 of the 9 CTAs never start")
	var spinLine string
	for _, l := range r.Lines {
		if l.ByReason["spinning"] > l.Cycles/2 {
			spinLine = l.File
			break
		}
	}
	// The barrier's wait loop, or the spin protocol's helpers it inlines.
	assert.Regexp(t, `^\./kernels/(lib/barrier\.cuh|warpgraph\.h)$`, spinLine, "the barrier's wait loop spins")
}

func TestMicroProfile(t *testing.T) {
	stdout, stderr, status := runCLI(t, "micro", "bank_stride", "--target", "sim", "--config", "tiny", "--profile")
	require.Equal(t, exitSuccess, status, stderr)
	i := strings.Index(stdout, "source lines, by warp-cycles")
	require.Positive(t, i, stdout)
	first := strings.SplitN(stdout[i:], "\n", 4)[2] // the title, the header, then line 1
	assert.Contains(t, first, "kernels/bank_stride.cu:")
	assert.Contains(t, first, "bank_conflict")
}

func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bfs")
	args := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=5", "--target", "sim", "--config", "tiny", "--trace", path}
	_, stderr, status := runCLI(t, args...)
	require.Equal(t, exitSuccess, status, stderr)
	st, err := os.Stat(path + ".sqlite3")
	require.NoError(t, err)
	assert.Positive(t, st.Size())
	_, stderr, status = runCLI(t, args...)
	assert.Equal(t, exitBadInput, status)
	assert.Contains(t, stderr, "exists")
}
