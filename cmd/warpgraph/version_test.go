package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// akitaRequirement is the akita version go.mod requires.
func akitaRequirement(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../../go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(akitaModule) + `\s+(\S+)`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod requires akita")
	return string(m[1])
}

func TestVersionNamesCommitGoAndAkita(t *testing.T) {
	saved := buildCommit
	t.Cleanup(func() { buildCommit = saved })
	buildCommit = "abc1234"
	out, status, err := execute(t, "--version")
	require.NoError(t, err)
	assert.Equal(t, 0, status)
	assert.Equal(t, "warpgraph commit abc1234, "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+", akita "+akitaRequirement(t)+"\n", out)
}

// make build stamps the checkout's commit into ./warpgraph (here BIN), and
// tells the user that the first build takes a while.
func TestMakeBuildStampsTheCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, tool := range []string{"make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	head, err := exec.Command("git", "-C", "../..", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "warpgraph")
	out, err := exec.Command("make", "-C", "../..", "build", "BIN="+bin).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "about a minute on a fresh machine")
	version, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(version), "warpgraph commit "+strings.TrimSpace(string(head))), "got %q", version)
	assert.Contains(t, string(version), "akita "+akitaRequirement(t))
}
