package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/graph/ref"
	"github.com/warpgraph/warpgraph/scheduler"
)

// The CPU target runs the reference itself, so its validation must be
// independent of the reference's code: path problems are checked by
// certificate (ref.Certify*), colourings by validity, WCC as a partition
// against a union-find count, PageRank by its residual. k-core and belief
// propagation have no cheap certificate and say so.

func init() {
	register(&algorithm{name: "bfs", about: "breadth-first search depths", usesSource: true, cpu: bfsCPU, device: bfsDevice})
	register(&algorithm{name: "sssp", about: "single-source shortest paths (Dijkstra)", usesSource: true, cpu: ssspCPU})
	register(&algorithm{name: "sswp", about: "single-source widest paths", usesSource: true, cpu: sswpCPU})
	register(&algorithm{name: "pr", about: "PageRank, damping 0.85", cpu: pagerankCPU})
	register(&algorithm{name: "wcc", about: "weakly connected components", cpu: wccCPU})
	register(&algorithm{name: "kcore", about: "k-core decomposition", cpu: kcoreCPU})
	register(&algorithm{name: "color", about: "greedy graph colouring", cpu: colorCPU})
	register(&algorithm{name: "bp", about: "loopy belief propagation, 10 iterations", cpu: bpCPU})
}

func summarizeLevels(r *runResult, vals []uint32, unreached uint32, what string) {
	reached, maxVal := 0, uint32(0)
	for _, v := range vals {
		if v != unreached {
			reached++
			if v > maxVal {
				maxVal = v
			}
		}
	}
	r.note("reached", "%d of %d vertices", reached, len(vals))
	r.note(what, "%d", maxVal)
}

func bfsCPU(g *graph.Graph, _ runOptions, src uint32, r *runResult) error {
	d := ref.BFS(g, src)
	summarizeLevels(r, d, ref.Unreached, "max depth")
	r.validate("certificate", ref.CertifyBFS(g, src, d))
	return nil
}

func bfsDevice(ctx context.Context, env *deviceEnv, g *graph.Graph, o runOptions, src uint32, r *runResult) error {
	res, err := scheduler.BFSTopDown(ctx, env.dev, g, src, scheduler.BFSOptions{BlockThreads: o.block})
	if err != nil {
		return err
	}
	r.Iterations = len(res.Levels)
	r.DeviceSeconds = res.Total.Elapsed.Seconds()
	r.Cycles = res.Total.Cycles
	r.Counters = res.Total.Counters
	summarizeLevels(r, res.Depths, ref.Unreached, "max depth")
	r.note("launches", "%d (one per level)", len(res.Levels))
	r.validate("CPU reference", ref.ValidateBFS(g, src, res.Depths))
	return nil
}

func ssspCPU(g *graph.Graph, _ runOptions, src uint32, r *runResult) error {
	d, err := ref.SSSP(g, src)
	if err != nil {
		return err
	}
	summarizeLevels(r, d, ref.Unreached, "max distance")
	if !g.Weighted() {
		r.note("weights", "none: every edge counts 1")
	}
	r.validate("certificate", ref.CertifySSSP(g, src, d))
	return nil
}

func sswpCPU(g *graph.Graph, _ runOptions, src uint32, r *runResult) error {
	w := ref.SSWP(g, src)
	reached, minW := 0, uint32(math.MaxUint32)
	for v, x := range w {
		if x != 0 {
			reached++
			if uint32(v) != src && x < minW {
				minW = x
			}
		}
	}
	r.note("reached", "%d of %d vertices", reached, len(w))
	if reached > 1 {
		r.note("narrowest widest path", "%d", minW)
	}
	r.validate("certificate", ref.CertifySSWP(g, src, w))
	return nil
}

func pagerankCPU(g *graph.Graph, _ runOptions, _ uint32, r *runResult) error {
	ranks, iters := ref.PageRank(g)
	r.Iterations = iters
	best := 0
	sum := 0.0
	for v, x := range ranks {
		sum += x
		if x > ranks[best] {
			best = v
		}
	}
	r.note("top vertex", "%d (rank %.6g)", best, ranks[best])
	r.note("rank sum", "%.12f", sum)
	rep := ref.PageRankResidual(g, ranks)
	r.validate("residual", rep)
	return nil
}

func wccCPU(g *graph.Graph, _ runOptions, _ uint32, r *runResult) error {
	labels := ref.WCC(g)
	sizes := map[uint32]int{}
	largest := 0
	for _, l := range labels {
		sizes[l]++
		largest = max(largest, sizes[l])
	}
	r.note("components", "%d", len(sizes))
	r.note("largest component", "%d vertices", largest)
	r.validate("union-find partition", ref.CertifyWCC(g, labels))
	return nil
}

func kcoreCPU(g *graph.Graph, o runOptions, _ uint32, r *runResult) error {
	start := time.Now()
	cores := ref.KCore(g)
	maxCore := uint32(0)
	for _, c := range cores {
		maxCore = max(maxCore, c)
	}
	members := 0
	for _, in := range ref.KCoreMembers(cores, o.k) {
		if in {
			members++
		}
	}
	r.note("max core number", "%d", maxCore)
	r.note(fmt.Sprintf("%d-core size", o.k), "%d vertices", members)
	r.Validation = validation{OK: true, Method: "none",
		Tolerance: "the CPU reference is the result; no independent certificate for core numbers",
		Detail:    fmt.Sprintf("reference computed in %s", time.Since(start).Round(time.Millisecond))}
	return nil
}

func colorCPU(g *graph.Graph, _ runOptions, _ uint32, r *runResult) error {
	colors := ref.GreedyColoring(g)
	used := uint32(0)
	for _, c := range colors {
		used = max(used, c+1)
	}
	r.note("colours", "%d", used)
	r.validate("validity", ref.ValidateColoring(g, colors))
	return nil
}

func bpCPU(g *graph.Graph, o runOptions, _ uint32, r *runResult) error {
	beliefs := ref.BeliefPropagation(g, o.seed)
	r.Iterations = ref.BPIterations
	mean := 0.0
	for _, b := range beliefs {
		mean += b
	}
	if len(beliefs) > 0 {
		mean /= float64(len(beliefs))
	}
	r.note("mean belief (state 1)", "%.6f", mean)
	r.Validation = validation{OK: true, Method: "none",
		Tolerance: "the CPU reference is the result; no independent certificate for beliefs",
		Detail:    fmt.Sprintf("%d synchronous iterations, priors from seed %d", ref.BPIterations, o.seed)}
	return nil
}
