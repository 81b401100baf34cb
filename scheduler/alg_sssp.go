package scheduler

import (
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// SSSP (kernels/sssp.cu): dist[v], the least total weight of a path from
// the source (every edge weighs 1 in an unweighted graph).
func init() {
	RegisterAlgorithm(&Algorithm{Name: "sssp", About: "single-source shortest paths", Kernel: "sssp",
		Params: []Param{sourceVertex, {Name: "delta", Kind: Uint32Param, Max: math.MaxUint32, Requires: Buckets,
			About: "delta-stepping with buckets of this width (0: frontier Bellman-Ford, no buckets)"}},
		Combine: Voting, Gathers: true, Setups: map[Form]Setup{ACC: setupSSSP}, CPU: cpuSSSP,
		Partition: &PartitionedForm{}})
}

func cpuSSSP(g *graph.Graph, p Params) CPUResult {
	source := p.Uint32(SourceParam)
	d, err := ref.SSSP(g, source)
	if err != nil {
		return CPUResult{Validation: ref.Report{Algorithm: "SSSP", Fault: err.Error()}, Method: "reference", Checked: true}
	}
	return CPUResult{Validation: ref.CertifySSSP(g, source, d), Method: "certificate", Checked: true,
		Summary: reachSummary(d, ref.Unreached, "max distance"), Values: traversalValues("distance", "4294967295: unreached", d, ref.Unreached)}
}

func setupSSSP(g *graph.Graph, params Params) (*Problem, error) {
	source, delta := params.Uint32(SourceParam), params.Uint32("delta")
	dist := filled(g.NumVertices(), ref.Unreached)
	dist[source] = 0
	meta := Uint32s("distance", dist)
	bucket := Uint32s("bucket bound", []uint32{ref.Unreached, ref.Unreached}) // no buckets until a loop starts them
	var notes []string
	if !g.Weighted() {
		notes = append(notes, "unweighted graph: every edge weighs 1")
	}
	// With buckets a vertex may be admitted once per bucket it improves in.
	maxIterations := g.NumVertices() + 1
	var buckets *DeltaBuckets
	if delta > 0 {
		maxIterations *= 2
		buckets = &DeltaBuckets{Delta: delta, Bound: bucket}
	}
	return &Problem{Graph: g, Meta: []*Array{meta, Uint32s("waiting", make([]uint32, g.NumVertices())), bucket},
		Buckets: buckets, Start: []uint32{source}, MaxIterations: maxIterations, Notes: notes,
		Values: func() Values {
			return traversalValues("distance", "4294967295: unreached", meta.Uint32s(), ref.Unreached)
		},
		Work: func() (float64, string) { return reachedEdges(g, meta.Uint32s(), ref.Unreached) },
		Check: func(int) (ref.Report, []Field) {
			d := meta.Uint32s()
			return ref.ValidateSSSP(g, source, d), reachSummary(d, ref.Unreached, "max distance")
		}}, nil
}
