package graph

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A graph spec names a graph everywhere a command or experiment takes one:
//
//	SPEC      = SOURCE { "+" TRANSFORM }
//	SOURCE    = GENERATOR [ ":" KEY "=" VALUE { "," KEY "=" VALUE } ] | PATH
//	GENERATOR = "rmat" | "grid" | "er" | "regular"
//	TRANSFORM = "sym" | "simple" | "rw=" SEED | "unweighted" | "perm=" SEED | "degsort"
//
// A string that names an existing file is that file, even when it contains
// "+"; otherwise the longest prefix that names an existing file, followed
// by valid transformations, is the file; when no prefix exists, the path is
// everything before the trailing valid transformations, reported missing
// when loaded. ParseSpec documents the keys.

// Source produces a graph: a file or a generator.
type Source interface {
	// Load reads or generates the graph, reporting progress by stage when
	// progress is not nil.
	Load(progress func(stage string, done, total int64)) (*Graph, error)
	// String returns the canonical spec of the source.
	String() string
}

// File is a graph file; ReadFile picks the format from the extension.
type File struct{ Path string }

// Load reads the file. A missing file fails with an error that satisfies
// errors.Is(err, fs.ErrNotExist) and names the path.
func (f File) Load(progress func(stage string, done, total int64)) (*Graph, error) {
	if _, err := os.Stat(f.Path); errors.Is(err, fs.ErrNotExist) {
		return nil, &SpecError{Spec: f.Path, Err: errNoSuchFile{}}
	}
	var opt ReadOptions
	if progress != nil {
		opt.Progress = func(done, total int64) { progress("read", done, total) }
	}
	return ReadFile(f.Path, opt)
}

// String returns the path.
func (f File) String() string { return f.Path }

// errNoSuchFile is a missing graph file; the SpecError around it names the
// path, and errors.Is sees fs.ErrNotExist.
type errNoSuchFile struct{}

func (e errNoSuchFile) Error() string        { return "no such file" }
func (e errNoSuchFile) Is(target error) bool { return target == fs.ErrNotExist }

// Spec is a parsed graph spec: a source and the transformations applied to
// it, in order.
type Spec struct {
	// Source is a File, RMAT, Grid, ER or Regular.
	Source     Source
	Transforms []Transform
}

// String returns the canonical spec: every generator parameter spelled out
// with its default, weights as "weights=", so that results record exactly
// which graph they ran on. ParseSpec(s.String()) gives s back.
func (s Spec) String() string {
	var b strings.Builder
	if s.Source != nil {
		b.WriteString(s.Source.String())
	}
	for _, t := range s.Transforms {
		b.WriteByte('+')
		b.WriteString(t.String())
	}
	return b.String()
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Progress, when not nil, is called with the stage ("read",
	// "generate", "build", or a transformation such as "sym"), the work
	// done and the total; calls never overlap and done never shrinks
	// within a stage.
	Progress func(stage string, done, total int64)
}

// Load parses spec and returns its graph: the file read or the graph
// generated, then transformed. Bad specs and missing files fail with a
// *SpecError; missing files also satisfy errors.Is(err, fs.ErrNotExist).
func Load(spec string, opt LoadOptions) (*Graph, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.Load(opt)
}

// Load produces the graph the spec names.
func (s Spec) Load(opt LoadOptions) (*Graph, error) {
	if s.Source == nil {
		return nil, &SpecError{Spec: s.String(), Err: errors.New("no source")}
	}
	if v, ok := s.Source.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return nil, &SpecError{Spec: s.String(), Err: err}
		}
	}
	g, err := s.Source.Load(opt.Progress)
	if err != nil {
		return nil, err
	}
	for _, t := range s.Transforms {
		what := fmt.Sprintf("transformation %s of %d vertices and %d edges", t, g.NumVertices(), g.NumEdges())
		if err := checkMemory(what, t.memoryNeed(g)); err != nil {
			return nil, fmt.Errorf("graph %s: %w", s, err)
		}
		report(opt.Progress, t.String(), 0, 1)
		if g, err = t.Apply(g); err != nil {
			return nil, fmt.Errorf("graph %s: %w", s, err)
		}
		report(opt.Progress, t.String(), 1, 1)
	}
	return g, nil
}

// SpecError is a spec that cannot name a graph: malformed, out of range,
// naming an unknown generator, key or transformation, or a missing file.
// Commands exit with status 2 on it.
type SpecError struct {
	// Spec is the offending spec (or the file path).
	Spec string
	Err  error
}

func (e *SpecError) Error() string { return fmt.Sprintf("graph spec %q: %v", e.Spec, e.Err) }

// Unwrap returns the underlying problem.
func (e *SpecError) Unwrap() error { return e.Err }

// generatorNames lists the generators a spec may start with, sorted.
var generatorNames = []string{"er", "grid", "regular", "rmat"}

// ParseSpec parses a graph spec (grammar above). Keys, with defaults:
//
//	rmat:scale=S (required, 1..30),ef=16,a=0.57,b=0.19,c=0.19
//	grid:w=W,h=H (both required, W·H <= 2^31-1)
//	er:n=N,m=M   (both required; M distinct edges, M <= N(N-1)/2, or N(N-1) if directed)
//	regular:n=N,d=D (both required; directed, every vertex exactly D distinct
//	             out-neighbours other than itself, D <= N-1; no directed key)
//
// and for every generator seed=1, directed=0 (0|1), and weights=1..64
// (LO..HI with 1 <= LO <= HI, or none). w=LO..HI and w=none are short for
// weights=; for grid a plain integer w is the width. Transformations: sym
// (symmetrize), simple (drop self-loops and duplicate edges), rw=SEED
// (random weights 1..64), unweighted, perm=SEED (random vertex ids), degsort
// (vertex ids by decreasing out-degree: DegreeOrder).
func ParseSpec(s string) (Spec, error) {
	spec, err := parseSpec(s)
	if err != nil {
		return Spec{}, &SpecError{Spec: s, Err: err}
	}
	return spec, nil
}

func parseSpec(s string) (Spec, error) {
	if strings.TrimSpace(s) == "" {
		return Spec{}, errors.New("empty spec (want a file path or a generator: " + strings.Join(generatorNames, ", ") + ")")
	}
	if isFile(s) {
		return Spec{Source: File{Path: s}}, nil
	}
	parts := strings.Split(s, "+")
	if name, params, ok := generatorSyntax(parts[0]); ok && !isFile(parts[0]) {
		src, err := parseGenerator(name, params)
		if err != nil {
			return Spec{}, err
		}
		ts, err := parseTransforms(parts[1:])
		if err != nil {
			return Spec{}, err
		}
		return Spec{Source: src, Transforms: ts}, nil
	}
	// A path may contain "+": the source is the longest prefix that is an
	// existing file, or, when none is, everything before the trailing run
	// of valid transformations (so the missing path is reported whole).
	for k := len(parts) - 1; k >= 1; k-- {
		path := strings.Join(parts[:k], "+")
		if !isFile(path) {
			continue
		}
		ts, err := parseTransforms(parts[k:])
		if err != nil {
			return Spec{}, err
		}
		return Spec{Source: File{Path: path}, Transforms: ts}, nil
	}
	k := len(parts)
	for k > 1 {
		if _, err := parseTransform(parts[k-1]); err != nil {
			break
		}
		k--
	}
	ts, _ := parseTransforms(parts[k:])
	return Spec{Source: File{Path: strings.Join(parts[:k], "+")}, Transforms: ts}, nil
}

func isFile(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// generatorSyntax splits "name:params" (or a bare known generator name)
// when name is a lower-case word: a path such as "C:\g.mtx" or
// "./x:y.mtx" is not generator syntax, an unknown word such as "rmta:" is,
// so that typos get an "unknown generator" error rather than "no such
// file".
func generatorSyntax(source string) (name, params string, ok bool) {
	name, params, colon := strings.Cut(source, ":")
	if !colon {
		return name, "", slices.Contains(generatorNames, name)
	}
	if len(name) < 2 {
		return "", "", false
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return "", "", false
		}
	}
	return name, params, true
}

// keyValues is a generator's parameter list, consumed key by key so that
// leftovers can be reported as unknown.
type keyValues struct {
	gen    string
	values map[string]string
	order  []string
}

func parseKeyValues(gen, params string) (*keyValues, error) {
	kv := &keyValues{gen: gen, values: map[string]string{}}
	if params == "" {
		return kv, nil
	}
	for _, item := range strings.Split(params, ",") {
		key, value, ok := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", gen, item)
		}
		value = strings.TrimSpace(value)
		// grid's w is the width when an integer and the weights otherwise;
		// file the two meanings under different keys.
		if key == "w" && (value == "none" || strings.Contains(value, "..")) {
			key = "weights"
		}
		if _, dup := kv.values[key]; dup {
			return nil, fmt.Errorf("%s: key %q given twice", gen, key)
		}
		kv.values[key] = value
		kv.order = append(kv.order, key)
	}
	return kv, nil
}

// take removes and returns key's value.
func (kv *keyValues) take(key string) (string, bool) {
	v, ok := kv.values[key]
	delete(kv.values, key)
	return v, ok
}

func (kv *keyValues) intKey(key string, dst *int, required bool) error {
	v, ok := kv.take(key)
	if !ok {
		if required {
			return fmt.Errorf("%s: %s is required", kv.gen, key)
		}
		return nil
	}
	x, err := strconv.ParseInt(v, 10, 64)
	if err != nil || x > math.MaxInt {
		return fmt.Errorf("%s: %s=%q is not an integer", kv.gen, key, v)
	}
	*dst = int(x)
	return nil
}

func (kv *keyValues) floatKey(key string, dst *float64) error {
	v, ok := kv.take(key)
	if !ok {
		return nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("%s: %s=%q is not a number", kv.gen, key, v)
	}
	*dst = x
	return nil
}

func (kv *keyValues) uintKey(key string, dst *uint64) error {
	v, ok := kv.take(key)
	if !ok {
		return nil
	}
	x, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %s=%q is not an unsigned integer", kv.gen, key, v)
	}
	*dst = x
	return nil
}

func (kv *keyValues) boolKey(key string, dst *bool) error {
	v, ok := kv.take(key)
	if !ok {
		return nil
	}
	switch v {
	case "0", "false":
		*dst = false
	case "1", "true":
		*dst = true
	default:
		return fmt.Errorf("%s: %s=%q is not 0 or 1", kv.gen, key, v)
	}
	return nil
}

func (kv *keyValues) weightsKey(dst *WeightRange) error {
	v, ok := kv.take("weights")
	if !ok {
		return nil
	}
	r, err := parseWeightRange(v)
	if err != nil {
		return fmt.Errorf("%s: %w", kv.gen, err)
	}
	*dst = r
	return nil
}

// common reads the keys every generator has.
func (kv *keyValues) common(seed *uint64, directed *bool, weights *WeightRange) error {
	if err := kv.uintKey("seed", seed); err != nil {
		return err
	}
	if err := kv.boolKey("directed", directed); err != nil {
		return err
	}
	return kv.weightsKey(weights)
}

// finish rejects keys nobody took, listing the valid ones.
func (kv *keyValues) finish(valid ...string) error {
	for _, key := range kv.order {
		if _, left := kv.values[key]; !left {
			continue
		}
		if key == "w" {
			return fmt.Errorf("%s: w=%s: w takes a weight range LO..HI or none here (width is a grid key)", kv.gen, kv.values[key])
		}
		return fmt.Errorf("%s: unknown key %q (valid keys: %s)", kv.gen, key, strings.Join(valid, ", "))
	}
	return nil
}

func parseWeightRange(v string) (WeightRange, error) {
	if v == "none" {
		return WeightRange{}, nil
	}
	lo, hi, ok := strings.Cut(v, "..")
	a, errA := strconv.ParseUint(lo, 10, 32)
	b, errB := strconv.ParseUint(hi, 10, 32)
	if !ok || errA != nil || errB != nil {
		return WeightRange{}, fmt.Errorf("weights=%q is not LO..HI (integers below 2^32) or none", v)
	}
	r := WeightRange{Lo: uint32(a), Hi: uint32(b)}
	if !r.Weighted() {
		// 0..0 would be the zero range, which means unweighted: refuse it
		// rather than drop the weights in silence.
		return WeightRange{}, fmt.Errorf("weights=%s: weights are positive (want 1 <= LO <= HI), or none for an unweighted graph", v)
	}
	return r, r.Validate()
}

func parseGenerator(name, params string) (Source, error) {
	if !slices.Contains(generatorNames, name) {
		return nil, fmt.Errorf("unknown generator %q (known generators: %s), and no file of that name exists", name, strings.Join(generatorNames, ", "))
	}
	kv, err := parseKeyValues(name, params)
	if err != nil {
		return nil, err
	}
	var src interface {
		Source
		Validate() error
	}
	switch name {
	case "rmat":
		p := DefaultRMAT(0)
		err = errors.Join(
			kv.intKey("scale", &p.Scale, true),
			kv.intKey("ef", &p.EdgeFactor, false),
			kv.floatKey("a", &p.A), kv.floatKey("b", &p.B), kv.floatKey("c", &p.C),
			kv.common(&p.Seed, &p.Directed, &p.Weights),
			kv.finish("scale", "ef", "a", "b", "c", "seed", "directed", "weights (or w)"))
		src = p
	case "grid":
		p := Grid{Seed: 1, Weights: DefaultWeights}
		err = errors.Join(
			kv.intKey("w", &p.Width, true), kv.intKey("h", &p.Height, true),
			kv.common(&p.Seed, &p.Directed, &p.Weights),
			kv.finish("w (width, or weights when LO..HI|none)", "h", "seed", "directed", "weights"))
		src = p
	case "er":
		p := ER{Seed: 1, Weights: DefaultWeights}
		err = errors.Join(
			kv.intKey("n", &p.N, true), kv.intKey("m", &p.M, true),
			kv.common(&p.Seed, &p.Directed, &p.Weights),
			kv.finish("n", "m", "seed", "directed", "weights (or w)"))
		src = p
	case "regular":
		p := Regular{Seed: 1, Weights: DefaultWeights}
		err = errors.Join(
			kv.intKey("n", &p.N, true), kv.intKey("d", &p.D, true),
			kv.uintKey("seed", &p.Seed), kv.weightsKey(&p.Weights),
			kv.finish("n", "d", "seed", "weights (or w)"))
		src = p
	}
	if err != nil {
		return nil, firstError(err)
	}
	if err := src.Validate(); err != nil {
		return nil, err
	}
	return src, nil
}

// firstError keeps the first of joined errors: one line per problem, and
// the first problem is the one to fix.
func firstError(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()[0]
	}
	return err
}

const transformNames = "sym, simple, rw=SEED, unweighted, perm=SEED, degsort"

func parseTransforms(parts []string) ([]Transform, error) {
	var ts []Transform
	for _, p := range parts {
		t, err := parseTransform(p)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func parseTransform(s string) (Transform, error) {
	name, arg, hasArg := strings.Cut(s, "=")
	var op TransformOp
	switch name {
	case "sym":
		op = OpSymmetrize
	case "simple":
		op = OpSimple
	case "unweighted":
		op = OpUnweighted
	case "rw":
		op = OpRandomWeights
	case "perm":
		op = OpPermute
	case "degsort":
		op = OpDegreeOrder
	case "":
		if !hasArg {
			return Transform{}, errors.New(`empty transformation after "+"`)
		}
		fallthrough
	default:
		return Transform{}, fmt.Errorf("unknown transformation %q (known: %s)", s, transformNames)
	}
	seeded := op == OpRandomWeights || op == OpPermute
	switch {
	case seeded && !hasArg:
		return Transform{}, fmt.Errorf("transformation %s needs a seed: %s=SEED", name, name)
	case !seeded && hasArg:
		return Transform{}, fmt.Errorf("transformation %s takes no value (got %q)", name, s)
	case !seeded:
		return Transform{Op: op}, nil
	}
	seed, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return Transform{}, fmt.Errorf("transformation %s=%q: the seed is not an unsigned integer", name, arg)
	}
	return Transform{Op: op, Seed: seed}, nil
}
