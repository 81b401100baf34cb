package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"unsafe"
)

// The binary CSR cache (.wgc) stores a Graph so that loading it is one read
// and no parsing. Layout, all little-endian:
//
//	offset  size  field
//	0       8     magic "\x89WGC\r\n\x1a\n"
//	8       4     format version (CacheVersion)
//	12      4     flags: bit 0 directed, bit 1 weighted
//	16      8     vertex count n
//	24      8     stored edge count m
//	32      4     CRC-32C (Castagnoli) of bytes 0..31 and the payload
//	36      4     reserved, zero
//	40            payload: offsets (n+1) x uint32, targets m x uint32,
//	              weights m x uint32 when weighted
//
// The magic's high byte and CR LF catch files mangled by text-mode copies
// (as PNG's does). The payload starts 8-byte aligned, so on little-endian
// hosts the arrays are the file's bytes reinterpreted in place.

// CacheVersion is the cache format version this build writes and reads.
const CacheVersion = 1

const (
	cacheMagic      = "\x89WGC\r\n\x1a\n"
	cacheHeaderSize = 40

	cacheFlagDirected = 1 << 0
	cacheFlagWeighted = 1 << 1
	cacheKnownFlags   = cacheFlagDirected | cacheFlagWeighted
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// hostLittleEndian is true where a []uint32 already has the cache's byte
// order, so the loader can alias the file buffer instead of decoding it.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

type cacheHeader struct {
	version  uint32
	flags    uint32
	vertices uint64
	edges    uint64
	checksum uint32
	reserved uint32
}

func (h cacheHeader) weighted() bool { return h.flags&cacheFlagWeighted != 0 }

// payloadWords is the number of uint32 in the payload; callers check the
// counts against MaxVertices and MaxEdges first, so it cannot overflow.
func (h cacheHeader) payloadWords() uint64 {
	words := h.vertices + 1 + h.edges
	if h.weighted() {
		words += h.edges
	}
	return words
}

func (h cacheHeader) encode() []byte {
	b := make([]byte, cacheHeaderSize)
	copy(b, cacheMagic)
	binary.LittleEndian.PutUint32(b[8:], h.version)
	binary.LittleEndian.PutUint32(b[12:], h.flags)
	binary.LittleEndian.PutUint64(b[16:], h.vertices)
	binary.LittleEndian.PutUint64(b[24:], h.edges)
	binary.LittleEndian.PutUint32(b[32:], h.checksum)
	binary.LittleEndian.PutUint32(b[36:], h.reserved)
	return b
}

// decodeCacheHeader checks everything the header alone can tell.
func decodeCacheHeader(b []byte, name string) (cacheHeader, error) {
	var h cacheHeader
	if len(b) < cacheHeaderSize {
		return h, &ReadError{File: name, Msg: fmt.Sprintf("truncated cache: %d bytes, the header alone has %d", len(b), cacheHeaderSize)}
	}
	if string(b[:8]) != cacheMagic {
		return h, &ReadError{File: name, Msg: "not a warpgraph CSR cache (bad magic)"}
	}
	h.version = binary.LittleEndian.Uint32(b[8:])
	h.flags = binary.LittleEndian.Uint32(b[12:])
	h.vertices = binary.LittleEndian.Uint64(b[16:])
	h.edges = binary.LittleEndian.Uint64(b[24:])
	h.checksum = binary.LittleEndian.Uint32(b[32:])
	h.reserved = binary.LittleEndian.Uint32(b[36:])
	switch {
	case h.version != CacheVersion:
		return h, &ReadError{File: name, Msg: fmt.Sprintf("cache format version %d is not supported (this build reads version %d); rebuild the cache from the source graph", h.version, CacheVersion)}
	case h.flags&^cacheKnownFlags != 0:
		return h, &ReadError{File: name, Msg: fmt.Sprintf("unknown cache flags %#x", h.flags&^cacheKnownFlags)}
	case h.reserved != 0:
		return h, &ReadError{File: name, Msg: "reserved header field is not zero"}
	case h.vertices > MaxVertices:
		return h, &ReadError{File: name, Msg: fmt.Sprintf("header declares %d vertices", h.vertices), Err: ErrTooManyVertices}
	case h.edges > MaxEdges:
		return h, &ReadError{File: name, Msg: fmt.Sprintf("header declares %d edges", h.edges), Err: ErrTooManyEdges}
	}
	return h, nil
}

// checkPayloadSize compares the declared payload with the bytes present.
func checkPayloadSize(h cacheHeader, have int64, name string) error {
	want := h.payloadWords() * 4
	switch {
	case uint64(have) < want:
		return &ReadError{File: name, Msg: fmt.Sprintf("truncated cache: the header declares %d payload bytes, the file holds %d", want, have)}
	case uint64(have) > want:
		return &ReadError{File: name, Msg: fmt.Sprintf("trailing bytes after the declared %d-byte payload", want)}
	}
	return nil
}

// WriteCache writes g in the binary CSR cache format. It refuses a graph
// that fails Validate, so every cache file holds a well-formed graph.
func WriteCache(w io.Writer, g *Graph) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("graph: not writing an invalid graph to the cache: %w", err)
	}
	if g.NumVertices() > MaxVertices {
		return fmt.Errorf("graph: %w (%d)", ErrTooManyVertices, g.NumVertices())
	}
	if g.NumEdges() > MaxEdges {
		return fmt.Errorf("graph: %w (%d)", ErrTooManyEdges, g.NumEdges())
	}
	h := cacheHeader{version: CacheVersion, vertices: uint64(g.NumVertices()), edges: uint64(g.NumEdges())}
	if g.Directed {
		h.flags |= cacheFlagDirected
	}
	arrays := [][]uint32{g.Offsets, g.Targets}
	if g.Weighted() {
		h.flags |= cacheFlagWeighted
		arrays = append(arrays, g.Weights)
	}
	crc := crc32.Checksum(h.encode()[:32], castagnoli)
	for _, a := range arrays {
		_ = eachLittleEndianChunk(a, func(b []byte) error {
			crc = crc32.Update(crc, castagnoli, b)
			return nil
		})
	}
	h.checksum = crc
	if _, err := w.Write(h.encode()); err != nil {
		return fmt.Errorf("graph: writing the cache header: %w", err)
	}
	for _, a := range arrays {
		if err := eachLittleEndianChunk(a, func(b []byte) error {
			_, err := w.Write(b)
			return err
		}); err != nil {
			return fmt.Errorf("graph: writing the cache payload: %w", err)
		}
	}
	return nil
}

// eachLittleEndianChunk hands the little-endian bytes of a to fn: the
// array's own memory on little-endian hosts, encoded 64 KiB chunks
// elsewhere. It stops at fn's first error.
func eachLittleEndianChunk(a []uint32, fn func([]byte) error) error {
	if hostLittleEndian {
		return fn(rawBytes(a))
	}
	const chunkWords = 16 << 10
	buf := make([]byte, chunkWords*4)
	for i := 0; i < len(a); i += chunkWords {
		part := a[i:min(i+chunkWords, len(a))]
		for j, v := range part {
			binary.LittleEndian.PutUint32(buf[4*j:], v)
		}
		if err := fn(buf[:4*len(part)]); err != nil {
			return err
		}
	}
	return nil
}

// rawBytes views the memory of a as bytes, in host byte order.
func rawBytes(a []uint32) []byte {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), len(a)*4)
}

// WriteCacheFile writes g to path in the cache format. It writes a
// temporary file in the same directory and renames it, so a reader never
// sees a half-written cache.
func WriteCacheFile(path string, g *Graph) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("graph: writing cache %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file private (0600); a cache is shared data.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("graph: writing cache %s: %w", path, err)
	}
	if err = WriteCache(tmp, g); err != nil {
		return fmt.Errorf("graph: writing cache %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("graph: writing cache %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("graph: writing cache %s: %w", path, err)
	}
	return nil
}

// ReadCacheFile loads a cache written by WriteCacheFile. After the header
// it reads the payload with one read into one []uint32 buffer that the
// graph's arrays then share; it verifies the version, the sizes against the
// file length, the checksum and Graph.Validate.
func ReadCacheFile(path string) (*Graph, error) {
	return readCacheFile(path, ReadOptions{})
}

func readCacheFile(path string, opt ReadOptions) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	size := st.Size()
	hdr := make([]byte, cacheHeaderSize)
	if _, err := f.ReadAt(hdr[:min(size, cacheHeaderSize)], 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, &ReadError{File: path, Msg: "reading the cache header failed", Err: err}
	}
	h, err := decodeCacheHeader(hdr[:min(size, cacheHeaderSize)], path)
	if err != nil {
		return nil, err
	}
	if err := checkPayloadSize(h, size-cacheHeaderSize, path); err != nil {
		return nil, err
	}
	if err := checkCacheMemory(h, path); err != nil {
		return nil, err
	}
	// The size check above bounds this allocation by the file's length.
	words := make([]uint32, h.payloadWords())
	if _, err := f.ReadAt(rawBytes(words), cacheHeaderSize); err != nil {
		return nil, &ReadError{File: path, Msg: "reading the cache payload failed", Err: err}
	}
	g, err := graphFromCachePayload(h, hdr, words, path)
	if opt.Progress != nil {
		opt.Progress(size, size)
	}
	return g, err
}

// checkCacheMemory refuses a cache whose payload, once its size is
// checked against the input, needs more memory than the process can get.
func checkCacheMemory(h cacheHeader, name string) error {
	what := fmt.Sprintf("a CSR of %d vertices and %d edges", h.vertices, h.edges)
	if err := checkMemory(what, 4*h.payloadWords()); err != nil {
		return &ReadError{File: name, Msg: "not enough memory", Err: err}
	}
	return nil
}

// ReadCache reads a cache from r; name labels errors. It buffers only as
// many bytes as r actually delivers, whatever the header declares.
func ReadCache(r io.Reader, name string, opt ReadOptions) (*Graph, error) {
	if name == "" {
		name = "<input>"
	}
	size := inputSize(r)
	r = &stallGuard{r: r}
	hdr := make([]byte, cacheHeaderSize)
	n, err := io.ReadFull(r, hdr)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, &ReadError{File: name, Msg: "reading the cache header failed", Err: err}
	}
	h, err := decodeCacheHeader(hdr[:n], name)
	if err != nil {
		return nil, err
	}
	want := int64(h.payloadWords() * 4)
	var buf bytes.Buffer
	if rest := size - cacheHeaderSize; size >= 0 && rest <= want {
		// The input's own length is trustworthy; MinRead spares
		// ReadFrom a final doubling when it probes for more.
		buf.Grow(int(max(rest, 0)) + bytes.MinRead)
	}
	// Reading one byte past the declared payload detects trailing data
	// without trusting the header for the allocation.
	if _, err := buf.ReadFrom(io.LimitReader(r, want+1)); err != nil {
		return nil, &ReadError{File: name, Msg: "reading the cache payload failed", Err: err}
	}
	if err := checkPayloadSize(h, int64(buf.Len()), name); err != nil {
		return nil, err
	}
	if err := checkCacheMemory(h, name); err != nil {
		return nil, err
	}
	// A copy into a []uint32 gives the alignment that aliasing needs.
	words := make([]uint32, h.payloadWords())
	copy(rawBytes(words), buf.Bytes())
	g, err := graphFromCachePayload(h, hdr, words, name)
	if opt.Progress != nil {
		total := int64(cacheHeaderSize) + int64(buf.Len())
		opt.Progress(total, total)
	}
	return g, err
}

// graphFromCachePayload verifies the checksum of words, which hold the
// file's bytes as read, puts them in host byte order and slices them into a
// Graph without copying.
func graphFromCachePayload(h cacheHeader, hdr []byte, words []uint32, name string) (*Graph, error) {
	crc := crc32.Update(crc32.Checksum(hdr[:32], castagnoli), castagnoli, rawBytes(words))
	if crc != h.checksum {
		return nil, &ReadError{File: name, Msg: fmt.Sprintf("checksum mismatch (stored %#08x, computed %#08x): the cache is corrupted", h.checksum, crc)}
	}
	if !hostLittleEndian {
		for i, v := range words {
			words[i] = bits.ReverseBytes32(v)
		}
	}
	n, m := h.vertices, h.edges
	// Full slice expressions keep an append to one array from overwriting
	// the next.
	g := &Graph{
		Offsets:  words[0 : n+1 : n+1],
		Targets:  words[n+1 : n+1+m : n+1+m],
		Directed: h.flags&cacheFlagDirected != 0,
	}
	if h.weighted() {
		g.Weights = words[n+1+m : n+1+2*m : n+1+2*m]
	}
	if err := g.Validate(); err != nil {
		return nil, &ReadError{File: name, Msg: "cache holds an invalid graph", Err: err}
	}
	return g, nil
}
