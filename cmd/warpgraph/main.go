// Command warpgraph is the command line of warpgraph: graph information and
// conversion, algorithm runs on the CPU reference, the simulator and real
// GPUs, microbenchmarks and experiments.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses: 2 for bad input (flags, specs, files), 1 for failures.
const (
	exitFailure  = 1
	exitBadInput = 2
)

// inputError marks an error caused by what the user asked for rather than
// by warpgraph: it exits with status 2.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &inputError{fmt.Errorf(format, args...)}
}

func main() {
	root := newRootCommand()
	err := root.Execute()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "warpgraph:", err)
	os.Exit(exitStatus(err))
}

func exitStatus(err error) int {
	var in *inputError
	var hung interface{ ContextUnrecoverable() bool }
	switch {
	case errors.As(err, &in), errors.Is(err, fs.ErrNotExist), isFlagError(err):
		return exitBadInput
	case errors.As(err, &hung):
		return exitFailure
	default:
		return exitFailure
	}
}

// flagError wraps cobra's flag parsing errors so they exit with status 2.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "warpgraph",
		Short:         "GPU graph processing: one kernel source on a simulator, a real GPU and a CPU reference",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &flagError{err} })
	root.AddCommand(newInfoCommand(), newConvertCommand(), newRunCommand(), newDemoCommand())
	for _, add := range extraCommands {
		root.AddCommand(add())
	}
	return root
}

// extraCommands lets files that depend on later subsystems (hardware,
// simulator) register their subcommands.
var extraCommands []func() *cobra.Command
