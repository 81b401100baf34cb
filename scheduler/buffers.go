package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// Buffers allocates and fills device memory for a run and remembers the
// first error, so a driver allocates everything and checks once (Err)
// instead of after every call; after an error every later call does
// nothing and returns a zero pointer. Free releases all of it.
type Buffers struct {
	dev kernels.Device
	mem *kernels.Allocations
	err error
}

// NewBuffers starts an empty buffer set on dev.
func NewBuffers(dev kernels.Device) *Buffers {
	return &Buffers{dev: dev, mem: kernels.NewAllocations(dev)}
}

// Err returns the first error of any call so far.
func (b *Buffers) Err() error { return b.err }

// Fail records err (with context) unless an error is already recorded.
func (b *Buffers) Fail(err error, what string) {
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("%s: %w", what, err)
	}
}

// Uint32s allocates n uint32 (n may be 0: the pointer is still valid).
func (b *Buffers) Uint32s(n int, what string) kernels.DevPtr {
	if b.err != nil {
		return 0
	}
	p, err := kernels.Slice[uint32](b.mem, n)
	b.Fail(err, what)
	return p
}

// Copy allocates a copy of src.
func (b *Buffers) Copy(src []uint32, what string) kernels.DevPtr {
	if b.err != nil {
		return 0
	}
	p, err := kernels.Copy(b.mem, src)
	b.Fail(err, what)
	return p
}

// Bytes allocates room for n bytes (at least 4).
func (b *Buffers) Bytes(n int, what string) kernels.DevPtr {
	if b.err != nil {
		return 0
	}
	p, err := kernels.Slice[byte](b.mem, max(n, 4))
	b.Fail(err, what)
	return p
}

// Upload copies src to dst.
func (b *Buffers) Upload(dst kernels.DevPtr, src []byte, what string) {
	if b.err == nil && len(src) > 0 {
		b.Fail(b.dev.CopyToDevice(dst, src), what)
	}
}

// Download fills dst from src.
func (b *Buffers) Download(dst []byte, src kernels.DevPtr, what string) {
	if b.err == nil && len(dst) > 0 {
		b.Fail(b.dev.CopyFromDevice(dst, src), what)
	}
}

// Zero clears n bytes at p.
func (b *Buffers) Zero(p kernels.DevPtr, n int, what string) {
	if b.err == nil && n > 0 {
		b.Fail(b.dev.Memset(p, 0, n), what)
	}
}

// Free releases every buffer.
func (b *Buffers) Free() error { return b.mem.FreeAll() }

// Frontier is a pair of vertex queues that swap roles every iteration, with
// the output queue's length counter.
type Frontier struct {
	In, Out kernels.DevPtr
	OutLen  kernels.DevPtr
	// Len is the number of vertices in In.
	Len int
}

// NewFrontier allocates two queues of capacity vertices and a counter.
func (b *Buffers) NewFrontier(capacity int) *Frontier {
	return &Frontier{In: b.Uint32s(capacity, "frontier"), Out: b.Uint32s(capacity, "frontier"), OutLen: b.Uint32s(1, "frontier length")}
}

// Swap makes the output queue, of n vertices, the next input.
func (f *Frontier) Swap(n int) {
	f.In, f.Out, f.Len = f.Out, f.In, n
}

// resetFrontier puts a push scheduler's frontier back at the problem's
// start list and clears its queued stamps (kernels/lib/frontier.cuh,
// wg_claim_once), before every run.
func (e *Enactment) resetFrontier(f *Frontier, queued kernels.DevPtr) error {
	b := e.Buffers
	b.Zero(queued, 4*e.Problem.Graph.NumVertices(), "queued stamps")
	f.Len = len(e.Problem.Start)
	b.Upload(f.In, rawBytes(e.Problem.Start), "initial frontier")
	return b.Err()
}
