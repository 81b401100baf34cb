package scheduler

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/warpgraph/warpgraph/graph"
)

// ParamKind is the type of an algorithm's parameter.
type ParamKind int

const (
	// VertexParam is a vertex of the input graph (a uint32 below its
	// vertex count); it defaults to the vertex of maximum out-degree.
	VertexParam ParamKind = iota
	// Uint32Param is a whole number in [Min, Max].
	Uint32Param
	// Uint64Param is any 64-bit whole number (a seed).
	Uint64Param
	// FloatParam is a finite real number in [Min, Max].
	FloatParam
)

func (k ParamKind) String() string {
	return [...]string{"vertex", "uint32", "uint64", "float"}[k]
}

// Param is one parameter an algorithm declares: the command line builds
// its flag, its check and its result field from this declaration.
type Param struct {
	Name, About string
	Kind        ParamKind
	// Default, Min and Max bound Uint32Param and FloatParam values (a
	// Uint64Param takes its whole range; a VertexParam's default is the
	// vertex of maximum out-degree and its range the graph's vertices).
	Default, Min, Max float64
	// Requires names what a scheduler must offer for a value other than
	// the default (SSSP's delta needs delta-stepping buckets).
	Requires Capability
}

// Params are an algorithm's parameter values by name: uint32 for vertex
// and uint32 parameters, uint64 and float64 for the others. ResolveParams
// fills in the defaults and checks every value.
type Params map[string]any

// Uint32 is a vertex or uint32 parameter's value; it panics on a name the
// algorithm did not declare (ResolveParams has filled every declared one).
func (p Params) Uint32(name string) uint32 { return p.get(name).(uint32) }

// Uint64 is a uint64 parameter's value.
func (p Params) Uint64(name string) uint64 { return p.get(name).(uint64) }

// Float is a float parameter's value.
func (p Params) Float(name string) float64 { return p.get(name).(float64) }

func (p Params) get(name string) any {
	x, ok := p[name]
	if !ok {
		panic("scheduler: parameter " + name + " was not resolved")
	}
	return x
}

// Param returns the algorithm's declaration of name (nil: it has none).
func (a *Algorithm) Param(name string) *Param {
	for i := range a.Params {
		if a.Params[i].Name == name {
			return &a.Params[i]
		}
	}
	return nil
}

// UsesSource says the algorithm starts from a source vertex ("source").
func (a *Algorithm) UsesSource() bool {
	p := a.Param(SourceParam)
	return p != nil && p.Kind == VertexParam
}

// SourceParam is the name of traversals' start vertex.
const SourceParam = "source"

// sourceVertex is the declaration of a traversal's start vertex.
var sourceVertex = Param{Name: SourceParam, Kind: VertexParam, About: "source vertex (default: the vertex of maximum out-degree)"}

// CheckParams checks given values against a's declarations without a
// graph: every name declared, every value of its kind and in range. A
// vertex is checked against the graph by ResolveParams.
func (a *Algorithm) CheckParams(given Params) error {
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		d := a.Param(name)
		if d == nil {
			return fmt.Errorf("%s has no parameter %q (%s)", a.Name, name, a.paramNames())
		}
		if err := d.check(given[name]); err != nil {
			return err
		}
	}
	return nil
}

// ResolveParams checks given values (CheckParams) and the vertices against
// g, and returns them with every undeclared one at its default.
func (a *Algorithm) ResolveParams(g *graph.Graph, given Params) (Params, error) {
	if err := a.CheckParams(given); err != nil {
		return nil, err
	}
	out := Params{}
	for _, d := range a.Params {
		x, ok := given[d.Name]
		switch {
		case ok:
			x = d.normalise(x)
		case d.Kind == VertexParam:
			if g.NumVertices() == 0 {
				return nil, fmt.Errorf("the graph has no vertices, so %s has no %s", a.Name, d.Name)
			}
			x = g.MaxDegreeVertex()
		default:
			x = d.normalise(d.Default)
		}
		if v, isVertex := x.(uint32); isVertex && d.Kind == VertexParam && int64(v) >= int64(g.NumVertices()) {
			return nil, fmt.Errorf("--%s %d is not a vertex: the graph has vertices 0..%d", d.Name, v, g.NumVertices()-1)
		}
		out[d.Name] = x
	}
	return out, nil
}

func (a *Algorithm) paramNames() string {
	if len(a.Params) == 0 {
		return "it takes none"
	}
	var names []string
	for _, d := range a.Params {
		names = append(names, d.Name)
	}
	return "its parameters are " + strings.Join(names, ", ")
}

// ParseValue reads a command-line value of the parameter's kind and checks
// its range.
func (d *Param) ParseValue(s string) (any, error) {
	var x any
	switch d.Kind {
	case VertexParam, Uint32Param:
		u, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("--%s %q is not a whole number in 0..%d", d.Name, s, uint32(math.MaxUint32))
		}
		x = uint32(u)
	case Uint64Param:
		u, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--%s %q is not a whole number in 0..%d", d.Name, s, uint64(math.MaxUint64))
		}
		x = u
	case FloatParam:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("--%s %q is not a number", d.Name, s)
		}
		x = f
	}
	return x, d.check(x)
}

// check tests a value's kind and range.
func (d *Param) check(x any) error {
	switch d.Kind {
	case VertexParam, Uint32Param:
		u, ok := asUint(x)
		if !ok || u > math.MaxUint32 {
			return fmt.Errorf("--%s %v is not a whole number in 0..%d", d.Name, x, uint32(math.MaxUint32))
		}
		if d.Kind == Uint32Param && (float64(u) < d.Min || float64(u) > d.Max) {
			return fmt.Errorf("--%s %d is out of range: use %g..%g", d.Name, u, d.Min, d.Max)
		}
	case Uint64Param:
		if _, ok := asUint(x); !ok {
			return fmt.Errorf("--%s %v is not a whole number in 0..%d", d.Name, x, uint64(math.MaxUint64))
		}
	case FloatParam:
		f, ok := x.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < d.Min || f > d.Max {
			return fmt.Errorf("--%s %v is out of range: use a number in [%g, %g]", d.Name, x, d.Min, d.Max)
		}
	}
	return nil
}

// normalise converts a checked value to the kind's Go type.
func (d *Param) normalise(x any) any {
	switch d.Kind {
	case VertexParam, Uint32Param:
		u, _ := asUint(x)
		return uint32(u)
	case Uint64Param:
		u, _ := asUint(x)
		return u
	}
	return x
}

// asUint reads a whole number of any Go integer type (or a float64 default
// that is one).
func asUint(x any) (uint64, bool) {
	switch v := x.(type) {
	case uint32:
		return uint64(v), true
	case uint64:
		return v, true
	case int:
		return uint64(v), v >= 0
	case int64:
		return uint64(v), v >= 0
	case uint:
		return uint64(v), true
	case float64:
		return uint64(v), v >= 0 && v == math.Trunc(v) && v <= math.MaxUint64
	}
	return 0, false
}

// DeclaredParam is one parameter name over every algorithm that declares
// it, for the command line's flags.
type DeclaredParam struct {
	Param
	// Algorithms declare it, sorted.
	Algorithms []string
}

// DeclaredParams lists every algorithm parameter by name, sorted; it
// panics when two algorithms declare one name with different kinds (a
// broken invariant of the registrations).
func DeclaredParams() []DeclaredParam {
	byName := map[string]*DeclaredParam{}
	for _, a := range Algorithms() {
		for _, p := range a.Params {
			d, ok := byName[p.Name]
			if !ok {
				d = &DeclaredParam{Param: p}
				byName[p.Name] = d
			} else if d.Kind != p.Kind {
				panic(fmt.Sprintf("scheduler: parameter %s is a %s in %s but a %s in %s", p.Name, d.Kind, d.Algorithms[0], p.Kind, a.Name))
			}
			d.Algorithms = append(d.Algorithms, a.Name)
		}
	}
	out := make([]DeclaredParam, 0, len(byName))
	for _, d := range byName {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(x, y DeclaredParam) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// Select keeps the values of the parameters a declares (a caller holding
// values for several algorithms passes each its own).
func (a *Algorithm) Select(values Params) Params {
	out := Params{}
	for _, d := range a.Params {
		if x, ok := values[d.Name]; ok {
			out[d.Name] = x
		}
	}
	return out
}
