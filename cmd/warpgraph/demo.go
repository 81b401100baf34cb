package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// demoGraphs are the main job's graphs: a scale-free R-MAT and a
// high-diameter grid, the two shapes the sources contrast.
var demoGraphs = []string{"rmat:scale=14", "grid:w=128,h=128"}

// demoConfig is the simulated GPU of the main job.
const demoConfig = "h100"

func newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "The main job (make run): CPU references and a cycle-level simulated H100 on an R-MAT and a grid, all validated",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd, cmd.OutOrStdout())
		},
	}
}

type demoGraph struct {
	spec   string
	g      *graph.Graph
	parsed graph.Spec
	took   time.Duration
}

func runDemo(cmd *cobra.Command, w io.Writer) error {
	start := time.Now()
	fmt.Fprintln(w, "warpgraph main job: BFS on a scale-free and a high-diameter graph, on the CPU reference and on a")
	fmt.Fprintf(w, "cycle-level simulated %s, running the same PTX the GPU runs; every result is validated.\n", demoConfig)

	var graphs []demoGraph
	stats := &table{}
	stats.add("graph", "vertices", "edges", "out-degree avg/max", "diameter ≥", "generated in")
	for _, spec := range demoGraphs {
		g, parsed, took, err := loadGraph(spec)
		if err != nil {
			return err
		}
		graphs = append(graphs, demoGraph{spec, g, parsed, took})
		st := graph.ComputeStats(g)
		stats.add(spec, st.Vertices, st.Edges, fmt.Sprintf("%.1f/%d", st.AvgDegree, st.MaxDegree), st.DiameterLowerBound, seconds(took.Seconds()))
	}
	fmt.Fprintln(w, "\nGraphs:")
	if err := stats.write(w); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nCPU reference (validated by certificate: every edge relaxed, every value reached along tight edges):")
	cpu := &table{}
	cpu.add("graph", "algorithm", "source", "time", "result", "validation")
	for _, dg := range graphs {
		for _, algo := range []string{"bfs", "sssp"} {
			a, err := scheduler.LookupAlgorithm(algo)
			if err != nil {
				return err
			}
			res, err := runLoaded(cmd.Context(), a, nil, nil, runOptions{algo: algo, target: "cpu"}, nil, dg.g, dg.parsed, dg.took)
			if err != nil {
				return err
			}
			if !res.Validation.OK {
				return fmt.Errorf("%s on %s failed validation: %s", algo, dg.spec, res.Validation.Detail)
			}
			cpu.add(dg.spec, algo, *res.Source, seconds(res.HostSeconds), summaryLine(res), "PASS")
		}
	}
	if err := cpu.write(w); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nBFS on the simulated %s, timing mode, under bsp (one launch per level) and SIMD-X (host-driven: degree\n", demoConfig)
	fmt.Fprintln(w, "classes, JIT filter, push/pull), each validated exactly against the CPU reference:")
	bfs, err := scheduler.LookupAlgorithm("bfs")
	if err != nil {
		return err
	}
	// SIMD-X runs on the R-MAT only: on the grid its 253 levels of
	// co-resident-grid phases would take minutes to simulate.
	// Atos's persistent workers run on the grid, where they replace its
	// hundreds of tiny launches with one; 132 CTAs (one per SM) keep the
	// simulation of their polling short.
	type demoRun struct {
		dg      demoGraph
		variant string
		grid    int
	}
	runs := []demoRun{{graphs[0], "bsp", 0}, {graphs[0], "simdx", 0}, {graphs[1], "bsp", 0}, {graphs[1], "atos:local=on", 132}}
	var results []*runResult
	for _, run := range runs {
		v, err := scheduler.ParseVariant(run.variant)
		if err != nil {
			return err
		}
		o := runOptions{algo: "bfs", target: "sim", simMode: "timing", config: demoConfig, block: 256, grid: run.grid, repeat: 1, timeout: 5 * time.Minute}
		plan, err := scheduler.NewPlan(bfs, v, nil)
		if err != nil {
			return err
		}
		env, err := openDevice(o)
		if err != nil {
			return err
		}
		res, err := runLoaded(cmd.Context(), bfs, plan, env, o, nil, run.dg.g, run.dg.parsed, run.dg.took)
		env.close()
		if err != nil {
			return err
		}
		if !res.Validation.OK {
			return fmt.Errorf("bfs under %s on the simulator on %s failed validation: %s", run.variant, run.dg.spec, res.Validation.Detail)
		}
		results = append(results, res)
	}
	side := &table{}
	header := []any{"metric"}
	for _, run := range runs {
		header = append(header, run.dg.spec+" "+run.variant)
	}
	side.add(header...)
	row := func(label string, cell func(r *runResult) string) {
		cells := []any{label}
		for _, r := range results {
			cells = append(cells, cell(r))
		}
		side.add(cells...)
	}
	row("iterations", func(r *runResult) string { return fmt.Sprint(r.Iterations) })
	row("launches", func(r *runResult) string { return fmt.Sprint(r.Launches) })
	row("end-to-end (simulated host clock)", func(r *runResult) string { return seconds(r.EndToEndSeconds) })
	row("cycles", func(r *runResult) string { return fmt.Sprint(r.Cycles) })
	row("kernel time (simulated)", func(r *runResult) string { return seconds(r.KernelSeconds) })
	for _, k := range keyCounters {
		row(k.label, func(r *runResult) string {
			if v, ok := r.Counters[k.name]; ok {
				return k.format(v)
			}
			return "-"
		})
	}
	row("validation", func(r *runResult) string { return "PASS (exact)" })
	row("simulation wall time", func(r *runResult) string { return seconds(r.HostSeconds) })
	if err := side.write(w); err != nil {
		return err
	}
	fmt.Fprint(w, `
Reading it: the grid's hundreds of tiny frontiers leave the GPU idle (low occupancy and IPC), the
small-frontier problem that Atos's persistent workers attack (one launch, a task queue, no level
barrier; a vertex may be processed twice: the overwork in its summary), as SIMD-X's fused kernels
do; on the R-MAT bsp's warps walk a hub's thousands of neighbours in lock step (low warp
efficiency), which SIMD-X's degree classes and pulls avoid. End-to-end time adds the launch and
read-back overheads measured on the H100 (sim/configs/h100.yaml, host:) to the kernels' simulated
time. bsp's BFS uses no shared memory, so it has no bank conflicts; its atomics rarely meet on one
address. DRAM bytes written count the sectors each launch left dirty in the write-back L2 (evicted
or not), and a store that misses L2 does not read its line from DRAM. See
`+"`warpgraph micro bank_stride|atomic_contention --target sim`"+` for conflict and contention studies.
`)
	fmt.Fprintf(w, "\nmain job finished in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// summaryLine joins a run's summary figures.
func summaryLine(r *runResult) string {
	s := ""
	for i, f := range r.Summary {
		if i > 0 {
			s += ", "
		}
		s += f.Name + " " + f.Value
	}
	return s
}
