package sim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// Test kernels of this package live in sim/testdata/NAME.cu with their PTX
// committed beside them (NAME.ptx), compiled as `make kernels` compiles
// kernels/: these two helpers check the PTX is fresh and load its kernels.

// checkTestdataFresh recompiles testdata/NAME.cu when clang++-16 is present
// and fails when the committed testdata/NAME.ptx differs.
func checkTestdataFresh(t *testing.T, name string) {
	t.Helper()
	checkTestdataFreshFor(t, name, "sm_70", "+ptx64")
}

// checkTestdataFreshFor is checkTestdataFresh for a testdata source
// compiled for another GPU architecture and PTX version.
func checkTestdataFreshFor(t *testing.T, name, arch, ptxFeature string) {
	t.Helper()
	clang, err := exec.LookPath("clang++-16")
	if err != nil {
		t.Skipf("clang++-16 not on PATH; cannot check testdata/%s.ptx", name)
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), name+".ptx")
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch="+arch, "-Xclang", "-target-feature", "-Xclang", ptxFeature, "-O3", "-S",
		"-gline-directives-only", "-ffile-prefix-map="+root+"=.", "sim/testdata/"+name+".cu", "-o", out)
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/" + name + ".ptx")
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("testdata/%s.ptx is stale: regenerate it with the command in testdata/%s.cu", name, name)
	}
}

// testdataKernel returns kernel k of testdata/MODULE.ptx.
func testdataKernel(t testing.TB, module, name string) *kernels.Kernel {
	t.Helper()
	src, err := os.ReadFile("testdata/" + module + ".ptx")
	require.NoError(t, err)
	m, err := kernels.ParseModule(module, src)
	require.NoError(t, err)
	for _, k := range m.Kernels {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("testdata/%s.ptx has no kernel %s", module, name)
	return nil
}
