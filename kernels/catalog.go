package kernels

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// The committed PTX (make kernels) and the signature files extracted from
// the preprocessed sources beside it (signatures.go). The signatures only
// supply parameter names; sizes and alignments come from the PTX, which is
// what the device sees.
//
//go:embed ptx/*.ptx ptx/*.sig
var kernelFiles embed.FS

// catalog is every module parsed from the embedded PTX.
type catalog struct {
	modules []*Module
	byName  map[string]*Kernel
	names   []string // sorted kernel names
}

var loadCatalog = sync.OnceValues(func() (*catalog, error) {
	return parseCatalog(kernelFiles)
})

// Modules returns every embedded module, sorted by name, each with its
// kernels in the order the PTX declares them. The modules, kernels and PTX
// bytes are shared: callers must not modify them. It panics if the embedded
// PTX cannot be parsed, which the package's tests rule out.
func Modules() []*Module {
	c, err := loadCatalog()
	if err != nil {
		panic(err)
	}
	return slices.Clone(c.modules)
}

// Kernels returns every kernel of every module, sorted by name.
func Kernels() []*Kernel {
	c, err := loadCatalog()
	if err != nil {
		panic(err)
	}
	out := make([]*Kernel, len(c.names))
	for i, n := range c.names {
		out[i] = c.byName[n]
	}
	return out
}

// Lookup returns the kernel entry with the given name (its extern "C" name,
// e.g. "bfs_topdown"). The error for an unknown name lists the known ones.
func Lookup(name string) (*Kernel, error) {
	c, err := loadCatalog()
	if err != nil {
		return nil, err
	}
	if k, ok := c.byName[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("no kernel named %q; known kernels: %s", name, strings.Join(c.names, ", "))
}

// SHA256 returns the hex SHA-256 digest of the module's PTX. Records of
// measured kernel attributes carry it to detect PTX that changed since.
func (m *Module) SHA256() string {
	sum := sha256.Sum256(m.PTX)
	return hex.EncodeToString(sum[:])
}

// SpinParams reports whether k follows the spin-budget protocol of
// kernels/README.md — its last two parameters are uint32 spin_budget and
// int* abort_flag — and returns their indexes.
func SpinParams(k *Kernel) (budget, abortFlag int, ok bool) {
	n := len(k.Params)
	if n < 2 {
		return 0, 0, false
	}
	b, f := k.Params[n-2], k.Params[n-1]
	if b.Name != "spin_budget" || b.Size != 4 || f.Name != "abort_flag" || f.Size != 8 {
		return 0, 0, false
	}
	return n - 2, n - 1, true
}

func parseCatalog(files embed.FS) (*catalog, error) {
	ptxNames, err := fsGlob(files, "ptx/*.ptx")
	if err != nil {
		return nil, err
	}
	// Modules are read at once (every process reads them all before its
	// first kernel), then indexed in name order.
	modules := make([]*Module, len(ptxNames))
	errs := make([]error, len(ptxNames))
	parallel.Chunks(len(ptxNames), func(i int) {
		modules[i], errs[i] = readModule(files, ptxNames[i])
	})
	c := &catalog{byName: map[string]*Kernel{}}
	for i, m := range modules {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, k := range m.Kernels {
			if other, dup := c.byName[k.Name]; dup {
				return nil, fmt.Errorf("kernel %s is defined in both ptx/%s.ptx and ptx/%s.ptx", k.Name, other.Module.Name, m.Name)
			}
			c.byName[k.Name] = k
			c.names = append(c.names, k.Name)
		}
		c.modules = append(c.modules, m)
	}
	slices.Sort(c.names)
	return c, nil
}

// readModule reads one module's PTX and names its parameters from its
// signature file.
func readModule(files embed.FS, ptxPath string) (*Module, error) {
	text, err := files.ReadFile(ptxPath)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(path.Base(ptxPath), ".ptx")
	m, err := ParseModule(name, text)
	if err != nil {
		return nil, err
	}
	sig, err := files.ReadFile("ptx/" + name + ".sig")
	if err != nil {
		return nil, fmt.Errorf("ptx/%s.sig is missing (run make kernels): %w", name, err)
	}
	nameParams(m, sig)
	return m, nil
}

func fsGlob(files embed.FS, pattern string) ([]string, error) {
	dir := path.Dir(pattern)
	entries, err := files.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if ok, _ := path.Match(pattern, path.Join(dir, e.Name())); ok {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

// ParseModule reads the .visible .entry declarations of a PTX text and
// their parameter lists. Parameters are named from the PTX
// (e.g. "stream_param_0"); the catalog renames them from the sources.
func ParseModule(name string, ptx []byte) (*Module, error) {
	m := &Module{Name: name, PTX: ptx}
	entry := []byte(".visible .entry ")
	lineOf := func(at int) int { return bytes.Count(ptx[:at], []byte("\n")) + 1 }
	// Only entry and parameter lines (a few hundred of a module's tens of
	// thousands) are looked at: the scan jumps from entry to entry.
	for at := 0; at < len(ptx); {
		i := bytes.Index(ptx[at:], entry)
		if i < 0 {
			break
		}
		start := at + i
		at = start + len(entry)
		lineStart := bytes.LastIndexByte(ptx[:start], '\n') + 1
		if len(bytes.TrimLeft(ptx[lineStart:start], " \t\r")) > 0 {
			continue // not at the start of its line
		}
		s, next := lineAt(ptx, start)
		rest := strings.TrimPrefix(s, ".visible .entry ")
		open := strings.IndexByte(rest, '(')
		if open <= 0 {
			return nil, fmt.Errorf("ptx/%s.ptx:%d: cannot read entry %q", name, lineOf(start), s)
		}
		k := &Kernel{Name: strings.TrimSpace(rest[:open]), Module: m}
		m.Kernels = append(m.Kernels, k)
		switch tail := strings.TrimSpace(rest[open+1:]); tail {
		case "":
		case ")":
			at = next
			continue
		default:
			return nil, fmt.Errorf("ptx/%s.ptx:%d: entry %s: unexpected %q after '('", name, lineOf(start), k.Name, tail)
		}
		for closed := false; !closed; {
			if next >= len(ptx) {
				return nil, fmt.Errorf("ptx/%s.ptx: parameter list of %s is not closed", name, k.Name)
			}
			lineStart := next
			s, next = lineAt(ptx, next)
			if s == ")" {
				closed = true
				continue
			}
			p, err := parseParam(s)
			if err != nil {
				return nil, fmt.Errorf("ptx/%s.ptx:%d: kernel %s: %w", name, lineOf(lineStart), k.Name, err)
			}
			k.Params = append(k.Params, p)
		}
		at = next
	}
	return m, nil
}

// lineAt returns the line of b that starts at at, without surrounding
// white space, and where the next line starts.
func lineAt(b []byte, at int) (string, int) {
	end, next := len(b), len(b)
	if nl := bytes.IndexByte(b[at:], '\n'); nl >= 0 {
		end, next = at+nl, at+nl+1
	}
	return string(bytes.TrimSpace(b[at:end])), next
}

// ptxTypeSize is the byte size of each PTX fundamental type.
var ptxTypeSize = map[string]int{
	".b8": 1, ".u8": 1, ".s8": 1,
	".b16": 2, ".u16": 2, ".s16": 2, ".f16": 2,
	".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4,
	".b64": 8, ".u64": 8, ".s64": 8, ".f64": 8,
}

// parseParam reads one parameter declaration:
//
//	.param .u32 k_param_3
//	.param .u64 .ptr .global .align 4 k_param_0   (.align after .ptr is the pointee's)
//	.param .align 8 .b8 k_param_2[24]             (a structure passed by value)
func parseParam(s string) (Param, error) {
	fields := strings.Fields(strings.TrimSuffix(s, ","))
	if len(fields) < 3 || fields[0] != ".param" {
		return Param{}, fmt.Errorf("cannot read parameter %q", s)
	}
	var p Param
	elem, align, ptr := 0, 0, false
	for i := 1; i < len(fields)-1; i++ {
		f := fields[i]
		switch {
		case f == ".align":
			if i+1 >= len(fields)-1 {
				return Param{}, fmt.Errorf("parameter %q: .align without a value", s)
			}
			i++
			n, err := strconv.Atoi(fields[i])
			if err != nil || n <= 0 {
				return Param{}, fmt.Errorf("parameter %q: bad alignment %q", s, fields[i])
			}
			if !ptr {
				align = n
			}
		case f == ".ptr":
			ptr = true
		case f == ".global" || f == ".shared" || f == ".const" || f == ".local":
			if !ptr {
				return Param{}, fmt.Errorf("parameter %q: state space %s outside .ptr", s, f)
			}
		case ptxTypeSize[f] > 0:
			if elem != 0 {
				return Param{}, fmt.Errorf("parameter %q has two types", s)
			}
			elem = ptxTypeSize[f]
		default:
			return Param{}, fmt.Errorf("parameter %q: unknown attribute %q", s, f)
		}
	}
	if elem == 0 {
		return Param{}, fmt.Errorf("parameter %q has no type", s)
	}
	name, count := fields[len(fields)-1], 1
	if open := strings.IndexByte(name, '['); open >= 0 {
		if !strings.HasSuffix(name, "]") {
			return Param{}, fmt.Errorf("parameter %q: bad array", s)
		}
		n, err := strconv.Atoi(name[open+1 : len(name)-1])
		if err != nil || n <= 0 {
			return Param{}, fmt.Errorf("parameter %q: bad array length", s)
		}
		name, count = name[:open], n
	}
	if align == 0 {
		align = elem
	}
	p.Name, p.Size, p.Align = name, elem*count, align
	return p, nil
}

// sourceParams returns, for each extern "C" kernel of a signature file (or
// a plain .cu source), the declared parameters as (type, name) pairs. A
// definition reads `extern "C" __global__ [__launch_bounds__(...)] void
// NAME(PARAMS)`, with any white space between the words; anything else
// that starts with extern is skipped. It scans by hand, as every process
// reads every module's signatures at start-up and a regular expression
// with submatches is slow at it (TestSourceParamsMatchesThePattern keeps
// the scan equal to the expression).
func sourceParams(src []byte) map[string][][2]string {
	out := map[string][][2]string{}
	for at := 0; ; {
		i := bytes.Index(src[at:], []byte("extern"))
		if i < 0 {
			return out
		}
		at += i + len("extern")
		name, list, ok := readEntry(src[at:])
		if !ok {
			continue
		}
		var params [][2]string
		if list = strings.TrimSpace(list); list != "" && list != "void" {
			for _, decl := range strings.Split(list, ",") {
				decl = strings.TrimSpace(decl)
				cut := strings.LastIndexFunc(decl, func(r rune) bool { return !isIdentByte(r) })
				params = append(params, [2]string{strings.TrimSpace(decl[:cut+1]), decl[cut+1:]})
			}
		}
		out[name] = params
	}
}

// readEntry reads what follows an `extern` of a kernel definition: white
// space, "C", __global__, an optional __launch_bounds__(...), void, the
// kernel's name and its parenthesised parameter list, returned without the
// parentheses.
func readEntry(b []byte) (name, params string, ok bool) {
	word := func(w string, spaceAfter bool) bool {
		n := len(b)
		b = bytes.TrimLeft(b, " \t\r\n")
		if len(b) == n || !bytes.HasPrefix(b, []byte(w)) {
			return false
		}
		b = b[len(w):]
		return !spaceAfter || len(b) > 0 && isSpace(b[0])
	}
	if !word(`"C"`, true) || !word("__global__", true) {
		return "", "", false
	}
	if rest := bytes.TrimLeft(b, " \t\r\n"); bytes.HasPrefix(rest, []byte("__launch_bounds__")) {
		rest = bytes.TrimLeft(rest[len("__launch_bounds__"):], " \t\r\n")
		closing := bytes.IndexByte(rest, ')')
		if len(rest) == 0 || rest[0] != '(' || closing < 0 {
			return "", "", false
		}
		b = rest[closing+1:]
		if len(b) == 0 || !isSpace(b[0]) {
			return "", "", false
		}
	}
	if !word("void", true) {
		return "", "", false
	}
	b = bytes.TrimLeft(b, " \t\r\n")
	n := 0
	for n < len(b) && isIdentByte(rune(b[n])) {
		n++
	}
	if n == 0 {
		return "", "", false
	}
	name, b = string(b[:n]), bytes.TrimLeft(b[n:], " \t\r\n")
	if len(b) == 0 || b[0] != '(' {
		return "", "", false
	}
	closing := bytes.IndexByte(b, ')')
	if closing < 0 {
		return "", "", false
	}
	return name, string(b[1:closing]), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isIdentByte(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// nameParams gives m's parameters the names its signature file declares,
// where the parameter count matches the PTX (the package's tests require
// it to match everywhere).
func nameParams(m *Module, src []byte) {
	decls := sourceParams(src)
	for _, k := range m.Kernels {
		d, ok := decls[k.Name]
		if !ok || len(d) != len(k.Params) {
			continue
		}
		for i := range k.Params {
			if d[i][1] != "" {
				k.Params[i].Name = d[i][1]
			}
		}
	}
}
