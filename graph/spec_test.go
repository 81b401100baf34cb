package graph

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpecGenerators(t *testing.T) {
	rmat := DefaultRMAT(16)
	tests := []struct {
		spec      string
		want      Source
		canonical string
	}{
		{"rmat:scale=16", rmat,
			"rmat:scale=16,ef=16,a=0.57,b=0.19,c=0.19,directed=0,weights=1..64,seed=1"},
		{"rmat", nil, ""}, // error: scale is required (checked below)
		{"rmat:scale=3,ef=4,a=0.5,b=0.2,c=0.1,seed=9,directed=1,w=none",
			RMAT{Scale: 3, EdgeFactor: 4, A: 0.5, B: 0.2, C: 0.1, Seed: 9, Directed: true},
			"rmat:scale=3,ef=4,a=0.5,b=0.2,c=0.1,directed=1,weights=none,seed=9"},
		{"rmat:scale=5,weights=2..8", RMAT{Scale: 5, EdgeFactor: 16, A: 0.57, B: 0.19, C: 0.19, Seed: 1, Weights: WeightRange{2, 8}},
			"rmat:scale=5,ef=16,a=0.57,b=0.19,c=0.19,directed=0,weights=2..8,seed=1"},
		{"rmat: scale = 5 , directed=true", RMAT{Scale: 5, EdgeFactor: 16, A: 0.57, B: 0.19, C: 0.19, Seed: 1, Directed: true, Weights: DefaultWeights},
			"rmat:scale=5,ef=16,a=0.57,b=0.19,c=0.19,directed=1,weights=1..64,seed=1"},
		{"grid:w=640,h=480", Grid{Width: 640, Height: 480, Seed: 1, Weights: DefaultWeights},
			"grid:w=640,h=480,directed=0,weights=1..64,seed=1"},
		{"grid:w=1..9,w=3,h=2", Grid{Width: 3, Height: 2, Seed: 1, Weights: WeightRange{1, 9}},
			"grid:w=3,h=2,directed=0,weights=1..9,seed=1"},
		{"grid:h=2,w=3,w=none,seed=0", Grid{Width: 3, Height: 2},
			"grid:w=3,h=2,directed=0,weights=none,seed=0"},
		{"grid:w=1,h=1,weights=none,directed=1", Grid{Width: 1, Height: 1, Seed: 1, Directed: true},
			"grid:w=1,h=1,directed=1,weights=none,seed=1"},
		{"er:n=100,m=400", ER{N: 100, M: 400, Seed: 1, Weights: DefaultWeights},
			"er:n=100,m=400,directed=0,weights=1..64,seed=1"},
		{"er:n=3,m=6,directed=1,seed=18446744073709551615", ER{N: 3, M: 6, Seed: 1<<64 - 1, Directed: true, Weights: DefaultWeights},
			"er:n=3,m=6,directed=1,weights=1..64,seed=18446744073709551615"},
	}
	for _, tc := range tests {
		if tc.want == nil {
			continue
		}
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSpec(tc.spec)
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Source)
			assert.Empty(t, s.Transforms)
			assert.Equal(t, tc.canonical, s.String())
			again, err := ParseSpec(s.String())
			require.NoError(t, err)
			assert.Equal(t, s, again, "canonical form does not round-trip")
		})
	}
}

func TestParseSpecTransforms(t *testing.T) {
	s, err := ParseSpec("grid:w=4,h=4+sym+simple+rw=3+unweighted+perm=18446744073709551615")
	require.NoError(t, err)
	assert.Equal(t, []Transform{
		{Op: OpSymmetrize}, {Op: OpSimple}, {Op: OpRandomWeights, Seed: 3},
		{Op: OpUnweighted}, {Op: OpPermute, Seed: 1<<64 - 1},
	}, s.Transforms)
	assert.Equal(t, "grid:w=4,h=4,directed=0,weights=1..64,seed=1+sym+simple+rw=3+unweighted+perm=18446744073709551615", s.String())
}

func TestParseSpecFiles(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "g.el")
	plus := filepath.Join(dir, "a+b.el")
	genLike := filepath.Join(dir, "rmat:scale=3")
	for _, p := range []string{plain, plus, genLike} {
		require.NoError(t, os.WriteFile(p, []byte("0 1\n1 2\n"), 0o644))
	}
	missing := filepath.Join(dir, "missing.mtx")
	tests := []struct {
		spec       string
		path       string
		transforms []Transform
	}{
		{plain, plain, nil},
		{plain + "+sym+perm=2", plain, []Transform{{Op: OpSymmetrize}, {Op: OpPermute, Seed: 2}}},
		{plain + "+perm=2+degsort", plain, []Transform{{Op: OpPermute, Seed: 2}, {Op: OpDegreeOrder}}},
		{plus, plus, nil},
		{plus + "+sym", plus, []Transform{{Op: OpSymmetrize}}},
		{genLike, genLike, nil},
		{missing, missing, nil},
		{missing + "+simple", missing, []Transform{{Op: OpSimple}}},
		{filepath.Join(dir, "x+y.el") + "+sym", filepath.Join(dir, "x+y.el"), []Transform{{Op: OpSymmetrize}}},
		{`C:\graphs\road.gr`, `C:\graphs\road.gr`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := ParseSpec(tc.spec)
			require.NoError(t, err)
			assert.Equal(t, File{Path: tc.path}, s.Source)
			assert.Equal(t, tc.transforms, s.Transforms)
			assert.Equal(t, tc.spec, s.String())
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		spec string
		msg  string // a fragment of the one-line error
	}{
		{"", "empty spec"},
		{"  ", "empty spec"},
		{"rmta:scale=3", `unknown generator "rmta" (known generators: er, grid, regular, rmat)`},
		{"rmat", "scale is required"},
		{"rmat:ef=4", "scale is required"},
		{"rmat:scale=0", "scale 0 is out of range 1..30"},
		{"rmat:scale=31", "scale 31 is out of range 1..30"},
		{"rmat:scale=x", `scale="x" is not an integer`},
		{"rmat:scale=3.5", `scale="3.5" is not an integer`},
		{"rmat:scale=99999999999999999999", "is not an integer"},
		{"rmat:scale=3,ef=0", "ef 0 must be at least 1"},
		{"rmat:scale=3,a=0", "a=0 must lie strictly between 0 and 1"},
		{"rmat:scale=3,b=1", "b=1 must lie strictly between 0 and 1"},
		{"rmat:scale=3,c=-0.1", "c=-0.1 must lie strictly between"},
		{"rmat:scale=3,a=NaN", "a=NaN must lie strictly between"},
		{"rmat:scale=3,a=0.5,b=0.3,c=0.2", "a+b+c = 1 must be below 1"},
		{"rmat:scale=3,a=high", `a="high" is not a number`},
		{"rmat:scale=26", "more than 2^31-1 edges"},
		{"rmat:scale=3,seed=-1", `seed="-1" is not an unsigned integer`},
		{"rmat:scale=3,directed=yes", `directed="yes" is not 0 or 1`},
		{"rmat:scale=3,w=5", "w=5: w takes a weight range LO..HI or none here"},
		{"rmat:scale=3,weights=5", `weights="5" is not LO..HI`},
		{"rmat:scale=3,weights=0..5", "weight range 0..5 is empty or not positive"},
		{"rmat:scale=3,weights=0..0", "weights=0..0: weights are positive (want 1 <= LO <= HI), or none for an unweighted graph"},
		{"grid:w=2,h=2,w=0..0", "weights=0..0: weights are positive"},
		{"rmat:scale=3,weights=9..5", "weight range 9..5 is empty or not positive"},
		{"rmat:scale=3,weights=1..4294967296", "is not LO..HI"},
		{"rmat:scale=3,weights=a..b", "is not LO..HI"},
		{"rmat:scale=3,size=4", `unknown key "size" (valid keys: scale, ef, a, b, c, seed, directed, weights (or w))`},
		{"rmat:scale=3,scale=4", `key "scale" given twice`},
		{"rmat:scale=3,w=1..2,weights=none", `key "weights" given twice`},
		{"rmat:scale=3,,ef=2", `"" is not key=value`},
		{"rmat:scale", `"scale" is not key=value`},
		{"rmat:=3", `"=3" is not key=value`},
		{"grid:w=10", "h is required"},
		{"grid:h=10,w=1..5", "w is required"},
		{"grid:w=0,h=5", "both must be at least 1"},
		{"grid:w=5,h=-1", "both must be at least 1"},
		{"grid:w=65536,h=65536", "more than the 2^31-1"},
		{"grid:w=32768,h=32768", "more than 2^31-1 edges"},
		{"grid:w=3,h=3,w=4", `key "w" given twice`},
		{"grid:w=3,h=3,n=4", `unknown key "n" (valid keys: w (width, or weights when LO..HI|none), h, seed, directed, weights)`},
		{"er:n=10", "m is required"},
		{"er:m=10", "n is required"},
		{"er:n=0,m=0", "n=0 is out of range"},
		{"er:n=3000000000,m=1", "n=3000000000 is out of range"},
		{"er:n=10,m=-1", "m=-1 must not be negative"},
		{"er:n=10,m=46", "m=46 exceeds the 45 possible edges on n=10 vertices: n(n-1)/2 unordered pairs (undirected)"},
		{"er:n=10,m=91,directed=1", "m=91 exceeds the 90 possible edges on n=10 vertices: n(n-1) ordered pairs (directed)"},
		{"er:n=100000,m=1500000000", "more than 2^31-1 edges"},
		{"er:n=10,m=5,w=3", "w=3: w takes a weight range"},
		{"er:n=10,m=5,scale=3", `unknown key "scale" (valid keys: n, m, seed, directed, weights (or w))`},
		{"rmat:scale=3+", `empty transformation after "+"`},
		{"rmat:scale=3++sym", `empty transformation after "+"`},
		{"rmat:scale=3+symmetrize", `unknown transformation "symmetrize" (known: sym, simple, rw=SEED, unweighted, perm=SEED, degsort)`},
		{"rmat:scale=3+degsort=1", `transformation degsort takes no value (got "degsort=1")`},
		{"rmat:scale=3+=4", `unknown transformation "=4"`},
		{"rmat:scale=3+rw", "transformation rw needs a seed: rw=SEED"},
		{"rmat:scale=3+perm", "transformation perm needs a seed: perm=SEED"},
		{"rmat:scale=3+perm=x", `transformation perm="x": the seed is not an unsigned integer`},
		{"rmat:scale=3+sym=1", `transformation sym takes no value (got "sym=1")`},
		{"rmat:scale=3+unweighted=0", "transformation unweighted takes no value"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseSpec(tc.spec)
			require.Error(t, err)
			var se *SpecError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.spec, se.Spec)
			assert.Contains(t, err.Error(), tc.msg)
			assert.NotContains(t, err.Error(), "\n", "errors are one line")
			_, err = Load(tc.spec, LoadOptions{})
			assert.ErrorAs(t, err, &se, "Load fails the same way")
		})
	}
}

func TestParseSpecExistingFileWithBadTransform(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.el")
	require.NoError(t, os.WriteFile(path, []byte("0 1\n"), 0o644))
	_, err := ParseSpec(path + "+simpel")
	var se *SpecError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), `unknown transformation "simpel"`)
}

func TestLoadMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.mtx")
	for _, spec := range []string{missing, missing + "+sym"} {
		t.Run(spec, func(t *testing.T) {
			_, err := Load(spec, LoadOptions{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
			var se *SpecError
			assert.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), "no such file")
			assert.Contains(t, err.Error(), missing)
			assert.Equal(t, 1, strings.Count(err.Error(), missing), "path named once: %v", err)
		})
	}
}

func TestLoadFileWithTransforms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tri+loop.el")
	require.NoError(t, os.WriteFile(path, []byte("0 1\n1 2\n2 0\n2 2\n0 1\n"), 0o644))
	var stages []string
	g, err := Load(path+"+sym+simple+rw=1", LoadOptions{Progress: func(stage string, done, total int64) {
		if len(stages) == 0 || stages[len(stages)-1] != stage {
			stages = append(stages, stage)
		}
	}})
	require.NoError(t, err)
	assert.False(t, g.Directed)
	assert.Equal(t, 3, g.NumVertices())
	assert.Equal(t, 6, g.NumEdges())
	checkSimple(t, g)
	checkSymmetric(t, g)
	assert.Equal(t, []string{"read", "sym", "simple", "rw=1"}, stages[len(stages)-4:])
}

func TestLoadGeneratorEqualsSourceLoad(t *testing.T) {
	g, err := Load("grid:w=5,h=4+perm=3", LoadOptions{})
	require.NoError(t, err)
	plain, err := Grid{Width: 5, Height: 4, Seed: 1, Weights: DefaultWeights}.Load(nil)
	require.NoError(t, err)
	want, _ := PermuteIDs(plain, 3)
	assert.Equal(t, digest(want), digest(g))
}
