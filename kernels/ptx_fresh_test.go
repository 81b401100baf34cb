package kernels

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// baseNames returns the sorted base names, without ext, of dir's files
// ending in ext.
func baseNames(t *testing.T, dir, ext string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range matches {
		out = append(out, strings.TrimSuffix(filepath.Base(m), ext))
	}
	slices.Sort(out)
	return out
}

// TestPTXFilesMatchSources needs no compiler: every kernels/*.cu has a
// kernels/ptx/*.ptx and every PTX file has its source.
func TestPTXFilesMatchSources(t *testing.T) {
	srcs, ptxs := baseNames(t, ".", ".cu"), baseNames(t, "ptx", ".ptx")
	for _, s := range srcs {
		if !slices.Contains(ptxs, s) {
			t.Errorf("kernels/%s.cu has no kernels/ptx/%s.ptx: run make kernels", s, s)
		}
	}
	for _, p := range ptxs {
		if !slices.Contains(srcs, p) {
			t.Errorf("kernels/ptx/%s.ptx has no source kernels/%s.cu: delete it", p, p)
		}
	}
}

// clangCommand returns the compiler and flags of `make kernels`, which
// prints them (the Makefile is their single source of truth), and the
// repository root that make ran in.
func clangCommand(t *testing.T) (compiler string, flags []string, root string) {
	return makeCommand(t, "print-clang-flags")
}

// makeCommand returns the command a make target prints: print-clang-flags
// (PTX) or print-clang-pp-flags (preprocessing, for signature files).
func makeCommand(t *testing.T, target string) (compiler string, flags []string, root string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not on the PATH: committed PTX not checked against the sources")
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", target)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", target, err, stderr.String())
	}
	fields := strings.Fields(string(out))
	if len(fields) < 2 {
		t.Fatalf("make %s printed %q", target, out)
	}
	return fields[0], fields[1:], root
}

// TestPTXFresh recompiles every kernel source exactly as `make kernels`
// does (same compiler, flags, working directory and relative paths) and
// fails on any difference from the committed PTX. Without the compiler on
// the PATH it skips; CI installs clang-16, so the check always runs there.
func TestPTXFresh(t *testing.T) {
	compiler, flags, root := clangCommand(t)
	if _, err := exec.LookPath(compiler); err != nil {
		t.Skipf("%s is not on the PATH: committed PTX not checked against the sources (CI installs clang-16)", compiler)
	}
	tmp := t.TempDir()
	for _, name := range baseNames(t, ".", ".cu") {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(tmp, name+".ptx")
			args := append(slices.Clone(flags), filepath.ToSlash(filepath.Join("kernels", name+".cu")), "-o", out)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, compiler, args...)
			cmd.Dir = root
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, msg)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(filepath.Join("ptx", name+".ptx"))
			if err != nil {
				t.Fatalf("%v: run make kernels", err)
			}
			if !bytes.Equal(got, committed) {
				t.Errorf("kernels/ptx/%s.ptx is stale: run make kernels and commit the result\n%s", name, firstDifference(committed, got))
			}
		})
	}
}

// firstDifference describes the first line where two texts differ.
func firstDifference(committed, fresh []byte) string {
	a := strings.Split(string(committed), "\n")
	b := strings.Split(string(fresh), "\n")
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y || i >= len(a) || i >= len(b) {
			return fmt.Sprintf("first difference at line %d:\n  committed: %q\n  fresh:     %q", i+1, x, y)
		}
	}
	return "the texts differ only in their line endings"
}

// TestSignaturesFresh preprocesses every kernel source exactly as `make
// kernels` does and fails when the committed signature file (ptx/NAME.sig)
// differs from what ExtractSignatures makes of it.
func TestSignaturesFresh(t *testing.T) {
	compiler, flags, root := makeCommand(t, "print-clang-pp-flags")
	if _, err := exec.LookPath(compiler); err != nil {
		t.Skipf("%s is not on the PATH: committed signature files not checked against the sources (CI installs clang-16)", compiler)
	}
	for _, name := range baseNames(t, ".", ".cu") {
		t.Run(name, func(t *testing.T) {
			args := append(slices.Clone(flags), filepath.ToSlash(filepath.Join("kernels", name+".cu")))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, compiler, args...)
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			pre, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, stderr.String())
			}
			got, err := ExtractSignatures(pre)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(filepath.Join("ptx", name+".sig"))
			if err != nil {
				t.Fatalf("%v: run make kernels", err)
			}
			if !bytes.Equal(got, committed) {
				t.Errorf("kernels/ptx/%s.sig is stale: run make kernels and commit the result\n%s", name, firstDifference(committed, got))
			}
		})
	}
}
