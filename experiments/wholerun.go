package experiments

import (
	"strconv"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// Points that are whole scheduler runs (bsp-corpus, edge-cache, hq, wseg)
// share how they read their run options and load their graph.

// wholeRunParams are the parameters wholeRunOptions reads: the CTA size
// (about names what a CTA is to the experiment) and the hardware's warm-up
// and timed whole runs (the simulator does one run, deterministic).
func wholeRunParams(about, warmupHW, repeatHW string) []Param {
	return []Param{
		{Name: "block", About: about, Default: byTarget("256", "256")},
		{Name: "warmup", About: "untimed whole runs (hardware; 0 in simulation)", Default: byTarget(warmupHW, "0")},
		{Name: "repeat", About: "timed whole runs, median reported (hardware; 1 in simulation)", Default: byTarget(repeatHW, "1")},
	}
}

// wholeRunSetup is the start of every whole-run point: the point's
// algorithm, its run options and its graph (with the graph's statistics).
func wholeRunSetup(p Point, spec string) (*scheduler.Algorithm, scheduler.RunOptions, *graph.Graph, map[string]string, error) {
	var ro scheduler.RunOptions
	a, err := scheduler.LookupAlgorithm(p.Get("algorithm"))
	if err != nil {
		return nil, ro, nil, nil, err
	}
	if err := wholeRunOptions(p, &ro); err != nil {
		return nil, ro, nil, nil, err
	}
	g, v, err := loadWholeRunGraph(spec)
	return a, ro, g, v, err
}

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
