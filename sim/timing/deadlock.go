package timing

import (
	"fmt"
	"sort"
	"strings"
)

// describe reports, for a deadlock error, which CTAs are resident, where
// their warps are (the executor's description: the barrier each waits at,
// or the loads, atomics and clock reads it spins on, with PTX line, source
// position and instruction), which CTAs still wait to be dispatched, and
// what keeps them out of each SM.
func (g *GPU) describe() string {
	r := g.run
	var ctaNames []string
	for _, s := range g.sms {
		for _, c := range s.ctas {
			ctaNames = append(ctaNames, fmt.Sprintf("%d (SM %d)", c.c.Linear, s.id))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d resident CTAs", len(ctaNames))
	if len(ctaNames) > 0 {
		fmt.Fprintf(&b, " (%s)", list(ctaNames, 8))
	}
	if warps := r.Grid.DescribeWarps(); warps != "" {
		b.WriteString("; " + warps)
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
