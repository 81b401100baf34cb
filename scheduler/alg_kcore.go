package scheduler

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// k-core membership (kernels/kcore.cu) by peeling: a vertex is in the
// k-core when it keeps at least k neighbours (self-loops ignored) after
// every vertex with fewer has left.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "kcore", About: "k-core membership by peeling (--k)", Kernel: "kcore",
		Params: []Param{{Name: "k", Kind: Uint32Param, Default: ref.DefaultK, Max: math.MaxUint32,
			About: "report the k-core's members (on a directed graph, of the graph as stored: reciprocal edges count twice; add +sym to the spec for the undirected k-core)"}},
		Combine: Voting, Setups: map[Form]Setup{ACC: setupKCore}, CPU: cpuKCore})
}

// directedKCoreNote says what k-core means on a directed graph, where it
// is easily misread.
const directedKCoreNote = "directed graph: a vertex's degree is its in- plus out-edges, so a reciprocal pair u->v, v->u counts twice; add +sym to the graph spec for the k-core of the undirected simple graph"

// kcoreNotes are the notes of a k-core run on g.
func kcoreNotes(g *graph.Graph) []string {
	if g.Directed {
		return []string{directedKCoreNote}
	}
	return nil
}

func cpuKCore(g *graph.Graph, p Params) CPUResult {
	k := p.Uint32("k")
	cores := ref.KCore(g)
	maxCore, size := uint32(0), 0
	for _, c := range cores {
		maxCore = max(maxCore, c)
	}
	members := ref.KCoreMembers(cores, k)
	in := make([]uint32, len(members))
	for v, m := range members {
		if m {
			in[v] = 1
			size++
		}
	}
	return CPUResult{Validation: ref.CertifyKCoreMembers(g, k, members), Method: "certificate", Checked: true,
		Summary: []Field{figure("max_core", "max core number", float64(maxCore), fmt.Sprint(maxCore)), figure("core_size", fmt.Sprintf("%d-core size", k), float64(size), fmt.Sprintf("%d vertices", size))},
		Values:  uint32Values("member", fmt.Sprintf("1: in the %d-core", k), in), Notes: kcoreNotes(g)}
}

func setupKCore(g *graph.Graph, params Params) (*Problem, error) {
	k := params.Uint32("k")
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	notes = append(kcoreNotes(g), notes...)
	degree := make([]uint32, sym.NumVertices())
	for v := range degree {
		for _, u := range sym.Neighbors(uint32(v)) {
			if u != uint32(v) {
				degree[v]++
			}
		}
	}
	meta := Uint32s("degree", degree)
	return &Problem{Graph: sym, Meta: []*Array{meta}, ParamU32: k, MaxIterations: g.NumVertices() + 1, Notes: notes,
		Values: func() Values {
			in := make([]uint32, len(degree))
			for v, d := range meta.Uint32s() {
				if d >= k {
					in[v] = 1
				}
			}
			return uint32Values("member", fmt.Sprintf("1: in the %d-core", k), in)
		},
		Check: func(int) (ref.Report, []Field) {
			members, size := make([]bool, len(degree)), 0
			for v, d := range meta.Uint32s() {
				members[v] = d >= k
				if members[v] {
					size++
				}
			}
			return ref.ValidateKCoreMembers(sym, k, members), []Field{figure("core_size", fmt.Sprintf("%d-core size", k), float64(size), fmt.Sprintf("%d vertices", size))}
		}}, nil
}
