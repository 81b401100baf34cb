package experiments

import (
	"fmt"
	"strings"

	"github.com/warpgraph/warpgraph/scheduler"
)

func init() { Default.Register(atosTable1Experiment()) }

// atosTable1Workers are the columns of Atos's Table 1 (bulk-synchronous
// against persistent and discrete workers of a warp or a CTA), plus the
// persistent CTA workers with local queues; each is a registered variant.
var atosTable1Workers = []struct{ label, variant string }{
	{"bsp", "bsp"},
	{"persist-warp", "atos:worker=warp"},
	{"persist-CTA", "atos"},
	{"persist-CTA+local", "atos:local=on"},
	{"discrete-CTA", "atos:mode=discrete"},
	{"discrete-warp", "atos:mode=discrete,worker=warp,fetch=8"},
}

// atosTable1Graphs are the graph axis: two scale-free graphs and two
// meshes, each named by a parameter NAME_spec.
var atosTable1Graphs = []string{"rmat", "grid", "rmat2", "grid2"}

// atosTable1Experiment is Atos's Table 1 shape (issue 9): BFS, PageRank and
// colouring under bulk-synchronous and task-parallel workers on two
// scale-free graphs and two meshes, with the overwork of Atos's Table 4.
func atosTable1Experiment() *Experiment {
	stats := append(append([]Stat{}, cellStats...),
		Stat{"overwork", "", "work done ÷ the work-efficient figure: BFS edges walked ÷ the reached vertices' out-degrees; PageRank edges walked ÷ bulk-synchronous residual push's to the same threshold; colouring assignments ÷ |V|"},
		Stat{"colours", "", "colours used (colouring)"},
		Stat{"queue_pushes", "", "tasks pushed into the global queue after the first tasks (Atos)"},
		Stat{"queue_pops", "", "tasks run (Atos)"},
		Stat{"local_tasks", "", "tasks a persistent CTA worker ran from its own shared-memory queue (local=on)"},
		Stat{"edges_walked", "", "edges the run walked (Atos; PageRank's include the prelude's pulls)"},
	)
	return &Experiment{
		Name: "atos-table1",
		About: "Atos's Table 1 shape: BFS, PageRank and colouring under bulk-synchronous launches (bsp) and Atos's " +
			"persistent and discrete workers of a warp or a CTA, on two scale-free graphs and two meshes, with overwork " +
			"(Atos's Table 4) and colours; the winner per (graph, algorithm) on each target, which `sweep crosscheck` compares.",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "graph", About: "rmat, grid, rmat2 or grid2; the specs are the NAME_spec parameters", Values: atosTable1Graphs},
			{Name: "algorithm", About: "bfs, pr or color", Values: []string{"bfs", "pr", "color"}},
			{Name: "variant", About: "the workers: " + atosTable1Legend()},
		},
		Points: func(string, string) [][]string {
			var out [][]string
			for _, g := range atosTable1Graphs {
				for _, a := range []string{"bfs", "pr", "color"} {
					for _, w := range atosTable1Workers {
						out = append(out, []string{g, a, canonicalVariant(w.variant)})
					}
				}
			}
			return out
		},
		Params: append([]Param{
			{Name: "rmat_spec", About: "the issue's scale-free graph (a spec or a .wgc file)", Default: byTarget("rmat:scale=20+perm=1", "rmat:scale=16+perm=1")},
			{Name: "grid_spec", About: "the issue's mesh", Default: byTarget("grid:w=1000,h=1000", "grid:w=256,h=256")},
			{Name: "rmat2_spec", About: "a second scale-free graph: sparser (8 edges per vertex) and less skewed (a=0.45) than Graph500's R-MAT, other vertex ids", Default: byTarget("rmat:scale=20,ef=8,a=0.45,b=0.15,c=0.15+perm=2", "rmat:scale=16,ef=8,a=0.45,b=0.15,c=0.15+perm=2")},
			{Name: "grid2_spec", About: "a second mesh: a long strip (road-like: diameter ~4x the issue's grid's at the same size)", Default: byTarget("grid:w=4000,h=250", "grid:w=1024,h=64")},
			{Name: "start", About: "BFS's source: a vertex, or max for the vertex of maximum out-degree", Default: byTarget("0", "max")},
			{Name: "grid", About: "CTAs of grid-stride and persistent phases (0: as many as can be co-resident; the simulator's persistent grids are forced to one CTA per SM, as the issue allows)", Default: byTarget("0", "132")},
		}, wholeRunParams("threads per CTA", "2", "10")...),
		Stats: stats,
		Run:   gridCellRunner("atos-table1"),
		Table: []string{"config", "graph", "algorithm", "variant", "end_to_end_us", "kernel_us", "iterations", "launches", "overwork", "colours", "queue_pushes", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return plotCells(rows, dir, "atos-table1")
		},
		Findings:   atosTable1Findings,
		CrossCheck: atosTable1CrossCheck(),
		Notes: []string{
			"Workers: " + atosTable1Legend() + ".",
			"Winners are ranked by end-to-end time (every launch and host round trip; on the simulator the simulated host clock as well as the device's), as Atos and Gunrock report it.",
			"PageRank under Atos pulls in bulk first while the active vertices hold more than 0.3 of the edges (the pull-then-push form's rule), then pushes residuals asynchronously from the vertices left active; under bsp it is in-place pull sweeps to a 1e-5 change.",
			"Colouring is speculative greedy colouring on the symmetrised graph: bsp is Atos's Algorithm 5 (assign, barrier, detect conflicts, repeat).",
			"Every run is validated against graph/ref.",
		},
	}
}

func atosTable1Legend() string {
	var parts []string
	for _, w := range atosTable1Workers {
		parts = append(parts, w.label+" = "+w.variant)
	}
	return strings.Join(parts, ", ")
}

// canonicalVariant spells a variant as its keys (the form the points'
// keys and the schedulers sweep use).
func canonicalVariant(s string) string {
	v, err := scheduler.ParseVariant(s)
	if err != nil {
		panic(fmt.Sprintf("atos-table1: registered variant %q does not parse: %v", s, err))
	}
	return v.String()
}

// atosWorkerLabel names a canonical variant by its Table 1 column.
func atosWorkerLabel(variant string) string {
	for _, w := range atosTable1Workers {
		if canonicalVariant(w.variant) == variant {
			return w.label
		}
	}
	return variant
}

// atosTable1CrossCheck compares the winners and rankings of the two
// targets: each runs the graphs at its own size.
func atosTable1CrossCheck() *CrossCheck {
	cc := cellCrossCheck()
	cc.Times = []string{"end_to_end_us", "kernel_us"}
	cc.MayDiffer = []string{"rmat_spec", "grid_spec", "rmat2_spec", "grid2_spec", "start", "grid"}
	cc.RankingsOnly = "the simulator runs each graph at the issue's simulator size (rmat:scale=16, grid 256×256, ...), the GPU at its own (scale 20, 1000×1000, ...)"
	return cc
}

// atosTable1Findings gives, per (target, graph, algorithm), the winning
// workers, their speed-up over bsp, and every variant's overwork.
func atosTable1Findings(rows []Row) []string {
	ok := okRows(rows)
	out := []string{fmt.Sprintf("%d of %d cells ran and matched the CPU reference.", len(ok), len(rows))}
	order, groups, _ := rankedGroups(rows, func(r Row) string { return where(r) + ", " + r["graph"] + ", " + r["algorithm"] }, "end_to_end_us")
	for _, k := range order {
		rs := groups[k]
		best, _ := rs[0].Float("end_to_end_us")
		line := fmt.Sprintf("**%s**: %s wins (%s µs end to end)", k, atosWorkerLabel(rs[0]["variant"]), rs[0]["end_to_end_us"])
		for _, r := range rs {
			if r["variant"] == "bsp" && r["variant"] != rs[0]["variant"] {
				if t, ok := r.Float("end_to_end_us"); ok && best > 0 {
					line += fmt.Sprintf(", %.1fx bsp's", t/best)
				}
			}
		}
		var parts []string
		for _, r := range rs {
			part := atosWorkerLabel(r["variant"]) + " " + r["end_to_end_us"] + " µs"
			if w := r["overwork"]; w != "" {
				part += fmt.Sprintf(" (overwork %s)", trimFloat(w))
			}
			if c := r["colours"]; c != "" {
				part += fmt.Sprintf(" [%s colours]", c)
			}
			parts = append(parts, part)
		}
		out = append(out, line+"; "+strings.Join(parts, ", ")+".")
	}
	return out
}

// trimFloat prints a numeric cell with three decimals.
func trimFloat(s string) string {
	var x float64
	if _, err := fmt.Sscan(s, &x); err != nil {
		return s
	}
	return fmt.Sprintf("%.3g", x)
}
