package experiments

func init() { Default.Register(simhwExperiment()) }

// simhwGraphs are small enough for timing mode on the simulated h100 (a
// registered cell takes seconds to minutes there) and come from four
// generated families: scale-free, mesh, uniform random and regular.
var simhwGraphs = []namedGraph{
	{"rmat14", "rmat:scale=14+perm=1"},
	{"grid128", "grid:w=128,h=128"},
	{"er14", "er:n=16384,m=131072"},
	{"regular14", "regular:n=16384,d=8"},
}

// simhwExperiment is the simulator-vs-hardware cross-check: every
// registered cell on the four graphs, once on the simulated h100 and once
// on the H100; `warpgraph sweep crosscheck` then compares the two.
func simhwExperiment() *Experiment {
	return withCells(&Experiment{
		Name: "simhw",
		About: "How well the simulator predicts the H100: every registered (algorithm, scheduler variant) cell on four " +
			"small generated graphs, simulated in timing mode on the h100 configuration and measured on the GPU, each " +
			"run validated against the CPU reference. `warpgraph sweep crosscheck` joins the two halves and reports the " +
			"error per cell, the correlation, and whether the simulator picks the same fastest variant.",
		Targets:    []string{TargetSim, TargetHW},
		Configs:    []string{"h100"},
		Params:     wholeRunParams("threads per CTA", "2", "10"),
		Table:      []string{"config", "graph", "algorithm", "variant", "iterations", "launches", "kernel_us", "end_to_end_us", "status"},
		CrossCheck: cellCrossCheck(),
		Notes: []string{
			"Sources are the vertex of maximum out-degree, k-core's k is ref.DefaultK, and every run is validated against graph/ref.",
			"On the simulator a point is one deterministic run; on the GPU it is the median of the timed whole runs after the warm-up ones.",
			"This README describes one half; the comparison of both halves is results/simhw/README.md, written by `warpgraph sweep crosscheck`.",
		},
	}, simhwGraphs, maxDegreeSource)
}

// cellCrossCheck compares cell sweeps (simhw, schedulers): kernel and
// end-to-end time per cell, variants competing per (graph, algorithm).
func cellCrossCheck() *CrossCheck {
	return &CrossCheck{
		Times: []string{"kernel_us", "end_to_end_us", "kernel_us_per_iteration"},
		Derived: map[string]func(Row) (float64, bool){
			"kernel_us_per_iteration": func(r Row) (float64, bool) {
				us, ok1 := r.Float("kernel_us")
				n, ok2 := r.Float("iterations")
				return us / n, ok1 && ok2 && n > 0
			},
		},
		Iterations: "iterations",
		Group:      []string{"graph", "algorithm"},
		Candidate:  "variant",
		Context:    []string{"launches", "iterations", "global_atomics", "warp_execution_efficiency"},
		Launches:   "launches",
		WhatIf: []WhatIf{{
			Name: "3 µs more per launch",
			About: "Every launch costs 3 µs more than the simulator charges: the per-launch term that the fit of work and launches finds for SIMD-X, " +
				"VWC, edge and wseg (2.7-4.0 µs), applied to every cell, as a launch cost that grows with the grid would be (`launch-grid` measures it).",
			Stat: "kernel_us",
			Apply: func(sim Row, us float64) float64 {
				n, _ := sim.Float("launches")
				return us + 3*n
			},
		}},
	}
}
