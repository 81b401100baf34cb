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
