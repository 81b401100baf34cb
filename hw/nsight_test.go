package hw

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/nsight-source-wcc-atos-warp.csv is Nsight Compute 2025.3's
// source page (--page source --csv --print-source cuda,sass) of WCC under
// Atos persistent warp workers on the H100 (results/profile-hw), with all
// but two SASS rows under each CUDA line dropped.
func TestParseNsightSourceReadsTheCUDALines(t *testing.T) {
	f, err := os.Open("testdata/nsight-source-wcc-atos-warp.csv")
	require.NoError(t, err)
	defer f.Close()
	src, err := ParseNsightSource(f)
	require.NoError(t, err)
	assert.Equal(t, "wcc_atos_warp_persist", src.Kernel)
	assert.Equal(t, 17182.0, src.Samples)
	var wait *NsightLine
	for i := range src.Lines {
		l := &src.Lines[i]
		var sum float64
		for _, v := range l.Stalls {
			sum += v
		}
		assert.InDelta(t, l.Samples, sum, 0.5, "%s:%d: the reasons add up to the samples", l.File, l.Line)
		if l.File == "kernels/lib/acc.cuh" && l.Line == 125 {
			wait = l
		}
	}
	require.NotNil(t, wait, "the line the workers wait at")
	assert.InDelta(t, 0.541, wait.Samples/src.Samples, 0.001)
	assert.Greater(t, wait.Stalls["long_sb"], 0.99*wait.Samples)
	assert.Equal(t, 381783.0, wait.WarpInstructions)
	assert.Contains(t, wait.Source, "wg_min")
}

func TestParseNsightSourceRefusesOtherInput(t *testing.T) {
	header := `"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_barrier","stall_barrier (Not Issued)"` + "\n"
	for name, c := range map[string]struct{ in, err string }{
		"empty":             {"", "no \"Line No\" header"},
		"another csv":       {"a,b\n1,2\n", "data before the \"Line No\" header"},
		"no samples column": {`"Line No","Source"` + "\n" + `"3","x"` + "\n", "--section SourceCounters"},
		"bad line number":   {header + `"x3","y","-","-","1","1","1","0"` + "\n", "line number \"x3\""},
		"bad count":         {header + `"3","y","-","-","lots","1","1","0"` + "\n", "is not a count"},
		"negative count":    {header + `"3","y","-","-","-4","1","1","0"` + "\n", "is not a count"},
		"two kernels": {`"Function Name","a"` + "\n" + header + `"Function Name","b"` + "\n",
			"a second kernel \"b\" after \"a\""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseNsightSource(strings.NewReader(c.in))
			assert.ErrorContains(t, err, c.err)
		})
	}
	src, err := ParseNsightSource(strings.NewReader(`"File Path","./k.cu"` + "\n" + header +
		`"3","y","-","-","4","2","3","1"` + "\n" + `"","","0x10","BAR.SYNC","4","2","3","1"` + "\n"))
	require.NoError(t, err)
	require.Len(t, src.Lines, 1, "SASS rows are not lines")
	assert.Equal(t, NsightLine{File: "k.cu", Line: 3, Source: "y", Samples: 4, WarpInstructions: 2,
		Stalls: map[string]float64{"barrier": 3}}, src.Lines[0], "the not-issued split is not a reason of its own")
}

func FuzzParseNsightSource(f *testing.F) {
	f.Add(`"Line No","Source","Warp Stall Sampling (All Samples)","stall_wait"` + "\n" + `"1","a","2","2"` + "\n")
	f.Add(`"File Path","k.cu"` + "\n" + `"Function Name","k"` + "\n")
	f.Add("\"unterminated\n")
	f.Fuzz(func(t *testing.T, in string) {
		src, err := ParseNsightSource(strings.NewReader(in))
		if err == nil {
			for _, l := range src.Lines {
				assert.GreaterOrEqual(t, l.Samples, 0.0)
			}
		}
	})
}
