package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/scheduler"
)

// cellsGolden holds the simulated figures of every registered cell: each
// entry of scheduler.Entries() on each of cellGraphs, run by `warpgraph run
// --target sim --config tiny --json`, keyed "algorithm|variant|graph", one
// line per cell (a cellGolden, keys sorted) so that a diff of it names the
// cells that moved. `go test ./cmd/warpgraph -run
// TestRegisteredCellsKeepTheirFigures -update` rewrites it.
const cellsGolden = "testdata/cells.golden.json"

var cellGraphs = []string{"rmat:scale=8+perm=1", "grid:w=12,h=12"}

// cellFigures is the whitelist of run --json's fields the golden file
// pins: decoding the output into it drops every other field, so a field
// added to the output later (provenance, parameters) changes nothing. The
// wall-clock fields load_seconds and host_seconds are left out on purpose;
// the seconds kept are the simulator's, as deterministic as its cycles.
type cellFigures struct {
	cellTotals
	PerIteration []cellIteration `json:"per_iteration"`
}

// cellTotals are the run's figures the golden file keeps as they are.
type cellTotals struct {
	Algorithm       string             `json:"algorithm"`
	Scheduler       string             `json:"scheduler"`
	Graph           string             `json:"graph"`
	Vertices        int                `json:"vertices"`
	Edges           int                `json:"edges"`
	Cycles          uint64             `json:"cycles"`
	Iterations      int                `json:"iterations"`
	Launches        int                `json:"launches"`
	EndToEndSeconds float64            `json:"end_to_end_seconds"`
	KernelSeconds   float64            `json:"kernel_seconds"`
	Counters        map[string]float64 `json:"counters"`
	Summary         []cellSummaryField `json:"summary"`
	Validation      struct {
		OK bool `json:"ok"`
	} `json:"validation"`
}

// cellSummaryField is a summary figure as people read it.
type cellSummaryField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// cellIteration is what the test compares of a per_iteration row.
type cellIteration struct {
	Iteration     int                `json:"iteration"`
	FrontierIn    int                `json:"frontier_in"`
	FrontierOut   int                `json:"frontier_out"`
	Launches      int                `json:"launches"`
	Cycles        uint64             `json:"cycles"`
	KernelSeconds float64            `json:"kernel_seconds"`
	Counters      map[string]float64 `json:"counters"`
	Statistics    map[string]float64 `json:"statistics"`
}

// cellGolden is what the golden file keeps of a cell's cellFigures. The
// figures people read are in clear text: the run's totals, its summary, its
// validation and, per iteration, the cycles and the frontiers. The rest of
// the per-iteration rows (launches, kernel_seconds, counters, statistics:
// nine tenths of the figures) is pinned by a SHA-256 only, which keeps the
// file small enough to live in every clone and still catches any change.
type cellGolden struct {
	cellTotals
	PerIteration cellIterations `json:"per_iteration"`
}

// cellIterations is what the golden file keeps of a cell's per_iteration
// rows: each row's cycles and frontiers, in row order, and the digest of
// the rows whole.
type cellIterations struct {
	Cycles      []uint64 `json:"cycles"`
	FrontierIn  []int    `json:"frontier_in"`
	FrontierOut []int    `json:"frontier_out"`
	// SHA256 is the hex SHA-256 of encoding/json's encoding of the rows as
	// []cellIteration: struct fields in declaration order, map keys
	// sorted, floats in their shortest round-tripping form, so the same
	// figures always give the same digest. (A change to cellIteration
	// itself changes every digest: regenerate the file at the commit
	// being pinned.)
	SHA256 string `json:"sha256"`
}

// perIterationDigest is cellIterations.SHA256 of rows.
func perIterationDigest(rows []cellIteration) string {
	data, err := json.Marshal(rows)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// goldenOf is what the golden file keeps of f.
func goldenOf(f cellFigures) cellGolden {
	g := cellGolden{
		cellTotals: f.cellTotals,
		PerIteration: cellIterations{
			Cycles:      make([]uint64, 0, len(f.PerIteration)),
			FrontierIn:  make([]int, 0, len(f.PerIteration)),
			FrontierOut: make([]int, 0, len(f.PerIteration)),
			SHA256:      perIterationDigest(f.PerIteration),
		},
	}
	for _, row := range f.PerIteration {
		g.PerIteration.Cycles = append(g.PerIteration.Cycles, row.Cycles)
		g.PerIteration.FrontierIn = append(g.PerIteration.FrontierIn, row.FrontierIn)
		g.PerIteration.FrontierOut = append(g.PerIteration.FrontierOut, row.FrontierOut)
	}
	return g
}

// oneLineSortedJSON is v's JSON on one line, every object's keys sorted
// and no HTML escaping (a summary's "<" stays "<").
func oneLineSortedJSON(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	// Decoding into any turns every object into a map, which encoding/json
	// writes with sorted keys; json.Number keeps every number's text.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodeCellsGolden is the golden file's text: one JSON object, one line
// per cell, cells in key order.
func encodeCellsGolden(golden map[string]cellGolden) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	keys := slices.Sorted(maps.Keys(golden))
	for i, k := range keys {
		key, err := oneLineSortedJSON(k)
		if err != nil {
			return nil, err
		}
		value, err := oneLineSortedJSON(golden[k])
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteString(": ")
		buf.Write(value)
		if i < len(keys)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// shellWords joins args for a shell, quoting those that need it.
func shellWords(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:=+/@") == "" {
			quoted[i] = a
		} else {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

type cell struct{ algo, variant, graph string }

func (c cell) key() string { return c.algo + "|" + c.variant + "|" + c.graph }

// The cells run at once, so each takes one thread of the default (window)
// engine, whose figures are the same at every thread count; every access
// is checked against its buffer's bytes, which changes no figure of a
// kernel that stays in bounds and fails one that overruns.
func (c cell) args() []string {
	return []string{"run", "--algo", c.algo, "--graph", c.graph, "--target", "sim", "--config", "tiny",
		"--scheduler", c.variant, "--json", "--sim-threads", "1", "--sim-check-bounds"}
}

// registeredCells lists every registered entry on every cell graph.
func registeredCells() []cell {
	var out []cell
	for _, e := range scheduler.Entries() {
		for _, g := range cellGraphs {
			out = append(out, cell{e.Algorithm.Name, e.Variant.String(), g})
		}
	}
	return out
}

// runCell runs a cell's command line as main does, on a fresh root
// command, and returns its whitelisted figures.
func runCell(c cell) (cellFigures, error) {
	root := newRootCommand()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(c.args())
	if err := root.Execute(); err != nil {
		return cellFigures{}, fmt.Errorf("warpgraph %s: exit status %d: %v\n%s", strings.Join(c.args(), " "), exitStatus(err), err, stderr.String())
	}
	var f cellFigures
	if err := json.Unmarshal(stdout.Bytes(), &f); err != nil {
		return cellFigures{}, fmt.Errorf("warpgraph %s: %v\n%s", strings.Join(c.args(), " "), err, stdout.String())
	}
	return f, nil
}

// firstDifference names the first field, in a fixed order, where want and
// got differ ("per_iteration.cycles[3]: golden 120, now 124"), or "".
func firstDifference(want, got any) string {
	generic := func(f any) any {
		data, err := json.Marshal(f)
		if err != nil {
			panic(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			panic(err)
		}
		return v
	}
	var walk func(path string, w, g any) string
	walk = func(path string, w, g any) string {
		switch w := w.(type) {
		case map[string]any:
			g, ok := g.(map[string]any)
			if !ok {
				break
			}
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range w {
					if !yield(k) {
						return
					}
				}
				for k := range g {
					if _, in := w[k]; !in && !yield(k) {
						return
					}
				}
			})
			for _, k := range keys {
				p := k
				if path != "" {
					p = path + "." + k
				}
				wv, win := w[k]
				gv, gin := g[k]
				switch {
				case !win:
					return fmt.Sprintf("%s: not in the golden file, now %v", p, gv)
				case !gin:
					return fmt.Sprintf("%s: golden %v, now absent", p, wv)
				}
				if d := walk(p, wv, gv); d != "" {
					return d
				}
			}
			return ""
		case []any:
			g, ok := g.([]any)
			if !ok {
				break
			}
			for i := range min(len(w), len(g)) {
				if d := walk(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
					return d
				}
			}
			if len(w) != len(g) {
				return fmt.Sprintf("%s: golden has %d rows, now %d", path, len(w), len(g))
			}
			return ""
		}
		if reflect.DeepEqual(w, g) {
			return ""
		}
		return fmt.Sprintf("%s: golden %v, now %v", path, w, g)
	}
	return walk("", generic(want), generic(got))
}

// TestRegisteredCellsKeepTheirFigures runs every registered algorithm
// under every scheduler variant that supports it, on two small graphs on
// the simulator, and checks the figures against the golden file: a
// refactor of the scheduler registry must leave every simulated cycle,
// counter and result unchanged.
func TestRegisteredCellsKeepTheirFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every registered cell on two graphs")
	}
	cells := registeredCells()
	got := make([]cellFigures, len(cells))
	ran := make([]bool, len(cells)) // false: a -run pattern left the cell out
	// Cells run in parallel: each has its own root command and simulator
	// (the serial engine, deterministic: serial and parallel runs wrote
	// byte-identical golden files), and the package's one mutable global,
	// newWatch, is only read here (TestRunHeartbeatReportsLaunchesAndCycles
	// replaces it, but not in parallel with this test).
	t.Run("cells", func(t *testing.T) {
		for i, c := range cells {
			t.Run(c.key(), func(t *testing.T) {
				t.Parallel()
				f, err := runCell(c)
				require.NoError(t, err)
				require.True(t, f.Validation.OK, "%s failed validation", c.key())
				got[i], ran[i] = f, true
			})
		}
	})
	if t.Failed() {
		return
	}
	if *updateReadme {
		require.NotContains(t, ran, false, "-update rewrites every cell: give no -run pattern below TestRegisteredCellsKeepTheirFigures")
		golden := make(map[string]cellGolden, len(cells))
		for i, c := range cells {
			golden[c.key()] = goldenOf(got[i])
		}
		data, err := encodeCellsGolden(golden)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(cellsGolden, data, 0o644))
		t.Logf("wrote %d cells to %s", len(cells), cellsGolden)
		return
	}
	data, err := os.ReadFile(cellsGolden)
	require.NoError(t, err, "run go test ./cmd/warpgraph -run TestRegisteredCellsKeepTheirFigures -update to create it")
	var golden map[string]cellGolden
	require.NoError(t, json.Unmarshal(data, &golden), cellsGolden)

	registered := map[string]bool{}
	for _, c := range cells {
		registered[c.key()] = true
	}
	var lost, added []string
	for k := range golden {
		if !registered[k] {
			lost = append(lost, k)
		}
	}
	for _, c := range cells {
		if _, ok := golden[c.key()]; !ok {
			added = append(added, c.key())
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		t.Errorf("%d cells of %s are no longer registered (an algorithm or scheduler variant went missing from scheduler.Entries()):\n  %s",
			len(lost), cellsGolden, strings.Join(lost, "\n  "))
	}
	if len(added) > 0 {
		t.Errorf("%d registered cells are not in %s:\n  %s\nonly if the algorithm or variant was added deliberately, run go test ./cmd/warpgraph -run TestRegisteredCellsKeepTheirFigures -update",
			len(added), cellsGolden, strings.Join(added, "\n  "))
	}
	for i, c := range cells {
		want, ok := golden[c.key()]
		if !ok || !ran[i] {
			continue
		}
		now := goldenOf(got[i])
		wantDigest, nowDigest := want.PerIteration.SHA256, now.PerIteration.SHA256
		want.PerIteration.SHA256, now.PerIteration.SHA256 = "", ""
		if d := firstDifference(want, now); d != "" {
			t.Errorf("%s: the figures moved: %s", c.key(), d)
		} else if nowDigest != wantDigest {
			t.Errorf("%s: per-iteration detail moved: every figure the golden file keeps in clear text is unchanged, "+
				"the cycles and frontiers of every iteration included, but the SHA-256 of the per_iteration rows "+
				"(their launches, kernel_seconds, counters and statistics) is now %s, golden %s; to see what moved, run\n"+
				"  go run ./cmd/warpgraph %s --per-iteration\nat both commits and diff the two outputs' per_iteration",
				c.key(), nowDigest, wantDigest, shellWords(c.args()))
		}
	}
}
