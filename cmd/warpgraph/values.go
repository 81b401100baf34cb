package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
)

// binaryValuesMagic opens a binary --out file; the version that follows
// changes whenever the layout does.
const (
	binaryValuesMagic   = "WGVALUES"
	binaryValuesVersion = 1
)

// valuesHeader names what produced a per-vertex result: the text format's
// '#' lines and the binary format's JSON header carry the same facts.
type valuesHeader struct {
	Algorithm string  `json:"algorithm"`
	Graph     string  `json:"graph"`
	Vertices  int     `json:"vertices"`
	Edges     int     `json:"edges"`
	Source    *uint32 `json:"source,omitempty"`
	// Params are the algorithm's other parameters (k-core's k, ...).
	Params    map[string]any `json:"params,omitempty"`
	Target    string         `json:"target"`
	Scheduler string         `json:"scheduler,omitempty"`
	// Value names the per-vertex quantity (depth, rank, ...), Note what
	// special values mean, Type the binary element type.
	Value string `json:"value"`
	Note  string `json:"note,omitempty"`
	Type  string `json:"type"`
	Count int    `json:"count"`
	// Provenance: commit, version, configuration, seed, host.
	Provenance *provenance `json:"provenance,omitempty"`
}

// writeValues writes a run's per-vertex result to path in format text or
// binary (runOptions.check has vetted the name).
func writeValues(path, format string, r *runResult) error {
	v := r.values
	if v == nil || v.Uint32 == nil && v.Float == nil && r.Vertices > 0 {
		return fmt.Errorf("--out: %s on %s produced no per-vertex result", r.Algorithm, r.Target)
	}
	h := valuesHeader{Algorithm: r.Algorithm, Graph: r.Graph, Vertices: r.Vertices, Edges: r.Edges, Source: r.Source, Params: r.Params,
		Target: r.Target, Scheduler: r.Scheduler, Value: v.Name, Note: v.Note, Type: "uint32", Count: len(v.Uint32),
		Provenance: r.Provenance}
	if v.Float != nil {
		h.Type, h.Count = "float64", len(v.Float)
	}
	f, err := os.Create(path)
	if err != nil {
		return &inputError{fmt.Errorf("--out: %w", err)}
	}
	w := bufio.NewWriter(f)
	if format == "binary" {
		err = writeBinaryValues(w, h, v.Uint32, v.Float)
	} else {
		writeTextValues(w, h, v.Uint32, v.Float)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", path, err)
	}
	return nil
}

// writeTextValues writes '#' header lines, then one "vertex value" line
// per vertex.
func writeTextValues(w io.Writer, h valuesHeader, ints []uint32, floats []float64) {
	fmt.Fprintf(w, "# warpgraph %s: %s per vertex\n# graph %s (%d vertices, %d edges)\n", h.Algorithm, h.Value, h.Graph, h.Vertices, h.Edges)
	if h.Source != nil {
		fmt.Fprintf(w, "# source %d\n", *h.Source)
	}
	for _, name := range slices.Sorted(maps.Keys(h.Params)) {
		fmt.Fprintf(w, "# %s %v\n", name, h.Params[name])
	}
	target := h.Target
	if h.Scheduler != "" {
		target += ", scheduler " + h.Scheduler
	}
	fmt.Fprintf(w, "# target %s\n", target)
	for _, line := range h.Provenance.headerLines() {
		fmt.Fprintf(w, "# %s\n", line)
	}
	if h.Note != "" {
		fmt.Fprintf(w, "# %s: %s\n", h.Value, h.Note)
	}
	fmt.Fprintf(w, "# vertex %s\n", h.Value)
	for i, x := range ints {
		fmt.Fprintf(w, "%d %d\n", i, x)
	}
	for i, x := range floats {
		fmt.Fprintf(w, "%d %.9g\n", i, x)
	}
}

// writeBinaryValues writes the binary layout: the 8-byte magic, the
// version and the JSON header's length as little-endian uint32s, the JSON
// header, then Count little-endian values of Type, vertex 0 first. NumPy
// reads the values with np.fromfile(path, dtype, offset=16+header_length).
func writeBinaryValues(w io.Writer, h valuesHeader, ints []uint32, floats []float64) error {
	header, err := json.Marshal(h)
	if err != nil {
		return err
	}
	prefix := make([]byte, 0, 16)
	prefix = append(prefix, binaryValuesMagic...)
	prefix = binary.LittleEndian.AppendUint32(prefix, binaryValuesVersion)
	prefix = binary.LittleEndian.AppendUint32(prefix, uint32(len(header)))
	if _, err := w.Write(append(prefix, header...)); err != nil {
		return err
	}
	var word [8]byte
	for _, x := range ints {
		binary.LittleEndian.PutUint32(word[:4], x)
		if _, err := w.Write(word[:4]); err != nil {
			return err
		}
	}
	for _, x := range floats {
		binary.LittleEndian.PutUint64(word[:], math.Float64bits(x))
		if _, err := w.Write(word[:]); err != nil {
			return err
		}
	}
	return nil
}
