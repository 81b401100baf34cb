package scheduler

import (
	"fmt"
	"math"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
)

// Maximal independent set (kernels/mis.cu): the greedy set in the order of
// hashed priorities (ref.MISPriority under ref.MISKey of its seed), on the symmetrised graph without self-loops; unique for a seed,
// so every scheduler's result is compared exactly with graph/ref and
// checked by certificate. Each vertex decides once and pushes its
// decision to the neighbours below it (a kill, or a release of their
// counters); the frontier schedulers and atos run that push form. Not
// Pullable: the pull form stores no counters, so a run must not switch
// directions (mis.cu says why); it is the form of pull-only sweeps.
func init() {
	RegisterAlgorithm(&Algorithm{Name: "mis", About: "maximal independent set, greedy in hashed priority order (--seed)", Kernel: "mis",
		Params:  []Param{{Name: "seed", Kind: Uint64Param, Default: 1, About: "seed of the vertices' priorities"}},
		Combine: Voting, Gathers: true, Setups: map[Form]Setup{ACC: setupMIS}, CPU: cpuMIS})
}

// misUndecided is the --out value of a vertex a failed run left undecided.
const misUndecided = math.MaxUint32

const misNote = "1: in the set, 0: out"

func setupMIS(g *graph.Graph, params Params) (*Problem, error) {
	seed := params.Uint64("seed")
	sym, notes, err := undirected(g)
	if err != nil {
		return nil, err
	}
	key := ref.MISKey(seed)
	n := sym.NumVertices()
	// state[v]: v's edges from neighbours above it (with multiplicity, as
	// their pushes come), 0 for the vertices that join at once: the first
	// frontier.
	state := make([]uint32, n)
	start := make([]uint32, 0)
	for v := range n {
		for _, u := range sym.Neighbors(uint32(v)) {
			if ref.MISAbove(u, uint32(v), key) {
				state[v]++
			}
		}
		if state[v] == 0 {
			start = append(start, uint32(v))
		}
	}
	meta := Uint32s("state", state)
	members := func() []uint32 {
		s := meta.Uint32s()
		m := make([]uint32, len(s))
		for v, x := range s {
			switch {
			case x == 0:
				m[v] = ref.MISIn
			case x&0x80000000 != 0: // WG_MIS_OUT
				m[v] = ref.MISOut
			default:
				m[v] = misUndecided
			}
		}
		return m
	}
	return &Problem{Graph: sym, Meta: []*Array{meta}, ParamU32: key, Start: start, MaxIterations: n + 1, Notes: notes,
		Values: func() Values { return uint32Values("member", misNote+", 4294967295: undecided", members()) },
		Work: func() (float64, string) {
			return float64(sym.NumEdges()), "edges (every vertex walks its edges once, when it decides)"
		},
		Check: func(int) (ref.Report, []Field) {
			m := members()
			return ref.ValidateMIS(g, seed, m), misSummary(m, seed)
		}}, nil
}

// cpuMIS is the CPU reference, checked by the certificate (independent,
// and every non-member has a member above it: only the seed's greedy set
// passes).
func cpuMIS(g *graph.Graph, params Params) CPUResult {
	seed := params.Uint64("seed")
	m := ref.MIS(g, seed)
	return CPUResult{Validation: ref.CertifyMIS(g, seed, m), Method: "certificate", Checked: true,
		Summary: misSummary(m, seed), Values: uint32Values("member", misNote, m)}
}

func misSummary(members []uint32, seed uint64) []Field {
	size := 0
	for _, x := range members {
		if x == ref.MISIn {
			size++
		}
	}
	return []Field{figure("set_size", "set size", float64(size), fmt.Sprintf("%d of %d vertices", size, len(members))),
		{Name: "priorities", Value: fmt.Sprintf("hashed from seed %d", seed)}}
}
