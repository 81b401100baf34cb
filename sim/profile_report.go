package sim

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/warpgraph/warpgraph/sim/timing"
)

// ProfileReport is a Profile's cycles ranked, ready for JSON (its keys are
// snake_case and stable) and tables. Cycles are warp-cycles: one warp for
// one cycle. Every profiled warp is counted over its launch's every cycle
// (WarpCycles); InstructionCycles is the part in which the warp was
// resident and so at an instruction (WarpCycles less the not_resident
// and finished cycles). Percentages are of InstructionCycles: the
// report's in Lines and Instructions, the kernel's in a kernel's.
type ProfileReport struct {
	// Reasons lists the reasons in table order, with their meanings.
	Reasons           []ProfileReason   `json:"reasons"`
	Launches          int               `json:"launches"`
	WarpCycles        uint64            `json:"warp_cycles"`
	InstructionCycles uint64            `json:"instruction_cycles"`
	ByReason          map[string]uint64 `json:"by_reason"`
	// Unbalanced counts warps whose cycles did not add up (a profiler
	// bug; 0).
	Unbalanced int `json:"unbalanced_warps"`
	// Kernels, most instruction cycles first.
	Kernels []ProfileKernel `json:"kernels"`
	// Lines and Instructions over every kernel, most cycles first.
	Lines        []ProfileLine        `json:"lines"`
	Instructions []ProfileInstruction `json:"instructions"`
	// LaunchList summarises each launch, in launch order.
	LaunchList []ProfileLaunch `json:"launch_list"`
}

// ProfileReason names a reason (timing.Reason).
type ProfileReason struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// AtInstruction: its cycles are charged to instructions.
	AtInstruction bool `json:"at_instruction"`
}

// ProfileKernel is one kernel's profile over its launches.
type ProfileKernel struct {
	Kernel            string               `json:"kernel"`
	Module            string               `json:"module"`
	Launches          int                  `json:"launches"`
	Warps             uint64               `json:"warps"`
	Cycles            uint64               `json:"cycles"`
	WarpCycles        uint64               `json:"warp_cycles"`
	InstructionCycles uint64               `json:"instruction_cycles"`
	Percent           float64              `json:"percent"`
	ByReason          map[string]uint64    `json:"by_reason"`
	Lines             []ProfileLine        `json:"lines"`
	Instructions      []ProfileInstruction `json:"instructions"`
}

// ProfileLine is the cycles charged to the instructions of one source
// line (File empty: instructions with no .loc).
type ProfileLine struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Source is the line's text, when ReadSources found the file.
	Source string `json:"source,omitempty"`
	// InlinedNear is, for a header's line (a helper inlined into the
	// kernel), the first line of another file after the instruction with
	// the most cycles: usually where the helper's result is used.
	InlinedNear string            `json:"inlined_near,omitempty"`
	Cycles      uint64            `json:"cycles"`
	Percent     float64           `json:"percent"`
	ByReason    map[string]uint64 `json:"by_reason"`
	Kernels     []string          `json:"kernels"`
}

// ProfileInstruction is the cycles charged to one PTX instruction.
type ProfileInstruction struct {
	Kernel      string            `json:"kernel"`
	Function    string            `json:"function"`
	PC          int               `json:"pc"`
	PTXLine     int               `json:"ptx_line"`
	File        string            `json:"file,omitempty"`
	Line        int               `json:"line,omitempty"`
	Instruction string            `json:"instruction"`
	Cycles      uint64            `json:"cycles"`
	Percent     float64           `json:"percent"`
	ByReason    map[string]uint64 `json:"by_reason"`
}

// ProfileLaunch summarises one launch.
type ProfileLaunch struct {
	Launch      int               `json:"launch"` // 1-based, in launch order
	Kernel      string            `json:"kernel"`
	CTAs        int               `json:"ctas"`
	WarpsPerCTA int               `json:"warps_per_cta"`
	Cycles      uint64            `json:"cycles"`
	WarpCycles  uint64            `json:"warp_cycles"`
	Outcome     string            `json:"outcome"`
	ByReason    map[string]uint64 `json:"by_reason"`
}

// ProfileReasons lists the reasons in table order.
func ProfileReasons() []ProfileReason {
	out := make([]ProfileReason, 0, timing.NumReasons)
	for r := range timing.NumReasons {
		out = append(out, ProfileReason{Name: r.String(), Description: r.Description(), AtInstruction: r.AtInstruction()})
	}
	return out
}

// reasonMap renders counts by reason name; all includes the zeros.
func reasonMap(c *timing.ReasonCounts, all bool) map[string]uint64 {
	m := map[string]uint64{}
	for r := range timing.NumReasons {
		if all || c[r] != 0 {
			m[r.String()] = c[r]
		}
	}
	return m
}

func percent(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// lineKey names a source line.
type lineKey struct {
	file string
	line int
}

// lineAcc gathers a line's instructions.
type lineAcc struct {
	counts  timing.ReasonCounts
	best    uint64 // the most cycles of one of its instructions
	near    string // that instruction's (of those with best, the least)
	seen    bool
	kernels []string
}

func (a *lineAcc) take(ip *instProfile, kernel string) {
	a.counts.Add(&ip.counts)
	// Ties go to the least near, whatever order the instructions come in.
	if t := ip.counts.Total(); !a.seen || t > a.best || t == a.best && ip.near < a.near {
		a.best, a.near, a.seen = t, ip.near, true
	}
	if !slices.Contains(a.kernels, kernel) {
		a.kernels = append(a.kernels, kernel)
	}
}

func rankLines(acc map[lineKey]*lineAcc, whole uint64) []ProfileLine {
	out := make([]ProfileLine, 0, len(acc))
	for k, a := range acc {
		t := a.counts.Total()
		slices.Sort(a.kernels)
		out = append(out, ProfileLine{File: k.file, Line: k.line, InlinedNear: a.near, Cycles: t,
			Percent: percent(t, whole), ByReason: reasonMap(&a.counts, false), Kernels: a.kernels})
	}
	slices.SortFunc(out, func(a, b ProfileLine) int {
		return cmp.Or(cmp.Compare(b.Cycles, a.Cycles), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return out
}

func sortInstructions(out []ProfileInstruction) {
	slices.SortFunc(out, func(a, b ProfileInstruction) int {
		return cmp.Or(cmp.Compare(b.Cycles, a.Cycles), cmp.Compare(a.Kernel, b.Kernel),
			cmp.Compare(a.Function, b.Function), cmp.Compare(a.PC, b.PC))
	})
}

// Report ranks what the profile holds.
func (p *Profile) Report() *ProfileReport {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := &ProfileReport{Reasons: ProfileReasons(), Launches: len(p.launches)}
	var total timing.ReasonCounts
	allLines := map[lineKey]*lineAcc{}
	for _, name := range p.order {
		k := p.kernels[name]
		var kc timing.ReasonCounts
		lines := map[lineKey]*lineAcc{}
		var insts []ProfileInstruction
		for _, ip := range k.insts {
			kc.Add(&ip.counts)
			key := lineKey{ip.file, ip.line}
			for _, m := range []map[lineKey]*lineAcc{lines, allLines} {
				a := m[key]
				if a == nil {
					a = &lineAcc{}
					m[key] = a
				}
				a.take(ip, k.name)
			}
			insts = append(insts, ProfileInstruction{Kernel: k.name, Function: ip.fn, PC: ip.pc, PTXLine: ip.ptxLine,
				File: ip.file, Line: ip.line, Instruction: ip.text, Cycles: ip.counts.Total(), ByReason: reasonMap(&ip.counts, false)})
		}
		kinst := kc.Total()
		kc[timing.ReasonNotResident] += k.notResident
		kc[timing.ReasonFinished] += k.finished
		for i := range insts {
			insts[i].Percent = percent(insts[i].Cycles, kinst)
		}
		sortInstructions(insts)
		r.Instructions = append(r.Instructions, insts...)
		r.Kernels = append(r.Kernels, ProfileKernel{Kernel: k.name, Module: k.module, Launches: k.launches,
			Warps: k.warps, Cycles: k.cycles, WarpCycles: k.warpCycles, InstructionCycles: kinst,
			ByReason: reasonMap(&kc, true), Lines: rankLines(lines, kinst), Instructions: insts})
		total.Add(&kc)
		r.WarpCycles += k.warpCycles
		r.InstructionCycles += kinst
		r.Unbalanced += k.unbalanced
	}
	r.ByReason = reasonMap(&total, true)
	for i := range r.Kernels {
		r.Kernels[i].Percent = percent(r.Kernels[i].InstructionCycles, r.InstructionCycles)
	}
	slices.SortStableFunc(r.Kernels, func(a, b ProfileKernel) int { return cmp.Compare(b.InstructionCycles, a.InstructionCycles) })
	r.Lines = rankLines(allLines, r.InstructionCycles)
	// The report-wide list holds copies with the report's percentages.
	r.Instructions = slices.Clone(r.Instructions)
	for i := range r.Instructions {
		r.Instructions[i].Percent = percent(r.Instructions[i].Cycles, r.InstructionCycles)
	}
	sortInstructions(r.Instructions)
	for i, l := range p.launches {
		r.LaunchList = append(r.LaunchList, ProfileLaunch{Launch: i + 1, Kernel: l.kernel, CTAs: l.ctas, WarpsPerCTA: l.warps,
			Cycles: l.cycles, WarpCycles: uint64(l.ctas) * uint64(l.warps) * l.cycles, Outcome: l.outcome,
			ByReason: reasonMap(&l.counts, true)})
	}
	return r
}

// ReadSources fills each line's Source from its file, looked up relative
// to each of dirs in turn (a PTX .file names "./kernels/bfs.cu" from the
// repository's root). Files it cannot read are left out.
func (r *ProfileReport) ReadSources(dirs ...string) {
	files := map[string][]string{}
	read := func(name string) []string {
		if lines, ok := files[name]; ok {
			return lines
		}
		var lines []string
		for _, d := range dirs {
			f, err := os.Open(filepath.Join(d, filepath.FromSlash(name)))
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			_ = f.Close() // read-only
			break
		}
		files[name] = lines
		return lines
	}
	fill := func(ls []ProfileLine) {
		for i := range ls {
			l := &ls[i]
			if l.File == "" || l.Line <= 0 {
				continue
			}
			if text := read(l.File); l.Line <= len(text) {
				l.Source = strings.TrimSpace(text[l.Line-1])
			}
		}
	}
	fill(r.Lines)
	for i := range r.Kernels {
		fill(r.Kernels[i].Lines)
	}
}
