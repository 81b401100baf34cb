package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/scheduler"
)

// nameLiterals are the string literals of the package's non-test files
// that equal one of names or start with one followed by ':', as
// "file:line: literal".
func nameLiterals(t *testing.T, names []string) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var found []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			for _, name := range names {
				if s == name || strings.HasPrefix(s, name+":") {
					found = append(found, fset.Position(lit.Pos()).String()+": "+lit.Value)
				}
			}
			return true
		})
	}
	return found
}

// The command line knows no microbenchmark, algorithm or scheduler by
// name: it reads them from the registries (experiments/micro, scheduler)
// and runs experiments' plans.
func TestCommandLineNamesNoRegisteredName(t *testing.T) {
	assert.Empty(t, nameLiterals(t, microRegistry.Names()), "microbenchmark names")
	names := append(scheduler.AlgorithmNames(), scheduler.SchedulerNames()...)
	require.Contains(t, names, "bfs", "the registries are filled")
	assert.Empty(t, nameLiterals(t, names), "algorithm and scheduler names")
}
