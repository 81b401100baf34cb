package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/graph"
)

// demoGraphs are the main job's graphs: a scale-free R-MAT and a
// high-diameter grid, the two shapes the sources contrast.
var demoGraphs = []string{"rmat:scale=16", "grid:w=256,h=256"}

func newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "The main job (make run): BFS and SSSP on a generated R-MAT and grid, validated, with graph statistics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd, cmd.OutOrStdout())
		},
	}
}

func runDemo(cmd *cobra.Command, w io.Writer) error {
	start := time.Now()
	fmt.Fprintln(w, "warpgraph main job: CPU references on generated graphs, each result checked by certificate.")
	for _, spec := range demoGraphs {
		g, parsed, took, err := loadGraph(spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n== graph %s (generated in %s)\n", parsed.String(), took.Round(time.Millisecond))
		if err := writeStatsTable(w, graph.ComputeStats(g)); err != nil {
			return err
		}
		for _, algo := range []string{"bfs", "sssp"} {
			res, err := runOnGraph(cmd.Context(), runOptions{algo: algo, spec: spec, target: "cpu", source: -1}, g, parsed, took)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "\n-- %s on %s\n", algo, res.Target)
			if err := printRun(w, res, false); err != nil {
				return err
			}
			if !res.Validation.OK {
				return fmt.Errorf("%s on %s failed validation: %s", algo, spec, res.Validation.Detail)
			}
		}
	}
	fmt.Fprintf(w, "\nmain job finished in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}
