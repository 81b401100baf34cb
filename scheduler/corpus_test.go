package scheduler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
	"github.com/warpgraph/warpgraph/sim"
)

// corpusGraph is one graph of the corpus, built to stress an edge case.
type corpusGraph struct {
	name string
	g    *graph.Graph
}

func build(t *testing.T, n int, directed bool, edges [][3]uint32) *graph.Graph {
	t.Helper()
	l := &graph.EdgeList{NumVertices: n}
	for _, e := range edges {
		l.Src, l.Dst, l.Weights = append(l.Src, e[0]), append(l.Dst, e[1]), append(l.Weights, e[2])
	}
	g, err := graph.Build(l, graph.BuildOptions{Symmetrize: !directed})
	require.NoError(t, err)
	g.Directed = directed
	return g
}

func load(t *testing.T, spec string) *graph.Graph {
	t.Helper()
	g, err := graph.Load(spec, graph.LoadOptions{})
	require.NoError(t, err)
	return g
}

// corpus returns the graphs every registered variant must handle.
func corpus(t *testing.T) []corpusGraph {
	star := [][3]uint32{}
	for v := uint32(1); v < 70; v++ {
		star = append(star, [3]uint32{0, v, v%5 + 1})
	}
	path := [][3]uint32{}
	for v := uint32(0); v+1 < 300; v++ {
		path = append(path, [3]uint32{v, v + 1, v%7 + 1})
	}
	return []corpusGraph{
		{"empty", build(t, 0, false, nil)},
		{"one vertex", build(t, 1, false, nil)},
		{"one vertex self-loop", build(t, 1, true, [][3]uint32{{0, 0, 3}})},
		{"star", build(t, 70, false, star)},
		{"long path", build(t, 300, true, path)},
		// Isolated vertices, self-loops and duplicate edges with different weights.
		{"loops and duplicates", build(t, 12, true, [][3]uint32{{0, 1, 4}, {0, 1, 2}, {1, 1, 1}, {1, 2, 9}, {2, 0, 1}, {2, 3, 5}, {3, 3, 2}, {5, 6, 1}, {6, 5, 1}, {6, 5, 7}})},
		{"disconnected", build(t, 9, false, [][3]uint32{{0, 1, 1}, {1, 2, 2}, {3, 4, 3}, {4, 5, 1}, {5, 3, 2}, {7, 8, 5}})},
		{"grid", load(t, "grid:w=12,h=9")},
		{"rmat", load(t, "rmat:scale=9+perm=1")},
		{"rmat directed", load(t, "rmat:scale=8,directed=1")},
	}
}

// openSim opens the tiny configuration with every kernel access checked
// against its buffer's bytes: a kernel that overruns a buffer on some
// corpus graph fails here, though the GPU would let it pass.
func openSim(t *testing.T, mode sim.Mode) *sim.Device {
	t.Helper()
	dev, err := sim.Open("tiny", sim.WithMode(mode), sim.WithBoundsCheck())
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	return dev
}

// withKey adds key=value to a variant's spelling.
func withKey(variant, kv string) string {
	if strings.Contains(variant, ":") {
		return variant + "," + kv
	}
	return variant + ":" + kv
}

// runCell enacts one (algorithm, variant, graph) cell and checks it.
func runCell(t *testing.T, dev kernels.Device, e scheduler.Entry, g *graph.Graph, ro scheduler.RunOptions) *scheduler.Result {
	t.Helper()
	o := e.Algorithm.Select(scheduler.Params{"k": 3})
	if e.Algorithm.UsesSource() && g.NumVertices() == 0 {
		t.Skip("no source in an empty graph (the command line refuses it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := scheduler.Enact(ctx, dev, e.Algorithm, e.Variant, g, o, ro)
	require.NoError(t, err)
	assert.True(t, res.Validation.OK(), res.Validation.String())
	return res
}

// TestCorpusFunctional runs every registered (algorithm, variant) on every
// corpus graph on the functional simulator, validated against graph/ref.
func TestCorpusFunctional(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	graphs := corpus(t)
	for _, e := range scheduler.Entries() {
		for _, cg := range graphs {
			t.Run(fmt.Sprintf("%s/%s/%s", e.Algorithm.Name, e.Variant, cg.name), func(t *testing.T) {
				res := runCell(t, dev, e, cg.g, scheduler.RunOptions{Block: 64})
				if cg.g.NumVertices() > 0 {
					assert.NotEmpty(t, res.Iterations)
					assert.Positive(t, res.Total.Counters["thread_instructions"])
				}
			})
		}
	}
}

// TestCorpusTiming runs every registered cell on one R-MAT and one grid in
// timing mode on the tiny configuration.
func TestCorpusTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("timing-mode corpus skipped in -short mode")
	}
	dev := openSim(t, sim.ModeTiming)
	for _, e := range scheduler.Entries() {
		for _, spec := range []string{"rmat:scale=7+perm=1", "grid:w=8,h=8"} {
			g := load(t, spec)
			t.Run(fmt.Sprintf("%s/%s/%s", e.Algorithm.Name, e.Variant, spec), func(t *testing.T) {
				res := runCell(t, dev, e, g, scheduler.RunOptions{})
				assert.Positive(t, res.Total.Cycles)
				assert.Positive(t, res.EndToEnd)
			})
		}
	}
}

// Every registered variant parses back to itself, and every value of every
// key appears in some registered variant (so the corpus covers it).
func TestRegisteredVariantsCoverEveryValue(t *testing.T) {
	for _, s := range scheduler.Schedulers() {
		require.NotEmpty(t, s.Variants, s.Name)
		seen := map[string]bool{}
		for _, name := range s.Variants {
			v, err := scheduler.ParseVariant(name)
			require.NoError(t, err)
			again, err := scheduler.ParseVariant(v.String())
			require.NoError(t, err)
			assert.Equal(t, v.String(), again.String())
			for _, k := range s.Keys {
				seen[k.Name+"="+v.Get(k.Name)] = true
			}
		}
		for _, k := range s.Keys {
			for _, value := range k.Values {
				assert.True(t, seen[k.Name+"="+value], "%s: no registered variant has %s=%s", s.Name, k.Name, value)
			}
		}
	}
}

// Every ACC algorithm has its entries for every scheduler and phase in the
// kernel catalog (algorithms with forms of their own only, such as belief
// propagation and colouring, look their entries up when they run).
func TestEveryAlgorithmHasItsKernels(t *testing.T) {
	for _, a := range scheduler.Algorithms() {
		if a.Setups[scheduler.ACC] == nil {
			continue
		}
		for _, phase := range []string{"filter", "push", "pull"} {
			_, err := kernels.Lookup(a.Kernel + "_bsp_base_" + phase)
			assert.NoError(t, err)
		}
	}
}

func TestParseVariantRejectsBadNames(t *testing.T) {
	for _, bad := range []string{"", "nosuch", "bsp:", "bsp:x=1", "bsp:filter"} {
		_, err := scheduler.ParseVariant(bad)
		assert.Error(t, err, bad)
	}
	v, err := scheduler.ParseVariant("bsp")
	require.NoError(t, err)
	assert.Equal(t, "bsp", v.String())
}

func TestRepeatRunsFromTheInitialState(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "rmat:scale=8+perm=2")
	for _, name := range []string{"bfs", "pr", "kcore"} {
		a, err := scheduler.LookupAlgorithm(name)
		require.NoError(t, err)
		v, err := scheduler.ParseVariant("bsp")
		require.NoError(t, err)
		once, err := scheduler.Enact(context.Background(), dev, a, v, g, a.Select(scheduler.Params{"source": 3, "k": 4}), scheduler.RunOptions{})
		require.NoError(t, err)
		thrice, err := scheduler.Enact(context.Background(), dev, a, v, g, a.Select(scheduler.Params{"source": 3, "k": 4}), scheduler.RunOptions{Warmup: 1, Repeat: 2})
		require.NoError(t, err)
		assert.True(t, thrice.Validation.OK(), thrice.Validation.String())
		assert.Len(t, thrice.Runs, 2)
		assert.Equal(t, len(once.Iterations), len(thrice.Iterations), name)
	}
}

func TestEnactRejectsBadInput(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "grid:w=4,h=4")
	bfs, err := scheduler.LookupAlgorithm("bfs")
	require.NoError(t, err)
	v, _ := scheduler.ParseVariant("bsp")
	_, err = scheduler.Enact(context.Background(), dev, bfs, v, g, scheduler.Params{"source": 16}, scheduler.RunOptions{})
	assert.ErrorContains(t, err, "--source 16 is not a vertex")
	_, err = scheduler.Enact(context.Background(), dev, bfs, v, g, nil, scheduler.RunOptions{Block: 48})
	assert.ErrorContains(t, err, "not a positive multiple of the warp size")
	_, err = scheduler.LookupAlgorithm("nosuch")
	assert.ErrorContains(t, err, "unknown algorithm")
	assert.True(t, slices.Contains(scheduler.AlgorithmNames(), "pr"))
}

// SIMD-X's JIT controller: with one-entry thread bins the hub's neighbours
// overflow the online filter, the iteration's list is rebuilt by the ballot
// scan, and the next iteration runs ballot; once no thread would overflow,
// online comes back.
func TestSIMDXJITSwitchesFiltersOnOverflow(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	var edges [][3]uint32
	for v := uint32(1); v < 200; v++ {
		edges = append(edges, [3]uint32{0, v, 1})
	}
	for v := uint32(1); v+1 < 200; v += 2 {
		edges = append(edges, [3]uint32{v, v + 1, 1})
	}
	edges = append(edges, [3]uint32{199, 200, 1}, [3]uint32{200, 201, 1})
	g := build(t, 202, false, edges)
	bfs, err := scheduler.LookupAlgorithm("bfs")
	require.NoError(t, err)
	v, err := scheduler.ParseVariant("simdx:filter=jit,direction=push,bin=4")
	require.NoError(t, err)
	res, err := scheduler.Enact(context.Background(), dev, bfs, v, g, scheduler.Params{"source": 0},
		scheduler.RunOptions{Block: 32, Grid: 1})
	require.NoError(t, err)
	require.True(t, res.Validation.OK(), res.Validation.String())
	require.GreaterOrEqual(t, len(res.Iterations), 3)
	first, second, last := res.Iterations[0], res.Iterations[1], res.Iterations[len(res.Iterations)-1]
	assert.Equal(t, "online", first.Filter)
	assert.True(t, first.Overflow, "199 activations over 32 threads overflow 4-entry bins")
	assert.Contains(t, first.Phases, "+ballot", "the overflowed list is rebuilt by a scan")
	assert.Equal(t, "ballot", second.Filter)
	assert.Equal(t, "online", last.Filter, "back to online once bins stop overflowing")
}

// PageRank's dangling mass must survive 10^5 dangling vertices of equal
// rank: added one float32 at a time, every add rounded the same way and
// every rank drifted by ~2e-3 (on the H100 on rmat20; here too before).
// SIMD-X's residual form lets dangling rank leak and normalises at the end.
func TestPageRankManyDanglingVertices(t *testing.T) {
	if testing.Short() {
		t.Skip("a PageRank over 3*10^5 vertices on the functional simulator")
	}
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "er:n=300007,m=200000,directed=1")
	dangling := 0
	for v := range g.NumVertices() {
		if g.OutDegree(uint32(v)) == 0 {
			dangling++
		}
	}
	require.Greater(t, dangling, 100000)
	pr, err := scheduler.LookupAlgorithm("pr")
	require.NoError(t, err)
	for _, name := range []string{"bsp", "simdx"} {
		v, err := scheduler.ParseVariant(name)
		require.NoError(t, err)
		res, err := scheduler.Enact(context.Background(), dev, pr, v, g, nil, scheduler.RunOptions{})
		require.NoError(t, err)
		assert.True(t, res.Validation.OK(), res.Validation.String())
	}
}

// A fused kernel's grid barrier completes only when the grid is
// co-resident. One CTA more: with an unbounded spin budget the simulator's
// detector reports the deadlock naming the barrier's line; with a finite
// budget the kernel gives up and the run ends in a SpinBudgetError; a
// cooperative launch of that grid is refused before it runs.
func TestFusedGridOverTheCoResidentLimit(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "grid:w=12,h=9")
	bfs, err := scheduler.LookupAlgorithm("bfs")
	require.NoError(t, err)
	run := func(variant string, grid int, budget uint32) error {
		v, err := scheduler.ParseVariant(variant)
		require.NoError(t, err)
		k, err := kernels.Lookup("bfs_simdx_all_run")
		require.NoError(t, err)
		if grid < 0 {
			limit, err := scheduler.CoResidentGrid(dev, k, 64, 0)
			require.NoError(t, err)
			grid = limit - grid - 1 // -1: the limit, -2: one more
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := scheduler.Enact(ctx, dev, bfs, v, g, scheduler.Params{"source": 0}, scheduler.RunOptions{Block: 64, Grid: grid, SpinBudget: budget})
		if err == nil {
			assert.True(t, res.Validation.OK(), res.Validation.String())
		}
		return err
	}
	for _, barrier := range []string{"monitor", "counter", "tree"} {
		variant := "simdx:fusion=all,barrier=" + barrier
		t.Run(barrier, func(t *testing.T) {
			require.NoError(t, run(variant, -1, 0), "the co-resident grid completes")
			var dl *kernels.DeadlockError
			err := run(variant, -2, 0)
			require.ErrorAs(t, err, &dl)
			assert.Contains(t, dl.Detail, "barrier.cuh")
			var sb *kernels.SpinBudgetError
			require.ErrorAs(t, run(variant, -2, 200), &sb)
			assert.Contains(t, sb.Detail, "at most")
		})
	}
	var lr *kernels.LaunchResourceError
	require.NoError(t, run("simdx:fusion=all,barrier=coop", -1, 0))
	require.ErrorAs(t, run("simdx:fusion=all,barrier=coop", -2, 0), &lr)
}

// Every registered algorithm has its CPU reference.
func TestEveryAlgorithmHasACPUReference(t *testing.T) {
	for _, a := range scheduler.Algorithms() {
		assert.NotNil(t, a.CPU, a.Name)
	}
}

// SIMD-X's PageRank pulls while the active vertices' out-edges exceed the
// pull fraction, then pushes to the end (never pulling again: the pulls'
// carries are stale once pushes move residuals); under direction=push only
// the first iteration, which computes the start's residual, pulls. Both
// validate, from the initial state again on a repeat.
func TestSIMDXPageRankPullsThenPushes(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	g := load(t, "rmat:scale=10+perm=1")
	pr, err := scheduler.LookupAlgorithm("pr")
	require.NoError(t, err)
	directions := func(variant string, fraction float64) []string {
		v, err := scheduler.ParseVariant(withKey(variant, fmt.Sprintf("pull=%g", fraction)))
		require.NoError(t, err)
		res, err := scheduler.Enact(context.Background(), dev, pr, v, g, nil,
			scheduler.RunOptions{Warmup: 1, Repeat: 2})
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		var dirs []string
		for _, it := range res.Iterations {
			if it.Direction != "-" {
				dirs = append(dirs, it.Direction)
			}
		}
		require.Equal(t, "finish", res.Iterations[len(res.Iterations)-1].Phases)
		return dirs
	}
	auto := directions("simdx", 0.3)
	pulls := slices.Index(auto, "push")
	require.Greater(t, pulls, 1, "several pulls first: %v", auto)
	for _, d := range auto[pulls:] {
		assert.Equal(t, "push", d, "no pull after the first push: %v", auto)
	}
	assert.Less(t, pulls, slices.Index(directions("simdx", 0.05), "push"), "a smaller pull fraction pulls longer")
	push := directions("simdx:direction=push", 0.3)
	assert.Equal(t, "pull", push[0])
	assert.NotContains(t, push[1:], "pull")
	// local=cta: CTA 0 runs the small frontiers' rounds alone, in one
	// launch, and hands a grown frontier back to the grid.
	for _, variant := range []string{"simdx:local=cta", "simdx:filter=atomic,local=cta"} {
		v, err := scheduler.ParseVariant(variant)
		require.NoError(t, err)
		for _, spec := range []string{"rmat:scale=10+perm=1", "grid:w=48,h=48"} {
			res, err := scheduler.Enact(context.Background(), dev, pr, v, load(t, spec), nil, scheduler.RunOptions{})
			require.NoError(t, err)
			require.True(t, res.Validation.OK(), res.Validation.String())
			local, unlaunched := 0, 0
			for _, it := range res.Iterations {
				if it.Phases == "local" {
					local++
					if it.Launches == 0 {
						unlaunched++ // a round inside the launch of an earlier one
					}
				}
			}
			assert.Positive(t, local, "%s on %s: rounds in CTA 0", variant, spec)
			if spec[:4] == "grid" { // a mesh's frontier shrinks slowly: many rounds
				assert.Positive(t, unlaunched, "%s on %s: several rounds in one launch", variant, spec)
			}
		}
	}
}

// SSSP's delta-stepping under bsp, host-driven SIMD-X, SIMD-X's fused
// kernels (which raise the bound themselves) and Atos's task queue: every
// corpus graph validates with narrow and wide buckets; on the weighted grid
// the host-driven runs admit later buckets (a vertex improved beyond its bucket waits);
// schedulers without buckets refuse a delta rather than ignore it.
func TestSSSPDeltaStepping(t *testing.T) {
	dev := openSim(t, sim.ModeFunctional)
	sssp, err := scheduler.LookupAlgorithm("sssp")
	require.NoError(t, err)
	for _, name := range []string{"bsp", "simdx", "simdx:filter=atomic", "simdx:fusion=all", "simdx:fusion=pushpull,local=cta",
		"atos", "atos:local=on,dedup=off", "atos:mode=discrete,worker=warp"} {
		fused := strings.Contains(name, "fusion=")
		v, err := scheduler.ParseVariant(name)
		require.NoError(t, err)
		for _, cg := range corpus(t) {
			if cg.g.NumVertices() == 0 {
				continue
			}
			for _, delta := range []uint32{1, 8, 1 << 20} {
				t.Run(fmt.Sprintf("%s/%s/delta=%d", name, cg.name, delta), func(t *testing.T) {
					res, err := scheduler.Enact(context.Background(), dev, sssp, v, cg.g,
						scheduler.Params{"delta": delta}, scheduler.RunOptions{Block: 64, Warmup: 1, Repeat: 2})
					require.NoError(t, err)
					require.True(t, res.Validation.OK(), res.Validation.String())
					admits := 0
					for _, it := range res.Iterations {
						if it.Phases == "admit" {
							admits++
						}
					}
					if fused { // the kernel admits buckets without a row of its own
						assert.Zero(t, admits)
						return
					}
					if cg.name == "grid" && delta == 1 {
						assert.Greater(t, admits, 5, "buckets of 1 on a weighted grid")
					}
					if delta == 1<<20 {
						assert.LessOrEqual(t, admits, 1, "one bucket holds every distance")
					}
				})
			}
		}
	}
	g := load(t, "grid:w=6,h=6")
	for _, name := range []string{"hq", "edge"} {
		v, err := scheduler.ParseVariant(name)
		require.NoError(t, err)
		_, err = scheduler.Enact(context.Background(), dev, sssp, v, g, scheduler.Params{"delta": 4}, scheduler.RunOptions{Block: 64})
		assert.ErrorContains(t, err, "delta-stepping", name)
	}
}

// A quiet key (added after results were recorded) is spelled only when it
// is not at its default, so earlier point keys still name their variants.
func TestQuietKeysKeepEarlierNames(t *testing.T) {
	v, err := scheduler.ParseVariant("atos:local=on")
	require.NoError(t, err)
	assert.Equal(t, "atos:mode=persistent,worker=cta,fetch=auto,local=on", v.String())
	assert.Equal(t, "on", v.Get("dedup"))
	explicit, err := scheduler.ParseVariant("atos:local=on,dedup=on")
	require.NoError(t, err)
	assert.Equal(t, v.String(), explicit.String())
	off, err := scheduler.ParseVariant("atos:local=on,dedup=off")
	require.NoError(t, err)
	assert.Equal(t, "atos:mode=persistent,worker=cta,fetch=auto,local=on,dedup=off", off.String())
	again, err := scheduler.ParseVariant(off.String())
	require.NoError(t, err)
	assert.Equal(t, "off", again.Get("dedup"))
}

// SIMD-X shares a few large vertices' edges over the grid when there are
// fewer of them than CTAs (kernels/lib/simdx.cuh, wg_simdx_push_hubs).
// Three hubs of unequal degree, each the only way to its own leaves: an
// edge the split skips leaves a vertex unreached, one it repeats is
// harmless, so validation checks the split's cover. Run with fewer CTAs
// than hubs too (one CTA per hub, the other path). The fused kernels call
// the same push; the tiny configuration cannot hold 16 of their CTAs at once.
func TestSIMDXSharesHubsOverTheGrid(t *testing.T) {
	var edges [][3]uint32
	next := uint32(4)
	for hub, degree := range []uint32{300, 1000, 257} {
		h := uint32(hub + 1)
		edges = append(edges, [3]uint32{0, h, h})
		for i := uint32(0); i < degree; i++ {
			edges = append(edges, [3]uint32{h, next, 1 + i%7})
			next++
		}
	}
	g := build(t, int(next), true, edges)
	dev := openSim(t, sim.ModeFunctional)
	for _, algo := range []string{"bfs", "sssp"} {
		a, err := scheduler.LookupAlgorithm(algo)
		require.NoError(t, err)
		for _, spec := range []string{"simdx", "simdx:launch=grid"} {
			for _, grid := range []int{2, 16} {
				t.Run(fmt.Sprintf("%s/%s/grid%d", algo, spec, grid), func(t *testing.T) {
					v, err := scheduler.ParseVariant(spec)
					require.NoError(t, err)
					res, err := scheduler.Enact(context.Background(), dev, a, v, g, scheduler.Params{"source": 0},
						scheduler.RunOptions{Block: 64, Grid: grid})
					require.NoError(t, err)
					require.True(t, res.Validation.OK(), res.Validation.String())
				})
			}
		}
	}
}
