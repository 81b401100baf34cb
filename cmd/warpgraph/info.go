package main

import (
	"errors"
	"fmt"
	"io"
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
	// Partition is the split over --gpus devices, when given.
	Partition  *graph.Partition `json:"partition,omitempty"`
	Provenance *provenance      `json:"provenance"`
}

func newInfoCommand() *cobra.Command {
	var spec, method string
	var asJSON bool
	var gpus int
	cmd := &cobra.Command{
		Use:   "info --graph SPEC",
		Short: "Print a graph's statistics: vertices, edges, degrees, degree histogram, approximate diameter",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			partitioned := cmd.Flags().Changed("gpus")
			switch {
			case partitioned && gpus < 1:
				return badInput("--gpus %d: give one device or more", gpus)
			case cmd.Flags().Changed("partition") && !partitioned:
				return badInput("--partition applies with --gpus P")
			case method != graph.PartitionRange && method != graph.PartitionHash:
				return badInput("--partition %q: use %s or %s", method, graph.PartitionRange, graph.PartitionHash)
			}
			g, parsed, took, err := loadGraph(spec)
			if err != nil {
				return err
			}
			var part *graph.Partition
			if partitioned {
				if part, err = graph.PartitionGraph(g, gpus, method); err != nil {
					return badInput("--gpus %d: %v", gpus, err)
				}
			}
			st := graph.ComputeStats(g)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, infoOutput{Graph: parsed.String(), LoadSeconds: took.Seconds(), Stats: st, Partition: part, Provenance: newProvenance("", specSeed(parsed))})
			}
			fmt.Fprintf(out, "graph %s (loaded in %s)\n", parsed.String(), took.Round(time.Millisecond))
			if err := writeStatsTable(out, st); err != nil {
				return err
			}
			if part != nil {
				return writePartition(out, part)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&spec, "graph", "", "graph spec: a file (.mtx .el .txt .graph .gr .wgc) or a generator (rmat:scale=16)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	cmd.Flags().IntVar(&gpus, "gpus", 1, "split the vertices over P devices as the mgpu scheduler does and print the partition: each part's vertices, the in-edges it holds, its boundary vertices (read by other parts) and ghosts (other parts' vertices it reads), and the edges cut between each pair")
	cmd.Flags().StringVar(&method, "partition", graph.PartitionRange, "with --gpus: range (contiguous ranges balanced by in-edges) or hash (vertex ids hashed)")
	return cmd
}

// writePartition prints a partition: a row per part, then the cut edges
// from each part (rows) to each (columns).
func writePartition(w io.Writer, p *graph.Partition) error {
	fmt.Fprintf(w, "\npartition over %d devices (%s): %d edges cut, %.1f%% of the edges\n", len(p.Parts), p.Method, p.CutEdges, 100*p.CutFraction)
	t := &table{}
	t.add("part", "vertices", "range", "in-edges", "boundary vertices", "ghosts")
	for i, ps := range p.Parts {
		span := "hashed"
		if p.Starts != nil {
			span = fmt.Sprintf("%d..%d", p.Starts[i], p.Starts[i+1]-1)
		}
		t.add(i, ps.Vertices, span, ps.Edges, ps.Boundary, ps.Ghosts)
	}
	if err := t.write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nedges from part (row) to part (column):")
	c := &table{}
	head := []any{"from \\ to"}
	for j := range p.Parts {
		head = append(head, j)
	}
	c.add(head...)
	for i, row := range p.Cut {
		cells := []any{i}
		for _, x := range row {
			cells = append(cells, x)
		}
		c.add(cells...)
	}
	return c.write(w)
}
