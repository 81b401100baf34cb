package experiments

func init() { Default.Register(simhwScaleExperiment()) }

// simhwScaleGraphs are simhw's four families at the hardware's sizes:
// 2^18 and 2^20 vertices (the grids 512² and 1000²), at simhw's densities,
// so that the arrays outgrow the H100's 50 MB L2.
var simhwScaleGraphs = []namedGraph{
	{"rmat18", "rmat:scale=18+perm=1"},
	{"grid512", "grid:w=512,h=512"},
	{"er18", "er:n=262144,m=2097152"},
	{"regular18", "regular:n=262144,d=8"},
	{"rmat20", "rmat:scale=20+perm=1"},
	{"grid1000", "grid:w=1000,h=1000"},
	{"er20", "er:n=1048576,m=8388608"},
	{"regular20", "regular:n=1048576,d=8"},
}

// simhwScaleExperiment is simhw at the hardware's scale: every registered
// cell on the eight graphs, traversals from zeroOrMaxSource (vertex 0, the
// anchor cells' source, where it has out-edges). Its hardware half
// runs every cell; the simulated half runs the cells chosen from it
// (--points), since a cell there takes minutes on a many-core host.
func simhwScaleExperiment() *Experiment {
	e := simhwExperiment()
	e.Name = "simhw-scale"
	e.About = "The simulator-vs-hardware cross-check where the data outgrow the L2: simhw's cells on its four graph " +
		"families at 2^18 and 2^20 vertices, traversals from vertex 0 (where it has edges), in timing mode on the h100 configuration and on the GPU, " +
		"each run validated against the CPU reference. Measure the hardware half first and simulate the cells picked from it " +
		"(--points); `warpgraph sweep crosscheck` joins the two halves."
	withCells(e, simhwScaleGraphs, zeroOrMaxSource)
	e.Notes = []string{
		"Traversals start from vertex 0 where it has out-edges, as the anchor cells do, else from the vertex of maximum out-degree (rmat18's vertex 0 is isolated); k-core's k is ref.DefaultK, and every run is validated against graph/ref.",
		"On the simulator a point is one deterministic run; on the GPU it is the median of the timed whole runs after the warm-up ones.",
		"Each graph is generated once per sweep process and shared by its cells.",
	}
	return e
}
