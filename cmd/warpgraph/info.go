package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/graph"
)

// loadGraph resolves a graph spec; every failure but a lack of memory
// (status 8) is the user's input (a missing file, a malformed file or
// spec) and exits with status 2.
func loadGraph(spec string) (*graph.Graph, graph.Spec, time.Duration, error) {
	if spec == "" {
		return nil, graph.Spec{}, 0, badInput("--graph is required (a file path or a generator such as rmat:scale=16)")
	}
	parsed, err := graph.ParseSpec(spec)
	if err != nil {
		return nil, graph.Spec{}, 0, &inputError{err}
	}
	start := time.Now()
	g, err := graph.Load(spec, graph.LoadOptions{Progress: progressReporter()})
	var memory *graph.MemoryError
	switch {
	case errors.As(err, &memory):
		// Too large for this machine, not a mistake in the spec.
		return nil, parsed, 0, err
	case err != nil:
		return nil, parsed, 0, &inputError{err}
	}
	return g, parsed, time.Since(start), nil
}

// infoOutput is `info --json`: the graph's statistics at the top level,
// beside the canonical spec and the load time, under the key names and
// units `run --json` uses (graph, vertices, edges, load_seconds).
type infoOutput struct {
	Graph       string  `json:"graph"`
	LoadSeconds float64 `json:"load_seconds"`
	graph.Stats
	Provenance *provenance `json:"provenance"`
}

func newInfoCommand() *cobra.Command {
	var spec string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info --graph SPEC",
		Short: "Print a graph's statistics: vertices, edges, degrees, degree histogram, approximate diameter",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			g, parsed, took, err := loadGraph(spec)
			if err != nil {
				return err
			}
			st := graph.ComputeStats(g)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, infoOutput{Graph: parsed.String(), LoadSeconds: took.Seconds(), Stats: st, Provenance: newProvenance("", specSeed(parsed))})
			}
			fmt.Fprintf(out, "graph %s (loaded in %s)\n", parsed.String(), took.Round(time.Millisecond))
			return writeStatsTable(out, st)
		},
	}
	cmd.Flags().StringVar(&spec, "graph", "", "graph spec: a file (.mtx .el .txt .graph .gr .wgc) or a generator (rmat:scale=16)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
}
