package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
)

// exitConstants reads the exit* constants of main.go, by parsing it: each
// status with the words of its name ("exitMemoryFault" is "memory fault").
func exitConstants(t *testing.T) map[int]string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, 0)
	require.NoError(t, err)
	out := map[int]string{}
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				words, ok := strings.CutPrefix(name.Name, "exit")
				if !ok {
					continue
				}
				require.Less(t, i, len(vs.Values), "%s has no value of its own", name.Name)
				lit, ok := vs.Values[i].(*ast.BasicLit)
				require.True(t, ok && lit.Kind == token.INT, "%s must be an integer literal", name.Name)
				code, err := strconv.Atoi(lit.Value)
				require.NoError(t, err)
				_, dup := out[code]
				require.False(t, dup, "two constants for status %d", code)
				out[code] = camelWords(words)
			}
		}
	}
	return out
}

// camelWords splits "MemoryFault" into "memory fault".
func camelWords(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

var readmeStatusRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|\s*([^|]*?)\s*\|`)

// readmeStatuses reads the table under README.md's "## Exit statuses".
func readmeStatuses(t *testing.T) map[int]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	defer f.Close()
	out := map[int]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = line == "## Exit statuses"
			continue
		}
		if m := readmeStatusRow.FindStringSubmatch(line); in && m != nil {
			code, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			_, dup := out[code]
			require.False(t, dup, "README.md lists status %d twice", code)
			out[code] = m[2]
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, `README.md has no table under "## Exit statuses"`)
	return out
}

// TestExitStatusesMatchReadme: README.md's table and main.go's constants
// list the same statuses under the same names.
func TestExitStatusesMatchReadme(t *testing.T) {
	consts := exitConstants(t)
	assert.Equal(t, consts, readmeStatuses(t))
	// The table the task set out; a change to it is a change for every
	// script that reads the statuses.
	assert.Equal(t, map[int]string{
		0: "success", 1: "failure", 2: "bad input", 3: "memory fault", 4: "deadlock",
		5: "spin budget", 6: "timeout", 7: "launch resource", 8: "out of memory", 70: "internal",
		130: "interrupted", 143: "terminated",
	}, consts)
}

// hungKernel stands for hw.HungKernelError in builds where it does not yet
// say whether the context is lost.
type hungKernel struct{ cause error }

func (e *hungKernel) Error() string              { return "kernel still running" }
func (e *hungKernel) Unwrap() error              { return e.cause }
func (e *hungKernel) ContextUnrecoverable() bool { return true }

func TestExitStatus(t *testing.T) {
	_, notExist := os.Open(filepath.Join(t.TempDir(), "nope.mtx"))
	fault := &kernels.MemoryFaultError{Kernel: "k", Detail: "address 0x10 out of range"}
	deadlock := &kernels.DeadlockError{Kernel: "k", Detail: "no progress"}
	spin := &kernels.SpinBudgetError{Kernel: "k", Budget: 5000, Detail: "grid barrier"}
	resource := &kernels.LaunchResourceError{Kernel: "k", Detail: "too much shared memory"}
	memory := &graph.MemoryError{What: "generating rmat:scale=25", Need: 16 << 30, Bounds: []graph.MemoryBound{{Name: "MemAvailable", Limit: 1 << 30}}}
	hung := &hw.HungKernelError{Kernel: "k", Waited: time.Second, Cause: context.DeadlineExceeded}
	wrap := func(err error) error { return fmt.Errorf("run bfs on sim: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitSuccess},

		{"plain failure", errors.New("CUDA_ERROR_UNKNOWN"), exitFailure},
		{"cancelled", context.Canceled, exitFailure},
		{"failed validation", failedValidation("distance of %d: got %d, want %d", 3, 4, 5), exitFailure},
		{"failed validation, wrapped", wrap(failedValidation("mismatch")), exitFailure},

		{"bad input", badInput("unknown algorithm %q", "dfs"), exitBadInput},
		{"bad input, wrapped", wrap(&inputError{errors.New("bad spec")}), exitBadInput},
		{"flag error", &flagError{errors.New("unknown flag: --grpah")}, exitBadInput},
		{"missing file", notExist, exitBadInput},
		{"missing file, wrapped", wrap(notExist), exitBadInput},
		{"sweep arguments, wrapped", wrap(&experiments.InputError{Err: errors.New("2 of 6 points missing")}), exitBadInput},

		{"queue overflow, wrapped", wrap(&scheduler.QueueOverflowError{Kernel: "bfs_atos_cta_persist", Pushed: 40, Capacity: 16}), exitLaunchResource},

		{"memory fault", fault, exitMemoryFault},
		{"memory fault, wrapped", wrap(fault), exitMemoryFault},
		{"memory fault, wrapped twice", fmt.Errorf("repeat 2: %w", wrap(fault)), exitMemoryFault},
		{"deadlock", deadlock, exitDeadlock},
		{"deadlock, wrapped", wrap(deadlock), exitDeadlock},
		{"spin budget", spin, exitSpinBudget},
		{"spin budget, wrapped", wrap(spin), exitSpinBudget},
		{"deadline", context.DeadlineExceeded, exitTimeout},
		{"deadline, wrapped", wrap(context.DeadlineExceeded), exitTimeout},
		{"hung kernel", hung, exitTimeout},
		{"hung kernel, wrapped", wrap(hung), exitTimeout},
		{"unrecoverable context, cancelled", wrap(&hungKernel{cause: context.Canceled}), exitTimeout},
		{"launch resource", resource, exitLaunchResource},
		{"launch resource, wrapped", wrap(resource), exitLaunchResource},
		{"out of memory, wrapped", wrap(&graph.ReadError{File: "big.el", Line: 9, Msg: "not enough memory", Err: memory}), exitOutOfMemory},

		// Several causes: the first of 2, 1, 3, 4, 5, 6, 7.
		{"joined", errors.Join(deadlock, fault), exitMemoryFault},
		{"bad input wins", badInput("--block 4096: %w", resource), exitBadInput},
		{"validation wins", errors.Join(spin, failedValidation("mismatch")), exitFailure},
		{"deadlock before time-out", errors.Join(context.DeadlineExceeded, deadlock), exitDeadlock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, exitStatus(tc.err), "%v", tc.err)
		})
	}

	t.Run("hw.HungKernelError cancelled", func(t *testing.T) {
		var err error = &hw.HungKernelError{Kernel: "k", Waited: time.Second, Cause: context.Canceled}
		if _, ok := err.(unrecoverableContext); !ok {
			t.Skip("hw.HungKernelError has no ContextUnrecoverable method yet")
		}
		assert.Equal(t, exitTimeout, exitStatus(wrap(err)))
	})
}

func TestErrorTypesKeepTheirMessage(t *testing.T) {
	err := failedValidation("vertex %d: got %d", 7, 3)
	assert.Equal(t, "vertex 7: got 3", err.Error())
	inner := errors.New("cause")
	assert.ErrorIs(t, &validationError{inner}, inner)
	assert.ErrorIs(t, &flagError{inner}, inner)
}

// runCLI runs the real command line through runMain, capturing both
// streams.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = runMain(func() *cobra.Command {
		root := newRootCommand()
		root.SetOut(&out)
		root.SetErr(&errOut)
		return root
	}, args, &errOut)
	return out.String(), errOut.String(), status
}

func TestUsageErrorsAreBadInput(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"unknown command", []string{"infoo"}, `unknown command "infoo" for "warpgraph"; did you mean "info"?`},
		{"argument to a command without any", []string{"info", "extra", "--graph", "grid:w=2,h=2"}, `unknown command "extra"`},
		{"missing argument", []string{"micro"}, "accepts 1 arg(s), received 0"},
		{"unknown flag", []string{"info", "--grpah", "x"}, "unknown flag: --grpah"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			assert.Equal(t, exitBadInput, status)
			assert.Contains(t, stderr, "warpgraph: "+tc.mention)
		})
	}

	stdout, stderr, status := runCLI(t)
	assert.Equal(t, exitSuccess, status, stderr)
	assert.Contains(t, stdout, "Available Commands:", "no command prints the help")
	stdout, _, status = runCLI(t, "--help")
	assert.Equal(t, exitSuccess, status)
	assert.Contains(t, stdout, "Available Commands:")

	_, stderr, status = runCLI(t, "info", "--graph", "grid:w=2,h=2")
	assert.Equal(t, exitSuccess, status, stderr)
	assert.Empty(t, stderr)
}

func panicking() *cobra.Command {
	root := newRootCommand()
	root.AddCommand(&cobra.Command{
		Use: "panic-for-test",
		RunE: func(*cobra.Command, []string) error {
			var m map[string]int
			m["boom"]++ // a nil map: a real runtime panic
			return nil
		},
	})
	return root
}

// TestPanicIsInternalError: a panic is recovered, printed with its stack,
// and exits 70.
func TestPanicIsInternalError(t *testing.T) {
	var stderr bytes.Buffer
	status := runMain(panicking, []string{"panic-for-test"}, &stderr)
	assert.Equal(t, exitInternal, status)
	assert.True(t, strings.HasPrefix(stderr.String(), "warpgraph: internal error: assignment to entry in nil map\n"), stderr.String())
	assert.Contains(t, stderr.String(), "goroutine ")
	assert.Contains(t, stderr.String(), "exit_test.go", "the stack reaches the panicking code")
}

// TestPanicExitStatusOfTheProcess runs main in a child process, where a
// panic would otherwise exit 2.
func TestPanicExitStatusOfTheProcess(t *testing.T) {
	if os.Getenv("WARPGRAPH_TEST_PANIC") == "1" {
		extraCommands = append(extraCommands, func() *cobra.Command {
			return &cobra.Command{Use: "panic-for-test", Run: func(*cobra.Command, []string) { panic("boom") }}
		})
		os.Args = []string{"warpgraph", "panic-for-test"}
		main()
		t.Fatal("main returned")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicExitStatusOfTheProcess$")
	cmd.Env = append(os.Environ(), "WARPGRAPH_TEST_PANIC=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
	assert.Equal(t, exitInternal, exit.ExitCode(), "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "warpgraph: internal error: boom")
	assert.Contains(t, stderr.String(), "runtime/debug.Stack")
}
