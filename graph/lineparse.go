package graph

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ReadError is the error of a graph reader: the file, the 1-based line (0
// when the problem concerns the whole input) and what is wrong there. Err,
// when set, is a sentinel such as ErrTooManyVertices that errors.Is finds.
type ReadError struct {
	File string
	Line int64
	Msg  string
	Err  error
}

func (e *ReadError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.FormatInt(e.Line, 10)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ReadError) Unwrap() error { return e.Err }

// ErrVerticesOutOfProportion is returned when a header or an id demands far
// more vertices than the input's size can back (isolatedVertexFloor,
// verticesPerInputByte): a limit of its own, well below MaxVertices, so the
// error must not blame 32-bit ids.
var ErrVerticesOutOfProportion = errors.New("graph: vertex count out of proportion to the input's size")

// ReadOptions tunes the readers.
type ReadOptions struct {
	// Progress, when not nil, is called with the bytes consumed so far and
	// the input's total size (-1 when unknown), at most about once per MiB
	// and once more at the end.
	Progress func(done, total int64)
}

const (
	// lineBufferSize is the read chunk of lineReader: large enough that
	// system calls vanish from profiles, small enough to stay in L2.
	lineBufferSize = 256 << 10
	// progressStep is how many bytes pass between Progress calls.
	progressStep = 1 << 20
	// maxEmptyReads is how many (0, nil) reads in a row stallGuard allows.
	maxEmptyReads = 100
	// isolatedVertexFloor and verticesPerInputByte bound the vertex count
	// a header (or one large id) may demand beyond the data that backs it:
	// a CSR costs 4 bytes per vertex and Build about 16 more while it
	// runs, so a 20-byte file must not make us allocate 40 GB. Any real
	// graph file carries far more than one byte per 64 vertices.
	isolatedVertexFloor  = 1 << 20
	verticesPerInputByte = 64
	// unknownSizePrealloc caps preallocation from a declared count when
	// the input size is unknown; slices grow by append beyond it.
	unknownSizePrealloc = 1 << 16
)

// lineReader hands out the lines of a stream without copying them: each
// line is valid until the next call. It counts lines for error messages and
// bytes for progress and for bounding allocations by what the input holds.
type lineReader struct {
	r        io.Reader
	name     string
	buf      []byte
	start    int // first unconsumed byte of buf
	end      int // end of the valid bytes of buf
	eof      bool
	err      error // first read error other than io.EOF
	line     int64 // number of the line last returned
	read     int64 // bytes read from r so far
	total    int64 // input size, -1 when unknown
	progress func(done, total int64)
	reported int64
}

func newLineReader(r io.Reader, name string, opt ReadOptions) *lineReader {
	if name == "" {
		name = "<input>"
	}
	total := inputSize(r)
	size := lineBufferSize
	if total >= 0 && total < lineBufferSize {
		size = max(int(total)+1, 512) // small inputs need no 256 KiB buffer
	}
	return &lineReader{r: &stallGuard{r: r}, name: name, buf: make([]byte, size), total: total, progress: opt.Progress}
}

// stallGuard turns a long run of (0, nil) reads, which io.Reader
// discourages but does not forbid, into io.ErrNoProgress, so that a broken
// reader cannot hang a parser.
type stallGuard struct {
	r     io.Reader
	empty int
}

func (g *stallGuard) Read(p []byte) (int, error) {
	for {
		n, err := g.r.Read(p)
		if n > 0 || err != nil || len(p) == 0 {
			g.empty = 0
			return n, err
		}
		if g.empty++; g.empty >= maxEmptyReads {
			return 0, io.ErrNoProgress
		}
	}
}

// inputSize returns the bytes left in r when r can tell, else -1.
func inputSize(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, bytes.Buffer, strings.Reader
		return int64(v.Len())
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return st.Size() - off
	}
	return -1
}

// next returns the next line without its '\n' (a '\r' before it stays and
// counts as white space). It returns false at the end of the input or on a
// read error, which lr.failure reports.
func (lr *lineReader) next() ([]byte, bool) {
	for {
		if i := indexNewline(lr.buf[lr.start:lr.end]); i >= 0 {
			line := lr.buf[lr.start : lr.start+i]
			lr.start += i + 1
			lr.line++
			return line, true
		}
		if lr.eof || lr.err != nil {
			if lr.start < lr.end && lr.err == nil {
				line := lr.buf[lr.start:lr.end]
				lr.start = lr.end
				lr.line++
				return line, true
			}
			lr.finish()
			return nil, false
		}
		lr.fill()
	}
}

// fill moves the partial line to the front of the buffer, growing it when
// one line fills it all, and reads more.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		// One line longer than the buffer (a METIS hub vertex): grow. The
		// growth is paid for by bytes actually read, never by a header.
		bigger := make([]byte, 2*len(lr.buf))
		copy(bigger, lr.buf[:lr.end])
		lr.buf = bigger
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	lr.read += int64(n)
	if err == io.EOF {
		lr.eof = true
	} else if err != nil {
		lr.err = err
	}
	if lr.progress != nil && lr.read-lr.reported >= progressStep {
		lr.reported = lr.read
		lr.progress(lr.read, lr.total)
	}
}

func (lr *lineReader) finish() {
	if lr.progress != nil && lr.reported != lr.read {
		lr.reported = lr.read
		lr.progress(lr.read, lr.total)
	}
}

// failure returns the read error, if any, with the file name.
func (lr *lineReader) failure() error {
	if lr.err == nil {
		return nil
	}
	return &ReadError{File: lr.name, Line: lr.line + 1, Msg: "read failed", Err: lr.err}
}

// errorf reports a problem on the line last returned.
func (lr *lineReader) errorf(format string, args ...any) error {
	return &ReadError{File: lr.name, Line: lr.line, Msg: fmt.Sprintf(format, args...)}
}

// wrapf reports a problem on the line last returned that a sentinel names.
func (lr *lineReader) wrapf(sentinel error, format string, args ...any) error {
	return &ReadError{File: lr.name, Line: lr.line, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// remaining estimates the bytes not yet consumed, or -1 when unknown.
func (lr *lineReader) remaining() int64 {
	if lr.total < 0 {
		return -1
	}
	return lr.total - lr.read + int64(lr.end-lr.start)
}

// preallocation returns how many entries to reserve for a declared count:
// never more than the rest of the input can hold at minBytes per entry.
func (lr *lineReader) preallocation(declared uint64, minBytes int64) int {
	limit := uint64(unknownSizePrealloc)
	if rest := lr.remaining(); rest >= 0 {
		limit = uint64(rest/minBytes) + 1
	}
	return int(min(declared, limit, MaxEdges))
}

// checkMemory refuses work on the input, at line (0: the whole input),
// that needs more memory than the process can get.
func (lr *lineReader) checkMemory(line int64, what string, need uint64) error {
	if err := checkMemory(what, need); err != nil {
		return &ReadError{File: lr.name, Line: line, Msg: "not enough memory", Err: err}
	}
	return nil
}

// preallocateEdges gives l room for count edges (and their weights when
// weighted), checking the memory first; line is the header that declared
// them.
func (lr *lineReader) preallocateEdges(l *EdgeList, count int, weighted bool, line int64) error {
	arrays := uint64(2)
	if weighted {
		arrays = 3
	}
	if err := lr.checkMemory(line, fmt.Sprintf("holding %d edges", count), 4*arrays*uint64(count)); err != nil {
		return err
	}
	l.Src, l.Dst = make([]uint32, 0, count), make([]uint32, 0, count)
	if weighted {
		l.Weights = make([]uint32, 0, count)
	}
	return nil
}

// growEdges makes room for more edges in l, as append would (a quarter
// more), once the memory is checked: a long edge list fails with an
// error naming the line rather than in Go's fatal out-of-memory.
func (lr *lineReader) growEdges(l *EdgeList) error {
	more := max(cap(l.Src)/4, 4096)
	arrays := uint64(2)
	if l.Weights != nil {
		arrays = 3
	}
	total := len(l.Src) + more
	// The old arrays stay in use until they are copied.
	if err := lr.checkMemory(lr.line, fmt.Sprintf("holding %d edges", total), 4*arrays*uint64(total)); err != nil {
		return err
	}
	l.Src, l.Dst = slices.Grow(l.Src, more), slices.Grow(l.Dst, more)
	if l.Weights != nil {
		l.Weights = slices.Grow(l.Weights, more)
	}
	return nil
}

// checkVertexCount refuses a vertex count that would not fit 32-bit ids or
// that demands far more memory than the input's size justifies.
// The error names line (0: the whole input) and starts with what.
func (lr *lineReader) checkVertexCount(n uint64, line int64, what string) error {
	if n > MaxVertices {
		return &ReadError{File: lr.name, Line: line, Msg: fmt.Sprintf("%s %d vertices", what, n), Err: ErrTooManyVertices}
	}
	if n > isolatedVertexFloor && n/verticesPerInputByte > uint64(lr.read) {
		return &ReadError{File: lr.name, Line: line, Err: ErrVerticesOutOfProportion,
			Msg: fmt.Sprintf("%s %d vertices, more than %d per byte of a %d-byte input (renumber the ids densely)", what, n, verticesPerInputByte, lr.read)}
	}
	return nil
}

// indexNewline uses bytes.IndexByte, which is vectorised: most of a
// line's cost is finding its end.
func indexNewline(b []byte) int { return bytes.IndexByte(b, '\n') }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// nextField returns the token of line that starts at or after pos and the
// position just past it; tok is empty when the line has no more tokens.
func nextField(line []byte, pos int) (tok []byte, next int) {
	for pos < len(line) && isSpace(line[pos]) {
		pos++
	}
	start := pos
	for pos < len(line) && !isSpace(line[pos]) {
		pos++
	}
	return line[start:pos], pos
}

// blank reports whether line[pos:] holds only white space.
func blank(line []byte, pos int) bool {
	for ; pos < len(line); pos++ {
		if !isSpace(line[pos]) {
			return false
		}
	}
	return true
}

// firstByte returns the first non-space byte of line, 0 when blank.
func firstByte(line []byte) byte {
	for _, c := range line {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}

// parseUint parses an unsigned decimal; ok is false for anything but
// digits or a value above 2^64-1.
func parseUint(tok []byte) (v uint64, ok bool) {
	if len(tok) == 0 {
		return 0, false
	}
	for _, c := range tok {
		d := uint64(c - '0')
		if d > 9 {
			return 0, false
		}
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// isInteger reports whether tok is an optionally signed decimal integer.
func isInteger(tok []byte) bool {
	if len(tok) > 0 && (tok[0] == '-' || tok[0] == '+') {
		tok = tok[1:]
	}
	if len(tok) == 0 {
		return false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// idProblem describes why a token is not a vertex id in 0..2^64-1.
func idProblem(tok []byte) string {
	switch {
	case len(tok) == 0:
		return "missing vertex id"
	case tok[0] == '-' && isInteger(tok):
		return fmt.Sprintf("negative vertex id %s", quoteToken(tok))
	case isInteger(tok):
		return fmt.Sprintf("vertex id %s is too large", quoteToken(tok))
	}
	return fmt.Sprintf("non-numeric vertex id %s", quoteToken(tok))
}

// weightProblem says why a token is not a weight; weightOK means it is.
type weightProblem uint8

const (
	weightOK weightProblem = iota
	weightMissing
	weightNegative
	weightNotNumeric
	weightNotInteger
	weightNotFinite
	weightTooLarge
)

func (p weightProblem) describe(tok []byte) string {
	q := quoteToken(tok)
	switch p {
	case weightMissing:
		return "missing weight"
	case weightNegative:
		return "negative weight " + q
	case weightNotInteger:
		return "non-integer weight " + q
	case weightNotFinite:
		return "weight " + q + " is not finite"
	case weightTooLarge:
		return "weight " + q + " does not fit 32 bits"
	}
	return "non-numeric weight " + q
}

// parseWeight parses a non-negative weight that fits uint32. With
// allowReal, a real number is rounded to the nearest integer (math.Round:
// halves away from zero); otherwise only integers are accepted.
func parseWeight(tok []byte, allowReal bool) (uint32, weightProblem) {
	if len(tok) == 0 {
		return 0, weightMissing
	}
	// Fast path: plain digits, and (for reals) digits '.' digits with at
	// most 15 significant digits. Up to 15 digits a float64 holds the
	// decimal closely enough that the first fraction digit decides the
	// rounding exactly as strconv.ParseFloat plus math.Round would.
	var v uint64
	i := 0
	for i < len(tok) && i < 16 && tok[i]-'0' <= 9 {
		v = v*10 + uint64(tok[i]-'0')
		i++
	}
	if i == len(tok) && i <= 15 {
		if v > math.MaxUint32 {
			return 0, weightTooLarge
		}
		return uint32(v), weightOK
	}
	if allowReal && i > 0 && i <= 15 && tok[i] == '.' {
		j := i + 1
		up := j < len(tok) && tok[j] >= '5' && tok[j] <= '9'
		for j < len(tok) && tok[j]-'0' <= 9 {
			j++
		}
		if j == len(tok) && j-1 <= 15 {
			if up {
				v++
			}
			if v > math.MaxUint32 {
				return 0, weightTooLarge
			}
			return uint32(v), weightOK
		}
	}
	return parseWeightSlow(tok, allowReal)
}

func parseWeightSlow(tok []byte, allowReal bool) (uint32, weightProblem) {
	if !allowReal {
		if !isInteger(tok) {
			if _, err := strconv.ParseFloat(string(tok), 64); err == nil || errors.Is(err, strconv.ErrRange) {
				return 0, weightNotInteger
			}
			return 0, weightNotNumeric
		}
		neg := tok[0] == '-'
		if tok[0] == '-' || tok[0] == '+' {
			tok = tok[1:]
		}
		v, ok := parseUint(trimLeadingZeros(tok))
		switch {
		case neg && (v != 0 || !ok):
			return 0, weightNegative
		case !ok || v > math.MaxUint32:
			return 0, weightTooLarge
		}
		return uint32(v), weightOK
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, weightNotNumeric
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) && err == nil:
		return 0, weightNotFinite
	case f < 0:
		return 0, weightNegative
	}
	r := math.Round(f)
	if r > math.MaxUint32 {
		return 0, weightTooLarge
	}
	return uint32(r), weightOK
}

func trimLeadingZeros(tok []byte) []byte {
	for len(tok) > 1 && tok[0] == '0' {
		tok = tok[1:]
	}
	return tok
}

// parseID parses a vertex id token, allowing leading zeros.
func parseID(tok []byte) (uint64, bool) {
	if len(tok) > 19 {
		tok = trimLeadingZeros(tok)
	}
	return parseUint(tok)
}

// quoteToken quotes a token for an error message, shortened so that a
// garbage line cannot produce a megabyte-long error.
func quoteToken(tok []byte) string {
	const limit = 40
	if len(tok) <= limit {
		return strconv.Quote(string(tok))
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(tok[cut]) {
		cut--
	}
	return strconv.Quote(string(tok[:cut])) + "..."
}
