package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/experiments"
	"github.com/warpgraph/warpgraph/kernels"
	"github.com/warpgraph/warpgraph/scheduler"
)

// execute runs the command line in-process and returns its output and the
// exit status main would use.
func execute(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		return out.String(), exitStatus(err), err
	}
	return out.String(), 0, nil
}

func TestBadInputExitsWithStatus2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.mtx")
	tests := []struct {
		name    string
		args    []string
		mention string
	}{
		{"missing file", []string{"info", "--graph", missing}, "nope.mtx"},
		{"unknown generator", []string{"info", "--graph", "rmta:scale=3"}, "unknown generator"},
		{"bad generator key", []string{"info", "--graph", "rmat:scale=3,bogus=1"}, "bogus"},
		{"no graph", []string{"info"}, "--graph is required"},
		{"unknown algorithm", []string{"run", "--algo", "dfs", "--graph", "grid:w=2,h=2"}, "unknown algorithm"},
		{"unknown target", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "fpga"}, "unknown target"},
		{"source out of range", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--source", "4"}, "--source 4 is not a vertex"},
		{"scheduler without the algorithm's entries", []string{"run", "--algo", "color", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx"}, "color runs in the tasks, own form(s); simdx runs pull-then-push, classified, acc"},
		{"queue capacity off atos", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "bsp:capacity=64"}, `scheduler bsp has no key "capacity"`},
		{"negative queue capacity", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:capacity=-1"}, "use a whole number in [0, 4294967295]"},
		{"negative source", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--source", "-5"}, `--source "-5" is not a whole number`},
		{"source without a source", []string{"run", "--algo", "pr", "--graph", "grid:w=2,h=2", "--source", "1"}, "--source applies only to bfs, sssp, sswp"},
		{"k for bfs", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--k", "3"}, "--k applies only to kcore"},
		{"delta for bfs", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--delta", "3"}, "--delta applies only to sssp"},
		{"delta on the CPU reference", []string{"run", "--algo", "sssp", "--graph", "grid:w=2,h=2", "--delta", "3"}, "--delta applies to device runs"},
		{"delta under hq", []string{"run", "--algo", "sssp", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "hq", "--delta", "3"}, "--delta 3: hq has no delta-stepping buckets"},
		{"delta under edge", []string{"run", "--algo", "sssp", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "edge", "--delta", "3"}, "edge has no delta-stepping buckets"},
		{"coreness under hq", []string{"run", "--algo", "coreness", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "hq"}, "coreness needs delta-stepping buckets"},
		{"gpus zero", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--gpus", "0"}, "--gpus 0: give one device or more"},
		{"gpus past the send mask", []string{"run", "--algo", "bfs", "--graph", "grid:w=8,h=8", "--target", "sim", "--gpus", "33", "--scheduler", "mgpu"}, "--gpus 33: at most 32 devices"},
		{"gpus on the CPU reference", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--gpus", "2"}, "not to the CPU reference"},
		{"gpus under bsp", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--config", "tiny-x4", "--gpus", "2"}, "bsp has no partitioned graphs"},
		{"gpus beyond the configuration", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--config", "tiny-x4", "--gpus", "8", "--scheduler", "mgpu"}, "tiny-x4"},
		{"gpus on a one-GPU configuration", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--config", "tiny", "--gpus", "2", "--scheduler", "mgpu"}, "tiny"},
		{"gpus beyond the vertices", []string{"run", "--algo", "bfs", "--graph", "grid:w=1,h=3", "--target", "sim", "--config", "tiny-x4", "--gpus", "4", "--scheduler", "mgpu"}, "--gpus 4: the graph has 3 vertices"},
		{"partition without gpus", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--partition", "hash"}, "--partition applies with --gpus"},
		{"unknown partition", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--config", "tiny-x4", "--gpus", "2", "--scheduler", "mgpu", "--partition", "metis"}, `--partition "metis"`},
		{"devices not ordinals", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "hw", "--devices", "0,gpu1", "--scheduler", "mgpu"}, `"gpu1" is not a device ordinal`},
		{"devices on the simulator", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--devices", "0,0"}, "--devices applies to --target hw"},
		{"mgpu without a partitioned form", []string{"run", "--algo", "kcore", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "mgpu"}, "kcore has no partitioned form"},
		{"k not a number", []string{"run", "--algo", "kcore", "--graph", "grid:w=2,h=2", "--k", "2.5"}, `--k "2.5" is not a whole number`},
		{"block not a warp multiple", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--block", "100"}, "--block 100"},
		{"block zero", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--block", "0"}, "--block 0"},
		{"repeat zero", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--repeat", "0"}, "--repeat 0"},
		{"negative warmup", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--warmup", "-1"}, "--warmup -1"},
		{"scheduler on cpu", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--scheduler", "bsp"}, "applies to device runs"},
		{"bounds check on the CPU reference", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--sim-check-bounds"}, "--sim-check-bounds checks the simulator's accesses"},
		{"unknown scheduler", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "nosuch"}, "unknown scheduler"},
		{"bin size for bsp", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "bsp:bin=16"}, `scheduler bsp has no key "bin"`},
		{"zero bin size", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx:bin=0"}, "use a whole number in [1, 65536]"},
		{"medium above large", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx:medium=300"}, "medium=300 and large=256"},
		{"backoff above nanosleep's limit", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:backoff=2000000"}, "use a whole number in [0, 1000000]"},
		{"backoff for discrete workers", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:mode=discrete,backoff=64"}, "backoff=64 is for persistent workers"},
		{"backoff doubled past nanosleep's limit", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:backoff=200000,backoff_doublings=3"}, "backoff=200000 doubled 3 times sleeps 1600000 ns"},
		{"backoff doublings for discrete workers", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:mode=discrete,backoff_doublings=1"}, "backoff_doublings=1 is for persistent workers"},
		{"backoff doublings out of range", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:backoff_doublings=11"}, "use a whole number in [0, 10]"},
		{"pull fraction for atos bfs", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "atos:pull=0.5"}, "atos pulls only in an aggregation's prelude"},
		{"pull fraction above 1", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx:pull=2"}, "use a number in (0, 1]"},
		{"pull fraction NaN", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx:pull=NaN"}, "use a number in (0, 1]"},
		{"w-queues above 32", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "hq:queues=33"}, "use a whole number in [1, 32]"},
		{"fused simdx cannot run pr", []string{"run", "--algo", "pr", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "simdx:fusion=all"}, "cannot run pr"},
		{"unbounded spin on hardware", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "hw", "--scheduler", "simdx:fusion=all", "--spin-budget", "0"}, "hang the GPU"},
		{"negative spin budget", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--spin-budget", "-7"}, "--spin-budget -7"},
		{"micro negative elements", []string{"micro", "stream", "--target", "sim", "--elements", "-5"}, "--elements -5"},
		{"micro negative reps", []string{"micro", "stream", "--target", "sim", "--reps", "-1"}, "--reps -1"},
		{"micro negative spin budget", []string{"micro", "global_barrier", "--target", "sim", "--spin-budget", "-7"}, "--spin-budget -7"},
		{"micro no timed launch", []string{"micro", "stream", "--target", "sim", "--repeat", "0"}, "--repeat 0"},
		{"micro negative iterations", []string{"micro", "launch_overhead", "--target", "sim", "--iterations", "-3"}, "--iterations -3"},
		{"micro negative ctas", []string{"micro", "atomic_contention", "--target", "sim", "--ctas", "-2"}, "--ctas -2 is negative"},
		{"micro loaded ctas past the SMs", []string{"micro", "loaded_latency", "--target", "sim", "--config", "tiny", "--ctas", "500"}, "at most one CTA per SM"},
		{"micro shared_add reps past exact floats", []string{"micro", "shared_add", "--target", "sim", "--config", "tiny", "--reps", "100000"}, "exact as a float"},
		{"micro gpus outside peer_copy", []string{"micro", "stream", "--target", "sim", "--gpus", "2"}, "--gpus applies to peer_copy and peer_latency only"},
		{"vr-put in sampled mode", []string{"run", "--algo", "bfs", "--graph", "rmat:scale=6", "--target", "sim", "--config", "tiny-x4", "--gpus", "2", "--scheduler", "mgpu:exchange=vr-put", "--sim-mode", "sampled"}, "sampled mode does not simulate"},
		{"micro peer_latency on one device", []string{"micro", "peer_latency", "--target", "sim", "--config", "tiny-x4", "--gpus", "1"}, "peer_latency needs two devices"},
		{"micro peer_copy on one device", []string{"micro", "peer_copy", "--target", "sim", "--config", "tiny-x4", "--gpus", "1"}, "peer_copy needs two devices"},
		{"micro peer_copy past the configuration", []string{"micro", "peer_copy", "--target", "sim", "--config", "tiny-x4", "--gpus", "5"}, "at most 4 GPUs"},
		{"micro unknown benchmark", []string{"micro", "nosuch", "--target", "sim"}, "unknown microbenchmark \"nosuch\""},
		{"micro unknown barrier", []string{"micro", "barriers", "--target", "sim", "--config", "tiny", "--barrier", "nosuch"}, "unknown barrier \"nosuch\""},
		{"micro negative grid", []string{"micro", "barriers", "--target", "sim", "--config", "tiny", "--grids", "-1"}, "--grids -1"},
		{"unknown scheduler key", []string{"run", "--algo", "bfs", "--graph", "grid:w=2,h=2", "--target", "sim", "--scheduler", "bsp:filter=jit"}, "has no key"},
		{"unknown flag", []string{"info", "--grpah", "x"}, "unknown flag"},
		{"convert needs .wgc", []string{"convert", "--graph", "grid:w=2,h=2", "--out", "x.bin"}, ".wgc"},
		{"convert into a missing folder", []string{"convert", "--graph", "grid:w=2,h=2", "--out", filepath.Join("no-such-folder", "x.wgc")}, "--out: cannot write to no-such-folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, status, err := execute(t, tc.args...)
			require.Error(t, err)
			assert.Equal(t, exitBadInput, status, "error: %v", err)
			assert.Contains(t, err.Error(), tc.mention)
			assert.NotContains(t, err.Error(), "\n", "bad input gets one line")
		})
	}
}

func TestMalformedFileIsBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.gr")
	require.NoError(t, os.WriteFile(path, []byte("p sp 2 1\na 1 2 -3\n"), 0o644))
	_, status, err := execute(t, "info", "--graph", path)
	require.Error(t, err)
	assert.Equal(t, exitBadInput, status)
	assert.Contains(t, err.Error(), "bad.gr:2")
}

func TestRunEveryAlgorithmOnCPUValidates(t *testing.T) {
	for _, algo := range scheduler.AlgorithmNames() {
		t.Run(algo, func(t *testing.T) {
			out, status, err := execute(t, "run", "--algo", algo, "--graph", "rmat:scale=8", "--json")
			require.NoError(t, err, out)
			require.Equal(t, 0, status)
			var res runResult
			require.NoError(t, json.Unmarshal([]byte(out), &res))
			assert.Equal(t, algo, res.Algorithm)
			assert.Equal(t, "cpu", res.Target)
			assert.Equal(t, 256, res.Vertices)
			assert.True(t, res.Validation.OK, res.Validation.Detail)
			assert.NotEmpty(t, res.Summary)
		})
	}
}

func TestRunTableNamesSourceAndVerdict(t *testing.T) {
	out, _, err := execute(t, "run", "--algo", "sssp", "--graph", "grid:w=8,h=8", "--source", "9")
	require.NoError(t, err)
	assert.Contains(t, out, "source           9")
	assert.Contains(t, out, "max distance")
	assert.Contains(t, out, "PASS (certificate)")
}

func TestConvertThenInfoRoundTrips(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.wgc")
	_, _, err := execute(t, "convert", "--graph", "er:n=100,m=300,seed=4", "--out", path)
	require.NoError(t, err)
	out, _, err := execute(t, "info", "--graph", path, "--json")
	require.NoError(t, err)
	var info infoOutput
	require.NoError(t, json.Unmarshal([]byte(out), &info))
	assert.Equal(t, 100, info.Stats.Vertices)
	assert.Equal(t, 600, info.Stats.Edges, "300 undirected edges stored both ways")
}

// info --json and run --json name the graph, its size and the load time
// with the same keys, in the same units (seconds as numbers).
func TestInfoAndRunJSONShareKeys(t *testing.T) {
	const spec = "er:n=100,m=300,seed=4"
	decode := func(args ...string) map[string]any {
		out, _, err := execute(t, args...)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m), out)
		return m
	}
	info := decode("info", "--graph", spec, "--json")
	run := decode("run", "--algo", "bfs", "--graph", spec, "--json")
	for _, key := range []string{"graph", "vertices", "edges"} {
		assert.Equal(t, run[key], info[key], key)
		assert.NotNil(t, info[key], key)
	}
	for _, m := range []map[string]any{info, run} {
		assert.IsType(t, 0.0, m["load_seconds"], "load_seconds is a number of seconds")
	}
	assert.NotContains(t, info, "load_time")
	assert.EqualValues(t, 0, info["self_loops"])
	assert.EqualValues(t, 0, info["duplicate_edges"])
}

func TestDemoValidatesBothGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("the main job takes a few seconds")
	}
	out, _, err := execute(t, "demo")
	require.NoError(t, err)
	// The CPU algorithms per graph, and one validated simulator row
	// holding a column per run.
	plan := experiments.DemoPlan()
	assert.Equal(t, len(plan.CPU)*len(plan.Graphs)+len(plan.Runs), strings.Count(out, "PASS"), "CPU runs per graph, a simulator column per run")
	for _, run := range plan.Runs {
		assert.Contains(t, out, run.Graph+" "+run.Variant)
	}
	assert.NotContains(t, out, "FAIL")
	for _, label := range []string{"cycles", "warp execution efficiency", "bank conflicts", "worst global same-address serialisation"} {
		assert.Contains(t, out, label)
	}
}

// Every GPU algorithm runs through the registry on the functional
// simulator from the command line, repeated, with its per-iteration table.
func TestRunEveryGPUAlgorithmOnTheSimulator(t *testing.T) {
	for _, entry := range scheduler.Entries() {
		algo := entry.Algorithm.Name
		t.Run(algo+"/"+entry.Variant.String(), func(t *testing.T) {
			out, status, err := execute(t, "run", "--algo", algo, "--graph", "rmat:scale=7+perm=1", "--target", "sim",
				"--sim-mode", "functional", "--config", "tiny", "--scheduler", entry.Variant.String(),
				"--warmup", "1", "--repeat", "2", "--block", "64", "--json")
			require.NoError(t, err, out)
			require.Equal(t, 0, status)
			var res runResult
			require.NoError(t, json.Unmarshal([]byte(out), &res))
			assert.Equal(t, entry.Variant.String(), res.Scheduler)
			assert.True(t, res.Validation.OK, res.Validation.Detail)
			assert.True(t, res.Validation.Checked)
			assert.Equal(t, 2, res.Repeat)
			assert.Empty(t, res.RunsEndToEndSeconds, "functional simulation has no time")
			assert.Len(t, res.PerIteration, res.Iterations)
			assert.Positive(t, res.Launches)
		})
	}
	out, _, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=6,h=6", "--target", "sim", "--sim-mode", "functional",
		"--config", "tiny", "--per-iteration", "--source", "0")
	require.NoError(t, err)
	assert.Contains(t, out, "frontier out")
	// From a corner of a 6x6 grid: depths 0..10, one push per level, the
	// last one finding nothing.
	assert.Equal(t, 11, len(regexp.MustCompile(`(?m)^\d+ +push +push +- `).FindAllString(out, -1)), out)
}

func TestKCoreCPUIsCertified(t *testing.T) {
	out, status, err := execute(t, "run", "--algo", "kcore", "--graph", "rmat:scale=8", "--k", "4")
	require.NoError(t, err)
	assert.Equal(t, 0, status)
	assert.Contains(t, out, "PASS (certificate)")
}

// Belief propagation on the CPU is checked against the probability-domain
// recomputation, not reported unchecked.
func TestBeliefPropagationCPUIsCheckedIndependently(t *testing.T) {
	out, status, err := execute(t, "run", "--algo", "bp", "--graph", "rmat:scale=6")
	require.NoError(t, err)
	assert.Equal(t, 0, status)
	assert.Contains(t, out, "PASS (probability-domain recomputation)")
	assert.NotContains(t, out, "NOT CHECKED")
}

// --out writes the per-vertex result with a header; the CPU reference and
// the simulator write the same BFS depths.
func TestRunOutWritesPerVertexResults(t *testing.T) {
	dir := t.TempDir()
	cpu, sim := filepath.Join(dir, "cpu.txt"), filepath.Join(dir, "sim.txt")
	_, _, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=5,h=4", "--source", "0", "--out", cpu)
	require.NoError(t, err)
	_, _, err = execute(t, "run", "--algo", "bfs", "--graph", "grid:w=5,h=4", "--source", "0", "--target", "sim",
		"--sim-mode", "functional", "--config", "tiny", "--scheduler", "simdx", "--out", sim)
	require.NoError(t, err)
	read := func(path string) (header, body []string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if strings.HasPrefix(line, "#") {
				header = append(header, line)
			} else {
				body = append(body, line)
			}
		}
		return header, body
	}
	hc, bc := read(cpu)
	hs, bs := read(sim)
	assert.Equal(t, bc, bs, "the same depths from both targets")
	require.Len(t, bc, 20)
	assert.Equal(t, "0 0", bc[0])
	assert.Equal(t, "19 7", bc[19], "the far corner of a 5x4 grid is 7 hops away")
	assert.Contains(t, strings.Join(hc, "\n"), "# source 0")
	assert.Contains(t, strings.Join(hs, "\n"), "scheduler simdx")
	for _, algo := range []string{"pr", "kcore", "wcc", "bp", "color", "sswp"} {
		path := filepath.Join(dir, algo+".txt")
		_, _, err := execute(t, "run", "--algo", algo, "--graph", "rmat:scale=6", "--out", path)
		require.NoError(t, err, algo)
		_, body := read(path)
		assert.Len(t, body, 64, algo)
	}
}

// JSON gives a run's figures as numbers under "results".
func TestRunJSONResultsAreNumbers(t *testing.T) {
	out, _, err := execute(t, "run", "--algo", "bfs", "--graph", "grid:w=5,h=4", "--source", "0", "--json")
	require.NoError(t, err)
	var res struct {
		Results map[string]float64 `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, 20.0, res.Results["reached"])
	assert.Equal(t, 7.0, res.Results["max_depth"])
}

// run prefetches the module named after the algorithm (prefetchModule):
// every algorithm with GPU kernels has one, by the catalog's convention
// (kernels/<algorithm>.cu).
func TestEveryDeviceAlgorithmHasItsModule(t *testing.T) {
	modules := map[string]bool{}
	for _, m := range kernels.Modules() {
		modules[m.Name] = true
	}
	for _, name := range scheduler.AlgorithmNames() {
		a, err := scheduler.LookupAlgorithm(name)
		require.NoError(t, err)
		if a.Setups == nil {
			continue
		}
		assert.True(t, modules[name], "no kernel module %s.ptx for algorithm %s", name, name)
	}
}
