package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/warpgraph/warpgraph/sim"
)

// --profile[=FILE.json] and --trace FILE: where a simulation's cycles
// went (sim.WithProfile), and akita's task trace for Daisen
// (sim.WithTrace). Both are of timing mode's cycles, so they need
// --target sim in timing mode; elsewhere the flag is bad input (exit 2),
// as --monitor is.
const (
	profileHelp = "profile the simulation (timing mode): after the run, also one that ends in a deadlock, a spin-budget abort or a time limit, print where every warp's cycles went (issued, waiting on a global load, an atomic, shared memory, a bank conflict, at a barrier, spinning, ...), ranked by CUDA source line and by PTX instruction (top 20 each) over every launch of the run; --profile=FILE.json also writes every line, instruction, kernel and launch as JSON (with --json the table goes to stderr)"
	traceHelp   = "record akita's task trace of the simulation (timing mode) into the SQLite database `FILE` (.sqlite3 is added unless given), for akita's Daisen visualiser (go run github.com/sarchlab/akita/v3/daisen -sqlite FILE.sqlite3): a task per CTA and per memory request on each SM, and the caches' and DRAM's own; a row per request, so keep traced runs small; the file must not exist"
	// profileTop is how many lines and instructions the table shows.
	profileTop = 20
)

// profileFile is --profile's value: off, on, or on with a JSON file.
type profileFile struct {
	on   bool
	file string
}

// profileTableOnly is --profile's value when given alone.
const profileTableOnly = "-"

func (p *profileFile) String() string {
	if !p.on {
		return ""
	}
	if p.file == "" {
		return profileTableOnly
	}
	return p.file
}

func (p *profileFile) Set(s string) error {
	p.on = true
	p.file = ""
	if s != profileTableOnly {
		p.file = s
	}
	return nil
}

func (p *profileFile) Type() string { return "FILE.json" }

// profileFlags are a command's --profile and --trace, and the profile
// they collect (one over every device the command opens).
type profileFlags struct {
	file    profileFile
	trace   string
	profile *sim.Profile
	// traces counts the devices traced, so that a second one is refused.
	traces int
}

func (p *profileFlags) register(f *pflag.FlagSet) {
	f.Var(&p.file, "profile", profileHelp)
	f.Lookup("profile").NoOptDefVal = profileTableOnly
	f.StringVar(&p.trace, "trace", "", traceHelp)
}

// check rejects the flags where they do not apply.
func (p *profileFlags) check(target, simMode string) error {
	if p == nil || (!p.file.on && p.trace == "") {
		return nil
	}
	flag := "--profile"
	if !p.file.on {
		flag = "--trace"
	}
	switch {
	case target != "sim":
		return badInput("%s is of a simulation's cycles: it needs --target sim, not %s", flag, target)
	case simMode == string(sim.ModeSampled):
		return badInput("%s is of every launch's cycles; --sim-mode sampled simulates only some launches in detail (use --sim-mode timing)", flag)
	case simMode != string(sim.ModeTiming):
		return badInput("%s is of timing mode's cycles; --sim-mode %s has none (use --sim-mode timing)", flag, simMode)
	case p.file.on && p.file.file == "":
		// --profile alone.
	case p.file.on && filepath.Ext(p.file.file) != ".json":
		return badInput("--profile=%s: the profile is written as JSON; name a FILE.json", p.file.file)
	case p.file.on && checkWritable(p.file.file) != nil:
		return badInput("--profile=%s: %v", p.file.file, checkWritable(p.file.file))
	}
	if p.trace != "" {
		if _, err := os.Stat(sim.TraceFile(p.trace)); err == nil {
			return badInput("--trace %s: %s exists; akita's trace writer will not overwrite it", p.trace, sim.TraceFile(p.trace))
		}
		if err := checkWritable(sim.TraceFile(p.trace)); err != nil {
			return badInput("--trace %s: %v", p.trace, err)
		}
	}
	return nil
}

// options are the simulator options the flags ask for.
func (p *profileFlags) options() []sim.Option {
	if p == nil {
		return nil
	}
	var opts []sim.Option
	if p.file.on {
		if p.profile == nil {
			p.profile = sim.NewProfile()
		}
		opts = append(opts, sim.WithProfileInto(p.profile))
	}
	if p.trace != "" {
		p.traces++
		path := p.trace
		if p.traces > 1 {
			// A second device of one command (micro all): a file each.
			path = fmt.Sprintf("%s-%d", strings.TrimSuffix(p.trace, ".sqlite3"), p.traces)
		}
		opts = append(opts, sim.WithTrace(path))
	}
	return opts
}

// report prints the profile's table on w and writes its JSON file; it
// does nothing without --profile.
func (p *profileFlags) report(w io.Writer) error {
	if p == nil || !p.file.on || p.profile == nil {
		return nil // no profile, or the command failed before it opened a device
	}
	r := p.profile.Report()
	r.ReadSources(sourceDirs()...)
	if err := writeProfileTable(w, r); err != nil {
		return err
	}
	if p.file.file == "" {
		return nil
	}
	f, err := os.Create(p.file.file)
	if err != nil {
		return err
	}
	if err := writeJSON(f, r); err != nil {
		_ = f.Close() // the write's error is the one to report
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(w, "profile: wrote %s\n", p.file.file)
	return nil
}

// profileOut is where --profile's table goes: stdout, or stderr when
// stdout carries --json's one document.
func profileOut(cmd interface {
	OutOrStdout() io.Writer
	ErrOrStderr() io.Writer
}, asJSON bool) io.Writer {
	if asJSON {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// sourceDirs are where the PTX's source files ("./kernels/bfs.cu", from
// the repository's root) are looked for: the working directory and its
// parents.
func sourceDirs() []string {
	dir, err := os.Getwd()
	if err != nil {
		return []string{"."}
	}
	var dirs []string
	for range 8 {
		dirs = append(dirs, dir)
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return dirs
}

// writeProfileTable prints a profile: the totals, the kernels, the top
// source lines and instructions, and the launches worth a look.
func writeProfileTable(w io.Writer, r *sim.ProfileReport) error {
	fmt.Fprintf(w, "\nprofile: where the warps' cycles went (%d launches of %d kernels)\n", r.Launches, len(r.Kernels))
	if r.WarpCycles == 0 {
		fmt.Fprintln(w, "no timing-mode launch was profiled")
		return nil
	}
	fmt.Fprintf(w, "%d warp-cycles (every warp of every launch, over the whole launch): %s at an instruction, %s not resident (its CTA waiting for an SM), %s finished\n",
		r.WarpCycles, pct(r.InstructionCycles, r.WarpCycles), pct(r.ByReason["not_resident"], r.WarpCycles), pct(r.ByReason["finished"], r.WarpCycles))
	fmt.Fprintf(w, "at an instruction: %s\n", breakdown(r.ByReason, r.InstructionCycles, len(r.Reasons)))
	if r.Unbalanced > 0 {
		fmt.Fprintf(w, "warning: %d warps' cycles did not add up (a profiler bug)\n", r.Unbalanced)
	}
	fmt.Fprintln(w)

	kt := &table{}
	kt.add("kernel", "launches", "warps", "cycles", "at instructions", "share", "top reasons")
	for _, k := range r.Kernels {
		kt.add(k.Kernel, k.Launches, k.Warps, k.Cycles, k.InstructionCycles, pct(k.InstructionCycles, r.InstructionCycles), breakdown(k.ByReason, k.InstructionCycles, 3))
	}
	if err := kt.write(w); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nsource lines, by warp-cycles (top %d of %d; %% of the cycles at an instruction; each line's reasons as %% of its cycles)\n", min(profileTop, len(r.Lines)), len(r.Lines))
	lt := &table{}
	lt.add("#", "line", "cycles", "%", "reasons", "source")
	for i, l := range r.Lines[:min(profileTop, len(r.Lines))] {
		lt.add(i+1, lineName(l), l.Cycles, fmt.Sprintf("%.1f%%", l.Percent), breakdown(l.ByReason, l.Cycles, 3), clip(l.Source, 60))
	}
	if err := lt.write(w); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nPTX instructions, by warp-cycles (top %d of %d)\n", min(profileTop, len(r.Instructions)), len(r.Instructions))
	it := &table{}
	it.add("#", "kernel", "PTX line", "source", "cycles", "%", "reasons", "instruction")
	for i, in := range r.Instructions[:min(profileTop, len(r.Instructions))] {
		src := "-"
		if in.File != "" {
			src = fmt.Sprintf("%s:%d", strings.TrimPrefix(in.File, "./"), in.Line)
		}
		it.add(i+1, in.Kernel, in.PTXLine, src, in.Cycles, fmt.Sprintf("%.1f%%", in.Percent), breakdown(in.ByReason, in.Cycles, 3), clip(in.Instruction, 60))
	}
	if err := it.write(w); err != nil {
		return err
	}
	return writeProfileLaunches(w, r)
}

// writeProfileLaunches lists the launches: all of a few, else those that
// did not complete and the longest.
func writeProfileLaunches(w io.Writer, r *sim.ProfileReport) error {
	const few = 12
	show := r.LaunchList
	what := "launches"
	if len(show) > few {
		var picked []sim.ProfileLaunch
		for _, l := range show {
			if l.Outcome != sim.OutcomeCompleted {
				picked = append(picked, l)
			}
		}
		longest := slices.Clone(show)
		slices.SortStableFunc(longest, func(a, b sim.ProfileLaunch) int { return cmp.Compare(b.WarpCycles, a.WarpCycles) })
		for _, l := range longest[:5] {
			if !slices.ContainsFunc(picked, func(x sim.ProfileLaunch) bool { return x.Launch == l.Launch }) {
				picked = append(picked, l)
			}
		}
		slices.SortFunc(picked, func(a, b sim.ProfileLaunch) int { return a.Launch - b.Launch })
		show = picked
		what = fmt.Sprintf("launches (%d of %d: those that did not complete and the 5 with the most warp-cycles)", len(show), len(r.LaunchList))
	}
	fmt.Fprintf(w, "\n%s\n", what)
	t := &table{}
	t.add("launch", "kernel", "CTAs", "warps/CTA", "cycles", "outcome", "reasons (of every warp-cycle)")
	for _, l := range show {
		t.add(l.Launch, l.Kernel, l.CTAs, l.WarpsPerCTA, l.Cycles, l.Outcome, reasonShares(l.ByReason, l.WarpCycles, 4, true))
	}
	return t.write(w)
}

// lineName names a source line for the table.
func lineName(l sim.ProfileLine) string {
	if l.File == "" {
		return "(no source line)"
	}
	s := fmt.Sprintf("%s:%d", strings.TrimPrefix(l.File, "./"), l.Line)
	if l.InlinedNear != "" {
		s += " (near " + strings.TrimPrefix(l.InlinedNear, "./") + ")"
	}
	return s
}

// breakdown renders the n largest reasons of m at an instruction as
// shares of whole.
func breakdown(m map[string]uint64, whole uint64, n int) string {
	return reasonShares(m, whole, n, false)
}

// reasonShares renders the n largest reasons of m as shares of whole:
// those at an instruction, or all.
func reasonShares(m map[string]uint64, whole uint64, n int, all bool) string {
	type kv struct {
		name string
		v    uint64
	}
	var kvs []kv
	for _, r := range sim.ProfileReasons() {
		if v := m[r.Name]; v > 0 && (all || r.AtInstruction) {
			kvs = append(kvs, kv{r.Name, v})
		}
	}
	slices.SortStableFunc(kvs, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
	var parts []string
	for _, x := range kvs[:min(n, len(kvs))] {
		parts = append(parts, x.name+" "+pct(x.v, whole))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func pct(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
