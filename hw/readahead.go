//go:build cgo

package hw

/*
#include "cuda_driver.h"
*/
import "C"

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// The read-ahead (see CopyFromDevice) reads the expected read-back behind
// a launch, on the same stream, while the host waits for the kernel
// anyway. It does so with a kernel of this package, wg_read_ahead, rather
// than cuMemcpyDtoHAsync: on an H100 (driver 580) a copy queued behind a
// kernel finished some 8 µs after the kernel, later even than a copy
// queued once the kernel is known to have finished, while a kernel queued
// behind a kernel follows it at once. wg_read_ahead writes the bytes into
// pinned host memory, mapped into the device (under unified addressing the
// device pointer of cuMemAllocHost memory is its host pointer), then a
// sequence number, which the host polls in memory without calling the
// driver.

// readAheadPTX is readahead.cu compiled by clang++-16.
//
//go:embed readahead.ptx
var readAheadPTX []byte

var (
	readAheadModule      = &kernels.Module{Name: "hw_readahead", PTX: readAheadPTX}
	readAheadKernelEntry = &kernels.Kernel{Name: "wg_read_ahead", Module: readAheadModule, Params: []kernels.Param{
		{Name: "src", Size: 8, Align: 8},
		{Name: "dst", Size: 8, Align: 8},
		{Name: "n", Size: 4, Align: 4},
		{Name: "seq", Size: 4, Align: 4},
		{Name: "done", Size: 8, Align: 8},
	}}
)

func init() { readAheadModule.Kernels = []*kernels.Kernel{readAheadKernelEntry} }

// readAheadBytes bounds the read-backs that a launch reads ahead; the
// pinned read-ahead buffer holds them, then the sequence number at
// readAheadFlag.
const (
	readAheadBytes    = 256
	readAheadFlag     = 256
	readAheadBufBytes = 512
)

// queueReadAhead queues the read of d.follow behind the launch just
// queued. It reports whether it did; a failure to queue it leaves the
// launch to stand alone (a sticky error surfaces in the launch's wait).
func (d *Device) queueReadAhead() bool {
	if d.readAheadBroken {
		return false
	}
	f, err := d.function(readAheadKernelEntry)
	if err != nil {
		// Not worth failing a launch over: read back the usual way.
		d.readAheadBroken = true
		return false
	}
	d.readAheadSeq++
	if d.readAheadSeq == 0 { // 0 is the flag's initial value
		d.readAheadSeq = 1
	}
	s := d.follow
	var p [32]byte
	binary.LittleEndian.PutUint64(p[0:], uint64(s.base))
	binary.LittleEndian.PutUint64(p[8:], uint64(uintptr(d.readAhead)))
	binary.LittleEndian.PutUint32(p[16:], uint32(s.size))
	binary.LittleEndian.PutUint32(p[20:], d.readAheadSeq)
	binary.LittleEndian.PutUint64(p[24:], uint64(uintptr(d.readAhead))+readAheadFlag)
	d.raParams.set(p[:], readAheadKernelEntry.ParamOffsets())
	r := C.wg_launch(f.handle, 1, 1, 1, 32, 1, 1, 0, d.stream, d.raParams.kernelParams(), 0)
	if d.sticky(check("cuLaunchKernel(wg_read_ahead)", r)) != nil {
		return false
	}
	d.aheadSeq = d.readAheadSeq
	return true
}

// awaitReadAhead waits until the read-ahead has landed in d.readAhead.
func (d *Device) awaitReadAhead() error {
	flag := (*uint32)(unsafe.Add(d.readAhead, readAheadFlag))
	var r C.CUresult = cudaNotReady
	polls := 0
	_ = pollUntil(context.Background(), func() bool {
		if atomic.LoadUint32(flag) == d.aheadSeq {
			return true
		}
		// Now and then ask the driver too, so that a context lost
		// meanwhile ends the wait.
		if polls++; polls%64 == 0 {
			r = C.wg_cuStreamQuery(d.stream)
			return r != cudaNotReady
		}
		return false
	})
	if atomic.LoadUint32(flag) == d.aheadSeq {
		return nil
	}
	if r != cudaSuccess {
		return d.sticky(cudaError("cuStreamQuery(read-ahead)", r))
	}
	return fmt.Errorf("hw: read-ahead %d finished without writing its flag (%d)", d.aheadSeq, atomic.LoadUint32(flag))
}
