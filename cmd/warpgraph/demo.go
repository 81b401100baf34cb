package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/experiments"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

func newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "The main job (make run): CPU references and a cycle-level simulated H100 on an R-MAT and a grid, all validated",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), experiments.DemoPlan())
		},
	}
}

type demoGraph struct {
	spec   string
	g      *graph.Graph
	parsed graph.Spec
	took   time.Duration
}

// runDemo runs the main job's plan and prints its tables.
func runDemo(ctx context.Context, w io.Writer, plan experiments.Demo) error {
	start := time.Now()
	fmt.Fprint(w, plan.Intro)
	graphs, err := loadDemoGraphs(w, plan.Graphs)
	if err != nil {
		return err
	}
	if err := runDemoCPU(ctx, w, plan, graphs); err != nil {
		return err
	}
	if err := runDemoSim(ctx, w, plan, graphs); err != nil {
		return err
	}
	fmt.Fprint(w, plan.Reading)
	fmt.Fprintf(w, "\nmain job finished in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// loadDemoGraphs generates the plan's graphs and prints their statistics.
func loadDemoGraphs(w io.Writer, specs []string) (map[string]demoGraph, error) {
	graphs := map[string]demoGraph{}
	stats := &table{}
	stats.add("graph", "vertices", "edges", "out-degree avg/max", "diameter ≥", "generated in")
	for _, spec := range specs {
		g, parsed, took, err := loadGraph(spec)
		if err != nil {
			return nil, err
		}
		graphs[spec] = demoGraph{spec, g, parsed, took}
		st := graph.ComputeStats(g)
		stats.add(spec, st.Vertices, st.Edges, fmt.Sprintf("%.1f/%d", st.AvgDegree, st.MaxDegree), st.DiameterLowerBound, seconds(took.Seconds()))
	}
	fmt.Fprintln(w, "\nGraphs:")
	return graphs, stats.write(w)
}

// runDemoCPU runs the plan's CPU algorithms on every graph, each
// validated, and prints their table.
func runDemoCPU(ctx context.Context, w io.Writer, plan experiments.Demo, graphs map[string]demoGraph) error {
	fmt.Fprintln(w, "\n"+plan.CPUHeading)
	cpu := &table{}
	cpu.add("graph", "algorithm", "source", "time", "result", "validation")
	for _, spec := range plan.Graphs {
		dg := graphs[spec]
		for _, algo := range plan.CPU {
			a, err := scheduler.LookupAlgorithm(algo)
			if err != nil {
				return err
			}
			res, err := runLoaded(ctx, a, nil, nil, demoRunOptions(plan, algo, nil), nil, dg.g, dg.parsed, dg.took)
			if err != nil {
				return err
			}
			if !res.Validation.OK {
				return fmt.Errorf("%s on %s failed validation: %s", algo, dg.spec, res.Validation.Detail)
			}
			cpu.add(dg.spec, algo, *res.Source, seconds(res.HostSeconds), summaryLine(res), "PASS")
		}
	}
	return cpu.write(w)
}

// runDemoSim runs the plan's algorithm on the simulator under each of its
// variants, each validated, and prints the runs side by side.
func runDemoSim(ctx context.Context, w io.Writer, plan experiments.Demo, graphs map[string]demoGraph) error {
	fmt.Fprintln(w, "\n"+plan.SimHeading)
	a, err := scheduler.LookupAlgorithm(plan.Algorithm)
	if err != nil {
		return err
	}
	var results []*runResult
	for _, run := range plan.Runs {
		v, err := scheduler.ParseVariant(run.Variant)
		if err != nil {
			return err
		}
		p, err := scheduler.NewPlan(a, v, nil)
		if err != nil {
			return err
		}
		dg, ok := graphs[run.Graph]
		if !ok {
			return fmt.Errorf("demo: run %s on %s: the graph is not among the plan's", run.Variant, run.Graph)
		}
		o := demoRunOptions(plan, plan.Algorithm, &run)
		env, err := openDevice(o)
		if err != nil {
			return err
		}
		res, err := runLoaded(ctx, a, p, env, o, nil, dg.g, dg.parsed, dg.took)
		env.close()
		if err != nil {
			return err
		}
		if !res.Validation.OK {
			return fmt.Errorf("%s under %s on the simulator on %s failed validation: %s", plan.Algorithm, run.Variant, dg.spec, res.Validation.Detail)
		}
		results = append(results, res)
	}
	return writeDemoSide(w, plan.Runs, results)
}

// demoRunOptions are the options of one of the plan's runs: on the CPU
// reference (sim nil) or on the simulator; the algorithm's and variant's
// defaults (the source of maximum out-degree), and otherwise run's.
func demoRunOptions(plan experiments.Demo, algo string, sim *experiments.DemoRun) runOptions {
	if sim == nil {
		return runOptions{algo: algo, target: "cpu"}
	}
	return runOptions{algo: algo, target: "sim", simMode: plan.SimMode, config: plan.Config, block: 256, grid: sim.Grid, repeat: 1, timeout: plan.Timeout}
}

// writeDemoSide prints the simulated runs side by side, a column each.
func writeDemoSide(w io.Writer, runs []experiments.DemoRun, results []*runResult) error {
	side := &table{}
	header := []any{"metric"}
	for _, run := range runs {
		header = append(header, run.Graph+" "+run.Variant)
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
	return side.write(w)
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
