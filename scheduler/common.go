package scheduler

import (
	"fmt"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
)

// filled returns n copies of v.
func filled(n int, v uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// reachSummary counts the vertices whose value is not unreached and the
// largest value among them.
func reachSummary(vals []uint32, unreached uint32, what string) []Field {
	key := strings.ReplaceAll(what, " ", "_")
	reached, largest := 0, uint32(0)
	for _, v := range vals {
		if v != unreached {
			reached++
			largest = max(largest, v)
		}
	}
	return []Field{figure("reached", "reached", float64(reached), fmt.Sprintf("%d of %d vertices", reached, len(vals))),
		figure(key, what, float64(largest), fmt.Sprint(largest))}
}

// undirected returns g itself when it is undirected, otherwise its
// symmetrisation and a note saying so.
func undirected(g *graph.Graph) (*graph.Graph, []string, error) {
	if !g.Directed {
		return g, nil, nil
	}
	s, err := graph.Symmetrize(g)
	if err != nil {
		return nil, nil, err
	}
	return s, []string{"the directed input was symmetrised (duplicate edges merged)"}, nil
}

// reachedEdges is the work of a work-efficient traversal: the out-degrees
// of the vertices it reached (value other than unreached), each walked once.
func reachedEdges(g *graph.Graph, vals []uint32, unreached uint32) (float64, string) {
	edges := 0.0
	for v, x := range vals {
		if x != unreached {
			edges += float64(g.OutDegree(uint32(v)))
		}
	}
	return edges, "out-edges of the reached vertices"
}
