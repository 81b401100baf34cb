package scheduler

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/sim"
)

// inCSR is an in-edge CSR with the given in-degrees (the sources do not
// matter to the layout).
func inCSR(degrees []int) *graph.Graph {
	g := &graph.Graph{Offsets: make([]uint32, len(degrees)+1), Directed: true}
	for v, d := range degrees {
		g.Offsets[v+1] = g.Offsets[v] + uint32(d)
		for range d {
			g.Targets = append(g.Targets, uint32(v))
		}
	}
	return g
}

// A vertex with more in-edges than a block holds continues through as many
// blocks as it needs, sharing one spill slot; a vertex that fits is moved
// whole to the next block; a full vertex range closes a block; vertices
// without in-edges still get slots.
func TestEdgeLayoutSplitsOnlyWhatDoesNotFit(t *testing.T) {
	in := inCSR([]int{2, 0, 3, 10, 0, 1, 0, 0})
	l, err := buildEdgeLayout(in, 4, 3)
	require.NoError(t, err)
	const o = edgeOwned
	assert.Equal(t, []uint32{
		0, 2, 0, 2, o, o, // v0, v1; v2's 3 edges would overflow: the next block
		2, 6, 2, 4, o, 0, // v2, then v3 (10 edges) fills the block: split
		6, 10, 3, 4, 0, 0, // v3 alone
		10, 14, 3, 4, 0, 0, // v3 alone
		14, 16, 3, 6, 0, o, // v3's last edge, v4, v5: three slots, full
		16, 16, 6, 8, o, o, // v6, v7 without edges
	}, l.Blocks)
	assert.Equal(t, []uint32{3}, l.Split)
	assert.Equal(t, 4, l.MaxSlotEdges)
	checkEdgeLayout(t, in, l, 4, 3)
}

// On generated graphs, with several block sizes, the layout keeps its
// invariants: every edge in exactly one block with its slot, every vertex
// in some block's range, split exactly when it lies in several.
func TestEdgeLayoutInvariants(t *testing.T) {
	for _, spec := range []string{"rmat:scale=9+perm=1", "rmat:scale=8,directed=1", "grid:w=12,h=9"} {
		g, err := graph.Load(spec, graph.LoadOptions{})
		require.NoError(t, err)
		for _, size := range [][2]int{{32, 1024}, {64, 8}, {256, 1024}, {1, 1}} {
			l, err := buildEdgeLayout(g.Reverse(), size[0], size[1])
			require.NoError(t, err)
			checkEdgeLayout(t, g.Reverse(), l, size[0], size[1])
		}
	}
	_, err := buildEdgeLayout(inCSR([]int{1}), 0, 4)
	assert.ErrorContains(t, err, "must be positive")
}

func checkEdgeLayout(t *testing.T, in *graph.Graph, l *edgeLayout, edgesPerBlock, maxSlots int) {
	t.Helper()
	n := in.NumVertices()
	blocksOf := make([]int, n)
	nextEdge, nextVertex := uint32(0), uint32(0)
	for b := range l.NumBlocks() {
		d := l.Blocks[b*edgeDescWords : (b+1)*edgeDescWords]
		require.Equal(t, nextEdge, d[0], "block %d starts where the previous ended", b)
		require.LessOrEqual(t, int(d[1]-d[0]), edgesPerBlock, "block %d", b)
		require.Less(t, d[2], d[3], "block %d has vertices", b)
		require.LessOrEqual(t, int(d[3]-d[2]), maxSlots, "block %d", b)
		require.True(t, d[2] == nextVertex || d[2]+1 == nextVertex, "block %d's range follows on, sharing at most a split vertex", b)
		for e := d[0]; e < d[1]; e++ {
			dst := l.Dst[e]
			require.True(t, in.Offsets[dst] <= e && e < in.Offsets[dst+1], "edge %d's destination", e)
			require.Equal(t, dst-d[2], l.Slot[e], "edge %d's slot", e)
			require.Less(t, dst, d[3])
		}
		for v := d[2]; v < d[3]; v++ {
			blocksOf[v]++
		}
		for i, v := range []uint32{d[2], d[3] - 1} {
			spill := d[4+i]
			if spill != edgeOwned {
				require.Less(t, int(spill), len(l.Split))
				require.Equal(t, v, l.Split[spill], "block %d's spill slot names its vertex", b)
			}
		}
		nextEdge, nextVertex = d[1], d[3]
	}
	require.Equal(t, uint32(len(in.Targets)), nextEdge, "every edge is in a block")
	require.Equal(t, uint32(n), nextVertex, "every vertex is in a block")
	split := map[uint32]bool{}
	for _, v := range l.Split {
		split[v] = true
	}
	for v := range n {
		require.Positive(t, blocksOf[v], "vertex %d", v)
		assert.Equal(t, blocksOf[v] > 1, split[uint32(v)], "vertex %d lies in %d blocks", v, blocksOf[v])
		if !split[uint32(v)] {
			assert.LessOrEqual(t, in.OutDegree(uint32(v)), edgesPerBlock)
		}
	}
}

// The census counts proposing edges per destination: from the source only
// its 40 out-edges propose (one per destination); from then on the 40
// edges into the sink propose to one slot. The simulator's counters show
// where the updates went: shared atomics under cache=shared, none under
// cache=global, which makes more global atomics instead. Blocks of 128
// edges put all 80 edges in one CTA, so each sweep reads the state as the
// previous one left it.
func TestEdgeStatistics(t *testing.T) {
	run := sinkRunner(t, "sssp")
	shared, global := run("edge:census=on"), run("edge:cache=global,census=on")
	for _, res := range []*Result{shared, global} {
		require.Len(t, res.Iterations, 3, "dist settles in two sweeps, the third changes nothing")
		var degrees, proposals, changed []float64
		for _, it := range res.Iterations {
			degrees = append(degrees, it.Statistics["max_sync_degree"])
			proposals = append(proposals, it.Statistics["proposals"])
			changed = append(changed, float64(it.FrontierOut))
		}
		assert.Equal(t, []float64{1, 40, 40}, degrees, res.Variant)
		assert.Equal(t, []float64{40, 80, 80}, proposals, res.Variant)
		assert.Equal(t, []float64{40, 1, 0}, changed, res.Variant)
		bound := 0.0
		for _, f := range res.Summary {
			if f.Key == "sync_degree_bound" {
				bound = *f.Number
			}
		}
		assert.Equal(t, 40.0, bound, "the sink's 40 in-edges share one block")
	}
	into := func(res *Result, key string) float64 { return res.Iterations[1].Statistics[key] }
	assert.Positive(t, into(shared, "shared_atomics"))
	assert.Zero(t, into(global, "shared_atomics"))
	assert.Greater(t, into(global, "global_atomics"), into(shared, "global_atomics"))
}

// sinkRunner enacts algorithm on the timing-mode tiny simulator, blocks of
// 128 edges, from vertex 0 of a 42-vertex graph: 0 -> 1..40 -> 41, every
// edge of weight 1, so the 40 in-edges of the sink 41 share one block.
func sinkRunner(t *testing.T, algorithm string) func(variant string) *Result {
	t.Helper()
	l := &graph.EdgeList{NumVertices: 42}
	for v := uint32(1); v <= 40; v++ {
		l.Src, l.Dst, l.Weights = append(l.Src, 0, v), append(l.Dst, v, 41), append(l.Weights, 1, 1)
	}
	g, err := graph.Build(l, graph.BuildOptions{})
	require.NoError(t, err)
	g.Directed = true
	dev, err := sim.Open("tiny", sim.WithMode(sim.ModeTiming))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Close() })
	a, err := LookupAlgorithm(algorithm)
	require.NoError(t, err)
	return func(variant string) *Result {
		v, err := ParseVariant(variant)
		require.NoError(t, err)
		res, err := Enact(context.Background(), dev, a, v, g, a.Select(Params{"source": 0}), RunOptions{Block: 128})
		require.NoError(t, err)
		require.True(t, res.Validation.OK(), res.Validation.String())
		return res
	}
}

func TestEdgeSupports(t *testing.T) {
	v, err := ParseVariant("edge")
	require.NoError(t, err)
	for _, name := range []string{"bfs", "sssp", "sswp", "wcc", "pr"} {
		a, err := LookupAlgorithm(name)
		require.NoError(t, err)
		assert.NoError(t, edgeSupports(a, v), name)
	}
	kcore, err := LookupAlgorithm("kcore")
	require.NoError(t, err)
	assert.ErrorContains(t, edgeSupports(kcore, v), "pull members (identity, reduce, combine_pull), which kcore does not have")
	bp, err := LookupAlgorithm("bp")
	require.NoError(t, err)
	assert.ErrorContains(t, Supports(bp, v), "bp runs in the own, classified form(s); edge runs acc")
	_, err = Enact(context.Background(), nil, kcore, v, nil, nil, RunOptions{})
	assert.ErrorContains(t, err, "kcore under edge:cache=shared,census=off: edge combines updates")
}

// PageRank's float sums go through the native atomicAdd (pr_acc's
// reduce_atomic), as WolfGraph's cache does: one lane-operation per
// proposing edge however many edges share the sink. A compare-and-swap
// loop would retry once per competitor: the sink's 40 in-edges alone
// would take up to 40·41/2 = 820 lane-operations per sweep.
func TestEdgeSweepUsesNativeAtomics(t *testing.T) {
	run := sinkRunner(t, "pr")
	shared, global := run("edge"), run("edge:cache=global")
	require.NotEmpty(t, shared.Iterations)
	for i, it := range shared.Iterations {
		assert.Equal(t, 80.0, it.Statistics["shared_atomics"], "sweep %d: one shared atomic per edge", i)
	}
	for i := range global.Iterations {
		// The 80 updates, then at most one counting atomic per warp of the
		// apply phase's 42 vertices and one dangling-sum atomic per warp.
		g, s := global.Iterations[i].Statistics["global_atomics"], 80.0
		assert.True(t, g >= s && g <= s+8, "sweep %d: %v global atomics for 80 updates", i, g)
	}
}
