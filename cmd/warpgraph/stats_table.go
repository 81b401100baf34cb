package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
)

func writeStatsTable(w io.Writer, s graph.Stats) error {
	t := &table{}
	kind := "undirected (both directions stored)"
	if s.Directed {
		kind = "directed"
	}
	t.add("vertices", s.Vertices)
	t.add("edges", fmt.Sprintf("%d stored, %s", s.Edges, kind))
	if s.Weighted {
		t.add("weights", fmt.Sprintf("%d..%d", s.MinWeight, s.MaxWeight))
	} else {
		t.add("weights", "none")
	}
	t.add("self-loops", s.SelfLoops)
	t.add("duplicate edges", fmt.Sprintf("%d (stored u->v beyond the first; +simple drops them and self-loops)", s.DuplicateEdges))
	t.add("out-degree", fmt.Sprintf("min %d, avg %.2f, max %d", s.MinDegree, s.AvgDegree, s.MaxDegree))
	t.add("diameter", fmt.Sprintf("≥ %d (%d BFS sweeps)", s.DiameterLowerBound, s.DiameterSweeps))
	if err := t.write(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "out-degree histogram (log2 buckets):")
	h := &table{}
	h.add("  degree", "vertices", "")
	peak := 0
	for _, c := range s.DegreeHistogram {
		peak = max(peak, c)
	}
	for k, c := range s.DegreeHistogram {
		label := "0"
		if k > 0 {
			label = fmt.Sprintf("%d..%d", 1<<(k-1), 1<<k-1)
		}
		bar := ""
		if peak > 0 {
			bar = strings.Repeat("#", (c*40+peak-1)/peak)
		}
		h.add("  "+label, c, bar)
	}
	return h.write(w)
}
