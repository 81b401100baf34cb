package exec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

func kernelPTX(t testing.TB, module string) string {
	for _, m := range kernels.Modules() {
		if m.Name == module {
			return string(m.PTX)
		}
	}
	t.Fatalf("no module %s", module)
	return ""
}

func TestStreamSmoke(t *testing.T) {
	both(t, func(t *testing.T, fast bool) {
		m := newMachine(t, kernelPTX(t, "stream"), fast)
		n := 1000
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = float32(i)*0.5, float32(3*i)+0.25
		}
		pa, pb, pc := m.allocF32(a...), m.allocF32(b...), m.zeros(4*n+64)
		g, err := m.launch("stream", d1((n+127)/128, 128), pa, pb, pc, uint64(n))
		require.NoError(t, err)
		c := m.f32s(pc, n+16)
		for i := 0; i < n; i++ {
			assert.Equal(t, a[i]+b[i], c[i], "c[%d]", i)
		}
		for i := n; i < n+16; i++ {
			assert.Zero(t, c[i])
		}
		t.Logf("warp insts %d thread insts %d", g.WarpInsts, g.ThreadInsts)
	})
}
