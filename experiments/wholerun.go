package experiments

import (
	"fmt"
	"strconv"
	"sync"

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
	g, err := wholeRunGraphs.load(parsed)
	if err != nil {
		return nil, nil, err
	}
	return g, map[string]string{"spec": parsed.String(), "vertices": strconv.Itoa(g.NumVertices()), "edges": strconv.Itoa(g.NumEdges())}, nil
}

// wholeRunGraphs keeps the graphs whole-run points loaded last: a sweep
// runs its points graph by graph, and generating a graph of millions of
// edges again for each of its hundreds of cells would cost more than
// running them. Runs only read a graph.
var wholeRunGraphs = graphCache{keep: 2}

// graphCache loads each spec once while it is among the keep specs used
// last; points that ask for the same spec at once share one load.
type graphCache struct {
	mu      sync.Mutex
	keep    int
	entries []*cachedGraph // the most recently used last
}

type cachedGraph struct {
	spec string
	once sync.Once
	g    *graph.Graph
	err  error
}

func (c *graphCache) load(parsed graph.Spec) (*graph.Graph, error) {
	spec := parsed.String()
	c.mu.Lock()
	var e *cachedGraph
	for i, x := range c.entries {
		if x.spec == spec {
			e = x
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			break
		}
	}
	if e == nil {
		e = &cachedGraph{spec: spec}
		c.entries = append(c.entries, e)
		if len(c.entries) > c.keep {
			c.entries = c.entries[len(c.entries)-c.keep:]
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.g, e.err = parsed.Load(graph.LoadOptions{}) })
	return e.g, e.err
}

// cellRun is the start of a point that runs one (algorithm, variant)
// cell: the point's algorithm, variant, run options and graph, with the
// graph's statistics as the first values of its outcome.
type cellRun struct {
	alg     *scheduler.Algorithm
	variant scheduler.Variant
	ro      scheduler.RunOptions
	g       *graph.Graph
	values  map[string]string
}

// startCell parses the point's variant axis and sets up the rest.
func startCell(p Point, spec string) (cellRun, error) {
	var c cellRun
	var err error
	if c.variant, err = scheduler.ParseVariant(p.Get("variant")); err != nil {
		return c, err
	}
	c.alg, c.ro, c.g, c.values, err = wholeRunSetup(p, spec)
	return c, err
}

// specParam is the graph spec that the point's graph axis names through
// the parameter GRAPH_spec (rmat_spec, grid_spec).
func specParam(experiment string, p Point) (string, error) {
	spec := p.Get(p.Get("graph") + "_spec")
	if spec == "" {
		return "", fmt.Errorf("%s: no spec for graph %q (use rmat or grid)", experiment, p.Get("graph"))
	}
	return spec, nil
}

// sourceParam reads a source parameter (name): a vertex of g, or max for
// the vertex of maximum out-degree.
func sourceParam(experiment, name string, p Point, g *graph.Graph) (uint32, error) {
	s := p.Get(name)
	switch s {
	case "max":
		return g.MaxDegreeVertex(), nil
	case "auto":
		return zeroOrMaxSource(g), nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n >= uint64(g.NumVertices()) {
		return 0, fmt.Errorf("%s: %s %q is neither max, auto nor a vertex of the %d-vertex graph", experiment, name, s, g.NumVertices())
	}
	return uint32(n), nil
}

// zeroOrMaxSource is a traversal's source "auto": vertex 0, unless it has
// no out-edges (a traversal from it would end at once, as from vertex 0 of
// the permuted R-MAT graphs), then the vertex of maximum out-degree.
func zeroOrMaxSource(g *graph.Graph) uint32 {
	if g.NumVertices() > 0 && g.OutDegree(0) > 0 {
		return 0
	}
	return g.MaxDegreeVertex()
}

// startSpecCell starts a point whose graph axis names a GRAPH_spec
// parameter, with the source from the parameter sourceName (read only for
// algorithms that have a source; 0 otherwise).
func startSpecCell(experiment, sourceName string, p Point) (cellRun, uint32, error) {
	spec, err := specParam(experiment, p)
	if err != nil {
		return cellRun{}, 0, err
	}
	c, err := startCell(p, spec)
	if err != nil {
		return c, 0, err
	}
	if !c.alg.UsesSource() {
		return c, 0, nil
	}
	source, err := sourceParam(experiment, sourceName, p, c.g)
	return c, source, err
}
