package kernels

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeDevice answers Attributes and Occupancy from fixed rules; everything
// else is unused by MeasureAttrs.
type fakeDevice struct{ failOn string }

func (fakeDevice) Properties() Properties {
	return Properties{Name: "Fake GPU", ComputeCapability: [2]int{9, 0}}
}
func (fakeDevice) Load(*Kernel) error                  { return nil }
func (fakeDevice) Alloc(int) (DevPtr, error)           { return 0, errors.New("unused") }
func (fakeDevice) Free(DevPtr) error                   { return nil }
func (fakeDevice) CopyToDevice(DevPtr, []byte) error   { return nil }
func (fakeDevice) CopyFromDevice([]byte, DevPtr) error { return nil }
func (fakeDevice) Memset(DevPtr, byte, int) error      { return nil }
func (fakeDevice) Close() error                        { return nil }
func (fakeDevice) Launch(context.Context, *Kernel, LaunchConfig, ...any) (LaunchStats, error) {
	return LaunchStats{}, errors.New("unused")
}

func (d fakeDevice) Attributes(k *Kernel) (KernelAttrs, error) {
	if k.Name == d.failOn {
		return KernelAttrs{}, errors.New("no such function")
	}
	maxThreads := 1024
	if k.Name == "stream" {
		maxThreads = 256 // so MeasureAttrs skips block size 1024
	}
	return KernelAttrs{RegistersPerThread: 10 + len(k.Params), StaticSharedMem: 4 * len(k.Name), MaxThreadsPerCTA: maxThreads}, nil
}

func (fakeDevice) Occupancy(k *Kernel, block, dyn int) (int, error) {
	return 2048 / block, nil
}

func measured(t *testing.T) *AttrTable {
	t.Helper()
	tab, err := MeasureAttrs(fakeDevice{}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestMeasureAttrsRoundTrip(t *testing.T) {
	tab := measured(t)
	tab.Driver, tab.Commit, tab.Date, tab.Command = "580", "abc", "2026-01-01", "warpgraph devices --kernel-attrs"
	if got := tab.Stale(); len(got) != 0 {
		t.Errorf("a fresh measurement is stale: %v", got)
	}
	if len(tab.Kernels) != len(Kernels()) {
		t.Fatalf("measured %d kernels, the catalog has %d", len(tab.Kernels), len(Kernels()))
	}
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ParseAttrs(buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	var again bytes.Buffer
	if err := back.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Errorf("JSON does not round-trip:\n%s\n---\n%s", buf.String(), again.String())
	}
	if back.Device != "Fake GPU" || back.ComputeCapability != [2]int{9, 0} || back.Commit != "abc" {
		t.Errorf("header lost: %+v", back)
	}

	r, ok := back.Lookup("bfs_topdown")
	if !ok {
		t.Fatal("bfs_topdown not in the table")
	}
	if want := (KernelAttrs{RegistersPerThread: 18, StaticSharedMem: 44, MaxThreadsPerCTA: 1024}); r.Attrs() != want {
		t.Errorf("bfs_topdown attrs %+v, want %+v", r.Attrs(), want)
	}
	for _, tc := range []struct {
		kernel      string
		block, want int
		ok          bool
	}{
		{"bfs_topdown", 128, 16, true},
		{"bfs_topdown", 256, 8, true},
		{"bfs_topdown", 1024, 2, true},
		{"bfs_topdown", 512, 0, false},
		{"stream", 256, 8, true},
		{"stream", 1024, 0, false}, // above its MaxThreadsPerCTA
	} {
		r, _ := back.Lookup(tc.kernel)
		got, ok := r.CTAsPerSM(tc.block, 0)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s CTAsPerSM(%d) = %d, %v; want %d, %v", tc.kernel, tc.block, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := back.Lookup("nope"); ok {
		t.Error("Lookup found a kernel that does not exist")
	}
}

func TestMeasureAttrsReportsDeviceErrors(t *testing.T) {
	_, err := MeasureAttrs(fakeDevice{failOn: "stream"}, "fake")
	if err == nil || !strings.Contains(err.Error(), "kernel stream") {
		t.Errorf("error = %v, want one naming kernel stream", err)
	}
}

func TestStale(t *testing.T) {
	tab := measured(t)
	stream, _ := tab.Lookup("stream")
	stream.PTXSHA256 = "0000"
	var kept []KernelAttrRecord
	for _, r := range tab.Kernels {
		if r.Name != "bank_stride" {
			kept = append(kept, r)
		}
	}
	kept = append(kept, KernelAttrRecord{Name: "zz_gone", Module: "gone", PTXSHA256: "1", RegistersPerThread: 1, MaxThreadsPerCTA: 1})
	tab.Kernels = kept
	got := strings.Join(tab.Stale(), "\n")
	for _, want := range []string{"stream: its PTX (ptx/stream.ptx) changed", "bank_stride: not measured", "zz_gone: no such kernel"} {
		if !strings.Contains(got, want) {
			t.Errorf("Stale() = %q, missing %q", got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	rec := func(name string) KernelAttrRecord {
		return KernelAttrRecord{Name: name, Module: "m", PTXSHA256: "x", RegistersPerThread: 8, MaxThreadsPerCTA: 1024,
			Occupancy: []OccupancyRecord{{BlockThreads: 128, CTAsPerSM: 16}, {BlockThreads: 256, CTAsPerSM: 8}}}
	}
	tests := []struct {
		name    string
		edit    func(*AttrTable)
		wantErr string
	}{
		{"valid", func(*AttrTable) {}, ""},
		{"bad gpu", func(t *AttrTable) { t.GPU = "../h100" }, "bad gpu name"},
		{"unsorted", func(t *AttrTable) { t.Kernels[0], t.Kernels[1] = t.Kernels[1], t.Kernels[0] }, "not sorted"},
		{"duplicate", func(t *AttrTable) { t.Kernels[1].Name = t.Kernels[0].Name }, "not sorted or duplicated"},
		{"no digest", func(t *AttrTable) { t.Kernels[0].PTXSHA256 = "" }, "lacks"},
		{"no registers", func(t *AttrTable) { t.Kernels[0].RegistersPerThread = 0 }, "impossible values"},
		{"negative ctas", func(t *AttrTable) { t.Kernels[0].Occupancy[0].CTAsPerSM = -1 }, "impossible occupancy"},
		{"occupancy order", func(t *AttrTable) {
			o := t.Kernels[0].Occupancy
			o[0], o[1] = o[1], o[0]
		}, "occupancy not sorted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := &AttrTable{GPU: "h100", Kernels: []KernelAttrRecord{rec("a"), rec("b")}}
			tc.edit(tab)
			err := tab.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestParseAttrsRejectsUnknownFields(t *testing.T) {
	_, err := ParseAttrs([]byte(`{"gpu": "h100", "kernels": [], "registers": 3}`))
	if err == nil || !strings.Contains(err.Error(), "registers") {
		t.Errorf("ParseAttrs error = %v, want one naming the unknown field", err)
	}
	if _, err := ParseAttrs([]byte(`{"gpu": "h100", "kernels": []}`)); err != nil {
		t.Errorf("ParseAttrs of an empty table: %v", err)
	}
}

func TestLoadAttrsMissing(t *testing.T) {
	_, err := LoadAttrs("no-such-gpu")
	if !errors.Is(err, ErrNoAttrs) {
		t.Fatalf("LoadAttrs error = %v, want ErrNoAttrs", err)
	}
	for _, want := range []string{"kernels/attrs/no-such-gpu.json", "warpgraph devices --kernel-attrs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := LoadAttrs("../attrs/README"); err == nil || errors.Is(err, ErrNoAttrs) {
		t.Errorf("LoadAttrs of a path = %v, want a bad-name error", err)
	}
}

// TestEmbeddedAttrTables loads every committed table and fails on a stale
// record (a kernel whose PTX changed, a new one not measured, one gone):
// any PTX change, even of .loc lines, is re-measured on that GPU.
func TestEmbeddedAttrTables(t *testing.T) {
	gpus := AttrGPUs()
	if len(gpus) == 0 {
		t.Log("no kernel attribute tables committed yet")
	}
	for _, gpu := range gpus {
		tab, err := LoadAttrs(gpu)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if stale := tab.Stale(); len(stale) > 0 {
			t.Errorf("kernels/attrs/%s.json is stale; re-run `warpgraph devices --kernel-attrs` on that GPU:\n%s",
				gpu, strings.Join(stale, "\n"))
		}
	}
}
