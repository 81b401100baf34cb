package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/hw"
	"github.com/warpgraph/warpgraph/sim"
)

func init() { extraCommands = append(extraCommands, newProfileCommand) }

// profileCompareHelp says how the two profiles are made.
const profileCompareHelp = `Compare the simulator's profile of a kernel with Nsight Compute's on the GPU, by CUDA source line:
the share of each line in the simulated warp-cycles (--profile=FILE.json of 'warpgraph run --target sim')
beside its share of Nsight Compute's warp-state samples, with each side's reasons. Make the GPU side with
line information and one kernel per report:

  WARPGRAPH_JIT_LINEINFO=1 ncu --section SourceCounters --section WarpStateStats -k regex:KERNEL -c 1 \
      -o REPORT warpgraph run ... --target hw
  ncu --import REPORT.ncu-rep --page source --csv --print-source cuda,sass > REPORT.csv

Both sides charge a wait for a load's value to the instruction that needs it; a wait at a barrier is
charged to the barrier by the simulator and to the instruction after it by Nsight Compute, so the two
appear on adjacent lines.`

func newProfileCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Work with profiles: compare a simulated profile with Nsight Compute's by source line",
		Args:  cobra.NoArgs,
	}
	var simFile, ncuFile, kernel string
	var top int
	compare := &cobra.Command{
		Use:   "compare --sim PROFILE.json --ncu SOURCE.csv [--kernel K] [--top N]",
		Short: "Compare a simulated profile with Nsight Compute's source-level samples, line by line",
		Long:  profileCompareHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if simFile == "" || ncuFile == "" {
				return badInput("profile compare needs --sim PROFILE.json and --ncu SOURCE.csv")
			}
			if top < 1 {
				return badInput("--top %d: show at least one line", top)
			}
			return compareProfiles(cmd.OutOrStdout(), simFile, ncuFile, kernel, top)
		},
	}
	compare.Flags().StringVar(&simFile, "sim", "", "the simulator's profile: the JSON of warpgraph run --target sim --profile=FILE.json")
	compare.Flags().StringVar(&ncuFile, "ncu", "", "Nsight Compute's source page of one kernel: ncu --import R --page source --csv --print-source cuda,sass")
	compare.Flags().StringVar(&kernel, "kernel", "", "the simulated kernel to compare (default: the one Nsight Compute profiled)")
	compare.Flags().IntVar(&top, "top", 20, "lines to show: the union of each side's top N")
	cmd.AddCommand(compare)
	return cmd
}

// lineShare is one source line's share on each side.
type lineShare struct {
	file, source       string
	line               int
	simShare, hwShare  float64
	simReasons, hwWhys map[string]float64
	simRank, hwRank    int
}

func compareProfiles(out io.Writer, simFile, ncuFile, kernel string, top int) error {
	b, err := os.ReadFile(simFile)
	if err != nil {
		return &inputError{err}
	}
	var report sim.ProfileReport
	if err := json.Unmarshal(b, &report); err != nil || len(report.Kernels) == 0 {
		return badInput("%s: not a simulator profile (warpgraph run --target sim --profile=FILE.json): %v", simFile, cmp.Or(err, fmt.Errorf("no kernels")))
	}
	f, err := os.Open(ncuFile)
	if err != nil {
		return &inputError{err}
	}
	defer f.Close()
	gpu, err := hw.ParseNsightSource(f)
	if err != nil {
		return badInput("%s: %v", ncuFile, err)
	}
	if gpu.Samples == 0 {
		return badInput("%s: no warp-state samples (profile with --section SourceCounters)", ncuFile)
	}
	name := cmp.Or(kernel, gpu.Kernel)
	var k *sim.ProfileKernel
	var names []string
	for i := range report.Kernels {
		names = append(names, report.Kernels[i].Kernel)
		if report.Kernels[i].Kernel == name {
			k = &report.Kernels[i]
		}
	}
	if k == nil {
		return badInput("%s has no kernel %q (it has %s); name one with --kernel", simFile, name, strings.Join(names, ", "))
	}
	if k.InstructionCycles == 0 {
		return badInput("%s: kernel %s has no cycles at an instruction", simFile, name)
	}

	lines := map[string]*lineShare{}
	entry := func(file string, line int) *lineShare {
		file = strings.TrimPrefix(file, "./")
		key := fmt.Sprintf("%s:%d", file, line)
		if l, ok := lines[key]; ok {
			return l
		}
		l := &lineShare{file: file, line: line, simReasons: map[string]float64{}, hwWhys: map[string]float64{}}
		lines[key] = l
		return l
	}
	for _, pl := range k.Lines {
		l := entry(pl.File, pl.Line)
		l.simShare += float64(pl.Cycles) / float64(k.InstructionCycles)
		for r, c := range pl.ByReason {
			l.simReasons[r] += float64(c)
		}
		if l.source == "" {
			l.source = pl.Source
		}
	}
	for _, nl := range gpu.Lines {
		l := entry(nl.File, nl.Line)
		l.hwShare += nl.Samples / gpu.Samples
		for r, c := range nl.Stalls {
			l.hwWhys[r] += c
		}
		if l.source == "" {
			l.source = strings.TrimSpace(nl.Source)
		}
	}
	all := make([]*lineShare, 0, len(lines))
	for _, l := range lines {
		all = append(all, l)
	}
	rank := func(share func(*lineShare) float64, set func(*lineShare, int)) {
		slices.SortFunc(all, func(a, b *lineShare) int {
			return cmp.Or(cmp.Compare(share(b), share(a)), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
		})
		for i, l := range all {
			if share(l) > 0 {
				set(l, i+1)
			}
		}
	}
	rank(func(l *lineShare) float64 { return l.simShare }, func(l *lineShare, r int) { l.simRank = r })
	rank(func(l *lineShare) float64 { return l.hwShare }, func(l *lineShare, r int) { l.hwRank = r })
	shown := slices.DeleteFunc(slices.Clone(all), func(l *lineShare) bool {
		return (l.simRank == 0 || l.simRank > top) && (l.hwRank == 0 || l.hwRank > top)
	})
	slices.SortFunc(shown, func(a, b *lineShare) int {
		return cmp.Or(cmp.Compare(max(b.simShare, b.hwShare), max(a.simShare, a.hwShare)), cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})

	simByReason := map[string]float64{}
	for r, c := range k.ByReason {
		if r != "finished" && r != "not_resident" {
			simByReason[r] = float64(c)
		}
	}
	hwByReason := map[string]float64{}
	for _, nl := range gpu.Lines {
		for r, c := range nl.Stalls {
			hwByReason[r] += c
		}
	}
	fmt.Fprintf(out, "kernel %s: simulated %d warp-cycles at an instruction (%s), against %.0f Nsight Compute warp-state samples (%s)\n",
		name, k.InstructionCycles, simFile, gpu.Samples, ncuFile)
	fmt.Fprintf(out, "simulated, by reason: %s\n", topReasons(simByReason, 8))
	fmt.Fprintf(out, "GPU, by stall reason: %s\n\n", topReasons(hwByReason, 8))
	fmt.Fprintf(out, "source lines, the union of each side's top %d, by the larger share (%% of each side's total; GPU ÷ sim: how much larger the line's share is on the GPU)\n", top)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "line\tsim %\tGPU %\tGPU ÷ sim\tsim reasons\tGPU reasons\tsource")
	for _, l := range shown {
		ratio := "–"
		if l.simShare > 0 && l.hwShare > 0 {
			ratio = fmt.Sprintf("%.2f", l.hwShare/l.simShare)
		}
		fmt.Fprintf(tw, "%s:%d\t%s\t%s\t%s\t%s\t%s\t%s\n", l.file, l.line, percentOrDash(l.simShare), percentOrDash(l.hwShare), ratio,
			topReasons(l.simReasons, 2), topReasons(l.hwWhys, 2), truncate(l.source, 60))
	}
	return tw.Flush()
}

// topReasons prints the n largest of a reason split as "name share%".
func topReasons(by map[string]float64, n int) string {
	var total float64
	names := make([]string, 0, len(by))
	for r, c := range by {
		if c > 0 {
			total += c
			names = append(names, r)
		}
	}
	if total == 0 {
		return "–"
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(by[b], by[a]), cmp.Compare(a, b)) })
	var parts []string
	for _, r := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", r, 100*by[r]/total))
	}
	return strings.Join(parts, ", ")
}

func percentOrDash(share float64) string {
	if share == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", 100*share)
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
