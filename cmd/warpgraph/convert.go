package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/warpgraph/warpgraph/graph"
)

func newConvertCommand() *cobra.Command {
	var spec, outPath string
	cmd := &cobra.Command{
		Use:   "convert --graph SPEC --out FILE.wgc",
		Short: "Write a graph to the binary CSR cache, which later loads with one read and no parsing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if outPath == "" {
				return badInput("--out is required")
			}
			if filepath.Ext(outPath) != ".wgc" {
				return badInput("--out %q: the binary cache file must end in .wgc", outPath)
			}
			if err := checkWritable(outPath); err != nil {
				return badInput("--out: %v", err)
			}
			g, parsed, took, err := loadGraph(spec)
			if err != nil {
				return err
			}
			start := time.Now()
			if err := graph.WriteCacheFile(outPath, g); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d vertices, %d edges from %s (read %s, write %s)\n",
				outPath, g.NumVertices(), g.NumEdges(), parsed.String(),
				took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().StringVar(&spec, "graph", "", "graph spec: a file or a generator")
	cmd.Flags().StringVar(&outPath, "out", "", "output file (.wgc)")
	return cmd
}
