package ptx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/warpgraph/warpgraph/internal/parallel"
)

// Parse parses, lowers and analyses one PTX module. name is used in error
// messages (typically the file name). Any construct the front end does not
// support is an *Error naming the function, the PTX line and its text; Parse
// never skips an instruction or directive silently and never panics on bad
// input.
//
// The only text Parse ignores on purpose: comments, debug sections
// (.section .debug_*), and cache-operator / eviction-hint suffixes (.ca,
// .nc, .L2::...), which do not change values.
func Parse(name string, src []byte) (*Module, error) {
	mod, err := parse(name, src, true)
	if errors.Is(err, errRetrySerially) {
		// Errors are reported as the one-function-after-another parse
		// finds them: which come first, and where the cap falls.
		mod, err = parse(name, src, false)
	}
	return mod, err
}

// errRetrySerially is what a parse that lowered functions at once returns
// when one of them failed.
var errRetrySerially = errors.New("ptx: lower one function after another")

func parse(name string, src []byte, concurrent bool) (mod *Module, err error) {
	p := &parser{name: name, lines: bytes.Split(src, []byte("\n"))}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			mod, err = nil, b.err
			if len(p.instErrs) > 0 {
				err = append(p.instErrs, b.err)
			}
		}
	}()
	toks, lerr := lex(src)
	if lerr != nil {
		e := lerr.(*Error)
		p.fail(e.Line, "%s", e.Msg)
	}
	p.toks = toks
	p.mod = &Module{Name: name, FuncsByName: map[string]int{}, VarsByName: map[string]int{}, Files: []string{""}}
	p.parseModule()
	p.calleeParams = make([][]Param, len(p.mod.Funcs))
	for i, fn := range p.mod.Funcs {
		p.calleeParams[i] = slices.Clone(fn.Params)
	}
	if concurrent && runtime.GOMAXPROCS(0) > 1 && len(p.mod.Funcs) > 1 {
		if !p.lowerConcurrently() {
			return nil, errRetrySerially
		}
		if err := analyseCalls(p.mod); err != nil {
			return nil, fmt.Errorf("ptx: %s: %w", name, err)
		}
		return p.mod, nil
	}
	for i, fn := range p.mod.Funcs {
		if fn.Extern {
			continue
		}
		p.lowerFunction(fn, p.bodies[i])
	}
	p.fn = ""
	switch len(p.instErrs) {
	case 0:
	case 1:
		return nil, p.instErrs[0]
	default:
		return nil, p.instErrs
	}
	if err := analyseModule(p.mod); err != nil {
		return nil, fmt.Errorf("ptx: %s: %w", name, err)
	}
	return p.mod, nil
}

// lowerConcurrently lowers and analyses the module's function bodies on
// up to GOMAXPROCS goroutines, each function by a parser of its own over
// the shared tokens; a function reads the others' headers only (through
// calleeParams). It reports whether every function succeeded.
func (p *parser) lowerConcurrently() bool {
	// A body that declares .shared, .global or .const variables adds them
	// to the module's variables, whose order is the functions' order: such
	// bodies go first, one after another.
	first := make([]bool, len(p.mod.Funcs))
	for i, fn := range p.mod.Funcs {
		if fn.Extern || !p.declaresModuleVars(p.bodies[i]) {
			continue
		}
		first[i] = true
		if !p.sub().lowerAndAnalyse(fn, p.bodies[i]) {
			return false
		}
	}
	var failed atomic.Bool
	parallel.Chunks(len(p.mod.Funcs), func(i int) {
		fn := p.mod.Funcs[i]
		if fn.Extern || first[i] || failed.Load() {
			return
		}
		if !p.sub().lowerAndAnalyse(fn, p.bodies[i]) {
			failed.Store(true)
		}
	})
	return !failed.Load()
}

// sub is a parser of its own over p's tokens and module, for one
// function's body.
func (p *parser) sub() *parser {
	return &parser{name: p.name, lines: p.lines, toks: p.toks, mod: p.mod, bodies: p.bodies, calleeParams: p.calleeParams}
}

// declaresModuleVars reports whether a body holds a .shared, .global or
// .const directive (a declaration of a module variable, or anything else
// that names those spaces as a word of its own).
func (p *parser) declaresModuleVars(body bodyRange) bool {
	for _, t := range p.toks[body.start:body.end] {
		if t.kind == tokDirective && (t.text == ".shared" || t.text == ".global" || t.text == ".const") {
			return true
		}
	}
	return false
}

// lowerAndAnalyse lowers one function and analyses its control flow,
// reporting whether both succeeded.
func (p *parser) lowerAndAnalyse(fn *Function, body bodyRange) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, isBailout := r.(bailout); !isBailout {
				panic(r)
			}
			ok = false
		}
	}()
	p.lowerFunction(fn, body)
	return len(p.instErrs) == 0 && analyseFunction(fn) == nil
}

// bailout carries an *Error out of the recursive-descent parser; Parse
// recovers it and nothing else.
type bailout struct{ err *Error }

// bodyRange is a function body's tokens, between (not including) its braces.
type bodyRange struct{ start, end int }

type parser struct {
	name   string
	lines  [][]byte
	toks   []token
	pos    int
	mod    *Module
	fn     string      // function being parsed, for errors
	bodies []bodyRange // per Module.Funcs index
	// instErrs are the instructions that failed to decode so far; the
	// parse goes on after each (instructionOrSkip).
	instErrs ErrorList
	// calleeParams are each function's parameters as its header declares
	// them, for calls: lowering a function sets its own parameters'
	// registers.
	calleeParams [][]Param
}

func (p *parser) fail(line int32, format string, args ...any) {
	e := &Error{Module: p.name, Function: p.fn, Line: line, Msg: fmt.Sprintf(format, args...)}
	if line >= 1 && int(line) <= len(p.lines) {
		e.Text = strings.TrimSpace(string(p.lines[line-1]))
	}
	panic(bailout{e})
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekAt(k int) token {
	if p.pos+k < len(p.toks) {
		return p.toks[p.pos+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

func (p *parser) is(text string) bool {
	t := p.peek()
	return t.kind != tokString && t.kind != tokEOF && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(text string) token {
	t := p.peek()
	if !p.is(text) {
		p.fail(t.line, "expected %q, found %s", text, describe(t))
	}
	return p.next()
}

func (p *parser) expectKind(k tokenKind, what string) token {
	t := p.peek()
	if t.kind != k {
		p.fail(t.line, "expected %s, found %s", what, describe(t))
	}
	return p.next()
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return strconv.Quote(t.text)
	}
	return "`" + t.text + "`"
}

func (p *parser) expectInt(what string) int64 {
	t := p.expectKind(tokNumber, what)
	v, ok := parseIntLiteral(t.text)
	if !ok {
		p.fail(t.line, "bad %s %q", what, t.text)
	}
	return int64(v)
}

// expectSmallInt reads a non-negative integer that sizes something (an
// alignment, an array length), bounded so that layouts cannot overflow.
func (p *parser) expectSmallInt(what string, max int64) int {
	line := p.peek().line
	v := p.expectInt(what)
	if v < 0 || v > max {
		p.fail(line, "%s %d out of range [0, %d]", what, v, max)
	}
	return int(v)
}

// maxObjectSize bounds declared sizes (1 GiB) and maxInitSize the
// variables with initializers (whose bytes the parser materializes), so a
// malformed module cannot make the parser allocate without limit.
const (
	maxObjectSize = 1 << 30
	maxInitSize   = 16 << 20
)

// parseModule reads the top level: directives, variables and function
// headers. Function bodies are recorded and lowered afterwards, once every
// function and module variable is known (calls may name a function defined
// later).
func (p *parser) parseModule() {
	for p.peek().kind != tokEOF {
		t := p.peek()
		if t.kind != tokDirective {
			p.fail(t.line, "unexpected %s at module level", describe(t))
		}
		switch t.text {
		case ".version":
			p.next()
			p.mod.Version = p.expectKind(tokNumber, "version").text
		case ".target":
			p.next()
			for {
				p.mod.Target = append(p.mod.Target, p.expectKind(tokIdent, "target").text)
				if !p.accept(",") {
					break
				}
			}
		case ".address_size":
			p.next()
			line := p.peek().line
			v := p.expectInt("address size")
			if v != 32 && v != 64 {
				p.fail(line, "address size %d is not 32 or 64", v)
			}
			p.mod.AddressSize = int(v)
		case ".file":
			p.parseFile()
		case ".section":
			p.skipSection()
		case ".pragma":
			p.next()
			p.expectKind(tokString, "pragma string")
			p.expect(";")
		default:
			p.parseModuleDecl()
		}
	}
	if p.mod.AddressSize == 0 {
		p.mod.AddressSize = 64
	}
}

func (p *parser) parseFile() {
	p.next()
	line := p.peek().line
	n := p.expectSmallInt(".file number", 1<<16)
	name := p.expectKind(tokString, "file name").text
	for p.accept(",") { // timestamp, size
		p.expectInt(".file field")
	}
	for len(p.mod.Files) <= n {
		p.mod.Files = append(p.mod.Files, "")
	}
	if p.mod.Files[n] != "" && p.mod.Files[n] != name {
		p.fail(line, ".file %d declared twice", n)
	}
	p.mod.Files[n] = name
}

// skipSection skips a debug section: DWARF data the simulator has no use
// for. Other sections are errors.
func (p *parser) skipSection() {
	t := p.next()
	name := p.next()
	if !strings.HasPrefix(name.text, ".debug") {
		p.fail(t.line, "unsupported section %s", describe(name))
	}
	p.expect("{")
	for depth := 1; depth > 0; {
		u := p.next()
		switch {
		case u.kind == tokEOF:
			p.fail(t.line, "unterminated section")
		case u.kind == tokPunct && u.text == "{":
			depth++
		case u.kind == tokPunct && u.text == "}":
			depth--
		}
	}
}

// parseModuleDecl reads linking directives and then a function or a
// module-level variable.
func (p *parser) parseModuleDecl() {
	var visible, extern bool
	for {
		t := p.peek()
		switch t.text {
		case ".visible":
			visible = true
		case ".extern":
			extern = true
		case ".weak", ".common":
			visible = true
		default:
			goto decl
		}
		p.next()
	}
decl:
	t := p.peek()
	switch t.text {
	case ".entry", ".func":
		p.parseFunctionHeader(visible, extern)
	case ".global", ".shared", ".const":
		for _, v := range p.parseVarDecl(visible, extern) {
			p.addModuleVar(v)
		}
	default:
		p.fail(t.line, "unsupported module-level directive %s", describe(t))
	}
}

func (p *parser) addModuleVar(v Variable) int {
	if _, dup := p.mod.VarsByName[v.Name]; dup {
		p.fail(v.Declared.PTXLine, "variable %s declared twice", v.Name)
	}
	if _, dup := p.mod.FuncsByName[v.Name]; dup {
		p.fail(v.Declared.PTXLine, "variable %s has the name of a function", v.Name)
	}
	p.mod.Vars = append(p.mod.Vars, v)
	p.mod.VarsByName[v.Name] = len(p.mod.Vars) - 1
	return len(p.mod.Vars) - 1
}

// declSpec is what precedes a declared name: state space, alignment, type,
// vector width, .ptr qualifiers.
type declSpec struct {
	space    Space
	align    int
	typ      Type
	vec      int
	ptr      bool
	ptrSpace Space
	ptrAlign int
	line     int32
}

var spaceByDirective = map[string]Space{
	".global": SpaceGlobal, ".shared": SpaceShared, ".local": SpaceLocal,
	".param": SpaceParam, ".const": SpaceConst, ".reg": SpaceReg,
}

// parseDeclSpec reads the directives of a declaration up to its name.
func (p *parser) parseDeclSpec() declSpec {
	d := declSpec{line: p.peek().line}
	for {
		t := p.peek()
		if t.kind != tokDirective {
			break
		}
		p.next()
		if sp, ok := spaceByDirective[t.text]; ok {
			switch {
			case d.ptr:
				d.ptrSpace = sp
			case d.space == SpaceNone:
				d.space = sp
			default:
				p.fail(t.line, "two state spaces in one declaration")
			}
			continue
		}
		if ty, ok := typeByName[t.text[1:]]; ok {
			if d.typ != TypeNone {
				p.fail(t.line, "two types in one declaration")
			}
			d.typ = ty
			continue
		}
		switch t.text {
		case ".align":
			a := p.expectSmallInt("alignment", 1<<16)
			if a == 0 || a&(a-1) != 0 {
				p.fail(t.line, "alignment %d is not a power of two", a)
			}
			if d.ptr {
				d.ptrAlign = a
			} else {
				d.align = a
			}
		case ".ptr":
			d.ptr = true
		case ".v2":
			d.vec = 2
		case ".v4":
			d.vec = 4
		default:
			p.fail(t.line, "unsupported declaration qualifier %s", t.text)
		}
	}
	if d.typ == TypeNone {
		p.fail(d.line, "declaration without a type")
	}
	return d
}

// parseArrayDims reads optional "[N]" suffixes and returns the element
// count (0 for "[]", an unsized extern array) and whether any were present.
func (p *parser) parseArrayDims() (count int, unsized bool) {
	count = 1
	for p.is("[") {
		line := p.next().line
		if p.accept("]") {
			unsized = true
			continue
		}
		n := p.expectSmallInt("array length", maxObjectSize)
		p.expect("]")
		count *= n
		if count > maxObjectSize {
			p.fail(line, "array too large")
		}
	}
	return count, unsized
}

// parseVarDecl reads ".global/.shared/.const/.local ... name[N] [= init];"
// (possibly several comma-separated names).
func (p *parser) parseVarDecl(visible, extern bool) []Variable {
	d := p.parseDeclSpec()
	var vars []Variable
	for {
		nt := p.expectKind(tokIdent, "variable name")
		count, unsized := p.parseArrayDims()
		elem := d.typ.Size()
		if d.vec > 0 {
			elem *= d.vec
		}
		if d.typ == TypePred {
			p.fail(nt.line, "predicate variables in memory are not supported")
		}
		if elem*count > maxObjectSize {
			p.fail(nt.line, "variable %s larger than %d bytes", nt.text, maxObjectSize)
		}
		v := Variable{
			Name: nt.text, Space: d.space, Type: d.typ, Size: elem * count,
			Align: d.align, Extern: extern, Visible: visible,
			Declared: Pos{PTXLine: nt.line},
		}
		if v.Align == 0 {
			v.Align = elem
		}
		if unsized {
			if !extern || d.space != SpaceShared {
				p.fail(nt.line, "unsized array %s is only supported as extern .shared (dynamic shared memory)", nt.text)
			}
			v.Size, v.Dynamic = 0, true
		}
		if p.accept("=") {
			if d.space == SpaceShared || d.space == SpaceLocal {
				p.fail(nt.line, "%s variables cannot have initializers", d.space)
			}
			if v.Size > maxInitSize {
				p.fail(nt.line, "initialized variable %s larger than %d bytes", nt.text, maxInitSize)
			}
			v.Init = p.parseInitializer(d.typ, v.Size)
		}
		vars = append(vars, v)
		if !p.accept(",") {
			break
		}
	}
	p.expect(";")
	return vars
}

// parseInitializer reads "{a, b, {c, d}}" or a single constant and encodes
// it little-endian into size bytes.
func (p *parser) parseInitializer(ty Type, size int) []byte {
	var out []byte
	var elem func()
	elem = func() {
		t := p.peek()
		if p.accept("{") {
			if !p.is("}") {
				for {
					elem()
					if !p.accept(",") {
						break
					}
				}
			}
			p.expect("}")
			return
		}
		neg := p.accept("-")
		nt := p.peek()
		if nt.kind != tokNumber {
			p.fail(t.line, "unsupported initializer %s (only numeric constants)", describe(nt))
		}
		p.next()
		bits, ok := immediateBits(nt.text, neg, ty)
		if !ok {
			p.fail(nt.line, "bad constant %q for type .%s", nt.text, ty)
		}
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], bits)
		out = append(out, buf[:ty.Size()]...)
		if len(out) > size {
			p.fail(nt.line, "initializer longer than the variable")
		}
	}
	elem()
	return append(out, make([]byte, size-len(out))...)
}

// parseFunctionHeader reads an .entry or .func header, its parameters and
// performance directives, and records the body's token range.
func (p *parser) parseFunctionHeader(visible, extern bool) {
	kw := p.next()
	fn := &Function{Visible: visible, Extern: extern, Kind: KindEntry, Pos: Pos{PTXLine: kw.line}}
	var rets []Param
	if kw.text == ".func" {
		fn.Kind = KindFunc
		if p.is("(") {
			rets = p.parseParamList(ParamReturn)
		}
	}
	nt := p.expectKind(tokIdent, "function name")
	fn.Name = nt.text
	p.fn = fn.Name
	var inputs []Param
	if p.is("(") {
		inputs = p.parseParamList(ParamInput)
	}
	if kw.text == ".entry" && len(rets) > 0 {
		p.fail(kw.line, "an .entry cannot return values")
	}
	for _, in := range inputs {
		if kw.text == ".entry" && in.Space != SpaceParam {
			p.fail(kw.line, "an .entry takes only .param parameters")
		}
	}
	fn.Params = append(append(fn.Params, inputs...), rets...)
	fn.NumInputs, fn.NumReturns = len(inputs), len(rets)
	p.parsePerfDirectives(fn)

	body := bodyRange{-1, -1}
	if p.accept(";") {
		fn.Extern = true
	} else {
		open := p.expect("{")
		body.start = p.pos
		for depth := 1; ; {
			u := p.next()
			if u.kind == tokEOF {
				p.fail(open.line, "function body not closed")
			}
			if u.kind == tokPunct && u.text == "{" {
				depth++
			} else if u.kind == tokPunct && u.text == "}" {
				depth--
				if depth == 0 {
					body.end = p.pos - 1
					break
				}
			}
		}
		if extern {
			p.fail(kw.line, ".extern function %s has a body", fn.Name)
		}
	}

	if i, ok := p.mod.FuncsByName[fn.Name]; ok {
		// A prototype followed by the definition: keep one function.
		prev := p.mod.Funcs[i]
		if !prev.Extern || prev.Kind != fn.Kind || len(prev.Params) != len(fn.Params) || prev.NumInputs != fn.NumInputs {
			p.fail(kw.line, "function %s declared twice with different signatures", fn.Name)
		}
		if !fn.Extern {
			fn.Index = i
			fn.Visible = fn.Visible || prev.Visible
			p.mod.Funcs[i] = fn
			p.bodies[i] = body
		}
	} else {
		if _, dup := p.mod.VarsByName[fn.Name]; dup {
			p.fail(kw.line, "function %s has the name of a variable", fn.Name)
		}
		fn.Index = len(p.mod.Funcs)
		p.mod.Funcs = append(p.mod.Funcs, fn)
		p.mod.FuncsByName[fn.Name] = fn.Index
		p.bodies = append(p.bodies, body)
	}
	p.fn = ""
}

// parseParamList reads "( .param .u64 a, .param .align 8 .b8 b[16] )".
func (p *parser) parseParamList(role ParamRole) []Param {
	p.expect("(")
	var params []Param
	if p.accept(")") {
		return nil
	}
	for {
		d := p.parseDeclSpec()
		if d.space != SpaceParam && d.space != SpaceReg {
			p.fail(d.line, "parameter must be .param or .reg")
		}
		nt := p.expectKind(tokIdent, "parameter name")
		count, unsized := p.parseArrayDims()
		if unsized {
			p.fail(nt.line, "unsized parameter array")
		}
		elem := d.typ.Size()
		if d.vec > 0 {
			elem *= d.vec
		}
		if elem*count > maxObjectSize {
			p.fail(nt.line, "parameter %s too large", nt.text)
		}
		pr := Param{
			Name: nt.text, Role: role, Type: d.typ, Size: elem * count, Align: d.align,
			Ptr: d.ptr, PtrSpace: d.ptrSpace, PtrAlign: d.ptrAlign, Reg: NoReg, Space: d.space,
		}
		if pr.Align == 0 {
			pr.Align = elem
		}
		for _, q := range params {
			if q.Name == pr.Name {
				p.fail(nt.line, "parameter %s declared twice", pr.Name)
			}
		}
		params = append(params, pr)
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return params
}

func (p *parser) parsePerfDirectives(fn *Function) {
	for {
		t := p.peek()
		switch t.text {
		case ".maxntid", ".reqntid":
			p.next()
			var dims [3]int
			for i := 0; i < 3; i++ {
				dims[i] = p.expectSmallInt(t.text, 1<<20)
				if !p.accept(",") {
					break
				}
			}
			if t.text == ".maxntid" {
				fn.MaxNTID = dims
			} else {
				fn.ReqNTID = dims
			}
		case ".minnctapersm":
			p.next()
			fn.MinNCTAPerSM = p.expectSmallInt(t.text, 1<<16)
		case ".maxnctapersm":
			p.next()
			p.expectSmallInt(t.text, 1<<16) // deprecated hint, no effect on values
		case ".maxnreg":
			p.next()
			fn.MaxNReg = p.expectSmallInt(t.text, 1<<16)
		case ".noreturn":
			p.next()
			fn.NoReturn = true
		case ".pragma":
			p.next()
			p.expectKind(tokString, "pragma string")
			p.expect(";")
		default:
			return
		}
	}
}

// layoutParams assigns frame offsets: inputs first (CUDA's kernel parameter
// layout), then returns, then call-sequence temporaries.
func layoutParams(fn *Function, callSize int) {
	off := 0
	callAlign := 1
	for i := range fn.Params {
		pr := &fn.Params[i]
		if pr.Space == SpaceReg {
			continue
		}
		if pr.Role == ParamCall {
			callAlign = max(callAlign, pr.Align)
			continue
		}
		a := max(pr.Align, 1)
		off = (off + a - 1) / a * a
		pr.Offset = off
		off += pr.Size
		if i == fn.NumInputs-1 {
			fn.KernelParamSize = off
		}
	}
	// The call temporaries follow, at the offsets their scopes gave them
	// (relative to a base aligned for all of them).
	base := (off + callAlign - 1) / callAlign * callAlign
	for i := range fn.Params {
		if pr := &fn.Params[i]; pr.Role == ParamCall && pr.Space != SpaceReg {
			pr.Offset += base
		}
	}
	if callSize > 0 {
		off = base + callSize
	}
	fn.ParamFrameSize = off
}

// parseIntLiteral parses a PTX integer literal without sign: decimal, hex
// (0x), octal (leading 0), binary (0b), optionally suffixed with U.
func parseIntLiteral(s string) (uint64, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "U"), "u")
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 2 && (s[:2] == "0b" || s[:2] == "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	v, err := strconv.ParseUint(s, base, 64)
	return v, err == nil
}

// Float literal forms.
const (
	floatDecimal = iota // 1.5, 1e-3
	floatHex32          // 0f3F800000: f32 bits
	floatHex64          // 0d3FF0000000000000: f64 bits
)

// parseFloatLiteral parses 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX or a decimal
// float; raw is the literal's bits for the hex forms.
func parseFloatLiteral(s string) (v float64, raw uint64, form int, ok bool) {
	if len(s) == 10 && (s[:2] == "0f" || s[:2] == "0F") {
		b, err := strconv.ParseUint(s[2:], 16, 32)
		return float64(math.Float32frombits(uint32(b))), b, floatHex32, err == nil
	}
	if len(s) == 18 && (s[:2] == "0d" || s[:2] == "0D") {
		b, err := strconv.ParseUint(s[2:], 16, 64)
		return math.Float64frombits(b), b, floatHex64, err == nil
	}
	if strings.ContainsAny(s, "xXbBnN") { // no hex, no inf/nan words
		return 0, 0, 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, 0, floatDecimal, err == nil
}

// immediateBits encodes a literal as the bits the executor reads for an
// operand of type ty (see ir.go): integers two's-complement in 64 bits,
// floats as IEEE bits of ty.
func immediateBits(text string, neg bool, ty Type) (uint64, bool) {
	if u, ok := parseIntLiteral(text); ok {
		if ty.IsFloat() {
			f := float64(u)
			if neg {
				f = -f
			}
			return floatBits(f, ty)
		}
		if neg {
			u = -u
		}
		return u, true
	}
	f, raw, form, ok := parseFloatLiteral(text)
	if !ok {
		return 0, false
	}
	// Hex floats of the operand's own width are raw bits (NaN payloads
	// included), for float and bit types alike.
	if form == floatHex32 && ty.Size() == 4 && (ty == TypeF32 || !ty.IsFloat()) {
		if neg {
			raw ^= 1 << 31
		}
		return raw, true
	}
	if form == floatHex64 && ty.Size() == 8 && (ty == TypeF64 || !ty.IsFloat()) {
		if neg {
			raw ^= 1 << 63
		}
		return raw, true
	}
	if !ty.IsFloat() {
		return 0, false
	}
	if neg {
		f = -f
	}
	return floatBits(f, ty)
}

func floatBits(f float64, ty Type) (uint64, bool) {
	switch ty {
	case TypeF32:
		return uint64(math.Float32bits(float32(f))), true
	case TypeF64:
		return math.Float64bits(f), true
	}
	return 0, false // f16 immediates are written as .b16 bits by clang
}
