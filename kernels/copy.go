package kernels

import (
	"fmt"
	"unsafe"
)

// Word is an element type that crosses between host and device memory as
// its raw little-endian bytes.
type Word interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 | ~float32 | ~float64
}

// bytesOf views a slice's backing array as bytes without copying; every
// host and device this project targets is little-endian.
func bytesOf[T Word](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero)))
}

// Upload copies src into device memory at dst.
func Upload[T Word](dev Device, dst DevPtr, src []T) error {
	return dev.CopyToDevice(dst, bytesOf(src))
}

// Download fills dst from device memory at src.
func Download[T Word](dev Device, dst []T, src DevPtr) error {
	return dev.CopyFromDevice(bytesOf(dst), src)
}

// AllocSlice allocates room for n elements of T.
func AllocSlice[T Word](dev Device, n int) (DevPtr, error) {
	var zero T
	bytes := n * int(unsafe.Sizeof(zero))
	if bytes == 0 {
		bytes = int(unsafe.Sizeof(zero)) // a valid pointer even for an empty array
	}
	p, err := dev.Alloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("allocating %d elements of %T: %w", n, zero, err)
	}
	return p, nil
}

// AllocCopy allocates device memory for src and copies it there.
func AllocCopy[T Word](dev Device, src []T) (DevPtr, error) {
	p, err := AllocSlice[T](dev, len(src))
	if err != nil {
		return 0, err
	}
	if err := Upload(dev, p, src); err != nil {
		_ = dev.Free(p)
		return 0, err
	}
	return p, nil
}

// Allocations frees every pointer it collected, so drivers can release
// their buffers with one deferred call whatever path they leave by.
type Allocations struct {
	dev  Device
	ptrs []DevPtr
}

// NewAllocations starts an empty set of allocations on dev.
func NewAllocations(dev Device) *Allocations { return &Allocations{dev: dev} }

// Slice allocates n elements of T and records the pointer.
func Slice[T Word](a *Allocations, n int) (DevPtr, error) {
	p, err := AllocSlice[T](a.dev, n)
	if err == nil {
		a.ptrs = append(a.ptrs, p)
	}
	return p, err
}

// Copy allocates and fills a copy of src and records the pointer.
func Copy[T Word](a *Allocations, src []T) (DevPtr, error) {
	p, err := AllocCopy(a.dev, src)
	if err == nil {
		a.ptrs = append(a.ptrs, p)
	}
	return p, err
}

// FreeAll releases every recorded allocation and returns the first error.
func (a *Allocations) FreeAll() error {
	var first error
	for _, p := range a.ptrs {
		if err := a.dev.Free(p); err != nil && first == nil {
			first = err
		}
	}
	a.ptrs = nil
	return first
}
