package scheduler

import (
	"fmt"
	"slices"

	"github.com/warpgraph/warpgraph/kernels"
)

// The forest scheduler runs the Forest form: connected components as a
// forest of parent pointers (the idea of Afforest, Sutton et al.). Each
// vertex is first linked to a few of its neighbours (a launch per
// neighbour number, `sample` of them, each followed by a compression of
// the trees by pointer jumping); a sample of vertices then names the root of the
// largest component, whose vertices skip the rest of their edges (their
// edges to other components are linked from the other side, the graph
// being symmetric); every other vertex links its remaining edges, and a
// last compression points every vertex at its root. Linking hooks the
// larger root under the smaller with a compare-and-swap, so no edge is
// visited twice and no round waits for a label to travel across the
// graph, as label propagation's rounds do.
func init() {
	RegisterScheduler(&Scheduler{
		Name: "afforest",
		About: "connected components as a forest of parent pointers: link each vertex to a sample of its neighbours, " +
			"compress, then link the other edges of the vertices outside the largest sampled component",
		Keys: []Key{
			{Name: "sample", About: "neighbours (in CSR order) each vertex links to before the largest component is sampled",
				Default: "2", Range: &KeyRange{Min: 0, Max: 16, Whole: true}},
			{Name: "skip", About: "on: the vertices of the largest sampled component skip their other edges; off: every vertex links every edge",
				Values: []string{"on", "off"}, Default: "on"},
		},
		Forms:    []Form{Forest},
		Supports: func(a *Algorithm, _ Variant) error { _, err := forestEntries(a); return err },
		Prepare:  forestPrepare,
		Run:      forestRun,
		Variants: []string{"afforest", "afforest:skip=off", "afforest:sample=0"},
	})
}

// forestPhases are the Forest form's entries, <kernel>_afforest_<phase>.
var forestPhases = []string{"link_round", "compress", "sample", "link_rest"}

// forestEntries looks up a's Forest entries by phase, naming the first
// one the kernel catalog lacks.
func forestEntries(a *Algorithm) (map[string]*kernels.Kernel, error) {
	out := make(map[string]*kernels.Kernel, len(forestPhases))
	for _, phase := range forestPhases {
		k, err := kernels.Lookup(a.Kernel + "_afforest_" + phase)
		if err != nil {
			return nil, fmt.Errorf("%s has no entry %s_afforest_%s for afforest", a.Name, a.Kernel, phase)
		}
		out[phase] = k
	}
	return out, nil
}

// forestSamples is how many vertices' roots name the largest component.
const forestSamples = 1024

// forestState holds the sampled roots.
type forestState struct {
	roots kernels.DevPtr
}

func forestPrepare(e *Enactment) error {
	e.State = &forestState{roots: e.Buffers.Uint32s(forestSamples, "sampled roots")}
	return e.Buffers.Err()
}

// noSkip is link_rest's skip when no component is skipped.
const noSkip = 0xFFFFFFFF

func forestRun(e *Enactment) error {
	n := e.Problem.Graph.NumVertices()
	if n == 0 {
		return nil
	}
	entries, err := forestEntries(e.Algorithm)
	if err != nil {
		return err
	}
	linkRound, compress, sample, linkRest := entries["link_round"], entries["compress"], entries["sample"], entries["link_rest"]
	block := e.Options.Block
	perVertex := (n + block - 1) / block
	rounds := e.Variant.Int("sample")

	// An iteration per launch, so that each phase's time shows: a link
	// per neighbour number, each followed by a compression, so that the
	// next round's links climb short paths; the sample; the other edges;
	// the last compression.
	iteration := 0
	step := func(phase string, k *kernels.Kernel, grid int, args ...any) error {
		it := IterationStats{Iteration: iteration, Phases: phase, Direction: "push", FrontierIn: n}
		if err := e.launch(&it, k, grid, args...); err != nil {
			return err
		}
		e.record(it)
		iteration++
		return nil
	}
	for r := range rounds {
		if err := step(fmt.Sprintf("link %d", r), linkRound, perVertex, e.accArgs(e.out, r)...); err != nil {
			return err
		}
		if err := step("compress", compress, perVertex, e.accArgs(e.out, 0)...); err != nil {
			return err
		}
	}
	skip := uint32(noSkip)
	if rounds > 0 && e.Variant.Get("skip") == "on" {
		st := e.State.(*forestState)
		if err := step("sample", sample, (forestSamples+block-1)/block, append(e.accArgs(e.out, 0), st.roots, uint32(forestSamples))...); err != nil {
			return err
		}
		var err error
		if skip, err = e.largestSampledRoot(st.roots); err != nil {
			return err
		}
	}
	warps := (n*32 + block - 1) / block
	if err := step("link rest", linkRest, warps, append(e.accArgs(e.out, rounds), skip)...); err != nil {
		return err
	}
	if err := step("compress", compress, perVertex, e.accArgs(e.out, 0)...); err != nil {
		return err
	}
	if skip != noSkip {
		e.Statistic("skipped_root", "largest sampled component", float64(skip), fmt.Sprintf("rooted at %d, its vertices skip their other edges", skip))
	}
	return nil
}

// largestSampledRoot downloads the sampled roots and returns the most
// frequent (the smallest of those tied).
func (e *Enactment) largestSampledRoot(roots kernels.DevPtr) (uint32, error) {
	vals := make([]uint32, forestSamples)
	if err := kernels.Download(e.Dev, vals, roots); err != nil {
		return 0, fmt.Errorf("the sampled roots: %w", err)
	}
	slices.Sort(vals)
	best, bestCount := vals[0], 0
	for i := 0; i < len(vals); {
		j := i
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		if j-i > bestCount {
			best, bestCount = vals[i], j-i
		}
		i = j
	}
	return best, nil
}
