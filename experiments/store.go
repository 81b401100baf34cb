package experiments

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Point statuses in the status column.
const (
	StatusOK      = "ok"      // ran and validated
	StatusInvalid = "invalid" // ran, but the result disagrees with the reference
	StatusError   = "error"   // did not run to the end (the error column says why)
)

// VolatileColumns are the columns that differ between two runs of the same
// points (the machine and the clock), always last in the header so that
// comparisons can cut them off.
var VolatileColumns = []string{"wall_seconds", "machine", "date"}

// Row is one CSV row by column name.
type Row map[string]string

// Key returns the row's point key.
func (r Row) Key() string { return r["key"] }

// Float reads a numeric column; ok is false for an empty or non-numeric
// cell.
func (r Row) Float(name string) (float64, bool) {
	v, err := strconv.ParseFloat(r[name], 64)
	return v, err == nil
}

// Header returns the CSV columns of an experiment: identity, axes,
// parameters, statistics, outcome, provenance, then VolatileColumns.
func Header(e *Experiment) []string {
	h := []string{"experiment", "key", "target", "config", "sim_mode", "device"}
	h = append(h, e.axisNames()...)
	h = append(h, paramNames(e.Params)...)
	h = append(h, statNames(e.Stats)...)
	h = append(h, "status", "validation", "error", "commit")
	return append(h, VolatileColumns...)
}

// store is a sweep's data.csv: a header and then one line per finished
// point, each appended with one write and made durable with fsync before
// the next point starts. A killed sweep therefore loses at most the point
// that was running (and at worst leaves a partial last line, which the
// next open cuts off).
type store struct {
	path   string
	header []string
	f      *os.File
}

// openStore opens or creates path with the given header and returns the
// rows already there, the last row of each key winning (a retried point
// appends a new row).
func openStore(path string, header []string) (*store, []Row, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := writeAtomically(path, func(w io.Writer) error { return writeCSV(w, header, nil) }); err != nil {
			return nil, nil, err
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if n := bytes.LastIndexByte(data, '\n') + 1; n < len(data) {
		// A partial last line: the sweep was killed while appending.
		if err := os.Truncate(path, int64(n)); err != nil {
			return nil, nil, fmt.Errorf("cutting the partial last line of %s: %w", path, err)
		}
		data = data[:n]
	}
	got, rows, err := parseCSV(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Equal(got, header) {
		return nil, nil, fmt.Errorf("%s has other columns than experiment %s writes now (%d vs %d columns; the experiment changed?): move it away or use --out",
			path, header[0], len(got), len(header))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, err
	}
	return &store{path: path, header: header, f: f}, latestByKey(rows), nil
}

// latestByKey keeps the last row of every key, in the order of first
// appearance.
func latestByKey(rows []Row) []Row {
	at := map[string]int{}
	var out []Row
	for _, r := range rows {
		if i, ok := at[r.Key()]; ok {
			out[i] = r
			continue
		}
		at[r.Key()] = len(out)
		out = append(out, r)
	}
	return out
}

// append writes one row durably.
func (s *store) append(r Row) error {
	var buf bytes.Buffer
	if err := writeCSV(&buf, nil, []Row{r}, s.header...); err != nil {
		return err
	}
	if _, err := s.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("appending to %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", s.path, err)
	}
	return nil
}

func (s *store) close() error { return s.f.Close() }

// oneLine keeps every cell on one line, so that one row is one line.
var oneLine = strings.NewReplacer("\r\n", " | ", "\n", " | ", "\r", " | ")

// writeCSV writes an optional header line and rows (cells by the given
// columns, or by header when columns is empty).
func writeCSV(w io.Writer, header []string, rows []Row, columns ...string) error {
	if len(columns) == 0 {
		columns = header
	}
	cw := csv.NewWriter(w)
	if header != nil {
		if err := cw.Write(header); err != nil {
			return err
		}
	}
	cells := make([]string, len(columns))
	for _, r := range rows {
		for i, c := range columns {
			cells[i] = oneLine.Replace(r[c])
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// parseCSV reads a header and rows.
func parseCSV(data []byte) ([]string, []Row, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	records, err := cr.ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(records) == 0 {
		return nil, nil, errors.New("empty CSV: no header")
	}
	header := records[0]
	rows := make([]Row, 0, len(records)-1)
	for _, rec := range records[1:] {
		r := make(Row, len(header))
		for i, c := range header {
			r[c] = rec[i]
		}
		rows = append(rows, r)
	}
	return header, rows, nil
}

// ReadCSV reads a sweep's CSV file.
func ReadCSV(path string) ([]string, []Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	h, rows, err := parseCSV(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, rows, nil
}

// writeAtomically writes path through a temporary file in the same
// folder, synced and renamed into place: readers see the old file or the
// whole new one, never a part.
func writeAtomically(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		_ = d.Sync()
		d.Close()
	}
	return nil
}
