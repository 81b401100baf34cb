package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/sim"
)

// compareFixtures writes a simulated profile of kernel k (a barrier line
// and a load line) and an Nsight Compute source page of the same kernel
// in which the load line's share is three times larger.
func compareFixtures(t *testing.T) (simFile, ncuFile string) {
	t.Helper()
	dir := t.TempDir()
	report := sim.ProfileReport{Kernels: []sim.ProfileKernel{{
		Kernel: "k", InstructionCycles: 1000,
		ByReason: map[string]uint64{"barrier": 800, "global_load": 200, "finished": 5000},
		Lines: []sim.ProfileLine{
			{File: "./kernels/k.cu", Line: 10, Source: "__syncthreads();", Cycles: 800, ByReason: map[string]uint64{"barrier": 800}},
			{File: "./kernels/k.cu", Line: 12, Source: "x = a[i];", Cycles: 200, ByReason: map[string]uint64{"global_load": 200}},
		},
	}}}
	b, err := json.Marshal(report)
	require.NoError(t, err)
	simFile = filepath.Join(dir, "sim.json")
	require.NoError(t, os.WriteFile(simFile, b, 0o644))
	ncu := `"File Path","kernels/k.cu"
"Function Name","k"
"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_barrier","stall_long_sb"
"11","int y = 0;","-","-","40","8","40","0"
"","","0x10","MOV R1, RZ","40","8","40","0"
"12","x = a[i];","-","-","60","8","0","60"
`
	ncuFile = filepath.Join(dir, "k.csv")
	require.NoError(t, os.WriteFile(ncuFile, []byte(ncu), 0o644))
	return simFile, ncuFile
}

func TestProfileCompareJoinsTheLines(t *testing.T) {
	simFile, ncuFile := compareFixtures(t)
	out, code, err := execute(t, "profile", "compare", "--sim", simFile, "--ncu", ncuFile)
	require.NoError(t, err, out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "kernel k: simulated 1000 warp-cycles at an instruction")
	assert.Contains(t, out, "simulated, by reason: barrier 80%, global_load 20%", "finished warps are not at an instruction")
	assert.Contains(t, out, "GPU, by stall reason: long_sb 60%, barrier 40%")
	lines := strings.Split(out, "\n")
	find := func(prefix string) []string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return strings.Fields(l)
			}
		}
		t.Fatalf("no row %s in\n%s", prefix, out)
		return nil
	}
	assert.Equal(t, []string{"kernels/k.cu:12", "20.0", "60.0", "3.00"}, find("kernels/k.cu:12 ")[:4], "one line, both sides, the ratio")
	assert.Equal(t, []string{"kernels/k.cu:10", "80.0", "–", "–"}, find("kernels/k.cu:10 ")[:4], "the barrier only simulated here")
	assert.Equal(t, []string{"kernels/k.cu:11", "–", "40.0", "–"}, find("kernels/k.cu:11 ")[:4], "and on the next line on the GPU")
	assert.Less(t, strings.Index(out, "k.cu:10 "), strings.Index(out, "k.cu:12 "), "ranked by the larger share")

	out, _, err = execute(t, "profile", "compare", "--sim", simFile, "--ncu", ncuFile, "--top", "1")
	require.NoError(t, err)
	assert.NotContains(t, out, "k.cu:11 ", "--top 1 keeps each side's first line")
}

func TestProfileCompareBadInput(t *testing.T) {
	simFile, ncuFile := compareFixtures(t)
	notJSON := filepath.Join(t.TempDir(), "x.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("{oops"), 0o644))
	for name, c := range map[string]struct {
		args    []string
		mention string
	}{
		"no files":          {[]string{"profile", "compare"}, "needs --sim PROFILE.json and --ncu SOURCE.csv"},
		"missing sim":       {[]string{"profile", "compare", "--sim", "nope.json", "--ncu", ncuFile}, "nope.json"},
		"not a profile":     {[]string{"profile", "compare", "--sim", notJSON, "--ncu", ncuFile}, "not a simulator profile"},
		"not a source page": {[]string{"profile", "compare", "--sim", simFile, "--ncu", simFile}, "not ncu --page source"},
		"unknown kernel":    {[]string{"profile", "compare", "--sim", simFile, "--ncu", ncuFile, "--kernel", "q"}, `no kernel "q" (it has k)`},
		"top zero":          {[]string{"profile", "compare", "--sim", simFile, "--ncu", ncuFile, "--top", "0"}, "--top 0"},
	} {
		t.Run(name, func(t *testing.T) {
			out, code, err := execute(t, c.args...)
			require.Error(t, err, out)
			assert.Equal(t, 2, code)
			assert.Contains(t, err.Error(), c.mention)
		})
	}
}
