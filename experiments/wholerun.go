package experiments

import (
	"strconv"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// Points that are whole scheduler runs (bsp-corpus, edge-cache, hq, wseg)
// share how they read their run options and load their graph.

// wholeRunOptions reads a point's block, warmup and repeat into ro.
func wholeRunOptions(p Point, ro *scheduler.RunOptions) error {
	for name, into := range map[string]*int{"block": &ro.Block, "warmup": &ro.Warmup, "repeat": &ro.Repeat} {
		n, err := p.Int(name)
		if err != nil {
			return err
		}
		*into = n
	}
	return nil
}

// loadWholeRunGraph loads spec and returns it with the statistics every
// such point records: its canonical spec, vertices and edges.
func loadWholeRunGraph(spec string) (*graph.Graph, map[string]string, error) {
	parsed, err := graph.ParseSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	g, err := parsed.Load(graph.LoadOptions{})
	if err != nil {
		return nil, nil, err
	}
	return g, map[string]string{"spec": parsed.String(), "vertices": strconv.Itoa(g.NumVertices()), "edges": strconv.Itoa(g.NumEdges())}, nil
}
