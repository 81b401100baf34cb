package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// CPUResult is a run of an algorithm's CPU reference. The reference is the
// result, so its check must be independent of the reference's code: path
// problems are checked by certificate (ref.Certify*), colourings by
// validity, WCC as a partition against a union-find count, PageRank by its
// residual, belief propagation against a second implementation that shares
// no arithmetic with the reference (odds multiplied out, not log-odds
// summed). Where no independent check exists, Checked is false and
// Method says why.
type CPUResult struct {
	Validation ref.Report
	// Method names the check; Checked is false when nothing independent
	// was checked.
	Method     string
	Checked    bool
	Summary    []Field
	Iterations int
	Values     Values
}

// cpuReferences is every algorithm's CPU reference run, by name. It is a
// package variable, initialised before any init function, so that
// RegisterAlgorithm can attach each one whatever the order of the files'
// init functions.
var cpuReferences = map[string]func(*graph.Graph, Options) CPUResult{
	"bfs": func(g *graph.Graph, o Options) CPUResult {
		d := ref.BFS(g, o.Source)
		return CPUResult{ref.CertifyBFS(g, o.Source, d), "certificate", true, reachSummary(d, ref.Unreached, "max depth"), 0,
			uint32Values("depth", "4294967295: unreached", d)}
	},
	"sssp": func(g *graph.Graph, o Options) CPUResult {
		d, err := ref.SSSP(g, o.Source)
		if err != nil {
			return CPUResult{Validation: ref.Report{Algorithm: "SSSP", Fault: err.Error()}, Method: "reference", Checked: true}
		}
		return CPUResult{ref.CertifySSSP(g, o.Source, d), "certificate", true, reachSummary(d, ref.Unreached, "max distance"), 0,
			uint32Values("distance", "4294967295: unreached", d)}
	},
	"sswp": func(g *graph.Graph, o Options) CPUResult {
		w := ref.SSWP(g, o.Source)
		return CPUResult{ref.CertifySSWP(g, o.Source, w), "certificate", true, reachSummary(w, 0, "widest width"), 0,
			uint32Values("width", "0: unreached; 4294967295: the source", w)}
	},
	"pr": func(g *graph.Graph, _ Options) CPUResult {
		ranks, sweeps := ref.PageRank(g)
		best := 0
		for v, x := range ranks {
			if x > ranks[best] {
				best = v
			}
		}
		var sum []Field
		if len(ranks) > 0 {
			sum = []Field{figure("top_vertex", "top vertex", float64(best), fmt.Sprintf("%d (rank %.6g)", best, ranks[best])), figure("top_rank", "top rank", ranks[best], fmt.Sprintf("%.6g", ranks[best]))}
		}
		return CPUResult{ref.PageRankResidual(g, ranks), "residual", true, sum, sweeps, floatValues("rank", "", ranks)}
	},
	"wcc": func(g *graph.Graph, _ Options) CPUResult {
		labels := ref.WCC(g)
		sizes, largest := map[uint32]int{}, 0
		for _, l := range labels {
			sizes[l]++
			largest = max(largest, sizes[l])
		}
		return CPUResult{ref.CertifyWCC(g, labels), "union-find partition", true,
			[]Field{figure("components", "components", float64(len(sizes)), fmt.Sprint(len(sizes))), figure("largest_component", "largest component", float64(largest), fmt.Sprintf("%d vertices", largest))}, 0,
			uint32Values("label", "a component's label", labels)}
	},
	"kcore": func(g *graph.Graph, o Options) CPUResult {
		cores := ref.KCore(g)
		maxCore, size := uint32(0), 0
		for _, c := range cores {
			maxCore = max(maxCore, c)
		}
		members := ref.KCoreMembers(cores, o.K)
		for _, in := range members {
			if in {
				size++
			}
		}
		in := make([]uint32, len(members))
		for v, m := range members {
			if m {
				in[v] = 1
			}
		}
		return CPUResult{ref.CertifyKCoreMembers(g, o.K, members), "certificate", true,
			[]Field{figure("max_core", "max core number", float64(maxCore), fmt.Sprint(maxCore)), figure("core_size", fmt.Sprintf("%d-core size", o.K), float64(size), fmt.Sprintf("%d vertices", size))}, 0,
			uint32Values("member", fmt.Sprintf("1: in the %d-core", o.K), in)}
	},
	"color": func(g *graph.Graph, _ Options) CPUResult {
		colors := ref.GreedyColoring(g)
		used := uint32(0)
		for _, c := range colors {
			used = max(used, c+1)
		}
		return CPUResult{ref.ValidateColoring(g, colors), "validity", true, []Field{figure("colours", "colours", float64(used), fmt.Sprint(used))}, 0,
			uint32Values("colour", "", colors)}
	},
	"bp": func(g *graph.Graph, o Options) CPUResult {
		beliefs := ref.BeliefPropagation(g, o.Seed)
		mean := 0.0
		for _, b := range beliefs {
			mean += b
		}
		if len(beliefs) > 0 {
			mean /= float64(len(beliefs))
		}
		return CPUResult{ref.CheckBeliefPropagation(g, o.Seed, beliefs), "probability-domain recomputation", true,
			[]Field{figure("mean_belief", "mean belief (state 1)", mean, fmt.Sprintf("%.6f", mean)), {Name: "priors", Value: fmt.Sprintf("from seed %d", o.Seed)}}, ref.BPIterations,
			floatValues("belief", "P(state 1)", beliefs)}
	},
}
