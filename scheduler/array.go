package scheduler

import (
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// Array is one metadata buffer of a problem: its initial contents, which
// every run starts from, and its device copy. After a run the enactor
// downloads it, and Uint32s or Float32s read the result.
type Array struct {
	Name string
	init []byte // the initial contents, uploaded before every run
	got  []byte // the contents after the last run
	ptr  kernels.DevPtr
}

// Uint32s makes an array of uint32 starting as init.
func Uint32s(name string, init []uint32) *Array { return &Array{Name: name, init: rawBytes(init)} }

// Float32s makes an array of float32 starting as init.
func Float32s(name string, init []float32) *Array { return &Array{Name: name, init: rawBytes(init)} }

// Float64s makes an array of float64 starting as init.
func Float64s(name string, init []float64) *Array { return &Array{Name: name, init: rawBytes(init)} }

// Uint32s returns the array's contents after the run.
func (a *Array) Uint32s() []uint32 { return fromBytes[uint32](a.got) }

// Float32s returns the array's contents after the run.
func (a *Array) Float32s() []float32 { return fromBytes[float32](a.got) }

// Ptr is the array's device address (valid during a run).
func (a *Array) Ptr() kernels.DevPtr { return a.ptr }

func rawBytes[T uint32 | float32 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(s[0]))
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*size)...)
}

func fromBytes[T uint32 | float32](b []byte) []T {
	if len(b) < 4 {
		return []T{}
	}
	out := make([]T, len(b)/4)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*4), b)
	return out
}
