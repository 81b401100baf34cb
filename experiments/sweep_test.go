package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/sim"
)

// fakeExperiment is a sweep over a 3×4 grid whose points need no device:
// the values are a function of the axes, so every run gives the same
// CSV. run, when set, is called first and may fail the point.
func fakeExperiment(run func(ctx context.Context, p Point) error) *Experiment {
	return &Experiment{
		Name:    "fake",
		About:   "a test sweep",
		Targets: []string{TargetSim, TargetHW},
		Configs: []string{"tiny"},
		Axes: []Axis{
			{Name: "a", About: "first", Values: []string{"1", "2", "3"}},
			{Name: "b", About: "second", Values: []string{"x", "y", "z", "w"}},
		},
		Params: []Param{{Name: "scale", About: "a multiplier", Default: byTarget("100", "10")}},
		Stats:  []Stat{{"t_us", "µs", "a time"}, {"label", "", "a string with commas, \"quotes\" and ;"}},
		Run: func(ctx context.Context, env *Env, p Point) (Outcome, error) {
			if run != nil {
				if err := run(ctx, p); err != nil {
					return Outcome{}, err
				}
			}
			a, _ := p.Int("a")
			s, _ := p.Int("scale")
			return Outcome{
				Values: map[string]string{"t_us": fmt.Sprint(a * s * len(p.Get("b"))), "label": "a,b \"c\";" + p.Config},
				Valid:  p.Get("b") != "w" || p.Target == TargetHW, Validation: "checked",
			}, nil
		},
		Table: []string{"config", "a", "b", "t_us", "status"},
		Plot: func(rows []Row, dir string) ([]string, error) {
			return lineFigure{title: "fake", xLabel: "a", yLabel: "time (µs)", series: groupSeries(rows, func(r Row) string { return r["b"] }, "a", "t_us")}.save(dir, "fake")
		},
	}
}

func simPlan() Plan {
	return Plan{Experiment: "fake", Target: TargetSim, Configs: []string{"tiny"}, SimMode: "timing"}
}

func fixedClock() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }

// stable reads a CSV without its volatile columns, one string per line.
func stable(t *testing.T, path string) []string {
	t.Helper()
	header, rows, err := ReadCSV(path)
	require.NoError(t, err)
	var keep []string
	for _, c := range header {
		if !slices.Contains(VolatileColumns, c) {
			keep = append(keep, c)
		}
	}
	out := []string{strings.Join(keep, ",")}
	for _, r := range rows {
		cells := make([]string, len(keep))
		for i, c := range keep {
			cells[i] = r[c]
		}
		out = append(out, strings.Join(cells, ","))
	}
	return out
}

func sweep(t *testing.T, e *Experiment, pl Plan, out string, ctx context.Context) (*Summary, error) {
	t.Helper()
	return Sweep(ctx, e, Options{Plan: pl, Out: out, Commit: "abc1234", Now: fixedClock, Command: "warpgraph sweep fake"})
}

func TestPointKeysFiltersAndShards(t *testing.T) {
	e := fakeExperiment(nil)
	pl := simPlan()
	pl.Configs = []string{"tiny", "h100"}
	all, err := pl.Points(e)
	require.NoError(t, err)
	require.Len(t, all, 24)
	assert.Equal(t, "config=tiny;a=1;b=x", all[0].Key())
	assert.Equal(t, "a=1;b=x", all[0].Cell())
	assert.Equal(t, "config=h100;a=3;b=w", all[23].Key(), "configurations outermost, the first axis slowest")
	assert.Equal(t, "10", all[0].Get("scale"))

	pl.Filter = []string{"a=1|3;b=x", "config=h*"}
	some, err := pl.Points(e)
	require.NoError(t, err)
	var keys []string
	for _, p := range some {
		keys = append(keys, p.Key())
	}
	assert.Equal(t, []string{"config=h100;a=1;b=x", "config=h100;a=3;b=x"}, keys)

	pl.Filter = []string{"a!=1|3;config=h*", "b!=w|y"}
	keys = nil
	rest, err := pl.Points(e)
	require.NoError(t, err)
	for _, p := range rest {
		keys = append(keys, p.Key())
	}
	assert.Equal(t, []string{"config=h100;a=2;b=x", "config=h100;a=2;b=z"}, keys, "NAME!=PATTERN keeps the points it does not match")

	pl.Filter = nil
	seen := map[string]int{}
	for i := 1; i <= 5; i++ {
		pl.Shard, pl.Shards = i, 5
		shard, err := pl.Points(e)
		require.NoError(t, err)
		assert.InDelta(t, 24/5, len(shard), 1, "shards are balanced")
		again, _ := pl.Points(e)
		assert.Equal(t, shard, again, "shards are deterministic")
		for _, p := range shard {
			seen[p.Key()]++
		}
	}
	assert.Len(t, seen, 24)
	for k, n := range seen {
		assert.Equal(t, 1, n, k)
	}

	for _, tc := range []struct {
		name string
		plan func(Plan) Plan
		want string
	}{
		{"unknown axis", func(p Plan) Plan { p.Filter = []string{"c=1"}; return p }, `no axis "c"`},
		{"not a clause", func(p Plan) Plan { p.Filter = []string{"a"}; return p }, "not NAME=PATTERN"},
		{"unknown excluded axis", func(p Plan) Plan { p.Filter = []string{"c!=1"}; return p }, `no axis "c"`},
		{"unknown parameter", func(p Plan) Plan { p.Params = map[string]string{"reps": "1"}; return p }, `no parameter "reps"`},
		{"bad target", func(p Plan) Plan { p.Target = "cpu"; return p }, "does not run on target"},
		{"configs on hw", func(p Plan) Plan { p.Target = TargetHW; return p }, "configurations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.plan(simPlan()).Points(e)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, _, err = ParseShard("0/4")
	assert.Error(t, err)
	i, n, err := ParseShard("4/4")
	require.NoError(t, err)
	assert.Equal(t, [2]int{4, 4}, [2]int{i, n})
}

// A sweep cancelled after k points keeps exactly those k; rerunning it
// runs the rest and gives the CSV of an uninterrupted sweep.
func TestKilledSweepResumesToTheSameCSV(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	_, err := sweep(t, fakeExperiment(nil), simPlan(), whole, context.Background())
	require.NoError(t, err)

	const k = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	killer := fakeExperiment(func(ctx context.Context, p Point) error {
		calls++
		if calls == k+1 {
			cancel() // the kill arrives while point k+1 runs
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	resumed := filepath.Join(dir, "resumed")
	sum, err := sweep(t, killer, simPlan(), resumed, ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, k, sum.Ran)
	_, rows, err := ReadCSV(filepath.Join(resumed, DataFile))
	require.NoError(t, err)
	assert.Len(t, rows, k, "the interrupted point is not recorded")
	assert.NoFileExists(t, filepath.Join(resumed, "README.md"), "no report before every point is in")

	// A kill in the middle of an append leaves a partial line.
	f, err := os.OpenFile(filepath.Join(resumed, DataFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("fake,config=tiny;a=2;b=")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	var ran []string
	counter := fakeExperiment(func(_ context.Context, p Point) error { ran = append(ran, p.Key()); return nil })
	sum, err = sweep(t, counter, simPlan(), resumed, context.Background())
	require.NoError(t, err)
	assert.Equal(t, k, sum.Skipped)
	assert.Equal(t, 12-k, sum.Ran)
	assert.Equal(t, "config=tiny;a=2;b=y", ran[0], "the rerun starts at the interrupted point")
	assert.Equal(t, stable(t, filepath.Join(whole, DataFile)), stable(t, filepath.Join(resumed, DataFile)))

	// A third run has nothing to do.
	sum, err = sweep(t, counter, simPlan(), resumed, context.Background())
	require.NoError(t, err)
	assert.Equal(t, 12, sum.Skipped)
	assert.Zero(t, sum.Ran)
}

func TestFailedPointsAreRecordedAndTheSweepGoesOn(t *testing.T) {
	dir := t.TempDir()
	failing := true
	e := fakeExperiment(func(_ context.Context, p Point) error {
		switch {
		case !failing:
			return nil
		case p.Key() == "config=tiny;a=1;b=y":
			return errors.New("simulated deadlock\nat PTX line 3")
		case p.Key() == "config=tiny;a=2;b=z":
			panic("broken invariant")
		}
		return nil
	})
	sum, err := sweep(t, e, simPlan(), dir, context.Background())
	require.NoError(t, err)
	assert.Equal(t, Summary{Points: 12, Ran: 12, OK: 7, Invalid: 3, Errors: 2, Files: sum.Files}, *sum)
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	byKey := map[string]Row{}
	for _, r := range rows {
		byKey[r.Key()] = r
	}
	assert.Equal(t, "error", byKey["config=tiny;a=1;b=y"]["status"])
	assert.Equal(t, "simulated deadlock | at PTX line 3", byKey["config=tiny;a=1;b=y"]["error"], "one row per line")
	assert.Contains(t, byKey["config=tiny;a=2;b=z"]["error"], "panic: broken invariant")
	assert.Equal(t, "invalid", byKey["config=tiny;a=1;b=w"]["status"])
	assert.Equal(t, "a,b \"c\";tiny", byKey["config=tiny;a=3;b=x"]["label"])
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "`config=tiny;a=1;b=y` (error): simulated deadlock")
	assert.Contains(t, string(readme), "![fake](fake.png)")
	assert.FileExists(t, filepath.Join(dir, "fake.svg"))

	failing = false
	sum, err = sweep(t, e, simPlan(), dir, context.Background())
	require.NoError(t, err)
	assert.Zero(t, sum.Ran, "failed points count as finished")
	sum, err = Sweep(context.Background(), e, Options{Plan: simPlan(), Out: dir, RetryFailed: true, Now: fixedClock})
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Ran, "--retry-failed runs the two errors again")
	_, rows, err = ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	assert.Len(t, rows, 12, "the retried rows replace the failed ones")
	assert.Equal(t, "ok", rows[1]["status"])
}

func TestResumeRefusesOtherSettings(t *testing.T) {
	dir := t.TempDir()
	e := fakeExperiment(nil)
	_, err := sweep(t, e, simPlan(), dir, context.Background())
	require.NoError(t, err)
	plan, err := os.ReadFile(filepath.Join(dir, PlanFile))
	require.NoError(t, err)
	pl := simPlan()
	pl.Params = map[string]string{"scale": "7"}
	_, err = sweep(t, e, pl, dir, context.Background())
	assert.ErrorContains(t, err, "recorded with scale=10, this sweep uses scale=7")
	after, err := os.ReadFile(filepath.Join(dir, PlanFile))
	require.NoError(t, err)
	assert.Equal(t, string(plan), string(after), "a refused sweep leaves the folder's plan as it was")

	e.Stats = append(e.Stats, Stat{Name: "new"})
	_, err = sweep(t, e, simPlan(), dir, context.Background())
	assert.ErrorContains(t, err, "other columns")
}

func TestMergeJoinsShardsAndChecksThem(t *testing.T) {
	dir := t.TempDir()
	reg := NewRegistry()
	e := fakeExperiment(nil)
	reg.Register(e)
	_, err := sweep(t, e, simPlan(), filepath.Join(dir, "whole"), context.Background())
	require.NoError(t, err)
	var shards []string
	for i := 3; i >= 1; i-- { // any order
		pl := simPlan()
		pl.Shard, pl.Shards = i, 3
		out := ShardDir(filepath.Join(dir, "sharded"), i, 3)
		sum, err := sweep(t, e, pl, out, context.Background())
		require.NoError(t, err)
		assert.Empty(t, sum.Files, "a shard writes no report")
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged")
	res, err := Merge(reg, shards, merged, "warpgraph sweep merge ...", "abc1234")
	require.NoError(t, err)
	assert.Equal(t, 12, res.Rows)
	assert.Equal(t, stable(t, filepath.Join(dir, "whole", DataFile)), stable(t, filepath.Join(merged, DataFile)))
	assert.FileExists(t, filepath.Join(merged, "README.md"))
	assert.FileExists(t, filepath.Join(merged, "fake.png"))

	_, err = Merge(reg, shards[:2], merged, "", "")
	assert.ErrorContains(t, err, "4 of 12 points missing: config=tiny;a=1;b=x")
	_, err = Merge(reg, append(shards, shards[0]), merged, "", "")
	assert.ErrorContains(t, err, "4 duplicate points")
	other := simPlan()
	other.Params = map[string]string{"scale": "3"}
	_, err = sweep(t, e, other, filepath.Join(dir, "other"), context.Background())
	require.NoError(t, err)
	_, err = Merge(reg, append(shards, filepath.Join(dir, "other")), merged, "", "")
	assert.ErrorContains(t, err, "another sweep")
}

func TestJoinMatchesSimulatedAndMeasuredPoints(t *testing.T) {
	dir := t.TempDir()
	reg := NewRegistry()
	e := fakeExperiment(nil)
	reg.Register(e)
	pl := simPlan()
	pl.Configs = []string{"tiny", "h100"}
	_, err := sweep(t, e, pl, filepath.Join(dir, "sim"), context.Background())
	require.NoError(t, err)
	hwPlan := Plan{Experiment: "fake", Target: TargetHW, Filter: []string{"b=x|y"}}
	_, err = sweep(t, e, hwPlan, filepath.Join(dir, "hw"), context.Background())
	require.NoError(t, err)

	var b strings.Builder
	n, err := Join(reg, filepath.Join(dir, "sim", DataFile), filepath.Join(dir, "hw", DataFile), &b)
	require.NoError(t, err)
	assert.Equal(t, 24, n, "one row per simulated point")
	path := filepath.Join(dir, "joined.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	_, rows, err := ReadCSV(path)
	require.NoError(t, err)
	assert.Equal(t, "a=2;b=x", rows[4]["cell"])
	assert.Equal(t, "tiny", rows[4]["sim_config"])
	assert.Equal(t, "20", rows[4]["sim_t_us"])
	assert.Equal(t, "200", rows[4]["hw_t_us"])
	assert.Equal(t, "100", rows[4]["hw_scale"])
	assert.Equal(t, "0.1", rows[4]["sim_over_hw_t_us"])
	assert.Empty(t, rows[6]["hw_status"], "no hardware point for b=z")

	_, err = Join(reg, filepath.Join(dir, "hw", DataFile), filepath.Join(dir, "sim", DataFile), &b)
	assert.ErrorContains(t, err, "give the simulator's CSV first")
}

func TestSlurmScript(t *testing.T) {
	job := SlurmJob{Experiment: "atomics", Shards: 4, Out: "/tmp/out dir", Binary: "/opt/wg/warpgraph", Workdir: "/repo",
		Args: []string{"--target", "sim", "--config", "tiny", "--points", "degree=1|2"}, Options: SlurmOptions("--partition=gpu -t 1:00:00 --gres=gpu:1")}
	s := job.Script()
	assert.NotContains(t, s, "--cpus-per-task", "Slurm's default unless asked")
	job.CPUsPerTask = 6
	assert.Contains(t, job.Script(), "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=6\n")
	assert.False(t, SetsCPUsPerTask(job.Options))
	for _, opts := range []string{"--cpus-per-task=4", "--cpus-per-task 4", "-c 4", "-c4"} {
		assert.True(t, SetsCPUsPerTask(SlurmOptions("-p gpu "+opts)), opts)
	}
	assert.False(t, SetsCPUsPerTask(SlurmOptions("-C gpu --comment=x")))
	for _, want := range []string{
		"#SBATCH --array=1-4\n",
		"#SBATCH --partition=gpu\n#SBATCH -t 1:00:00\n#SBATCH --gres=gpu:1\n",
		"#SBATCH --output=/tmp/out dir/slurm-%A_%a.out\n",
		"cd /repo\n",
		`exec /opt/wg/warpgraph sweep atomics --target sim --config tiny --points 'degree=1|2' --shard "$i/4" --out '/tmp/out dir/'"shard-$i-"of-4`,
	} {
		assert.Contains(t, s, want)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		out, err := exec.Command(bash, "-n", "-c", s).CombinedOutput()
		assert.NoError(t, err, "bash -n: %s", out)
		// The shard folder the script names is the one ShardDir names.
		echo := strings.Replace(s[strings.Index(s, "i=\""):], "exec ", "echo ", 1)
		got, err := exec.Command(bash, "-c", "SLURM_ARRAY_TASK_ID=3; "+echo).Output()
		require.NoError(t, err)
		assert.Contains(t, string(got), "--out "+ShardDir("/tmp/out dir", 3, 4)+"\n")
		assert.Contains(t, string(got), "--shard 3/4 ")
	}
}

func TestRegistryRejectsBadExperiments(t *testing.T) {
	reg := NewRegistry()
	reg.Register(fakeExperiment(nil))
	assert.Panics(t, func() { reg.Register(fakeExperiment(nil)) }, "duplicate")
	bad := fakeExperiment(nil)
	bad.Name = "bad"
	bad.Stats = append(bad.Stats, Stat{Name: "status"})
	assert.Panics(t, func() { reg.Register(bad) }, "reserved column")
	_, err := reg.Lookup("nope")
	assert.ErrorContains(t, err, "use one of fake")
	assert.Subset(t, Default.Names(), []string{"atomics", "banks", "bsp-corpus"})
}

func TestParallelSweepWritesTheSameCSVAndResumes(t *testing.T) {
	dir := t.TempDir()
	serial := filepath.Join(dir, "serial")
	_, err := sweep(t, fakeExperiment(nil), simPlan(), serial, context.Background())
	require.NoError(t, err)

	// Four jobs at once: the points really overlap (each waits until a
	// second one has started, or 2 s), and a kill after three points
	// records only finished ones.
	var mu sync.Mutex
	running, most, finished := 0, 0, 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	overlap := func(ctx context.Context, p Point) error {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			enough := most >= 2 || finished > 0
			mu.Unlock()
			if enough {
				break
			}
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		running--
		finished++
		if finished == 3 {
			cancel()
		}
		if finished > 3 {
			return ctx.Err()
		}
		return nil
	}
	parallel := filepath.Join(dir, "parallel")
	opts := Options{Plan: simPlan(), Out: parallel, Commit: "abc1234", Now: fixedClock, Jobs: 4}
	_, err = Sweep(ctx, fakeExperiment(overlap), opts)
	require.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, most, 2, "points ran concurrently")
	_, rows, err := ReadCSV(filepath.Join(parallel, DataFile))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(rows), 3, "no point running at the kill is recorded")

	sum, err := Sweep(context.Background(), fakeExperiment(nil), Options{Plan: simPlan(), Out: parallel, Commit: "abc1234", Now: fixedClock, Jobs: 4})
	require.NoError(t, err)
	assert.Equal(t, 12, sum.Skipped+sum.Ran)
	assert.Equal(t, stable(t, filepath.Join(serial, DataFile)), stable(t, filepath.Join(parallel, DataFile)))

	hw := Plan{Experiment: "fake", Target: TargetHW}
	_, err = Sweep(context.Background(), fakeExperiment(nil), Options{Plan: hw, Out: filepath.Join(dir, "hw"), Jobs: 2})
	require.ErrorContains(t, err, "only simulator points may run in parallel")
}

// A report-only sweep runs no point: it sorts data.csv into sweep order
// and writes the report from the recorded points, naming the rest.
func TestReportOnlyRendersWhatIsRecorded(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	killer := fakeExperiment(func(ctx context.Context, p Point) error {
		if calls++; calls == 8 {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	_, err := sweep(t, killer, simPlan(), dir, ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.NoFileExists(t, filepath.Join(dir, "README.md"))

	ran := 0
	e := fakeExperiment(func(context.Context, Point) error { ran++; return nil })
	_, err = Sweep(context.Background(), e, Options{Plan: simPlan(), Out: dir, ReportOnly: true, RetryFailed: true})
	require.Error(t, err, "report-only with retry-failed is a contradiction")
	sum, err := Sweep(context.Background(), e, Options{Plan: simPlan(), Out: dir, ReportOnly: true, Commit: "abc1234", Now: fixedClock, Command: "warpgraph sweep fake --report-only"})
	require.NoError(t, err)
	assert.Zero(t, ran, "nothing runs")
	assert.Equal(t, 7, sum.Skipped)
	assert.Equal(t, 5, sum.NotRun)
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "- **Points:** 7 (")
	assert.Contains(t, string(readme), "**Not run yet:** 5 more points of the plan")
	assert.Contains(t, string(readme), "`config=tiny;a=2;b=w`", "the first point not run is named")
	_, rows, err := ReadCSV(filepath.Join(dir, DataFile))
	require.NoError(t, err)
	require.Len(t, rows, 7)

	// Finishing the sweep runs exactly the missing points.
	sum, err = sweep(t, e, simPlan(), dir, context.Background())
	require.NoError(t, err)
	assert.Equal(t, 5, sum.Ran)
	readme, err = os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(readme), "Not run yet")
}

// The window engine's thread count reaches every simulator point's
// device and is recorded in sweep.json and the README, not in the rows:
// they equal the serial engine's sweep of a device-free experiment. One
// folder, or one merge, does not mix the engines' figures.
func TestSimThreadsAreRecordedBesideTheRows(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	threads := map[int]bool{}
	e := fakeExperiment(nil)
	run := e.Run
	e.Run = func(ctx context.Context, env *Env, p Point) (Outcome, error) {
		dev, err := env.Device()
		if err != nil {
			return Outcome{}, err
		}
		mu.Lock()
		threads[dev.(*sim.Device).Threads()] = true
		mu.Unlock()
		return run(ctx, env, p)
	}
	sweepOn := func(out string, simThreads int, pl Plan, reportOnly bool) error {
		_, err := Sweep(context.Background(), e, Options{Plan: pl, Out: out, Commit: "abc1234", Now: fixedClock,
			Command: "warpgraph sweep fake", SimThreads: simThreads, ReportOnly: reportOnly})
		return err
	}
	window, serial := filepath.Join(dir, "window"), filepath.Join(dir, "serial")
	require.NoError(t, sweepOn(window, 2, simPlan(), false))
	assert.Equal(t, map[int]bool{2: true}, threads)
	require.NoError(t, sweepOn(serial, 0, simPlan(), false))
	assert.Equal(t, map[int]bool{2: true, 0: true}, threads)
	assert.Equal(t, stable(t, filepath.Join(serial, DataFile)), stable(t, filepath.Join(window, DataFile)))

	pf, err := readPlan(window)
	require.NoError(t, err)
	assert.Equal(t, 2, pf.SimThreads)
	readme, err := os.ReadFile(filepath.Join(window, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "- **Simulator engine:** the parallel window engine, 2 threads per point")
	readme, err = os.ReadFile(filepath.Join(serial, "README.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(readme), "Simulator engine")

	assert.ErrorContains(t, sweepOn(window, 0, simPlan(), false), "simulated on the parallel window engine (--sim-engine window, the default), this sweep uses the serial engine (--sim-engine serial)")
	assert.ErrorContains(t, sweepOn(serial, 1, simPlan(), false), "simulated on the serial engine (--sim-engine serial), this sweep uses the parallel window engine")
	require.NoError(t, sweepOn(window, 0, simPlan(), true), "a report-only sweep runs nothing")
	pf, err = readPlan(window)
	require.NoError(t, err)
	assert.Equal(t, 2, pf.SimThreads, "a report-only sweep keeps the engine of the points")

	reg := NewRegistry()
	reg.Register(e)
	var shards []string
	for i, simThreads := range []int{2, 0} {
		pl := simPlan()
		pl.Shard, pl.Shards = i+1, 2
		out := ShardDir(filepath.Join(dir, "sharded"), i+1, 2)
		require.NoError(t, sweepOn(out, simThreads, pl, false))
		shards = append(shards, out)
	}
	_, err = Merge(reg, shards, filepath.Join(dir, "merged"), "", "")
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.ErrorContains(t, err, "on the serial engine (--sim-engine serial) and "+shards[0]+" on the parallel window engine (--sim-engine window, the default), whose figures may differ")
}

// With costs from an earlier sweep, the points run longest first (those
// the costs do not name before all others, ties in plan order), and
// data.csv is in sweep order all the same; costs that name none of the
// plan's points are refused.
// serialSweep runs the fake sweep into dir/serial, one point after
// another, and returns the folder and its rows.
func serialSweep(t *testing.T, dir string) (string, []Row) {
	t.Helper()
	serial := filepath.Join(dir, "serial")
	_, err := sweep(t, fakeExperiment(nil), simPlan(), serial, context.Background())
	require.NoError(t, err)
	_, rows, err := ReadCSV(filepath.Join(serial, DataFile))
	require.NoError(t, err)
	return serial, rows
}

func TestLongestFirstOrdersTheRunsNotTheRows(t *testing.T) {
	dir := t.TempDir()
	serial, rows := serialSweep(t, dir)

	// Costs for all but the last point: the plan's index as the cost, so
	// the named points run in reverse plan order after the unnamed one.
	costs := map[string]float64{}
	for i, r := range rows[:len(rows)-1] {
		costs[r.Key()] = float64(i)
	}
	var ran []string
	record := func(ctx context.Context, p Point) error {
		ran = append(ran, p.Key()) // one job: no lock needed
		return nil
	}
	ordered := filepath.Join(dir, "ordered")
	_, err := Sweep(context.Background(), fakeExperiment(record), Options{Plan: simPlan(), Out: ordered, Commit: "abc1234", Now: fixedClock, Costs: costs})
	require.NoError(t, err)
	want := []string{rows[len(rows)-1].Key()}
	for i := len(rows) - 2; i >= 0; i-- {
		want = append(want, rows[i].Key())
	}
	assert.Equal(t, want, ran)
	assert.Equal(t, stable(t, filepath.Join(serial, DataFile)), stable(t, filepath.Join(ordered, DataFile)))

	// CostsFrom reads the same costs from the earlier data.csv; of several
	// files, a later one's figure for a point replaces an earlier one's.
	read, err := CostsFrom(serial)
	require.NoError(t, err)
	assert.Len(t, read, len(rows))
	header, rows, err := ReadCSV(filepath.Join(serial, DataFile))
	require.NoError(t, err)
	first := rows[0]
	first["wall_seconds"] = "123.5"
	later := filepath.Join(dir, "later")
	require.NoError(t, os.MkdirAll(later, 0o755))
	f, err := os.Create(filepath.Join(later, DataFile))
	require.NoError(t, err)
	require.NoError(t, writeCSV(f, header, []Row{first}))
	require.NoError(t, f.Close())
	both, err := CostsFrom(serial, later)
	require.NoError(t, err)
	assert.Len(t, both, len(rows))
	assert.Equal(t, 123.5, both[first.Key()])
	assert.Equal(t, read[rows[1].Key()], both[rows[1].Key()])
	reversed, err := CostsFrom(later, serial)
	require.NoError(t, err)
	assert.Equal(t, read[first.Key()], reversed[first.Key()])
	assert.NotEqual(t, 123.5, reversed[first.Key()])

	_, err = Sweep(context.Background(), fakeExperiment(nil), Options{Plan: simPlan(), Out: filepath.Join(dir, "none"), Costs: map[string]float64{"config=tiny;a=9;b=q": 1}})
	require.ErrorIs(t, err, ErrCostsNameNoPoint)
	assert.NoDirExists(t, filepath.Join(dir, "none"), "refused before anything is written")
}

// TestFinishByStartsOnlyThePointsThatEndInTime runs a sweep whose points
// each take their cost on a clock that the run advances: with a time
// limit it starts, whenever it is free, the first point (longest first)
// expected to end in time, leaves the rest unstarted and says so; run
// again without a limit, it resumes with them.
func TestFinishByStartsOnlyThePointsThatEndInTime(t *testing.T) {
	dir := t.TempDir()
	serial, rows := serialSweep(t, dir)
	require.Len(t, rows, 12)

	costs := map[string]float64{rows[0].Key(): 50, rows[1].Key(): 20, rows[2].Key(): 20}
	for _, r := range rows[3:11] {
		costs[r.Key()] = 5
	}
	// rows[11] has no cost: it counts as long as the longest (50 s).
	now := fixedClock()
	clock := func() time.Time { return now }
	var ran []string
	run := func(ctx context.Context, p Point) error {
		ran = append(ran, p.Key()) // one job: no lock needed
		c, ok := costs[p.Key()]
		if !ok {
			c = 50
		}
		now = now.Add(time.Duration(c) * time.Second)
		return nil
	}
	limited := filepath.Join(dir, "limited")
	sum, err := Sweep(context.Background(), fakeExperiment(run), Options{Plan: simPlan(), Out: limited, Commit: "abc1234", Now: clock, Costs: costs, FinishBy: time.Minute})
	var notStarted *NotStartedError
	require.ErrorAs(t, err, &notStarted)
	require.ErrorIs(t, err, ErrFinishBy)
	// The unnamed point first (its cost unknown, 50 s expected: it ends at
	// 50), then neither the 50 s point nor the 20 s ones (100, 70 > 60),
	// but two of 5 s (55, 60); a third would end at 65.
	assert.Equal(t, []string{rows[11].Key(), rows[3].Key(), rows[4].Key()}, ran)
	assert.Equal(t, 9, notStarted.Points)
	assert.Equal(t, 9, sum.NotStarted)
	assert.Equal(t, 3, sum.Ran)
	_, got, err := ReadCSV(filepath.Join(limited, DataFile))
	require.NoError(t, err)
	assert.Len(t, got, 3, "the finished points are recorded")
	assert.NoFileExists(t, filepath.Join(limited, "README.md"), "an unfinished sweep writes no report")

	ran = nil
	sum, err = Sweep(context.Background(), fakeExperiment(run), Options{Plan: simPlan(), Out: limited, Commit: "abc1234", Now: clock, Costs: costs})
	require.NoError(t, err)
	assert.Equal(t, 3, sum.Skipped)
	assert.Len(t, ran, 9)
	assert.Equal(t, stable(t, filepath.Join(serial, DataFile)), stable(t, filepath.Join(limited, DataFile)))

	_, err = Sweep(context.Background(), fakeExperiment(nil), Options{Plan: simPlan(), Out: filepath.Join(dir, "nocosts"), FinishBy: time.Minute})
	require.Error(t, err, "a time limit without earlier wall seconds")
	assert.NoDirExists(t, filepath.Join(dir, "nocosts"))
}
