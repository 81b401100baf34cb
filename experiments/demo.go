package experiments

import (
	"fmt"
	"time"
)

// Demo is the main job (`warpgraph demo`, which `make run` runs): graphs,
// the algorithms run on the CPU reference on each, and the algorithm
// simulated under several scheduler variants, every result validated,
// with the prose that introduces and explains the tables. The command
// line only runs and prints it.
type Demo struct {
	// Intro is printed first: what the job shows.
	Intro string
	// Graphs are the graphs' specifications, generated once.
	Graphs []string
	// CPUHeading introduces the table of CPU, the algorithms run on the
	// CPU reference on every graph.
	CPUHeading string
	CPU        []string
	// SimHeading introduces the table of Runs: Algorithm on the simulated
	// Config in SimMode, each run within Timeout.
	SimHeading      string
	Algorithm       string
	Config, SimMode string
	Timeout         time.Duration
	Runs            []DemoRun
	// Reading says how to read the simulator's table.
	Reading string
}

// DemoRun is one simulated run of the main job.
type DemoRun struct {
	// Graph is one of the plan's Graphs.
	Graph string
	// Variant is a scheduler variant (scheduler.ParseVariant).
	Variant string
	// Grid is the CTAs of grid-stride and persistent phases (0: as many
	// as can be co-resident).
	Grid int
}

// DemoPlan is the main job: BFS and SSSP on the CPU, and BFS on a
// simulated H100 in timing mode, on a scale-free R-MAT and a
// high-diameter grid, the two shapes the sources contrast.
func DemoPlan() Demo {
	const config = "h100"
	rmat, grid := "rmat:scale=14", "grid:w=128,h=128"
	return Demo{
		Intro: "warpgraph main job: BFS on a scale-free and a high-diameter graph, on the CPU reference and on a\n" +
			fmt.Sprintf("cycle-level simulated %s, running the same PTX the GPU runs; every result is validated.\n", config),
		Graphs:     []string{rmat, grid},
		CPUHeading: "CPU reference (validated by certificate: every edge relaxed, every value reached along tight edges):",
		CPU:        []string{"bfs", "sssp"},
		SimHeading: fmt.Sprintf("BFS on the simulated %s, timing mode, under bsp (one launch per level) and SIMD-X (host-driven: degree\n", config) +
			"classes, JIT filter, push/pull), each validated exactly against the CPU reference:",
		Algorithm: "bfs",
		Config:    config,
		SimMode:   "timing",
		Timeout:   5 * time.Minute,
		// SIMD-X runs on the R-MAT only: on the grid its 253 levels of
		// co-resident-grid phases would take minutes to simulate.
		// Atos's persistent workers run on the grid, where they replace
		// its hundreds of tiny launches with one; 132 CTAs (one per SM)
		// keep the simulation of their polling short.
		Runs: []DemoRun{{rmat, "bsp", 0}, {rmat, "simdx", 0}, {grid, "bsp", 0}, {grid, "atos:local=on", 132}},
		Reading: `
Reading it: the grid's hundreds of tiny frontiers leave the GPU idle (low occupancy and IPC), the
small-frontier problem that Atos's persistent workers attack (one launch, a task queue, no level
barrier; a vertex may be processed twice: the overwork in its summary), as SIMD-X's fused kernels
do; on the R-MAT bsp's warps walk a hub's thousands of neighbours in lock step (low warp
efficiency), which SIMD-X's degree classes and pulls avoid. End-to-end time adds the launch and
read-back overheads measured on the H100 (sim/configs/h100.yaml, host:) to the kernels' simulated
time. bsp's BFS uses no shared memory, so it has no bank conflicts; its atomics rarely meet on one
address. DRAM bytes written count the sectors each launch left dirty in the write-back L2 (evicted
or not), and a store that misses L2 does not read its line from DRAM. See
` + "`warpgraph micro bank_stride|atomic_contention --target sim`" + ` for conflict and contention studies.
`,
	}
}
