package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/scheduler"
)

// sourceRun is one source's run within --sources K: its figures as numbers
// (results' keys plus the times and cycles of the run) and its verdict.
type sourceRun struct {
	Source     uint32             `json:"source"`
	Figures    map[string]float64 `json:"figures"`
	Validation validation         `json:"validation"`
}

// spread is one statistic over the sources of --sources K.
type spread struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// HarmonicMean is set for rates (gteps), which Graph500 averages so.
	HarmonicMean *float64 `json:"harmonic_mean,omitempty"`
}

// gtepsKey is a traversal's rate as Graph500 defines it: the edges of the
// component it reached (component_edges) per end-to-end second, in
// billions.
const gtepsKey = "gteps"

// pickSources draws k distinct sources uniformly among the vertices with
// at least one out-edge, as Graph500 draws its search keys (a vertex
// without edges makes a search that does nothing), from a PCG seeded with
// seed: the same k sources for a seed on every machine.
func pickSources(g *graph.Graph, k int, seed uint64) ([]uint32, error) {
	var candidates []uint32
	for v := 0; v < g.NumVertices(); v++ {
		if g.Offsets[v+1] > g.Offsets[v] {
			candidates = append(candidates, uint32(v))
		}
	}
	if len(candidates) < k {
		return nil, badInput("--sources %d: the graph has only %d vertices with out-edges to start from", k, len(candidates))
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	// A partial Fisher-Yates shuffle: the first k entries are the draw.
	for i := 0; i < k; i++ {
		j := i + rng.IntN(len(candidates)-i)
		candidates[i], candidates[j] = candidates[j], candidates[i]
	}
	return candidates[:k], nil
}

// runSources runs the algorithm from each of o.sources random sources on
// the loaded graph and device, and gathers every source's figures and
// their mean, median, min and max. The run passes when every source does.
func runSources(ctx context.Context, a *scheduler.Algorithm, plan *scheduler.Plan, env *deviceEnv, o runOptions, given scheduler.Params, g *graph.Graph, parsed graph.Spec, took time.Duration) (*runResult, error) {
	seed, err := o.sourcesSeed()
	if err != nil {
		return nil, err
	}
	sources, err := pickSources(g, o.sources, seed)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var agg *runResult
	failed := 0
	var firstFailure string
	for _, s := range sources {
		one := maps.Clone(given)
		one[scheduler.SourceParam] = s
		r, err := runLoaded(ctx, a, plan, env, o, one, g, parsed, took)
		if err != nil {
			return nil, fmt.Errorf("source %d: %w", s, err)
		}
		if agg == nil {
			copied := *r
			agg = &copied
			agg.Source, agg.Summary, agg.Notes, agg.Counters, agg.PerIteration, agg.values = nil, nil, r.Notes, nil, nil, nil
			agg.EndToEndSeconds, agg.KernelSeconds, agg.RunsEndToEndSeconds, agg.Cycles, agg.Iterations, agg.Launches = 0, 0, nil, 0, 0, 0
		}
		figures := map[string]float64{"host_seconds": r.HostSeconds}
		if env.timed() {
			figures["end_to_end_seconds"], figures["kernel_seconds"] = r.EndToEndSeconds, r.KernelSeconds
		}
		if r.Cycles > 0 {
			figures["cycles"] = float64(r.Cycles)
		}
		if r.Iterations > 0 {
			figures["iterations"] = float64(r.Iterations)
		}
		for _, f := range r.Summary {
			if f.Key != "" && f.Number != nil {
				figures[f.Key] = *f.Number
			}
		}
		if r.values != nil {
			if edges, ok := scheduler.ComponentEdges(g, *r.values); ok {
				figures["component_edges"] = edges
				if env.timed() && r.EndToEndSeconds > 0 {
					figures[gtepsKey] = edges / r.EndToEndSeconds / 1e9
				}
			}
		}
		agg.PerSource = append(agg.PerSource, sourceRun{Source: s, Figures: figures, Validation: r.Validation})
		if !r.Validation.OK {
			failed++
			if firstFailure == "" {
				firstFailure = fmt.Sprintf("source %d: %s", s, r.Validation.Detail)
			}
		}
	}
	agg.Sources = sources
	agg.Sampling = env.sampling()
	agg.SourcesSeed = &seed
	agg.HostSeconds = time.Since(start).Seconds()
	agg.SourceStats = map[string]spread{}
	for _, key := range figureKeys(agg.PerSource) {
		var xs []float64
		for _, p := range agg.PerSource {
			if x, ok := p.Figures[key]; ok {
				xs = append(xs, x)
			}
		}
		st := spreadOf(xs)
		if key == gtepsKey {
			h := harmonicMean(xs)
			st.HarmonicMean = &h
		}
		agg.SourceStats[key] = st
	}
	v := agg.PerSource[0].Validation
	agg.Validation = validation{OK: failed == 0, Checked: v.Checked, Method: v.Method, Tolerance: v.Tolerance,
		Detail: fmt.Sprintf("%d of %d sources passed", len(sources)-failed, len(sources))}
	if firstFailure != "" {
		agg.Validation.Detail += "; first failure: " + firstFailure
	}
	return agg, nil
}

// figureKeys lists every figure any source reported, sorted.
func figureKeys(runs []sourceRun) []string {
	var keys []string
	for _, p := range runs {
		for k := range p.Figures {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// spreadOf is the mean, median (the mean of the middle two for an even
// count), min and max of xs, which is not empty.
func spreadOf(xs []float64) spread {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	sum := 0.0
	for _, x := range sorted {
		sum += x
	}
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return spread{Mean: sum / float64(n), Median: median, Min: sorted[0], Max: sorted[n-1]}
}

// harmonicMean is n ÷ Σ 1/x over xs, which are positive.
func harmonicMean(xs []float64) float64 {
	inv := 0.0
	for _, x := range xs {
		inv += 1 / x
	}
	return float64(len(xs)) / inv
}

// writeSourceTables prints one row per source and the spread of every
// figure over them.
func writeSourceTables(w io.Writer, r *runResult) error {
	keys := figureKeys(r.PerSource)
	fmt.Fprintln(w)
	per := &table{}
	header := []any{"source"}
	for _, k := range keys {
		header = append(header, strings.ReplaceAll(k, "_", " "))
	}
	per.add(append(header, "validation")...)
	for _, p := range r.PerSource {
		cells := []any{p.Source}
		for _, k := range keys {
			if x, ok := p.Figures[k]; ok {
				cells = append(cells, formatFigure(k, x))
			} else {
				cells = append(cells, "-")
			}
		}
		verdict := "PASS"
		if !p.Validation.OK {
			verdict = "FAIL"
		}
		per.add(append(cells, verdict)...)
	}
	if err := per.write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	st := &table{}
	st.add(fmt.Sprintf("over %d sources", len(r.PerSource)), "mean", "median", "min", "max")
	for _, k := range keys {
		s := r.SourceStats[k]
		st.add(strings.ReplaceAll(k, "_", " "), formatFigure(k, s.Mean), formatFigure(k, s.Median), formatFigure(k, s.Min), formatFigure(k, s.Max))
	}
	if err := st.write(w); err != nil {
		return err
	}
	if s, ok := r.SourceStats[gtepsKey]; ok && s.HarmonicMean != nil {
		_, err := fmt.Fprintf(w, "\nGTEPS, harmonic mean over %d sources (Graph500: component edges ÷ end-to-end seconds): %.6g\n", len(r.PerSource), *s.HarmonicMean)
		return err
	}
	return nil
}

// formatFigure prints seconds as durations and other figures as numbers.
func formatFigure(key string, x float64) string {
	if strings.HasSuffix(key, "_seconds") {
		return seconds(x)
	}
	return fmt.Sprintf("%.6g", x)
}
