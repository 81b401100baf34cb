package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatusesOfCommonMistakes: what a new user typically gets wrong ends
// in one line on stderr and the README's status for it, never a panic, a
// silent default or a plain failure.
func TestStatusesOfCommonMistakes(t *testing.T) {
	dir := t.TempDir()
	fractional := filepath.Join(dir, "fractional.el")
	asymmetric := filepath.Join(dir, "asymmetric.graph")
	for path, data := range map[string]string{
		fractional: "0 1 3\n0 1 2.5\n",
		// Vertex 1 lists 2; vertex 2 (line 4) lists only 3; 3 lists 2 and itself.
		asymmetric: "% edges 1-2 and 2-3, each listed at one end\n3 2\n2\n3\n2 3\n",
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bfs := []string{"run", "--algo", "bfs", "--graph", "rmat:scale=6", "--target", "sim"}
	tests := []struct {
		name    string
		args    []string
		status  int
		mention string
	}{
		{"SMs past the timing model, timing mode", append(bfs, "--config", "h100+sms=1000000000"), exitBadInput, "sms (1000000000) exceeds 256"},
		{"SMs past the timing model, functional mode", append(bfs, "--config", "gtx780ti+sms=1000000000", "--sim-mode", "functional"), exitBadInput, "the most the timing model holds"},
		{"SMs past coherence l1, timing mode", append(bfs, "--config", "h100+sms=500000"), exitBadInput, `the most that memory.coherence "l1" supports`},
		{"SMs past coherence l1, functional mode", append(bfs, "--config", "h100+sms=500000", "--sim-mode", "functional"), exitBadInput, `the most that memory.coherence "l1" supports`},
		{"empty weight range", []string{"info", "--graph", "rmat:scale=5,weights=0..0"}, exitBadInput, "weights=0..0: weights are positive"},
		{"fractional edge-list weight", []string{"info", "--graph", fractional}, exitBadInput, "fractional.el:2: non-integer weight \"2.5\""},
		{"asymmetric METIS adjacency", []string{"info", "--graph", asymmetric}, exitBadInput, "asymmetric.graph:3: vertex 1 lists neighbour 2, but vertex 2 (line 4) does not list 1"},
		{"persistent grid over the co-resident limit", append(bfs, "--sim-mode", "functional", "--scheduler", "atos", "--grid", "2000"), exitLaunchResource, "a grid of 2000 CTAs exceeds the"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, tc.status, status, stderr)
			assert.Contains(t, stderr, tc.mention)
			assert.True(t, strings.HasPrefix(stderr, "warpgraph: "), stderr)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
		})
	}
}

// TestFunctionalModeReportsNoTime: functional simulation has no cycles,
// so a run on it prints and writes no kernel or end-to-end time (it once
// printed a simulated end-to-end time beside a kernel time of 0s).
func TestFunctionalModeReportsNoTime(t *testing.T) {
	run := []string{"run", "--algo", "bfs", "--graph", "grid:w=8,h=8", "--target", "sim", "--sim-mode", "functional"}
	stdout, stderr, status := runCLI(t, append(run, "--per-iteration")...)
	require.Equal(t, exitSuccess, status, stderr)
	assert.NotContains(t, stdout, "end-to-end time")
	assert.NotRegexp(t, `(?m)^kernel time`, stdout)
	assert.Regexp(t, `(?m)^0 +\S+ +push +\S+ +1 +\d+ +\d+ +- +-`, stdout, "the per-iteration table has no kernel time")

	for _, extra := range [][]string{nil, {"--sources", "2"}} {
		stdout, stderr, status = runCLI(t, append(append(run, "--json"), extra...)...)
		require.Equal(t, exitSuccess, status, stderr)
		for _, key := range []string{"end_to_end_seconds", "kernel_seconds", "runs_end_to_end_seconds"} {
			assert.NotContains(t, stdout, `"`+key+`"`, "%v", extra)
		}
	}

	// Timing mode keeps its times.
	stdout, stderr, status = runCLI(t, "run", "--algo", "bfs", "--graph", "grid:w=8,h=8", "--target", "sim", "--config", "tiny", "--json")
	require.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, `"end_to_end_seconds"`)
	assert.Contains(t, stdout, `"kernel_seconds"`)
}

// childArgs, in a child's environment, holds the command line that
// TestChildMain runs through main (arguments separated by "\x1f").
const childArgs = "WARPGRAPH_TEST_CHILD_ARGS"

// TestChildMain runs main in a child process of a test (runChild); it
// does nothing otherwise.
func TestChildMain(t *testing.T) {
	args := os.Getenv(childArgs)
	if args == "" {
		t.Skip("runs only as a child process of another test")
	}
	os.Args = append([]string{"warpgraph"}, strings.Split(args, "\x1f")...)
	main()
	t.Fatal("main returned")
}

// childCommand is this test binary running main on args, under sh with
// the shell commands of prelude first (ulimit, trap).
func childCommand(prelude string, args ...string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", prelude+`; exec "$0" "$@"`, os.Args[0], "-test.run=^TestChildMain$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(args, "\x1f"))
	return cmd
}

// TestGraphPastTheMemoryLimit: the issue's `(ulimit -v 3000000; warpgraph
// info --graph rmat:scale=25)` ends in one line giving what generating
// the graph needs and what the process has, with status 8, instead of
// Go's fatal out-of-memory and its goroutine dump.
func TestGraphPastTheMemoryLimit(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh for ulimit")
	}
	cmd := childCommand("ulimit -v 3000000", "info", "--graph", "rmat:scale=25")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
	assert.Equal(t, exitOutOfMemory, exit.ExitCode(), "stderr: %s", stderr.String())
	assert.Empty(t, stdout.String())
	assert.Regexp(t, `^warpgraph: generating rmat:scale=25,\S+ needs about \d+\.\d GiB of memory, more than the \d+(\.\d)? [GMK]iB available \(the smallest of: RLIMIT_AS 2\.9 GiB less \d+(\.\d)? [GM]iB in use(; [^;]+)*\)\n$`, stderr.String())
}
