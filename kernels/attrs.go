package kernels

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// The measured attribute tables, kernels/attrs/<gpu>.json, and the README
// that describes them (it keeps the directory non-empty for go:embed).
//
//go:embed attrs
var attrFiles embed.FS

// OccupancyBlockSizes are the block sizes at which MeasureAttrs records each
// kernel's occupancy.
func OccupancyBlockSizes() []int { return []int{128, 256, 1024} }

// AttrTable is the content of kernels/attrs/<gpu>.json: every kernel's
// resource needs and occupancy as one real GPU reports them. The simulator
// uses it for residency; `warpgraph devices --kernel-attrs` writes it.
type AttrTable struct {
	// GPU is the table's short name, the file's base name (e.g. "h100").
	GPU string `json:"gpu"`
	// Device is the device name the driver reports.
	Device            string `json:"device"`
	ComputeCapability [2]int `json:"compute_capability"`
	// Driver, Commit, Date and Command say how the table was produced.
	Driver  string `json:"driver,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Date    string `json:"date,omitempty"`
	Command string `json:"command,omitempty"`
	// Kernels holds one record per kernel, sorted by name.
	Kernels []KernelAttrRecord `json:"kernels"`
}

// KernelAttrRecord is one kernel's measured attributes.
type KernelAttrRecord struct {
	Name   string `json:"name"`
	Module string `json:"module"`
	// PTXSHA256 is the digest of the module's PTX that was measured
	// (Module.SHA256); a different digest means the record is stale.
	PTXSHA256          string            `json:"ptx_sha256"`
	RegistersPerThread int               `json:"registers_per_thread"`
	StaticSharedMem    int               `json:"static_shared_mem"`    // bytes
	LocalMemPerThread  int               `json:"local_mem_per_thread"` // bytes
	MaxThreadsPerCTA   int               `json:"max_threads_per_cta"`  // the kernel's limit
	Occupancy          []OccupancyRecord `json:"occupancy"`            // sorted by block size
}

// OccupancyRecord is the number of CTAs of a kernel that fit on one SM at
// once for a block size and dynamic shared memory.
type OccupancyRecord struct {
	BlockThreads     int `json:"block_threads"`
	DynamicSharedMem int `json:"dynamic_shared_mem"` // bytes
	CTAsPerSM        int `json:"ctas_per_sm"`
}

// Attrs returns the record as the Device interface reports attributes.
func (r *KernelAttrRecord) Attrs() KernelAttrs {
	return KernelAttrs{
		RegistersPerThread: r.RegistersPerThread,
		StaticSharedMem:    r.StaticSharedMem,
		LocalMemPerThread:  r.LocalMemPerThread,
		MaxThreadsPerCTA:   r.MaxThreadsPerCTA,
	}
}

// CTAsPerSM returns the recorded occupancy at a block size and dynamic
// shared memory, and whether one was recorded.
func (r *KernelAttrRecord) CTAsPerSM(blockThreads, dynamicSmem int) (int, bool) {
	for _, o := range r.Occupancy {
		if o.BlockThreads == blockThreads && o.DynamicSharedMem == dynamicSmem {
			return o.CTAsPerSM, true
		}
	}
	return 0, false
}

// Lookup returns the record of the named kernel.
func (t *AttrTable) Lookup(name string) (*KernelAttrRecord, bool) {
	i, ok := slices.BinarySearchFunc(t.Kernels, name, func(r KernelAttrRecord, n string) int {
		return strings.Compare(r.Name, n)
	})
	if !ok {
		return nil, false
	}
	return &t.Kernels[i], true
}

// gpuName is what a table's GPU name (and so its file name) may be.
var gpuName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Validate checks that the table is well formed: a valid GPU name, kernels
// sorted by name without duplicates, and no negative or missing values.
func (t *AttrTable) Validate() error {
	if !gpuName.MatchString(t.GPU) {
		return fmt.Errorf("kernel attributes: bad gpu name %q (want lower-case letters, digits, - and _)", t.GPU)
	}
	for i := range t.Kernels {
		r := &t.Kernels[i]
		if r.Name == "" || r.Module == "" || r.PTXSHA256 == "" {
			return fmt.Errorf("kernel attributes for %s: record %d lacks a name, module or ptx_sha256", t.GPU, i)
		}
		if i > 0 && t.Kernels[i-1].Name >= r.Name {
			return fmt.Errorf("kernel attributes for %s: kernels not sorted or duplicated at %s", t.GPU, r.Name)
		}
		if r.RegistersPerThread <= 0 || r.MaxThreadsPerCTA <= 0 || r.StaticSharedMem < 0 || r.LocalMemPerThread < 0 {
			return fmt.Errorf("kernel attributes for %s: kernel %s has impossible values %+v", t.GPU, r.Name, r.Attrs())
		}
		for j, o := range r.Occupancy {
			if o.BlockThreads <= 0 || o.DynamicSharedMem < 0 || o.CTAsPerSM < 0 {
				return fmt.Errorf("kernel attributes for %s: kernel %s has impossible occupancy %+v", t.GPU, r.Name, o)
			}
			if j > 0 {
				p := r.Occupancy[j-1]
				if p.BlockThreads > o.BlockThreads || p.BlockThreads == o.BlockThreads && p.DynamicSharedMem >= o.DynamicSharedMem {
					return fmt.Errorf("kernel attributes for %s: kernel %s: occupancy not sorted or duplicated at %+v", t.GPU, r.Name, o)
				}
			}
		}
	}
	return nil
}

// Stale lists what makes the table disagree with the embedded kernels:
// kernels without a record, records of kernels that no longer exist, and
// records measured from different PTX. It is empty for a current table.
func (t *AttrTable) Stale() []string {
	var out []string
	have := map[string]bool{}
	for _, k := range Kernels() {
		have[k.Name] = true
		r, ok := t.Lookup(k.Name)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: not measured", k.Name))
		case r.Module != k.Module.Name:
			out = append(out, fmt.Sprintf("%s: measured in module %s, now in %s", k.Name, r.Module, k.Module.Name))
		case r.PTXSHA256 != k.Module.SHA256():
			out = append(out, fmt.Sprintf("%s: its PTX (ptx/%s.ptx) changed since it was measured", k.Name, k.Module.Name))
		}
	}
	for _, r := range t.Kernels {
		if !have[r.Name] {
			out = append(out, fmt.Sprintf("%s: no such kernel any more", r.Name))
		}
	}
	return out
}

// WriteJSON sorts and validates the table and writes it as indented JSON,
// the form committed as kernels/attrs/<gpu>.json.
func (t *AttrTable) WriteJSON(w io.Writer) error {
	slices.SortFunc(t.Kernels, func(a, b KernelAttrRecord) int { return strings.Compare(a.Name, b.Name) })
	if t.Kernels == nil {
		t.Kernels = []KernelAttrRecord{}
	}
	for i := range t.Kernels {
		if t.Kernels[i].Occupancy == nil {
			t.Kernels[i].Occupancy = []OccupancyRecord{}
		}
		slices.SortFunc(t.Kernels[i].Occupancy, func(a, b OccupancyRecord) int {
			if a.BlockThreads != b.BlockThreads {
				return a.BlockThreads - b.BlockThreads
			}
			return a.DynamicSharedMem - b.DynamicSharedMem
		})
	}
	if err := t.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// ParseAttrs reads and validates an attribute table. Unknown fields are
// errors, so a schema change cannot go unnoticed.
func ParseAttrs(data []byte) (*AttrTable, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t AttrTable
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("kernel attributes: %w", err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

// ErrNoAttrs is wrapped by LoadAttrs when no table exists for the GPU.
var ErrNoAttrs = errors.New("no kernel attribute table")

// LoadAttrs returns the embedded table kernels/attrs/<gpu>.json. When it is
// missing the error (wrapping ErrNoAttrs) says how to produce it.
func LoadAttrs(gpu string) (*AttrTable, error) {
	if !gpuName.MatchString(gpu) {
		return nil, fmt.Errorf("kernel attributes: bad gpu name %q (want lower-case letters, digits, - and _)", gpu)
	}
	data, err := attrFiles.ReadFile(path.Join("attrs", gpu+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		known := AttrGPUs()
		have := "none yet"
		if len(known) > 0 {
			have = strings.Join(known, ", ")
		}
		return nil, fmt.Errorf("%w for GPU %q: kernels/attrs/%s.json is missing (tables present: %s); "+
			"produce it on that GPU with `warpgraph devices --kernel-attrs` and commit it (see kernels/attrs/README.md)",
			ErrNoAttrs, gpu, gpu, have)
	}
	if err != nil {
		return nil, err
	}
	t, err := ParseAttrs(data)
	if err != nil {
		return nil, fmt.Errorf("kernels/attrs/%s.json: %w", gpu, err)
	}
	if t.GPU != gpu {
		return nil, fmt.Errorf("kernels/attrs/%s.json: its gpu field says %q", gpu, t.GPU)
	}
	return t, nil
}

// AttrGPUs lists the GPUs that have an embedded attribute table, sorted.
func AttrGPUs() []string {
	entries, err := attrFiles.ReadDir("attrs")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// MeasureAttrs asks a device for the attributes of every embedded kernel and
// its occupancy at OccupancyBlockSizes (no dynamic shared memory; block
// sizes above the kernel's limit are skipped) and returns the table for gpu.
// The caller fills Driver, Commit, Date and Command and writes it with
// WriteJSON.
func MeasureAttrs(dev Device, gpu string) (*AttrTable, error) {
	props := dev.Properties()
	t := &AttrTable{GPU: gpu, Device: props.Name, ComputeCapability: props.ComputeCapability}
	for _, k := range Kernels() {
		a, err := dev.Attributes(k)
		if err != nil {
			return nil, fmt.Errorf("attributes of kernel %s: %w", k.Name, err)
		}
		r := KernelAttrRecord{
			Name:               k.Name,
			Module:             k.Module.Name,
			PTXSHA256:          k.Module.SHA256(),
			RegistersPerThread: a.RegistersPerThread,
			StaticSharedMem:    a.StaticSharedMem,
			LocalMemPerThread:  a.LocalMemPerThread,
			MaxThreadsPerCTA:   a.MaxThreadsPerCTA,
		}
		for _, bs := range OccupancyBlockSizes() {
			if bs > a.MaxThreadsPerCTA {
				continue
			}
			n, err := dev.Occupancy(k, bs, 0)
			if err != nil {
				return nil, fmt.Errorf("occupancy of kernel %s at %d threads: %w", k.Name, bs, err)
			}
			r.Occupancy = append(r.Occupancy, OccupancyRecord{BlockThreads: bs, CTAsPerSM: n})
		}
		t.Kernels = append(t.Kernels, r)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}
