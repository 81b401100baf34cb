package experiments

import (
	"context"
	"fmt"
)

func init() { Default.Register(schedulersExperiment()) }

// schedulersExperiment is every registered cell at the sizes the scheduler
// issues measure (R-MAT scale 20 and the 1000×1000 grid on the GPU; scale
// 16 and 256×256 in simulation): one scheduler's study is this sweep with
// --points naming its variants, so the SIMD-X, Atos, edge, warp
// segmentation and queue tables all come from one experiment.
func schedulersExperiment() *Experiment {
	return &Experiment{
		Name: "schedulers",
		About: "Every registered (algorithm, scheduler variant) cell on a scale-free graph and a mesh at the scheduler " +
			"issues' sizes, validated against the CPU reference: a scheduler's study is this sweep restricted with " +
			"--points (e.g. `--points 'variant=simdx*|bsp'` for SIMD-X's filters, directions, fusion and barriers, " +
			"`--points 'variant=atos*|bsp'` for Atos's workers, modes and fetch sizes).",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"h100"},
		Axes: []Axis{
			{Name: "graph", About: "rmat or grid; the specs are the rmat_spec and grid_spec parameters", Values: []string{"rmat", "grid"}},
			{Name: "algorithm", About: "registered algorithm with GPU kernels"},
			{Name: "variant", About: "scheduler variant (NAME or NAME:key=value,...)"},
		},
		Points: func(string, string) [][]string {
			return cellPoints([]namedGraph{{name: "rmat"}, {name: "grid"}})
		},
		Params: append([]Param{
			{Name: "rmat_spec", About: "the scale-free graph: a spec or a file (a .wgc made once by `warpgraph convert` saves generating it per point)", Default: byTarget("rmat:scale=20+perm=1", "rmat:scale=16+perm=1")},
			{Name: "grid_spec", About: "the mesh: a spec or a file", Default: byTarget("grid:w=1000,h=1000", "grid:w=256,h=256")},
			{Name: "start", About: "source of BFS, SSSP and SSWP: a vertex, or max for the vertex of maximum out-degree (the issues' GPU figures use 0; vertex 0 of rmat:scale=16+perm=1 is isolated)", Default: byTarget("0", "max")},
			{Name: "grid", About: "CTAs of grid-stride and persistent phases (0: the scheduler's choice, as many as can be co-resident)", Default: byTarget("0", "0")},
		}, wholeRunParams("threads per CTA", "2", "10")...),
		Stats: cellStats,
		Run:   gridCellRunner("schedulers"),
		Table: []string{"config", "graph", "algorithm", "variant", "iterations", "launches", "kernel_us", "end_to_end_us", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return plotCells(rows, dir, "schedulers")
		},
		Findings:   cellFindings,
		CrossCheck: cellCrossCheck(),
		Notes: []string{
			"On the GPU a point is the median of `repeat` whole runs after `warmup` (end-to-end time as Gunrock reports it, with kernel-only time beside it); on the simulator one deterministic run.",
			"Every run is validated against graph/ref; k-core's k is ref.DefaultK.",
		},
	}
}

// gridCellRunner runs a point that is one registered cell's whole run on
// the graph its axis names through NAME_spec, from the start parameter's
// source, with the grid parameter's CTAs.
func gridCellRunner(experiment string) func(context.Context, *Env, Point) (Outcome, error) {
	return func(ctx context.Context, env *Env, p Point) (Outcome, error) {
		c, source, err := startSpecCell(experiment, "start", p)
		if err != nil {
			return Outcome{}, err
		}
		if c.ro.Grid, err = p.Int("grid"); err != nil || c.ro.Grid < 0 {
			return Outcome{}, fmt.Errorf("%s: grid %q: want 0 (the scheduler's choice) or a CTA count", experiment, p.Get("grid"))
		}
		return enactCell(ctx, env, c, source)
	}
}
