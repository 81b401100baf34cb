package experiments

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Value is one named value of a point (an axis or a parameter).
type Value struct{ Name, Value string }

// Point is one measurement of a sweep.
type Point struct {
	Experiment string
	Target     string
	// Config is the simulator configuration ("" on hardware) and SimMode
	// the simulator's mode.
	Config, SimMode string
	// Axes hold the point's axis values in the experiment's order; Params
	// the sweep's settings as they resolve for this target and
	// configuration.
	Axes, Params []Value
	// Index is the point's place in the whole sweep (before sharding).
	Index int
}

// Get returns the value of an axis or parameter ("" when there is none).
func (p Point) Get(name string) string {
	for _, vs := range [][]Value{p.Axes, p.Params} {
		for _, v := range vs {
			if v.Name == name {
				return v.Value
			}
		}
	}
	return ""
}

// Int returns an axis or parameter as an integer.
func (p Point) Int(name string) (int, error) {
	n, err := strconv.Atoi(p.Get(name))
	if err != nil {
		return 0, fmt.Errorf("point %s: %s=%q is not an integer", p.Key(), name, p.Get(name))
	}
	return n, nil
}

// Key identifies the point within a sweep's CSV: the simulator
// configuration, when there is one, then every axis, as
// "config=h100;degree=4". It is deterministic: the same sweep gives the
// same keys on every machine and in every shard.
func (p Point) Key() string {
	parts := make([]string, 0, len(p.Axes)+1)
	if p.Config != "" {
		parts = append(parts, "config="+p.Config)
	}
	for _, v := range p.Axes {
		parts = append(parts, v.Name+"="+v.Value)
	}
	return strings.Join(parts, ";")
}

// Cell is the key without the configuration: what a simulated point and a
// hardware point of the same experiment share (sweep join matches on it).
func (p Point) Cell() string {
	q := p
	q.Config = ""
	return q.Key()
}

// cellOf strips the leading configuration from a key.
func cellOf(key string) string {
	if strings.HasPrefix(key, "config=") {
		if _, rest, ok := strings.Cut(key, ";"); ok {
			return rest
		}
		return ""
	}
	return key
}

// Plan is what a sweep covers: everything but the machine it runs on. It
// is saved as sweep.json beside the data, so that merge can enumerate the
// whole sweep and check its shards.
type Plan struct {
	Experiment string `json:"experiment"`
	Target     string `json:"target"`
	// Configs are the simulator configurations (none on hardware).
	Configs []string `json:"configs,omitempty"`
	SimMode string   `json:"sim_mode,omitempty"`
	// Params override the experiment's parameter defaults.
	Params map[string]string `json:"params,omitempty"`
	// Filter keeps only the points every clause matches (ParseFilter).
	Filter []string `json:"filter,omitempty"`
	// Shard (1..Shards) selects every Shards-th point from the Shard-th;
	// Shards 0 means the whole sweep.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
}

// Whole returns the plan without its shard.
func (pl Plan) Whole() Plan {
	pl.Shard, pl.Shards = 0, 0
	return pl
}

// sameSweep says whether two plans describe the same sweep (shards aside).
func (pl Plan) sameSweep(o Plan) bool {
	a, b := pl.Whole(), o.Whole()
	return a.Experiment == b.Experiment && a.Target == b.Target && slices.Equal(a.Configs, b.Configs) &&
		a.SimMode == b.SimMode && mapsEqual(a.Params, b.Params) && slices.Equal(a.Filter, b.Filter)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want i/n with 1 <= i <= n (e.g. 2/4)", s)
	}
	return i, n, nil
}

// clause is one filter condition: the named axis (or "config") matches
// one of the glob patterns, or with exclude none of them.
type clause struct {
	name     string
	patterns []string
	exclude  bool
}

// ParseFilter reads point filters: clauses "NAME=PATTERN[|PATTERN...]"
// (the axis matches one of the patterns) or "NAME!=PATTERN[|PATTERN...]"
// (it matches none of them) separated by ';' (or given as several
// strings), where NAME is an axis or "config" and PATTERN a glob
// (path.Match: '*' matches any run of characters but '/'). A point is kept
// when every clause holds.
func parseFilter(e *Experiment, filters []string) ([]clause, error) {
	var out []clause
	names := append([]string{"config"}, e.axisNames()...)
	for _, f := range filters {
		for _, c := range strings.Split(f, ";") {
			if strings.TrimSpace(c) == "" {
				continue
			}
			name, pats, ok := strings.Cut(c, "=")
			if !ok {
				return nil, fmt.Errorf("point filter %q is not NAME=PATTERN or NAME!=PATTERN", c)
			}
			name, exclude := strings.CutSuffix(name, "!")
			if !slices.Contains(names, name) {
				return nil, fmt.Errorf("point filter %q: %s has no axis %q (axes: %s)", c, e.Name, name, strings.Join(names, ", "))
			}
			cl := clause{name: name, patterns: strings.Split(pats, "|"), exclude: exclude}
			for _, p := range cl.patterns {
				if _, err := path.Match(p, ""); err != nil {
					return nil, fmt.Errorf("point filter %q: bad pattern %q: %w", c, p, err)
				}
			}
			out = append(out, cl)
		}
	}
	return out, nil
}

func (c clause) matches(p Point) bool {
	v := p.Config
	if c.name != "config" {
		v = p.Get(c.name)
	}
	for _, pat := range c.patterns {
		if ok, _ := path.Match(pat, v); ok {
			return !c.exclude
		}
	}
	return c.exclude
}

// Points enumerates the plan's points in sweep order (configurations
// outermost, then the experiment's own order), filtered and then sharded:
// shard i of n takes the points at positions i-1, i-1+n, ... of the
// filtered sweep, so that shards are deterministic and balanced.
func (pl Plan) Points(e *Experiment) ([]Point, error) {
	if pl.Experiment != e.Name {
		return nil, fmt.Errorf("plan is for experiment %q, not %q", pl.Experiment, e.Name)
	}
	if !e.Supports(pl.Target) {
		return nil, fmt.Errorf("experiment %s does not run on target %q (it runs on %s)", e.Name, pl.Target, strings.Join(e.Targets, ", "))
	}
	for name := range pl.Params {
		if !slices.Contains(paramNames(e.Params), name) {
			return nil, fmt.Errorf("experiment %s has no parameter %q (parameters: %s)", e.Name, name, strings.Join(paramNames(e.Params), ", "))
		}
	}
	filter, err := parseFilter(e, pl.Filter)
	if err != nil {
		return nil, err
	}
	configs := pl.Configs
	if pl.Target != TargetSim {
		if len(configs) > 0 {
			return nil, fmt.Errorf("simulator configurations %v given for target %s", configs, pl.Target)
		}
		configs = []string{""}
	} else if len(configs) == 0 {
		return nil, fmt.Errorf("a simulator sweep needs at least one configuration")
	}
	var all []Point
	for _, config := range configs {
		params := make([]Value, len(e.Params))
		for i, p := range e.Params {
			v, ok := pl.Params[p.Name]
			if !ok && p.Default != nil {
				v = p.Default(pl.Target, config)
			}
			params[i] = Value{p.Name, v}
		}
		var rows [][]string
		if e.Points != nil {
			rows = e.Points(pl.Target, config)
		} else {
			rows = cartesian(e.Axes)
		}
		for _, row := range rows {
			if len(row) != len(e.Axes) {
				panic(fmt.Sprintf("experiments: %s lists a point with %d values for %d axes", e.Name, len(row), len(e.Axes)))
			}
			p := Point{Experiment: e.Name, Target: pl.Target, Config: config, Params: params}
			if pl.Target == TargetSim {
				p.SimMode = pl.SimMode
			}
			for i, a := range e.Axes {
				p.Axes = append(p.Axes, Value{a.Name, row[i]})
			}
			keep := true
			for _, c := range filter {
				keep = keep && c.matches(p)
			}
			if keep {
				p.Index = len(all)
				all = append(all, p)
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p.Key()] {
			panic(fmt.Sprintf("experiments: %s lists point %s twice", e.Name, p.Key()))
		}
		seen[p.Key()] = true
	}
	if pl.Shards == 0 {
		return all, nil
	}
	if pl.Shard < 1 || pl.Shard > pl.Shards {
		return nil, fmt.Errorf("shard %d/%d: want 1 <= i <= n", pl.Shard, pl.Shards)
	}
	var mine []Point
	for i := pl.Shard - 1; i < len(all); i += pl.Shards {
		mine = append(mine, all[i])
	}
	return mine, nil
}

func cartesian(axes []Axis) [][]string {
	rows := [][]string{{}}
	for _, a := range axes {
		var next [][]string
		for _, r := range rows {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(r), v))
			}
		}
		rows = next
	}
	return rows
}

// sortByIndex orders rows by their point's place in the sweep.
func sortRows(rows []Row, order map[string]int) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, aok := order[rows[i].Key()]
		b, bok := order[rows[j].Key()]
		switch {
		case aok && bok:
			return a < b
		case aok != bok:
			return aok
		default:
			return rows[i].Key() < rows[j].Key()
		}
	})
}
