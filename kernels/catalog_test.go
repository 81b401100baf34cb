package kernels

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// cTypeSize is the parameter size of each C type kernels may take. A kernel
// with another type fails TestCatalogMatchesSources until it is added here.
var cTypeSize = map[string]int{
	"int": 4, "unsigned": 4, "unsigned int": 4, "float": 4,
	"int32_t": 4, "uint32_t": 4,
	"long long": 8, "unsigned long long": 8, "double": 8,
	"int64_t": 8, "uint64_t": 8,
}

func cParamSize(typ string) (int, bool) {
	if strings.Contains(typ, "*") {
		return 8, true
	}
	n, ok := cTypeSize[strings.TrimPrefix(typ, "const ")]
	return n, ok
}

// TestCatalogMatchesSources checks every extern "C" kernel of every module's
// signature file (ptx/NAME.sig, extracted from the preprocessed source by
// make kernels) against the catalog: same module, same parameter names, and
// parameter sizes that match the C types. TestPTXFresh checks the signature
// files against the sources.
func TestCatalogMatchesSources(t *testing.T) {
	sources, err := filepath.Glob("*.cu")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no kernel sources found: %v", err)
	}
	inSource := map[string]bool{}
	for _, src := range sources {
		module := strings.TrimSuffix(src, ".cu")
		text, err := os.ReadFile(filepath.Join("ptx", module+".sig"))
		if err != nil {
			t.Errorf("%s: %v (run make kernels)", src, err)
			continue
		}
		decls := sourceParams(text)
		if len(decls) == 0 {
			t.Errorf("%s declares no extern \"C\" __global__ kernel", src)
		}
		if n := strings.Count(string(text), "\n"); n != len(decls) {
			t.Errorf("ptx/%s.sig has %d lines but %d read as kernels", module, n, len(decls))
		}
		for name, params := range decls {
			inSource[name] = true
			k, err := Lookup(name)
			if err != nil {
				t.Errorf("%s: %v (run make kernels)", src, err)
				continue
			}
			if k.Module.Name != module {
				t.Errorf("kernel %s is in module %s, its source is %s", name, k.Module.Name, src)
			}
			if len(k.Params) != len(params) {
				t.Errorf("kernel %s: the PTX has %d parameters, %s declares %d", name, len(k.Params), src, len(params))
				continue
			}
			for i, p := range params {
				got := k.Params[i]
				if got.Name != p[1] {
					t.Errorf("kernel %s parameter %d is named %q in the catalog, %q in %s", name, i, got.Name, p[1], src)
				}
				want, ok := cParamSize(p[0])
				if !ok {
					t.Errorf("kernel %s parameter %s: C type %q has no size in cTypeSize", name, p[1], p[0])
					continue
				}
				if got.Size != want || got.Align != want {
					t.Errorf("kernel %s parameter %s (%s): PTX size %d align %d, want %d", name, p[1], p[0], got.Size, got.Align, want)
				}
			}
		}
	}
	for _, k := range Kernels() {
		if !inSource[k.Name] {
			t.Errorf("kernel %s (ptx/%s.ptx) has no extern \"C\" definition in any .cu file", k.Name, k.Module.Name)
		}
	}
}

// TestSignatures pins the signatures the drivers are written against.
func TestSignatures(t *testing.T) {
	ptr := func(name string) Param { return Param{Name: name, Size: 8, Align: 8} }
	u32 := func(name string) Param { return Param{Name: name, Size: 4, Align: 4} }
	tests := []struct {
		kernel, module string
		params         []Param
	}{
		{"stream", "stream", []Param{ptr("a"), ptr("b"), ptr("c"), u32("n")}},
		{"atomic_contention_shared", "atomic_contention", []Param{ptr("out"), u32("degree"), u32("reps")}},
		{"atomic_contention_global", "atomic_contention", []Param{ptr("out"), u32("degree"), u32("reps")}},
		{"bank_stride", "bank_stride", []Param{ptr("out"), u32("stride"), u32("reps")}},
		{"bank_stride_padded", "bank_stride", []Param{ptr("out"), u32("stride"), u32("reps")}},
		{"global_barrier", "global_barrier", []Param{ptr("arrive"), ptr("release"), ptr("counters"),
			ptr("mismatches"), u32("reps"), u32("spin_budget"), ptr("abort_flag")}},
		{"bfs_topdown", "bfs_topdown", []Param{ptr("row_offsets"), ptr("col_indices"), ptr("depth"),
			ptr("frontier_in"), u32("frontier_len"), ptr("frontier_out"), ptr("frontier_out_len"), u32("level")}},
		{"launch_increment", "launch_overhead", []Param{ptr("counter")}},
	}
	for _, tc := range tests {
		t.Run(tc.kernel, func(t *testing.T) {
			k, err := Lookup(tc.kernel)
			if err != nil {
				t.Fatal(err)
			}
			if k.Module.Name != tc.module {
				t.Errorf("module %s, want %s", k.Module.Name, tc.module)
			}
			if !slices.Equal(k.Params, tc.params) {
				t.Errorf("params\n got %+v\nwant %+v", k.Params, tc.params)
			}
		})
	}
}

func TestModulesAndKernels(t *testing.T) {
	mods := Modules()
	if len(mods) == 0 {
		t.Fatal("no modules embedded")
	}
	var fromModules []string
	for i, m := range mods {
		if i > 0 && mods[i-1].Name >= m.Name {
			t.Errorf("modules not sorted: %s after %s", m.Name, mods[i-1].Name)
		}
		if len(m.Kernels) == 0 {
			t.Errorf("module %s has no kernels", m.Name)
		}
		if !bytes.Contains(m.PTX, []byte(".visible .entry")) {
			t.Errorf("module %s: PTX holds no entry", m.Name)
		}
		for _, k := range m.Kernels {
			if k.Module != m {
				t.Errorf("kernel %s does not point back at module %s", k.Name, m.Name)
			}
			fromModules = append(fromModules, k.Name)
		}
	}
	slices.Sort(fromModules)
	var names []string
	for _, k := range Kernels() {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, fromModules) {
		t.Errorf("Kernels() = %v, modules hold %v", names, fromModules)
	}
}

func TestLookupUnknownListsKernels(t *testing.T) {
	_, err := Lookup("no_such_kernel")
	if err == nil {
		t.Fatal("Lookup of an unknown kernel succeeded")
	}
	for _, want := range []string{"no_such_kernel", "stream", "bfs_topdown", "global_barrier"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// TestSpinParams: exactly the kernels that wait on other CTAs follow the
// spin protocol — the barriers and the fused scheduler kernels — with
// spin_budget and abort_flag last.
func TestSpinParams(t *testing.T) {
	spins := func(name string) bool {
		return name == "global_barrier" || strings.HasPrefix(name, "grid_barrier_") ||
			strings.Contains(name, "_simdx_all_") || strings.Contains(name, "_simdx_pushpull_") ||
			strings.HasSuffix(name, "_atos_warp_persist") || strings.HasSuffix(name, "_atos_cta_persist") ||
			strings.HasSuffix(name, "_atos_peer_persist")
	}
	for _, k := range Kernels() {
		b, f, ok := SpinParams(k)
		switch {
		case spins(k.Name) && (!ok || b != len(k.Params)-2 || f != len(k.Params)-1):
			t.Errorf("SpinParams(%s) = %d, %d, %v; want its last two parameters", k.Name, b, f, ok)
		case !spins(k.Name) && ok:
			t.Errorf("SpinParams(%s) claims a spin budget", k.Name)
		}
	}
	if b, f, ok := SpinParams(mustLookup(t, "global_barrier")); !ok || b != 5 || f != 6 {
		t.Errorf("SpinParams(global_barrier) = %d, %d, %v; want 5, 6, true", b, f, ok)
	}
}

func mustLookup(t *testing.T, name string) *Kernel {
	t.Helper()
	k, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPackArgs(t *testing.T) {
	stream, err := Lookup("stream")
	if err != nil {
		t.Fatal(err)
	}
	barrier, err := Lookup("global_barrier")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		k       *Kernel
		args    []any
		wantErr string
		wantLen int
	}{
		{"stream ok", stream, []any{DevPtr(1), DevPtr(2), DevPtr(3), uint32(4)}, "", 28},
		{"stream int n", stream, []any{DevPtr(1), DevPtr(2), DevPtr(3), 4}, "", 28},
		{"too few", stream, []any{DevPtr(1), DevPtr(2), DevPtr(3)}, "takes 4 arguments, got 3", 0},
		{"too many", stream, []any{DevPtr(1), DevPtr(2), DevPtr(3), uint32(4), uint32(5)}, "takes 4 arguments, got 5", 0},
		{"wide n", stream, []any{DevPtr(1), DevPtr(2), DevPtr(3), uint64(4)}, "argument 3 (n) is 8 bytes", 0},
		{"narrow pointer", stream, []any{uint32(1), DevPtr(2), DevPtr(3), uint32(4)}, "argument 0 (a) is 4 bytes", 0},
		{"bad type", stream, []any{DevPtr(1), DevPtr(2), "c", uint32(4)}, "unsupported argument type string", 0},
		// Four pointers, reps and spin_budget end at byte 40, where the
		// 8-byte abort_flag pointer starts.
		{"barrier ok", barrier, []any{DevPtr(1), DevPtr(2), DevPtr(3), DevPtr(4), uint32(5), uint32(6), DevPtr(7)}, "", 48},
		{"barrier 32-bit flag", barrier, []any{DevPtr(1), DevPtr(2), DevPtr(3), DevPtr(4), uint32(5), uint32(6), int32(7)},
			"argument 6 (abort_flag) is 4 bytes", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			buf, err := tc.k.PackArgs(tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("PackArgs error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(buf) != tc.wantLen {
				t.Fatalf("buffer is %d bytes, want %d", len(buf), tc.wantLen)
			}
			// Every argument i+1 sits at its offset.
			for i, off := range tc.k.ParamOffsets() {
				var got uint64
				if tc.k.Params[i].Size == 8 {
					got = binary.LittleEndian.Uint64(buf[off:])
				} else {
					got = uint64(binary.LittleEndian.Uint32(buf[off:]))
				}
				if got != uint64(i+1) {
					t.Errorf("argument %d reads %d at offset %d", i, got, off)
				}
			}
		})
	}
}

func TestParseParam(t *testing.T) {
	tests := []struct {
		line    string
		want    Param
		wantErr bool
	}{
		{".param .u64 k_param_0,", Param{"k_param_0", 8, 8}, false},
		{".param .u32 k_param_1", Param{"k_param_1", 4, 4}, false},
		{".param .f32 k_param_1,", Param{"k_param_1", 4, 4}, false},
		{".param .u8 k_param_2,", Param{"k_param_2", 1, 1}, false},
		{".param .u16 k_param_2", Param{"k_param_2", 2, 2}, false},
		{".param .f64 k_param_2", Param{"k_param_2", 8, 8}, false},
		{".param .u64 .ptr .align 1 k_param_0,", Param{"k_param_0", 8, 8}, false},
		{".param .u64 .ptr .global .align 16 k_param_0,", Param{"k_param_0", 8, 8}, false},
		{".param .align 4 .b8 k_param_3[12],", Param{"k_param_3", 12, 4}, false},
		{".param .align 8 .b8 k_param_3[24]", Param{"k_param_3", 24, 8}, false},
		{".param .b32 k_param_3[2]", Param{"k_param_3", 8, 4}, false},
		{".param k_param_0", Param{}, true},
		{".param .u64", Param{}, true},
		{".param .u64 .u32 k_param_0", Param{}, true},
		{".param .global .u64 k_param_0", Param{}, true},
		{".param .align x .b8 k_param_0[4]", Param{}, true},
		{".param .align 4 .b8 k_param_0[0]", Param{}, true},
		{".param .align 4 .b8 k_param_0[4", Param{}, true},
		{".param .v4 .u32 k_param_0", Param{}, true},
		{".reg .u32 k_param_0", Param{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			got, err := parseParam(tc.line)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("parseParam accepted %q as %+v", tc.line, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseModule(t *testing.T) {
	const ptx = `
.version 6.4
.target sm_70
.address_size 64

.visible .func (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	ret;
}
	// .globl	noargs
.visible .entry noargs()
{
	ret;
}
	// .globl	bystruct
.visible .entry bystruct(
	.param .u64 .ptr .align 1 bystruct_param_0,
	.param .align 8 .b8 bystruct_param_1[16],
	.param .u32 bystruct_param_2
)
.maxntid 256, 1, 1
{
	ret;
}
`
	m, err := ParseModule("m", []byte(ptx))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Kernels) != 2 {
		t.Fatalf("got %d kernels, want 2", len(m.Kernels))
	}
	if k := m.Kernels[0]; k.Name != "noargs" || len(k.Params) != 0 {
		t.Errorf("kernel 0 = %s with %d params, want noargs with none", k.Name, len(k.Params))
	}
	k := m.Kernels[1]
	want := []Param{{"bystruct_param_0", 8, 8}, {"bystruct_param_1", 16, 8}, {"bystruct_param_2", 4, 4}}
	if k.Name != "bystruct" || !slices.Equal(k.Params, want) {
		t.Errorf("kernel 1 = %s %+v, want bystruct %+v", k.Name, k.Params, want)
	}
	if got := k.ParamOffsets(); !slices.Equal(got, []int{0, 8, 24}) {
		t.Errorf("offsets %v, want [0 8 24]", got)
	}

	for _, bad := range []string{
		".visible .entry open(\n\t.param .u32 open_param_0\n",
		".visible .entry junk(x\n)\n",
		".visible .entry (\n)\n",
		".visible .entry p(\n\t.param .u33 p_param_0\n)\n",
	} {
		if _, err := ParseModule("bad", []byte(bad)); err == nil {
			t.Errorf("ParseModule accepted %q", bad)
		}
	}
}

func TestSourceParams(t *testing.T) {
	src := `
extern "C" __global__ void a(const float* x, uint32_t n) {}
extern "C" __global__ __launch_bounds__(256, 2) void b(int* __restrict__ p,
                                                       unsigned long long k) {}
extern "C" __global__ void c() {}
`
	got := sourceParams([]byte(src))
	want := map[string][][2]string{
		"a": {{"const float*", "x"}, {"uint32_t", "n"}},
		"b": {{"int* __restrict__", "p"}, {"unsigned long long", "k"}},
		"c": nil,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("%s: got %q, want %q", name, got[name], w)
		}
	}
}

// TestSourceParamsMatchesThePattern checks the hand-written scan against
// the regular expression it replaced, on every signature file and on
// definitions it must skip.
func TestSourceParamsMatchesThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`extern\s+"C"\s+__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s+)?void\s+(\w+)\s*\(([^)]*)\)`)
	byPattern := func(src []byte) map[string]string {
		out := map[string]string{}
		for _, m := range pattern.FindAllSubmatch(src, -1) {
			list := strings.Join(strings.Fields(string(m[2])), "")
			if list == "void" {
				list = ""
			}
			out[string(m[1])] = list
		}
		return out
	}
	byScan := func(src []byte) map[string]string {
		out := map[string]string{}
		for name, params := range sourceParams(src) {
			var decls []string
			for _, p := range params {
				decls = append(decls, strings.Join(strings.Fields(p[0]+p[1]), ""))
			}
			out[name] = strings.Join(decls, ",")
		}
		return out
	}
	texts := map[string][]byte{
		"edge cases": []byte(`extern "C" int not_a_kernel;
extern "C" __global__ void(int x);
extern"C" __global__ void glued(int x);
extern "C" __global__void glued2(int x);
extern "C" __global__ __launch_bounds__(128)void glued3(int x);
extern "C" __global__ __launch_bounds__ ( 128 , 4 )
  void spaced ( int x ,
  float * y ) {}
extern "C"
__global__ void newline(void) {}
extern "C" __global__ void unclosed(int x`),
	}
	names, err := fsGlob(kernelFiles, "ptx/*.sig")
	if err != nil || len(names) == 0 {
		t.Fatalf("no signature files: %v", err)
	}
	for _, n := range names {
		if texts[n], err = kernelFiles.ReadFile(n); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range texts {
		want, got := byPattern(text), byScan(text)
		if len(want) == 0 {
			t.Errorf("%s: the pattern finds no kernel", name)
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s: kernel %s: the scan reads %q (found %v), the pattern %q", name, k, g, ok, w)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: the scan reads kernel %s, the pattern does not", name, k)
			}
		}
	}
}

func TestExtractSignatures(t *testing.T) {
	pre := `
template <typename T> static __attribute__((device)) void helper(T x) {}
extern "C" __attribute__((device)) int not_an_entry(int x);
extern "C" __attribute__((global)) void a(const float* x,
    uint32_t n) { helper(n); }
extern "C" __attribute__((global)) __attribute__((launch_bounds(256, 2))) void b(int* p, unsigned long long k) {}
extern "C" __attribute__((global)) void c() {}
extern "C" __attribute__((global)) void d(void) {}
`
	got, err := ExtractSignatures([]byte(pre))
	if err != nil {
		t.Fatal(err)
	}
	want := `extern "C" __global__ void a(const float* x, uint32_t n)
extern "C" __global__ void b(int* p, unsigned long long k)
extern "C" __global__ void c()
extern "C" __global__ void d()
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{
		`extern "C" { void f(); }`,
		`extern "C" __attribute__((global)) int f(int x) {}`,
		`extern "C" __attribute__((global)) void f(int (*g)(int)) {}`,
		`extern "C" __attribute__((global)) void f(int x`,
		`extern "C" __attribute__((global) void f() {}`,
	} {
		if _, err := ExtractSignatures([]byte(bad)); err == nil {
			t.Errorf("ExtractSignatures accepted %q", bad)
		}
	}
}
