package scheduler

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
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
