package ptx

import "strconv"

// Lowering of function bodies: declarations become register slots and
// symbols, instructions become Inst with every name resolved.

// entityKind says what a name in a function scope denotes.
type entityKind uint8

const (
	entReg   entityKind = iota + 1
	entParam            // Function.Params index
	entLocal            // Function.Locals index
	entVar              // Module.Vars index
)

type entity struct {
	kind  entityKind
	index int32
}

// Limits that keep a malformed module from exhausting memory.
const (
	maxRegsPerDecl = 1 << 16
	maxRegsPerFunc = 1 << 16
	maxInsts       = 1 << 22
)

type funcLowerer struct {
	p        *parser
	fn       *Function
	scopes   []map[string]entity
	labels   map[string]int32
	branches []pendingBranch
	loc      Pos
	names    map[string]int // declared-name counts, to make shadowing names unique
	body     bodyRange
	// Call-sequence .param temporaries live only in their scope, so
	// sibling scopes share bytes, as a stack: callTop is the next free
	// byte (relative to where they start, see layoutParams), callMarks the
	// callTop at each open scope's start, callSize the deepest extent.
	callTop, callSize int
	callMarks         []int
}

type pendingBranch struct {
	inst  int
	label string
	line  int32
}

func (p *parser) lowerFunction(fn *Function, body bodyRange) {
	p.fn = fn.Name
	l := &funcLowerer{p: p, fn: fn, labels: map[string]int32{}, names: map[string]int{}}
	l.push()
	for i := range fn.Params {
		pr := &fn.Params[i]
		if pr.Space == SpaceReg {
			pr.Reg = l.newReg(pr.Name, pr.Type, fn.Pos.PTXLine)
			l.declare(pr.Name, entity{entReg, int32(pr.Reg)}, fn.Pos.PTXLine)
			continue
		}
		l.declare(pr.Name, entity{entParam, int32(i)}, fn.Pos.PTXLine)
	}
	p.pos = body.start
	l.body = body
	// Every instruction ends in ';', so the body's semicolons bound the
	// instruction count: one allocation instead of a doubling series.
	semis := 0
	for _, t := range p.toks[body.start:body.end] {
		if t.kind == tokPunct && t.text == ";" {
			semis++
		}
	}
	fn.Insts = make([]Inst, 0, semis)
	l.push() // the body's own scope
	for p.pos < body.end {
		l.statement()
	}
	if len(p.instErrs) > 0 {
		return // the module fails; labels may name skipped instructions
	}
	for _, b := range l.branches {
		target, ok := l.labels[b.label]
		if !ok {
			p.fail(b.line, "undefined label %s", b.label)
		}
		fn.Insts[b.inst].Target = target
	}
	layoutParams(fn, l.callSize)
	off := 0
	for i := range fn.Locals {
		v := &fn.Locals[i]
		a := max(v.Align, 1)
		off = (off + a - 1) / a * a
		v.Offset = off
		off += v.Size
	}
	fn.LocalFrameSize = off
	fn.NumRegs = len(fn.Regs)
}

func (l *funcLowerer) push() { l.scopes = append(l.scopes, map[string]entity{}) }

func (l *funcLowerer) declare(name string, e entity, line int32) {
	top := l.scopes[len(l.scopes)-1]
	if _, dup := top[name]; dup {
		l.p.fail(line, "%s declared twice in the same scope", name)
	}
	top[name] = e
}

func (l *funcLowerer) resolve(name string) (entity, bool) {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if e, ok := l.scopes[i][name]; ok {
			return e, true
		}
	}
	if i, ok := l.p.mod.VarsByName[name]; ok {
		return entity{entVar, int32(i)}, true
	}
	return entity{}, false
}

// uniqueName returns name, or name~N when an earlier declaration in this
// function (another scope) used the same name, so dumps stay unambiguous.
func (l *funcLowerer) uniqueName(name string) string {
	n := l.names[name]
	l.names[name] = n + 1
	if n == 0 {
		return name
	}
	return name + "~" + strconv.Itoa(n)
}

func (l *funcLowerer) newReg(name string, ty Type, line int32) RegIndex {
	if len(l.fn.Regs) >= maxRegsPerFunc {
		l.p.fail(line, "too many registers")
	}
	l.fn.Regs = append(l.fn.Regs, RegInfo{Name: l.uniqueName(name), Type: ty})
	return RegIndex(len(l.fn.Regs) - 1)
}

// statement lowers one declaration, directive, label, scope brace or
// instruction.
func (l *funcLowerer) statement() {
	p := l.p
	t := p.peek()
	switch {
	case t.kind == tokPunct && t.text == "{":
		p.next()
		l.push()
		l.callMarks = append(l.callMarks, l.callTop)
	case t.kind == tokPunct && t.text == "}":
		p.next()
		if len(l.scopes) <= 2 {
			p.fail(t.line, "unbalanced }")
			break
		}
		l.scopes = l.scopes[:len(l.scopes)-1]
		l.callTop = l.callMarks[len(l.callMarks)-1]
		l.callMarks = l.callMarks[:len(l.callMarks)-1]
	case t.kind == tokDirective:
		l.directive()
	case t.kind == tokIdent && p.peekAt(1).kind == tokPunct && p.peekAt(1).text == ":":
		p.next()
		p.next()
		if _, dup := l.labels[t.text]; dup {
			p.fail(t.line, "label %s defined twice", t.text)
		}
		l.labels[t.text] = int32(len(l.fn.Insts))
	case t.kind == tokIdent || (t.kind == tokPunct && t.text == "@"):
		l.instructionOrSkip()
	default:
		p.fail(t.line, "unexpected %s in function body", describe(t))
	}
}

// instructionOrSkip lowers one instruction. When the instruction is
// unsupported or malformed, it records the error and resumes after the
// instruction's ';', so that one load reports every bad instruction of the
// module, not the first only. Declarations and directives still stop the
// parse at once: what follows them may not mean anything.
func (l *funcLowerer) instructionOrSkip() {
	p := l.p
	start, branches := p.pos, len(l.branches)
	failed := func() (err *Error) {
		defer func() {
			if r := recover(); r != nil {
				b, ok := r.(bailout)
				if !ok {
					panic(r)
				}
				err = b.err
			}
		}()
		l.instruction()
		return nil
	}()
	if failed == nil {
		return
	}
	if len(p.instErrs) >= maxInstErrors {
		panic(bailout{failed}) // enough to act on; the list says so
	}
	p.instErrs = append(p.instErrs, failed)
	l.branches = l.branches[:branches]
	p.pos = start
	for p.pos < l.body.end && !p.is(";") {
		p.pos++
	}
	if p.pos < l.body.end {
		p.pos++ // the ';'
	}
}

func (l *funcLowerer) directive() {
	p := l.p
	t := p.peek()
	switch t.text {
	case ".reg":
		d := p.parseDeclSpec()
		if d.vec > 0 {
			p.fail(d.line, "vector registers are not supported")
		}
		for {
			nt := p.expectKind(tokIdent, "register name")
			if p.accept("<") {
				n := p.expectSmallInt("register count", maxRegsPerDecl)
				p.expect(">")
				for i := 0; i < n; i++ {
					name := nt.text + strconv.Itoa(i)
					l.declare(name, entity{entReg, int32(l.newReg(name, d.typ, nt.line))}, nt.line)
				}
			} else {
				l.declare(nt.text, entity{entReg, int32(l.newReg(nt.text, d.typ, nt.line))}, nt.line)
			}
			if !p.accept(",") {
				break
			}
		}
		p.expect(";")
	case ".local":
		for _, v := range p.parseVarDecl(false, false) {
			plain := v.Name
			v.Name = l.uniqueName(v.Name)
			l.fn.Locals = append(l.fn.Locals, v)
			l.declare(plain, entity{entLocal, int32(len(l.fn.Locals) - 1)}, v.Declared.PTXLine)
		}
	case ".shared", ".global", ".const":
		for _, v := range p.parseVarDecl(false, false) {
			plain := v.Name
			v.Name = l.fn.Name + "::" + l.uniqueName(v.Name)
			l.declare(plain, entity{entVar, int32(p.addModuleVar(v))}, v.Declared.PTXLine)
		}
	case ".param":
		d := p.parseDeclSpec()
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
		pr := Param{Name: l.uniqueName(nt.text), Role: ParamCall, Type: d.typ, Size: elem * count, Align: d.align, Reg: NoReg, Space: SpaceParam}
		if pr.Align == 0 {
			pr.Align = elem
		}
		if p.accept("=") {
			p.fail(nt.line, "initialized .param declarations are not supported")
		}
		p.expect(";")
		a := max(pr.Align, 1)
		l.callTop = (l.callTop + a - 1) / a * a
		pr.Offset = l.callTop // relative until layoutParams
		l.callTop += pr.Size
		l.callSize = max(l.callSize, l.callTop)
		l.fn.Params = append(l.fn.Params, pr)
		l.declare(nt.text, entity{entParam, int32(len(l.fn.Params) - 1)}, nt.line)
	case ".loc":
		p.next()
		file := p.expectSmallInt(".loc file", 1<<16)
		line := p.expectSmallInt(".loc line", 1<<30)
		col := p.expectSmallInt(".loc column", 1<<30)
		// Newer producers append ", function_name ..., inlined_at f l c";
		// the inlining chain does not change the position we report.
		for p.peek().line == t.line && p.is(",") {
			for p.peek().line == t.line && p.peek().kind != tokEOF {
				p.next()
			}
		}
		l.loc = Pos{File: int32(file), Line: int32(line), Col: int32(col)}
	case ".pragma":
		p.next()
		p.expectKind(tokString, "pragma string")
		p.expect(";")
	default:
		p.fail(t.line, "unsupported directive %s in function body", t.text)
	}
}
