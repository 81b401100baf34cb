package scheduler

import (
	"fmt"
	"strconv"

	"github.com/warpgraph/warpgraph/kernels"
)

// Two pull-only work mappings (kernels/lib/wseg.cuh): warp segmentation
// (CuSha authors) and its baseline, virtual-warp-centric mapping (Hong et
// al.). Every iteration is one launch that sweeps every vertex, gathering
// over its in-edges through the algorithm's ACC pull members; the run ends
// when a sweep leaves no vertex active (combine_pull's answer), as bsp's
// pull does. They are two schedulers rather than one with a mapping key
// because k means nothing to warp segmentation: a single scheduler would
// register combinations (mapping=wseg,k=4) that name no different run.
func init() {
	RegisterScheduler(&Scheduler{
		Name: "wseg",
		About: "warp segmentation: pull sweeps, a warp per 32 consecutive vertices walking their in-edges 32 at a time, " +
			"each lane binary-searching its edge's vertex, segments reduced with shuffles",
		Supports: pullMappingSupports,
		Prepare:  pullMappingPrepare,
		Run:      pullMappingRun,
		Variants: []string{"wseg"},
	})
	var ks []string
	for k := 2; k <= 32; k *= 2 {
		ks = append(ks, strconv.Itoa(k))
	}
	var variants []string
	for _, k := range ks {
		variants = append(variants, "vwc:k="+k)
	}
	RegisterScheduler(&Scheduler{
		Name:  "vwc",
		About: "virtual-warp-centric: pull sweeps, k lanes per vertex striding over its in-edges, shuffle reduction",
		Keys: []Key{{Name: "k", About: "lanes per vertex (a virtual warp); 32 is a warp per vertex",
			Values: ks, Default: "8"}},
		Supports: pullMappingSupports,
		Prepare:  pullMappingPrepare,
		Run:      pullMappingRun,
		Variants: variants,
		Label:    func(v Variant) string { return "k" + v.Get("k") },
	})
}

func pullMappingSupports(a *Algorithm, v Variant) error { return needsGather(a, v, "pull") }

// pullMappingState holds the sweep's active-vertex counter.
type pullMappingState struct {
	active kernels.DevPtr
}

func pullMappingPrepare(e *Enactment) error {
	if _, err := e.inEdges(); err != nil {
		return err
	}
	e.State = &pullMappingState{active: e.Buffers.Uint32s(1, "active count")}
	return e.Buffers.Err()
}

// lanesPerVertex is how many threads a sweep needs per vertex: one for
// warp segmentation (a warp per 32 vertices), k for virtual warps.
func lanesPerVertex(v Variant) int {
	if v.Scheduler.Name == "vwc" {
		k, _ := strconv.Atoi(v.Get("k")) // ParseVariant allowed only the listed powers of two
		return k
	}
	return 1
}

func pullMappingRun(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	st := e.State.(*pullMappingState)
	in, err := e.inEdges()
	if err != nil {
		return err
	}
	pull, err := e.Kernel("pull")
	if err != nil {
		return err
	}
	grid, err := e.gridStrideGrid(pull, n*lanesPerVertex(e.Variant))
	if err != nil {
		return err
	}
	var total kernels.LaunchStats
	err = e.sweepUntilQuiet(func(it *IterationStats) (int, error) {
		e.Buffers.Zero(st.active, 4, "active count")
		if err := e.Buffers.Err(); err != nil {
			return 0, err
		}
		args := append(e.accArgs(in, it.Iteration), st.active)
		if err := e.launch(it, pull, grid, args...); err != nil {
			return 0, err
		}
		if eff, ok := WarpExecutionEfficiency(it.Stats); ok {
			it.Set("warp_execution_efficiency", eff)
		}
		total.Add(it.Stats)
		return e.readCount(st.active, n, "the active count")
	})
	if err != nil {
		return err
	}
	if eff, ok := WarpExecutionEfficiency(total); ok {
		e.Statistic("warp_execution_efficiency", "warp execution efficiency", eff,
			fmt.Sprintf("%.1f%% of lanes active per warp-instruction, all sweeps", 100*eff))
	} else {
		e.statistics = append(e.statistics, Field{Name: "warp execution efficiency",
			Value: "not measured: the device reports no instruction counters (on hardware it needs a profiler, e.g. Nsight Compute's smsp__thread_inst_executed_per_inst_executed)"})
	}
	return nil
}

// WarpExecutionEfficiency is the launches' active lanes per executed
// warp-instruction over the warp size: thread-instructions / (32 ×
// warp-instructions), exact on the simulator (both modes count them);
// false when the device reports no instruction counters (hardware).
func WarpExecutionEfficiency(s kernels.LaunchStats) (float64, bool) {
	threads, ok1 := s.Counters["thread_instructions"]
	warps, ok2 := s.Counters["warp_instructions"]
	if !ok1 || !ok2 || warps == 0 {
		return 0, false
	}
	return threads / (32 * warps), true
}
