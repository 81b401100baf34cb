// Command warpgraph is the command line of warpgraph: graph information and
// conversion, algorithm runs on the CPU reference, the simulator and real
// GPUs, microbenchmarks and experiments.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
)

// Exit statuses. README.md's "Exit statuses" table documents each one by
// the words of its name ("exitMemoryFault" is "memory fault"), and
// TestExitStatusesMatchReadme parses both, so they cannot drift apart. 70
// is EX_SOFTWARE of sysexits.h; Go itself exits 2 on an unrecovered panic,
// which would read as bad input.
const (
	exitSuccess        = 0
	exitFailure        = 1
	exitBadInput       = 2
	exitMemoryFault    = 3
	exitDeadlock       = 4
	exitSpinBudget     = 5
	exitTimeout        = 6
	exitLaunchResource = 7
	exitOutOfMemory    = 8
	exitInternal       = 70
	// A signal stopped the command: 128 + its number, as a shell reports
	// a process that the signal killed (signals.go).
	exitInterrupted = 130
	exitTerminated  = 143
)

// inputError marks an error caused by what the user asked for rather than
// by warpgraph: it exits with status 2.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &inputError{fmt.Errorf(format, args...)}
}

// validationError reports a run whose result disagrees with the CPU
// reference (or fails its certificate): it exits with status 1.
type validationError struct{ err error }

func (e *validationError) Error() string { return e.err.Error() }
func (e *validationError) Unwrap() error { return e.err }

// failedValidation returns the error of a run that failed validation; the
// message says what disagreed.
func failedValidation(format string, args ...any) error {
	return &validationError{fmt.Errorf(format, args...)}
}

// unrecoverableContext is the method by which hw.HungKernelError (a kernel
// still running when its launch's context ended) says whether the CUDA
// context is lost. Matching the method, not the type, keeps any other
// executor's hung-kernel error on status 6 too; a HungKernelError whose
// cause is context.DeadlineExceeded gets 6 through that cause as well.
type unrecoverableContext interface{ ContextUnrecoverable() bool }

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := watchSignals(cancel, os.Stderr, os.Exit)
	status := runMainContext(ctx, newRootCommand, os.Args[1:], os.Stderr)
	stop()
	os.Exit(status)
}

// runMain is runMainContext without signals.
func runMain(build func() *cobra.Command, args []string, stderr io.Writer) int {
	return runMainContext(context.Background(), build, args, stderr)
}

// runMainContext builds the command line, runs it on args under ctx and
// returns the exit status, printing any error to stderr: one line, or,
// when a signal ended ctx, the line saying where the command stopped. A
// panic while it runs (on this goroutine: every subcommand runs here) is
// an internal error: it prints the panic and its stack and returns
// exitInternal.
func runMainContext(ctx context.Context, build func() *cobra.Command, args []string, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "warpgraph: internal error: %v\n\n%s", r, debug.Stack())
			status = exitInternal
		}
	}()
	root := build()
	root.SetArgs(args)
	var prof cpuProfile
	prof.register(root)
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if status, line, ok := interruptedStatus(ctx, err); ok {
		fmt.Fprintln(stderr, "warpgraph:", line)
		return status
	}
	if err == nil {
		return exitSuccess
	}
	fmt.Fprintln(stderr, "warpgraph:", err)
	return exitStatus(err)
}

// exitStatus maps a command's error to its exit status (README.md, "Exit
// statuses"). Causes are found through wrapping (%w, errors.Join); an error
// that carries several gets the first match in the order below, and one
// that carries none of them is a plain failure.
func exitStatus(err error) int {
	if err == nil {
		return exitSuccess
	}
	var (
		in       *inputError
		sweepIn  *experiments.InputError
		valid    *validationError
		fault    *kernels.MemoryFaultError
		deadlock *kernels.DeadlockError
		spin     *kernels.SpinBudgetError
		hung     unrecoverableContext
		resource *kernels.LaunchResourceError
		overflow *scheduler.QueueOverflowError
		memory   *graph.MemoryError
	)
	switch {
	case errors.As(err, &in), errors.As(err, &sweepIn), isFlagError(err), errors.Is(err, fs.ErrNotExist):
		return exitBadInput
	case errors.As(err, &valid):
		return exitFailure
	case errors.As(err, &fault):
		return exitMemoryFault
	case errors.As(err, &deadlock):
		return exitDeadlock
	case errors.As(err, &spin):
		return exitSpinBudget
	// A hung kernel is a time-out whether its context ran out or was
	// cancelled; ContextUnrecoverable says only whether the device is lost.
	case errors.As(err, &hung), errors.Is(err, context.DeadlineExceeded), errors.Is(err, experiments.ErrFinishBy):
		return exitTimeout
	case errors.As(err, &resource), errors.As(err, &overflow):
		return exitLaunchResource
	case errors.As(err, &memory):
		return exitOutOfMemory
	default:
		return exitFailure
	}
}

// flagError wraps cobra's errors about the command line itself (flags,
// unknown commands, the number of arguments) so they exit with status 2.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

// usageErrors makes the argument checks of cmd and its subcommands return
// flagErrors. The root has no command of its own: it prints its help, and
// an argument that names no subcommand is an unknown command (cobra's own
// check for that returns a plain error).
func usageErrors(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		usageErrors(c)
	}
	if !cmd.HasParent() {
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // cobra's own default
		}
		cmd.Args = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return &flagError{errors.New(msg)}
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		return
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &flagError{err}
			}
			return nil
		}
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "warpgraph",
		Short:         "GPU graph processing: one kernel source on a simulator, a real GPU and a CPU reference",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{err} })
	root.AddCommand(newInfoCommand(), newConvertCommand(), newRunCommand(), newDemoCommand())
	for _, add := range extraCommands {
		root.AddCommand(add())
	}
	usageErrors(root)
	return root
}

// extraCommands lets files that depend on later subsystems (hardware,
// simulator) register their subcommands.
var extraCommands []func() *cobra.Command
