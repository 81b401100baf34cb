package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/scheduler"
)

var updateReadme = flag.Bool("update", false, "rewrite the generated files: README.md's command-line reference (TestReadmeCommandLine) and algorithm table (TestReadmeAlgorithms), testdata/cells.golden.json (TestRegisteredCellsKeepTheirFigures)")

const (
	readmePath       = "../../README.md"
	cliBegin         = "<!-- command-line reference: begin -->"
	cliEnd           = "<!-- command-line reference: end -->"
	cliSectionHeader = "## The command line"
)

// commandLineReference renders every command of the tree — its usage line,
// its one-line description and its flags with their defaults and help —
// as cobra reports them, so the README's reference is the CLI itself.
func commandLineReference(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString(cliBegin + "\n")
	b.WriteString("<!-- Generated from the cobra commands: `go test ./cmd/warpgraph -run TestReadmeCommandLine -update` rewrites it. -->\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		b.WriteString("\n`" + c.CommandPath() + "`: " + c.Short + "\n\n")
		b.WriteString("    " + c.UseLine() + "\n")
		flags := c.LocalNonPersistentFlags()
		if !c.HasParent() {
			flags = c.Flags()
		}
		if usage := flagUsages(flags); usage != "" {
			b.WriteString("\n")
			for _, line := range strings.Split(strings.TrimRight(usage, "\n"), "\n") {
				b.WriteString("    " + strings.TrimRight(line, " ") + "\n")
			}
		}
		subs := slices.Clone(c.Commands())
		slices.SortFunc(subs, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
		for _, s := range subs {
			walk(s)
		}
	}
	walk(root)
	b.WriteString(cliEnd)
	return b.String()
}

// flagUsages lists flags without help's -h, which every command has.
func flagUsages(flags *pflag.FlagSet) string {
	kept := pflag.NewFlagSet("", pflag.ContinueOnError)
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			kept.AddFlag(f)
		}
	})
	return kept.FlagUsagesWrapped(100)
}

// The README's command-line section holds the reference generated from the
// commands, and every --flag its prose mentions exists.
func TestReadmeCommandLine(t *testing.T) {
	root := newRootCommand()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	want := commandLineReference(root)
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	readme := string(data)
	begin, end := strings.Index(readme, cliBegin), strings.Index(readme, cliEnd)
	if *updateReadme {
		require.True(t, begin >= 0 && end > begin, "README.md needs the markers %q and %q", cliBegin, cliEnd)
		readme = readme[:begin] + want + readme[end+len(cliEnd):]
		require.NoError(t, os.WriteFile(readmePath, []byte(readme), 0o644))
	}
	require.True(t, begin >= 0 && end > begin, "README.md has no generated command-line reference")
	assert.Equal(t, want, readme[begin:strings.Index(readme, cliEnd)+len(cliEnd)],
		"README.md's command-line reference is stale: run go test ./cmd/warpgraph -run TestReadmeCommandLine -update")

	// Every flag the section's prose names is a flag of some command.
	start := strings.Index(readme, cliSectionHeader)
	require.GreaterOrEqual(t, start, 0)
	section := readme[start+len(cliSectionHeader):]
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	// The generated reference is exact already (flag help may quote other
	// tools' flags, such as sbatch's).
	if b, e := strings.Index(section, cliBegin), strings.Index(section, cliEnd); b >= 0 && e > b {
		section = section[:b] + section[e:]
	}
	known := map[string]bool{}
	var collect func(c *cobra.Command)
	collect = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, s := range c.Commands() {
			collect(s)
		}
	}
	collect(root)
	for _, m := range regexp.MustCompile("(?:^|[^-\\w])--([a-z][a-z0-9-]*)").FindAllStringSubmatch(section, -1) {
		assert.True(t, known[m[1]], "README's command-line section mentions --%s, which no command has", m[1])
	}
}

const (
	algorithmsBegin = "<!-- algorithms: begin -->"
	algorithmsEnd   = "<!-- algorithms: end -->"
)

// algorithmReference renders the registry: every algorithm with its
// parameters and forms, and which registered variants of each scheduler
// run it (and in which form), so a new algorithm or scheduler appears in
// the README without an edit.
func algorithmReference() string {
	var b strings.Builder
	b.WriteString(algorithmsBegin + "\n")
	b.WriteString("<!-- Generated from the registry: `go test ./cmd/warpgraph -run TestReadmeAlgorithms -update` rewrites it. -->\n\n")
	b.WriteString("| `--algo` | computes | parameters | forms |\n|---|---|---|---|\n")
	for _, a := range scheduler.Algorithms() {
		var params []string
		for _, p := range a.Params {
			params = append(params, "`--"+p.Name+"`")
		}
		forms := "CPU reference only"
		if fs := a.Forms(); len(fs) > 0 {
			var names []string
			for _, f := range fs {
				names = append(names, f.String())
			}
			forms = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a.Name, a.About, strings.Join(params, ", "), forms)
	}
	b.WriteString("\nRegistered variants of each scheduler that run each algorithm (the form, where not acc):\n\n")
	header, rule := "| algorithm |", "|---|"
	for _, s := range scheduler.Schedulers() {
		header += " " + s.Name + " |"
		rule += ":-:|"
	}
	b.WriteString(header + "\n" + rule + "\n")
	for _, a := range scheduler.Algorithms() {
		row := "| " + a.Name + " |"
		for _, s := range scheduler.Schedulers() {
			runs, form := 0, ""
			for _, name := range s.Variants {
				v, err := scheduler.ParseVariant(name)
				if err != nil || a.Setups == nil || scheduler.Supports(a, v) != nil {
					continue
				}
				runs++
				if f, _ := v.FormOf(a); f != scheduler.ACC {
					form = " " + f.String()
				}
			}
			cell := "–"
			if runs > 0 {
				cell = fmt.Sprintf("%d/%d%s", runs, len(s.Variants), form)
			}
			row += " " + cell + " |"
		}
		b.WriteString(row + "\n")
	}
	b.WriteString(algorithmsEnd)
	return b.String()
}

// The README's algorithm table and support matrix are the registry's.
func TestReadmeAlgorithms(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	readme, want := string(data), algorithmReference()
	begin, end := strings.Index(readme, algorithmsBegin), strings.Index(readme, algorithmsEnd)
	require.True(t, begin >= 0 && end > begin, "README.md needs the markers %q and %q", algorithmsBegin, algorithmsEnd)
	if *updateReadme {
		readme = readme[:begin] + want + readme[end+len(algorithmsEnd):]
		require.NoError(t, os.WriteFile(readmePath, []byte(readme), 0o644))
		end = strings.Index(readme, algorithmsEnd)
	}
	assert.Equal(t, want, readme[begin:end+len(algorithmsEnd)],
		"README.md's algorithm table is stale: run go test ./cmd/warpgraph -run TestReadmeAlgorithms -update")
}
