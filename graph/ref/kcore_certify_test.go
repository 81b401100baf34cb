package ref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpgraph/warpgraph/graph"
)

func TestCertifyKCoreMembers(t *testing.T) {
	for _, spec := range []string{"rmat:scale=10", "rmat:scale=9,directed=1", "grid:w=9,h=7", "er:n=300,m=900"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []uint32{0, 2, 3, 8, 16} {
			members := KCoreMembers(KCore(g), k)
			r := CertifyKCoreMembers(g, k, members)
			assert.True(t, r.OK(), "%s k=%d: %s", spec, k, r)
			// Dropping a member breaks (2) only if it could not have been
			// peeled, and breaks (1) for its neighbours; adding a
			// non-member breaks (1) or (2). Either way the certificate
			// must notice.
			for v := range members {
				wrong := append([]bool(nil), members...)
				wrong[v] = !wrong[v]
				if CertifyKCoreMembers(g, k, wrong).OK() {
					t.Errorf("%s k=%d: membership with vertex %d flipped passed", spec, k, v)
				}
				if v > 40 {
					break
				}
			}
		}
	}
}

func TestCertifyCoreNumbers(t *testing.T) {
	for _, spec := range []string{"rmat:scale=10", "rmat:scale=9,directed=1", "grid:w=9,h=7", "er:n=300,m=900"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cores := KCore(g)
		r := CertifyCoreNumbers(g, cores)
		assert.True(t, r.OK(), "%s: %s", spec, r)
		// Any single core number one too high breaks (1) at its vertex;
		// one too low breaks (2): the vertex cannot be peeled a level early.
		for v := range cores {
			for _, delta := range []int{1, -1} {
				if delta < 0 && cores[v] == 0 {
					continue
				}
				wrong := append([]uint32(nil), cores...)
				wrong[v] = uint32(int(wrong[v]) + delta)
				if CertifyCoreNumbers(g, wrong).OK() {
					t.Errorf("%s: core number of vertex %d moved by %d passed", spec, v, delta)
				}
			}
			if v > 60 {
				break
			}
		}
		short := CertifyCoreNumbers(g, cores[:len(cores)-1])
		assert.False(t, short.OK(), "%s: a short result passed", spec)
	}
}
