package timing

import (
	"fmt"
	"sort"
	"strings"

	"github.com/warpgraph/warpgraph/sim/exec"
	"github.com/warpgraph/warpgraph/sim/ptx"
)

// describe reports, for a deadlock error, where the resident CTAs' warps
// are (PTX line, instruction and source position, grouped), which CTAs
// still wait to be dispatched, and what keeps them out of each SM.
func (g *GPU) describe() string {
	r := g.run
	prog := r.Grid.Program()
	mod := prog.Module.PTX
	type group struct {
		where string
		warps []string
	}
	groups := map[string]*group{}
	var ctaNames []string
	for _, s := range g.sms {
		for _, c := range s.ctas {
			ctaNames = append(ctaNames, fmt.Sprintf("%d (SM %d)", c.c.Linear, s.id))
			for _, w := range c.warps {
				if w.done {
					continue
				}
				var key string
				fn, pc := w.w.Next()
				switch {
				case fn == nil:
					continue
				case w.atBarrier || w.w.State() == exec.WarpAtBarrier:
					// The executor has moved past the bar instruction.
					key = "waiting at a barrier " + where(mod, fn, pc-1)
				case w.loads[0].fn != nil:
					// Where the warp is now depends on the cycle; the loads
					// it polls with do not.
					a, b := w.loads[0], w.loads[1]
					if b.fn == nil {
						key = "spinning on the load at " + where(mod, a.fn, a.pc)
						break
					}
					if b.fn.Insts[b.pc].Pos.PTXLine < a.fn.Insts[a.pc].Pos.PTXLine {
						a, b = b, a
					}
					key = "spinning on the loads at " + where(mod, a.fn, a.pc) + " and " + where(mod, b.fn, b.pc)
				default:
					key = "spinning at " + where(mod, fn, pc)
				}
				gr := groups[key]
				if gr == nil {
					gr = &group{where: key}
					groups[key] = gr
				}
				gr.warps = append(gr.warps, fmt.Sprintf("CTA %d warp %d", c.c.Linear, w.w.Index()))
			}
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d resident CTAs", len(ctaNames))
	if len(ctaNames) > 0 {
		fmt.Fprintf(&b, " (%s)", list(ctaNames, 8))
	}
	for _, k := range keys {
		gr := groups[k]
		fmt.Fprintf(&b, "; %s: %s", gr.where, list(gr.warps, 4))
	}
	pending := r.Grid.Pending()
	if pending > 0 {
		first := r.Grid.CTAs() - pending
		fmt.Fprintf(&b, "; %d CTAs wait to be dispatched (CTAs %d to %d)", pending, first, r.Grid.CTAs()-1)
		reasons := map[string][]int{}
		for _, s := range g.sms {
			if why := g.whyNot(s); why != "" {
				reasons[why] = append(reasons[why], s.id)
			}
		}
		whys := make([]string, 0, len(reasons))
		for w := range reasons {
			whys = append(whys, w)
		}
		sort.Strings(whys)
		for _, w := range whys {
			fmt.Fprintf(&b, "; no SM has room: %s on %s", w, smList(reasons[w]))
		}
	}
	return b.String()
}

// where renders an instruction: PTX line, source position and text.
func where(mod *ptx.Module, fn *ptx.Function, pc int) string {
	if pc < 0 || pc >= len(fn.Insts) {
		return fmt.Sprintf("in %s", fn.Name)
	}
	p := fn.Insts[pc].Pos
	s := fmt.Sprintf("PTX line %d", p.PTXLine)
	if p.Line > 0 && int(p.File) < len(mod.Files) && mod.Files[p.File] != "" {
		s += fmt.Sprintf(" (%s:%d)", mod.Files[p.File], p.Line)
	}
	return s + " `" + fn.InstString(mod, pc) + "`"
}

func list(items []string, n int) string {
	s := strings.Join(items[:min(len(items), n)], ", ")
	if len(items) > n {
		s += fmt.Sprintf(" and %d more", len(items)-n)
	}
	return s
}

func smList(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("SM %d", ids[0])
	}
	if len(ids) > 2 && ids[len(ids)-1]-ids[0] == len(ids)-1 {
		return fmt.Sprintf("SMs %d-%d", ids[0], ids[len(ids)-1])
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "SMs " + strings.Join(parts, ", ")
}
