package scheduler

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/sim"
)

// hubGraph has one vertex of degree 599 (a CTA's task), forty of degree
// about 41 (a warp's each) and a ring through the rest.
func hubGraph(t *testing.T) *graph.Graph {
	t.Helper()
	l := &graph.EdgeList{NumVertices: 600}
	add := func(u, v uint32) { l.Src, l.Dst, l.Weights = append(l.Src, u), append(l.Dst, v), append(l.Weights, 1) }
	for v := uint32(1); v < 600; v++ {
		add(0, v)
		add(v, 1+v%599)
	}
	for u := uint32(1); u <= 40; u++ {
		for v := uint32(41); v <= 80; v++ {
			add(u, v)
		}
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: true})
	require.NoError(t, err)
	return g
}

// TestColouringRunsHubsByWarpAndCTA runs colouring's hub paths (a task of
// a vertex with WG_COLOUR_WARP_DEGREE neighbours or more run by its warp,
// from WG_COLOUR_CTA_DEGREE by its CTA) under every kind of Atos worker
// and in bsp's rounds (a hub by its warp), validated, and checks that a
// graph whose degrees stay below the warp's bound runs the flat entries
// instead.
func TestColouringRunsHubsByWarpAndCTA(t *testing.T) {
	src, err := os.ReadFile("../kernels/color.cu")
	require.NoError(t, err)
	m := regexp.MustCompile(`#define WG_COLOUR_WARP_DEGREE (\d+)`).FindSubmatch(src)
	require.NotNil(t, m, "kernels/color.cu defines WG_COLOUR_WARP_DEGREE")
	assert.Equal(t, fmt.Sprint(colourWarpDegree), string(m[1]), "colourWarpDegree follows kernels/color.cu")

	a, err := LookupAlgorithm("color")
	require.NoError(t, err)
	hubs := hubGraph(t)
	require.GreaterOrEqual(t, hubs.OutDegree(hubs.MaxDegreeVertex()), 256)
	grid, err := graph.Load("grid:w=9,h=7", graph.LoadOptions{})
	require.NoError(t, err)
	for _, mode := range []sim.Mode{sim.ModeFunctional, sim.ModeTiming} {
		dev := atosTestDevice(t, mode)
		for _, variant := range []string{"atos", "atos:worker=warp", "atos:mode=discrete", "atos:local=on,dedup=off", "bsp"} {
			v, err := ParseVariant(variant)
			require.NoError(t, err)
			for name, g := range map[string]*graph.Graph{"hubs": hubs, "grid": grid} {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				res, err := Enact(ctx, dev, a, v, g, a.Select(Params{}), RunOptions{})
				cancel()
				require.NoError(t, err, "%s on %s", variant, name)
				assert.True(t, res.Validation.OK(), "%s on %s: %s", variant, name, res.Validation.String())
				flat := strings.Contains(strings.Join(res.Notes, "\n"), "(color_flat)")
				assert.Equal(t, name == "grid", flat, "%s on %s: notes %q", variant, name, res.Notes)
			}
		}
	}
}
