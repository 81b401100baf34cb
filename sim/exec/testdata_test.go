package exec

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTestdataFresh recompiles testdata/exec.cu when clang++-16 is present
// and checks that the committed exec.ptx matches.
func TestTestdataFresh(t *testing.T) {
	clang, err := exec.LookPath("clang++-16")
	if err != nil {
		t.Skip("clang++-16 not on PATH; cannot check testdata/exec.ptx")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "exec.ptx")
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_70", "-Xclang", "-target-feature", "-Xclang", "+ptx64", "-O3", "-S",
		"-gline-directives-only", "-ffile-prefix-map="+root+"=.", "sim/exec/testdata/exec.cu", "-o", out)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/exec.ptx")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("testdata/exec.ptx is stale: regenerate it with the command in testdata/exec.cu")
	}
}
