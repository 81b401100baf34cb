package hw

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// NsightSource is Nsight Compute's source page of one profiled kernel, by
// CUDA source line: what `ncu --import REPORT --page source --csv
// --print-source cuda,sass` prints for a kernel JIT-compiled with line
// information (JITLineInfoEnv). Each line carries its warp-state samples
// (a sample is a warp caught not issuing, or issuing, charged to the
// instruction it is at: a wait for a load's value to the instruction that
// needs it, as the simulator's --profile charges it) split by stall
// reason, and the warp-instructions it executed.
type NsightSource struct {
	// Kernel is the profiled function ("Function Name").
	Kernel string
	// Lines in the order the page lists them (by file, then line).
	Lines []NsightLine
	// Samples is the sum of the lines' samples.
	Samples float64
}

// NsightLine is one CUDA source line's share of a kernel's samples.
type NsightLine struct {
	File   string
	Line   int
	Source string
	// Samples counts every warp-state sample at the line's instructions.
	Samples float64
	// Stalls splits Samples by Nsight Compute's reason, without the
	// "stall_" prefix (barrier, long_sb, membar, wait, selected, ...).
	Stalls map[string]float64
	// WarpInstructions is the line's executed warp-level instructions.
	WarpInstructions float64
}

// The source page's column names that NsightSource reads.
const (
	nsightSamplesColumn      = "Warp Stall Sampling (All Samples)"
	nsightInstructionsColumn = "Instructions Executed"
	nsightStallPrefix        = "stall_"
	nsightNotIssuedSuffix    = "(Not Issued)"
)

// ParseNsightSource reads one kernel's source page (CSV, --print-source
// cuda or cuda,sass). The CUDA-line rows carry the line's totals; the SASS
// rows under them (no line number) are skipped. A page of several kernels
// is refused: profile one kernel (ncu -k) per report.
func ParseNsightSource(r io.Reader) (*NsightSource, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var (
		out    NsightSource
		file   string
		header map[string]int
		stalls []string
		row    int
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		row++
		if err != nil {
			return nil, fmt.Errorf("nsight source page: %w", err)
		}
		if len(rec) == 0 {
			continue
		}
		switch rec[0] {
		case "File Path", "File Name":
			if len(rec) < 2 {
				return nil, fmt.Errorf("nsight source page, row %d: %q without a path", row, rec[0])
			}
			file = strings.TrimPrefix(rec[1], "./")
			continue
		case "Function Name", "Kernel Name":
			if len(rec) < 2 {
				return nil, fmt.Errorf("nsight source page, row %d: %q without a name", row, rec[0])
			}
			if out.Kernel != "" && rec[1] != out.Kernel {
				return nil, fmt.Errorf("nsight source page, row %d: a second kernel %q after %q: profile one kernel per report (ncu -k)", row, rec[1], out.Kernel)
			}
			out.Kernel = rec[1]
			continue
		case "Line No":
			header = map[string]int{}
			stalls = stalls[:0]
			for i, name := range rec {
				if _, seen := header[name]; !seen {
					header[name] = i
				}
				if strings.HasPrefix(name, nsightStallPrefix) && !strings.HasSuffix(name, nsightNotIssuedSuffix) {
					stalls = append(stalls, name)
				}
			}
			if _, ok := header[nsightSamplesColumn]; !ok {
				return nil, fmt.Errorf("nsight source page, row %d: no %q column: profile with --section SourceCounters", row, nsightSamplesColumn)
			}
			continue
		}
		if rec[0] == "" {
			continue // a SASS row under its CUDA line
		}
		if header == nil {
			return nil, fmt.Errorf("nsight source page, row %d: data before the \"Line No\" header: not ncu --page source --csv --print-source cuda,sass output", row)
		}
		line, err := strconv.Atoi(rec[0])
		if err != nil || line < 0 {
			return nil, fmt.Errorf("nsight source page, row %d: line number %q", row, rec[0])
		}
		l := NsightLine{File: file, Line: line, Stalls: map[string]float64{}}
		if len(rec) > 1 {
			l.Source = rec[1]
		}
		value := func(name string) (float64, error) {
			i, ok := header[name]
			if !ok || i >= len(rec) || rec[i] == "-" || rec[i] == "" {
				return 0, nil
			}
			v, err := strconv.ParseFloat(strings.ReplaceAll(rec[i], ",", ""), 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("nsight source page, row %d: %s = %q is not a count", row, name, rec[i])
			}
			return v, nil
		}
		if l.Samples, err = value(nsightSamplesColumn); err != nil {
			return nil, err
		}
		if l.WarpInstructions, err = value(nsightInstructionsColumn); err != nil {
			return nil, err
		}
		for _, name := range stalls {
			v, err := value(name)
			if err != nil {
				return nil, err
			}
			if v > 0 {
				l.Stalls[strings.TrimPrefix(name, nsightStallPrefix)] = v
			}
		}
		out.Samples += l.Samples
		out.Lines = append(out.Lines, l)
	}
	if header == nil {
		return nil, errors.New("nsight source page: no \"Line No\" header: not ncu --page source --csv --print-source cuda,sass output")
	}
	return &out, nil
}
