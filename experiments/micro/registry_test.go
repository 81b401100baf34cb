package micro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

// A benchmark's per-target defaults fill the settings left at 0 (the spin
// budget: at -1), and only those; a simulation runs once.
func TestBenchmarkRunResolvesPerTargetDefaults(t *testing.T) {
	var got Settings
	b := &Benchmark{
		Name:     "probe",
		Defaults: map[Setting]PerTarget{Reps: {HW: 256, Sim: 8}, Elements: {HW: 1 << 24, Sim: 1 << 20}, SpinBudget: {HW: 1000, Sim: 50}},
		run: func(_ context.Context, _ kernels.Device, s Settings) (*Table, error) {
			got = s
			return &Table{}, nil
		},
	}
	tests := []struct {
		name                         string
		given                        Settings
		reps, elements, iters, rep   int
		budget                       int64
		defaultedReps, defaultedSize bool
	}{
		{"hw defaults", Settings{Warmup: 3, Repeat: 10, SpinBudget: -1}, 256, 1 << 24, 0, 10, 1000, true, true},
		{"sim defaults", Settings{Simulated: true, Warmup: 3, Repeat: 10, SpinBudget: -1}, 8, 1 << 20, 0, 1, 50, true, true},
		{"given values stay", Settings{Reps: 5, Elements: 7, Iterations: 9, Repeat: 4, SpinBudget: 0}, 5, 7, 9, 4, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.Run(context.Background(), nil, tc.given)
			require.NoError(t, err)
			assert.Equal(t, tc.reps, got.Reps)
			assert.Equal(t, tc.elements, got.Elements)
			assert.Equal(t, tc.iters, got.Iterations, "a setting without a default is passed as given")
			assert.Equal(t, tc.rep, got.Repeat)
			assert.Equal(t, tc.budget, got.SpinBudget)
			assert.Equal(t, tc.defaultedReps, got.Defaulted(Reps))
			assert.Equal(t, tc.defaultedSize, got.Defaulted(Elements))
		})
	}
}

// A setting's help joins the benchmarks that say the same about it.
func TestRegistryHelpGroupsBenchmarks(t *testing.T) {
	run := func(context.Context, kernels.Device, Settings) (*Table, error) { return nil, nil }
	r := &Registry{}
	r.Register(&Benchmark{Name: "a", Help: map[Setting]string{CTAs: "one"}, run: run})
	r.Register(&Benchmark{Name: "b", Help: map[Setting]string{CTAs: "two"}, run: run})
	r.Register(&Benchmark{Name: "c", Help: map[Setting]string{CTAs: "one"}, run: run})
	r.Register(&Benchmark{Name: "d", run: run})
	assert.Equal(t, "a, c: one; b: two", r.Help(CTAs))
	assert.Empty(t, r.Help(Reps))
	assert.Equal(t, []string{"a", "b", "c", "d"}, r.Names())
	assert.Panics(t, func() { r.Register(&Benchmark{Name: "a", run: run}) }, "a duplicate")
	_, err := r.Lookup("e")
	var bad *SettingError
	assert.ErrorAs(t, err, &bad)
	assert.ErrorContains(t, err, "use one of a, b, c, d or all")
}
