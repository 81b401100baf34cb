package scheduler

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/sim"
)

// The fitted launch gives more CTAs than large vertices up to simdxHubs,
// the count the push kernel's shared-memory prefix holds: the two must agree.
func TestSIMDXHubsMatchesTheKernel(t *testing.T) {
	src, err := os.ReadFile("../kernels/lib/simdx.cuh")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^#define WG_SIMDX_HUBS (\d+)$`).FindSubmatch(src)
	require.NotNil(t, m, "kernels/lib/simdx.cuh defines WG_SIMDX_HUBS")
	require.Equal(t, fmt.Sprint(simdxHubs), string(m[1]))
}

// fitCTAs gives each class of vertex a worker of its own, and more CTAs
// than hubs while the push kernel can share their edges.
func TestFitCTAs(t *testing.T) {
	for _, c := range []struct {
		name                 string
		small, medium, large int
		want                 int
	}{
		{"nothing", 0, 0, 0, 0},
		{"a thread a small vertex", 16384, 0, 0, 64},
		{"a warp a medium vertex", 10, 2346, 0, 294},
		{"hubs get one CTA more than their count", 0, 0, 466, 467},
		{"past simdxHubs, a CTA a large vertex", 0, 0, simdxHubs + 5, simdxHubs + 5},
		{"the largest class decides", 16384, 100, 3, 64},
	} {
		require.Equal(t, c.want, fitCTAs(256, 32, c.small, c.medium, c.large), c.name)
	}
}

// launchGrids records the grid of every launch, by kernel.
type launchGrids struct {
	kernels.Device
	grids map[string][]int
}

func (d *launchGrids) Launch(ctx context.Context, k *kernels.Kernel, cfg kernels.LaunchConfig, args ...any) (kernels.LaunchStats, error) {
	d.grids[k.Name] = append(d.grids[k.Name], cfg.Grid.Count())
	return d.Device.Launch(ctx, k, cfg, args...)
}

// A fused kernel over a small graph may take fewer CTAs than a thread a
// vertex (a thread a small vertex, a warp a medium one): the activate and
// scan launches before it count into its CTAs' slots, so they take no
// more CTAs than it. On er:n=16384,m=176128 (344 vertices of degree
// 32-63, the rest below 32) a thread a vertex is 64 CTAs of 256 threads,
// and the fused kernel's classes need 63.
func TestFusedSIMDXScansFitTheFusedGrid(t *testing.T) {
	dev, err := sim.Open("h100", sim.WithMode(sim.ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	rec := &launchGrids{Device: dev, grids: map[string][]int{}}
	res, err := atosEnact(t, rec, "wcc", "simdx:fusion=all", "er:n=16384,m=176128", RunOptions{})
	require.NoError(t, err)
	require.NoError(t, res.Validation.Err())
	fused := rec.grids["wcc_simdx_all_run"]
	require.Len(t, fused, 1, "one fused launch: %v", rec.grids)
	assert.Equal(t, 63, fused[0])
	for name, grids := range rec.grids {
		for _, g := range grids {
			assert.LessOrEqual(t, g, fused[0], "%s launched %d CTAs, more than the fused kernel's %d", name, g, fused[0])
		}
	}
}
