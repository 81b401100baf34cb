package ptx

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden from the current output")

// corpus returns the PTX files the golden and fuzz tests use: this
// package's test kernels and every generated kernel present in
// kernels/ptx.
func corpus(t testing.TB) []string {
	var files []string
	for _, pattern := range []string{"testdata/*.ptx", "../../kernels/ptx/*.ptx"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.NotEmpty(t, files)
	return files
}

// goldenName maps a PTX path to its golden file; kernels from kernels/ptx
// get a "kernels_" prefix so names never collide with test kernels.
func goldenName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".ptx")
	if strings.Contains(filepath.ToSlash(path), "kernels/ptx/") {
		base = "kernels_" + base
	}
	return filepath.Join("testdata", "golden", base+".golden")
}

// TestGolden parses every corpus file and compares the dump of the lowered
// form with its golden file. Run `go test ./sim/ptx -update` to regenerate.
func TestGolden(t *testing.T) {
	for _, path := range corpus(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err := Parse(filepath.Base(path), src)
			require.NoError(t, err)
			got := m.Dump()
			golden := goldenName(path)
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test ./sim/ptx -update")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestConcurrentLoweringMatchesSerial parses every corpus file with its
// functions lowered at once and one after another: the modules must be
// equal, variable order and register numbering included.
func TestConcurrentLoweringMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, path := range corpus(t) {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		serial, err := parse(filepath.Base(path), src, false)
		require.NoError(t, err)
		concurrent, err := parse(filepath.Base(path), src, true)
		require.NoError(t, err, path)
		if !reflect.DeepEqual(serial, concurrent) {
			t.Errorf("%s: the concurrent lowering differs from the serial one", path)
		}
	}
}
